"""Unit tests of the trace tools (tools/lib/tracefile.py, tools/measure/trace2perfetto,
tools/measure/trace2svg) on a captured /proc/trace (tests/qemu/data/trace-sample.txt:
`taskset -c 2 spin 1` with trace=all, an excerpt). Registered in tests/run's
SELFTESTS. Counts and order only, never times."""

import json
import os
import sys
import unittest
import xml.etree.ElementTree as ElementTree

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.path.join(REPO, "tools")
sys.path.insert(0, os.path.join(TOOLS, "lib"))
sys.dont_write_bytecode = True
import tracefile  # noqa: E402
from trace_checks import load_tool  # noqa: E402  (a tools/ script as a module)

SAMPLE = os.path.join(HERE, "data", "trace-sample.txt")



def sample():
    with open(SAMPLE) as f:
        return f.read()


class TraceFileTest(unittest.TestCase):
    def test_parse_header_and_events(self):
        trace = tracefile.parse(sample())
        self.assertEqual(trace.cpus, [0, 1, 2, 3])
        self.assertGreater(len(trace.events), 400)
        self.assertEqual([e.us for e in trace.events], sorted(e.us for e in trace.events))
        switch = next(e for e in trace.events if e.event == "sched_switch" and e.fields["next_comm"] == "spin")
        self.assertEqual(switch.fields["prev_comm"], "idle/0")

    def test_markers_in_a_console_log(self):
        log = "booting\r\nnoise\r\n%s\r\n%s%s\r\nnohzk: power-off status=0\r\n" % (
            tracefile.BEGIN, sample(), tracefile.END)
        self.assertEqual(len(tracefile.parse(log).events), len(tracefile.parse(sample()).events))

    def test_ipi_send_matched_to_a_later_receive_on_the_target(self):
        pairs = tracefile.match_ipis(tracefile.parse(sample()).events)
        self.assertGreater(len(pairs), 0)
        for send, receive in pairs:
            self.assertEqual(int(send.fields["target"]), receive.cpu)
            self.assertEqual(send.fields["type"], receive.fields["type"])
            self.assertLessEqual(send.us, receive.us)

    def test_merged_ipi_sends_share_one_receive(self):
        text = "\n".join([
            "  a-1 [000] 0.000010: ipi_send: type=RES target=1",
            "  a-1 [000] 0.000011: ipi_send: type=RES target=1",
            "  b-0 [001] 0.000020: ipi_receive: type=RES",
            "  a-1 [000] 0.000030: ipi_send: type=CAL target=1"])
        pairs = tracefile.match_ipis(tracefile.parse(text).events)
        self.assertEqual(len(pairs), 2)
        self.assertTrue(all(r.us == 20 for _, r in pairs))

    def test_states_user_kernel_idle(self):
        states = tracefile.cpu_states(tracefile.parse(sample()))
        self.assertIn("user", {s[2] for s in states[0]})
        self.assertIn("idle", {s[2] for s in states[1]})
        for stretches in states.values():
            for start, end, _, _ in stretches:
                self.assertLessEqual(start, end)

    def test_tick_stopped_and_nohz_periods(self):
        text = "\n".join([
            "  spin-5 [002] 0.000100: nohz_set: pid=5",
            "  spin-5 [002] 0.000200: tick_stop: reason=alone",
            "  spin-5 [002] 0.000300: tick_restart: reason=nohz_kick",
            "  spin-5 [002] 0.000400: nohz_clear: pid=5"])
        trace = tracefile.parse(text)
        self.assertEqual(tracefile.tick_stopped(trace)[2], [(200, 300, "alone")])
        self.assertEqual(tracefile.nohz_periods(trace)[2], [(100, 400, "5")])


class ConvertersTest(unittest.TestCase):
    def test_perfetto_json_has_a_track_per_cpu_and_flows(self):
        result = json.loads(json.dumps(load_tool("trace2perfetto").convert(sample())))
        events = result["traceEvents"]
        named = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
        self.assertEqual(named, {0, 1, 2, 3})
        self.assertTrue(any(e["ph"] == "X" and e.get("cat") == "user" for e in events))
        self.assertTrue(any(e["ph"] == "i" and e["name"] == "tick_fire" for e in events))
        starts = [e for e in events if e["ph"] == "s"]
        self.assertGreater(len(starts), 0)
        self.assertEqual(len(starts), len([e for e in events if e["ph"] == "f"]))
        for e in events:
            if e["ph"] == "X":
                self.assertGreaterEqual(e["dur"], 0)

    def test_svg_is_well_formed_with_a_lane_per_cpu(self):
        svg = load_tool("trace2svg").convert(sample())
        root = ElementTree.fromstring(svg)
        texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
        for cpu in range(4):
            self.assertIn("CPU %d" % cpu, texts)
        self.assertIn("tick stopped", texts)
        self.assertIn("IPI reschedule", texts)


if __name__ == "__main__":
    unittest.main()
