"""The QEMU scenarios of `make test`, run in order by tests/run, each one
boot through tools/run/boot. To add one, append a dict to SCENARIOS.

Keys (defaults in DEFAULTS):
  name             unique; the log is build/test-logs/NAME.log
  smp              CPUs (-smp)
  uefi             boot through OVMF instead of SeaBIOS
  mem              guest memory (QEMU -m syntax), None = tools/run/boot's default
  append           kernel command line (ktest=SUITE,... selects in-kernel
                   KTAP suites; they power off with 0 if all passed, else 1)
  qemu             extra QEMU arguments ("-machine ..." replaces the default)
  add              list of tools/run/boot --add specs (HOSTFILE[:/GUEST/PATH])
  witness          tools/run/boot --witness: QEMU's per-vCPU logs count the
                   interrupts between "witness open"/"witness close" lines
  debian           tools/run/boot --debian: Debian's loader, libraries and
                   rt-tests programs in the initrd (build/initrd-debian.cpio)
  command          shell command line run with sh -c; None = none
  script           a file in tests/qemu/scripts/ that drives the
                   interactive shell through the serial port (tools/run/boot
                   --script); use with command None
  timeout          seconds before tools/run/boot gives up (exit 124)
  expect_status    tools/run/boot's exit status (253 panic, 254 reset, 124
                   timeout; see tools/run/boot --help)
  ktap             the output must hold a complete, all-passing KTAP v1
                   document (tests/qemu/ktap.py)
  must_contain     regexes (re.MULTILINE) that must each match the output
  must_not_contain regexes that must not match it; besides, every
                   "lockcheck:" line (a stuck lock) fails the scenario
                   unless a must_contain regex matches from its start
  same_as_host     shell commands run on the host (in the repository): the
                   output of each must appear in the output as one block
  check            a function given the output, returning a list of
                   reasons it fails (empty: fine); for what regexes cannot
                   say, e.g. the order of trace events (trace_checks.py)
  tool             instead of one tools/run/boot: a host tool and its
                   arguments (["tools/measure/noise-bench", ...]), which boots QEMU
                   itself; expect_status, must_contain and check apply to
                   its exit status and output
  soak             True: too long for make test; make soak runs it
                   (tests/run --soak)

Times under TCG depend on the host: never assert on them here.
"""

import re

import trace_checks

DEFAULTS = {
    "smp": 4,
    "uefi": False,
    "mem": None,
    "append": "",
    "qemu": "",
    "add": [],
    "witness": False,
    "debian": False,
    "command": None,
    "script": None,
    "timeout": 60,
    "expect_status": 0,
    "ktap": True,
    "must_contain": [],
    "must_not_contain": [],
    "same_as_host": [],
    "check": None,
    "tool": None,
    "soak": False,      # True: make soak runs it (tests/run --soak), make test does not
}


def _cpus_online(n):
    """Every CPU announced itself and the count is right."""
    return [r"smp: %d CPUs online" % n] + \
        [r"cpu %d: online, APIC ID %d\b" % (k, k) for k in range(n)]


def _osnoise_json(nohz, syscalls, faults):
    """The start of osnoise --json's line, up to its interrupt counts."""
    return (r'^\{"tool": "osnoise", "cpu": 3, "nohz": %s, .*"noise_events": \d+, .*'
            r'"syscalls": %s, "faults": %s, ' % ("true" if nohz else "false", syscalls, faults))


# Every source of this CPU's /proc/interrupts column counted 0.
_osnoise_nothing = r'.*"interrupts_total": 0, "interrupts": \{"LOC": 0, "RES": 0, "CAL": 0, "NHZ": 0\b'
_osnoise_nothing_in_life = r'.*"life_interrupts_total": 0, "life_interrupts": \{"LOC": 0, "RES": 0, "CAL": 0, "NHZ": 0\b'


# ktest=lockcheck's report at -smp 4 (tests/kernel/lockcheck_test.c): CPU 2
# waits for the lock CPU 3 holds with interrupts off, and reports it with
# both backtraces (CPU 3's taken by NMI); CPU 3's release reports the
# interrupts-off section. Every "lockcheck:" line is matched.
_BACKTRACE_TO = r"Backtrace:\n(?: +\[.*\n)*? +\[<[0-9a-f]+>\] %s\+0x"
_LOCKCHECK_KTEST_REPORT = [
    r"^lockcheck: cpu 2 waits for lock 'ktest-lockcheck' \(0x[0-9a-f]+\) for \d+ cycles \(bound \d+\): "
    r"held by cpu 3, taken at lockcheck_hold_with_irqs_off\+0x",
    r"^lockcheck: cpu 2, the waiter:\n" + _BACKTRACE_TO % "lockcheck_wait_for_holder",
    r"^lockcheck: cpu 3 at the NMI:\n" + _BACKTRACE_TO % "lockcheck_hold_with_irqs_off",
    r"^lockcheck: end of report; cpu 2 goes on waiting",
    r"^lockcheck: cpu 3 kept interrupts off for \d+ cycles \(bound \d+\): lock 'ktest-lockcheck' "
    r"taken at lockcheck_hold_with_irqs_off\+0x[0-9a-f]+, released at:\n" + _BACKTRACE_TO % "spin_unlock"]


# The field names of a /proc/cpuinfo block that nohzk prints, in Linux's
# order (the host's extra ones, microcode, bugs, TLB size..., dropped).
_CPUINFO_FIELDS = ("grep -xE 'processor|vendor_id|cpu family|model|model name|stepping|cpu MHz|cache size|"
                   "physical id|siblings|core id|cpu cores|apicid|initial apicid|fpu|fpu_exception|cpuid level|"
                   "wp|flags|bogomips|clflush size|cache_alignment|address sizes'")


def _shell_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


_SCRIPT_FALLBACK = ("cd /tmp && printf 'echo a plain script: $0 $1\\n' > plain && chmod +x plain && "
                    "PATH=/tmp:$PATH plain one; echo status $?; "
                    "printf 'junk\\000' > junk && chmod +x junk && PATH=/tmp:$PATH junk 2>/dev/null; "
                    "echo status $?")


def _program(name, program, libc="musl"):
    """A test program of tests/user/ (KTAP, also run on the Linux host by
    tests/run), built with libc, booted at -smp 2 as /bin/PROGRAM-test."""
    return {"name": name, "smp": 2, "timeout": 120,
            "add": ["build/tests-user/%s.%s:/bin/%s-test" % (program, libc, program)],
            "command": "%s-test" % program}


def _startup_programs(name, libc, append):
    """sysfs, mempolicy and cpu_latency of tests/user/ in one boot, each
    must exit 0."""
    programs = ["sysfs", "mempolicy", "cpu_latency"]
    return {"name": name, "smp": 2, "timeout": 120, "append": append,
            "add": ["build/tests-user/%s.%s:/bin/%s-test" % (p, libc, p) for p in programs],
            "command": " && ".join("%s-test" % p for p in programs)}


def _compare_linux_alone(text):
    """tools/measure/compare-linux's table, column alone (witness counts of CPU 3):
    nohzk's task policy takes nothing, Linux without isolation ticks (the
    witness sees a ticking vCPU), and nohz_full=1-3 takes fewer."""
    found = {}
    for m in re.finditer(r"^(task|linux-isolated|linux) +(\d+)(?: \(\d+\))? +\S.*$", text, re.M):
        found[m.group(1)] = int(m.group(2))
    if set(found) != {"task", "linux-isolated", "linux"}:
        return ["no table rows for task, linux-isolated and linux (found %s)" % sorted(found)]
    reasons = []
    if found["task"] != 0:
        reasons.append("nohzk task: %d interrupts in the window, want 0" % found["task"])
    if found["linux"] == 0:
        reasons.append("Linux without isolation: the witness saw no interrupt on CPU 3")
    if found["linux-isolated"] >= found["linux"]:
        reasons.append("Linux nohz_full=1-3: %d interrupts, not fewer than without isolation (%d)"
                       % (found["linux-isolated"], found["linux"]))
    return reasons


# What each fuzz class must show (scenario fuzz-classes), besides what
# every run must: the class's own line of counts.
_FUZZ_CLASS_CHECKS = [
          # nohz set while siblings move us: some moves refused (EBUSY)
          ("nohz", [r"^fuzz: class nohz: [1-9]\d* bursts, calls [1-9]\d*: success [1-9].* EBUSY [1-9]"]),
          ("affinity", [r"^fuzz: class affinity: [1-9]\d* bursts, calls [1-9]\d*: success [1-9]"]),
          # /proc/PID read of children being reaped: some found gone
          ("reap", [r"^fuzz: class reap: [1-9]\d* bursts, calls [1-9]\d*: success [1-9].* ENOENT [1-9]"]),
          # popf set TF, among others: its traps were caught
          ("flags", [r"^fuzz: class flags: [1-9]\d* bursts, calls [1-9]\d*: success [1-9]",
                     r"^fuzz: class flags: traps stepped over [1-9]"]),
          # links nested and looped: some lookups refused (ELOOP)
          ("symlink", [r"^fuzz: class symlink: [1-9]\d* bursts, calls [1-9]\d*: success [1-9].* ELOOP [1-9]"]),
          ("memory", [r"^fuzz: class memory: [1-9]\d* bursts, calls [1-9]\d*: success [1-9]",
                      r"^fuzz: class memory: children [1-9]\d*: .*; killed at the time limit \d+, stuck 0 "]),
          # futex calls on every kind of word: refused (EFAULT, EINVAL) and
          # done; a waiting child signalled, stopped and killed is never stuck
          ("futex", [r"^fuzz: class futex: [1-9]\d* bursts, calls [1-9]\d*: success [1-9].* EFAULT [1-9]\d* EINVAL [1-9]",
                     r"^fuzz: class futex: children [1-9]\d*: .*Killed [1-9].*; killed at the time limit \d+, stuck 0 "]),
          # crafted frames: children die of a signal, or land where a
          # sanitized frame sends them; none comes back
          ("sigreturn", [r"^fuzz: class sigreturn: children [1-9]\d*: exited 0, landed [1-9]\d*, landed badly 0, "
                         r"came back 0, other exits 0, .*Segmentation fault [1-9].*; killed at the time limit \d+, "
                         r"stuck 0 "]),
]


_TRACE_LINE_RE = re.compile(r"^\s*\S+-\S+\s+\[(\d{3})\]\s+\d+\.\d+: (\w+): (.*)$")


def _interrupt_causes_checks(output):
    """Scenario interrupt-causes: osnoise's window on CPU 3 accounts for
    every interrupt by cause, to the kernel's own count of the same moments;
    its signals came as CPU 0's reschedule IPIs "signal", and the trace
    shows such a send on CPU 0 before CPU 3 accounts an interrupt to it.
    Counts and order only."""
    import json
    m = re.search(r'^\{"tool": "osnoise".*\}$', output, re.M)
    if not m:
        return ["no osnoise JSON line"]
    run = json.loads(m.group(0))
    if "causes" not in run:
        return ["osnoise printed no causes (/proc/interrupt_causes not read)"]
    reasons = []
    if run["causes_total"] != run["causes_interrupts"]:
        reasons.append("causes add up to %d, the kernel counted %d interrupts on cpu 3"
                       % (run["causes_total"], run["causes_interrupts"]))
    by_signal = run["causes"].get("RES 0 signal", 0)
    if run["signals"] < 1 or by_signal < 1:
        reasons.append("%d signals handled, %d interrupts caused by cpu 0's RES \"signal\": want both >= 1"
                       % (run["signals"], by_signal))
    elif by_signal < run["signals"] - 2:
        reasons.append("%d signals handled but only %d RES \"signal\" interrupts" % (run["signals"], by_signal))
    unattributed = [key for key in run["causes"] if key.endswith(" unattributed")]
    if unattributed:
        reasons.append("unattributed interrupts: %s" % ", ".join(unattributed))
    events = [m.groups() for m in map(_TRACE_LINE_RE.match, output.splitlines()) if m]
    sends = [i for i, (cpu, event, details) in enumerate(events)
             if cpu == "000" and event == "ipi_send" and details == "type=RES target=3 why=signal"]
    causes = [i for i, (cpu, event, details) in enumerate(events)
              if cpu == "003" and event == "irq_cause" and details == "source=RES from=0 why=signal"]
    if not sends or not causes or max(causes) < min(sends):
        reasons.append("the trace has no RES send \"signal\" on cpu 0 (%d) followed by its cause on cpu 3 (%d)"
                       % (len(sends), len(causes)))
    return reasons


