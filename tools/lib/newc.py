"""cpio "newc" (SVR4, magic 070701) archives: read one, write one.

This is the format of Linux initramfs images and of our initrd. Layout of
one entry:

    110-byte ASCII header: "070701" then 13 fields of 8 hex digits
        ino mode uid gid nlink mtime filesize devmajor devminor
        rdevmajor rdevminor namesize check
    the name, NUL-terminated (namesize counts the NUL)
    zero padding so that header + name ends on a 4-byte boundary
    filesize bytes of data (a symlink's data is its target)
    zero padding to a 4-byte boundary

The archive ends with an entry named "TRAILER!!!". The "070702" variant
("crc") is the same with a checksum in `check`; we read it, and always
write 070701 with check 0.

Hard links: newc stores the data once, in the last entry of the group
(same ino, nlink > 1); earlier ones have filesize 0. We keep the ino and
nlink of entries read from an archive untouched so such groups survive a
rewrite, and give the entries we add fresh inode numbers.
"""

import os
import stat

MAGIC = b"070701"
MAGIC_CRC = b"070702"
HEADER_SIZE = 110
TRAILER = "TRAILER!!!"
FIELDS = ("ino", "mode", "uid", "gid", "nlink", "mtime", "filesize",
          "devmajor", "devminor", "rdevmajor", "rdevminor", "namesize",
          "check")


class FormatError(Exception):
    pass


def _pad4(n):
    return (4 - n % 4) % 4


class Entry:
    """One archive member. `name` is stored as given (no leading slash
    by convention: "bin/sh"); `data` is bytes."""

    def __init__(self, name, mode, data=b"", ino=0, uid=0, gid=0, nlink=None,
                 mtime=0, devmajor=0, devminor=0, rdevmajor=0, rdevminor=0):
        self.name = name
        self.mode = mode
        self.data = data
        self.ino = ino
        self.uid = uid
        self.gid = gid
        if nlink is None:
            nlink = 2 if stat.S_ISDIR(mode) else 1
        self.nlink = nlink
        self.mtime = mtime
        self.devmajor = devmajor
        self.devminor = devminor
        self.rdevmajor = rdevmajor
        self.rdevminor = rdevminor

    def __repr__(self):
        return "Entry(%r, mode=%o, %d bytes)" % (self.name, self.mode,
                                                 len(self.data))


def normalize(name):
    """The path an entry stands for, for comparisons: "./bin/sh",
    "/bin/sh" and "bin/sh" are all "bin/sh"; "." and "/" are "."."""
    parts = [p for p in name.split("/") if p not in ("", ".")]
    return "/".join(parts) if parts else "."


def read(blob):
    """Parse a newc archive (bytes) into a list of Entry, trailer
    excluded. Raises FormatError on anything malformed."""
    entries = []
    pos = 0
    while True:
        if pos + HEADER_SIZE > len(blob):
            raise FormatError("truncated header at offset %d (no trailer)"
                              % pos)
        magic = blob[pos:pos + 6]
        if magic not in (MAGIC, MAGIC_CRC):
            raise FormatError("bad magic %r at offset %d (not a newc "
                              "cpio archive?)" % (magic, pos))
        values = {}
        for i, field in enumerate(FIELDS):
            raw = blob[pos + 6 + 8 * i: pos + 14 + 8 * i]
            try:
                values[field] = int(raw, 16)
            except ValueError:
                raise FormatError("bad %s field %r at offset %d"
                                  % (field, raw, pos))
        namesize = values["namesize"]
        name_start = pos + HEADER_SIZE
        name_end = name_start + namesize
        if namesize == 0 or name_end > len(blob):
            raise FormatError("bad name size at offset %d" % pos)
        name = blob[name_start:name_end - 1].decode("utf-8", "surrogateescape")
        data_start = name_end + _pad4(HEADER_SIZE + namesize)
        data_end = data_start + values["filesize"]
        if data_end > len(blob):
            raise FormatError("entry %r truncated" % name)
        if name == TRAILER:
            return entries
        entries.append(Entry(
            name, values["mode"], blob[data_start:data_end],
            ino=values["ino"], uid=values["uid"], gid=values["gid"],
            nlink=values["nlink"], mtime=values["mtime"],
            devmajor=values["devmajor"], devminor=values["devminor"],
            rdevmajor=values["rdevmajor"], rdevminor=values["rdevminor"]))
        pos = data_end + _pad4(data_end)


def _member(entry):
    name = entry.name.encode("utf-8", "surrogateescape") + b"\0"
    fields = (entry.ino, entry.mode, entry.uid, entry.gid, entry.nlink,
              entry.mtime, len(entry.data), entry.devmajor, entry.devminor,
              entry.rdevmajor, entry.rdevminor, len(name), 0)
    for value in fields:
        if not 0 <= value <= 0xFFFFFFFF:
            raise ValueError("%r: field value %d does not fit newc"
                             % (entry.name, value))
    header = MAGIC + b"".join(b"%08X" % v for v in fields)
    assert len(header) == HEADER_SIZE
    out = header + name + b"\0" * _pad4(HEADER_SIZE + len(name))
    out += entry.data + b"\0" * _pad4(len(entry.data))
    return out


def write(entries):
    """Serialize a list of Entry into one newc archive with one trailer.
    Entries with ino 0 get fresh inode numbers."""
    next_ino = max([e.ino for e in entries] + [0]) + 1
    parts = []
    for entry in entries:
        if entry.ino == 0:
            entry.ino = next_ino
            next_ino += 1
        parts.append(_member(entry))
    parts.append(_member(Entry(TRAILER, 0, nlink=1)))
    return b"".join(parts)


def add_file(entries, data, guest_path, mode=0o755, mtime=0):
    """Put a regular file at guest_path (absolute, e.g. "/bin/spin") into
    the entry list, replacing an entry of the same path, and add entries
    for missing parent directories (mode 0755) before it."""
    target = normalize(guest_path)
    if target == ".":
        raise ValueError("bad guest path %r" % guest_path)
    present = {normalize(e.name) for e in entries}
    parts = target.split("/")
    for i in range(1, len(parts)):
        parent = "/".join(parts[:i])
        if parent not in present:
            entries.append(Entry(parent, stat.S_IFDIR | 0o755, mtime=mtime))
            present.add(parent)
    entries[:] = [e for e in entries if normalize(e.name) != target]
    entries.append(Entry(target, stat.S_IFREG | (mode & 0o7777), data,
                         mtime=mtime))
    return entries


def build(base_blob, additions):
    """One archive: the entries of base_blob (bytes or None) plus
    additions, a list of (host_path, guest_path) added as mode 0755."""
    entries = read(base_blob) if base_blob else []
    for host_path, guest_path in additions:
        with open(host_path, "rb") as f:
            data = f.read()
        add_file(entries, data, guest_path,
                 mtime=int(os.stat(host_path).st_mtime))
    return write(entries)


def merge(first_blob, second_blob):
    """One archive holding the entries of both (the second's win where a
    path is in both), sorted by path and numbered afresh, so that no two
    files share an inode number."""
    second = read(second_blob)
    names = {normalize(e.name) for e in second}
    entries = [e for e in read(first_blob) if normalize(e.name) not in names] + second
    entries.sort(key=lambda e: normalize(e.name))
    for number, entry in enumerate(entries, 1):
        entry.ino = number
    return write(entries)
