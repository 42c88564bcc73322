"""Debian's rt-tests as instruments, nohzk beside Linux
(tools/measure/instruments; docs/linux-tools.md, section 4): the guest's
shell text, what one boot printed read back into numbers, statistics
over boots, ratios against Linux, the table and the histogram plot.

One boot runs, one after the other (the shell text: session_command()):

  oslat       `oslat -c 3 -D S -q -b 1024 --json=...` between two witness
              marks written from CPU 3 (user/mark.c, each with the
              guest's CLOCK_MONOTONIC: the window's length): its one thread on
              CPU 3, its histogram of 1 us buckets (oslat's value k: a
              gap of k-1 to k us; the last bucket, 1024, holds every gap
              longer), its JSON report;
  cyclictest  `cyclictest -m -p 80 -a 3 -t 1 --mainaffinity=0 -i 1000
              -l LOOPS -q -h 1000` between two marks: one thread at
              SCHED_FIFO 80 on CPU 3 woken LOOPS times by its timer, the
              histogram (1 us buckets to 999 us; "# Histogram Overflows"
              counts the wakeups 1000 us late or more), JSON and the
              histogram file's summary lines;
  hackbench   `hackbench -g G -l L` on every CPU: its "Time:" line.

and prints what each did after the last mark, between the lines

    instruments: begin NAME
    ...
    instruments: end NAME status N

The shell that runs them is pinned to CPU 0 first (taskset -p), so that
only the instruments' own threads run on CPU 3.

Everything that cannot be read is an error, never a 0: an instrument
that exited non-zero, a report that is missing or not JSON, an oslat
thread with no samples or not on CPU 3, cyclictest's histogram and
overflows not adding up to its loops, a missing witness window, or a
cyclictest window in which the witness saw no interrupt at all (its
thread slept LOOPS times on CPU 3: every wakeup but a late one is an
interrupt there, so 0 means the witness did not count).
"""

import json
import re

from noiselab import summary     # median, min, max and n of the numbers given

CPU = 3
SMP = 4
THRESHOLDS_US = (10, 100, 1000)
OSLAT_BUCKETS = 1024            # oslat -b: 1 us buckets up to 1023 us, then one for the rest
CYCLICTEST_HISTOGRAM_US = 1000  # cyclictest -h: buckets 0..999 us, "overflows" beyond
INSTRUMENTS = ("oslat", "cyclictest", "hackbench")
WINDOWED = ("oslat", "cyclictest")     # the instruments with a witness window, in order

BEGIN_RE = re.compile(r"^instruments: begin (\S+)$", re.M)
END_RE = re.compile(r"^instruments: end (\S+) status (\d+)$", re.M)
REPORT_RE = re.compile(r"^instruments: report\n(.*?)^instruments: report end$", re.M | re.S)
HISTFILE_RE = re.compile(r"^# (Total|Min Latencies|Avg Latencies|Max Latencies|Histogram Overflows):((?: +\d+)+)$",
                         re.M)
HACKBENCH_RE = re.compile(r"^Time: (\d+\.\d+)$", re.M)
# user/mark.c's lines; anchored, so that a line another writer's bytes cut
# into does not match (Linux's console and mark --uart share the UART).
MARK_RE = re.compile(r"^mark: witness (open|close): cpu (\d+), monotonic (\d+\.\d{9})$", re.M)


class InstrumentError(Exception):
    pass


# --------------------------------------------------------------------------
# The guest's shell text.

def windowed(name, command, mark):
    """command between two marks from CPU, its status into /tmp/NAME.status
    (97: the close mark failed, 98: the open mark); nothing on the
    console."""
    return ("if mark %d open%s; then %s; echo $? >/tmp/%s.status; mark %d close%s || echo 97 >/tmp/%s.status; "
            "else echo 98 >/tmp/%s.status; fi" % (CPU, mark, command, name, CPU, mark, name, name))