def _oslat_report_checks(output):
    """oslat's two --json reports (between ==normal, ==fifo and ==end):
    each a thread on each of CPUs 1-3 with a histogram of samples; and
    both runs exited 0."""
    import json
    runs_ok = len(re.findall(r"^status=0\r?$", output, re.M))
    reasons = [] if runs_ok == 2 else ["oslat: %d of 2 runs exited 0" % runs_ok]
    for name in ("normal", "fifo"):
        match = re.search(r"^==%s\r?\n(.*?)^==" % name, output, re.M | re.S)
        try:
            report = json.loads(match.group(1).replace("\r", "")) if match else None
        except ValueError as error:
            report, reasons = None, reasons + ["oslat %s: not JSON (%s)" % (name, error)]
        if report is None:
            reasons.append("oslat %s: no report" % name)
            continue
        threads = report.get("thread", {}).values()
        cpus = sorted(thread.get("cpu") for thread in threads)
        if cpus != [1, 2, 3]:
            reasons.append("oslat %s: threads on CPUs %s, want [1, 2, 3]" % (name, cpus))
        for thread in threads:
            if sum(thread.get("histogram", {}).values()) <= 0:
                reasons.append("oslat %s: no samples on CPU %s" % (name, thread.get("cpu")))
    return reasons


def _fuzz_class_checks(output):
    """Each class's run (from its "fuzz: classes NAME" line to the next)
    shows the common lines and its own; a class that never ran fails."""
    runs = re.split(r"^(?=fuzz: classes \w+$)", output, flags=re.MULTILINE)
    by_class = {m.group(1): run for run in runs for m in [re.match(r"fuzz: classes (\w+)$", run, re.MULTILINE)] if m}
    common = [r"^fuzz: workers \d+ started, [1-9]\d* finished, 0 lost", r"^fuzz: root directory unchanged$",
              r"^fuzz: PASS$"]
    reasons = []
    for cls, checks in _FUZZ_CLASS_CHECKS:
        run = by_class.get(cls)
        if run is None:
            reasons.append("fuzz class %s: never ran" % cls)
            continue
        reasons += ["fuzz class %s: missing /%s/" % (cls, r) for r in common + checks
                    if not re.search(r, run, re.MULTILINE)]
    return reasons


