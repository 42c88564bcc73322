"""Self-test of tools/lib/noiselab.py (statistics, the session's parser, the
witness check, the JSON/CSV/SVG writers) and of tools/measure/compare-linux's QEMU
line: python3 -m unittest tools/lib/test_noiselab.py (run by tests/run)."""

import csv
import importlib.machinery
import importlib.util
import json
import re
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import noiselab  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def osnoise_json(loc=0, total=0, life=0, available=99.5):
    return json.dumps({"tool": "osnoise", "cpu": 3, "nohz": True, "runtime_ns": 2000000000, "noise_ns": 1,
                       "available_pct": available, "max_single_noise_ns": 7000, "syscalls": 0, "faults": 0,
                       "sleeps": 4, "alarms": 0, "signals": 0, "interrupts_total": total,
                       "interrupts": {"LOC": loc, "RES": total - loc, "CAL": 0, "NHZ": 0},
                       "life_interrupts_total": life})


def tick(state, ticks, stops, restarts, kicks):
    return "noiselab: tick 3    %s  -  -  %d  5  %d  %d  %d  0  3\n" % (state, ticks, stops, restarts, kicks)


def section(name, body, status=0, ticks=True):
    text = "noiselab: begin %s\n" % name
    text += tick("ticking", 100, 1, 1, 0) if ticks else ""
    text += body + "noiselab: end %s status %d\n" % (name, status)
    text += tick("stopped", 104, 3, 2, 1) if ticks else ""
    return text


MARKS = ("osnoise: witness open: cpu 3\nosnoise: witness inner open: cpu 3\n"
         "osnoise: witness inner close: cpu 3\nosnoise: witness close: cpu 3\n")


def witness_line(window, timer, all_, inner_timer, inner_all):
    return "witness: cpu 3 window %d: timer %d, all %d, exceptions 0, inner: timer %d, all %d\n" % (
        window, timer, all_, inner_timer, inner_all)


class StatisticsTest(unittest.TestCase):

    def test_summary_of_odd_and_even_counts(self):
        self.assertEqual(noiselab.summary([5, 1, 9]), {"median": 5, "min": 1, "max": 9, "n": 3})
        self.assertEqual(noiselab.summary([4, 1, 9, 2]), {"median": 3.0, "min": 1, "max": 9, "n": 4})

    def test_summary_leaves_out_what_was_not_measured(self):
        self.assertEqual(noiselab.summary([None, 7, None]), {"median": 7, "min": 7, "max": 7, "n": 1})
        self.assertIsNone(noiselab.summary([None, None]))
        self.assertIsNone(noiselab.summary([]))

    def test_a_zero_is_a_value(self):
        self.assertEqual(noiselab.summary([0, 0, 1])["median"], 0)

    def test_summarize_every_metric(self):
        found = noiselab.summarize([{"timer": 2, "all": 3}, {"timer": 4, "all": 5}])
        self.assertEqual(set(found), set(noiselab.METRIC_KEYS))
        self.assertEqual(found["timer"], {"median": 3.0, "min": 2, "max": 4, "n": 2})
        self.assertIsNone(found["stops"])

    def test_number(self):
        self.assertEqual([noiselab.number(v) for v in (3.0, 2.5, 7, 0, None)], ["3", "2.5", "7", "0", ""])


class WriterTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="test-noiselab-")
        self.cells = [{"configuration": "task", "scenario": "alone", "runs": [{"timer": 0}, {"timer": 2}],
                       "summary": noiselab.summarize([{"timer": 0, "noise_pct": 1.5}, {"timer": 2, "noise_pct": 2}])},
                      {"configuration": "linux", "scenario": "alone", "runs": [],
                       "summary": noiselab.summarize([])}]

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_csv_has_median_min_max_of_each_metric(self):
        path = os.path.join(self.dir, "x.csv")
        noiselab.write_csv(path, self.cells)
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 2)
        self.assertEqual((rows[0]["configuration"], rows[0]["scenario"], rows[0]["runs"]), ("task", "alone", "2"))
        self.assertEqual((rows[0]["timer_median"], rows[0]["timer_min"], rows[0]["timer_max"]), ("1", "0", "2"))
        self.assertEqual(rows[0]["noise_pct_median"], "1.75")
        self.assertEqual(rows[0]["stops_median"], "")          # not measured: empty, not 0
        self.assertEqual((rows[1]["runs"], rows[1]["timer_median"]), ("0", ""))

    def test_json_round_trip(self):
        path = os.path.join(self.dir, "x.json")
        noiselab.write_json(path, {"cells": self.cells, "date": "2026-12-04"})
        with open(path) as f:
            document = json.load(f)
        self.assertEqual(document["cells"][0]["summary"]["timer"]["max"], 2)
        self.assertEqual(document["date"], "2026-12-04")

    def test_svg_carries_the_caption(self):
        path = os.path.join(self.dir, "alone.svg")
        noiselab.plot_scenario(path, "alone", self.cells, "2026-12-04, tools/measure/noise-bench --runs 2", "timer")
        with open(path) as f:
            text = f.read()
        self.assertTrue(text.startswith("<?xml"))
        for words in ("2026-12-04, tools/measure/noise-bench --runs 2", "scenario alone", ">task<", ">linux<"):
            self.assertTrue(words in text, "%r not in the SVG" % words)
        again = os.path.join(self.dir, "again.svg")
        noiselab.plot_scenario(again, "alone", self.cells, "2026-12-04, tools/measure/noise-bench --runs 2", "timer")
        with open(again) as f:
            self.assertTrue(f.read() == text, "the same data drew another SVG")