def reported(name, report):
    """The begin and end lines of a windowed instrument, its output if it
    failed, then its report."""
    return ("echo 'instruments: begin %s'; s=$(cat /tmp/%s.status); echo \"instruments: end %s status $s\"; "
            "[ \"$s\" = 0 ] || cat /tmp/%s.out; echo 'instruments: report'; %s; echo 'instruments: report end'"
            % (name, name, name, name, report))


def session_command(kernel, oslat_seconds, cyclictest_loops, hackbench_groups, hackbench_loops):
    """The three instruments in order, for kernel "nohzk" or "linux" (whose
    marks are written to the UART by user/mark.c itself). Nothing goes to
    the console from a second before the first mark to the last: Linux's
    serial driver sends a program's text after the program wrote it, and
    those bytes would land inside a mark that mark --uart writes to the
    UART meanwhile (and a mark inside them)."""
    mark = " --uart" if kernel == "linux" else ""
    oslat = ("oslat -c %d -D %d -q -b %d --json=/tmp/oslat.json >/tmp/oslat.out 2>&1"
             % (CPU, oslat_seconds, OSLAT_BUCKETS))
    cyclictest = ("cyclictest -m -p 80 -a %d -t 1 --mainaffinity=0 -i 1000 -l %d -q -h %d "
                  "--histfile=/tmp/cyclictest.hist --json=/tmp/cyclictest.json >/tmp/cyclictest.out 2>&1"
                  % (CPU, cyclictest_loops, CYCLICTEST_HISTOGRAM_US))
    # The shell and what it starts stay on CPU 0, off the measured CPU;
    # hackbench alone runs on every CPU.
    parts = ["taskset -p -c 0 $$ >/dev/null"]
    if kernel == "linux":
        # /tmp and /dev/shm as a Debian system mounts them (cyclictest's shm_open)
        parts.append("mkdir -p /tmp /dev/shm; mount -t tmpfs tmp /tmp; mount -t tmpfs shm /dev/shm")
    parts += ["sleep 1", windowed("oslat", oslat, mark), windowed("cyclictest", cyclictest, mark),
              reported("oslat", "cat /tmp/oslat.json"),
              reported("cyclictest", "cat /tmp/cyclictest.json; echo; grep '^#' /tmp/cyclictest.hist"),
              "echo 'instruments: begin hackbench'; taskset -c 0-%d hackbench -g %d -l %d; "
              "echo \"instruments: end hackbench status $?\"" % (SMP - 1, hackbench_groups, hackbench_loops)]
    return "; ".join(parts)


# --------------------------------------------------------------------------
# Reading one boot back.

def sections(text):
    """{name: its text} for each begin line; InstrumentError on a name
    seen twice."""
    text = text.replace("\r", "")
    begins = list(BEGIN_RE.finditer(text))
    found = {}
    for i, m in enumerate(begins):
        if m.group(1) in found:
            raise InstrumentError("%s began twice" % m.group(1))
        found[m.group(1)] = text[m.end():begins[i + 1].start() if i + 1 < len(begins) else len(text)]
    return found


def ended(name, section):
    m = END_RE.search(section)
    if not m or m.group(1) != name:
        raise InstrumentError("%s: no end line" % name)
    if m.group(2) != "0":
        raise InstrumentError("%s: exited with status %s%s" % (
            name, m.group(2), {"97": " (the close mark failed)", "98": " (the open mark failed)"}.get(m.group(2), "")))


def report(name, section):
    """The JSON document printed between the report lines (cyclictest: and
    the histogram file's lines after it)."""
    m = REPORT_RE.search(section)
    if not m:
        raise InstrumentError("%s: no report" % name)
    body = m.group(1)
    brace = body.rfind("\n}")
    if not body.lstrip().startswith("{") or brace < 0:
        raise InstrumentError("%s: the report is not a JSON document" % name)
    try:
        return json.loads(body[:brace + 2]), body[brace + 2:]
    except ValueError as e:
        raise InstrumentError("%s: the report is not JSON (%s)" % (name, e))


def histogram(document, name):
    """{bucket us: count} of a report's one thread, as integers."""
    try:
        return {int(key): int(value) for key, value in document["histogram"].items()}
    except (KeyError, AttributeError, ValueError, TypeError):
        raise InstrumentError("%s: no histogram of integers" % name)


