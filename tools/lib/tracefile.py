"""Reading nohzk's /proc/trace text (docs/trace.md), for tools/measure/trace2perfetto,
tools/measure/trace2svg and the tests. Python 3 standard library only.

A console log may hold the trace between the markers BEGIN and END (what
`make trace` prints); without markers the whole text is taken as the trace.
"""

import re
from collections import namedtuple

BEGIN = "==nohzk-trace-begin=="
END = "==nohzk-trace-end=="

LINE_RE = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>-?\d+)\s+\[(?P<cpu>\d+)\]\s+"
                     r"(?P<sec>\d+)\.(?P<usec>\d{6}):\s+(?P<event>\w+):\s?(?P<details>.*)$")
CPU_RE = re.compile(r"^# cpu (\d+): (\d+) events, (\d+) overwritten")
FIELD_RE = re.compile(r"(\w+)=(\S+)")

# us: microseconds since boot; fields: the key=value pairs of the details.
Event = namedtuple("Event", "task pid cpu us event fields details")
Trace = namedtuple("Trace", "cpus events overwritten")


def section(text, begin, end):
    """The lines between a line that is begin and a line that is end (or
    the end of the text); None without such a begin line. Markers must be
    whole lines: the command line that echoes them may be in the log too."""
    lines = text.replace("\r", "").split("\n")
    if begin not in lines:
        return None
    first = lines.index(begin) + 1
    last = lines.index(end, first) if end in lines[first:] else len(lines)
    return "\n".join(lines[first:last]) + "\n"


def extract(text):
    """The trace part of a console log (all of it, without markers)."""
    found = section(text, BEGIN, END)
    return text.replace("\r", "") if found is None else found


def parse(text):
    """A Trace: the CPUs listed in the header (and any seen in events),
    the events in file order (time order), and per-CPU overwritten counts."""
    cpus, events, overwritten = set(), [], {}
    for line in extract(text).splitlines():
        m = CPU_RE.match(line)
        if m:
            cpus.add(int(m.group(1)))
            overwritten[int(m.group(1))] = int(m.group(3))
            continue
        m = LINE_RE.match(line)
        if not m:
            continue
        cpu = int(m.group("cpu"))
        cpus.add(cpu)
        details = m.group("details")
        events.append(Event(m.group("task"), int(m.group("pid")), cpu,
                            int(m.group("sec")) * 1000000 + int(m.group("usec")),
                            m.group("event"), dict(FIELD_RE.findall(details)), details))
    return Trace(sorted(cpus), events, overwritten)


def match_ipis(events):
    """Pairs (send, receive) of IPI events: a receive of type T on CPU c
    closes every send of T to c not yet received (the local APIC merges an
    IPI with a pending one of the same vector). Sends never received are
    left out."""
    pending, pairs = {}, []
    for e in events:
        if e.event == "ipi_send":
            pending.setdefault((int(e.fields.get("target", -1)), e.fields.get("type")), []).append(e)
        elif e.event == "ipi_receive":
            for send in pending.pop((e.cpu, e.fields.get("type")), []):
                pairs.append((send, e))
    return pairs


def cpu_states(trace):
    """Per CPU, the stretches [(start_us, end_us, state, task)] where state
    is "user", "kernel" or "idle", from sched_switch and user enter/exit.
    Before a CPU's first such event its state is unknown and not shown."""
    state, stretches = {}, {cpu: [] for cpu in trace.cpus}
    last = trace.events[-1].us if trace.events else 0

    def switch(cpu, us, new, task):
        old = state.get(cpu)
        if old and (old[1], old[2]) == (new, task):
            return
        if old and us >= old[0]:
            stretches[cpu].append((old[0], us, old[1], old[2]))
        state[cpu] = (us, new, task)

    for e in trace.events:
        if e.event == "sched_switch":
            task = e.fields.get("next_comm", "?")
            switch(e.cpu, e.us, "idle" if task.startswith("idle/") else "kernel", task)
        elif e.event == "user_enter":
            switch(e.cpu, e.us, "user", e.task)
        elif e.event == "user_exit":
            switch(e.cpu, e.us, "kernel", e.task)
        elif e.cpu not in state:
            # The first event tells at least who ran: idle or a task in the kernel.
            switch(e.cpu, e.us, "idle" if e.task.startswith("idle/") else "kernel", e.task)
    for cpu, (start, name, task) in state.items():
        stretches[cpu].append((start, max(start, last), name, task))
    return stretches


def tick_stopped(trace):
    """Per CPU, stretches [(start_us, end_us, reason)] between tick_stop and
    tick_restart (or the end of the trace)."""
    stopped, open_at = {cpu: [] for cpu in trace.cpus}, {}
    last = trace.events[-1].us if trace.events else 0
    for e in trace.events:
        if e.event == "tick_stop" and e.cpu not in open_at:
            open_at[e.cpu] = (e.us, e.fields.get("reason", ""))
        elif e.event == "tick_restart" and e.cpu in open_at:
            start, reason = open_at.pop(e.cpu)
            stopped[e.cpu].append((start, e.us, reason))
    for cpu, (start, reason) in open_at.items():
        stopped[cpu].append((start, last, reason))
    return stopped


def nohz_periods(trace):
    """Per CPU, stretches [(start_us, end_us, pid)] between nohz_set and
    nohz_clear of a task, on the CPU the set was made on."""
    periods, open_at = {cpu: [] for cpu in trace.cpus}, {}
    last = trace.events[-1].us if trace.events else 0
    for e in trace.events:
        pid = e.fields.get("pid")
        if e.event == "nohz_set":
            open_at[pid] = (e.cpu, e.us)
        elif e.event == "nohz_clear" and pid in open_at:
            cpu, start = open_at.pop(pid)
            periods[cpu].append((start, e.us, pid))
    for pid, (cpu, start) in open_at.items():
        periods[cpu].append((start, last, pid))
    return periods