class SessionTest(unittest.TestCase):

    def test_commands(self):
        nohzk = noiselab.session_command(["alone", "compete"], "nohzk", 3, 2)
        self.assertIn("osnoise --cpu 3 --nohz --mark --json --warmup-ms 1000 --duration 2;", nohzk)
        self.assertIn("taskset -c 3 spin 1", nohzk)
        self.assertIn("/proc/tick", nohzk)
        self.assertTrue(nohzk.endswith("syscall_bench --getppid 0; syscall_bench --getppid 3 --nohz"))
        linux = noiselab.session_command(["rcu-load", "signals"], "linux", 3, 2)
        self.assertIn("--mark-uart", linux)
        self.assertNotIn("--nohz", linux)
        self.assertNotIn("rcustress", linux)
        self.assertNotIn("/proc/tick", linux)
        self.assertIn("--signals-from-cpu 0", linux)
        with self.assertRaises(noiselab.LabError):
            noiselab.session_command(["nothing"], "nohzk", 3, 2)

    def test_policies_in_the_kernel_order(self):
        text = "boot\nnoiselab: policies\nperiodic   every CPU ticks\nidle  idle CPUs\nnew  a new one\n" \
               "noiselab: policies end\n"
        self.assertEqual(noiselab.parse_policies(text), ["periodic", "idle", "new"])
        with self.assertRaises(noiselab.LabError):
            noiselab.parse_policies("noiselab: policies\nnoiselab: policies end\n")

    def parse(self, text, scenarios=("alone", "compete")):
        return noiselab.parse_session(text, list(scenarios), "nohzk", 3, noiselab.parse_witness_lines(text))

    def test_a_session_read_back(self):
        text = (section("alone", MARKS + osnoise_json(0, 0, 5) + "\n") +
                section("compete", MARKS + osnoise_json(600, 601, 610) + "\n") +
                "bench: getppid_cpu0 cycles_median=900 cycles_min=800 batches=31 per_batch=200 nohz=0\n"
                "bench: getppid_cpu3 cycles_median=1800 cycles_min=1700 batches=31 per_batch=200 nohz=1\n" +
                witness_line(1, 0, 0, 0, 0) + witness_line(2, 602, 603, 599, 600))
        runs, cost, problems = self.parse(text)
        self.assertEqual(problems, [])
        self.assertEqual(cost, {"getppid_cpu0": 900, "getppid_cpu3": 1800})
        alone, compete = runs["alone"], runs["compete"]
        self.assertEqual((alone["timer"], alone["all"], alone["life"], alone["witness_all"]), (0, 0, 5, 0))
        self.assertEqual((alone["stops"], alone["restarts"], alone["kicks"], alone["wasted"]), (2, 1, 1, 0))
        self.assertEqual((compete["witness_timer"], compete["witness_timer_outer"]), (599, 602))
        self.assertEqual(alone["noise_pct"], 0.5)
        self.assertEqual(noiselab.disagreements(compete), [])

    def test_a_failed_scenario_is_no_run(self):
        text = (section("alone", MARKS + osnoise_json() + "\n", status=3) +
                section("compete", MARKS + "{\"tool\": \"osnoise\", cut short\n") +
                witness_line(1, 0, 0, 0, 0) + witness_line(2, 0, 0, 0, 0))
        runs, _, problems = self.parse(text)
        self.assertEqual(runs, {})
        self.assertEqual(problems, ["alone: osnoise did not end with status 0", "compete: no osnoise JSON line"])

    def test_a_count_not_reported_is_no_run(self):
        measured = json.loads(osnoise_json())
        del measured["interrupts"]["LOC"]
        text = section("alone", MARKS + json.dumps(measured) + "\n") + witness_line(1, 0, 0, 0, 0)
        runs, _, problems = self.parse(text, ["alone"])
        self.assertEqual((runs, problems), ({}, ["alone: osnoise reported no LOC"]))

    def test_windows_follow_the_marks_of_each_scenario(self):
        # alone wrote no marks (it failed before): compete's window is the first
        text = (section("alone", "", status=1) + section("compete", MARKS + osnoise_json(5, 5) + "\n") +
                witness_line(1, 5, 5, 5, 5))
        runs, _, problems = self.parse(text)
        self.assertEqual(runs["compete"]["witness_timer"], 5)
        self.assertEqual(problems, ["alone: osnoise did not end with status 0"])

    def test_missing_and_extra_windows_and_scenarios(self):
        text = section("alone", MARKS + osnoise_json() + "\n")
        runs, _, problems = self.parse(text)
        self.assertEqual(runs, {})
        self.assertIn("alone: 0 witness window(s) on cpu 3, 1 mark(s): want one", problems)
        self.assertIn("scenarios run: alone; expected alone, compete", problems)
        text += witness_line(1, 0, 0, 0, 0) + witness_line(2, 0, 0, 0, 0)
        runs, _, problems = self.parse(text, ["alone"])
        self.assertEqual(problems, ["1 witness window(s) on cpu 3 beyond the scenarios"])

    def test_no_tick_rows_is_a_problem_on_nohzk(self):
        text = section("alone", MARKS + osnoise_json() + "\n", ticks=False) + witness_line(1, 0, 0, 0, 0)
        runs, _, problems = self.parse(text, ["alone"])
        self.assertEqual(problems, ["alone: no /proc/tick row for cpu 3 before and after"])
        runs, _, problems = noiselab.parse_session(text, ["alone"], "linux", 3, noiselab.parse_witness_lines(text))
        self.assertEqual((problems, runs["alone"].get("stops")), ([], None))