def at_or_above(buckets, threshold, overflows=0):
    return sum(count for key, count in buckets.items() if key >= threshold) + overflows


def one_thread(document, name):
    threads = document.get("thread")
    if not isinstance(threads, dict) or len(threads) != 1:
        raise InstrumentError("%s: %s thread(s) in the report, want one" % (
            name, len(threads) if isinstance(threads, dict) else "no"))
    thread = next(iter(threads.values()))
    if thread.get("cpu") != CPU:
        raise InstrumentError("%s: its thread ran on CPU %s, not %d" % (name, thread.get("cpu"), CPU))
    return thread


def parse_oslat(document):
    """oslat's numbers: max (us), samples, samples at or above each
    threshold (by oslat's value, which rounds a gap up to the next us),
    its duration. No samples is an error."""
    if document.get("return_code") != 0:
        raise InstrumentError("oslat: return_code %s" % document.get("return_code"))
    thread = one_thread(document, "oslat")
    buckets = histogram(thread, "oslat")
    samples = sum(buckets.values())
    if samples <= 0:
        raise InstrumentError("oslat: no samples on CPU %d" % CPU)
    if any(key < 1 or key > OSLAT_BUCKETS or count < 0 for key, count in buckets.items()):
        raise InstrumentError("oslat: buckets outside 1..%d us" % OSLAT_BUCKETS)
    top = max(key for key, count in buckets.items() if count)
    maximum, duration = thread.get("max"), thread.get("duration")
    if not isinstance(maximum, int) or maximum < top or (top < OSLAT_BUCKETS and maximum != top):
        raise InstrumentError("oslat: max %r does not match its histogram (highest bucket %d)" % (maximum, top))
    if not isinstance(duration, (int, float)) or duration <= 0:
        raise InstrumentError("oslat: no duration")
    run = {"oslat_max_us": maximum, "oslat_avg_us": thread.get("avg"), "oslat_samples": samples,
           "oslat_duration_s": duration, "oslat_histogram": buckets}
    for threshold in THRESHOLDS_US:
        run["oslat_ge_%dus" % threshold] = at_or_above(buckets, threshold)
        run["oslat_ge_%dus_per_million" % threshold] = round(run["oslat_ge_%dus" % threshold] * 1e6 / samples, 3)
    return run


def parse_histfile(text):
    """cyclictest's histogram file lines: {"Total": n, ...} of its one thread."""
    found = {}
    for m in HISTFILE_RE.finditer(text):
        values = m.group(2).split()
        if len(values) != 1:
            raise InstrumentError("cyclictest: %d threads in %r, want one" % (len(values), m.group(1)))
        found[m.group(1)] = int(values[0])
    return found


def parse_cyclictest(document, tail, loops):
    """cyclictest's numbers: max and avg (us), wakeups at or above each
    threshold (the histogram's 1 us buckets, plus its overflows). The
    histogram and its overflows must add up to loops."""
    if document.get("return_code") != 0:
        raise InstrumentError("cyclictest: return_code %s" % document.get("return_code"))
    thread = one_thread(document, "cyclictest")
    buckets = histogram(thread, "cyclictest")
    summary = parse_histfile(tail)
    if "Histogram Overflows" not in summary or "Max Latencies" not in summary:
        raise InstrumentError("cyclictest: no \"# Histogram Overflows\" and \"# Max Latencies\" lines")
    overflows = summary["Histogram Overflows"]
    cycles = thread.get("cycles")
    if cycles != loops or sum(buckets.values()) + overflows != loops:
        raise InstrumentError("cyclictest: %s cycles, %d in the histogram and %d overflows: want %d loops"
                              % (cycles, sum(buckets.values()), overflows, loops))
    if any(key < 0 or key >= CYCLICTEST_HISTOGRAM_US for key in buckets):
        raise InstrumentError("cyclictest: buckets outside 0..%d us" % (CYCLICTEST_HISTOGRAM_US - 1))
    maximum = thread.get("max")
    if not isinstance(maximum, int) or maximum != summary["Max Latencies"]:
        raise InstrumentError("cyclictest: max %r, histogram file %d" % (maximum, summary["Max Latencies"]))
    run = {"cyclictest_max_us": maximum, "cyclictest_avg_us": thread.get("avg"), "cyclictest_loops": loops,
           "cyclictest_overflows": overflows, "cyclictest_histogram": buckets}
    for threshold in THRESHOLDS_US:
        run["cyclictest_ge_%dus" % threshold] = at_or_above(buckets, threshold, overflows)
    return run


