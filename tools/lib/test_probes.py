"""Self-test of tools/lib/probes.py (the probe lines of syscall_bench
--probes, the ratio, the table make bench prints) and of the probes'
place in noiselab's session and compare-linux's QEMU line:
python3 -m unittest tools/lib/test_probes.py (run by tests/run)."""

import importlib.machinery
import importlib.util
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import noiselab  # noqa: E402
import probes  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def line(name, median, low=None, high=None, rounds=11, per_round=200, extra=""):
    return "probe: %s ns_median=%d ns_min=%d ns_max=%d rounds=%d per_round=%d%s\n" % (
        name, median, median if low is None else low, median if high is None else high, rounds, per_round, extra)


def output(medians, skip=()):
    """A boot's output with one line per probe of medians, but skip."""
    text = "nohzk: booting\r\n"
    for name, median in medians.items():
        if name not in skip:
            text += line(name, median, median - 1, median + 5, extra=" nohz=1" if name == "getppid_cpu3" else "")
    return text + "nohzk: power-off status=0\n"


NOHZK = {"getppid_cpu3": 1800, "getppid_cpu0": 1000, "pipe_cpu3": 90000, "pipe_cpu0": 50000, "spawn": 48000000}
LINUX = {"getppid_cpu3": 900, "getppid_cpu0": 1000, "pipe_cpu3": 30000, "pipe_cpu0": 25000, "spawn": 12000000}
NOHZK.update({"clock_gettime": 60, "thread": 90000, "futex_cpu0_cpu1": 40000})
LINUX.update({"clock_gettime": 600, "thread": 45000, "futex_cpu0_cpu1": 80000})
ROWS = slice(2, 2 + len(probes.PROBES))
LOADS = [("before", (1.5, 1.25, 1.0)), ("after", (2.0, 1.5, 1.0))]


class ParseTest(unittest.TestCase):

    def test_every_probe_in_table_order(self):
        found = probes.parse(output(NOHZK))
        self.assertEqual(list(found), probes.PROBES)
        self.assertEqual(found["getppid_cpu3"], {"ns_median": 1800, "ns_min": 1799, "ns_max": 1805, "rounds": 11,
                                                 "per_round": 200, "nohz": 1})

    def test_a_missing_probe_is_an_error(self):
        for name in probes.PROBES:
            with self.assertRaisesRegex(probes.ProbeError, "no probe line for %s$" % name):
                probes.parse(output(NOHZK, skip=(name,)))

    def test_no_probes_at_all(self):
        with self.assertRaisesRegex(probes.ProbeError, "no probe line for getppid_cpu3, getppid_cpu0, "):
            probes.parse("Kernel panic\n")

    def test_a_zero_is_an_error_not_a_time(self):
        text = output(NOHZK, skip=("spawn",)) + line("spawn", 0)
        with self.assertRaisesRegex(probes.ProbeError, "spawn: ns_median, ns_min, ns_max missing or not positive"):
            probes.parse(text)

    def test_a_missing_field_is_an_error(self):
        text = output(NOHZK, skip=("pipe_cpu0",)) + "probe: pipe_cpu0 ns_median=5 ns_min=4 ns_max=6 rounds=3\n"
        with self.assertRaisesRegex(probes.ProbeError, "pipe_cpu0: per_round missing"):
            probes.parse(text)

    def test_a_garbled_field_is_an_error(self):
        text = output(NOHZK, skip=("pipe_cpu0",)) + line("pipe_cpu0", 7).replace("ns_max=7", "ns_max=-7")
        with self.assertRaisesRegex(probes.ProbeError, "pipe_cpu0: 'ns_max=-7' is not key=number"):
            probes.parse(text)

    def test_a_median_outside_its_rounds_is_an_error(self):
        text = output(NOHZK, skip=("spawn",)) + line("spawn", 50, 60, 70)
        with self.assertRaisesRegex(probes.ProbeError, "spawn: the median lies outside"):
            probes.parse(text)

    def test_a_probe_printed_twice_is_an_error(self):
        with self.assertRaisesRegex(probes.ProbeError, "spawn printed twice"):
            probes.parse(output(NOHZK) + line("spawn", 5))

    def test_only_the_probes_wanted(self):
        found = probes.parse(line("pipe_cpu0", 7), wanted=["pipe_cpu0"])
        self.assertEqual(list(found), ["pipe_cpu0"])

    def test_the_command(self):
        self.assertEqual(probes.command(), "syscall_bench --probes")
        self.assertEqual(probes.command(2), "syscall_bench --probes --rounds 2")


class ThreadProbesTest(unittest.TestCase):

    def test_the_thread_probes_are_wanted(self):
        for name in ("thread", "futex_cpu0_cpu1"):
            with self.assertRaisesRegex(probes.ProbeError, "no probe line for %s$" % name):
                probes.parse(output(NOHZK, skip=(name,)))

    def test_the_real_lines_parse(self):
        text = ("probe: thread ns_median=34599 ns_min=34057 ns_max=1119445 rounds=3 per_round=20\n"
                "probe: futex_cpu0_cpu1 ns_median=71268 ns_min=61268 ns_max=188250 rounds=3 per_round=100\n")
        found = probes.parse(text, wanted=["thread", "futex_cpu0_cpu1"])
        self.assertEqual(found["futex_cpu0_cpu1"]["per_round"], 100)
        self.assertEqual(found["thread"]["ns_median"], 34599)