class WitnessCheckTest(unittest.TestCase):

    def run_of(self, timer, all_, inner, outer):
        return {"timer": timer, "all": all_, "witness_timer": inner[0], "witness_all": inner[1],
                "witness_timer_outer": outer[0], "witness_all_outer": outer[1]}

    def test_inside_the_bracket_agrees(self):
        for timer in (10, 11, 12):
            self.assertEqual(noiselab.disagreements(self.run_of(timer, timer, (10, 10), (12, 12))), [])

    def test_outside_the_bracket_disagrees(self):
        self.assertEqual(noiselab.disagreements(self.run_of(9, 10, (10, 10), (12, 12))),
                         ["guest timer 9, witness 10..12"])
        self.assertEqual(noiselab.disagreements(self.run_of(0, 0, (0, 1), (0, 1))), ["guest all 0, witness 1"])
        self.assertEqual(noiselab.disagreements(self.run_of(3, 3, (0, 0), (0, 0))),
                         ["guest timer 3, witness 0", "guest all 3, witness 0"])

    def test_witness_lines_without_inner_windows(self):
        windows = noiselab.parse_witness_lines("witness: cpu 2 window 1: timer 4, all 5, exceptions 1 (vectors: 0xec 4, 0xf0 1)\n")
        self.assertEqual(windows, {2: [{"timer": 4, "all": 5, "timer_outer": 4, "all_outer": 5, "exceptions": 1,
                                        "bracketed": False, "vectors": {0xec: 4, 0xf0: 1},
                                        "inner_vectors": {0xec: 4, 0xf0: 1}}]})

    def test_vectors_that_do_not_add_up_are_an_error(self):
        with self.assertRaisesRegex(noiselab.LabError, "do not add up"):
            noiselab.parse_witness_lines("witness: cpu 2 window 1: timer 4, all 5, exceptions 0, inner: timer 1, "
                                         "all 2 (vectors: 0xec 4, 0xf0 1; inner: 0xec 1)\n")
        with self.assertRaisesRegex(noiselab.LabError, "'0xzz 1' is not a vector"):
            noiselab.parse_witness_lines("witness: cpu 2 window 1: timer 0, all 1, exceptions 0 (vectors: 0xzz 1)\n")


def signals_json(signals=400, res=402, causes=None, kernel_count=None):
    irqs = {"LOC": 0, "RES": res, "CAL": 0, "NHZ": 0}
    run = {"tool": "osnoise", "cpu": 3, "nohz": True, "runtime_ns": 2000000000, "noise_ns": 1,
           "available_pct": 90.0, "max_single_noise_ns": 7000, "syscalls": 0, "faults": 0,
           "sleeps": 0, "alarms": 0, "signals": signals, "interrupts_total": res, "interrupts": irqs,
           "life_interrupts_total": res + 5}
    if causes is not None:
        run.update({"causes": causes, "causes_total": sum(causes.values()),
                    "causes_interrupts": sum(causes.values()) if kernel_count is None else kernel_count,
                    "causes_merged": 0})
    return json.dumps(run)


class PerEventTest(unittest.TestCase):

    def parse(self, body, witness, scenario="signals", kernel="nohzk"):
        text = section(scenario, MARKS + body + "\n", ticks=kernel == "nohzk") + witness
        return noiselab.parse_session(text, [scenario], kernel, 3, noiselab.parse_witness_lines(text))

    def test_interrupts_per_event_guest_and_witness(self):
        runs, _, problems = self.parse(signals_json(), witness_line(1, 0, 404, 0, 402))
        self.assertEqual(problems, [])
        run = runs["signals"]
        self.assertEqual((run["events"], run["all_per_event"], run["witness_per_event"]), (400, 1.005, 1.005))
        self.assertEqual(run["witness_timer_per_event"], 0)

    def test_each_event_scenario_counts_its_own_events(self):
        for scenario, key in noiselab.EVENT_SCENARIOS.items():
            measured = json.loads(signals_json())
            measured.update({"sleeps": 0, "alarms": 0, "signals": 0})
            measured[key] = 201
            runs, _, problems = self.parse(json.dumps(measured), witness_line(1, 0, 402, 0, 402), scenario)
            self.assertEqual((problems, runs[scenario]["events"]), ([], 201))
            self.assertEqual(runs[scenario]["witness_per_event"], 2.0)

    def test_no_event_is_no_run_never_zero_per_event(self):
        runs, _, problems = self.parse(signals_json(signals=0), witness_line(1, 0, 402, 0, 402))
        self.assertEqual(runs, {})
        self.assertEqual(problems, ["signals: osnoise counted 0 signals in the window: no figure per event"])

    def test_other_scenarios_have_no_per_event_figures(self):
        runs, _, problems = self.parse(osnoise_json(), witness_line(1, 0, 0, 0, 0), "alone")
        self.assertEqual(problems, [])
        self.assertNotIn("events", runs["alone"])

    def test_causes_that_add_up_agree(self):
        causes = {"RES 0 signal": 401, "LOC - tick": 1}
        runs, _, _ = self.parse(signals_json(res=402, causes=causes), witness_line(1, 0, 402, 0, 402))
        self.assertEqual(noiselab.disagreements(runs["signals"]), [])
        self.assertEqual(runs["signals"]["causes_total"], 402)

    def test_causes_that_do_not_add_up_disagree(self):
        runs, _, _ = self.parse(signals_json(res=402, causes={"RES 0 signal": 400}, kernel_count=402),
                                witness_line(1, 0, 402, 0, 402))
        self.assertEqual(noiselab.disagreements(runs["signals"]),
                         ["causes add up to 400, witness 402", "causes add up to 400, the kernel counted 402"])

    def test_tables(self):
        cells = []
        for signals, res in ((400, 402), (200, 201), (300, 330)):
            runs, _, _ = self.parse(signals_json(signals, res, {"RES 0 signal": res}), witness_line(1, 0, res, 0, res))
            cells.append(runs["signals"])
        cell = {"configuration": "task", "scenario": "signals", "runs": cells, "summary": noiselab.summarize(cells)}
        self.assertEqual(cell["summary"]["witness_per_event"]["median"], 1.005)
        self.assertEqual((cell["summary"]["events"]["min"], cell["summary"]["events"]["max"]), (200, 400))
        lines = noiselab.event_table([cell])
        self.assertIn("1.00 [1.00-1.10]", lines[2])
        self.assertIn("300 [200-400]", lines[2])
        causes = noiselab.cause_table([cell])
        self.assertEqual(causes, ["task      signals   sum 330 [201-402] = witness 330 [201-402] (every run): "
                                  "RES 0 signal 330 [201-402]"])
        self.assertEqual(noiselab.count_key("signals"), "witness_per_event")
        self.assertEqual(noiselab.count_key("alone"), "witness_all")


