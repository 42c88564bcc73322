"""The tick-policy laboratory's measuring side (docs/noise.md): the noise
scenarios as shell command lines for nohzk and for Linux, what one boot
printed read back into numbers, the outside witness held against the
guest's own counts, statistics over runs, and the JSON, CSV and SVG
writers. tools/measure/noise-bench and tools/measure/compare-linux use it.

One boot runs several scenarios one after the other ("a session"); each
scenario is one `osnoise --mark` run on the measured CPU, between the lines

    noiselab: begin SCENARIO
    noiselab: tick 3 ticking ...      (nohzk: CPU 3's /proc/tick row)
    ...osnoise's marks and its JSON line...
    noiselab: tick 3 stopped ...
    noiselab: end SCENARIO status N

and opens exactly one witness window on that CPU.
"""

import csv
import json
import os
import re
import statistics
import subprocess
import sys

import probes

# name: (what it is, osnoise options). The load some scenarios put on the
# other CPUs is in background() below.
SCENARIOS = {
    "alone": ("osnoise alone on the measured CPU", ""),
    "syscalls": ("a getpid() every 1000 us", "--syscall-every-us 1000"),
    "faults": ("a new page touched every 1000 us", "--fault-every-us 1000"),
    "rcu-load": ("a fork/exec loop on CPU 0 (and rcustress on another CPU under nohzk) meanwhile", ""),
    "compete": ("a spinner joins the measured CPU for one second, halfway", ""),
    "sleepy": ("runs 2 ms, sleeps 1 ms, over and over", "--run-us 2000 --sleep-us 1000"),
    "timers": ("an ITIMER_REAL fires every 10 ms (SIGALRM)", "--itimer-us 10000"),
    "signals": ("CPU 0 sends it SIGUSR1 every 2 ms", "--signals-from-cpu 0 --signal-every-us 2000"),
    "threads": ("2 sibling threads on CPU 0 map, touch and unmap 4 pages every 1 ms",
                "--threads 2 --thread-cpus 0 --thread-every-us 1000"),
}
# The scenarios whose events come at a pace the host sets, so that their
# number varies from boot to boot: compare interrupts per event there. The
# events are counted by osnoise itself, on the measured CPU (its JSON key).
EVENT_SCENARIOS = {"sleepy": "sleeps", "timers": "alarms", "signals": "signals"}
# The vectors that carry a TLB shootdown to the measured CPU, as QEMU's
# witness sees them: nohzk's own IPI (arch/x86/vectors.h:
# VECTOR_TLB_SHOOTDOWN), and Linux's function-call IPIs
# (CALL_FUNCTION_SINGLE_VECTOR 0xfb, CALL_FUNCTION_VECTOR 0xfc), which
# carry its flushes among other functions.
SHOOTDOWN_VECTORS = {"nohzk": (0xf3,), "linux": (0xfb, 0xfc)}
KERNELS = ("nohzk", "linux")
WARMUP_MS = 1000

BEGIN_RE = re.compile(r"^noiselab: begin (\S+)$", re.M)
OSNOISE_RE = re.compile(r'^\{"tool": "osnoise".*\}$', re.M)
TICK_RE = re.compile(r"^noiselab: tick (\d+) +(?:ticking|stopped) +\S+ +\S+ +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+)",
                     re.M)
END_RE = re.compile(r"^noiselab: end (\S+) status (\d+)$", re.M)
COST_RE = re.compile(r"^bench: getppid_cpu(\d+) cycles_median=(\d+) cycles_min=(\d+) batches=\d+ per_batch=\d+ "
                     r"nohz=(\d)$", re.M)
WITNESS_RE = re.compile(r"^witness: cpu (\d+) window (\d+): timer (\d+), all (\d+), exceptions (\d+)"
                        r"(?:, inner: timer (\d+), all (\d+))?(?: \(vectors: ([^;)]*)(?:; inner: ([^)]*))?\))?$", re.M)