class RatioTableTest(unittest.TestCase):

    def test_ratio_is_ours_over_theirs(self):
        nohzk, linux = probes.parse(output(NOHZK)), probes.parse(output(LINUX))
        self.assertEqual(probes.ratio(nohzk["getppid_cpu3"], linux["getppid_cpu3"]), 2.0)
        self.assertEqual(probes.ratio(nohzk["spawn"], linux["spawn"]), 4.0)

    def test_no_ratio_of_a_zero(self):
        with self.assertRaises(probes.ProbeError):
            probes.ratio({"ns_median": 5}, {"ns_median": 0})
        with self.assertRaises(probes.ProbeError):
            probes.ratio({"ns_median": 0}, {"ns_median": 5})

    def test_table_side_by_side(self):
        lines = probes.table(probes.parse(output(NOHZK)), probes.parse(output(LINUX)), None, LOADS)
        self.assertRegex(lines[0], r"^probe +nohzk +Linux +nohzk/Linux$")
        rows = {row.split()[0]: row for row in lines[ROWS]}
        self.assertEqual(list(rows), probes.PROBES)
        self.assertRegex(rows["getppid_cpu3"], r"^getppid_cpu3 +1800 \[1799-1805\] ns +900 \[899-905\] ns +2\.00$")
        self.assertRegex(rows["pipe_cpu3"], r" 90\.0 \[90\.0-90\.0\] us +30\.0 \[30\.0-30\.0\] us +3\.00$")
        self.assertRegex(rows["spawn"], r" 48\.0 \[48\.0-48\.0\] ms +12\.0 \[12\.0-12\.0\] ms +4\.00$")
        self.assertRegex(rows["thread"], r"^thread +90\.0 \[90\.0-90\.0\] us +45\.0 \[45\.0-45\.0\] us +2\.00$")
        self.assertRegex(rows["futex_cpu0_cpu1"], r"^futex_cpu0_cpu1 +40\.0 \[40\.0-40\.0\] us +80\.0 \[80\.0-80\.0\] us"
                         r" +0\.50$")
        self.assertIn("host load average (1, 5, 15 min): before 1.50 1.25 1.00; after 2.00 1.50 1.00", lines)
        self.assertFalse([row for row in lines if row.startswith("Linux: not measured")])

    def test_table_without_linux_says_why_and_prints_no_ratio(self):
        lines = probes.table(probes.parse(output(NOHZK)), None, "apt-get download failed", LOADS)
        rows = lines[ROWS]
        for row in rows:
            self.assertRegex(row, r"^\w+ +[\d.]+ \[[\d.]+-[\d.]+\] [mun]s +-$")
        self.assertEqual(lines[-1], "Linux: not measured: apt-get download failed")

    def test_table_without_linux_and_without_a_reason_is_an_error(self):
        with self.assertRaises(probes.ProbeError):
            probes.table(probes.parse(output(NOHZK)), None, None, LOADS)

    def test_spread_in_the_medians_unit(self):
        self.assertEqual(probes.cell_text({"ns_median": 12000, "ns_min": 9000, "ns_max": 120000}),
                         "12.0 [9.0-120.0] us")

    def test_presence_line_names_no_time(self):
        self.assertEqual(probes.presence_line("task", probes.parse(output(NOHZK))),
                         "probes: task: getppid_cpu3 getppid_cpu0 pipe_cpu3 pipe_cpu0 spawn clock_gettime thread "
                         "futex_cpu0_cpu1 present and positive")


class PlaceTest(unittest.TestCase):

    def test_session_ends_with_the_probes_when_asked(self):
        command = noiselab.session_command(["alone"], "linux", 3, 2, probe_rounds=3)
        self.assertTrue(command.endswith("; syscall_bench --probes --rounds 3"), command)
        self.assertNotIn("--probes", noiselab.session_command(["alone"], "linux", 3, 2))

    def test_linux_without_the_witness(self):
        loader = importlib.machinery.SourceFileLoader("tool_compare_linux", os.path.join(TOP, "tools", "measure", "compare-linux"))
        spec = importlib.util.spec_from_loader(loader.name, loader)
        compare = importlib.util.module_from_spec(spec)
        loader.exec_module(compare)
        plain = compare.qemu_command("VMLINUZ", "INITRD", "nohz_full=1-3", None)
        watched = compare.qemu_command("VMLINUZ", "INITRD", "nohz_full=1-3", "/logs")
        self.assertNotIn("-d", plain)
        self.assertEqual(watched[:len(plain)], plain)
        self.assertEqual(watched[len(plain):][0], "-d")


if __name__ == "__main__":
    unittest.main()