def threads_json(munmaps=500, tlb=498, loc=0, with_tlb_row=True):
    irqs = {"LOC": loc, "RES": 1, "CAL": 0, "NHZ": 0}
    if with_tlb_row:
        irqs["TLB"] = tlb
    return json.dumps({"tool": "osnoise", "cpu": 3, "nohz": True, "runtime_ns": 2000000000, "noise_ns": 1,
                       "available_pct": 90.0, "max_single_noise_ns": 7000, "syscalls": 0, "faults": 0,
                       "sleeps": 0, "alarms": 0, "signals": 0, "threads": 2, "munmaps": munmaps,
                       "interrupts_total": sum(irqs.values()), "interrupts": irqs, "life_interrupts_total": 600})


def threads_witness(outer_tlb=499, inner_tlb=498, vector=0xf3):
    return ("witness: cpu 3 window 1: timer 0, all %d, exceptions 0, inner: timer 0, all %d "
            "(vectors: 0x%02x %d, 0xf0 1; inner: 0x%02x %d, 0xf0 1)\n"
            % (outer_tlb + 1, inner_tlb + 1, vector, outer_tlb, vector, inner_tlb))


class ThreadsScenarioTest(unittest.TestCase):

    def parse(self, body, witness, kernel="nohzk"):
        text = section("threads", MARKS + body + "\n", ticks=kernel == "nohzk") + witness
        return noiselab.parse_session(text, ["threads"], kernel, 3, noiselab.parse_witness_lines(text))

    def test_the_scenario_runs_sibling_threads(self):
        command = noiselab.osnoise_command("threads", "nohzk", 3, 2)
        self.assertIn("--threads 2 --thread-cpus 0", command)
        self.assertIn("--nohz", command)
        self.assertIn("--threads 2", noiselab.osnoise_command("threads", "linux", 3, 2))

    def test_tlb_by_guest_and_witness_and_per_unmap(self):
        runs, _, problems = self.parse(threads_json(), threads_witness())
        self.assertEqual(problems, [])
        run = runs["threads"]
        self.assertEqual((run["munmaps"], run["tlb"], run["witness_tlb"], run["witness_tlb_outer"]), (500, 498, 498, 499))
        self.assertEqual(run["witness_tlb_per_loop"], 0.996)
        self.assertEqual(noiselab.disagreements(run), [])

    def test_a_tlb_count_outside_the_witness_disagrees(self):
        runs, _, _ = self.parse(threads_json(tlb=0), threads_witness())
        self.assertEqual(noiselab.disagreements(runs["threads"]), ["guest all 1, witness 499..500",
                                                                   "guest tlb 0, witness 498..499"])

    def test_linux_counts_its_function_call_vectors(self):
        runs, _, problems = self.parse(threads_json(tlb=300), threads_witness(vector=0xfb), kernel="linux")
        self.assertEqual(problems, [])
        self.assertEqual((runs["threads"]["witness_tlb"], runs["threads"]["tlb"]), (498, 300))
        runs, _, _ = self.parse(threads_json(), threads_witness(vector=0xfb))
        self.assertEqual(runs["threads"]["witness_tlb"], 0)       # 0xfb is not nohzk's

    def test_what_is_missing_is_no_run(self):
        for body, witness, why in ((threads_json(with_tlb_row=False), threads_witness(), "no TLB row"),
                                   (threads_json(munmaps=0), threads_witness(), "unmapped nothing"),
                                   (threads_json(), "witness: cpu 3 window 1: timer 0, all 499, exceptions 0, "
                                    "inner: timer 0, all 499\n", "no counts by vector")):
            runs, _, problems = self.parse(body, witness)
            self.assertEqual(runs, {})
            self.assertEqual(len(problems), 1)
            self.assertIn(why, problems[0])

    def test_nohzk_shootdown_vector_is_the_kernels(self):
        with open(os.path.join(TOP, "arch", "x86", "vectors.h")) as f:
            m = re.search(r"^#define VECTOR_TLB_SHOOTDOWN\s+(0x[0-9a-f]+)", f.read(), re.M)
        self.assertEqual(noiselab.SHOOTDOWN_VECTORS["nohzk"], (int(m.group(1), 16),))

    def test_the_table_by_kind(self):
        runs, _, _ = self.parse(threads_json(), threads_witness())
        cells = [{"configuration": "task", "scenario": "threads", "runs": [runs["threads"]],
                  "summary": noiselab.summarize([runs["threads"]])}]
        lines = noiselab.threads_table(cells)
        self.assertRegex(lines[0], r"^configuration +runs +munmaps +TLB +w:TLB +w:TLB/loop +LOC")
        self.assertRegex(lines[2], r"^task +1 +500 +498 +498 +0\.996 +0 +0 +1 ")


