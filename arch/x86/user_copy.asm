; user_copy(void *dst, const void *src, uint64_t count): copy count bytes
; where one side is user memory (SMAP open: user_access_begin()); returns
; 0, or the bytes not copied when a page fault stopped it. A sibling
; thread may unmap the user side between the kernel's check of it and the
; copy: the fault is then the copy's, not the kernel's. The page fault
; handler sends a fault at user_copy_instruction to user_copy_fault
; (arch/x86/traps.c: user_copy_fixup()), Linux's exception table in one
; entry.
bits 64
section .text
global user_copy, user_copy_instruction, user_copy_fault
user_copy:
        mov rcx, rdx
user_copy_instruction:
        rep movsb
        xor eax, eax
        ret
user_copy_fault:
        mov rax, rcx            ; what rep movsb had left
        ret
