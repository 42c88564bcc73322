"""tools/check/check-docs (run by tests/run as a self-test): for each class of
problem, a doc line that names something missing fails, and a line that
names what exists passes. The lines are checked against a small tree made
here, so that the cases do not change with the kernel; one case checks
that the real tree's facts are found at all."""
import importlib.machinery
import importlib.util
import os
import shutil
import tempfile
import textwrap
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_loader = importlib.machinery.SourceFileLoader("check_docs", os.path.join(TOP, "tools", "check", "check-docs"))
_spec = importlib.util.spec_from_loader("check_docs", _loader)
check_docs = importlib.util.module_from_spec(_spec)
_loader.exec_module(check_docs)

TREE = {
    "Makefile": ".PHONY: all run test docs\nall:\n",
    "README.md": "# nohzk\n",
    "kernel/init/params.c": textwrap.dedent("""\
        static struct kernel_param params[] = {
            PARAM_UINT_ONE_OF("hz", &hz, 100, 250, 1000),
            PARAM_STRING("ktest", kernel_params.ktest, sizeof(kernel_params.ktest)),
            PARAM_STRING("tick", tick_param, sizeof(tick_param)),
        };
        """),
    "kernel/time/tick_policy_periodic.c": "TICK_POLICY(periodic,\n    .summary = \"every CPU ticks\");\n",
    "kernel/time/tick_policy_task.c": "TICK_POLICY(task, .summary = \"a nohz task\");\n",
    "kernel/time/tick_policy_more.c": "TICK_POLICY(idle, .rank = 20);\nTICK_POLICY(full, .rank = 40);\n",
    "tools/lib/probes.py": 'PROBES = ["getppid_cpu3", "pipe_cpu3", "spawn", "fork"]\n',
    "kernel/fs/procfs.c": textwrap.dedent("""\
        #define PROC_FILE(path, generate, write) { path, generate, write }
        void procfs_init(void) { vfs_create_device("/proc/self", S_IFLNK | 0777, &procfs_self_ops, 0); }
        """),
    "kernel/time/tick_proc.c": textwrap.dedent("""\
        PROC_FILE("/proc/tick", generate_tick, NULL);
        PROC_FILE("/proc/sys/kernel/tick_policy", generate_tick_policy, write_tick_policy);
        """),
    "kernel/process/proc_pid.c": 'PROC_PID_FILE("nohz", generate_pid_nohz, nohz_task_proc_write);\n',
    "rcu/proc.c": 'PROC_FILE("/proc/rcu", generate_rcu, NULL);\n',
    "user/tock.c": '/* not the kernel\'s */\nPROC_FILE("/proc/tock", generate_tock, NULL);\n',
    "kernel/tick.c": textwrap.dedent("""\
        /* tick_imaginary() is only mentioned here */
        #define TICK_MACRO(x) (x)
        struct tick_state { int running; bool (*busy_may_stop)(int cpu); };
        unsigned tick_hz = 1000;
        static void try_stop(struct cpu *cpu,
                             uint64_t now)
        {
            tick_called_not_defined();
        }
        void tick_recheck(void) { try_stop(0, 0); }
        void printk("output: status=%d\\n");
        """),
    "kernel/tick.h": "void tick_declared(void);\n",
    "kernel/trace.c": 'static void show(void) { printk("reason=%s", why); }\n',
    "arch/x86/entry.asm": "global trap_return\ntrap_return:\n        iretq\n",
    "tests/kernel/tick_test.c": textwrap.dedent("""\
        static void every_cpu_ticks(struct ktest *test) { }
        KTEST_SUITE(tick, KTEST_CASE(every_cpu_ticks));
        """),
    "tests/user/nohz.c": "static const struct ktap_case cases[] = { KTAP_CASE(exec_keeps_it) };\n",
    "tests/qemu/scenarios.py": 'SCENARIOS = [{"name": "nohz-spin"}, {"name": "tick"}]\n',
    "tools/run/boot": "#!/usr/bin/env python3\ndef grub_cfg(append):\n    pass\n",
    "docs/README.md": "# Book\n\n1. [The tick](tick.md)\n",
    "docs/tick.md": "# The tick\n\n## Stopping it\n",
    "docs/architecture.md": "# Design\n",
    "docs/syscalls.md": "| 39 | `getpid` | implemented | |\n",
}


