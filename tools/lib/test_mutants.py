"""Self-test of tools/lib/mutants.py, the mutations of tools/check/mutate."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labs  # noqa: E402
import mutants  # noqa: E402

SOURCE = '''static int keep_reason(int now)
{
    if (now)
        return 1;
    return 0;
}

static int other(int now)
{
    if (now)
        return 1;
    return 2;
}
'''

MUTATION = '''Mutation: keep_reason never keeps
Killed-by: tick
Expect: ^not ok
# a comment
@@ src/a.c: keep_reason @@
-    if (now)
-        return 1;
+    (void)now;
     return 0;
'''


class Mutations(unittest.TestCase):
    def tree(self, mutation_text, source=SOURCE):
        root = tempfile.mkdtemp()
        os.makedirs(os.path.join(root, "src"))
        os.makedirs(os.path.join(root, mutants.MUTATION_DIR))
        with open(os.path.join(root, "src", "a.c"), "w") as f:
            f.write(source)
        with open(os.path.join(root, mutants.MUTATION_DIR, "m.patch"), "w") as f:
            f.write(mutation_text)
        return root

    def test_applies_inside_the_named_function_only(self):
        root = self.tree(MUTATION)
        mutation = mutants.load_mutation(root, "m")
        self.assertEqual((mutation["killed_by"], mutation["expect"]), ("tick", "^not ok"))
        self.assertEqual(mutants.apply_mutation(root, mutation), ["src/a.c"])
        text = open(os.path.join(root, "src", "a.c")).read()
        self.assertIn("{\n    (void)now;\n    return 0;\n}", text)
        self.assertIn("    if (now)\n        return 1;\n    return 2;", text)   # other() untouched

    def test_lines_not_in_the_function_are_an_error_naming_it(self):
        root = self.tree(MUTATION.replace("@@ src/a.c: keep_reason @@", "@@ src/a.c: other @@"))
        with self.assertRaisesRegex(mutants.MutationError, r"src/a.c: the lines to change are not in the body of other"):
            mutants.apply_mutation(root, mutants.load_mutation(root, "m"))
        self.assertEqual(open(os.path.join(root, "src", "a.c")).read(), SOURCE)

    def test_a_function_that_moved_is_an_error(self):
        root = self.tree(MUTATION.replace("keep_reason @@", "gone @@"))
        with self.assertRaisesRegex(labs.LabError, r"function gone not found"):
            mutants.apply_mutation(root, mutants.load_mutation(root, "m"))

    def test_lines_found_twice_are_an_error(self):
        source = SOURCE.replace("    return 0;\n}", "    if (now)\n        return 1;\n    return 0;\n}", 1)
        root = self.tree(MUTATION.replace("     return 0;\n", ""), source)
        with self.assertRaisesRegex(mutants.MutationError, r"are 2 times in the body of keep_reason"):
            mutants.apply_mutation(root, mutants.load_mutation(root, "m"))

    def test_headers_are_required(self):
        for drop in ("Killed-by: tick\n", "Expect: ^not ok\n", "Mutation: keep_reason never keeps\n"):
            root = self.tree(MUTATION.replace(drop, ""))
            with self.assertRaisesRegex(mutants.MutationError, "no '%s:' line" % drop.split(":")[0]):
                mutants.load_mutation(root, "m")

    def test_a_hunk_that_changes_nothing_is_refused(self):
        root = self.tree("Mutation: x\nKilled-by: tick\nExpect: y\n@@ src/a.c: keep_reason @@\n     return 0;\n")
        with self.assertRaisesRegex(mutants.MutationError, "changes nothing"):
            mutants.load_mutation(root, "m")


if __name__ == "__main__":
    unittest.main()