def parse_hackbench(section):
    times = HACKBENCH_RE.findall(section)
    if len(times) != 1 or float(times[0]) <= 0:
        raise InstrumentError("hackbench: %d \"Time:\" line(s), want one that is positive" % len(times))
    return {"hackbench_s": float(times[0])}


def window_seconds(text):
    """Each window's length by the guest's clock, from the marks' lines
    (an open and a close from CPU for each of WINDOWED, in order)."""
    marks = [(m.group(1), int(m.group(2)), float(m.group(3))) for m in MARK_RE.finditer(text.replace("\r", ""))]
    if [(which, cpu) for which, cpu, _ in marks] != [("open", CPU), ("close", CPU)] * len(WINDOWED):
        raise InstrumentError("marks %s: want an open and a close from CPU %d for each of %s" % (
            ", ".join("%s cpu %d" % (which, cpu) for which, cpu, _ in marks) or "none", CPU, ", ".join(WINDOWED)))
    seconds = []
    for name, (opened, closed) in zip(WINDOWED, zip(marks[0::2], marks[1::2])):
        if closed[2] <= opened[2]:
            raise InstrumentError("%s: the window closed %.6f s after it opened" % (name, closed[2] - opened[2]))
        seconds.append(closed[2] - opened[2])
    return seconds


def add_window(run, name, window, seconds):
    """The witness's window beside the instrument's numbers, and its count
    per second of the window."""
    run["%s_window_s" % name] = round(seconds, 6)
    run["%s_witness_all" % name] = window["all"]
    run["%s_witness_timer" % name] = window["timer"]
    run["%s_witness_per_s" % name] = round(window["all"] / run["%s_window_s" % name], 3)


def parse_session(text, witness, loops):
    """One boot's output and its witness windows ({cpu: [window dicts]},
    tools/lib/noiselab.py's form) -> the run's numbers. InstrumentError
    on anything missing."""
    found = sections(text)
    if list(found) != list(INSTRUMENTS):
        raise InstrumentError("instruments run: %s; expected %s" % (", ".join(found) or "none", ", ".join(INSTRUMENTS)))
    others = sorted(cpu for cpu in witness if cpu != CPU and witness[cpu])
    if others:
        raise InstrumentError("witness windows on CPU(s) %s: the marks are all written from CPU %d" % (others, CPU))
    windows = witness.get(CPU, [])
    if len(windows) != len(WINDOWED):
        raise InstrumentError("%d witness window(s) on CPU %d, want %d (%s)" % (
            len(windows), CPU, len(WINDOWED), ", ".join(WINDOWED)))
    run = {}
    for name in INSTRUMENTS:
        ended(name, found[name])
    seconds = window_seconds(text)
    oslat, _ = report("oslat", found["oslat"])
    run.update(parse_oslat(oslat))
    add_window(run, "oslat", windows[0], seconds[0])
    cyclictest, tail = report("cyclictest", found["cyclictest"])
    run.update(parse_cyclictest(cyclictest, tail, loops))
    add_window(run, "cyclictest", windows[1], seconds[1])
    run["cyclictest_witness_per_loop"] = round(windows[1]["all"] / loops, 4)
    if windows[1]["all"] == 0:
        raise InstrumentError("the witness saw no interrupt on CPU %d while cyclictest's thread woke %d times "
                              "there: it did not count" % (CPU, loops))
    run.update(parse_hackbench(found["hackbench"]))
    return run


# --------------------------------------------------------------------------
# Statistics, ratios, the table.

