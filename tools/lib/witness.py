"""The outside witness: interrupts QEMU delivered to one vCPU, counted from
QEMU's own logs, not from the guest (docs/noise.md, "The outside witness").

QEMU (TCG, one host thread per vCPU) runs with

    -d int,tid,trace:serial_write -D DIR/vcpu-%d.log

so that each vCPU thread writes its own log file: "Servicing hardware
INT=0xNN" for each interrupt it takes, the "v=NN" line QEMU writes for
every interrupt and exception, and "serial_write" for each byte that vCPU
writes to the UART. The bytes spell the console text that vCPU wrote, in
order with its interrupts:

  - "cpu N: online" (printed by each CPU as it comes up) tells which CPU
    a file is; a file that names two CPUs means the logs do not separate
    vCPUs, an error;
  - a line holding "witness open" opens a window on the vCPU that wrote
    it, the next line holding "witness close" closes it (spin --mark
    writes them); the interrupts between the two are the window's count;
  - inside a window, "witness inner open" and "witness inner close" mark
    an inner window (osnoise --mark): a count the guest read between
    "open" and "inner open", and again between "inner close" and "close",
    covers at least the inner window's interrupts and at most the outer's.

Where no "cpu N: online" line names a vCPU (Linux), read_logs(dir,
cpu_from_marks=True) takes the CPU its marks name: they are written by a
program pinned to that CPU (osnoise --mark-uart), so the file that holds
them is that CPU's vCPU.

Everything that cannot be read is an error, never a count of 0: no
per-thread logs, no serial bytes, a window never closed, a mark that names
another CPU than the vCPU that wrote it.
"""

import collections
import glob
import os
import re

QEMU_LOG_ITEMS = "int,tid,trace:serial_write"
LOG_NAME = "vcpu-%d.log"

SERIAL_BYTE = re.compile(r"serial_write write addr 0x00 val 0x([0-9a-f]{2})$")
HARDWARE_INTERRUPT = re.compile(r"^Servicing hardware INT=0x([0-9a-f]{2})$")
ANY_VECTOR = re.compile(r"^ *\d+: v=([0-9a-f]{2}) e=[0-9a-f]{4} i=(\d) ")
ONLINE = re.compile(r"^cpu (\d+): online\b")
MARK_CPU = re.compile(r"\bcpu (\d+)\b")

Window = collections.namedtuple("Window", "cpu number vectors exceptions opened closed inner",
                                defaults=(None,))


class WitnessError(Exception):
    pass


def qemu_args(directory):
    """The QEMU arguments that make the per-vCPU logs in directory."""
    return ["-d", QEMU_LOG_ITEMS, "-D", os.path.join(directory, LOG_NAME)]


def timer_vector(vectors_h):
    """nohzk's LAPIC timer vector, from arch/x86/vectors.h."""
    with open(vectors_h) as f:
        m = re.search(r"^#define VECTOR_LOCAL_TIMER\s+(0x[0-9a-fA-F]+|\d+)", f.read(), re.M)
    if not m:
        raise WitnessError("no VECTOR_LOCAL_TIMER in %s" % vectors_h)
    return int(m.group(1), 0)


class ThreadLog:
    """One vCPU thread's file, read in order."""

    def __init__(self, path, lines):
        self.path = path
        self.cpus = set()           # from its "cpu N: online" lines
        self.windows = []           # (mark line, vectors Counter, exceptions, close line, inner Counter)
        self.serial_bytes = 0
        line, window, interrupt_pending = "", None, False
        for text in lines:
            text = text.rstrip("\n")
            m = SERIAL_BYTE.search(text)
            if m:
                self.serial_bytes += 1
                char = chr(int(m.group(1), 16))
                if char != "\n":
                    line += char
                    continue
                line = line.rstrip("\r")
                window = self._line_done(line, window)
                line = ""
                continue
            m = HARDWARE_INTERRUPT.match(text)
            if m:
                interrupt_pending = True
                if window is not None:
                    window[1][int(m.group(1), 16)] += 1
                    if window[3] is not None and window[4]:
                        window[3][int(m.group(1), 16)] += 1
                continue
            m = ANY_VECTOR.match(text)
            if m:
                if not interrupt_pending and window is not None:
                    window[2] += 1      # an exception or a software interrupt
                interrupt_pending = False
        if window is not None:
            raise WitnessError("%s: a window opened by %r never closed" % (path, window[0]))

    def _line_done(self, line, window):
        m = ONLINE.match(line)
        if m:
            self.cpus.add(int(m.group(1)))
        if "witness open" in line:
            if window is not None:
                raise WitnessError("%s: %r opens a window inside the one %r opened" % (self.path, line, window[0]))
            # [open line, vectors, exceptions, inner vectors or None, inner window open]
            return [line, collections.Counter(), 0, None, False]
        if "witness inner open" in line:
            if window is None or window[3] is not None:
                raise WitnessError("%s: %r opens an inner window %s" % (
                    self.path, line, "outside any window" if window is None else "twice in one window"))
            window[3], window[4] = collections.Counter(), True
        if "witness inner close" in line:
            if window is None or not window[4]:
                raise WitnessError("%s: %r closes no inner window" % (self.path, line))
            window[4] = False
        if "witness close" in line:
            if window is None:
                raise WitnessError("%s: %r closes no window" % (self.path, line))
            if window[4]:
                raise WitnessError("%s: %r closes a window whose inner window is open" % (self.path, line))
            self.windows.append((window[0], window[1], window[2], line, window[3]))
            return None
        return window


