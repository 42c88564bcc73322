"""Self-test of the KTAP checker: python3 -m unittest tests/qemu/test_ktap.py
(or, from tests/qemu, python3 -m unittest test_ktap)."""

import os
import sys
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402


def doc(text):
    return textwrap.dedent(text).lstrip("\n")


PASSING = doc("""
    KTAP version 1
    1..2
        KTAP version 1
        # Subtest: tick
        1..2
        ok 1 tick_periodic
        ok 2 tick_stop
    ok 1 tick
    ok 2 ipi_roundtrip
    """)


class KtapTest(unittest.TestCase):

    def assertPasses(self, text):
        report = ktap.check(text)
        self.assertTrue(report.passed, report.errors)
        return report

    def assertFails(self, text, *fragments):
        report = ktap.check(text)
        self.assertFalse(report.passed)
        joined = "\n".join(report.errors)
        for fragment in fragments:
            self.assertIn(fragment, joined)
        return report

    def test_complete_passing_document(self):
        report = self.assertPasses(PASSING)
        self.assertEqual(report.total, 4)
        self.assertEqual(report.skipped, [])

    def test_crlf_line_endings(self):
        self.assertPasses(PASSING.replace("\n", "\r\n"))

    def test_not_ok(self):
        self.assertFails(doc("""
            KTAP version 1
            1..3
            ok 1 first
            not ok 2 second
            ok 3 third
            """), "second: not ok")

    def test_missing_result(self):
        self.assertFails(doc("""
            KTAP version 1
            1..3
            ok 1 first
            ok 2 second
            """), "plan 1..3 but 2 result(s)")

    def test_too_many_results(self):
        self.assertFails(doc("""
            KTAP version 1
            1..1
            ok 1 first
            ok 2 second
            """), "plan 1..1 but 2 results")

    def test_no_plan(self):
        self.assertFails("KTAP version 1\nok 1 first\n", "no plan")

    def test_misnumbered(self):
        self.assertFails("KTAP version 1\n1..2\nok 1 a\nok 3 b\n",
                         "numbered 3, expected 2")

    def test_nested_subtest_failure(self):
        self.assertFails(doc("""
            KTAP version 1
            1..1
                KTAP version 1
                # Subtest: alloc
                1..2
                ok 1 alloc_page
                not ok 2 alloc_free_all
            ok 1 alloc
            """), "alloc > alloc_free_all: not ok")

    def test_nested_subtest_incomplete(self):
        # The suite claims ok, but its subtest lost a result.
        self.assertFails(doc("""
            KTAP version 1
            1..1
                KTAP version 1
                1..3
                ok 1 a
                ok 2 b
            ok 1 suite
            """), "suite: incomplete")

    def test_subtest_without_result_line(self):
        # The machine died inside a subtest.
        self.assertFails(doc("""
            KTAP version 1
            1..1
                KTAP version 1
                # Subtest: ipi
                1..2
                ok 1 a
            """), "ipi: no result line", "plan 1..1 but 0 result(s)")

    def test_two_levels_of_nesting(self):
        self.assertPasses(doc("""
            KTAP version 1
            1..1
                KTAP version 1
                1..1
                    KTAP version 1
                    1..1
                    ok 1 leaf
                ok 1 middle
            ok 1 top
            """))
        self.assertFails(doc("""
            KTAP version 1
            1..1
                KTAP version 1
                1..1
                    KTAP version 1
                    1..1
                    not ok 1 leaf
                ok 1 middle
            ok 1 top
            """), "top > middle > leaf: not ok")

    def test_skip(self):
        report = self.assertPasses(doc("""
            KTAP version 1
            1..3
            ok 1 a
            ok 2 b # SKIP needs 2 CPUs
            not ok 3 c # SKIP no HPET
            """))
        self.assertEqual(report.skipped, ["b", "c"])

    def test_todo_is_not_a_pass(self):
        self.assertFails("KTAP version 1\n1..1\nnot ok 1 a # TODO\n",
                         "a: not ok")

    def test_garbage_interleaved(self):
        text = doc("""
            \x1b[H\x1b[J  Booting `nohzk'
            nohzk: booting on CPU 0
            KTAP version 1
            cpu 1: online, APIC ID 1
            1..2
            [   0.123] lapic: timer calibrated
                KTAP version 1
            smp: 4 CPUs online
                1..1
               ok 3 misaligned garbage is ignored
                ok 1 inner
            ok the word ok at the start of a printk line
            ok 1 suite
            okay 2 not a result either
            # a diagnostic
            ok 2 other
            nohzk: power-off status=0
            """)
        report = self.assertPasses(text)
        self.assertEqual(report.total, 3)

    def test_no_document(self):
        self.assertFails("nohzk: power-off status=0\n", "no KTAP document")
        self.assertFails("", "no KTAP document")

    def test_wrong_version(self):
        self.assertFails("KTAP version 2\n1..0\n", "expected 'KTAP version 1'")

    def test_every_document_must_pass(self):
        self.assertPasses(PASSING + PASSING)
        self.assertFails(PASSING + "KTAP version 1\n1..1\nnot ok 1 x\n",
                         "document 2", "x: not ok")
        # A document cut short by the start of another one.
        self.assertFails("KTAP version 1\n1..2\nok 1 a\n" + PASSING,
                         "document 1", "plan 1..2 but 1 result(s)")

    def test_empty_plan(self):
        self.assertPasses("KTAP version 1\n1..0 # SKIP nothing to do\n")

    def test_dash_description(self):
        report = self.assertPasses("KTAP version 1\n1..1\nok 1 - named\n")
        self.assertEqual(report.documents[0].results[0].name, "named")


if __name__ == "__main__":
    unittest.main()