# Every number of a run, in table order: (key, what). Histograms are kept
# per run, not summarized.
METRICS = [
    ("oslat_max_us", "oslat: longest gap on CPU 3 (us; TCG)"),
    ("oslat_avg_us", "oslat: mean gap (us; TCG)"),
    ("oslat_samples", "oslat: samples (loop iterations) on CPU 3"),
    ("oslat_duration_s", "oslat: its measured duration (s)"),
] + [("oslat_ge_%dus" % t, "oslat: samples of %d us or more" % t) for t in THRESHOLDS_US] + [
    ("oslat_ge_%dus_per_million" % t, "the same per million samples") for t in THRESHOLDS_US] + [
    ("oslat_window_s", "oslat's window, from mark to mark (guest's CLOCK_MONOTONIC; start-up included)"),
    ("oslat_witness_all", "interrupts QEMU delivered to CPU 3 between oslat's marks"),
    ("oslat_witness_timer", "the timer's among them"),
    ("oslat_witness_per_s", "oslat_witness_all per second of the window"),
    ("cyclictest_max_us", "cyclictest: latest wakeup (us; TCG)"),
    ("cyclictest_avg_us", "cyclictest: mean wakeup latency (us; TCG)"),
    ("cyclictest_loops", "cyclictest: wakeups"),
    ("cyclictest_overflows", "cyclictest: wakeups 1000 us late or more"),
] + [("cyclictest_ge_%dus" % t, "cyclictest: wakeups %d us late or more" % t) for t in THRESHOLDS_US] + [
    ("cyclictest_window_s", "cyclictest's window, from mark to mark"),
    ("cyclictest_witness_all", "interrupts QEMU delivered to CPU 3 between cyclictest's marks"),
    ("cyclictest_witness_timer", "the timer's among them"),
    ("cyclictest_witness_per_s", "cyclictest_witness_all per second of the window"),
    ("cyclictest_witness_per_loop", "cyclictest_witness_all per wakeup"),
    ("hackbench_s", "hackbench's Time (s; TCG)"),
]
METRIC_KEYS = [key for key, _ in METRICS]
# Times: shown only as ratios against the reference configuration.
TIMES = ("oslat_max_us", "oslat_avg_us", "cyclictest_max_us", "cyclictest_avg_us", "hackbench_s")
# Shown as ratios: the times, and oslat's samples (a loop's rate: the host's too).
RATIOS = TIMES + ("oslat_samples",)


def summarize(runs):
    return {key: summary([run.get(key) for run in runs]) for key in METRIC_KEYS}


def ratio(cell, reference, key):
    """{median, min, max} of cell's key over the reference's median: None
    when either is missing or the reference's median is 0."""
    mine, theirs = cell["summary"].get(key), reference["summary"].get(key) if reference else None
    if not mine or not theirs or not theirs["median"]:
        return None
    return {which: round(mine[which] / theirs["median"], 3) for which in ("median", "min", "max")}


def summarize_cells(cells, reference_name):
    """Each cell's summary over its runs, and its times over the reference
    configuration's medians; False when the reference has no run."""
    for cell in cells:
        cell["summary"] = summarize(cell["runs"])
    reference = next((c for c in cells if c["configuration"] == reference_name and c["runs"]), None)
    for cell in cells:
        cell["ratio"] = {key: ratio(cell, reference, key) for key in RATIOS}
    return reference is not None


def shown(value, places=None):
    if value is None:
        return "-"
    if isinstance(value, float) and value.is_integer() and places is None:
        return str(int(value))
    return ("%.*f" % (places, value)) if places is not None else str(value)


def spread(s, places=None):
    """"median" or "median [min-max]" when the runs differ."""
    if s is None:
        return "-"
    text = shown(s["median"], places)
    return text if s["min"] == s["max"] else "%s [%s-%s]" % (text, shown(s["min"], places), shown(s["max"], places))