class Tree(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.top = tempfile.mkdtemp(prefix="check-docs-")
        for rel, text in TREE.items():
            path = os.path.join(cls.top, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        cls.checker = check_docs.Checker(check_docs.Repo(cls.top))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.top)

    def classes(self, text, name="docs/tick.md"):
        return [p.cls for p in self.checker.check(name, text)]

    def fails(self, cls, text, name="docs/tick.md"):
        found = self.classes(text, name)
        self.assertIn(cls, found, "%r should fail as %s" % (text, cls))

    def passes(self, text, name="docs/tick.md"):
        problems = self.checker.check(name, text)
        self.assertEqual([], [repr(p) for p in problems], "%r should pass" % text)


class Paths(Tree):
    def test_missing_path(self):
        self.fails("path", "The tick lives in `kernel/tock.c`.")
        self.fails("path", "See kernel/tock.c for the tick.")
        self.passes("The tick lives in `kernel/tick.c` and kernel/tick.h.")

    def test_placeholders_globs_and_products(self):
        self.fails("path", "Each `tests/quux/NAME.c` is a suite.")
        self.passes("Each `tests/kernel/NAME_test.c`, `kernel/*.c`, `kernel/tick.[ch]`; "
                    "the trace goes to `build/trace.json`; the shell is /bin/sh.")

    def test_linux_paths_are_not_ours(self):
        self.passes("As Linux's `kernel/time/tick-sched.c` does.")

    def test_links_and_anchors(self):
        self.fails("path", "[the rest](rest.md)")
        self.fails("path", "[stopping](tick.md#starting-it)")
        self.passes("[stopping](tick.md#stopping-it), [index](README.md), [web](https://example.org/x.md)")

    def test_missing_tool(self):
        self.fails("tool", "Run `tools/run/bootme --smp 4`.")
        self.passes("Run `tools/run/boot --smp 4`.")


class Functions(Tree):
    def test_path_colon_function(self):
        self.fails("function", "`kernel/tick.c: tick_restart()` restarts it.")
        self.passes("`kernel/tick.c: try_stop()` stops it; `kernel/tick.c: tick_recheck(), try_stop()`.")

    def test_variants(self):
        self.fails("function", "`kernel/tick.c: try_stop()/start()`")
        self.fails("function", "`kernel/tick.c` (`try_stop()`, `try_start()`)")
        self.fails("function", "`kernel/tick.c` `try_start()`, `try_stop()`")
        self.fails("function", "`tick.c: try_start()`")
        self.fails("function", "`kernel/tick.c: try_stop()` (5), `tick_recheck()` and `try_start()`")
        self.passes("`kernel/tick.c` (`RES`, `CAL`) are IPI names, not definitions; "
                    "`kernel/tick.c` (`try_stop()`, `TICK_MACRO()`), `tick.c: tick_recheck()`, "
                    "`kernel/tick.c` `tick_hz`, `kernel/tick.c: tick_state`, "
                    "`kernel/tick.c: try_stop()` (5), `tick_recheck()` and `TICK_MACRO()`")

    def test_lengths(self):
        # try_stop() runs from its name's line to its brace: 5 lines;
        # tick_recheck() is one; struct tick_state one; kernel/tick.h one.
        self.passes("`kernel/tick.c: try_stop()` (5) and `tick_recheck()` (1; a wrapper); "
                    "`kernel/tick.c: tick_state` (1), `kernel/tick.h` (1, a prototype).")
        self.fails("length", "`kernel/tick.c: try_stop()` (4)")
        self.fails("length", "`kernel/tick.c: tick_recheck()` (1) and `try_stop()` (6, the heart)")
        self.fails("length", "`kernel/tick.c: tick_state` (2)")
        self.fails("length", "`kernel/tick.h` (2; one prototype)")
        self.passes("`kernel/tick.c: try_stop()`, `tick_recheck()` (6 together)")
        self.fails("length", "`kernel/tick.c: try_stop()` and `tick_recheck()` (5 together)")
        # The file is the last one named in the paragraph, or the one file
        # that defines the name.
        self.fails("length", "`kernel/tick.h` names it; `tick_recheck()` (2)")
        self.passes("Counts: (10 cases), `kernel/tick.c` (11 lines), `try_stop()` (x).")

    def test_a_mention_in_a_comment_or_call_is_not_a_definition(self):
        self.fails("function", "`kernel/tick.c: tick_imaginary()`")
        self.fails("function", "`kernel/tick.c: tick_called_not_defined()`")

    def test_headers_declare_asm_labels_and_scripts(self):
        self.fails("function", "`kernel/tick.c: tick_declared()`")
        self.passes("`kernel/tick.h: tick_declared()`, `arch/x86/entry.asm: trap_return`, "
                    "`tools/run/boot: grub_cfg()`")

    def test_bare_names(self):
        self.fails("name", "Then `tick_restart()` runs.")
        self.passes("Then `try_stop()` runs, or `busy_may_stop()`, `getpid()`; Linux calls "
                    "`tick_nohz_stop_tick()`.")


class Parameters(Tree):
    def test_unknown_parameter(self):
        self.fails("param", "Boot with `nohz=on`.")
        self.fails("param", "tools/run/boot --append 'hz=100 nohz=on'")
        self.passes("Boot with `hz=100` or tick=task; tools/run/boot --append 'hz=100 tick=periodic'.")

    def test_enum_value(self):
        self.fails("param", "Boot with `tick=sometimes`.")

    def test_output_fields_are_not_parameters(self):
        self.passes("The console says `status=0` and the trace `reason=timer`.")
        self.fails("param", "tools/run/boot --append 'status=0'")

    def test_linux_parameters_in_a_sentence_about_linux(self):
        self.passes("Linux leaves this to `isolcpus=`.")


class Proc(Tree):
    def test_unknown_proc_file(self):
        self.fails("proc", "Read `/proc/tock`.")
        self.fails("proc", "Read /proc/self/tock.")
        self.fails("proc", "Read `/proc/PID/tick`.")
        self.passes("Read `/proc/tick`, /proc/self/nohz, `/proc/PID/nohz`, `/proc/sys/kernel/tick_policy` "
                    "and /proc/sys/kernel; `cat /proc/$!/nohz`; `/proc/rcu`, `/proc/self`.")


class Suites(Tree):
    def test_unknown_suite(self):
        self.fails("suite", "Run `ktest=tock`.")
        self.fails("suite", "tools/run/boot --append 'ktest=tick,tock'")
        self.passes("Run `ktest=tick` or `ktest=all`.")


class Scenarios(Tree):
    def test_unknown_scenario(self):
        self.fails("scenario", "The tick stops (scenario `nohz-sprint`).")
        self.fails("scenario", "Scenarios `nohz-spin`, `nohz-sprint` show it.")
        self.fails("scenario", "The `nohz-sprint` scenario shows it.")
        self.fails("scenario", "The tick stops (scenario: nohz-sprint).")
        self.passes("The tick stops (scenario `nohz-spin`); scenarios `nohz-spin` and `tick`; "
                    "(scenario: nohz-spin), (scenarios: nohz-spin, tick).")


class Make(Tree):
    def test_unknown_target(self):
        self.fails("make", "Run `make everything`.")
        self.fails("make", "```\nmake -j2 everything\n```")
        self.passes("Run `make test`, `make docs CPUS=2`, `make -j2 all`, `make -C tests/kernel x`.")


class Tests(Tree):
    def test_named_test_case(self):
        self.fails("test", "It is kept (test: `tests/user/nohz.c: exec_drops_it`).")
        self.fails("test", "It is kept (test: tests/user/nohz.c: exec_drops_it).")
        self.fails("test", "Kept (test: tests/kernel/tick_test.c: every_cpu_ticks, and\n"
                           "tests/user/nohz.c: exec_keeps_it, exec_drops_it).")
        self.fails("test", "It is kept (case `exec_drops_it`).")
        self.passes("It is kept (test: `tests/user/nohz.c: exec_keeps_it`), "
                    "(test: `tests/kernel/tick_test.c: every_cpu_ticks()`), (case `exec_keeps_it`), "
                    "(test: tests/kernel/tick_test.c: every_cpu_ticks, and\ntests/user/nohz.c: exec_keeps_it).")


class OutsideAndDiary(Tree):
    def test_outside_documents(self):
        self.fails("outside", "Read `%s.md` first." % "DESIGN")
        self.fails("outside", "The patches (`../%s/seeds/`)." % "shared")
        self.fails("outside", "[the plan](../../plan.md)")
        self.passes("[the README](../README.md) says so, and [the design](architecture.md); the seed series has 15 "
                    "patches.")

    def test_diary(self):
        # Built at run time, so that this file does not read as a diary itself.
        for line in ["This %s, 26 runs." % "session", "the previous %s's run" % "session",
                     "an earlier %s measured" % "session", "as quoted in %s 7" % "issue",
                     "A second run, a %s later" % "session"]:
            self.fails("diary", line)
        self.passes("Its session has no controlling terminal.")


class Allow(Tree):
    def test_allow_comment(self):
        self.passes("<!-- check-docs: allow /proc/poll (an exercise) -->\nCount in `/proc/poll`.")
        self.fails("allow", "<!-- check-docs: allow /proc/tick -->\nRead `/proc/tick`.")


class Figures(Tree):
    TABLE = "\n\n| run | ticks |\n| --- | --- |\n| 1 | 12 |\n"

    def test_a_dated_figure_names_its_commit_and_command(self):
        self.passes("`tools/run/boot --smp 4 -- 'spin 1'`, 2026-12-04, commit 3c6d64e:" + self.TABLE)
        self.fails("figure", "`tools/run/boot --smp 4 -- 'spin 1'`, 2026-12-04:" + self.TABLE)
        self.fails("figure", "Spinning for a second, 2026-12-04, commit 3c6d64e:" + self.TABLE)
        self.passes("Spinning, 2026-12-04, commit 3c6d64e:\n\n    $ tools/run/boot -- 'spin 1'\n    ticks 12\n")
        self.passes("Read off the code on 2026-12-04 (commit not recorded, no command):" + self.TABLE)
        # Not a figure: no date, or the paragraph does not lead into the block.
        self.passes("Spinning for a second:" + self.TABLE)
        self.passes("Spinning for a second on 2026-12-04." + self.TABLE)

    def test_the_commit_must_exist(self):
        repo = check_docs.Repo(TOP)
        if not os.path.exists(os.path.join(TOP, ".git")):
            self.skipTest("no .git: any hex word passes")
        head = check_docs.subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"],
                                         stdout=check_docs.subprocess.PIPE, text=True).stdout.strip()
        self.assertTrue(repo.is_commit(head))
        self.assertFalse(repo.is_commit("0000000"))