SCENARIOS = [
    # Boot and bring every CPU up, through SeaBIOS and OVMF.
    {"name": "boot-smp1", "smp": 1, "append": "ktest=boot",
     "must_contain": _cpus_online(1)},
    {"name": "boot-smp2", "smp": 2, "append": "ktest=boot",
     "must_contain": _cpus_online(2)},
    {"name": "boot-smp4", "smp": 4, "append": "ktest=boot",
     "must_contain": _cpus_online(4)},
    {"name": "boot-smp8", "smp": 8, "append": "ktest=boot",
     "must_contain": _cpus_online(8)},
    {"name": "boot-smp16", "smp": 16, "timeout": 120, "append": "ktest=boot",
     "must_contain": _cpus_online(16)},
    {"name": "boot-uefi-smp4", "smp": 4, "uefi": True, "timeout": 120,
     "append": "ktest=boot", "must_contain": _cpus_online(4)},
    # The run's command line, files and command through QEMU's fw_cfg,
    # under SeaBIOS and OVMF, and the boot messages for items too large or
    # missing (tests/qemu/fw_cfg_check; docs/boot.md, section 13).
    {"name": "fw-cfg-items", "ktap": False, "timeout": 300,
     "tool": ["tests/qemu/fw_cfg_check"],
     "must_contain": [r"^fw_cfg_check: %s: ok$" % case
                      for case in ("seabios", "uefi", "cmdline-too-long", "initrd-too-large", "missing")]},

    # In-kernel suites.
    {"name": "tick", "smp": 4, "append": "ktest=tick"},
    {"name": "tick-periodic", "smp": 4, "append": "tick=periodic ktest=tick"},
    {"name": "ipi", "smp": 4, "append": "ktest=ipi"},
    {"name": "percpu", "smp": 4, "append": "ktest=percpu"},
    {"name": "alloc", "smp": 2, "append": "ktest=alloc"},
    # Scheduler and timers (kernel threads).
    {"name": "sched", "smp": 4, "timeout": 240, "append": "ktest=sched"},
    {"name": "sched-smp2", "smp": 2, "timeout": 240, "append": "ktest=sched"},
    {"name": "timers", "smp": 4, "append": "ktest=timers"},
    # Debian's busybox-static, unmodified: tools/run/boot runs a command line in
    # its sh and exits with the command's status.
    {"name": "busybox-status", "smp": 2, "ktap": False, "expect_status": 3,
     "command": "echo hello from busybox; exit 3", "must_contain": [r"^hello from busybox$"]},
    {"name": "busybox-commands", "smp": 4, "ktap": False, "timeout": 120,
     "command": "ls /; cat /etc/passwd; ls -l /bin/sh; taskset -c 3 echo pinned; uname -sm; cd /tmp && mkdir d && cd d && pwd",
     "must_contain": [r"^bin +dev +etc +proc +root +sys +tmp$", r"^root:x:0:0:root:/root:/bin/sh$",
                      r"/bin/sh -> busybox$", r"^pinned$", r"^Linux x86_64$", r"^/tmp/d$"]},
    {"name": "busybox-failure", "smp": 2, "ktap": False, "expect_status": 127,
     "command": "/no/such/program", "must_contain": [r"/no/such/program: not found"]},
    # A file with no #! that execve refuses (ENOEXEC): busybox's sh runs it
    # as a script in a child that re-executes busybox through
    # /proc/self/exe. The same lines through Debian's busybox on the host.
    # Only a process's own exe link resolves (kernel/process/proc_pid.c).
    {"name": "busybox-script-fallback", "smp": 2, "ktap": False,
     "command": _SCRIPT_FALLBACK + "; readlink /proc/self/exe; readlink /proc/$$/exe || echo another process: no link; "
                "cmp /proc/self/exe /bin/busybox && echo the link opens the program",
     "same_as_host": ["build/busybox-static/bin/busybox sh -c " + _shell_quote(_SCRIPT_FALLBACK)],
     "must_contain": [r"^/bin/busybox\nanother process: no link\nthe link opens the program$"],
     "must_not_contain": [r"Segmentation fault", r"killed by signal"]},
    {"name": "console", "smp": 2, "append": "ktest=console"},
    {"name": "pipe", "smp": 4, "append": "ktest=pipe"},
    {"name": "busybox-pipes-proc", "smp": 4, "ktap": False,
     "command": "echo a b c | wc -w; ls /bin | grep -c busybox; cat /proc/interrupts | grep -c -e LOC: -e RES: -e CAL: -e NHZ:; head -1 /proc/interrupts",
     "must_contain": [r"^3$", r"^1$", r"^4$", r"^ +CPU0 +CPU1 +CPU2 +CPU3 *$"]},
    # Ring 3: system calls, bad arguments, faults that kill only the process.
    {"name": "user", "smp": 4, "timeout": 120, "append": "ktest=user",
     "must_contain": [r"^hello from ring 3$",
                      r"pid \d+ \(null_write\) killed by signal 11: page fault at 0x0"]},
    {"name": "strace", "smp": 2, "append": "strace=1 ktest=user",
     "must_contain": [r"strace: pid \d+: write\(0x1, 0x0, 0xa, .*\) = -14",
                      r"strace: pid \d+: syscall_\d+\(.*\) = -38"]},
    # The nohz task model (docs/nohz-task.md), rule by rule: the in-kernel
    # rules with a kernel thread as the nohz task, the /proc/self/nohz
    # rules from user space, then the counts that matter with spin: zero
    # interrupts on CPU 3 while its nohz task spins alone (after its first
    # second), in user mode, with syscalls, with page-touching, and while
    # grace periods run on the other CPUs; against a tick at hz without it.
    {"name": "nohz", "smp": 4, "timeout": 120, "append": "ktest=nohz"},
    {"name": "nohz-smp2", "smp": 2, "timeout": 120, "append": "ktest=nohz"},
    # idle=poll on the last CPU only (sched/idle_poll.c, docs/noise.md
    # "Polling idle"): its own timers and wake-ups onto it cost it no
    # interrupt; CPU 2 halts and still takes its reschedule IPIs.
    {"name": "idle-poll", "smp": 4, "timeout": 120, "append": "idle=poll:3 ktest=idle_poll",
     "must_contain": [r"^idle: cpus 3 poll$",
                      r"^ +# cpu 3: 20 timers of its own, 0 interrupts$",
                      r"^ +# cpu 3 \(polls\): 50 wake-ups, \d+ on its runqueue, 0 RES, 0 interrupts in all$",
                      r"^ +# cpu 2 \(halts\): 50 wake-ups, \d+ on its runqueue, (5\d|[6-9]\d|\d{3,}) RES"]},
    # The sleepy case of the laboratory with idle=poll:3: osnoise sleeps 1 ms
    # after every 2 ms on CPU 3, whose poll takes each wake-up from its flag
    # (0 interrupts, counted by the kernel and by QEMU's witness); the same on
    # CPU 2, which halts, takes a reschedule IPI per sleep.
    {"name": "idle-poll-sleepy", "smp": 4, "ktap": False, "timeout": 150, "witness": True,
     "append": "hz=1000 idle=poll:3",
     "command": "for c in 3 2; do osnoise --cpu $c --nohz --mark --json --warmup-ms 500 --duration 2 "
                "--run-us 2000 --sleep-us 1000 || exit 1; done",
     "must_contain": [r'^\{"tool": "osnoise", "cpu": 3, "nohz": true, .*"sleeps": [1-9]\d*, '
                      + _osnoise_nothing,
                      r'^\{"tool": "osnoise", "cpu": 2, "nohz": true, .*"sleeps": [1-9]\d*, .*'
                      r'"interrupts": \{"LOC": \d+, "RES": [1-9]\d*',
                      r"^witness: cpu 3 window 1: timer 0, all 0, exceptions \d+, inner: timer 0, all 0$",
                      r"^witness: cpu 2 window 1: timer \d+, all [1-9]\d*, "],
     "must_not_contain": [r"^witness: cpu (?![23] window 1:)", r"PANIC"]},
    # One interrupt per event (tests/user/signal_cost.c): 20 signals from
    # CPU 0, then 20 alarms of its own ITIMER_REAL, to a nohz task spinning
    # in user mode on CPU 3: 20 interrupts each, the kernel's count and
    # QEMU's witness alike.
    {"name": "signal-cost", "smp": 4, "timeout": 120, "witness": True, "append": "trace=ipi",
     "add": ["build/tests-user/signal_cost.musl:/bin/signal_cost-test"], "command": "signal_cost-test",
     "must_contain": [r"^witness: cpu 3 window %d: timer 0, all 20, exceptions \d+ \(vectors: 0xf0 20\)$" % w
                      for w in (1, 2)] +
                     [r"^witness: cpu 3 window 3: timer 0, all (\d+), exceptions \d+ \(vectors: 0xf0 \1\)$"],
     "must_not_contain": [r"^witness: cpu (?!3 window [123]:)", r"PANIC"]},
    {"name": "nohz-rules", "smp": 4, "timeout": 90,
     "add": ["build/tests-user/nohz.musl:/bin/nohz-test"], "command": "nohz-test"},
    {"name": "nohz-rules-smp2", "smp": 2, "timeout": 90,
     "add": ["build/tests-user/nohz.musl:/bin/nohz-test"], "command": "nohz-test"},
    # The wakeup race: 100,000 wakeups onto CPU 3 while its nohz task spins
    # there alone, from CPUs 0-2 in turn, each aimed at the moment the tick
    # stops: no lost kick, no lost wakeup, every count as the model says
    # (tests/kernel/nohz_race_test.c; docs/reliability.md, section 3a).
    # About 25-40 s under TCG; the timeout is a safety net for a busy host.
    {"name": "nohz-race", "smp": 4, "timeout": 300, "append": "hz=1000 ktest=nohz_race",
     "must_contain": [r"^ +# wakeups 30000 onto cpu 3 from 3 other CPUs",
                      r"^ +# kicks sent (\d+), received \1, wasted \d+; tick restarts \1, stops \1; rcu prods 0$",
                      r"^ +# max wait in cpu 3 ticks behind the nohz task: kicked \d+ \(model 0, bound 11\)"],
     "must_not_contain": [r"^PANIC"]},
    {"name": "nohz-spin", "smp": 4, "ktap": False, "timeout": 120, "append": "hz=1000",
     "command": "taskset -c 3 spin 3 --nohz; taskset -c 3 spin 3 --nohz --syscall-every 100000; "
                "taskset -c 3 spin 3 --nohz --fault-every 100000; taskset -c 3 spin 2",
     "must_contain": [r"^spin: 3 s, \d+ iterations, 0 syscalls, 0 faults, nohz, cpus 3:\d+\n"
                      r"spin: cpu 3 after the first second: LOC [0-2], RES 0, CAL 0, NHZ 0, all [0-2]$",
                      r"^spin: 3 s, \d+ iterations, [1-9]\d* syscalls, 0 faults, nohz, cpus 3:\d+\n"
                      r"spin: cpu 3 after the first second: LOC [0-2], RES 0, CAL 0, NHZ 0, all [0-2]$",
                      r"^spin: 3 s, \d+ iterations, 0 syscalls, [1-9]\d* faults, nohz, cpus 3:\d+\n"
                      r"spin: cpu 3 after the first second: LOC [0-2], RES 0, CAL 0, NHZ 0, all [0-2]$",
                      r"^spin: 2 s, \d+ iterations, 0 syscalls, 0 faults, cpus 3:\d+\n"
                      r"spin: cpu 3 after the first second: LOC [1-9]\d\d+,"]},
    {"name": "nohz-spin-periodic", "smp": 4, "ktap": False, "timeout": 90, "append": "hz=1000 tick=periodic",
     "command": "taskset -c 3 spin 3 --nohz",
     "must_contain": [r"^spin: cpu 3 after the first second: LOC [1-9]\d\d+,"]},
    # Grace periods complete while CPU 3's nohz task is in user space, and
    # CPU 3 receives nothing for them
    # (docs/nohz-task.md#patches-10-and-11-user-mode-is-an-extended-quiescent-state).
    {"name": "nohz-rcu-load", "smp": 4, "ktap": False, "timeout": 120, "append": "hz=1000",
     "command": "taskset -c 3 spin 4 --nohz & sleep 1.2; g1=$(grep gps_completed /proc/rcu); rcustress 2; "
                "g2=$(grep gps_completed /proc/rcu); wait; echo \"$g1 -> $g2\"",
     "must_contain": [r"^rcutorture: grace periods [1-9]\d*, stalls 0, errors 0",
                      r"^spin: cpu 3 after the first second: LOC [0-2], RES 0, CAL 0, NHZ 0, all [0-2]$",
                      r"^gps_completed: \d+ -> gps_completed: \d+$"]},
    # SCHED_FIFO spinners without throttling (docs/realtime.md). One on
    # nohz_full CPU 3 with a normal task queued beneath it: the tick stops
    # anyway (Linux 6.1's sched_can_stop_tick), the normal task runs only
    # once the spinner ends. One on CPU 0, where RCU's grace-period and
    # offload kthreads run, above every user priority: grace periods
    # complete while both spin (CPU 3's callbacks run in rcuo/3 on CPU 0,
    # its user mode is quiescent). The shell pins itself to CPUs 1-2
    # first: queued behind a spinner, it would wait until the spinner
    # ends; rcustress's reader on CPU 0 does wait.
    {"name": "rt-fifo", "smp": 4, "ktap": False, "timeout": 120, "append": "hz=1000 tick=full nohz_full=3",
     # (each spin writes to a file of its own: two at once on the console
     # interleave their lines)
     "command": "taskset -p -c 1-2 $$ >/dev/null; taskset -c 3 spin 4 --fifo 50 > /tmp/fifo3 & "
                "taskset -c 0 spin 4 --fifo 50 > /tmp/fifo0 & "
                "sleep 0.5; taskset -c 3 spin 1 > /tmp/normal3 & sleep 0.7; g1=$(grep gps_completed /proc/rcu); "
                "rcustress 1 & sleep 1.5; g2=$(grep gps_completed /proc/rcu); wait; "
                "cat /tmp/fifo3 /tmp/fifo0 /tmp/normal3; echo \"$g1 -> $g2\"",
     "must_contain": [r"^rcutorture: grace periods [1-9]\d*, stalls 0, errors 0",
                      r"^spin: 4 s, [1-9]\d* iterations, \d+ syscalls, 0 faults, fifo, cpus 3:\d+$",
                      r"^spin: 4 s, [1-9]\d* iterations, \d+ syscalls, 0 faults, fifo, cpus 0:\d+$",
                      r"^spin: cpu 3 after the first second: LOC [0-2], RES \d+, CAL 0, NHZ 0, all [0-2]$",
                      r"^spin: 1 s, [1-9]\d* iterations, 0 syscalls, 0 faults, cpus 3:\d+$",
                      r"^gps_completed: (\d+) -> gps_completed: (?!\1$)\d+$"]},
    # A second task on the nohz CPU: the kick restarts the tick, both make
    # progress; when the nohz task exits the mask is clear.
    {"name": "nohz-compete", "smp": 4, "ktap": False, "timeout": 120, "append": "hz=1000",
     "command": "taskset -c 3 spin 4 --nohz & sleep 2; taskset -c 3 spin 1; wait; cat /proc/tick",
     "must_contain": [r"^spin: 1 s, [1-9]\d* iterations, 0 syscalls, 0 faults, cpus 3:\d+$",
                      r"^spin: 4 s, [1-9]\d* iterations, 0 syscalls, 0 faults, nohz, cpus 3:\d+$",
                      r"^spin: cpu 3 after the first second: LOC [1-9]\d*, RES \d+, CAL 0, NHZ [1-9]",
                      r"^3 +(ticking|stopped) +\S+ +- "]},
    # tick=full: any task alone on a nohz_full= CPU stops the
    # tick, with no marking; the policy switches at run time.
    {"name": "full-spin", "smp": 4, "ktap": False, "timeout": 120, "append": "hz=1000 tick=full nohz_full=1-3",
     "command": "taskset -c 3 spin 3; taskset -c 3 spin 3 --syscall-every 100000; "
                "taskset -c 3 spin 3 --fault-every 100000; "
                "taskset -c 3 spin 4 & sleep 1.2; rcustress 2 >/dev/null; wait; "
                "cat /proc/sys/kernel/tick_policy; grep -c '^full ' /proc/sys/kernel/tick_policies",
     # Zero interrupts of any kind over the whole loop (tick=full's target):
     # the tick stops as the task is switched in, before its first period.
     "must_contain": [r"^nohz_full: cpus 1-3$",
                      r"^spin: 3 s, \d+ iterations, 0 syscalls, 0 faults, cpus 3:\d+\n"
                      r"spin: cpu 3 after the first second: LOC 0, RES 0, CAL 0, NHZ 0, all 0\n"
                      r"spin: cpu 3 over the whole loop: LOC 0, RES 0, CAL 0, NHZ 0, all 0$",
                      r"^spin: 3 s, \d+ iterations, [1-9]\d* syscalls, 0 faults, cpus 3:\d+\n"
                      r"spin: cpu 3 after the first second: LOC 0, RES 0, CAL 0, NHZ 0, all 0\n"
                      r"spin: cpu 3 over the whole loop: LOC 0, RES 0, CAL 0, NHZ 0, all 0$",
                      r"^spin: 3 s, \d+ iterations, 0 syscalls, [1-9]\d* faults, cpus 3:\d+\n"
                      r"spin: cpu 3 after the first second: LOC 0, RES 0, CAL 0, NHZ 0, all 0\n"
                      r"spin: cpu 3 over the whole loop: LOC 0, RES 0, CAL 0, NHZ 0, all 0$",
                      r"^spin: 4 s, \d+ iterations, 0 syscalls, 0 faults, cpus 3:\d+\n"
                      r"spin: cpu 3 after the first second: LOC 0, RES 0, CAL 0, NHZ 0, all 0\n"
                      r"spin: cpu 3 over the whole loop: LOC 0, RES 0, CAL 0, NHZ 0, all 0$",
                      r"^full$", r"^1$"]},
    # The same target measured by osnoise, and over the task's
    # whole run on CPU 3, from its arrival (right after pinning itself)
    # to its end, warm-up included: zero interrupts alone, with a system
    # call or a page-touching mmap every millisecond, and while rcustress
    # drives grace periods on CPU 1. The shell pins itself to CPU 0 first:
    # its children would otherwise be free to start on CPU 3 while it is
    # idle between runs (as on Linux, nohz_full= does not keep tasks off a
    # CPU), and a subshell still there when osnoise arrives shares the CPU
    # with it, tick on, for the few milliseconds until it sleeps.
    {"name": "osnoise-full", "smp": 4, "ktap": False, "timeout": 150, "append": "hz=1000 tick=full nohz_full=1-3",
     "command": "taskset -p -c 0 $$ >/dev/null; osnoise --cpu 3 --duration 2 --json; osnoise --cpu 3 --duration 2 --json --syscall-every-us 1000; "
                "osnoise --cpu 3 --duration 2 --json --fault-every-us 1000; "
                "(sleep 1.2; taskset -c 1 rcustress 2 >/dev/null) & osnoise --cpu 3 --duration 3 --json; wait",
     "must_contain": [_osnoise_json(False, syscalls, faults) + _osnoise_nothing + _osnoise_nothing_in_life
                      for syscalls, faults in ((0, 0), (r"[1-9]\d*", 0), (0, r"[1-9]\d*"))] +
                     [r'"runtime_ns": (29|30)\d{8}, ' + _osnoise_nothing + _osnoise_nothing_in_life]},   # rcu-load: 3 s
    {"name": "tick-policy-switch", "smp": 4, "ktap": False, "timeout": 120, "append": "hz=1000 tick=full nohz_full=3",
     "command": "echo bogus > /proc/sys/kernel/tick_policy || echo refused; cat /proc/sys/kernel/tick_policy; "
                "taskset -c 3 spin 3 & sleep 1.5; echo periodic > /proc/sys/kernel/tick_policy; wait; "
                "cat /proc/sys/kernel/tick_policy; echo full > /proc/sys/kernel/tick_policy; taskset -c 3 spin 2",
     "must_contain": [r"^refused$", r"^full$", r"^periodic$",
                      r"^spin: cpu 3 after the first second: LOC [1-9]\d\d+,",
                      r"^spin: 2 s, .*\nspin: cpu 3 after the first second: LOC [0-2], RES 0, CAL 0, NHZ 0"]},
    {"name": "nohz-full-bad", "smp": 4, "append": "tick=full nohz_full=0-3 rcu_nocbs=0 ktest=boot",
     "must_contain": [r"nohz_full=0-3: cpu 0 stays a housekeeping CPU", r"^nohz_full: cpus 1-3$",
                      # nohz_full= implies rcu_nocbs=; with it, rcu_nocbs=0 would leave no CPU
                      r"rcu_nocbs=0: with nohz_full=, would offload every CPU",
                      r"^rcu: callbacks of CPUs 1-3 offloaded to rcuo kthreads on cpu 0$"]},
    {"name": "nohz-full-bad-list", "smp": 2, "append": "tick=full nohz_full=1,7 ktest=boot",
     "must_contain": [r"nohz_full=1,7: CPU 7 is not online: ignored", r"^nohz_full: cpus 1$"]},
    {"name": "nohz-full-not-a-list", "smp": 2, "append": "tick=task nohz_full=x ktest=boot",
     "must_contain": [r"nohz_full=x: not a CPU list"]},
    # osnoise (docs/noise.md) measures the same thing from the task's side:
    # after its warm-up, a nohz osnoise on CPU 3 takes no interrupt of any
    # source, alone, with a system call every ms and with a new page every
    # ms; without --nohz the tick is there (2,000 expected; at least 50
    # asserted: under a loaded host TCG loses most ticks, 230 seen); a
    # second nohz task on CPU 3 is refused. Only counts are asserted: the
    # noise times and events under TCG are the host's.
    {"name": "osnoise-nohz", "smp": 4, "ktap": False, "timeout": 150, "append": "hz=1000",
     "command": "osnoise --duration 3 --cpu 3 --nohz --json; osnoise --duration 2 --cpu 3 --nohz --json "
                "--syscall-every-us 1000; osnoise --duration 2 --cpu 3 --nohz --json --fault-every-us 1000; "
                "osnoise --duration 2 --cpu 3 --json; osnoise --nohz --cpu 3 --duration 2 >/dev/null & "
                "until grep -q 1 /proc/$!/nohz; do sleep 0.1; done; osnoise --nohz --cpu 3 --duration 1; "
                "echo refused=$?; wait",
     "must_contain": [_osnoise_json(True, 0, 0) + _osnoise_nothing,
                      _osnoise_json(True, r"[1-9]\d*", 0) + _osnoise_nothing,
                      _osnoise_json(True, 0, r"[1-9]\d*") + _osnoise_nothing,
                      _osnoise_json(False, 0, 0) + r'.*"interrupts_total": \d+, "interrupts": '
                      r'\{"LOC": ([5-9]\d|\d{3,}), "RES": \d+, "CAL": \d+, "NHZ": 0\b',
                      r"^osnoise: --nohz: cannot write 1 to /proc/thread-self/nohz: .*busy", r"^refused=1$"]},
    # Every interrupt has a cause (docs/noise.md): a nohz osnoise on CPU 3
    # takes SIGUSR1 from CPU 0 every 2 ms; /proc/interrupt_causes accounts
    # for each of its interrupts, and the trace shows the sends before
    # their causes (_interrupt_causes_checks). hz=100 and the classes off
    # after the run keep CPU 0's ring from losing the last sends.
    {"name": "interrupt-causes", "smp": 4, "ktap": False, "timeout": 90,
     "append": "hz=100 trace=ipi,irq trace_size=1024",
     "command": "osnoise --cpu 3 --nohz --json --warmup-ms 500 --duration 2 --signals-from-cpu 0 "
                "--signal-every-us 2000; echo 'classes none' > /proc/trace; "
                "grep -E 'ipi_send: type=RES target=3 |\\[003\\].* irq_cause: ' /proc/trace | tail -n 80",
     "check": _interrupt_causes_checks},
    # Signals: a static musl program checks Linux's behaviour (it passes on
    # the Linux host too: see "host-signals" in tests/run), the shell's
    # job control and pipelines use them, and Ctrl-C on the console
    # interrupts the foreground job only.
    {"name": "signals", "smp": 2, "timeout": 120,
     "add": ["build/tests-user/signals.musl:/bin/signals-test"], "command": "signals-test",
     "must_contain": [r"killed by signal 11: bad signal frame",
                      r"killed by signal 11: no room for a signal frame"]},
    # Memory exhaustion from user space: a process takes every free page,
    # then gives them back one at a time while another forks at each step;
    # fork says ENOMEM until it works again, and the kernel goes on.
    # Threads (docs/threads.md): pthread_create and join, TLS, mutexes,
    # condition variables, barriers, thread- and process-directed signals,
    # the group's end from a thread, exec from a thread, a thousand threads,
    # clone's refused flags; the same program passes on the Linux host
    # (host-pthreads).
    _program("pthreads", "pthreads") | {"smp": 4},
    _program("pthreads-glibc", "pthreads", "glibc") | {"smp": 4},
    # Attacks on thread groups: /proc read while threads end, exec and
    # exit_group racing clone and each other, SIGKILL racing clone, a group
    # stop and continue, joins racing the end (host-thread_races too).
    # SCHED_FIFO and SCHED_RR (docs/realtime.md): the calls' checks, order
    # on one CPU, preemption by a woken real-time thread, inheritance,
    # RESET_ON_FORK; the same program passes on the Linux host (host-sched_rt).
    _program("sched-rt", "sched_rt"),
    _program("sched-rt-glibc", "sched_rt", "glibc"),
    _program("thread-races", "thread_races") | {"smp": 4, "timeout": 300, "append": "mm_race_window_us=300"},
    _program("thread-races-glibc", "thread_races", "glibc") | {"smp": 4, "timeout": 300, "append": "mm_race_window_us=300"},
    # More attacks on threads (tests/user/thread_attacks.c): task files read
    # while threads end, a futex waiter and a nohz thread moved, a nohz
    # write racing a move, tgkill of a gone tid, one thread taking a process
    # signal, vfork and fork from a thread, a group stop over futex waiters,
    # robust lists and clear_child_tid at bad addresses, CLONE_SETTLS edges,
    # threads until memory runs out (host-thread_attacks too).
    _program("thread-attacks", "thread_attacks") | {"smp": 4, "timeout": 300},
    _program("thread-attacks-glibc", "thread_attacks", "glibc") | {"smp": 4, "timeout": 300},
    # Each thread a nohz task (docs/threads.md): one static program whose
    # three pthreads, pinned to CPUs 1-3 and each marked through
    # /proc/thread-self/nohz, spin; QEMU's witness counts what each of the
    # three CPUs took between the marks its thread wrote: nothing, under
    # tick=task (musl) and tick=full (glibc), memory locked, no futex.
    *[{"name": name, "smp": 4, "ktap": False, "timeout": 180, "witness": True, "append": append,
       "add": ["build/tests-user/nohz_threads.%s:/bin/nohz-threads" % libc], "command": "nohz-threads 3",
       "must_contain": [r"^nohz_threads: 3 threads, 3 s, done$"] +
                       [r"^witness: cpu %d window 1: timer 0, all 0, exceptions 0$" % cpu for cpu in (1, 2, 3)],
       "must_not_contain": [r"^witness: cpu (?![123] window 1:)", r"cannot (pin|mark)", r"PANIC"]}
      for name, libc, append in [("threads-nohz", "musl", "tick=task"),
                                 ("threads-nohz-full-glibc", "glibc", "tick=full nohz_full=1-3")]],
    {"name": "oom", "smp": 2, "timeout": 120, "mem": "64M",
     "add": ["build/tests-user/oom.musl:/bin/oom-test"], "command": "oom-test; echo after=$?",
     "must_contain": [r"^# free at the low point: -?\d+ KiB; forks: [1-9]\d* refused", r"^after=0$"]},
    # Fault injection (docs/reliability.md, "Fault injection"): fail-nth
    # walks every system call class with N = 1, 2, ... until no failure
    # fires; each (call, N) fails cleanly or works, leaves the state its
    # result says and leaks nothing (the whole walk, rcustress included,
    # is in make soak).
    {"name": "fail-nth", "smp": 2, "timeout": 300,
     "add": ["build/tests-user/fail_nth.musl:/bin/fail-nth-test"], "command": "fail-nth-test",
     "must_contain": [r"^fail-nth: [1-9]\d* \(call, N\) pairs tried, [1-9]\d* injected, 0 leaks, 0 calls bad$"]},
    {"name": "fail-nth-glibc", "smp": 2, "timeout": 300,
     "add": ["build/tests-user/fail_nth.glibc:/bin/fail-nth-test"], "command": "fail-nth-test",
     "must_contain": [r"^fail-nth: [1-9]\d* \(call, N\) pairs tried, [1-9]\d* injected, 0 leaks, 0 calls bad$"]},
    # fail_alloc=5: forks and execs fail at random in every process but
    # init, which runs the loop; nothing panics or leaks.
    {"name": "fail-alloc", "smp": 2, "ktap": False, "timeout": 120, "append": "fail_alloc=5",
     "add": ["tests/qemu/data/fail_alloc.sh:/bin/fail_alloc.sh"], "command": "sh /bin/fail_alloc.sh 60",
     "must_contain": [r"^fail_alloc: pid 1: ls worked \d+, failed [1-9]\d*; faults injected [1-9]\d*$",
                      r"^fail_alloc: PASS$"]},
    # fail_alloc=100: the boot, which makes no system call, and init are
    # spared; every other process's allocations fail.
    {"name": "fail-alloc-always", "smp": 2, "ktap": False, "timeout": 60, "append": "fail_alloc=100",
     "add": ["tests/qemu/data/fail_alloc.sh:/bin/fail_alloc.sh"], "command": "sh /bin/fail_alloc.sh 5",
     "must_contain": [r"^fail_alloc: pid 1: ls worked 0, failed 5; faults injected [1-9]\d*$", r"^fail_alloc: PASS$"]},
    # A bad value is reported and injects nothing.
    {"name": "fail-alloc-bad-params", "smp": 2, "ktap": False, "append": "fail_alloc=101 fail_alloc=x",
     "add": ["tests/qemu/data/fail_alloc.sh:/bin/fail_alloc.sh"], "command": "sh /bin/fail_alloc.sh 5",
     "must_contain": [r"cmdline: fail_alloc=101: must be a number from 0 to 100",
                      r"cmdline: fail_alloc=x: ", r"^fail_alloc: pid 1: ls worked 5, failed 0; faults injected 0$",
                      r"^fail_alloc: PASS$"]},
    # Interval timers (setitimer, getitimer, alarm): the same program passes
    # on the Linux host ("host-itimer" in tests/run); on nohzk it also shows
    # that an ITIMER_VIRTUAL holds a nohz CPU's tick (the task's cputimer
    # tick dependency) and that the tick stops again once it is disarmed.
    {"name": "itimer", "smp": 4, "timeout": 120, "append": "hz=1000",
     "add": ["build/tests-user/itimer.musl:/bin/itimer-test"], "command": "itimer-test"},
    # Directory listings while names are removed and added (what nftw and
    # rm -r do): every name not touched comes exactly once. The same
    # program passes on the Linux host ("host-dirs" in tests/run).
    _program("dirs", "dirs"),
    # Also with glibc's readdir, whose 32 KiB buffer takes fewer calls.
    _program("dirs-glibc", "dirs", "glibc"),
    # posix_spawn(), system() and clone() with a stack of its own, with
    # both libcs (their clone wrappers differ); passes on the Linux host
    # too ("host-spawn" in tests/run).
    _program("spawn", "spawn"),
    _program("spawn-glibc", "spawn", "glibc"),
    # poll and ppoll: pipes, regular files and bad descriptors, waiting for
    # a write, a timeout or a signal; both libcs; passes on the Linux host
    # too ("host-poll" in tests/run).
    _program("poll", "poll"),
    _program("poll-glibc", "poll", "glibc"),
    # select and pselect over the same wait: sets in and out, EBADF, the
    # time left written back, pselect's mask; both libcs (musl calls
    # select, glibc pselect6); passes on the Linux host too.
    _program("select", "select"),
    _program("select-glibc", "select", "glibc"),
    # Job control: stop signals, SIGCONT, wait4's WUNTRACED and
    # WCONTINUED, SIGCHLD's CLD_STOPPED and CLD_CONTINUED, SA_NOCLDSTOP;
    # both libcs; passes on the Linux host too ("host-jobs" in tests/run).
    _program("jobs", "jobs"),
    _program("jobs-glibc", "jobs", "glibc"),
    # Sessions and process groups (setsid, getsid, setpgid, getpgid);
    # passes on the Linux host too ("host-session" in tests/run).
    _program("session", "session"),
    # Program output and kernel messages never share a line: a shell on
    # CPU 1 prints 400 lines of 60 U's while strace=1 logs every system
    # call of a loop on CPU 2 (console_output() takes printk's lock).
    {"name": "console-lines", "smp": 4, "ktap": False, "timeout": 150, "append": "strace=1",
     "command": "taskset -c 1 sh -c 'i=0; while [ $i -lt 400 ]; do echo UUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUU; i=$((i+1)); done' & "
                "taskset -c 2 sh -c 'i=0; while [ $i -lt 400 ]; do : > /dev/null; i=$((i+1)); done' & wait",
     "must_contain": [r"^U{60}\r?$", r"^strace: pid \d+: "],
     "must_not_contain": [r"^(?!U{60}\r?$).*UUUUU"]},
    {"name": "busybox-signals", "smp": 2, "ktap": False, "timeout": 120,
     "command": "sleep 1 & wait; echo waited=$?; sleep 5 & kill $!; wait $!; echo killed=$?; "
                "set -o pipefail; yes | head -n 1 >/dev/null; echo pipe=$?; "
                "trap 'echo trapped' USR1; kill -USR1 $$; echo after-trap; "
                "sh -c 'kill -INT $$; echo not-here'; echo int=$?",
     "must_contain": [r"^waited=0$", r"^killed=143$", r"^pipe=141$", r"^trapped$", r"^after-trap$", r"^int=130$"],
     "must_not_contain": [r"not-here"]},
    {"name": "shell-ctrl-c", "smp": 2, "ktap": False, "timeout": 120, "script": "ctrl-c.txt",
     "expect_status": 7, "must_not_contain": [r"^half a line\r?$"]},
    # Ctrl-Z: the job stops (state T), bg, fg, Ctrl-C, and SIGKILL of a
    # stopped job, through busybox ash's job control.
    {"name": "shell-ctrl-z", "smp": 2, "ktap": False, "timeout": 120, "script": "ctrl-z.txt",
     "expect_status": 7},
    {"name": "timers-pit", "smp": 4, "qemu": "-machine pc,hpet=off", "append": "ktest=timers"},
    # The smallest machine we promise to boot on.
    {"name": "alloc-mem64", "smp": 4, "mem": "64M", "append": "ktest=boot,alloc"},
    # hz= changes the tick rate; the tick suite measures against it.
    {"name": "tick-hz100", "smp": 2, "append": "hz=100 tick=periodic ktest=tick"},

    # A panic is reported with a symbolized backtrace and status 253.
    {"name": "panic", "append": "ktest=panic", "expect_status": 253,
     "ktap": False,
     "must_contain": [r"^PANIC: cpu 0: page fault at address 0x0",
                      r"^Backtrace:",
                      r"\] ktest_panic_null_dereference\+0x",
                      r"\] init_task\+0x",
                      r"\] task_first_run\+0x"]},
    {"name": "panic-recursive-lock", "append": "ktest=panic_lock", "expect_status": 253, "ktap": False,
     "must_contain": [r"^PANIC: cpu 0: spin_lock: lock 'ktest' already held by this CPU",
                      r"\] ktest_panic_recursive_lock\+0x"]},
    {"name": "panic-lock-not-held", "append": "ktest=panic_lock_not_held", "expect_status": 253, "ktap": False,
     "must_contain": [r"^PANIC: cpu 0: ktest_panic_lock_not_held: lock 'ktest-unheld' not held by this CPU \(owner -1\)",
                      r"\] ktest_panic_lock_not_held\+0x"]},
    {"name": "panic-double-free", "append": "ktest=panic_double_free", "expect_status": 253, "ktap": False,
     "must_contain": [r"^PANIC: cpu 0: kfree: double free of 0x", r"\] ktest_panic_double_free\+0x"]},
    {"name": "panic-stack-overflow", "append": "ktest=panic_stack_overflow", "expect_status": 253,
     "ktap": False, "must_contain": [r"^PANIC: cpu 0: double fault in the kernel", r"\] recurse_forever"]},
    {"name": "panic-use-after-free", "append": "ktest=panic_use_after_free", "expect_status": 253, "ktap": False,
     "must_contain": [r"^PANIC: cpu 0: kmalloc: use after free of 0x[0-9a-f]+: byte 20 is 0x1",
                      r"\] ktest_panic_use_after_free\+0x"]},
    # The boot CPU's own (idle) stack has a guard page too.
    {"name": "panic-boot-stack-overflow", "smp": 2, "append": "ktest=panic_boot_stack_overflow",
     "expect_status": 253, "ktap": False,
     "must_contain": [r"ktest: cpu 0 runs on its boot stack: overflowing it",
                      r"^PANIC: cpu 0: double fault in the kernel", r"\] recurse_forever"]},
    # Every suite in one boot (ktest=all leaves out the panic suites); each
    # suite has its own scenario in make test, so this one is make soak's.
    {"name": "all-suites", "smp": 4, "timeout": 450, "append": "ktest=all", "soak": True,
     "must_contain": [r"^ok \d+ boot$", r"^ok \d+ sched$", r"^ok \d+ timers$", r"^ok \d+ percpu$"] + _LOCKCHECK_KTEST_REPORT,
     "must_not_contain": [r"Subtest: panic"]},
    {"name": "clocksource-pit", "smp": 2, "append": "clocksource=pit ktest=timers",
     "must_contain": [r"clock: using the PIT \(clocksource=pit"]},
    # On the PIT the timekeeper never stops its tick (reason "clock"), idle
    # or not: the counter wraps every 55 ms.
    {"name": "clocksource-pit-timekeeper", "smp": 2, "ktap": False, "append": "clocksource=pit",
     "command": "sleep 1; cat /proc/tick",
     "must_contain": [r"^kept by: policy tasks rcu timer timekeeping clock cputimer$",
                      r"^\d+ +\d+ \d+ \d+ \d+ \d+ [1-9]\d* \d+$"]},
    # An unknown suite is a failure, not a silent pass.
    {"name": "unknown-suite", "append": "ktest=boot,nonesuch", "ktap": False,
     "expect_status": 1, "must_contain": [r"^not ok 2 nonesuch # no such suite"]},

    # Bad parameters are reported, never silently ignored.
    {"name": "unknown-param", "append": "bogus=1 hz=123 trace=irq,bogus trace_size=3 tick=bogus idle=spin ktest=boot",
     "must_contain": [r'unknown parameter "bogus=1"',
                      r"^cmdline: idle=spin: must be halt, poll or poll:LIST \(e.g. poll:1-3\); idle=halt kept$",
                      # the list itself is tick_policy_names()'s (ktest=tick_policy)
                      r"^cmdline: tick=bogus: no such policy, must be one of [a-z ]*\btask\b[a-z ]*; tick=task kept$",
                      r"hz=123: must be one of 100, 250, 1000",
                      r"trace: trace=irq,bogus: no class named 'bogus' .*tracing stays off",
                      r"trace_size=3: must be a number from 16 to 1048576"],
     "must_not_contain": [r"trace: recording", r"^idle: cpus"]},

    # Machines without an HPET or without ACPI.
    # With the PIT, reading the clock is slow (port I/O under one lock): under
    # TCG the tick misses >10% of periods, so the rate check (ktest=tick) is
    # made with the HPET only; here every CPU boots and timers stay exact.
    {"name": "no-hpet", "qemu": "-machine pc,hpet=off", "append": "ktest=boot,timers",
     "must_contain": [r"clock: no HPET, using the PIT"]},
    {"name": "no-acpi", "qemu": "-machine pc,acpi=off", "smp": 2,
     "append": "ktest=boot",
     "must_contain": [r"acpi: no MADT", r"smp: 1 CPUs online"]},

    # RCU (docs/rcu.md): grace periods, idle CPUs left alone, callbacks,
    # the stall detector, the torture test with one and three tree levels.
    {"name": "rcu", "smp": 4, "append": "ktest=rcu",
     "must_contain": [r"rcu: tree of 1 levels", r"idle cpu 1: 0 IPIs, 0 kicks"]},
    {"name": "rcu-smp8-fanout2", "smp": 8, "append": "rcu_fanout=2 ktest=rcu",
     "must_contain": [r"rcu: tree of 3 levels \(7 nodes\) for 8 CPUs, fanout 2"]},
    {"name": "rcutorture", "smp": 4, "timeout": 120, "append": "ktest=rcutorture",
     "must_contain": [r"rcutorture: grace periods \d+, stalls 0, errors 0, cpus 4",
                      r"rcutorture: Reader Pipe: \d+ \d+ 0 0 0 0 0 0 0 0 0$", r"rcutorture: SUCCESS"]},
    {"name": "rcutorture-smp8-fanout2", "smp": 8, "timeout": 120, "append": "rcu_fanout=2 ktest=rcutorture",
     "must_contain": [r"# rcu: 8 CPUs, fanout 2: 3 levels", r"rcutorture: grace periods \d+, stalls 0, errors 0, cpus 8",
                      r"rcutorture: SUCCESS"]},
    {"name": "rcu-stall", "smp": 4, "append": "rcu_stall_timeout=1 ktest=rcu_stall",
     "must_contain": [r"^rcu: stall: grace period \d+ has run for",
                      r"^rcu: stall: cpu 3 holds up the grace period: dynticks \d+ \(not idle\), irq nesting 0, read nesting 1"],
     "must_not_contain": [r"stall: cpu [012] "]},
    # Callback offload (rcu_nocbs=): CPU 3's callbacks run in rcuo/3 on a
    # housekeeping CPU and never need its tick, also while it is a nohz
    # CPU; the rcu and nohz suites hold with it; torture with 1-3.
    {"name": "rcu-nocbs", "smp": 4, "timeout": 150, "append": "rcu_nocbs=3 ktest=rcu,rcu_nocbs,nohz",
     "must_contain": [r"rcu: callbacks of CPUs 3 offloaded to rcuo kthreads on cpu 0",
                      r"cpu 3 offloaded: 272 callbacks .* its tick: 0 restarts, 0 kept for rcu",
                      r"nohz cpu 3 queued 32 offloaded callbacks: 32 ran .* 0 restarts, 0 kept for rcu, 0 kicks",
                      r"^    ok \d+ offloaded_callbacks_leave_the_tick_stopped$"]},
    {"name": "rcutorture-nocbs", "smp": 4, "timeout": 120, "append": "rcu_nocbs=1-3 ktest=rcutorture",
     "must_contain": [r"rcu: callbacks of CPUs 1-3 offloaded", r"rcutorture: grace periods \d+, stalls 0, errors 0, cpus 4",
                      r"rcutorture: SUCCESS"]},
    # A bad rcu_nocbs= is reported and offloads nothing: bad syntax, every
    # CPU (the last good value wins the parse; rcu_init checks it), and
    # CPUs that are not online.
    {"name": "rcu-nocbs-bad-params", "smp": 2, "append": "rcu_nocbs=2-1 rcu_nocbs=1-x rcu_nocbs=0-1 ktest=rcu",
     "must_contain": [r"rcu_nocbs=2-1: not a CPU list", r"rcu_nocbs=1-x: not a CPU list",
                      r"rcu_nocbs=0-1: would offload every CPU, leaving none to invoke callbacks; ignored"],
     "must_not_contain": [r"offloaded to rcuo"]},
    {"name": "rcu-nocbs-offline", "smp": 2, "ktap": False, "append": "rcu_nocbs=1-5 idle=poll:1-9",
     "command": "awk '$12 == \"yes\" || $12 == \"no\" { print \"cpu\", $1, \"offloaded\", $12 }' /proc/rcu",
     "must_contain": [r"rcu_nocbs: CPU 2-5 not online \(2 CPUs online\)", r"rcu_nocbs=1-5: has CPUs that are not online; ignored",
                      r"^cpu 0 offloaded no\ncpu 1 offloaded no$",
                      r"^cmdline: idle=poll:1-9: CPU 2 is not online: left out$", r"^idle: cpus 1 poll$"],
     "must_not_contain": [r"offloaded to rcuo", r"^idle: cpus .*0"]},
    {"name": "rcu-bad-params", "smp": 2, "append": "rcu_fanout=1 rcu_fanout=65 rcu_stall_timeout=0 ktest=rcu",
     "must_contain": [r"rcu_fanout=1: must be a number from 2 to 64", r"rcu_fanout=65: must be a number from 2 to 64",
                      r"rcu_stall_timeout=0: must be a number from 1 to 300", r"rcu: tree of 1 levels .* fanout 16; stall timeout 21 s"]},
    # The user command, at -smp 8 with a three-level tree.
    {"name": "rcustress-smp8-fanout2", "smp": 8, "ktap": False, "timeout": 120, "append": "rcu_fanout=2",
     "command": "rcustress 3",
     "must_contain": [r"^rcutorture: grace periods [1-9]\d*, stalls 0, errors 0, cpus 8$", r"^rcutorture: SUCCESS$"]},
    {"name": "panic-rcu-unlock", "smp": 2, "append": "ktest=panic_rcu_unlock", "expect_status": 253, "ktap": False,
     "must_contain": [r"^PANIC: cpu 0: assertion failed: rdp->read_nesting > 0"]},
    {"name": "panic-rcu-sleep", "smp": 2, "append": "ktest=panic_rcu_sleep", "expect_status": 253, "ktap": False,
     "must_contain": [r"^PANIC: cpu 0: rcu: schedule\(\) inside an RCU read-side critical section \(nesting 1\)"]},
    {"name": "rcustress-proc", "smp": 4, "ktap": False, "timeout": 120,
     "command": "cat /proc/rcu; echo 2 > /proc/rcustress; s=$?; cat /proc/rcustress; cat /proc/rcu; exit $s",
     "must_contain": [r"^rcutorture: grace periods \d+, stalls 0, errors 0, cpus 4$", r"^rcutorture: SUCCESS$",
                      r"^gps_completed: [1-9]\d*$", r"^stalls: 0$", r"^tree: 1 levels"]},
    # Our programs (user/, musl) and /proc per process: pinning seen by
    # getcpu, taskset -p moving a running task, ps, orphans adopted by
    # init and reaped, and user/system times measured at the hooks.
    {"name": "user-taskset-ps", "smp": 4, "ktap": False, "timeout": 90,
     "command": "taskset -c 2 spin 1; taskset -c 3 spin 6 & p=$!; sleep 0.5; taskset -p -c 1 $p; ps; "
                "grep -e Name -e State -e Cpus_allowed_list -e Nohz /proc/$p/status; "
                "set -- $(cat /proc/$p/stat); u1=${14}; sleep 0.5; set -- $(cat /proc/$p/stat); "
                "[ ${14} -gt $u1 ] && [ ${14} -gt ${15} ] && echo spinner utime grows; wait $p; "
                "readlink /proc/self; cat /proc/cmdline",
     "append": "hz=1000",
     "must_contain": [r"^spin: 1 s, \d+ iterations, 0 syscalls, 0 faults, cpus 2:\d+$",
                      r"^pid \d+'s new affinity list: 1$",
                      r"^ +\d+ root +spin 6$", r"^Name:\tspin$", r"^State:\tR \(running\)$",
                      r"^Cpus_allowed_list:\t1$", r"^Nohz:\t0$", r"^spinner utime grows$",
                      r"^spin: 6 s, \d+ iterations, .*cpus( 1:\d+)( 3:\d+)?$",
                      r"^\d+$", r"^fw_cfg=required hz=1000$"]},
    # /proc as busybox reads it, checked against the Linux host where the
    # values are the same (field names, the mount of /proc, the shape of
    # /proc/loadavg): mount, df, df -a, a block of /proc/cpuinfo per CPU,
    # and top's load average above 0 after two spinners ran through at
    # least one 5 s sample (7 s), with their VSZ shown. /proc/loadavg's
    # last field is the pid handed out last, a reaped child's too.
    {"name": "proc-busybox-views", "smp": 4, "ktap": False, "timeout": 90,
     "command": "mount; df; df -a; awk '$2==\"/proc\" {print $1, $2, $3}' /proc/mounts; "
                "mount | awk '$3==\"/proc\" {print $1, $2, $3, $4, $5}'; "
                "echo cpuinfo $(grep -c ^processor /proc/cpuinfo) nproc $(nproc); "
                "awk -F'\t' '/^$/{exit} {print $1}' /proc/cpuinfo | " + _CPUINFO_FIELDS + "; "
                "sed -E 's/[0-9]+/N/g' /proc/loadavg; cat /proc/loadavg; "
                "sh -c 'echo | cat; read a b c d e < /proc/loadavg; [ \"$e\" -gt $$ ] && echo loadavg names the last pid'; "
                "spin 9 & spin 9 & sleep 7; top -b -n 1 | head -12; cat /proc/loadavg; wait",
     "same_as_host": ["awk '$2==\"/proc\" {print $1, $2, $3}' /proc/mounts",
                      "mount | awk '$3==\"/proc\" {print $1, $2, $3, $4, $5}'",
                      "awk -F'\t' '/^$/{exit} {print $1}' /proc/cpuinfo | " + _CPUINFO_FIELDS,
                      "sed -E 's/[0-9]+/N/g' /proc/loadavg"],
     "must_contain": [r"^tmpfs on / type tmpfs \(rw,relatime\)$",
                      r"^proc on /proc type proc \(rw,nosuid,nodev,noexec,relatime\)$",
                      r"^Filesystem +1K-blocks +Used +Available +Use% +Mounted on\n"
                      r"tmpfs +[1-9]\d* +\d+ +\d+ +\d+% /\nFilesystem",
                      r"^tmpfs +[1-9]\d* +\d+ +\d+ +\d+% /\nproc +0 +0 +0 +0% /proc$",
                      r"^cpuinfo 4 nproc 4$", r"^loadavg names the last pid$",
                      r"^\d+\.\d\d \d+\.\d\d \d+\.\d\d \d+/\d+ \d+$",
                      r"^Load average: (0\.0[1-9]|0\.[1-9]\d|[1-9]\d*\.\d\d) \d+\.\d\d \d+\.\d\d \d+/\d+ \d+$",
                      r"^ +\d+ +\d+ root +R +[1-9]\d* +\d+% +\d+% spin 9$"]},
    {"name": "user-orphans-stime", "smp": 4, "ktap": False, "timeout": 90,
     # The orphan spins 3 s, long past the shell's first look even under a
     # loaded host, and its reaping is awaited (up to 20 s), not timed.
     "command": "sh -c 'spin 3 & echo $! > /tmp/orphan'; sleep 0.3; o=$(cat /tmp/orphan); grep PPid /proc/$o/status; "
                "spin 2 --syscall-every 1 & s=$!; sleep 0.3; set -- $(cat /proc/$s/stat); s1=${15}; sleep 0.5; "
                "set -- $(cat /proc/$s/stat); [ ${15} -gt $s1 ] && echo syscall loop stime grows; wait $s; "
                "for i in $(seq 40); do [ -e /proc/$o ] || break; sleep 0.5; done; "
                "[ -e /proc/$o ] || echo orphan reaped; ls /proc | grep -c '^[0-9]'",
     "must_contain": [r"^PPid:\t1$", r"^syscall loop stime grows$", r"^orphan reaped$",
                      r"^spin: 2 s, (\d+) iterations, \1 syscalls"]},
    # The same static program, glibc and musl, gives the same answers on
    # the host and here; --add puts host files anywhere in the initrd.
    {"name": "abi-probe", "smp": 2, "ktap": False, "timeout": 90,
     "add": ["build/tests-user/abi_probe.glibc:/opt/probe-glibc", "build/tests-user/abi_probe.musl"],
     "command": "/opt/probe-glibc; abi_probe.musl",
     "same_as_host": ["build/tests-user/abi_probe.glibc", "build/tests-user/abi_probe.musl"],
     "must_contain": [r"(?s)abi_probe: done.*abi_probe: done"]},
    # Every syscall badargs knows, given bad arguments: an error, and
    # nothing changed (KTAP from the program itself).
    {"name": "badargs", "smp": 2, "timeout": 90, "add": ["build/tests-user/badargs.musl:/bin/badargs"],
     "command": "badargs"},

    # The event trace (docs/trace.md): a pinned spinner's events in order on
    # its CPU, IPIs received after they are sent, no event of a class that
    # is off; classes changed and the rings cleared through /proc/trace;
    # the converters' output parses (tests/qemu/trace_checks.py).
    {"name": "trace", "smp": 4, "ktap": False, "timeout": 120,
     "append": "trace=sched,user,ipi trace_size=131072",
     "command": trace_checks.COMMAND, "check": trace_checks.check,
     "must_contain": [r"^trace: recording ipi,user,sched, 131072 events per CPU$"]},

    # Hostile user space (docs/reliability.md): every exception a process
    # can raise kills only it, with Linux's signal (the same program passes
    # on the host: host-faults.*); random syscalls from a worker per CPU
    # lose no worker and leak nothing (fixed seed: a failure repeats).
    {"name": "faults", "smp": 2, "timeout": 120, "add": ["build/tests-user/faults.musl:/bin/faults"],
     "command": "faults", "must_contain": [r"^# faults survived: 32 of 32"], "must_not_contain": [r"PANIC"]},
    {"name": "fuzz", "smp": 4, "ktap": False, "timeout": 100, "command": "fuzz 15 1",
     "must_contain": [r"^fuzz: syscalls tried [1-9]\d*:", r"^fuzz: workers \d+ started, \d+ finished, 0 lost",
                      r"^fuzz: nohz races [1-9]\d*: success [1-9]", r"^fuzz: nohz: moved while set 0 ",
                      r"^fuzz: root directory unchanged$", r"^fuzz: PASS$"],
     "must_not_contain": [r"PANIC", r"rcu: stall", r"assertion failed"]},
    # make soak for 30 s (make soak runs it for 600): spinners, sleepers,
    # rcustress, fuzz and pipelines at once; no stall, panic or leak.
    {"name": "soak", "smp": 4, "ktap": False, "timeout": 200, "add": ["tests/soak/soak.sh:/bin/soak"],
     "command": "sh /bin/soak 30",
     "must_contain": [r"^soak: rcustress: [1-9]\d* runs$", r"^soak: fuzz: [1-9]\d* runs$",
                      r"^soak: pipelines: [1-9]\d* rounds$", r"^soak: PASS$"],
     "must_not_contain": [r"rcu: stall", r"PANIC", r"assertion failed", r"^soak: FAIL"]},

    # An empty command line powers off with status 0.
    {"name": "nothing-to-run", "smp": 4, "command": "", "ktap": False,
     "must_contain": [r"nohzk: power-off status=0"]},
    # sched_setaffinity() on children busy in getsid, kill, wait4, fork and
    # /proc opens, and /proc/self/nohz against another process's affinity
    # change (docs/reliability.md): no hang, no panic; passes
    # on the Linux host too ("host-affinity_race" in tests/run).
    dict(_program("affinity-race", "affinity_race"), smp=4, must_not_contain=[r"PANIC", r"assertion failed"]),
    dict(_program("affinity-race-glibc", "affinity_race", "glibc"), smp=4,
         must_not_contain=[r"PANIC", r"assertion failed"]),
    # Every writable /proc file takes a write whole or refuses it whole:
    # over-long (EINVAL), zero-length, bad buffers (EFAULT) change nothing
    # (tests/user/proc_writes.c; on the Linux host its cases skip).
    _program("proc-writes", "proc_writes"),
    _program("proc-writes-glibc", "proc_writes", "glibc"),
    # VmSize and VmRSS count the address space: mapped pages, and those
    # not the zero page (tests/user/proc_rss.c; a range on the host).
    _program("proc-rss", "proc_rss"),
    _program("proc-rss-glibc", "proc_rss", "glibc"),
    # What rt-tests and libnuma read at start-up, one boot per libc for the
    # three programs (make test's time): /sys's CPU and node files and
    # Mems_allowed, /sys refusing every change (tests/user/sysfs.c), the
    # memory policy calls on one node (mempolicy.c), /dev/cpu_dma_latency
    # (cpu_latency.c). The musl boot has nohz_full=1 for sysfs's list.
    _startup_programs("rt-startup", "musl", "nohz_full=1"),
    _startup_programs("rt-startup-glibc", "glibc", ""),
    # /proc/PID files, getsid, kill and sched_getaffinity of processes that
    # are reaped while they are read; passes on the Linux host too.
    dict(_program("proc-reap-race", "proc_reap_race"), smp=4, must_not_contain=[r"PANIC", r"assertion failed"]),
    dict(_program("proc-reap-race-glibc", "proc_reap_race", "glibc"), smp=4,
         must_not_contain=[r"PANIC", r"assertion failed"]),
    # RFLAGS bits set with popf before system calls (TF, NT, AC, DF, IOPL,
    # ID): every call works and the flags after it are Linux's.
    _program("entry-flags", "entry_flags"),
    _program("entry-flags-glibc", "entry_flags", "glibc"),
    # Returns to user mode aimed where they cannot go: the last page below
    # 2^47 is never mapped; bad handler addresses and sigreturn frames
    # kill only the program, with SIGSEGV.
    _program("canonical", "canonical"),
    _program("canonical-glibc", "canonical", "glibc"),
    # The bad iret fixup's frame: a fault of the iretq to ring 3 becomes the
    # program's fault at the address it was returning to.
    {"name": "entry", "smp": 1, "append": "ktest=entry"},
    # Symbolic links: 40 followed in one lookup, the 41st ELOOP, however
    # they chain or nest; readlink, lstat and O_NOFOLLOW; targets that are
    # chains of links nested three deep answer ELOOP (they froze the
    # machine: 2,048^3 links under the file-system lock). Both libcs;
    # passes on the Linux host too ("host-symlinks" in tests/run).
    _program("symlinks", "symlinks"),
    _program("symlinks-glibc", "symlinks", "glibc"),
    # munmap, mprotect and mmap(MAP_FIXED) over ranges of every size, with
    # Linux's errors; a range costs what is mapped in it, not its length
    # (munmap of 2^46 bytes walked every page: about 1,000 s). Both libcs;
    # passes on the Linux host too ("host-mm_ranges" in tests/run).
    _program("mm-ranges", "mm_ranges"),
    _program("mm-ranges-glibc", "mm_ranges", "glibc"),
    # The stack is RLIMIT_STACK, as on Linux: a 1 MiB recursion lives; a
    # touch at the limit's last byte lives, one below is SIGSEGV (8 MiB,
    # 1 MiB, 64 KiB, 40 MiB set before execve); a limit lowered later
    # stops the growth; mlockall leaves the reservation alone. Both libcs;
    # passes on the Linux host too ("host-stack_limit" in tests/run).
    _program("stack-limit", "stack_limit"),
    _program("stack-limit-glibc", "stack_limit", "glibc"),
    # sigaltstack, Linux's answers (EINVAL, ENOMEM, EPERM, EFAULT);
    # SA_ONSTACK handlers on it, nested ones never past its bottom;
    # SS_AUTODISARM; a stack overflow's SIGSEGV caught on it; bad stacks
    # (kernel, non-canonical, unmapped, wrapping) kill at delivery. Both
    # libcs; passes on the Linux host too ("host-sigaltstack" in tests/run).
    _program("sigaltstack", "sigaltstack"),
    _program("sigaltstack-glibc", "sigaltstack", "glibc"),
    # SIGKILL ends a process in any system call: blocked on a full pipe,
    # in a readv of gigabytes from /dev/urandom, getrandom, munmap of 2^46
    # bytes. Both libcs; passes on the Linux host too ("host-killable" in
    # tests/run).
    _program("killable", "killable"),
    _program("killable-glibc", "killable", "glibc"),
    # A zombie is still a process: kill() (its pid or its group) and
    # sched_{get,set}affinity() find it until it is reaped, as on Linux.
    _program("zombies", "zombies"),
    _program("zombies-glibc", "zombies", "glibc"),
    # The vDSO (docs/user-space.md, "The vDSO"): AT_SYSINFO_EHDR, the
    # symbols at LINUX_2.6, each call between two system calls' answers,
    # getcpu on each CPU, no reading behind another CPU's; a nohz task's
    # million clock reads enter the kernel 0 times; unmapped it is
    # SIGSEGV, a fork keeps it unmapped, an exec maps it again; written,
    # only the writer's copy changes. With tsc=unstable every read is a
    # system call. Passes on the Linux host too ("host-vdso" in tests/run).
    # musl, static glibc and dynamic glibc (Debian's loader) in one boot,
    # to save make test two boots.
    {"name": "vdso", "smp": 2, "timeout": 150, "debian": True,
     "add": ["build/tests-user/vdso.musl:/bin/vdso-test", "build/tests-user/vdso.glibc:/bin/vdso-glibc-test",
             "build/tests-user/vdso.dyn:/bin/vdso-dyn-test"],
     "command": "vdso-test && vdso-glibc-test && vdso-dyn-test"},
    dict(_program("vdso-tsc-unstable", "vdso", "glibc"), append="tsc=unstable"),
    # futex(2) alone and with fork, vfork and signals: every operation's
    # errors, timeouts and clocks, EINTR and restarts, keys after fork,
    # WAKE_OP on the word, the PI protocol in the word, the robust-list walk
    # at exit and exec with its bound (docs/futex.md). Both libcs; passes on
    # the Linux host too ("host-futex" in tests/run).
    _program("futex", "futex"),
    _program("futex-glibc", "futex", "glibc"),
    # futexes between threads: wakes by count, in order and by bitset,
    # requeue and WAKE_OP with waiters, a wake racing the wait, a ping-pong
    # across two CPUs, a signal, an affinity change and an unmap during a
    # wait, the PI hand-over at unlock and at the owner's death, robust and
    # PI mutexes, condition variables, joins. Both libcs; passes on the
    # Linux host too ("host-futex_threads" in tests/run).
    _program("futex-threads", "futex_threads"),
    _program("futex-threads-glibc", "futex_threads", "glibc"),
    # Bad arguments to clone, clone3, futex and pread64/pwrite64 from
    # threads: clone3 sizes and exit_signal, CLONE_SETTLS above user space
    # (EPERM), SETTID words at kernel addresses, tgkill and REQUEUE at an
    # exiting thread, futex on a page being unmapped, exit_group racing
    # execve, 2000 threads. Both libcs; passes on the Linux host too
    # ("host-thread_edges" in tests/run).
    _program("thread-edges", "thread_edges"),
    _program("thread-edges-glibc", "thread_edges", "glibc"),

    # The lock check (docs/reliability.md, section 4): a lock held with
    # interrupts off past the bound is reported by its waiter, with the
    # holder's backtrace taken by NMI, and the interrupts-off section by
    # the holder's release.
    {"name": "lockcheck", "smp": 4, "timeout": 120, "append": "ktest=lockcheck",
     "must_contain": _LOCKCHECK_KTEST_REPORT},
    # A lock never released: reported, then a panic past the second
    # bound, so that a hang ends with PANIC and 253, not a timeout.
    {"name": "panic-lockcheck", "smp": 2, "timeout": 150, "append": "ktest=panic_lockcheck",
     "expect_status": 253, "ktap": False,
     "must_contain": [r"^lockcheck: cpu 0 waits for lock 'ktest-forever' .*: held by cpu 1, "
                      r"taken at lockcheck_hold_for_ever\+0x",
                      r"^lockcheck: cpu 0, the waiter:\n" + _BACKTRACE_TO % "lockcheck_wait_for_ever",
                      r"^lockcheck: cpu 1 at the NMI:\n" + _BACKTRACE_TO % "lockcheck_hold_for_ever",
                      r"^lockcheck: end of report; cpu 0 goes on waiting",
                      r"^PANIC: cpu 0: lockcheck: cpu 0 waited \d+ cycles for lock 'ktest-forever' .*held by cpu 1, "
                      r"taken at lockcheck_hold_for_ever\+0x"]},
    # The clocksource watchdog (docs/tick.md): a drift marks a watchdog
    # once; with 16 CPUs ticking on a loaded host, the kernel's TSC stays
    # in step with the HPET (skewed readings are skipped, not reported).
    {"name": "tsc-watchdog", "smp": 16, "timeout": 180, "append": "tick=periodic ktest=tsc_watchdog",
     "must_not_contain": [r"tsc marked unstable"]},
    # The measuring tools at a CPU count whose /proc/interrupts rows are
    # long (64 CPUs: 700 characters): the last CPU's ticks are seen, not
    # a false 0 (docs/reliability.md).
    {"name": "tools-smp64", "smp": 64, "ktap": False, "timeout": 300, "append": "hz=1000",
     "command": "taskset -c 63 spin 2; osnoise --cpu 63 --duration 1 --warmup-ms 200 --json",
     "must_contain": [r"^spin: 2 s, \d+ iterations, 0 syscalls, 0 faults, cpus 63:\d+\n"
                      r"spin: cpu 63 after the first second: LOC [1-9]\d\d+, RES \d+, CAL \d+, NHZ \d+, all [1-9]\d\d+$",
                      r'^\{"tool": "osnoise", "cpu": 63, .*"interrupts_total": [1-9]\d\d+, "interrupts": \{"LOC": [1-9]\d\d+, ']},
    # A nohz_full= list longer than 63 characters is read whole (at 255
    # CPUs a list of every other CPU has 440).
    {"name": "nohz-full-long-list", "smp": 2, "append": "tick=full nohz_full=" + ",".join(["1"] * 40) + " ktest=boot",
     "must_contain": [r"^nohz_full: cpus 1$"], "must_not_contain": [r"nohz_full=.*longer than"]},
    # The largest machine (255 CPUs, the xAPIC limit; docs/smp.md), booted
    # once: the last CPU's nohz task takes no interrupt after its first
    # second, counted by the kernel (spin's /proc/interrupts figures, the
    # /proc/tick count at both ends of the window) and by QEMU itself
    # (tools/run/boot --witness: the interrupts QEMU's vCPU 254 took between
    # the two lines spin --mark wrote from it); the same run without
    # --nohz first shows every one of those counts non-zero. Then
    # osnoise, both ways, on the same CPU.
    {"name": "nohz-smp255", "smp": 255, "ktap": False, "timeout": 600, "witness": True,
     "command": "nproc; head -1 /proc/interrupts; taskset -c 255 true || echo cpu 255 refused; "
                "taskset -c $(seq -s, 0 2 254) grep Cpus_allowed /proc/self/status; "
                "taskset -c 254 spin 2 --mark; taskset -c 254 spin 3 --nohz --mark; "
                "osnoise --cpu 254 --duration 1 --warmup-ms 200 --json; osnoise --cpu 254 --nohz --duration 2 --json",
     "must_contain": [r"^smp: 255 CPUs online$", r"^cpu 254: online, APIC ID 254$",
                      r"^rcu: tree of 2 levels \(17 nodes\) for 255 CPUs, fanout 16",
                      r"^255$", r"^ +CPU0 +CPU1 .* CPU253 +CPU254 *$", r"^cpu 255 refused$",
                      r"^Cpus_allowed:\t(55555555,){7}55555555\nCpus_allowed_list:\t0,2,4,6,.*,252,254$",
                      r"^spin: witness open: cpu 254, ticks (\d+)\nspin: witness close: cpu 254, ticks (?!\1\n)\d+\n"
                      r"spin: 2 s, \d+ iterations, 0 syscalls, 0 faults, cpus 254:\d+\n"
                      r"spin: cpu 254 after the first second: LOC [1-9]\d*, RES \d+, CAL \d+, NHZ \d+, all [1-9]\d*$",
                      r"^spin: witness open: cpu 254, ticks (\d+)\nspin: witness close: cpu 254, ticks \1\n"
                      r"spin: 3 s, \d+ iterations, 0 syscalls, 0 faults, nohz, cpus 254:\d+\n"
                      r"spin: cpu 254 after the first second: LOC 0, RES 0, CAL 0, NHZ 0, all 0$",
                      r"^witness: cpu 254 window 1: timer [1-9]\d*, all [1-9]\d*, exceptions 0 ",
                      r"^witness: cpu 254 window 2: timer 0, all 0, exceptions 0$",
                      r'^\{"tool": "osnoise", "cpu": 254, "nohz": false, .*"interrupts_total": [1-9]\d*, '
                      r'"interrupts": \{.*"LOC": [1-9]\d*, ',
                      r'^\{"tool": "osnoise", "cpu": 254, "nohz": true, ' + _osnoise_nothing],
     "must_not_contain": [r"^witness: cpu (?!254 window [12]:)", r"PANIC", r"rcu: stall"]},
    # Conformance, call by call: each system call at the edges of its
    # arguments, result and errno as Linux gives them (the same programs
    # pass on the Linux host first: host-conform_*); a difference nohzk
    # keeps is a SKIP that says why (tests/user/conform.h); both libcs.
    _program("conform-io", "conform_io"),
    _program("conform-io-glibc", "conform_io", "glibc"),
    _program("conform-fs", "conform_fs"),
    _program("conform-fs-glibc", "conform_fs", "glibc"),
    _program("conform-mm", "conform_mm"),
    _program("conform-mm-glibc", "conform_mm", "glibc"),
    # The memory regions (kernel/mm/region.c): /proc/self/maps, splits and
    # merges, PROT_NONE and the fault codes, a sibling thread's races.
    _program("regions", "regions"),
    _program("regions-glibc", "regions", "glibc"),
    _program("conform-proc", "conform_proc"),
    _program("conform-proc-glibc", "conform_proc", "glibc"),
    _program("conform-exec", "conform_exec"),
    _program("conform-exec-glibc", "conform_exec", "glibc"),

    # Each class of fuzz attack alone (fuzz --only CLASS, docs/reliability.md
    # section 2) for 8 s, seed 1, one after the other in one boot: each time
    # the kernel survives, no worker is lost and no child stuck, nothing
    # leaks, and the class did what it is for (_fuzz_class_checks). make
    # soak runs each class longer, in turn, under load.
    {"name": "fuzz-classes", "smp": 4, "ktap": False, "timeout": 300,
     "command": "for c in %s; do fuzz 8 1 --only $c || echo \"fuzz-classes: $c failed\"; done"
                % " ".join(cls for cls, _ in _FUZZ_CLASS_CHECKS),
     "check": lambda out: _fuzz_class_checks(out),
     "must_not_contain": [r"PANIC", r"rcu: stall", r"assertion failed", r"^fuzz-classes: \w+ failed"]},

    # The thread classes of fuzz together (one scenario for five classes,
    # make test's time being short; each is in make soak's rotation alone):
    # touchers catch SIGSEGV from pages a sibling unmaps, futex calls from
    # several threads at once, a thread's end wakes the waiter on its
    # clear_child_tid word, signals interrupt futex waits, clone and
    # clone3 with random flags are refused (EINVAL) or done.
    {"name": "fuzz-threads", "smp": 4, "ktap": False, "timeout": 100,
     "command": "fuzz 15 1 --only thread-unmap,thread-futex,thread-exit,thread-signal,clone",
     "must_contain": [r"^fuzz: classes thread-unmap,thread-futex,thread-exit,thread-signal,clone$",
                      r"^fuzz: workers \d+ started, [1-9]\d* finished, 0 lost",
                      r"^fuzz: class thread-unmap: faults caught [1-9]",
                      r"^fuzz: class thread-unmap: children [1-9]\d*: exited [1-9]\d*, .*killed by signals: (none|Killed \d+);",
                      r"^fuzz: class thread-futex: [1-9]\d* bursts, calls [1-9]\d*: success [1-9].* EFAULT [1-9]\d* EINVAL [1-9]",
                      r"^fuzz: class thread-exit: [1-9]\d* bursts, calls [1-9]\d*: success [1-9]",
                      r"^fuzz: class thread-exit: words cleared by the exit [1-9]",
                      r"^fuzz: class thread-signal: [1-9]\d* bursts, calls [1-9]\d*: success [1-9].* EINTR [1-9]",
                      r"^fuzz: class thread-signal: handlers run [1-9]",
                      r"^fuzz: class clone: [1-9]\d* bursts, calls [1-9]\d*: success [1-9].* EINVAL [1-9]",
                      r"^fuzz: root directory unchanged$", r"^fuzz: PASS$"],
     "must_not_contain": [r"PANIC", r"rcu: stall", r"assertion failed"]},

    # nohz_full_init() asks the policy whether it reads nohz_full=
    # (struct tick_policy's uses_nohz_full, docs/tick-policy.md): tick=full
    # without the list, and the list under tick=task, are each reported,
    # and tick=full with the list is not.
    {"name": "nohz-full-policy-without-list", "smp": 2, "append": "tick=full ktest=boot",
     "must_contain": [r"^nohz_full: tick=full without nohz_full=: busy CPUs keep their tick$"]},
    {"name": "nohz-full-list-without-policy", "smp": 2, "append": "tick=task nohz_full=1 ktest=boot",
     "must_contain": [r"^nohz_full=1: takes effect with tick=full \(now tick=task\)$", r"^nohz_full: cpus 1$"]},
    # The last boot also runs ktest=rt_tick: the scheduler's tick
    # dependency with SCHED_FIFO and SCHED_RR tasks (Linux 6.1's
    # sched_can_stop_tick rules, docs/realtime.md), and the tick stopping
    # where the rules let it on nohz_full CPU 1.
    {"name": "nohz-full-policy-and-list", "smp": 2, "append": "tick=full nohz_full=1 ktest=boot,rt_tick",
     "must_contain": [r"^nohz_full: cpus 1$"],
     "must_not_contain": [r"takes effect with", r"without nohz_full="]},
    # Tick policies registered with TICK_POLICY: the list, its order, the
    # isolation rule of each, and any new policy's own rule.
    {"name": "tick-policy", "smp": 2, "append": "ktest=tick_policy"},
    # tick=budget, found by name with no edit but its own file: in force,
    # listed, and a nohz task alone stops its tick under it.
    {"name": "tick-policy-budget", "smp": 4, "ktap": False, "timeout": 120, "append": "hz=1000 tick=budget",
     "command": "cat /proc/sys/kernel/tick_policy; grep -c '^budget ' /proc/sys/kernel/tick_policies; "
                "taskset -c 3 spin 3 --nohz",
     "must_contain": [r"^budget$", r"^1$",
                      r"^spin: 3 s, \d+ iterations, 0 syscalls, 0 faults, nohz, cpus 3:\d+\n"
                      r"spin: cpu 3 after the first second: LOC [0-2], RES 0, CAL 0, NHZ 0, all [0-2]$"]},

    # The policy laboratory's tools, short (docs/noise.md): noise-bench under
    # a ticking policy, where the guest's count of osnoise's window must lie
    # between the witness's inner and outer counts (--check fails on a
    # DISAGREE line); compare-linux: Debian's kernel fetched (a failed
    # download fails), booted with and without nohz_full=, against tick=task;
    # make bench's probes come out of both kernels (present, never timed).
    {"name": "noise-bench-short", "ktap": False, "timeout": 400,
     "tool": ["tools/measure/noise-bench", "--policies", "periodic", "--scenarios", "alone", "--seconds", "3", "--runs", "1",
              "--check", "--out", "build/test-logs/noise-bench-short"],
     "must_contain": [r"^periodic +alone +1 +yes +[1-9]\d* +[1-9]\d* +[1-9]\d* +[1-9]\d* ",
                      r"^periodic +\d+ +\d+ +\d+\.\d\d$", r"^written: .*noise-bench-alone\.svg$"],
     "must_not_contain": [r"^DISAGREE", r"noise-bench: .*(lost|failed|exited)"]},
    {"name": "compare-linux-short", "ktap": False, "timeout": 900,
     "tool": ["tools/measure/compare-linux", "--policies", "task", "--scenarios", "alone", "--seconds", "3", "--check",
              "--probes", "3", "--out", "build/test-logs/compare-linux-short"],
     "must_contain": [r"^compare-linux: linux-image-6\.1\.0-\d+-amd64_.*: CONFIG_NO_HZ_FULL=y, CONFIG_HZ=\d+$",
                      r"^task +alone +1 +yes +0 +0 +0 +0 ", r"^written: .*compare-linux-alone\.svg$",
                      r"^probes: task: getppid_cpu3 getppid_cpu0 pipe_cpu3 pipe_cpu0 spawn clock_gettime thread "
                      r"futex_cpu0_cpu1 present and positive$",
                      r"^probes: linux-isolated: getppid_cpu3 getppid_cpu0 pipe_cpu3 pipe_cpu0 spawn clock_gettime "
                      r"thread futex_cpu0_cpu1 present and positive$"],
     "must_not_contain": [r"^DISAGREE"],
     "check": _compare_linux_alone},

    # Copy-on-write fork (docs/fork.md): each side keeps its own view
    # (passes on the Linux host too, "host-cow_fork" in tests/run), and
    # /proc/vmstat shows a fork copies page tables, not data, one write
    # copies one page, a read none, and a fork loop leaks no page.
    _program("cow-fork", "cow_fork"),
    _program("cow-fork-glibc", "cow_fork", "glibc"),

    # Lazy zeroing (docs/fork.md): fresh anonymous memory is the shared
    # zero page until written (passes on the Linux host too,
    # "host-lazy_zero"); /proc/vmstat shows a mapping zeroes no page, a
    # write one, and /proc/meminfo that unmapping gives every page back.
    _program("lazy-zero", "lazy_zero"),
    _program("lazy-zero-glibc", "lazy_zero", "glibc"),
    # execve maps the file's pages (docs/fork.md, "execve maps the file"):
    # a running program keeps its view of a file written, truncated or
    # unlinked under it, holes read as zeros, and /proc/vmstat shows a
    # spawn maps the file's pages and copies only a few.
    _program("exec-pages", "exec_pages"),
    _program("exec-pages-glibc", "exec_pages", "glibc"),

    # execve's arguments, failures and scripts (docs/user-space.md,
    # "execve"): Linux's limits (a quarter of RLIMIT_STACK in [128 KiB,
    # 6 MiB], 32 pages a string), every failure returns to an intact
    # caller, a vfork child's brk and mmap are the parent's, a missing
    # interpreter is ENOENT, "#!" scripts run (passes on the Linux host,
    # "host-exec_limits").
    _program("exec-limits", "exec_limits"),
    _program("exec-limits-glibc", "exec_limits", "glibc"),
    # Dynamically linked programs, in one boot for make test's time:
    # tests/user/auxv.c's three builds (static musl, static glibc, and a
    # PIE started by Debian's loader), then Debian's rt-tests hackbench
    # with pipes, as processes and as threads, and with socket pairs (its
    # default): its summary, not its time; signaltest (sigwait between two
    # threads): each thread's count of 100 loops.
    {"name": "dynamic", "smp": 2, "timeout": 120, "debian": True,
     "add": ["build/tests-user/auxv.%s:/bin/auxv-%s" % (libc, libc) for libc in ("musl", "glibc", "dyn")],
     "command": "auxv-musl; echo musl=$?; auxv-glibc; echo glibc=$?; auxv-dyn; echo dyn=$?; "
                "hackbench -p -l 10 -g 2 -f 2; echo process=$?; hackbench -T -p -l 10 -g 1 -f 3; echo threads=$?; "
                "hackbench -l 10 -g 2 -f 2; echo sockets=$?; signaltest -l 100 -t 2 -q; echo signaltest=$?; "
                "cyclictest -m -q -l 100 -t 1 -a 1 -p 80 -i 1000; echo cyclictest=$?",
     "must_contain": [r"^musl=0\r?$", r"^glibc=0\r?$", r"^dyn=0\r?$",
                      r"^ok 5 interpreters_interpreter_is_ignored\r?$",
                      r"^Running in process mode with 2 groups using 4 file descriptors each \(== 8 tasks\)\r?$",
                      r"^Running in threaded mode with 1 groups using 6 file descriptors each \(== 6 tasks\)\r?$",
                      r"^Each sender will pass 10 messages of 100 bytes\r?$",
                      r"^Time: \d+\.\d{3}\r?\nprocess=0\r?$", r"^Time: \d+\.\d{3}\r?\nthreads=0\r?$",
                      r"^Time: \d+\.\d{3}\r?\nsockets=0\r?$",
                      r"^T: 0 \( *\d+\) P: 0 C: +100 Min: *\d+ Act: *\d+ Avg: *\d+ Max: *\d+\r?$",  # fields run together past 5 digits
                      r"^T: 1 \( *\d+\) P: 0 C: +100 Min: .*\r?\nsignaltest=0\r?$",
                      # mlockall, a FIFO thread, shm_open()'s statistics, mlock: no warning (must_not_contain)
                      r"^T: 0 \( *\d+\) P:80 I:1000 C: +100 Min: .*\r?\ncyclictest=0\r?$"],
     "must_not_contain": [r"killed by signal", r"[Ee]rror"],
     "check": lambda out: [] if len(re.findall(r"^KTAP version 1", out, re.M)) == 3
                          else ["want three KTAP documents, one a build"]},
    # Debian's oslat, unmodified, on isolated CPUs 1-3, as a normal task and
    # at SCHED_FIFO 1 (-f 1; nohzk has no real-time throttling to turn
    # off): each run exits 0 and its own --json report has one thread per
    # CPU, each with samples (_oslat_report_checks). Never its times.
    {"name": "oslat", "smp": 4, "debian": True, "ktap": False, "timeout": 150, "append": "tick=full nohz_full=1-3",
     "command": "oslat -c 1-3 -D 1 -q --json=/tmp/normal.json; echo status=$?; "
                "oslat -c 1-3 -D 1 -q -f 1 --json=/tmp/fifo.json; echo status=$?; "
                "echo ==normal; cat /tmp/normal.json; echo ==fifo; cat /tmp/fifo.json; echo ==end",
     "check": lambda out: _oslat_report_checks(out)},
    # Allocations failing at random in execve of a dynamic program and in
    # Debian's loader after it: each run ends (ENOMEM, 126 or 127 from
    # the shell, or a clean death), and the kernel does not panic (it did:
    # docs/reliability.md, section 6).
    {"name": "dynamic-fail-alloc", "smp": 2, "debian": True, "ktap": False, "append": "fail_alloc=5",
     "command": "for i in $(seq 30); do hackbench -p -l 1 -g 1 -f 1 >/dev/null 2>&1; echo -n \"$? \"; done; "
                "echo; grep faults_injected /proc/vmstat",
     "must_contain": [r"^faults_injected [1-9]\d*\r?$"],
     "must_not_contain": [r"PANIC"]},
    # No register survives execve: general, x87, SSE (host-exec_state).
    _program("exec-state", "exec_state"),
    _program("exec-state-glibc", "exec_state", "glibc"),
    # busybox's shell: a glob of 300 files is one exec (E2BIG before).
    {"name": "exec-busybox-glob", "smp": 2, "ktap": False,
     "command": "mkdir /tmp/g && cd /tmp/g && i=0; while [ $i -lt 300 ]; do : > file$i; i=$((i+1)); done; "
                "echo files $(/bin/busybox ls file* | wc -l)",
     "must_contain": [r"^files 300$"],
     "must_not_contain": [r"Argument list too long"]},
]
