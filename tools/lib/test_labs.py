"""Self-test of tools/lib/labs.py, the function finder of tools/course/lab."""

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labs  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_grade():
    """tools/course/grade, a script without .py, as a module."""
    loader = importlib.machinery.SourceFileLoader("grade", os.path.join(REPO, "tools", "course", "grade"))
    spec = importlib.util.spec_from_loader("grade", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module

SOURCE = '''/* keep_reason(x) { in a comment } */
static int keep_reason(struct cpu *cpu);
static int keep_reason(struct cpu *cpu,
                       int now)
{
    const char *s = "}{";
    char c = '}';
    if (now) { return 1; }   /* } */
    return cpu->keep_reason(0);
}

void rcu_user_enter(void) { eqs_enter(1); }
int caller(void)
{
    return keep_reason(0, 0);
}
'''


class FindFunction(unittest.TestCase):
    def body(self, text, name):
        start, end = labs.find_function(text, name)
        return text[start:end + 1]

    def test_multi_line_signature_skips_prototype_strings_and_comments(self):
        body = self.body(SOURCE, "keep_reason")
        self.assertTrue(body.startswith("{\n    const char *s"))
        self.assertTrue(body.endswith("return cpu->keep_reason(0);\n}"))

    def test_one_line_definition(self):
        self.assertEqual(self.body(SOURCE, "rcu_user_enter"), "{ eqs_enter(1); }")

    def test_missing_function_is_an_error(self):
        with self.assertRaisesRegex(labs.LabError, "not found"):
            labs.find_function(SOURCE, "try_stop")

    def test_a_call_or_indented_name_is_not_a_definition(self):
        with self.assertRaisesRegex(labs.LabError, "not found"):
            labs.find_function("int f(void)\n{\n    g(1);\n}\n", "g")

    def test_defined_twice_is_an_error(self):
        with self.assertRaisesRegex(labs.LabError, "defined 2 times"):
            labs.find_function("int f(void)\n{\n}\nint f(void)\n{\n}\n", "f")

    def test_a_system_call_is_found_by_its_definition_macro(self):
        text = ("SYSCALL_DEFINE2(getrlimit, uint32_t, resource, void *, user_limit)\n{\n    return 1;\n}\n"
                "SYSCALL_DEFINE0(getrlimit_extra)\n{\n    return 2;\n}\n"
                "long f(void)\n{\n    return sys_getrlimit(0, 0);\n}\n")
        self.assertEqual(self.body(text, "sys_getrlimit"), "{\n    return 1;\n}")
        self.assertEqual(self.body(text, "sys_getrlimit_extra"), "{\n    return 2;\n}")
        with self.assertRaisesRegex(labs.LabError, "not found"):
            labs.find_function(text, "getrlimit")

    def test_stub_replaces_only_the_body(self):
        text = labs.stub_function(SOURCE, "keep_reason", "(void)cpu;\nreturn 0;", "/* LAB x */")
        self.assertIn("                       int now)\n{\n    /* LAB x */\n    (void)cpu;\n    return 0;\n}\n\nvoid", text)
        self.assertIn("static int keep_reason(struct cpu *cpu);", text)
        self.assertIn("return keep_reason(0, 0);", text)

    def test_stub_tree_writes_nothing_when_one_function_is_missing(self):
        with tempfile.TemporaryDirectory() as root:
            with open(os.path.join(root, "a.c"), "w") as f:
                f.write(SOURCE)
            lab = {"name": "x", "functions": [{"at": "a.c: keep_reason", "stub": ""},
                                              {"at": "a.c: gone", "stub": ""}]}
            with self.assertRaises(labs.LabError):
                labs.stub_tree(root, lab)
            with open(os.path.join(root, "a.c")) as f:
                self.assertEqual(f.read(), SOURCE)


class TheLabFiles(unittest.TestCase):
    def test_every_lab_names_functions_that_exist_once(self):
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        names = labs.lab_names(repo)
        self.assertGreaterEqual(len(names), 4)
        for name in names:
            lab = labs.load_lab(repo, name)
            self.assertTrue(any(t.get("skeleton") == "pass" for t in lab["tests"]), name)
            self.assertTrue(any(t.get("skeleton", "fail") == "fail" for t in lab["tests"]), name)
            for entry in lab["functions"]:
                path, function = labs.split_at(entry["at"])
                with open(os.path.join(repo, path)) as f:
                    labs.find_function(f.read(), function, path)

    def test_every_mutant_names_its_mistake_and_applies(self):
        for name in labs.lab_names(REPO):
            lab = labs.load_lab(REPO, name)
            self.assertGreaterEqual(len(lab.get("mutants", [])), 4, name)
            for mutant in lab["mutants"]:
                self.assertTrue(mutant["mistake"].endswith("."), mutant["name"])
                labs.apply_patch(REPO, os.path.join(REPO, mutant["patch"]), check_only=True)


class Grader(unittest.TestCase):
    """tools/course/grade's verdicts, on made-up console output."""

    @classmethod
    def setUpClass(cls):
        cls.grade = load_grade()

    def test_a_panic_fails_the_boot_whatever_was_printed_before(self):
        text = "lab-smoke 42\n\nPANIC: cpu 3: assertion failed\n"
        self.assertIn("panicked: PANIC: cpu 3", self.grade.boot_trouble(253, text))
        self.assertIn("timed out", self.grade.boot_trouble(124, "lab-smoke 42\n"))
        self.assertIsNone(self.grade.boot_trouble(0, "lab-smoke 42\n"))

    def test_an_order_failure_names_both_lines(self):
        test = {"in_order": ["^second$", "^first$"]}
        reasons = self.grade.order_reasons(test, "first\nsecond\n")
        self.assertIn("/^first$/", reasons[0])
        self.assertIn("'second'", reasons[1])
        self.assertIn("line 1: 'first'", reasons[2])

    def test_partial_credit_per_regex(self):
        test = {"points": 30, "must_contain": [{"re": "^a$", "points": 10}, {"re": "^b$", "points": 20}]}
        self.assertEqual(self.grade.judge(test, 0, "a\n")[0], 10)
        self.assertEqual(self.grade.judge(test, 0, "a\nb\n"), (30, []))
        whole = dict(test, must_contain=test["must_contain"] + ["^c$"])
        self.assertEqual(self.grade.judge(whole, 0, "a\nb\n")[0], 0)

    def test_the_line_a_test_is_about_is_shown_past_the_limit(self):
        lines = ["3 row %d" % i for i in range(40)]
        text = "spin: cpu 3 after the first second: LOC 9\n" + "\n".join(lines) + "\n"
        test = {"must_contain": ["^spin: cpu 3 after the first second: LOC 0"], "show": "^3 "}
        shown = self.grade.shown_lines(text, test)
        self.assertEqual(shown[0], "spin: cpu 3 after the first second: LOC 9")
        self.assertEqual(len(shown), 1 + self.grade.SHOWN)
        about = self.grade.shown_lines(text, dict(test, about="^3 row 1$"))
        self.assertIn("3 row 1", about)

    def test_a_hung_case_is_the_one_started_without_a_result(self):
        text = ("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: rcu\n    1..3\n"
                "    ok 1 first\n")
        self.assertEqual(self.grade.pending_case(text, ["rcu/first", "rcu/second", "rcu/third"]), "rcu/second")


class Export(unittest.TestCase):
    """make lab-export: a stand-alone repository without the solution
    that builds (from this tree's objects, so only the stub compiles)."""

    def test_export_has_the_stub_not_the_solution_and_builds(self):
        if not os.path.isdir(os.path.join(REPO, "build", "obj")):
            self.fail("build/obj is missing: make all first (tests/run runs after the build)")
        lab = labs.load_lab(REPO, "nohz-kick")
        body = labs.solution_lines(REPO, lab)
        self.assertTrue(body)
        with tempfile.TemporaryDirectory() as parent:
            target = os.path.join(parent, "lab")
            proc = subprocess.run([os.path.join(REPO, "tools", "course", "lab"), "export", "nohz-kick", target],
                                  cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.assertEqual(proc.returncode, 0, proc.stdout)
            log = subprocess.run(["git", "log", "--oneline"], cwd=target, stdout=subprocess.PIPE, text=True).stdout
            self.assertEqual(len(log.splitlines()), 1, log)
            files = subprocess.run(["git", "ls-files"], cwd=target, stdout=subprocess.PIPE, text=True).stdout.split()
            self.assertFalse([f for f in files if "instructor" in f or "/mutants/" in f])
            for path in files:
                self.assertFalse(labs.quotes_any(os.path.join(target, path), body), path)
            with open(os.path.join(target, "kernel", "time", "tick_stop.c")) as f:
                self.assertIn("LAB nohz-kick: your code here", f.read())
            with open(os.path.join(target, "README.md")) as f:
                self.assertIn("make grade LAB=nohz-kick", f.read())
            for entry in labs.SEEDED:       # this tree's objects: only the stubbed file compiles
                source = os.path.join(REPO, "build", entry)
                if os.path.isdir(source):
                    subprocess.run(["cp", "-a", source, os.path.join(target, "build", entry)], check=True)
                elif os.path.isfile(source):
                    subprocess.run(["cp", "-a", source, os.path.join(target, "build", entry)], check=True)
            build = subprocess.run(["make", "-s", "-C", target, "-j2", "kernel"], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
            self.assertEqual(build.returncode, 0, build.stdout[-2000:])
            self.assertTrue(os.path.isfile(os.path.join(target, "build", "nohzk.elf")))


if __name__ == "__main__":
    unittest.main()