def marked_cpu(log):
    """The one CPU every mark of log names (cpu_from_marks)."""
    named = set()
    for opened, _, _, closed, _ in log.windows:
        for mark in (opened, closed):
            m = MARK_CPU.search(mark)
            if not m:
                raise WitnessError("%s: %r names no CPU, and no \"cpu N: online\" line says which vCPU this is"
                                   % (log.path, mark))
            named.add(int(m.group(1)))
    if len(named) > 1:
        raise WitnessError("%s: marks name CPUs %s: one vCPU cannot be two CPUs" % (log.path, sorted(named)))
    return named.pop()


def read_logs(directory, cpu_from_marks=False):
    """Every window of every vCPU, in order: a list of Window. With
    cpu_from_marks, a file without "cpu N: online" is the CPU its marks
    name (they were written by a program pinned there)."""
    paths = sorted(glob.glob(os.path.join(directory, LOG_NAME.replace("%d", "*"))))
    if not paths:
        raise WitnessError("no per-thread QEMU logs in %s (does this QEMU know -d tid?)" % directory)
    logs = []
    for path in paths:
        with open(path, errors="replace") as f:
            logs.append(ThreadLog(path, f))
    if not any(log.serial_bytes for log in logs):
        raise WitnessError("no serial_write events in the logs: this QEMU does not trace to its log")
    windows = []
    for log in logs:
        if len(log.cpus) > 1:
            raise WitnessError("%s holds CPUs %s: the logs do not separate vCPUs (is TCG single-threaded?)"
                               % (log.path, sorted(log.cpus)))
        if log.windows and not log.cpus:
            if not cpu_from_marks:
                raise WitnessError("%s has windows but no \"cpu N: online\" line: which vCPU is it?" % log.path)
            log.cpus.add(marked_cpu(log))
        for number, (opened, vectors, exceptions, closed, inner) in enumerate(log.windows, 1):
            cpu = next(iter(log.cpus))
            for mark in (opened, closed):
                m = MARK_CPU.search(mark)
                if m and int(m.group(1)) != cpu:
                    raise WitnessError("%r was written by the vCPU of cpu %d" % (mark, cpu))
            windows.append(Window(cpu, number, vectors, exceptions, opened, closed, inner))
    if not windows:
        raise WitnessError("no \"witness open\" ... \"witness close\" window in any vCPU's console output")
    return sorted(windows, key=lambda w: (w.cpu, w.number))


def describe(window, timer):
    """One line: what QEMU delivered to the vCPU between the marks."""
    by_vector = vector_text(window.vectors)
    inner = ""
    if window.inner is not None:
        inner = ", inner: timer %d, all %d" % (window.inner.get(timer, 0), sum(window.inner.values()))
        if window.inner:
            by_vector += "; inner: " + vector_text(window.inner)
    return "witness: cpu %d window %d: timer %d, all %d, exceptions %d%s%s" % (
        window.cpu, window.number, window.vectors.get(timer, 0), sum(window.vectors.values()),
        window.exceptions, inner, " (vectors: %s)" % by_vector if by_vector else "")


def vector_text(vectors):
    """"0xec 3, 0xf0 1": counts by vector, in vector order."""
    return ", ".join("0x%02x %d" % (vector, count) for vector, count in sorted(vectors.items()))
