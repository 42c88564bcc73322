"""The labs (docs/labs/README.md): reading a lab file, finding a C
function's body in today's sources, and replacing it by the lab's stub.
Used by tools/course/lab and tools/course/grade.

A lab file, docs/labs/NAME.lab, is JSON:

    {"handout": "docs/labs/NAME.md",
     "functions": [{"at": "kernel/time/tick_stop.c: try_stop",
                    "stub": "(void)cpu, (void)now, (void)at_tick;"}],
     "policy": "patient",                 (optional; {policy} in tests)
     "tests": [{"name": "...", "points": 20,
                "boot": {"smp": 4, "append": "ktest=tick", "command": "...",
                         "timeout": 90},
                "ktap_case": "tick/idle_cpus_stop_their_tick",
                "must_contain": ["regex", {"re": "regex", "points": 10}],
                "must_not_contain": ["regex"],
                "skeleton": "fail"}],     ("pass": the skeleton keeps it)
     "mutants": [{"name": "missing-barrier",
                  "patch": "docs/labs/mutants/NAME/missing-barrier.patch",
                  "mistake": "one sentence: the wrong idea it encodes"}]}

A mutant is a plausible wrong answer: a `git apply`-able diff (paths
a/..., b/...) against the full kernel, the reference solution. make test
builds each (build_mutant, from this tree's objects) and requires that
it loses points (tools/course/grade --mutant).

A test may give "scenario": NAME (tests/qemu/scenarios.py) instead of
"boot"; tools/course/grade then boots and judges it as that scenario.

A function is found by its definition: a line at column 0 naming it,
followed by its parameters and then "{" (a prototype ends with ";"
first); a system call, sys_NAME, also by its SYSCALL_DEFINEn(NAME, ...).
Its body runs to the matching "}", strings, characters and comments
skipped. A listed function found zero times or twice is an
error: code that moved is noticed at once.
"""

import json
import os
import re
import shutil
import subprocess

LAB_DIR = os.path.join("docs", "labs")
SEEDED = ("obj", "ksyms_empty.o", "trampoline.bin", "objects.list")   # build/ entries copy_tree takes


class LabError(Exception):
    pass


def lab_path(repo, name):
    return os.path.join(repo, LAB_DIR, name + ".lab")


def names_in(repo, folder, suffix):
    """The names of folder's files that end in suffix, sorted, suffix cut."""
    directory = os.path.join(repo, folder)
    if not os.path.isdir(directory):
        return []
    return sorted(f[:-len(suffix)] for f in os.listdir(directory) if f.endswith(suffix))


def lab_names(repo):
    return names_in(repo, LAB_DIR, ".lab")


def load_lab(repo, name):
    if not re.match(r"^[a-z0-9][a-z0-9-]*$", name or ""):
        raise LabError("bad lab name %r (letters, digits, -)" % name)
    path = lab_path(repo, name)
    if not os.path.isfile(path):
        raise LabError("no lab %r: %s does not exist (labs: %s)"
                       % (name, os.path.relpath(path, repo), ", ".join(lab_names(repo)) or "none"))
    try:
        with open(path, encoding="utf-8") as f:
            lab = json.load(f)
    except ValueError as e:
        raise LabError("%s: not JSON: %s" % (os.path.relpath(path, repo), e))
    lab["name"] = name
    problems = []
    for entry in lab.get("functions", []):
        if not re.match(r"^[\w./-]+\.c: *\w+$", entry.get("at", "")):
            problems.append("function %r: 'at' must be 'path.c: function_name'" % entry.get("at"))
    points = 0
    for test in lab.get("tests", []):
        if not test.get("name") or not isinstance(test.get("points"), int) or \
                ("boot" in test) == ("scenario" in test):
            problems.append("test %r: needs name, points (integer), and boot or scenario" % test.get("name"))
            continue
        pointed = [e for e in test.get("must_contain", []) if isinstance(e, dict)]
        if any(not isinstance(e.get("re"), str) or not isinstance(e.get("points"), int) for e in pointed) or \
                sum(e.get("points", 0) for e in pointed if isinstance(e.get("points"), int)) > test["points"]:
            problems.append("test %r: a must_contain entry with points is {\"re\": REGEX, \"points\": N}, "
                            "and they add up to at most the test's points" % test["name"])
        if test.get("skeleton", "fail") not in ("fail", "pass"):
            problems.append("test %r: skeleton must be 'fail' or 'pass'" % test["name"])
        points += test["points"]
    if not lab.get("tests"):
        problems.append("no tests")
    seen = set()
    for mutant in lab.get("mutants", []):
        name = mutant.get("name", "")
        if not re.match(r"^[a-z0-9][a-z0-9-]*$", name) or name in seen:
            problems.append("mutant %r: needs a unique name (letters, digits, -)" % name)
        if not mutant.get("mistake"):
            problems.append("mutant %r: needs 'mistake', the wrong idea it encodes" % name)
        if not os.path.isfile(os.path.join(repo, mutant.get("patch", ""))):
            problems.append("mutant %r: patch %r does not exist" % (name, mutant.get("patch")))
        seen.add(name)
    if problems:
        raise LabError("%s: %s" % (os.path.relpath(path, repo), "; ".join(problems)))
    lab["total"] = points
    return lab