class Lists(Tree):
    def test_a_list_of_all_the_policies_but_one(self):
        self.passes("Policies: `periodic`, `idle`, `task` and `full`.")
        self.passes("| `tick=` | `tick=periodic`, `tick=idle`, `tick=task`, `tick=full` |")
        self.fails("list", "Policies: `periodic`, `idle` and `task`.")
        self.fails("list", "| `tick=` | `periodic`, `idle`, `full` |\n| other | row |")
        self.passes("The ones that stop a busy tick: `task` and `full`.")

    def test_a_table_column(self):
        self.fails("list", "| probe | ratio |\n| --- | --- |\n| `getppid_cpu3` | 1 |\n| `pipe_cpu3` | 2 |\n"
                           "| `spawn` | 3 |\n")
        self.passes("| probe | ratio |\n| --- | --- |\n| `getppid_cpu3` | 1 |\n| `pipe_cpu3` | 2 |\n"
                    "| `spawn` | 3 |\n| `fork` | 4 |\n")

    def test_probes(self):
        self.fails("list", "Probes: `getppid_cpu3`, `pipe_cpu3` and `spawn`.")
        self.passes("Probes: `getppid_cpu3`, `pipe_cpu3`, `spawn` and `fork`.")


class Tables(Tree):
    def table(self, rows):
        return ("<!-- check-docs: ktap-suites -->\n| suite | checks |\n| --- | --- |\n%s\n"
                "<!-- /check-docs -->\n" % "\n".join(rows))

    def test_ktap_suite_table(self):
        self.passes(self.table(["| `tick` | it ticks |"]))
        self.fails("table", self.table([]))
        self.fails("table", self.table(["| `tick` | it ticks |", "| `tock` | gone |"]))

    def test_other_kinds(self):
        self.passes("<!-- check-docs: kernel-params -->\n| p | m |\n| --- | --- |\n| `hz=` | a |\n"
                    "| `ktest=` | b |\n| `tick=` | c |\n<!-- /check-docs -->\n")
        self.fails("table", "<!-- check-docs: proc-files -->\n| f | m |\n| --- | --- |\n| `/proc/tick` | a |\n"
                   "<!-- /check-docs -->\n")
        self.passes("<!-- check-docs: proc-files -->\n| f | m |\n| --- | --- |\n| `/proc/tick` | a |\n"
                    "| `/proc/sys/kernel/tick_policy` | b |\n| `/proc/rcu` | c |\n| `/proc/self` | d |\n"
                    "| `/proc/PID/nohz` | e |\n<!-- /check-docs -->\n")
        self.passes("<!-- check-docs: make-targets -->\n| c | d |\n| --- | --- |\n| `make all`, `make run` | a |"
                    "\n| `make test` | b |\n| `make docs` | c |\n<!-- /check-docs -->\n")

    def test_tools_table(self):
        table = "<!-- check-docs: tools -->\n| program | use |\n| --- | --- |\n%s\n<!-- /check-docs -->\n"
        self.passes(table % "| **run** | |\n| `tools/run/boot` | boots |")
        self.fails("table", table % "| `tools/run/boot` | boots |\n| `tools/run/bootme` | gone |")
        self.fails("table", table % "| `tools/measure/trace` | moved |")

    def test_unclosed_or_unknown_table(self):
        self.fails("table", "<!-- check-docs: ktap-suites -->\n| s |\n| --- |\n| `tick` |\n")
        self.fails("table", "<!-- check-docs: colours -->\n<!-- /check-docs -->\n")