def table(cells, reference_name):
    """The two tables' lines: oslat on CPU 3; cyclictest on CPU 3 and
    hackbench."""
    def row(cell, columns):
        texts = []
        for key, kind, places in columns:
            value = cell["ratio"].get(key) if kind == "ratio" else cell["summary"].get(key)
            texts.append(spread(value, places))
        return texts

    def lines(title, columns, headers):
        rows = [[c["configuration"], str(len(c["runs"]))] + row(c, columns) for c in cells]
        header = ["configuration", "runs"] + headers
        widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
        fmt = lambda r: "  ".join(t.ljust(w) if i == 0 else t.rjust(w) for i, (t, w) in enumerate(zip(r, widths)))
        return [title, fmt(header), "-" * len(fmt(header))] + [fmt(r) for r in rows]

    oslat = [("oslat_max_us", "ratio", 2), ("oslat_samples", "ratio", 2)] + \
        [("oslat_ge_%dus" % t, "count", None) for t in THRESHOLDS_US] + \
        [("oslat_ge_10us_per_million", "count", 1), ("oslat_witness_all", "count", None),
         ("oslat_witness_timer", "count", None), ("oslat_witness_per_s", "count", 1)]
    cyclic = [("cyclictest_max_us", "ratio", 2), ("cyclictest_avg_us", "ratio", 2)] + \
        [("cyclictest_ge_%dus" % t, "count", None) for t in THRESHOLDS_US] + \
        [("cyclictest_witness_all", "count", None), ("cyclictest_witness_timer", "count", None),
         ("cyclictest_witness_per_loop", "count", 2), ("hackbench_s", "ratio", 2)]
    r = "/L"
    return (lines("oslat on CPU 3", oslat, ["max" + r, "samples" + r, ">=10us", ">=100us", ">=1000us",
                                             ">=10us/M", "w:all", "w:timer", "w:all/s"]) + [""] +
            lines("cyclictest on CPU 3, hackbench", cyclic, ["max" + r, "avg" + r, ">=10us", ">=100us", ">=1000us",
                                                              "w:all", "w:timer", "w:all/loop", "hackbench" + r]))


def legend(opts, reference_name, hz):
    return ("(medians of %d boot(s) per configuration, [min-max] where they differ; times and oslat's samples only as ratios over "
            "%s's median in this run (/L; TCG: a time is the host's, compare within one run); >=Nus: samples "
            "(oslat, 1 us buckets, its value rounds a gap up) or wakeups (cyclictest) N us or longer, counts; "
            ">=10us/M: per million oslat samples; w: QEMU's witness, interrupts delivered to CPU 3 between the "
            "instrument's marks (start-up and exit included), all vectors and the timer's, per second of "
            "the window (guest's clock, from the marks) and per cyclictest wakeup; oslat -D %d, cyclictest -l %d, hackbench -g %d -l %d; nohzk at hz=%d like Debian's kernel)"
            % (opts["runs"], reference_name, opts["oslat_seconds"], opts["cyclictest_loops"],
               opts["hackbench_groups"], opts["hackbench_loops"], hz))


def merged_histogram(runs, key):
    """The runs' histograms summed, bucket by bucket."""
    total = {}
    for run in runs:
        for bucket, count in run.get(key, {}).items():
            total[int(bucket)] = total.get(int(bucket), 0) + count
    return dict(sorted(total.items()))


def plot_spec(cells, path, caption):
    """tools/lib/instrumentsplot.py's input: each configuration's oslat and
    cyclictest histograms, summed over its runs."""
    return {"path": path, "caption": caption,
            "panels": [{"title": "oslat on CPU 3: gaps between samples (1 us buckets, summed over the runs)",
                        "xlabel": "gap (us, oslat's value; the last bucket holds every longer gap)",
                        "series": [{"name": c["configuration"], "histogram": merged_histogram(c["runs"], "oslat_histogram")}
                                   for c in cells if c["runs"]]},
                       {"title": "cyclictest on CPU 3: wakeup latency (1 us buckets, summed over the runs)",
                        "xlabel": "latency (us; overflows beyond %d us not drawn)" % CYCLICTEST_HISTOGRAM_US,
                        "series": [{"name": c["configuration"],
                                    "histogram": merged_histogram(c["runs"], "cyclictest_histogram")}
                                   for c in cells if c["runs"]]}]}
