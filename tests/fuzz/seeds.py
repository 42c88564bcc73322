#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/TARGET/: a few small valid inputs
per target, from which libFuzzer mutates. The files are committed; run
this again only to change the seeds (tests/fuzz/seeds.py). Crash inputs
that became regression cases are added by hand as TARGET/crash-*, and are
never rewritten here."""
import glob
import os
import stat
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools", "lib"))
import newc  # noqa: E402


def put(target, name, data):
    os.makedirs(os.path.join(HERE, target), exist_ok=True)
    with open(os.path.join(HERE, target, "seed-" + name), "wb") as f:
        f.write(data)


def cmdline():
    for i, line in enumerate([
            b"hz=1000 ktest=boot,alloc strace=1",
            b"tick=full nohz_full=1-3,5 init=/sbin/init rcu_fanout=2",
            b"count=18446744073709551615 hz=250 strace quiet",
            b"nohz_full=0,2-3 init=/a/very/long/path/to/init tick=bogus"]):
        put("cmdline", "%d" % i, line)


def elf():
    data_dir = os.path.join(REPO, "tests", "host", "data", "elf")
    for name in ("hello-static", "hello-static-pie"):
        with open(os.path.join(data_dir, name), "rb") as f:
            put("elf", name, f.read())
    # The smallest runnable ET_EXEC: a header, one PT_LOAD R+X of itself.
    header = struct.pack("<4sBBBBB7xHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 0,
                         2, 62, 1, 0x400078, 64, 0, 0, 64, 56, 1, 0, 0, 0)
    phdr = struct.pack("<IIQQQQQQ", 1, 5, 0, 0x400000, 0x400000, 0x80, 0x80, 0x1000)
    put("elf", "tiny", header + phdr + b"\xeb\xfe" + b"\0" * 6)


def tag(type_, payload):
    body = struct.pack("<II", type_, 8 + len(payload)) + payload
    return body + b"\0" * (-len(body) % 8)


def multiboot2():
    mmap = struct.pack("<II", 24, 0) + b"".join(
        struct.pack("<QQII", base, length, type_, 0) for base, length, type_ in
        [(0, 0x9fc00, 1), (0x9fc00, 0x400, 2), (0xf0000, 0x10000, 2),
         (0x100000, 0x7ee0000, 1), (0x7fe0000, 0x20000, 2), (0xfffc0000, 0x40000, 2)])
    rsdp = b"RSD PTR " + b"\0" * 12
    module = struct.pack("<II", 0x200000, 0x280000) + b"initrd\0"
    for name, tags in [
            ("grub", [tag(1, b"hz=1000 ktest=boot\0"), tag(2, b"GRUB 2.06\0"),
                      tag(3, module), tag(3, struct.pack("<II", 0x280000, 0x280010) + b"command\0"),
                      tag(6, mmap), tag(14, rsdp)]),
            ("minimal", [tag(6, mmap)]),
            ("acpi2", [tag(1, b"\0"), tag(15, b"RSD PTR " + b"\0" * 28), tag(6, mmap)])]:
        body = b"".join(tags) + struct.pack("<II", 0, 8)
        put("multiboot2", name, struct.pack("<II", 8 + len(body), 0) + body)


def acpi():
    """RSDP (36 bytes) then a 64 KiB-wrapped window of the tables (see acpi.c)."""
    for capture in sorted(glob.glob(os.path.join(REPO, "tests", "host", "data", "acpi", "qemu-*"))):
        rsdp, window = b"", bytearray()
        for path in sorted(glob.glob(os.path.join(capture, "*.bin"))):
            address, kind = os.path.basename(path)[:-4].split("-")
            with open(path, "rb") as f:
                data = f.read()
            if kind == "RSDP":
                rsdp = data[:36].ljust(36, b"\0")
                continue
            offset = int(address, 16) & 0xffff
            if len(window) < offset + len(data):
                window.extend(b"\0" * (offset + len(data) - len(window)))
            window[offset:offset + len(data)] = data
        put("acpi", os.path.basename(capture), rsdp + bytes(window))


def cpio():
    entries = [newc.Entry("bin", stat.S_IFDIR | 0o755),
               newc.Entry("bin/hello", stat.S_IFREG | 0o755, b"#!/bin/sh\necho hi\n"),
               newc.Entry("bin/sh", stat.S_IFLNK | 0o777, b"busybox"),
               newc.Entry("dev", stat.S_IFDIR | 0o755),
               newc.Entry("dev/console", stat.S_IFCHR | 0o600, rdevmajor=5, rdevminor=1)]
    put("cpio", "tree", newc.write(entries))
    put("cpio", "empty", newc.write([]))


def user_stack():
    put("user_stack", "busybox", b"\x40sh\0-c\0echo hi\0\0HOME=/\0PATH=/bin\0TERM=vt100\0")
    put("user_stack", "no-env", b"\x08/bin/spin\x002\0--nohz\0")
    put("user_stack", "tight", b"\x00a\0\0b=c\0")


def proc_write():
    """The first byte picks the file: 0 /proc/PID/nohz, 1 tick_policy,
    2 /proc/rcustress, 3 /proc/trace (fuzz_proc_write.c)."""
    for i, text in enumerate([b"1\n", b"0", b" \t1\r\n", b"2\n"]):
        put("proc_write", "nohz-%d" % i, b"\x00" + text)
    for i, text in enumerate([b"task\n", b"  periodic", b"patient\t\n", b"averyveryverylongname\n"]):
        put("proc_write", "tick_policy-%d" % i, b"\x01" + text)
    for i, text in enumerate([b"10\n", b"1", b"600\n", b"601\n", b"0\n"]):
        put("proc_write", "rcustress-%d" % i, b"\x02" + text)
    for i, text in enumerate([b"classes irq,tick\n", b"classes all", b"classes none\n", b"clear\n",
                              b"classes sched,rcu,nohz,ipi,user", b"classes bogus\n"]):
        put("proc_write", "trace-%d" % i, b"\x03" + text)


def script():
    for i, text in enumerate([b"#!/bin/sh\necho hi\n", b"#! /usr/bin/env  python3 -u \t\n", b"#!/bin/sh",
                              b"#!\n", b"#!/bin/sh\0-x\n", b"#!/" + b"n" * 300]):
        put("script", "%d" % i, text)


if __name__ == "__main__":
    cmdline()
    elf()
    multiboot2()
    acpi()
    cpio()
    user_stack()
    proc_write()
    script()