class Sources(Tree):
    """Comments in the sources cite the book by existing anchors, and the
    2010 series by chapter, not by patch number."""

    def source_classes(self, text, name="kernel/tick.c"):
        return [repr(p) for p in self.checker.check_source(name, text)]

    def test_anchor_in_a_comment(self):
        self.assertEqual([], self.source_classes("int x; /* (docs/tick.md#stopping-it), docs/tick.md */\n"))
        self.assertEqual(["2: source: no heading for `#starting-it` in docs/tick.md"],
                         self.source_classes("int x;\n/* (docs/tick.md#starting-it) */\n"))
        self.assertEqual(["1: source: no such file `docs/tock.md`"],
                         self.source_classes("// docs/tock.md#stopping-it\n"))
        self.assertEqual([], self.source_classes("/* each docs/NAME.md is a chapter */\n"))

    def test_numbered_patch_in_a_comment(self):
        for text, name in [("x(); /* (patch 05) */\n", "kernel/tick.c"),
                           ("/* restarts it (patch\n * 06) */\n", "kernel/tick.h"),
                           ("x = 1  # patches 10-11\n", "tests/qemu/scenarios.py"),
                           ("def f():\n    'Patch 13: it stays.'\n", "tools/lib/x.py"),
                           ("        iretq   ; patch 08\n", "arch/x86/entry.asm")]:
            found = self.source_classes(text, name)
            self.assertEqual(1, len(found), "%r in %s: %r" % (text, name, found))
            self.assertIn(": source: ", found[0])

    def test_code_is_not_a_comment(self):
        self.assertEqual([], self.source_classes('printk("patch 05 docs/tock.md");\n'))
        self.assertEqual([], self.source_classes('x = "patch 05"  # docs/tick.md#stopping-it\n',
                                                 "tools/lib/x.py"))
        self.assertEqual([], self.source_classes("/* patch-05, 2 patches */\n"))

    def test_the_whole_tree_is_read(self):
        top = tempfile.mkdtemp(prefix="check-docs-src-")
        try:
            for rel, text in TREE.items():
                os.makedirs(os.path.dirname(os.path.join(top, rel)), exist_ok=True)
                with open(os.path.join(top, rel), "w") as f:
                    f.write(text)
            with open(os.path.join(top, "rcu", "gp.c"), "w") as f:
                f.write("/* ok (docs/tick.md#stopping-it) */\nint gp;\n/* kept (patch 06) */\n")
            found = [(rel, p.line, p.cls) for rel, p in check_docs.run(top, diagrams=False) if p.cls == "source"]
            self.assertEqual([("rcu/gp.c", 3, "source")], found)
            self.assertEqual(["rcu/gp.c:3: source"],
                             ["%s:%d: %s" % (rel, p.line, p.cls) for rel, p in check_docs.run(top, ["rcu/gp.c"])])
        finally:
            shutil.rmtree(top)


