; The assembled trampoline (boot/trampoline.asm, built as a flat binary),
; kept in the kernel's read-only data until smpboot.c copies it low.
section .rodata
align 16
global trampoline_image, trampoline_image_end
trampoline_image:
        incbin "build/trampoline.bin"
trampoline_image_end:
