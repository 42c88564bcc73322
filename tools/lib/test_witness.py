"""Self-test of tools/lib/witness.py: python3 -m unittest tools/lib/test_witness.py
(run by tests/run). The logs are written here in QEMU 7.2's formats."""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import witness  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def serial(text):
    """The serial_write events of a vCPU writing text (as nohzk does,
    "\\n" sent as "\\r\\n")."""
    return "".join("serial_write write addr 0x00 val 0x%02x\n" % ord(c)
                   for c in text.replace("\n", "\r\n"))


def interrupt(vector):
    return ("Servicing hardware INT=0x%02x\n"
            "   825: v=%02x e=0000 i=0 cpl=3 IP=0033:0000000000401234 pc=0000000000401234 "
            "SP=002b:00007ffffffde000 env->regs[R_EAX]=0000000000000000\n"
            "RAX=0000000000000000 RBX=0000000000000000\n" % (vector, vector))


def exception(vector):
    return ("check_exception old: 0xffffffff new 0x%x\n"
            "   826: v=%02x e=0004 i=0 cpl=3 IP=0033:0000000000401234 pc=0000000000401234 "
            "SP=002b:00007ffffffde000 CR2=0000000000000000\n" % (vector, vector))


class WitnessTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="test-witness-")
        self.next_tid = 1000

    def tearDown(self):
        shutil.rmtree(self.dir)

    def log(self, *parts):
        self.next_tid += 1
        with open(os.path.join(self.dir, witness.LOG_NAME % self.next_tid), "w") as f:
            f.write("".join(parts))

    def test_args_name_one_file_per_thread(self):
        args = witness.qemu_args("/x")
        self.assertEqual(args, ["-d", "int,tid,trace:serial_write", "-D", "/x/vcpu-%d.log"])

    def test_timer_vector_from_the_kernel_source(self):
        self.assertEqual(witness.timer_vector(os.path.join(TOP, "arch", "x86", "vectors.h")), 0xec)

    def test_windows_count_the_interrupts_between_the_marks(self):
        self.log(serial("boot\ncpu 0: online, APIC ID 0\n"), interrupt(0xec), interrupt(0xec))
        self.log(serial("cpu 3: online, APIC ID 3\n"), interrupt(0xec),
                 serial("spin: witness open: cpu 3, ticks 10\n"), interrupt(0xec), interrupt(0xf0),
                 interrupt(0xec), exception(0x0e), serial("spin: witness close: cpu 3, ticks 12\n"),
                 interrupt(0xec),
                 serial("spin: witness open: cpu 3, ticks 40\n"), serial("spin: witness close: cpu 3, ticks 40\n"))
        windows = witness.read_logs(self.dir)
        self.assertEqual([(w.cpu, w.number) for w in windows], [(3, 1), (3, 2)])
        self.assertEqual(witness.describe(windows[0], 0xec),
                         "witness: cpu 3 window 1: timer 2, all 3, exceptions 1 (vectors: 0xec 2, 0xf0 1)")
        self.assertEqual(witness.describe(windows[1], 0xec), "witness: cpu 3 window 2: timer 0, all 0, exceptions 0")
        self.assertEqual(windows[1].opened, "spin: witness open: cpu 3, ticks 40")

    def test_an_interrupt_inside_a_mark_line_counts_once_it_is_written(self):
        self.log(serial("cpu 2: online\n"), serial("witness op"), interrupt(0xec), serial("en\n"),
                 interrupt(0xec), serial("witness close\n"))
        self.assertEqual(sum(witness.read_logs(self.dir)[0].vectors.values()), 1)

    def expect_error(self, text):
        with self.assertRaises(witness.WitnessError) as caught:
            witness.read_logs(self.dir)
        self.assertIn(text, str(caught.exception))

    def test_no_logs(self):
        self.expect_error("no per-thread QEMU logs")

    def test_no_serial_events(self):
        self.log(interrupt(0xec))
        self.expect_error("no serial_write events")

    def test_no_window(self):
        self.log(serial("cpu 1: online\n"), interrupt(0xec))
        self.expect_error("no \"witness open\"")

    def test_window_never_closed(self):
        self.log(serial("cpu 1: online\nwitness open\n"), interrupt(0xec))
        self.expect_error("never closed")

    def test_close_without_open(self):
        self.log(serial("cpu 1: online\nwitness close\n"))
        self.expect_error("closes no window")

    def test_nested_open(self):
        self.log(serial("cpu 1: online\nwitness open\nwitness open\n"))
        self.expect_error("inside the one")

    def test_one_file_for_two_vcpus(self):
        self.log(serial("cpu 0: online\ncpu 1: online\nwitness open\nwitness close\n"))
        self.expect_error("do not separate vCPUs")

    def test_window_of_an_unknown_vcpu(self):
        self.log(serial("witness open\nwitness close\n"))
        self.expect_error("which vCPU is it?")

    def test_mark_naming_another_cpu(self):
        self.log(serial("cpu 4: online\nspin: witness open: cpu 5, ticks 1\nspin: witness close: cpu 5, ticks 1\n"))
        self.expect_error("was written by the vCPU of cpu 4")

    def test_inner_window_counts_between_the_inner_marks(self):
        self.log(serial("cpu 3: online\n"), serial("osnoise: witness open: cpu 3\n"), interrupt(0xec),
                 serial("osnoise: witness inner open: cpu 3\n"), interrupt(0xec), interrupt(0xf0),
                 serial("osnoise: witness inner close: cpu 3\n"), interrupt(0xec),
                 serial("osnoise: witness close: cpu 3\n"))
        window = witness.read_logs(self.dir)[0]
        self.assertEqual(witness.describe(window, 0xec), "witness: cpu 3 window 1: timer 3, all 4, exceptions 0, "
                         "inner: timer 1, all 2 (vectors: 0xec 3, 0xf0 1; inner: 0xec 1, 0xf0 1)")

    def test_inner_open_outside_a_window(self):
        self.log(serial("cpu 1: online\nwitness inner open\n"))
        self.expect_error("outside any window")

    def test_inner_open_twice(self):
        self.log(serial("cpu 1: online\nwitness open\nwitness inner open\nwitness inner close\n"
                        "witness inner open\n"))
        self.expect_error("twice in one window")

    def test_inner_close_without_inner_open(self):
        self.log(serial("cpu 1: online\nwitness open\nwitness inner close\n"))
        self.expect_error("closes no inner window")

    def test_close_with_the_inner_window_open(self):
        self.log(serial("cpu 1: online\nwitness open\nwitness inner open\nwitness close\n"))
        self.expect_error("whose inner window is open")

    def test_cpu_from_the_marks_of_a_pinned_writer(self):
        self.log(serial("Linux version 6.1\n"), interrupt(0xec))
        self.log(interrupt(0xec), serial("osnoise: witness open: cpu 3\n"), interrupt(0xec),
                 serial("osnoise: witness close: cpu 3\n"))
        with self.assertRaises(witness.WitnessError):
            witness.read_logs(self.dir)
        windows = witness.read_logs(self.dir, cpu_from_marks=True)
        self.assertEqual([(w.cpu, sum(w.vectors.values()), w.inner) for w in windows], [(3, 1, None)])

    def test_cpu_from_marks_needs_a_cpu_in_every_mark(self):
        self.log(serial("witness open: cpu 3\nwitness close\n"))
        with self.assertRaises(witness.WitnessError) as caught:
            witness.read_logs(self.dir, cpu_from_marks=True)
        self.assertIn("names no CPU", str(caught.exception))

    def test_cpu_from_marks_naming_two_cpus(self):
        self.log(serial("witness open: cpu 3\nwitness close: cpu 3\nwitness open: cpu 2\nwitness close: cpu 2\n"))
        with self.assertRaises(witness.WitnessError) as caught:
            witness.read_logs(self.dir, cpu_from_marks=True)
        self.assertIn("one vCPU cannot be two CPUs", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