class Chapters(unittest.TestCase):
    def test_every_chapter_has_exercises(self):
        top = tempfile.mkdtemp(prefix="check-docs-chapters-")
        try:
            for rel, text in TREE.items():
                os.makedirs(os.path.dirname(os.path.join(top, rel)), exist_ok=True)
                with open(os.path.join(top, rel), "w") as f:
                    f.write(text)
            chapters = lambda: [p.message for _, p in check_docs.run(top, diagrams=False) if p.cls == "chapter"]
            self.assertEqual(["chapter 1 has no Exercises heading (docs/README.md says every chapter has)"],
                             chapters())
            with open(os.path.join(top, "docs", "tick.md"), "a") as f:
                f.write("\n## Exercises\n\n1. Stop it.\n")
            self.assertEqual([], chapters())
        finally:
            shutil.rmtree(top)


class Diagrams(unittest.TestCase):
    SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d"><g id="node1" class="node"><title>a</title>'
           '<ellipse cx="%d" cy="1" rx="2" ry="3"/><text x="%d" y="4">%s</text></g></svg>')

    def test_shape_ignores_layout_only(self):
        shape = check_docs.svg_shape
        self.assertEqual(shape(self.SVG % (10, 1, 2, "ticking")), shape(self.SVG % (12, 5, 7, "ticking")))
        self.assertNotEqual(shape(self.SVG % (10, 1, 2, "ticking")), shape(self.SVG % (10, 1, 2, "stopped")))

    @unittest.skipUnless(shutil.which("dot"), "graphviz not installed (tools/build/check-deps)")
    def test_out_of_date_svg(self):
        top = tempfile.mkdtemp(prefix="check-docs-dot-")
        try:
            os.makedirs(os.path.join(top, "docs", "diagrams"))
            os.makedirs(os.path.join(top, "docs", "img"))
            source = os.path.join(top, "docs", "diagrams", "x.dot")
            with open(source, "w") as f:
                f.write('digraph x { a -> b [label="kick"]; }\n')
            self.assertEqual(["diagram"], [p.cls for _, p in check_docs.check_diagrams(top)])   # missing
            check_docs.render_dot(source, os.path.join(top, "docs", "img", "x.svg"))
            self.assertEqual([], check_docs.check_diagrams(top))
            with open(source, "w") as f:
                f.write('digraph x { a -> b [label="no kick"]; }\n')
            self.assertEqual(["diagram"], [p.cls for _, p in check_docs.check_diagrams(top)])
        finally:
            shutil.rmtree(top)


