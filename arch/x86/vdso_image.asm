; The vDSO (arch/x86/vdso/, built as build/vdso/vdso.so), kept in the
; kernel's read-only data; kernel/process/vdso.c copies it into pages at
; boot and maps them into every process.
section .rodata
align 4096
global vdso_image, vdso_image_end
vdso_image:
        incbin "build/vdso/vdso.so"
vdso_image_end:
