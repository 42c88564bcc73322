"""Self-test of tools/run/boot's ISO cache (docs/boot.md, section 13): one
grub-mkrescue per kernel, none for a run that only changes the command
line, the command or the added files; a new one when the kernel changes; concurrent runs on an empty cache each get a whole
ISO and leave one; pruning keeps the ISOs used last. grub-mkrescue runs
are counted by a wrapper put first on PATH. No QEMU:
python3 -m unittest tests/qemu/test_iso_cache.py (run by tests/run)."""

import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOOT = os.path.join(TOP, "tools", "run", "boot")
REAL_MKRESCUE = shutil.which("grub-mkrescue")

WRAPPER = """#!/bin/sh
echo run >> "%s"
exec "%s" "$@"
"""

# Opens the cached ISO the way a run does, in a process of its own.
DRIVER = """
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("boot", sys.argv[1])
spec = importlib.util.spec_from_loader(loader.name, loader)
boot = importlib.util.module_from_spec(spec)
loader.exec_module(boot)
boot.BASE_INITRD = sys.argv[3]
iso = boot.open_cached_iso(sys.argv[2])
print(len(iso.read(34816)))
"""


def load_boot():
    loader = importlib.machinery.SourceFileLoader("run_boot", BOOT)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


@unittest.skipIf(REAL_MKRESCUE is None, "no grub-mkrescue (tools/build/check-deps)")
class IsoCacheTest(unittest.TestCase):

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="test-iso-cache-")
        self.cache = os.path.join(self.work, "cache")
        self.count_file = os.path.join(self.work, "mkrescue-runs")
        bin_dir = os.path.join(self.work, "bin")
        os.mkdir(bin_dir)
        wrapper = os.path.join(bin_dir, "grub-mkrescue")
        with open(wrapper, "w") as f:
            f.write(WRAPPER % (self.count_file, REAL_MKRESCUE))
        os.chmod(wrapper, 0o755)
        self.saved_env = dict(os.environ)
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ["PATH"]
        os.environ["NOHZK_ISO_CACHE"] = self.cache
        self.boot = load_boot()
        # Stand-ins: grub-mkrescue does not look inside.
        self.kernel = self.write("nohzk.elf", b"\x7fELF kernel one\n" * 64)
        self.boot.BASE_INITRD = self.write("initrd.cpio", b"070701 base initrd\n" * 64)

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.saved_env)
        shutil.rmtree(self.work, ignore_errors=True)

    def write(self, name, data):
        path = os.path.join(self.work, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def mkrescue_runs(self):
        if not os.path.exists(self.count_file):
            return 0
        with open(self.count_file) as f:
            return len(f.read().split())

    def cached(self):
        return sorted(name for name in os.listdir(self.cache))

    def opts(self, **changes):
        opts = self.boot.parse_args(["--kernel", self.kernel, "--", "true"])
        opts.update(changes)
        return opts

    def test_reused_until_the_kernel_changes(self):
        with self.boot.open_cached_iso(self.kernel) as first:
            head = first.read(34816)
        self.assertEqual(self.mkrescue_runs(), 1)
        self.assertEqual(head[32769:32774], b"CD001", "not an ISO 9660 image")
        # What a run changes besides goes to fw_cfg: same ISO, no new run.
        items = self.boot.fw_cfg_items(self.opts(append="hz=250 x=1", command="echo a,b"), self.work)
        self.assertIn("name=opt/nohzk/cmdline,file=%s/cmdline" % self.work, items)
        with self.boot.open_cached_iso(self.kernel) as again:
            self.assertEqual(again.read(34816), head)
        self.assertEqual(self.mkrescue_runs(), 1)
        self.assertEqual(len(self.cached()), 1)
        # A new kernel: a new ISO beside the old one.
        self.write("nohzk.elf", b"\x7fELF kernel two\n" * 64)
        with self.boot.open_cached_iso(self.kernel):
            pass
        self.assertEqual(self.mkrescue_runs(), 2)
        self.assertEqual(len(self.cached()), 2)

    def test_concurrent_runs_on_an_empty_cache(self):
        procs = [subprocess.Popen([sys.executable, "-c", DRIVER, BOOT, self.kernel, self.boot.BASE_INITRD],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for _ in range(3)]
        outputs = [p.communicate(timeout=120)[0].decode() for p in procs]
        self.assertEqual([p.returncode for p in procs], [0, 0, 0], outputs)
        self.assertEqual([o.strip() for o in outputs], ["34816"] * 3, outputs)
        names = self.cached()
        self.assertEqual(len(names), 1, names)       # no scratch directory left behind
        self.assertTrue(names[0].startswith("nohzk-") and names[0].endswith(".iso"), names)
        self.assertTrue(1 <= self.mkrescue_runs() <= 3)

    def test_items(self):
        """Each item is a file, its text exactly the option's; a comma in
        the path is doubled for QEMU's option parser."""
        spot = os.path.join(self.work, "a,b")
        os.mkdir(spot)
        added = self.write("token", b"token-content\n")
        items = self.boot.fw_cfg_items(self.opts(append='a="b c" d', command="echo 1,2", add=[(added, "/etc/t")]),
                                       spot)
        self.assertEqual(items, ["-fw_cfg", "name=opt/nohzk/cmdline,file=%s/a,,b/cmdline" % self.work,
                                 "-fw_cfg", "name=opt/nohzk/initrd,file=%s/initrd.cpio" % self.work,
                                 "-fw_cfg", "name=opt/nohzk/extra-initrd,file=%s/a,,b/extra-initrd" % self.work,
                                 "-fw_cfg", "name=opt/nohzk/command,file=%s/a,,b/command" % self.work])
        with open(os.path.join(spot, "cmdline"), "rb") as f:
            self.assertEqual(f.read(), b'a="b c" d')
        with open(os.path.join(spot, "command"), "rb") as f:
            self.assertEqual(f.read(), b"echo 1,2")
        interactive = self.boot.fw_cfg_items(self.opts(command="", interactive=True), self.work)
        self.assertEqual(interactive, ["-fw_cfg", "name=opt/nohzk/cmdline,file=%s/cmdline" % self.work,
                                       "-fw_cfg", "name=opt/nohzk/initrd,file=%s/initrd.cpio" % self.work])

    def test_pruning_keeps_the_last_used(self):
        os.makedirs(self.cache)
        now = time.time()
        for age in range(self.boot.ISO_CACHE_KEEP + 3):
            path = os.path.join(self.cache, "nohzk-%02d.iso" % age)
            open(path, "w").close()
            os.utime(path, (now - age * 60, now - age * 60))
        stale = os.path.join(self.cache, "new-stale")
        fresh = os.path.join(self.cache, "new-fresh")
        os.mkdir(stale)
        os.mkdir(fresh)
        os.utime(stale, (now - 7200, now - 7200))
        self.boot.prune_iso_cache()
        self.assertEqual(self.cached(), ["new-fresh"] + ["nohzk-%02d.iso" % age
                                                          for age in range(self.boot.ISO_CACHE_KEEP)])


if __name__ == "__main__":
    unittest.main()