VECTOR_COUNT_RE = re.compile(r"^0x([0-9a-f]+) (\d+)$")
# kernel/time/nohz_task.c: nohz_full_init(), for a policy that reads the
# list (uses_nohz_full) booted without it.
WANTS_NOHZ_FULL_RE = re.compile(r"^nohz_full: tick=(\S+) without nohz_full=")
POLICIES_RE = re.compile(r"^noiselab: policies\n((?:.*\n)*?)noiselab: policies end$", re.M)

# The /proc/tick columns after the state, reason and nohz owner
# (kernel/fs/procfs.c: generate_tick()).
TICK_COLUMNS = ("ticks", "missed", "stops", "restarts", "kicks", "wasted")

# Every number a run gives, in table order: (key, what).
METRICS = [
    ("timer", "LOC of the measured CPU in the window (guest)"),
    ("all", "every /proc/interrupts row of the measured CPU in the window (guest)"),
    ("witness_timer", "timer interrupts QEMU delivered in the window (inner)"),
    ("witness_all", "all interrupts QEMU delivered in the window (inner)"),
    ("witness_timer_outer", "the same over the outer window"),
    ("witness_all_outer", "the same over the outer window"),
    ("life", "every interrupt from osnoise's arrival on the CPU to its end (guest)"),
    ("resched", "RES"), ("call_function", "CAL"), ("nohz_kick", "NHZ"),
    ("stops", "tick stops of the measured CPU over the scenario (/proc/tick)"),
    ("restarts", "tick restarts"), ("kicks", "nohz kicks received"), ("wasted", "kicks that found the tick running"),
    ("noise_pct", "100 - % CPU available (host-dependent under TCG)"),
    ("runtime_ms", "osnoise's measured runtime"), ("max_single_us", "longest single noise"),
    ("syscalls", "system calls injected"), ("faults", "pages touched"), ("sleeps", "sleeps"),
    ("alarms", "SIGALRM handled"), ("signals", "SIGUSR1 handled"),
    ("munmaps", "unmaps by osnoise's sibling threads in the window (scenario threads)"),
    ("tlb", "TLB of the measured CPU in the window (guest)"),
    ("witness_tlb", "shootdown vectors QEMU delivered in the window (inner; SHOOTDOWN_VECTORS)"),
    ("witness_tlb_outer", "the same over the outer window"),
    ("witness_tlb_per_loop", "witness_tlb / munmaps: shootdowns per sibling loop (mmap, first writes, munmap)"),
    ("events", "event scenarios (EVENT_SCENARIOS): the sleeps, alarms or signals osnoise counted in the window"),
    ("all_per_event", "all / events"), ("witness_per_event", "witness_all / events"),
    ("witness_timer_per_event", "witness_timer / events"),
    ("causes_total", "nohzk: the window's interrupts added up by cause (/proc/interrupt_causes)"),
    ("causes_interrupts", "nohzk: the kernel's own count of the same moments, which causes_total must equal"),
]
METRIC_KEYS = [key for key, _ in METRICS]


class LabError(Exception):
    pass


# --------------------------------------------------------------------------
# Command lines.

def helper_cpu(cpu):
    """The CPU that runs rcustress: not the measured one, not CPU 0 (the
    fork loop's)."""
    return 2 if cpu == 1 else 1


