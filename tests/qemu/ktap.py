"""A KTAP version 1 checker for console output.

KTAP (the kernel's TAP dialect, Documentation/dev-tools/ktap.rst):

    KTAP version 1
    1..2
        KTAP version 1
        # Subtest: tick
        1..2
        ok 1 tick_periodic
        ok 2 tick_stop # SKIP needs 2 CPUs
    ok 1 tick
    not ok 2 ipi

A document is a version line, a plan "1..N" and N result lines
"ok|not ok NUMBER [description] [# directive]". A subtest is a whole
document indented 4 more spaces, placed just before its parent's result
line. "# ..." lines are diagnostics.

The console also carries printk lines from every CPU, so any line that is
not KTAP syntax at an indentation we are expecting is ignored. A document
passes when it has its plan, exactly N results numbered 1..N, every result
is "ok" (a "# SKIP" result counts as ok and is listed), and every subtest
passes the same way. `check(text)` requires at least one top-level
document and that all of them pass.

Run as a script: python3 tests/qemu/ktap.py LOGFILE  (exit 0 iff it passes)
"""

import re
import sys

VERSION_RE = re.compile(r"^(K?TAP) version (\d+)\s*$")
PLAN_RE = re.compile(r"^1\.\.(\d+)\s*(?:#.*)?$")
RESULT_RE = re.compile(r"^(ok|not ok) (\d+)\b(.*)$")
SUBTEST_RE = re.compile(r"^# Subtest: (.*?)\s*$")
INDENT = 4


class Result:
    def __init__(self, ok, number, description, directive, line_no):
        self.ok = ok
        self.number = number
        self.description = description
        self.directive = directive          # text after "#", or ""
        self.line_no = line_no
        self.subtest = None                 # a Document, or None

    @property
    def skipped(self):
        return self.directive.upper().startswith("SKIP")

    @property
    def name(self):
        if self.description:
            return self.description
        if self.subtest is not None and self.subtest.name:
            return self.subtest.name
        return "#%d" % self.number


class Document:
    def __init__(self, version, line_no, level):
        self.version = version              # e.g. "KTAP version 1"
        self.line_no = line_no
        self.level = level
        self.name = None                    # from "# Subtest: NAME"
        self.plan = None                    # N of "1..N"
        self.results = []
        self.pending = None                 # subtest awaiting its result
        self.unfinished = []                # subtests that never got one


class Report:
    """What check() found: `passed`, `errors` (why not), `skipped`
    (names of skipped tests), `documents`, and counts."""

    def __init__(self, documents):
        self.documents = documents
        self.errors = []
        self.skipped = []
        self.total = 0                      # results at every level
        self.failed = 0
        for i, doc in enumerate(documents):
            if len(documents) > 1:
                label = "document %d (line %d)" % (i + 1, doc.line_no)
                prefix = label + " > "
            else:
                label, prefix = "top level", ""
            if doc.version != "KTAP version 1":
                self.errors.append("%s: %r, expected 'KTAP version 1'"
                                   % (label, doc.version))
            self._check(doc, label, prefix)
        if not documents:
            self.errors.append("no KTAP document ('KTAP version 1' line "
                               "at the start of a line) in the output")

    @property
    def passed(self):
        return not self.errors

    def _check(self, doc, label, prefix):
        """label names doc in messages; prefix is put before the names
        of its results."""
        if doc.plan is None:
            self.errors.append("%s: no plan (1..N) line" % label)
        elif len(doc.results) < doc.plan:
            self.errors.append("%s: incomplete, plan 1..%d but %d result(s)"
                               % (label, doc.plan, len(doc.results)))
        elif len(doc.results) > doc.plan:
            self.errors.append("%s: plan 1..%d but %d results"
                               % (label, doc.plan, len(doc.results)))
        for sub in doc.unfinished + ([doc.pending] if doc.pending else []):
            name = sub.name or "subtest at line %d" % sub.line_no
            self.errors.append("%s%s: no result line for this subtest"
                               % (prefix, name))
            self._check(sub, prefix + name, prefix + name + " > ")
        for expected, result in enumerate(doc.results, 1):
            path = prefix + result.name
            self.total += 1
            if result.number != expected:
                self.errors.append("%s: result numbered %d, expected %d "
                                   "(line %d)" % (path, result.number,
                                                  expected, result.line_no))
            if result.skipped:
                self.skipped.append(path)
            elif not result.ok:
                self.failed += 1
                self.errors.append("%s: not ok (line %d)"
                                   % (path, result.line_no))
            if result.subtest is not None and not result.skipped:
                self._check(result.subtest, path, path + " > ")


def parse(text):
    """Return the list of top-level Documents found in text."""
    documents = []
    stack = []                  # open documents; stack[k].level == k
    for line_no, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        body = line.lstrip(" ")
        spaces = len(line) - len(body)
        if spaces % INDENT:
            continue
        level = spaces // INDENT

        m = VERSION_RE.match(body)
        if m:
            if level == 0:
                stack = [Document(body, line_no, 0)]
                documents.append(stack[0])
            elif level <= len(stack):
                del stack[level:]
                sub = Document(body, line_no, level)
                parent = stack[level - 1]
                if parent.pending is not None:
                    parent.unfinished.append(parent.pending)
                parent.pending = sub
                stack.append(sub)
            continue
        if level >= len(stack):
            continue                # not inside an open document: noise
        doc = stack[level]

        m = PLAN_RE.match(body)
        if m:
            if doc.plan is None:            # a trailing plan is fine too
                doc.plan = int(m.group(1))
                del stack[level + 1:]
            continue

        m = SUBTEST_RE.match(body)
        if m:
            if doc.name is None:
                doc.name = m.group(1)
            continue

        m = RESULT_RE.match(body)
        if m:
            rest = m.group(3)
            description, _, directive = rest.partition("#")
            description = description.strip()
            if description.startswith("- "):
                description = description[2:].strip()
            result = Result(m.group(1) == "ok", int(m.group(2)), description,
                            directive.strip(), line_no)
            result.subtest = doc.pending
            doc.pending = None
            doc.results.append(result)
            del stack[level + 1:]
            continue
        # anything else (diagnostics, printk lines) is ignored
    return documents


def check(text):
    """Parse and judge console output; returns a Report."""
    return Report(parse(text))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: ktap.py LOGFILE\n")
        return 2
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        report = check(f.read())
    for error in report.errors:
        print("FAIL: " + error)
    for name in report.skipped:
        print("SKIP: " + name)
    print("%s: %d results, %d not ok, %d skipped"
          % ("pass" if report.passed else "FAIL", report.total,
             report.failed, len(report.skipped)))
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
