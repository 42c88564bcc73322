; Interrupt and exception entry: one small stub per vector pushes a dummy
; error code where the CPU pushes none, then the vector number, and jumps to
; the common path, which saves every register as a struct trap_frame
; (arch/x86/trap.h) and calls trap_dispatch(frame).
;
; Entries from ring 3 swap GS so that GS base points at this CPU's struct cpu
; (kernel/percpu.h); the saved CS says where the CPU came from.

bits 64
%include "arch/x86/trap_frame.inc"
section .text

extern trap_dispatch

; Exceptions for which the CPU pushes an error code.
%define HAS_ERROR_CODE(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

%assign v 0
%rep 256
align 16
vector_stub_ %+ v:
%if !HAS_ERROR_CODE(v)
        push 0
%endif
        push v
        jmp trap_common
%assign v v + 1
%endrep

trap_common:
        ; the frame's CS is at rsp + 24 (vector, error code, rip below it)
        test qword [rsp + 24], 3
        jz .from_kernel
        swapgs
.from_kernel:
        PUSH_GENERAL_REGISTERS
        cld
        mov rdi, rsp
        call trap_dispatch
global trap_return
trap_return:
        pop r15
        pop r14
        pop r13
        pop r12
        pop r11
        pop r10
        pop r9
        pop r8
        pop rbp
        pop rdi
        pop rsi
        pop rdx
        pop rcx
        pop rbx
        pop rax
        test qword [rsp + 24], 3
        jz .to_kernel
        swapgs
.to_kernel:
        add rsp, 16                     ; vector and error code
        iretq

section .rodata
align 8
global vector_stubs
vector_stubs:
%assign v 0
%rep 256
        dq vector_stub_ %+ v
%assign v v + 1
%endrep