def background(name, kernel, cpu, window_s):
    """(before, after) shell text around osnoise for scenario name: a load
    started before it and ended after it; after leaves osnoise's success
    in $?."""
    if name == "rcu-load":
        forks = "touch /tmp/noiselab-run; taskset -c 0 sh -c 'while [ -e /tmp/noiselab-run ]; do /bin/true; done' & "
        if kernel == "nohzk":
            forks += "(sleep 1; taskset -c %d rcustress %d >/dev/null) & " % (helper_cpu(cpu), max(window_s - 1, 1))
        return forks, "; s=$?; rm -f /tmp/noiselab-run; wait; [ $s = 0 ]"
    if name == "compete":
        # spin joins halfway through the window (after the warm-up)
        return "", " & p=$!; sleep %d; taskset -c %d spin 1 >/dev/null; wait $p" % (window_s // 2 + 1, cpu)
    return "", ""


def osnoise_command(name, kernel, cpu, window_s):
    """One scenario's osnoise, with its marks (--mark-uart under Linux,
    whose serial driver sends a program's text from another CPU)."""
    if name not in SCENARIOS:
        raise LabError("unknown scenario %r (known: %s)" % (name, ", ".join(SCENARIOS)))
    marks = "--nohz --mark" if kernel == "nohzk" else "--mark-uart"
    command = "osnoise --cpu %d %s --json --warmup-ms %d --duration %d" % (cpu, marks, WARMUP_MS, window_s)
    options = SCENARIOS[name][1]
    return command + (" " + options if options else "")


def tick_row(kernel, cpu):
    """nohzk: the measured CPU's /proc/tick row, as a noiselab: tick line."""
    if kernel != "nohzk":
        return []
    return ["echo \"noiselab: tick $(grep -E '^%d +(ticking|stopped) ' /proc/tick)\"" % cpu]


def scenario_command(name, kernel, cpu, window_s):
    before, after = background(name, kernel, cpu, window_s)
    return "; ".join(["echo 'noiselab: begin %s'" % name] + tick_row(kernel, cpu) +
                     [before + osnoise_command(name, kernel, cpu, window_s) + after,
                      "echo \"noiselab: end %s status $?\"" % name] + tick_row(kernel, cpu))


def cost_command(kernel, cpu):
    """The getppid round trip on CPU 0 and on the measured CPU (a nohz
    task there under nohzk)."""
    return "syscall_bench --getppid 0; syscall_bench --getppid %d%s" % (cpu, " --nohz" if kernel == "nohzk" else "")


def session_command(scenarios, kernel, cpu, window_s, cost=True, probe_rounds=0):
    """Every scenario, the getppid cost (cost), then syscall_bench --probes
    with probe_rounds rounds (0: not run)."""
    parts = [scenario_command(name, kernel, cpu, window_s) for name in scenarios]
    if cost:
        parts.append(cost_command(kernel, cpu))
    if probe_rounds:
        parts.append(probes.command(probe_rounds))
    return "; ".join(parts)


def policies_command():
    return "echo 'noiselab: policies'; cat /proc/sys/kernel/tick_policies; echo 'noiselab: policies end'"


def parse_policies(text):
    """The policy names of /proc/sys/kernel/tick_policies, in its order."""
    m = POLICIES_RE.search(text.replace("\r", ""))
    names = [line.split()[0] for line in m.group(1).splitlines() if line.strip()] if m else []
    if not names:
        raise LabError("no list of policies between the noiselab: policies lines")
    return names


# --------------------------------------------------------------------------
# Reading a session back.

def parse_vectors(text):
    """"0xec 3, 0xf0 1" -> {0xec: 3, 0xf0: 1}; LabError on anything else."""
    found = {}
    for word in (text or "").split(", "):
        m = VECTOR_COUNT_RE.match(word)
        if not m:
            raise LabError("witness: %r is not a vector and its count" % word)
        found[int(m.group(1), 16)] = int(m.group(2))
    return found


def add_vectors(window, outer, inner):
    """The counts by vector of a witness line (outer, inner: their text,
    or None when the line has none) into window, checked against its
    totals. A window that took nothing prints no vectors."""
    if outer is None and window["all_outer"]:
        return                  # a line written without them: no counts by vector
    window["vectors"] = parse_vectors(outer) if outer else {}
    window["inner_vectors"] = parse_vectors(inner) if inner else {}
    if sum(window["vectors"].values()) != window["all_outer"] or sum(window["inner_vectors"].values()) != window["all"]:
        raise LabError("witness: a window's vectors do not add up to its counts (all %d, inner %d)"
                       % (window["all_outer"], window["all"]))


def parse_witness_lines(text):
    """tools/run/boot --witness's lines: {cpu: [window dicts in order]}."""
    windows = {}
    for m in WITNESS_RE.finditer(text):
        window = {"timer_outer": int(m.group(3)), "all_outer": int(m.group(4)), "exceptions": int(m.group(5))}
        if m.group(6) is None:
            window["timer"], window["all"] = window["timer_outer"], window["all_outer"]
            window["bracketed"] = False
        else:
            window["timer"], window["all"] = int(m.group(6)), int(m.group(7))
            window["bracketed"] = True
        add_vectors(window, m.group(8), m.group(9) if window["bracketed"] else m.group(8))
        windows.setdefault(int(m.group(1)), []).append(window)
    return windows


def witness_windows(windows, timer):
    """tools/lib/witness.py's Window tuples, in the same form."""
    found = {}
    for w in windows:
        outer_timer, outer_all = w.vectors.get(timer, 0), sum(w.vectors.values())
        inner = w.inner if w.inner is not None else w.vectors
        found.setdefault(w.cpu, []).append({
            "timer_outer": outer_timer, "all_outer": outer_all, "exceptions": w.exceptions,
            "timer": inner.get(timer, 0), "all": sum(inner.values()), "bracketed": w.inner is not None,
            "vectors": dict(w.vectors), "inner_vectors": dict(inner)})
    return found


def sections(text):
    """(scenario, its text) for each begin line, in order."""
    text = text.replace("\r", "")
    begins = list(BEGIN_RE.finditer(text))
    for i, m in enumerate(begins):
        end = begins[i + 1].start() if i + 1 < len(begins) else len(text)
        yield m.group(1), text[m.end():end]


def parse_osnoise(section):
    m = OSNOISE_RE.search(section)
    if not m:
        return None
    try:
        return json.loads(m.group(0))
    except ValueError:          # a kernel message inside the line
        return None


def tick_delta(section, cpu):
    rows = [m for m in TICK_RE.finditer(section) if int(m.group(1)) == cpu]
    if len(rows) != 2:
        return None
    return {key: int(rows[1].group(i + 2)) - int(rows[0].group(i + 2)) for i, key in enumerate(TICK_COLUMNS)}


def parse_session(text, scenarios, kernel, cpu, witness):
    """One boot's output -> ({scenario: run dict}, cost dict, problems).
    witness: {cpu: [windows]} (parse_witness_lines or witness_windows).
    A scenario that failed, printed no JSON or opened no window is a
    problem and gets no run: never a count of 0."""
    runs, problems = {}, []
    windows = list(witness.get(cpu, []))
    seen = []
    for name, section in sections(text):
        seen.append(name)
        end = END_RE.search(section)
        measured = parse_osnoise(section)
        # the windows this scenario opened: one per close mark it wrote
        marks = len(re.findall(r"witness close: cpu %d$" % cpu, section, re.M))
        mine, windows = windows[:marks], windows[marks:]
        window = mine[0] if len(mine) == 1 else None
        if not end or end.group(1) != name or end.group(2) != "0":
            problems.append("%s: osnoise did not end with status 0" % name)
            continue
        if measured is None:
            problems.append("%s: no osnoise JSON line" % name)
            continue
        if window is None:
            problems.append("%s: %d witness window(s) on cpu %d, %d mark(s): want one" % (name, len(mine), cpu, marks))
            continue
        try:
            run = run_numbers(measured, window, SHOOTDOWN_VECTORS[kernel])
            run.update(per_event(name, run))
        except LabError as e:
            problems.append("%s: %s" % (name, e))
            continue
        if kernel == "nohzk":
            ticks = tick_delta(section, cpu)
            if ticks is None:
                problems.append("%s: no /proc/tick row for cpu %d before and after" % (name, cpu))
                continue
            run.update({key: ticks[key] for key in ("stops", "restarts", "kicks", "wasted")})
        runs[name] = run
    if seen != list(scenarios):
        problems.append("scenarios run: %s; expected %s" % (", ".join(seen) or "none", ", ".join(scenarios)))
    if windows:
        problems.append("%d witness window(s) on cpu %d beyond the scenarios" % (len(windows), cpu))
    cost = {}
    for m in COST_RE.finditer(text.replace("\r", "")):
        cost["getppid_cpu%s" % m.group(1)] = int(m.group(2))
    return runs, cost, problems


def run_numbers(measured, window, shootdown_vectors=SHOOTDOWN_VECTORS["nohzk"]):
    """The metrics of one run from osnoise's JSON and its witness window.
    With sibling threads (scenario threads), a run without the guest's TLB
    row, the witness's vectors or any unmap is an error, not a 0."""
    irqs = measured.get("interrupts", {})
    missing = [key for key in ("LOC", "RES", "CAL") if key not in irqs]
    missing += [key for key in ("interrupts_total", "life_interrupts_total") if key not in measured]
    if "LOC" in missing or "interrupts_total" in missing:
        raise LabError("osnoise reported no %s" % ", ".join(missing))
    threads = measured.get("threads", 0)
    if threads and "TLB" not in irqs:
        raise LabError("osnoise's sibling threads ran but /proc/interrupts has no TLB row")
    if threads and not measured.get("munmaps"):
        raise LabError("osnoise's sibling threads unmapped nothing in the window")
    if threads and "vectors" not in window:
        raise LabError("the witness's window has no counts by vector")
    tlb = tlb_outer = per_munmap = None
    if "vectors" in window:
        tlb = sum(window["inner_vectors"].get(v, 0) for v in shootdown_vectors)
        tlb_outer = sum(window["vectors"].get(v, 0) for v in shootdown_vectors)
        if threads:
            per_munmap = round(tlb / measured["munmaps"], 3)
    causes = measured.get("causes")
    return {
        "causes": causes, "causes_total": measured.get("causes_total"),
        "causes_interrupts": measured.get("causes_interrupts"),
        "munmaps": measured.get("munmaps") if threads else None, "tlb": irqs.get("TLB"),
        "witness_tlb": tlb, "witness_tlb_outer": tlb_outer, "witness_tlb_per_loop": per_munmap,
        "timer": irqs["LOC"], "all": measured["interrupts_total"], "life": measured["life_interrupts_total"],
        "resched": irqs.get("RES"), "call_function": irqs.get("CAL"), "nohz_kick": irqs.get("NHZ"),
        "witness_timer": window["timer"], "witness_all": window["all"],
        "witness_timer_outer": window["timer_outer"], "witness_all_outer": window["all_outer"],
        "witness_bracketed": window["bracketed"],
        "noise_pct": round(100.0 - measured["available_pct"], 3),
        "runtime_ms": measured["runtime_ns"] // 1000000, "max_single_us": measured["max_single_noise_ns"] // 1000,
        "syscalls": measured["syscalls"], "faults": measured["faults"], "sleeps": measured.get("sleeps"),
        "alarms": measured.get("alarms"), "signals": measured.get("signals"),
    }


def per_event(scenario, run):
    """An event scenario's count of events and interrupts per event; a run
    with no event is an error (never "0 per event"); {} for the others."""
    if scenario not in EVENT_SCENARIOS:
        return {}
    key = EVENT_SCENARIOS[scenario]
    events = run.get(key)
    if not events:
        raise LabError("osnoise counted %s %s in the window: no figure per event" % (
            "no" if events is None else "0", key))
    return {"events": events, "all_per_event": round(run["all"] / events, 3),
            "witness_per_event": round(run["witness_all"] / events, 3),
            "witness_timer_per_event": round(run["witness_timer"] / events, 3)}


def disagreements(run):
    """How the guest's counts fall outside the witness's bracket. The guest
    reads /proc/interrupts between the outer and the inner marks at each
    end, so its count lies between the witness's inner and outer counts;
    anything else is a disagreement (docs/noise.md)."""
    found = []
    pairs = [("timer", "witness_timer"), ("all", "witness_all")]
    if run.get("tlb") is not None and run.get("witness_tlb") is not None:
        pairs.append(("tlb", "witness_tlb"))     # nohzk: one TLB vector per TLB count
    for guest, witness in pairs:
        low, high = sorted((run[witness], run[witness + "_outer"]))
        if not low <= run[guest] <= high:
            found.append("guest %s %d, witness %s" % (
                guest, run[guest], low if low == high else "%d..%d" % (low, high)))
    if run.get("causes_total") is not None:
        # the causes are read inside the /proc/interrupts reads: inside the bracket too
        low, high = sorted((run["witness_all"], run["witness_all_outer"]))
        if not low <= run["causes_total"] <= high:
            found.append("causes add up to %d, witness %s" % (
                run["causes_total"], low if low == high else "%d..%d" % (low, high)))
        if run["causes_total"] != run["causes_interrupts"]:
            found.append("causes add up to %d, the kernel counted %d" % (run["causes_total"],
                                                                          run["causes_interrupts"]))
    return found


# --------------------------------------------------------------------------
# Statistics and writers.

def summary(values):
    """median, min and max of the numbers given (None left out); None if
    there are none."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def summarize(runs):
    """{metric: summary} over a cell's runs."""
    return {key: summary([run.get(key) for run in runs]) for key in METRIC_KEYS}


def number(value):
    """A median of counts may be x.5; otherwise an integer prints as one."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def csv_rows(cells):
    """Header and rows: one per cell, median/min/max of each metric."""
    header = ["configuration", "scenario", "runs"]
    for key in METRIC_KEYS:
        header += [key + "_median", key + "_min", key + "_max"]
    rows = []
    for cell in cells:
        row = [cell["configuration"], cell["scenario"], len(cell["runs"])]
        for key in METRIC_KEYS:
            s = cell["summary"].get(key)
            row += [number(s["median"]), number(s["min"]), number(s["max"])] if s else ["", "", ""]
        rows.append(row)
    return header, rows


def write_csv(path, cells):
    header, rows = csv_rows(cells)
    with open(path, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows(rows)


def write_json(path, document):
    with open(path, "w") as out:
        json.dump(document, out, indent=2, sort_keys=True)
        out.write("\n")


# The plots are drawn by Debian's python3, where python3-matplotlib
# installs (the python3 on PATH may be another one).
PLOT_PYTHON = "/usr/bin/python3"
PLOTTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "noiseplot.py")


def plot_scenario(path, scenario, cells, caption, count_key="all"):
    """One SVG at path (tools/lib/noiseplot.py): the configurations side by
    side, the median of count_key with min-max error bars, and the median
    noise %."""
    per_event = count_key.endswith("per_event")
    spec = {"path": path, "title": "scenario %s: %s" % (scenario, SCENARIOS.get(scenario, ("",))[0]),
            "caption": caption, "count_key": count_key,
            "count_title": "interrupts per %s in the window" % EVENT_SCENARIOS[scenario][:-1] if per_event
            else "interrupts in the window",
            "bars": [{"name": cell["configuration"], "count": cell["summary"].get(count_key),
                      "noise_pct": cell["summary"].get("noise_pct")} for cell in cells]}
    python = PLOT_PYTHON if os.path.exists(PLOT_PYTHON) else sys.executable
    result = subprocess.run([python, PLOTTER], input=json.dumps(spec), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        raise LabError("%s %s could not draw %s:\n%s" % (python, PLOTTER, path, result.stdout.strip()))


def threads_table(cells, configurations=None):
    """The scenario threads, one row per configuration: CPU 3's interrupts
    by kind in the window, the guest's and the witness's, and TLB
    shootdowns per sibling unmap. Medians over the runs; lines."""
    rows = [c for c in cells if c["scenario"] == "threads" and c["runs"]]
    if configurations:
        rows.sort(key=lambda c: configurations.index(c["configuration"]) if c["configuration"] in configurations
                  else len(configurations))
    columns = [("munmaps", "munmaps"), ("tlb", "TLB"), ("witness_tlb", "w:TLB"),
               ("witness_tlb_per_loop", "w:TLB/loop"), ("timer", "LOC"), ("witness_timer", "w:timer"),
               ("resched", "RES"), ("call_function", "CAL"), ("nohz_kick", "NHZ"), ("all", "all"),
               ("witness_all", "w:all")]
    header = "%-15s %4s" % ("configuration", "runs") + "".join("%13s" % title for _, title in columns)
    lines = [header, "-" * len(header)]
    for cell in rows:
        texts = []
        for key, _ in columns:
            s = cell["summary"].get(key)
            texts.append("-" if s is None else number(s["median"]))
        lines.append("%-15s %4d" % (cell["configuration"], len(cell["runs"])) + "".join("%13s" % t for t in texts))
    return lines


def stat_text(s, decimals=None):
    """median [min-max], or the one value; "-" for nothing measured."""
    if s is None:
        return "-"
    shown = number if decimals is None else (lambda value: "%.*f" % (decimals, value))
    if s["min"] == s["max"]:
        return shown(s["median"])
    return "%s [%s-%s]" % (shown(s["median"]), shown(s["min"]), shown(s["max"]))


def ordered(cells, configurations=None):
    if not configurations:
        return list(cells)
    return sorted(cells, key=lambda c: configurations.index(c["configuration"]) if c["configuration"] in
                  configurations else len(configurations))


def event_table(cells, configurations=None):
    """The event scenarios, one row per configuration and scenario: the
    events osnoise counted, and the interrupts in the window raw and per
    event, the guest's and the witness's; median [min-max] over the runs.
    Lines."""
    rows = [c for c in ordered(cells, configurations) if c["scenario"] in EVENT_SCENARIOS and c["runs"]]
    columns = [("events", "events", None), ("all", "all", None), ("all_per_event", "all/event", 2),
               ("witness_all", "w:all", None), ("witness_per_event", "w:all/event", 2),
               ("witness_timer_per_event", "w:timer/event", 2)]
    header = "%-15s %-8s %4s" % ("configuration", "scenario", "runs") + "".join(
        " %-20s" % title for _, title, _ in columns)
    lines = [header.rstrip(), "-" * len(header.rstrip())]
    for scenario in EVENT_SCENARIOS:
        for cell in (c for c in rows if c["scenario"] == scenario):
            line = "%-15s %-8s %4d" % (cell["configuration"], scenario, len(cell["runs"]))
            line += "".join(" %-20s" % stat_text(cell["summary"].get(key), decimals) for key, _, decimals in columns)
            lines.append(line.rstrip())
    return lines


def cause_summaries(cell):
    """{cause: summary} over a cell's runs (a cause absent from a run's
    JSON counted 0 there: the kernel lists only causes seen), in the order
    of the largest median first; {} when no run has causes."""
    runs = [run["causes"] for run in cell["runs"] if run.get("causes") is not None]
    keys = sorted({key for causes in runs for key in causes})
    found = {key: summary([causes.get(key, 0) for causes in runs]) for key in keys}
    return dict(sorted(found.items(), key=lambda item: (-item[1]["median"], item[0])))


def cause_table(cells, configurations=None, scenarios=None):
    """One line per configuration and scenario with causes: the window's
    interrupts by cause ("SOURCE FROM WHY", FROM the sending CPU or -),
    median [min-max] over the runs, and whether they added up to the
    kernel's count and lay in the witness's bracket in every run."""
    lines = []
    for cell in ordered(cells, configurations):
        if scenarios and cell["scenario"] not in scenarios:
            continue
        causes = cause_summaries(cell)
        if not causes:
            continue
        bad = sum(1 for run in cell["runs"] if any(p.startswith("causes") for p in disagreements(run)))
        lines.append("%-9s %-9s sum %s = witness %s (%s): %s" % (
            cell["configuration"], cell["scenario"], stat_text(cell["summary"].get("causes_total")),
            stat_text(cell["summary"].get("witness_all")), "every run" if not bad else "NOT in %d run(s)" % bad,
            "; ".join("%s %s" % (key, stat_text(s)) for key, s in causes.items())))
    return lines


def count_key(scenario, per_event_key="witness_per_event", raw_key="witness_all"):
    """What a scenario's plot shows: per event for the event scenarios."""
    return per_event_key if scenario in EVENT_SCENARIOS else raw_key


def cells_by_scenario(cells):
    found = {}
    for cell in cells:
        found.setdefault(cell["scenario"], []).append(cell)
    return found
