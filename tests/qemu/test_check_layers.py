"""tools/check/check-layers (run by tests/run as a self-test): an include that
goes down, stays in its layer or names a core interface passes; one that
goes up fails and names the file, the line and both layers; a prototype
in the wrong place fails. The cases use a small tree made here."""
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(TOP, "tools", "check", "check-layers")

ARCHITECTURE = textwrap.dedent("""\
    # Layers

    <!-- check-layers -->
    | layer | folders | what | may also use |
    | --- | --- | --- | --- |
    | 1 | `kernel/lib` | helpers | |
    | 2 | `arch/x86` | hardware | `kernel/entry/*` |
    | 3 | `kernel/time`, `sched`, `rcu` | the nohz core | |
    | 4 | `kernel/process` | processes | `kernel/entry/entry.h` |
    | 5 | `kernel/entry` | system calls | |
    <!-- /check-layers -->

    <!-- check-layers: core -->
    - `kernel/process/printk.h`
    <!-- /check-layers -->
    """)


class CheckLayers(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="check-layers-")
        self.write("docs/architecture.md", ARCHITECTURE)
        for header in ("kernel/lib/string.h", "arch/x86/cpu.h", "kernel/time/tick.h", "sched/task.h",
                       "rcu/rcu.h", "kernel/process/process.h", "kernel/process/printk.h",
                       "kernel/entry/entry.h", "kernel/entry/syscall.h"):
            self.write(header, "")

    def tearDown(self):
        shutil.rmtree(self.top)

    def write(self, rel, text):
        path = os.path.join(self.top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def run_check(self):
        proc = subprocess.run([CHECK, "--top", self.top], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        return proc.returncode, proc.stdout

    def includes(self, rel, *headers):
        self.write(rel, "".join('#include "%s"\n' % h for h in headers) + "int f_%d(void) { return 0; }\n"
                   % abs(hash(rel)))

    def test_downward_same_layer_and_core_pass(self):
        self.includes("kernel/time/tick.c", "kernel/time/tick.h", "sched/task.h", "rcu/rcu.h",
                      "arch/x86/cpu.h", "kernel/lib/string.h", "kernel/process/printk.h")
        self.includes("sched/sched.c", "kernel/time/tick.h")
        self.includes("kernel/entry/syscall.c", "kernel/process/process.h", "arch/x86/cpu.h")
        self.assertEqual((0, ""), self.run_check())

    def test_an_upward_include_fails_with_file_line_and_layers(self):
        self.includes("kernel/time/tick.c", "kernel/lib/string.h", "kernel/process/process.h")
        status, output = self.run_check()
        self.assertEqual(1, status)
        self.assertIn("kernel/time/tick.c:2: includes kernel/process/process.h: "
                      "kernel/time (layer 3) may not use kernel/process (layer 4)", output)

    def test_the_last_column_allows_exactly_what_it_names(self):
        self.includes("arch/x86/traps.c", "kernel/entry/entry.h", "kernel/entry/syscall.h")
        self.includes("kernel/process/exit.c", "kernel/entry/entry.h")
        self.assertEqual((0, ""), self.run_check())
        self.includes("kernel/process/exit.c", "kernel/entry/syscall.h")
        status, output = self.run_check()
        self.assertEqual(1, status)
        self.assertIn("kernel/process/exit.c:1: includes kernel/entry/syscall.h", output)

    def test_a_folder_missing_from_the_table_fails(self):
        self.includes("kernel/newthing/a.c", "kernel/lib/string.h")
        status, output = self.run_check()
        self.assertEqual(1, status)
        self.assertIn("kernel/newthing/a.c:1: its folder is not in the layer table", output)

    def test_a_prototype_of_another_c_file_fails(self):
        self.write("kernel/time/tick.c", "void tick_stop(void)\n{\n}\n")
        self.write("sched/sched.c", "void tick_stop(void);\n\nstatic void helper(void);\n"
                   "void run(void)\n{\n    tick_stop();\n}\n")
        status, output = self.run_check()
        self.assertEqual(1, status)
        self.assertIn("sched/sched.c:1: declares tick_stop, defined in kernel/time/tick.c", output)
        self.assertNotIn("helper", output)
        self.assertNotIn("run", output.replace("tick_stop", ""))

    def test_an_assembly_symbol_declared_in_two_c_files_fails(self):
        self.write("arch/x86/a.c", "extern char vector_stubs[];\nvoid enter(void);\n")
        self.write("kernel/process/b.c", "void enter(void);\n")
        status, output = self.run_check()
        self.assertEqual(1, status)
        self.assertIn("arch/x86/a.c:2: declares enter, as 2 .c files do", output)
        self.assertIn("kernel/process/b.c:1: declares enter, as 2 .c files do", output)
        self.assertNotIn("vector_stubs", output)

    def test_no_table_is_an_error_not_a_pass(self):
        self.write("docs/architecture.md", "# Layers\n")
        status, output = self.run_check()
        self.assertEqual(2, status)
        self.assertIn("no <!-- check-layers -->", output)


if __name__ == "__main__":
    unittest.main()
