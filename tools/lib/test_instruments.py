"""Self-test of tools/lib/instruments.py (oslat's and cyclictest's reports
read back, the witness beside them, the ratios and the table): python3
-m unittest tools/lib/test_instruments.py (run by tests/run). Every way
a number could come out 0 without being measured must be an error."""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import instruments  # noqa: E402
import noiselab  # noqa: E402

LOOPS = 200


def oslat_report(histogram, cpu=3, maximum=None, return_code=0, threads=1):
    thread = {"cpu": cpu, "freq": 2445, "min": 1, "avg": 1.5, "max": maximum if maximum is not None
              else max(int(k) for k in histogram) if histogram else 0, "duration": 1.0,
              "histogram": {str(k): v for k, v in histogram.items()}}
    document = {"file_version": 1, "return_code": return_code, "num_threads": threads,
                "thread": {str(i): dict(thread) for i in range(threads)}}
    return json.dumps(document, indent=2)


def cyclictest_report(histogram, overflows=0, cycles=LOOPS, cpu=3, maximum=None):
    top = maximum if maximum is not None else max(histogram) if histogram else 0
    thread = {"cycles": cycles, "min": 5, "max": top, "avg": 20.5, "cpu": cpu, "node": 0,
              "histogram": {str(k): v for k, v in histogram.items()}}
    document = json.dumps({"file_version": 1, "return_code": 0, "num_threads": 1, "thread": {"0": thread}},
                          indent=2)
    hist = ("# Histogram\n# Total: %09d\n# Min Latencies: 00005\n# Avg Latencies: 00020\n# Max Latencies: %05d\n"
            "# Histogram Overflows: %05d\n# Histogram Overflow at cycle number:\n# Thread 0:\n"
            % (sum(histogram.values()), top, overflows))
    return document + "\n\n" + hist


def mark(which, at, cpu=3):
    return "mark: witness %s: cpu %d, monotonic %.9f\n" % (which, cpu, at)


MARKS = mark("open", 10.5) + "oslat V 2.40\n" + mark("close", 11.5)


def section(name, body, status=0):
    report = "instruments: report\n%s\ninstruments: report end\n" % body if body is not None else ""
    return "instruments: begin %s\ninstruments: end %s status %d\n%s" % (name, name, status, report)


OSLAT = {1: 900000, 2: 40, 11: 7, 150: 2, 1024: 1}
CYCLIC = {12: 150, 40: 45, 250: 5}


def session(oslat=None, cyclic=None, hackbench="Time: 1.250\n", oslat_status=0, marks=MARKS):
    text = "nohzk: booting\r\n" + marks + mark("open", 20.0) + mark("close", 20.25)
    text += section("oslat", oslat_report(OSLAT, maximum=2000) if oslat is None else oslat, oslat_status)
    text += section("cyclictest", cyclictest_report(CYCLIC) if cyclic is None else cyclic)
    text += "instruments: begin hackbench\nRunning in process mode\n%sinstruments: end hackbench status 0\n" % hackbench
    return text.replace("\n", "\r\n")


def window(all_, timer):
    return {"all": all_, "timer": timer, "all_outer": all_, "timer_outer": timer, "bracketed": False}


WINDOWS = {3: [window(40, 30), window(210, 200)]}


