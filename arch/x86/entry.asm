; Interrupt and exception entry: one small stub per vector pushes a dummy
; error code where the CPU pushes none, then the vector number, and jumps to
; the common path, which saves every register as a struct trap_frame
; (arch/x86/trap.h) and calls trap_dispatch(frame).
;
; Entries from ring 3 swap GS so that GS base points at this CPU's struct cpu
; (kernel/base/percpu.h). Two instructions run in ring 0 with the user's GS:
; syscall_entry's first (only an NMI or a machine check can come there) and
; iret_to_user, the iretq back to ring 3, which faults if the frame it
; pops is bad. An entry from the kernel at one of them swaps GS too;
; trap_user_gs_window (arch/x86/traps.c) turns a fault of iret_to_user
; into a fault of the user program, and trap_return swaps GS back for the
; rest. See docs/user-space.md.

bits 64
%include "arch/x86/trap_frame.inc"
section .text

extern trap_dispatch
extern trap_user_gs_window
extern syscall_entry
extern sysret_to_user

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

; ZF set if the frame's RIP, at [rsp + %1], is where ring 0 has the user's GS.
%macro CMP_USER_GS_WINDOW 1
        push rax
        lea rax, [rel iret_to_user]
        cmp [rsp + 8 + %1], rax
        je %%done
        lea rax, [rel syscall_entry]
        cmp [rsp + 8 + %1], rax
        je %%done
        lea rax, [rel sysret_to_user]
        cmp [rsp + 8 + %1], rax
%%done:
        pop rax
%endmacro

trap_common:
        ; the frame's CS is at rsp + 24 (vector, error code, rip below it)
        test qword [rsp + 24], 3
        jnz .from_user
        CMP_USER_GS_WINDOW 16
        jne .from_kernel
        swapgs
        PUSH_GENERAL_REGISTERS
        cld
        mov rdi, rsp
        call trap_user_gs_window        ; the frame to go on with
        mov rsp, rax
        jmp .dispatch
.from_user:
        swapgs
.from_kernel:
        PUSH_GENERAL_REGISTERS
        cld
.dispatch:
        mov rdi, rsp
        call trap_dispatch
global trap_return
trap_return:
        POP_GENERAL_REGISTERS
        add rsp, 16                     ; vector and error code
        test qword [rsp + 8], 3
        jz return_to_kernel
        swapgs
global iret_to_user
iret_to_user:
        iretq
return_to_kernel:
        CMP_USER_GS_WINDOW 0            ; back to where the user's GS is live
        jne .iret
        swapgs
.iret:
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
