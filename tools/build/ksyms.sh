#!/bin/sh
# Make the kernel's symbol table (kernel/base/ksyms.c reads it) from a linked
# kernel: text symbols sorted by address, written as GNU assembler input.
# Usage: tools/build/ksyms.sh KERNEL.elf > ksyms.S
set -eu
"${NM:-nm}" -n --defined-only "$1" | awk '
$2 ~ /^[tT]$/ && $3 !~ /^\./ { address[n] = $1; name[n] = $3; n++ }
END {
    print "    .section .ksyms, \"a\""
    print "    .balign 8"
    printf "    .quad %d\n", n
    offset = 0
    for (i = 0; i < n; i++) {
        printf "    .quad 0x%s, %d\n", address[i], offset
        offset += length(name[i]) + 1
    }
    for (i = 0; i < n; i++)
        printf "    .asciz \"%s\"\n", name[i]
}'