class Session(unittest.TestCase):
    def test_numbers(self):
        run = instruments.parse_session(session(), WINDOWS, LOOPS)
        self.assertEqual(run["oslat_samples"], sum(OSLAT.values()))
        self.assertEqual(run["oslat_max_us"], 2000)
        self.assertEqual((run["oslat_ge_10us"], run["oslat_ge_100us"], run["oslat_ge_1000us"]), (10, 3, 1))
        self.assertEqual((run["cyclictest_ge_10us"], run["cyclictest_ge_100us"], run["cyclictest_ge_1000us"]),
                         (200, 5, 0))
        self.assertEqual(run["oslat_witness_all"], 40)
        self.assertEqual(run["oslat_window_s"], 1.0)
        self.assertEqual(run["oslat_witness_per_s"], 40.0)
        self.assertEqual(run["cyclictest_witness_per_s"], 840.0)
        self.assertEqual(run["cyclictest_witness_per_loop"], 1.05)
        self.assertEqual(run["hackbench_s"], 1.25)

    def test_overflows_count_as_late(self):
        report = cyclictest_report({12: 190}, overflows=10, maximum=5000)
        run = instruments.parse_session(session(cyclic=report), WINDOWS, LOOPS)
        self.assertEqual((run["cyclictest_ge_100us"], run["cyclictest_ge_1000us"]), (10, 10))

    def assertError(self, text, pattern, windows=WINDOWS):
        with self.assertRaisesRegex(instruments.InstrumentError, pattern):
            instruments.parse_session(text, windows, LOOPS)

    def test_no_samples_is_an_error(self):
        self.assertError(session(oslat=oslat_report({})), "no samples")
        self.assertError(session(oslat=oslat_report({1: 0, 2: 0})), "no samples")

    def test_wrong_cpu_or_threads(self):
        self.assertError(session(oslat=oslat_report(OSLAT, cpu=2, maximum=2000)), "CPU 2, not 3")
        self.assertError(session(oslat=oslat_report(OSLAT, threads=2, maximum=2000)), "2 thread")

    def test_max_must_match_histogram(self):
        self.assertError(session(oslat=oslat_report({1: 5, 20: 1}, maximum=0)), "does not match")

    def test_failed_instrument(self):
        self.assertError(session(oslat_status=98), "open mark failed")
        self.assertError(session().replace("end oslat status 0", "end oslat status "), "oslat: no end line")
        self.assertError(session(oslat=oslat_report(OSLAT, maximum=2000, return_code=1)), "return_code")

    def test_missing_or_broken_report(self):
        self.assertError(session().replace("instruments: report\r\n{", "{", 1), "no report")
        self.assertError(session(oslat="oslat: ERROR"), "not a JSON")
        self.assertError(session(oslat='{\n "thread": \n}'), "not JSON")

    def test_cyclictest_must_add_up(self):
        self.assertError(session(cyclic=cyclictest_report({12: 10})), "want 200 loops")
        self.assertError(session(cyclic=cyclictest_report(CYCLIC, cycles=100)), "want 200 loops")
        self.assertError(session(cyclic=cyclictest_report(CYCLIC).split("# Histogram\n")[0]), "Overflows")

    def test_witness_missing_or_extra(self):
        self.assertError(session(), "1 witness window", {3: WINDOWS[3][:1]})
        self.assertError(session(), "0 witness window", {})
        self.assertError(session(), "CPU\\(s\\) \\[0\\]", {0: [window(1, 1)], 3: WINDOWS[3]})

    def test_marks_give_the_window(self):
        self.assertError(session(marks=mark("open", 10.5)), "marks open cpu 3, open cpu 3, close cpu 3: want")
        self.assertError(session(marks=mark("open", 10.5) + mark("close", 11.5, cpu=2)), "close cpu 2")
        self.assertError(session(marks=mark("open", 10.5) + mark("close", 10.5)), "oslat: the window closed 0.000000")
        cut = mark("open", 10.5) + mark("close", 11.5).replace("11.5", "11.5inst", 1)
        self.assertError(session(marks=cut), "want an open and a close")   # another writer's bytes inside

    def test_a_witness_that_saw_nothing_did_not_count(self):
        self.assertError(session(), "did not count", {3: [window(0, 0), window(0, 0)]})

    def test_hackbench_time(self):
        self.assertError(session(hackbench=""), "hackbench")
        self.assertError(session(hackbench="Time: 0.000\n"), "hackbench")

    def test_instrument_missing(self):
        text = session()
        self.assertError(text[:text.index("instruments: begin hackbench")], "expected oslat, cyclictest, hackbench")

    def test_witness_lines_of_tools_run_boot(self):
        """nohzk's windows come from tools/run/boot --witness's lines."""
        text = ("witness: cpu 3 window 1: timer 30, all 40, exceptions 2 (vectors: 0xf0 30, 0xf2 10)\n"
                "witness: cpu 3 window 2: timer 200, all 210, exceptions 0 (vectors: 0xf0 200, 0xf2 10)\n")
        run = instruments.parse_session(session(), noiselab.parse_witness_lines(text), LOOPS)
        self.assertEqual((run["oslat_witness_timer"], run["cyclictest_witness_all"]), (30, 210))


class Command(unittest.TestCase):
    def test_shell_text_parses(self):
        for kernel in ("nohzk", "linux"):
            text = instruments.session_command(kernel, 5, 2000, 2, 100)
            self.assertEqual(subprocess.run(["sh", "-n", "-c", text]).returncode, 0)
            self.assertEqual(text.count("mark 3 open"), 2)
            self.assertEqual(text.count("mark 3 close"), 2)
            self.assertEqual("--uart" in text, kernel == "linux")
            self.assertIn("oslat -c 3 -D 5 -q -b 1024", text)
            self.assertIn("-l 2000 -q -h 1000", text)


class Ratios(unittest.TestCase):
    def cells(self, reference_runs):
        run = instruments.parse_session(session(), WINDOWS, LOOPS)
        slower = dict(run, hackbench_s=2.5, oslat_max_us=4000)
        cells = [{"configuration": "nohzk-full", "runs": [slower, slower]},
                 {"configuration": "linux-isolated", "runs": [run] * reference_runs}]
        return instruments.summarize_cells(cells, "linux-isolated"), cells

    def test_ratio_over_reference(self):
        has, cells = self.cells(1)
        self.assertTrue(has)
        self.assertEqual(cells[0]["ratio"]["hackbench_s"]["median"], 2.0)
        self.assertEqual(cells[0]["ratio"]["oslat_max_us"]["median"], 2.0)
        self.assertEqual(cells[1]["ratio"]["hackbench_s"]["median"], 1.0)
        lines = instruments.table(cells, "linux-isolated")
        row = next(line for line in lines if line.startswith("nohzk-full"))
        self.assertIn("2.00", row)
        self.assertNotIn("2000", row)          # a time is never shown, only its ratio

    def test_no_reference_no_ratio(self):
        has, cells = self.cells(0)
        self.assertFalse(has)
        self.assertIsNone(cells[0]["ratio"]["hackbench_s"])
        row = next(line for line in instruments.table(cells, "linux-isolated") if line.startswith("linux-isolated"))
        self.assertNotIn(" 0 ", row.replace("linux-isolated     0", ""))   # no run: dashes, not zeros
        self.assertIn("-", row)


if __name__ == "__main__":
    unittest.main()