class CompareLinuxTest(unittest.TestCase):

    def load(self, name):
        loader = importlib.machinery.SourceFileLoader("tool_" + os.path.basename(name).replace("-", "_"),
                                                      os.path.join(TOP, "tools", name))
        spec = importlib.util.spec_from_loader(loader.name, loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        return module

    def test_linux_boots_on_tools_boots_qemu(self):
        compare, boot = self.load("measure/compare-linux"), self.load("run/boot")
        linux = compare.qemu_command("VMLINUZ", "INITRD", "console=ttyS0 nohz_full=1-3", "/logs")
        nohzk = boot.qemu_command({"qemu": [], "smp": 4, "mem": "256", "interactive": False, "uefi": False,
                                   "gdb": None}, "ISO")
        for option in ("-machine", "-cpu", "-smp", "-m"):
            self.assertEqual(linux[linux.index(option) + 1], nohzk[nohzk.index(option) + 1], option)
        at = linux.index("-kernel")
        self.assertEqual(linux[at:at + 6], ["-kernel", "VMLINUZ", "-initrd", "INITRD", "-append",
                                            "console=ttyS0 nohz_full=1-3"])
        self.assertNotIn("-cdrom", linux)
        self.assertEqual(linux[-4:], ["-d", "int,tid,trace:serial_write", "-D", "/logs/vcpu-%d.log"])

    def test_package_names(self):
        compare = self.load("measure/compare-linux")
        self.assertTrue(compare.PACKAGE_RE.match("linux-image-6.1.0-57-amd64"))
        for name in ("linux-image-6.1.0-57-amd64-unsigned", "linux-image-6.12.0-1-amd64", "linux-image-amd64"):
            self.assertIsNone(compare.PACKAGE_RE.match(name), name)


if __name__ == "__main__":
    unittest.main()