def find_mutant(lab, name):
    for mutant in lab.get("mutants", []):
        if mutant["name"] == name:
            return mutant
    raise LabError("lab %s has no mutant %r (mutants: %s)"
                   % (lab["name"], name, ", ".join(m["name"] for m in lab.get("mutants", [])) or "none"))


def apply_patch(root, patch, check_only=False):
    """git apply patch (a path) in root; a directory inside another git
    tree (build/lab-test/ is inside this one) is patched as a plain tree.
    Raises LabError with git's reason."""
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(os.path.abspath(root)))
    cmd = ["git", "apply"] + (["--check"] if check_only else []) + [os.path.abspath(patch)]
    if os.path.isdir(os.path.join(root, ".git")) or os.path.isfile(os.path.join(root, ".git")):
        env.pop("GIT_CEILING_DIRECTORIES")
    proc = subprocess.run(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise LabError("%s does not apply: %s" % (patch, proc.stdout.strip().replace("\n", "; ")))


def tracked_files(repo):
    proc = subprocess.run(["git", "ls-files", "-z"], cwd=repo, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise LabError("git ls-files: %s" % proc.stderr.strip())
    return proc.stdout.split("\0")


def build_mutant(repo, lab, name, work):
    """Copy this tree into work (its objects seeded: only the patched
    files compile), apply the mutant's patch, make kernel. Returns the
    mutant kernel's ELF; LabError with the build's last lines if not."""
    mutant = find_mutant(lab, name)
    copy_tree(repo, work, tracked_files(repo))
    apply_patch(work, os.path.join(repo, mutant["patch"]))
    proc = subprocess.run(["make", "-s", "-C", work, "-j2", "kernel"], stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise LabError("mutant %s does not build:\n%s"
                       % (name, "\n".join("    | " + line for line in proc.stdout.splitlines()[-20:])))
    return os.path.join(work, "build", "nohzk.elf")


def split_at(at):
    path, _, function = at.partition(":")
    return path.strip(), function.strip()


# ---- C scanning ----

def _skip(text, i):
    """If text[i] starts a comment, string or character literal, the index
    just after it; else None."""
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text[i] in "\"'":
        quote, j = text[i], i + 1
        while j < len(text) and text[j] != quote:
            j += 2 if text[j] == "\\" else 1
        return j + 1
    return None


def _match(text, i, opening, closing):
    """text[i] is opening: the index of its matching closing."""
    depth = 0
    while i < len(text):
        after = _skip(text, i)
        if after is not None:
            i = after
            continue
        if text[i] == opening:
            depth += 1
        elif text[i] == closing:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _code_index(text, i):
    """The first index at or after i that is not blank or comment."""
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        after = _skip(text, i) if text[i] == "/" else None
        if after is None:
            return i
        i = after
    return i


def find_function_bodies(text, name):
    """(open, close) indexes of the braces of each definition of name."""
    found = []
    patterns = [re.compile(r"^(?![ \t#/*}])[^\n;{}]*?(?<![\w.>])%s[ \t]*\(" % re.escape(name), re.MULTILINE)]
    if name.startswith("sys_"):     # SYSCALL_DEFINEn(NAME, ...) defines sys_NAME (kernel/entry/syscall.h)
        patterns.append(re.compile(r"^SYSCALL_DEFINE\d[ \t]*\((?=[ \t]*%s[ \t]*[,)])" % re.escape(name[4:]),
                                   re.MULTILINE))
    for m in (m for pattern in patterns for m in pattern.finditer(text)):
        paren = m.end() - 1
        close = _match(text, paren, "(", ")")
        if close < 0:
            continue
        brace = _code_index(text, close + 1)
        if brace < len(text) and text[brace] == "{":
            end = _match(text, brace, "{", "}")
            if end > 0:
                found.append((brace, end))
    return found


def line_of(text, index):
    return text.count("\n", 0, index) + 1


def find_function(text, name, where="source", owner="the lab file"):
    bodies = find_function_bodies(text, name)
    if not bodies:
        raise LabError("%s: function %s not found (no definition at column 0): "
                       "%s is out of date with the code" % (where, name, owner))
    if len(bodies) > 1:
        raise LabError("%s: function %s defined %d times (lines %s): %s cannot "
                       "say which" % (where, name, len(bodies),
                                      ", ".join(str(line_of(text, b)) for b, _ in bodies), owner))
    return bodies[0]


def marker(lab_name, handout):
    return "/* LAB %s: your code here (%s) */" % (lab_name, handout)


def stub_function(text, name, stub, mark, where="source"):
    """text with name's body replaced by the marker and the stub."""
    brace, end = find_function(text, name, where)
    lines = ["{", "    " + mark]
    lines += ["    " + line for line in stub.splitlines() if line.strip()]
    return text[:brace] + "\n".join(lines) + "\n}" + text[end + 1:]


def stub_tree(root, lab):
    """Replace, under root, the body of every function the lab lists.
    Checks every function before writing any file. Returns the paths."""
    handout = lab.get("handout", "%s/%s.md" % (LAB_DIR, lab["name"]))
    mark = marker(lab["name"], handout)
    texts = {}
    for entry in lab.get("functions", []):
        path, function = split_at(entry["at"])
        full = os.path.join(root, path)
        if path not in texts:
            if not os.path.isfile(full):
                raise LabError("%s: no such file (listed by lab %s)" % (path, lab["name"]))
            with open(full, encoding="utf-8") as f:
                texts[path] = f.read()
        texts[path] = stub_function(texts[path], function, entry.get("stub", ""), mark, path)
    for path, text in texts.items():
        with open(os.path.join(root, path), "w", encoding="utf-8") as f:
            f.write(text)
    return sorted(texts)


def solution_lines(repo, lab, shortest=20):
    """The lines of the reference bodies of the lab's functions that give
    them away: at least shortest characters (stripped), not comments, and
    found in no other C or assembly file of repo (a common line such as
    "uint64_t flags = irq_save();" gives nothing away). What an export
    must not contain."""
    found = set()
    for entry in lab.get("functions", []):
        path, function = split_at(entry["at"])
        with open(os.path.join(repo, path), encoding="utf-8") as f:
            text = f.read()
        brace, end = find_function(text, function, path)
        body = text[brace + 1:end]
        stub = [line.strip() for line in entry.get("stub", "").splitlines()]
        for line in body.splitlines():
            line = line.strip()
            if len(line) < shortest or line.startswith(("/*", "*", "//")) or line in stub or \
                    text.count(line) > body.count(line):
                continue
            elsewhere = subprocess.run(["git", "grep", "-l", "-F", "-e", line, "--", "*.c", "*.h", "*.S", "*.asm",
                                        ":!" + path], cwd=repo, stdout=subprocess.PIPE, text=True).stdout
            if not elsewhere.strip():
                found.add(line)
    return found


def quotes_any(path, lines):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return False
    return any(line in text for line in lines)


def copy_tree(repo, target, tracked):
    """A plain copy of the tracked files (times kept) into target, its
    build/ seeded from repo's objects when repo has them, so that
    `make -C target kernel` recompiles only what was changed after the
    copy (tools/course/lab skeleton, tools/check/mutate)."""
    if os.path.exists(target):
        shutil.rmtree(target)
    for path in tracked:
        if path and os.path.isfile(os.path.join(repo, path)):
            os.makedirs(os.path.join(target, os.path.dirname(path)), exist_ok=True)
            shutil.copy2(os.path.join(repo, path), os.path.join(target, path))
    build = os.path.join(repo, "build")
    for entry in SEEDED:
        source = os.path.join(build, entry)
        if os.path.isdir(source):
            shutil.copytree(source, os.path.join(target, "build", entry))
        elif os.path.isfile(source):
            os.makedirs(os.path.join(target, "build"), exist_ok=True)
            shutil.copy2(source, os.path.join(target, "build", entry))
