"""Self-test of tools/lib/newc.py: python3 -m unittest tools/lib/test_newc.py
(run by tests/run). Uses the host's cpio(1), when present, as a reference."""

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import newc  # noqa: E402

HAVE_CPIO = shutil.which("cpio") is not None


def offsets(blob):
    """Offsets of every header (trailer included) of a newc archive."""
    found = []
    pos = 0
    while True:
        found.append(pos)
        namesize = int(blob[pos + 94:pos + 102], 16)
        filesize = int(blob[pos + 54:pos + 62], 16)
        name = blob[pos + 110:pos + 110 + namesize - 1]
        pos += 110 + namesize
        pos += (4 - pos % 4) % 4
        pos += filesize
        pos += (4 - pos % 4) % 4
        if name == b"TRAILER!!!":
            return found


class NewcTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test-newc-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_round_trip(self):
        entries = [newc.Entry("bin", stat.S_IFDIR | 0o755),
                   newc.Entry("bin/sh", stat.S_IFREG | 0o755, b"x" * 5),
                   newc.Entry("bin/ash", stat.S_IFLNK | 0o777, b"sh")]
        blob = newc.write(entries)
        back = newc.read(blob)
        self.assertEqual([(e.name, e.mode, e.data) for e in back],
                         [("bin", stat.S_IFDIR | 0o755, b""),
                          ("bin/sh", stat.S_IFREG | 0o755, b"xxxxx"),
                          ("bin/ash", stat.S_IFLNK | 0o777, b"sh")])
        self.assertEqual(len({e.ino for e in back}), 3)

    def test_alignment_and_one_trailer(self):
        entries = []
        for n in range(1, 9):       # every name and data length mod 4
            newc.add_file(entries, b"d" * n, "/" + "n" * n)
        blob = newc.write(entries)
        heads = offsets(blob)
        self.assertTrue(all(h % 4 == 0 for h in heads))
        self.assertEqual(blob.count(b"TRAILER!!!"), 1)
        self.assertEqual(len(blob) % 4, 0)
        self.assertTrue(blob.startswith(b"070701"))

    def test_add_creates_parents_and_replaces(self):
        entries = [newc.Entry("etc", stat.S_IFDIR | 0o755),
                   newc.Entry("etc/motd", stat.S_IFREG | 0o644, b"old")]
        newc.add_file(entries, b"new", "/etc/motd")
        newc.add_file(entries, b"prog", "/usr/local/bin/prog")
        names = [e.name for e in entries]
        self.assertEqual(names, ["etc", "etc/motd", "usr", "usr/local",
                                 "usr/local/bin", "usr/local/bin/prog"])
        self.assertEqual(entries[1].data, b"new")
        self.assertEqual(entries[1].mode, stat.S_IFREG | 0o755)
        self.assertTrue(all(stat.S_ISDIR(e.mode) for e in entries[2:5]))

    def test_existing_dir_spelled_differently(self):
        entries = [newc.Entry("./bin", stat.S_IFDIR | 0o755)]
        newc.add_file(entries, b"x", "/bin/x")
        self.assertEqual([e.name for e in entries], ["./bin", "bin/x"])

    def test_errors(self):
        with self.assertRaises(newc.FormatError):
            newc.read(b"070707" + b"0" * 200)        # old binary-ish magic
        blob = newc.write([newc.Entry("a", stat.S_IFREG | 0o644, b"abc")])
        with self.assertRaises(newc.FormatError):
            newc.read(blob[:-120])                   # trailer cut off

    @unittest.skipUnless(HAVE_CPIO, "no cpio(1) on this host")
    def test_cpio_reads_ours(self):
        entries = []
        newc.add_file(entries, b"#!/bin/sh\necho hi\n", "/bin/hello")
        newc.add_file(entries, b"abc", "/a/b/c")
        path = os.path.join(self.tmp, "ours.cpio")
        with open(path, "wb") as f:
            f.write(newc.write(entries))
        out = os.path.join(self.tmp, "out")
        os.mkdir(out)
        with open(path, "rb") as f:
            subprocess.run(["cpio", "-id", "--quiet"], stdin=f, cwd=out,
                           check=True)
        with open(os.path.join(out, "bin", "hello"), "rb") as f:
            self.assertEqual(f.read(), b"#!/bin/sh\necho hi\n")
        self.assertEqual(os.stat(os.path.join(out, "bin", "hello")).st_mode
                         & 0o777, 0o755)
        self.assertTrue(os.path.isdir(os.path.join(out, "a", "b")))

    @unittest.skipUnless(HAVE_CPIO, "no cpio(1) on this host")
    def test_we_read_cpio_and_keep_hard_links(self):
        src = os.path.join(self.tmp, "src")
        os.makedirs(os.path.join(src, "bin"))
        with open(os.path.join(src, "bin", "busybox"), "wb") as f:
            f.write(b"BB" * 100)
        os.link(os.path.join(src, "bin", "busybox"),
                os.path.join(src, "bin", "sh"))
        os.symlink("busybox", os.path.join(src, "bin", "ls"))
        listing = b"\n".join([b".", b"bin", b"bin/busybox", b"bin/sh",
                              b"bin/ls"]) + b"\n"
        base = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"],
                              input=listing, cwd=src, check=True,
                              stdout=subprocess.PIPE).stdout
        extra = os.path.join(self.tmp, "spin")
        with open(extra, "wb") as f:
            f.write(b"SPIN")
        blob = newc.build(base, [(extra, "/bin/spin")])
        self.assertEqual(blob.count(b"TRAILER!!!"), 1)
        out = os.path.join(self.tmp, "out")
        os.mkdir(out)
        subprocess.run(["cpio", "-id", "--quiet"], input=blob, cwd=out,
                       check=True)
        for name in ("busybox", "sh"):
            with open(os.path.join(out, "bin", name), "rb") as f:
                self.assertEqual(f.read(), b"BB" * 100)
        self.assertEqual(os.readlink(os.path.join(out, "bin", "ls")),
                         "busybox")
        with open(os.path.join(out, "bin", "spin"), "rb") as f:
            self.assertEqual(f.read(), b"SPIN")


if __name__ == "__main__":
    unittest.main()
