"""The kept mutations (tests/mutations/, docs/testing.md "Mutations"):
reading a mutation file and applying it to a copy of the tree, with the
function finder of the labs (tools/lib/labs.py). Used by tools/check/mutate.

A mutation file, tests/mutations/NAME.patch, is a few header lines and
one or more hunks:

    Mutation: try_stop() decides before it takes the runqueue lock
    Killed-by: tick                     (a QEMU scenario of tests/run)
    Expect: not ok \d+ idle_cpu_keeps  (a regex its failing output matches)
    # comment lines, anywhere
    @@ kernel/time/tick_stop.c: try_stop @@
     context line
    -line of today's code
    +the mutated line

A hunk has no line numbers: its context and "-" lines must appear, as
whole consecutive lines, exactly once in the body of the function it
names. A function that moved, or lines that changed, stop the run with
the file and function the mutation expected, as a lab whose function
moved does.
"""

import os
import re

import labs

MUTATION_DIR = os.path.join("tests", "mutations")
HUNK_RE = re.compile(r"^@@ ([\w./-]+\.c): *(\w+) @@$")


class MutationError(labs.LabError):
    pass


def mutation_names(repo):
    return labs.names_in(repo, MUTATION_DIR, ".patch")


def load_mutation(repo, name):
    """{"name", "mutation", "killed_by", "hunks": [(path, function, old, new)]}."""
    if not re.match(r"^[a-z0-9][a-z0-9-]*$", name or ""):
        raise MutationError("bad mutation name %r (letters, digits, -)" % name)
    where = os.path.join(MUTATION_DIR, name + ".patch")
    path = os.path.join(repo, where)
    if not os.path.isfile(path):
        raise MutationError("no mutation %r: %s does not exist (mutations: %s)"
                            % (name, where, ", ".join(mutation_names(repo)) or "none"))
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    header, hunks, problems = {}, [], []
    for number, line in enumerate(lines, 1):
        m = HUNK_RE.match(line)
        if m:
            hunks.append([m.group(1), m.group(2), [], []])
        elif line.startswith("#") and not hunks:
            continue
        elif not hunks:
            key, colon, value = line.partition(":")
            if colon and key in ("Mutation", "Killed-by", "Expect"):
                header[key] = value.strip()
            elif line.strip():
                problems.append("line %d: before the first hunk, only 'Mutation:', 'Killed-by:', "
                                "'Expect:' and '#' lines" % number)
        elif line[:1] in (" ", "-", "+"):
            old, new = hunks[-1][2], hunks[-1][3]
            if line[0] in " -":
                old.append(line[1:])
            if line[0] in " +":
                new.append(line[1:])
        elif line.startswith("#"):
            continue
        else:
            problems.append("line %d: a hunk line starts with ' ', '-' or '+'" % number)
    for key in ("Mutation", "Killed-by", "Expect"):
        if not header.get(key):
            problems.append("no '%s:' line" % key)
    try:
        re.compile(header.get("Expect", ""))
    except re.error as e:
        problems.append("Expect: not a regex: %s" % e)
    if not hunks:
        problems.append("no hunk ('@@ path.c: function @@')")
    for path_c, function, old, new in hunks:
        if not old or old == new:
            problems.append("hunk in %s: %s changes nothing" % (path_c, function))
    if problems:
        raise MutationError("%s: %s" % (where, "; ".join(problems)))
    return {"name": name, "file": where, "mutation": header["Mutation"],
            "killed_by": header["Killed-by"], "expect": header["Expect"],
            "hunks": [(p, fn, "\n".join(o), "\n".join(n)) for p, fn, o, n in hunks]}


def replace_in_function(text, function, old, new, where):
    """text with the lines old, found once in function's body, replaced."""
    brace, end = labs.find_function(text, function, where, "the mutation")
    body = text[brace:end + 1]
    lines = body.split("\n")
    wanted = old.split("\n")
    found = [i for i in range(len(lines) - len(wanted) + 1) if lines[i:i + len(wanted)] == wanted]
    if len(found) != 1:
        raise MutationError("%s: the lines to change are %s in the body of %s: the mutation is out of "
                            "date with the code (expected:\n    %s)"
                            % (where, "not" if not found else "%d times" % len(found), function,
                               "\n    ".join(wanted)))
    i = found[0]
    lines[i:i + len(wanted)] = new.split("\n") if new else []
    return text[:brace] + "\n".join(lines) + text[end + 1:]


def apply_mutation(root, mutation):
    """Apply every hunk under root; nothing is written unless all apply.
    Returns the paths changed."""
    texts = {}
    for path, function, old, new in mutation["hunks"]:
        if path not in texts:
            full = os.path.join(root, path)
            if not os.path.isfile(full):
                raise MutationError("%s: %s: no such file" % (mutation["file"], path))
            with open(full, encoding="utf-8") as f:
                texts[path] = f.read()
        try:
            texts[path] = replace_in_function(texts[path], function, old, new, path)
        except labs.LabError as e:
            raise MutationError("%s: %s" % (mutation["file"], e))
    for path, text in texts.items():
        with open(os.path.join(root, path), "w", encoding="utf-8") as f:
            f.write(text)
    return sorted(texts)
