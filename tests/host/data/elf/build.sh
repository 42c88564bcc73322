#!/bin/sh
# Rebuilds the ELF fixtures of tests/host/test_elf.c from hello.c with
# Debian's musl-tools (they are committed, so the tests do not need it):
#   hello-static      musl-gcc -static: ET_EXEC at 0x400000, no PT_PHDR
#   hello-static-pie  static PIE: ET_DYN, PT_DYNAMIC, no PT_INTERP
#   hello-dynamic     an ordinary dynamic musl program (PT_INTERP): refused
# musl-gcc's specs file does not know -static-pie (it links Scrt1.o and asks
# for an interpreter), so the static PIE is linked by hand with rcrt1.o,
# which relocates the program itself before main.
# Usage: tests/host/data/elf/build.sh
set -eu
cd "$(dirname "$0")"
musl=/usr/lib/x86_64-linux-musl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

musl-gcc -static -Os -s -o hello-static hello.c
musl-gcc -Os -s -o hello-dynamic hello.c
musl-gcc -fPIE -Os -c -o "$tmp/hello.o" hello.c
gcc -nostdlib -static-pie -s -Wl,-z,text -o hello-static-pie \
	"$musl/rcrt1.o" "$musl/crti.o" "$(gcc -print-file-name=crtbeginS.o)" \
	"$tmp/hello.o" "$musl/libc.a" "$(gcc -print-file-name=libgcc.a)" \
	"$(gcc -print-file-name=crtendS.o)" "$musl/crtn.o"

for f in hello-static hello-static-pie hello-dynamic; do
	size=$(stat -c %s "$f")
	[ "$size" -lt 30720 ] || { echo "$f is $size bytes, over 30 KiB" >&2; exit 1; }
	./"$f" fixture >/dev/null
done
ls -l hello-static hello-static-pie hello-dynamic
