"""docs/syscalls.md matches the table in kernel/syscall.c (run by
tests/run as a self-test): regenerated text identical, and every name in
the kernel's table is Linux's name for that number."""
import importlib.machinery
import importlib.util
import os
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_loader = importlib.machinery.SourceFileLoader("syscall_table", os.path.join(TOP, "tools", "syscall-table"))
_spec = importlib.util.spec_from_loader("syscall_table", _loader)
table = importlib.util.module_from_spec(_spec)
_loader.exec_module(table)


class SyscallTable(unittest.TestCase):
    def test_doc_is_current(self):
        with open(table.DOC) as doc:
            self.assertEqual(doc.read(), table.render(), "run tools/syscall-table")

    def test_kernel_names_are_linux_names(self):
        names = table.linux_names()
        for number, name in table.handled().items():
            self.assertEqual(names.get(number), name, "syscall %d" % number)

    def test_partial_notes_name_real_calls(self):
        known = set(table.linux_names().values())
        self.assertEqual(set(table.PARTIAL) - known, set())


if __name__ == "__main__":
    unittest.main()