class RealTree(unittest.TestCase):
    """The extraction finds the real tree's items, and nothing made up."""

    def test_facts(self):
        repo = check_docs.Repo(TOP)
        self.assertTrue({"hz", "tick", "ktest", "nohz_full"} <= set(repo.params()))
        self.assertIn("task", repo.params()["tick"])
        self.assertTrue({"tick", "nohz", "nohz_race"} <= repo.suites())
        self.assertTrue({"/proc/tick", "/proc/rcu", "/proc/stat", "/proc/self", "/proc/PID/nohz"} <= repo.proc_files())
        self.assertNotIn("/proc/PID/tick", repo.proc_files())
        self.assertTrue({"nohz-spin", "nohz-race"} <= repo.scenarios())
        self.assertTrue({"run", "test", "docs"} <= repo.make_targets())
        self.assertIn("a_second_task_kicks_the_tick_back", repo.test_cases())
        self.assertTrue({"try_stop", "tick_recheck", "keep_reason"} <= repo.definitions("kernel/time/tick_stop.c"))
        self.assertIn("tick_do_periodic_work", repo.definitions("kernel/time/tick.c"))
        self.assertNotIn("tick_do_periodic_work", repo.definitions("kernel/time/tick_stop.c"))
        for made_up in ("nohz_sprint", "tock"):
            self.assertNotIn(made_up, repo.params())
            self.assertNotIn(made_up, repo.suites())


if __name__ == "__main__":
    unittest.main()
