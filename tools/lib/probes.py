"""The probes make bench holds against Linux (docs/performance.md): what
`syscall_bench --probes` prints read back into numbers, the ratio of
two kernels' medians, and the table. tools/measure/bench, tools/measure/compare-linux and
tools/measure/noise-bench use it.

A probe line (tests/user/syscall_bench.c):

    probe: getppid_cpu3 ns_median=N ns_min=N ns_max=N rounds=N per_round=N nohz=1

A probe that is missing, or a number that is not positive, is an error:
never a time of 0 or a ratio of 0.
"""

import re

# In table order.
PROBES = ["getppid_cpu3", "getppid_cpu0", "pipe_cpu3", "pipe_cpu0", "spawn",
          "clock_gettime"]
DESCRIPTIONS = {
    "getppid_cpu3": "getppid() round trip on CPU 3 (nohz_full; nohzk: a nohz task)",
    "getppid_cpu0": "getppid() round trip on CPU 0",
    "pipe_cpu3": "1-byte pipe round trip, two processes on CPU 3",
    "pipe_cpu0": "1-byte pipe round trip, two processes on CPU 0",
    "spawn": "fork + execve(/bin/true) + wait4",
    "clock_gettime": "clock_gettime(CLOCK_MONOTONIC) through the C library: the vDSO",
}
# The thread probes: functions and rows of their own in syscall_bench.c.
PROBES += ["thread", "futex_cpu0_cpu1"]
DESCRIPTIONS["thread"] = "pthread_create + pthread_join of a thread that returns at once"
DESCRIPTIONS["futex_cpu0_cpu1"] = "futex round trip: threads on CPUs 0 and 1 wake each other (FUTEX_WAIT/WAKE)"
FIELDS = ("ns_median", "ns_min", "ns_max", "rounds", "per_round")
PROBE_RE = re.compile(r"^probe: (\w+) (.*)$", re.M)


class ProbeError(Exception):
    pass


def command(rounds=None):
    """The guest's shell command."""
    return "syscall_bench --probes" + (" --rounds %d" % rounds if rounds else "")


def parse(text, wanted=PROBES):
    """{probe: {field: int}} for every probe of wanted, from a boot's
    output. ProbeError if one is missing, printed twice, or holds a field
    that is missing or not a positive integer."""
    found = {}
    for m in PROBE_RE.finditer(text.replace("\r", "")):
        name = m.group(1)
        if name in found:
            raise ProbeError("probe %s printed twice" % name)
        fields = {}
        for word in m.group(2).split():
            key, _, value = word.partition("=")
            if not value.isdigit():
                raise ProbeError("probe %s: %r is not key=number" % (name, word))
            fields[key] = int(value)
        bad = [key for key in FIELDS if fields.get(key, 0) <= 0]
        if bad:
            raise ProbeError("probe %s: %s missing or not positive" % (name, ", ".join(bad)))
        if not fields["ns_min"] <= fields["ns_median"] <= fields["ns_max"]:
            raise ProbeError("probe %s: the median lies outside min..max" % name)
        found[name] = fields
    missing = [name for name in wanted if name not in found]
    if missing:
        raise ProbeError("no probe line for %s" % ", ".join(missing))
    return {name: found[name] for name in wanted}


def ratio(ours, theirs):
    """ours / theirs of two probes' medians; both positive (parse)."""
    if ours["ns_median"] <= 0 or theirs["ns_median"] <= 0:
        raise ProbeError("a median that is not positive has no ratio")
    return ours["ns_median"] / theirs["ns_median"]


def unit(ns):
    """(divisor, name, decimals) that shows ns well."""
    if ns >= 10000000:
        return 1e6, "ms", 1
    if ns >= 10000:
        return 1e3, "us", 1
    return 1, "ns", 0


def cell_text(probe):
    """median [min-max] of the rounds, in the median's unit."""
    divisor, name, decimals = unit(probe["ns_median"])
    shown = ["%.*f" % (decimals, probe[key] / divisor) for key in ("ns_median", "ns_min", "ns_max")]
    return "%s [%s-%s] %s" % (shown[0], shown[1], shown[2], name)


def load_text(load):
    return "%.2f %.2f %.2f" % tuple(load)


def table(nohzk, linux, why_no_linux, loads):
    """The probes table as lines. nohzk: parse()'s dict; linux: the same,
    or None, and then why_no_linux says why and no ratio is printed.
    loads: [(when, os.getloadavg())] in order."""
    if linux is None and not why_no_linux:
        raise ProbeError("Linux's probes are missing and no reason is given")
    width = max(len(name) for name in PROBES)
    lines = ["%-*s %-28s %-28s %s" % (width, "probe", "nohzk", "Linux", "nohzk/Linux"), "-" * (71 + width)]
    for name in PROBES:
        there = "%-28s %.2f" % (cell_text(linux[name]), ratio(nohzk[name], linux[name])) if linux else "-"
        lines.append(("%-*s %-28s %s" % (width, name, cell_text(nohzk[name]), there)).rstrip())
    rounds = nohzk[PROBES[0]]["rounds"]
    lines.append("(median [min-max] of %d rounds, CLOCK_MONOTONIC in each guest, per operation; both under QEMU "
                 "TCG on one host, one boot each, so the ratio is what to read)" % rounds)
    for name in PROBES:
        lines.append("  %-*s %s" % (width, name, DESCRIPTIONS[name]))
    lines.append("host load average (1, 5, 15 min): " + "; ".join("%s %s" % (when, load_text(load))
                                                                  for when, load in loads))
    if linux is None:
        lines.append("Linux: not measured: %s" % why_no_linux)
    return lines


def presence_line(configuration, found):
    """The line compare-linux and noise-bench print for a short run: the
    probes seen, all positive (parse has checked), no times."""
    return "probes: %s: %s present and positive" % (configuration, " ".join(found))
