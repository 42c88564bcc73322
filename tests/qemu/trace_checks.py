"""The checks of the "trace" scenario (tests/qemu/scenarios.py): what the
trace of a scripted command must show, in order and on the right CPUs.
Counts and order only, never times."""

import importlib.machinery
import importlib.util
import json
import os
import sys
import xml.etree.ElementTree as ElementTree

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(REPO, "tools")
sys.path.insert(0, os.path.join(TOOLS, "lib"))
import tracefile  # noqa: E402

SECOND_BEGIN, SECOND_END = "==second-trace-begin==", "==second-trace-end=="

# Booted with trace=sched,user,ipi. The first dump is the spinner's run;
# then the classes become irq,tick, the rings are cleared, and a second
# dump must hold only irq and tick events.
COMMAND = ("taskset -c 2 spin 1; echo %s; cat /proc/trace; echo %s; "
           "echo 'classes irq,tick' > /proc/trace && echo clear > /proc/trace && sleep 0.2 && "
           "echo %s && cat /proc/trace && echo %s; echo bad > /proc/trace || echo bad write refused"
           % (tracefile.BEGIN, tracefile.END, SECOND_BEGIN, SECOND_END))


def load_tool(name):
    loader = importlib.machinery.SourceFileLoader(name.replace("2", "_to_"), os.path.join(TOOLS, "measure", name))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def first_index(events, start, predicate):
    return next((i for i in range(start, len(events)) if predicate(events[i])), None)


def check_spinner(trace):
    """taskset -c 2 spin 1: a switch to the task on CPU 2, its exec as spin
    there, then its user-mode stretches, all on CPU 2."""
    reasons, events = [], trace.events
    switch = first_index(events, 0, lambda e: e.event == "sched_switch" and e.cpu == 2
                         and e.fields.get("next_comm") == "spin")
    if switch is None:
        return ["no sched_switch to spin on cpu 2"]
    exec_ = first_index(events, switch, lambda e: e.event == "sched_exec" and e.fields.get("comm") == "spin")
    if exec_ is None:
        return ["no sched_exec of spin after the switch to it on cpu 2"]
    if events[exec_].cpu != 2:
        reasons.append("spin exec'd on cpu %d, not 2" % events[exec_].cpu)
    after = events[exec_:]
    enters = [e for e in after if e.event == "user_enter" and e.task == "spin"]
    exits = [e for e in after if e.event == "user_exit" and e.task == "spin"]
    if len(enters) < 50 or len(exits) < 50:
        reasons.append("spin: only %d user_enter and %d user_exit after its exec" % (len(enters), len(exits)))
    elsewhere = sorted({e.cpu for e in enters + exits if e.cpu != 2})
    if elsewhere:
        reasons.append("spin entered or left user mode on cpus %s, outside its affinity" % elsewhere)
    # enter and exit alternate on cpu 2 while spin runs
    kinds = [e.event for e in after if e.cpu == 2 and e.event in ("user_enter", "user_exit")]
    if any(a == b for a, b in zip(kinds, kinds[1:])):
        reasons.append("user_enter/user_exit do not alternate on cpu 2")
    return reasons


def check_ipis(trace):
    pairs = tracefile.match_ipis(trace.events)
    if not pairs:
        return ["no IPI send with a matching receive"]
    position = {id(e): i for i, e in enumerate(trace.events)}
    for send, receive in pairs:
        if int(send.fields["target"]) != receive.cpu or position[id(receive)] < position[id(send)]:
            return ["IPI %s to cpu %s received out of order or elsewhere" % (send.fields["type"], send.fields["target"])]
    return []


def check_classes(trace, allowed, label):
    prefixes = tuple(c + "_" for c in allowed)
    other = sorted({e.event for e in trace.events if not e.event.startswith(prefixes)})
    if other:
        return ["%s: events of classes that are off: %s" % (label, ", ".join(other))]
    if not trace.events:
        return ["%s: no events at all" % label]
    return []


def check_converters(text, cpus):
    reasons = []
    result = json.loads(json.dumps(load_tool("trace2perfetto").convert(text)))
    tracks = {e["pid"] for e in result["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
    if tracks != set(cpus):
        reasons.append("Perfetto JSON: CPU tracks %s, expected %s" % (sorted(tracks), cpus))
    try:
        ElementTree.fromstring(load_tool("trace2svg").convert(text))
    except ElementTree.ParseError as error:
        reasons.append("SVG not well-formed: %s" % error)
    return reasons


def check(output):
    first_text = tracefile.section(output, tracefile.BEGIN, tracefile.END)
    second_text = tracefile.section(output, SECOND_BEGIN, SECOND_END)
    if first_text is None or second_text is None:
        return ["the trace dumps are missing from the output"]
    first = tracefile.parse(first_text)
    if first.cpus != [0, 1, 2, 3]:
        return ["first trace: CPUs %s in the header, expected 0-3" % first.cpus]
    reasons = check_spinner(first) + check_ipis(first)
    reasons += check_classes(first, ("sched", "user", "ipi"), "first trace")
    reasons += check_converters(first_text, first.cpus)
    second = tracefile.parse(second_text)
    reasons += check_classes(second, ("irq", "tick"), "after 'classes irq,tick' and 'clear'")
    if "# nohzk trace: classes irq,tick," not in second_text:
        reasons.append("the second trace's header does not say 'classes irq,tick'")
    if "bad write refused" not in output:
        reasons.append("writing 'bad' to /proc/trace was not refused")
    return reasons
