"""docs/syscalls.md matches the kernel's SYSCALL_DEFINE sites (run by
tests/run as a self-test): regenerated text identical, every call the
kernel defines has a Linux number, the committed numbers are the host's
<asm/unistd_64.h>, and every test case the "edge cases tested" column
names is a KTAP_CASE of tests/user/*.c."""
import importlib.machinery
import importlib.util
import os
import re
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_loader = importlib.machinery.SourceFileLoader("syscall_table", os.path.join(TOP, "tools", "check", "syscall-table"))
_spec = importlib.util.spec_from_loader("syscall_table", _loader)
table = importlib.util.module_from_spec(_spec)
_loader.exec_module(table)


class SyscallTable(unittest.TestCase):
    def test_doc_is_current(self):
        with open(table.DOC) as doc:
            self.assertEqual(doc.read(), table.render(), "run tools/check/syscall-table")

    def test_kernel_names_are_linux_names(self):
        self.assertEqual(set(table.defined()) - set(table.numbers()), set())

    def test_numbers_are_the_hosts(self):
        unistd = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"
        if not os.path.exists(unistd):
            self.skipTest("no %s (linux-libc-dev)" % unistd)
        with open(unistd) as header:
            host = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define __NR_(\w+) (\d+)", header.read())}
        host = {name: number for name, number in host.items() if number <= max(table.numbers().values())}
        self.assertEqual(table.numbers(), host)     # a newer host's later numbers aside

    def test_partial_notes_name_real_calls(self):
        known = set(table.linux_names().values())
        self.assertEqual(set(table.PARTIAL) - known, set())

    def test_documented_edge_cases_exist(self):
        cases = table.test_cases()
        with open(table.DOC) as doc:
            rows = [line for line in doc if re.match(r"^\| \d+ \| `\w+` \|", line)]
        self.assertGreater(len(rows), 300)
        documented = set()
        for row in rows:
            cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip().strip("|"))]     # \| is text
            self.assertEqual(len(cells), 5, row)
            documented |= set(re.findall(r"`(\w+)`", cells[4]))
        self.assertGreater(len(documented), 100)
        self.assertEqual(documented - set(cases), set(), "cases named in docs/syscalls.md but in no tests/user/*.c")

    def test_explicit_edge_cases_exist(self):
        cases, known = table.test_cases(), set(table.linux_names().values())
        self.assertEqual(set(table.EDGE_CASES) - known, set())
        for call, names in table.EDGE_CASES.items():
            self.assertEqual(set(names) - set(cases), set(), call)
        self.assertEqual(table.NOT_EDGE_CASES - set(cases), set())

    def test_prefix_picks_the_longest_call_name(self):
        names = {22: "pipe", 293: "pipe2", 0: "read", 89: "readlink"}
        edges = table.edge_cases(names)
        self.assertNotIn("pipe2_unknown_flags", edges.get("pipe", []))
        self.assertIn("pipe2_unknown_flags", edges["pipe2"])
        self.assertNotIn("readlink_truncates", edges.get("read", []))


if __name__ == "__main__":
    unittest.main()
