"""Self-test of tools/lib/labs.py, the function finder of tools/course/lab."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labs  # noqa: E402

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


if __name__ == "__main__":
    unittest.main()
