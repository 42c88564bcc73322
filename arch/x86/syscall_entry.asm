; The SYSCALL instruction lands here (MSR_LSTAR), in ring 0 with every
; flag clear (MSR_SFMASK: interrupts off, and no NT, TF, DF or AC from the
; user), RCX = user RIP, R11 = user RFLAGS, and still on the user's stack.
; We switch to the task's kernel stack (kept in struct cpu at offset 16)
; and build the same struct trap_frame as an interrupt from ring 3 would
; (arch/x86/trap.h), so that syscalls, exceptions and interrupts from user
; space share one C type and one way out: exit_to_user_mode, which checks
; that iretq can return there, then trap_return, which swaps GS back and
; returns with iretq; or, when the frame is still what SYSCALL saved
; (user_frame_sysret_ok), with sysretq, which QEMU emulates for a fraction
; of iretq's cost. Between the swapgs and the sysretq only an NMI or a
; machine check can come, on their own stacks, and they know the spot
; (entry.asm, CMP_USER_GS_WINDOW). See docs/user-space.md, section 4.

%define USER_DATA_SELECTOR (0x18 | 3)
%define USER_CODE_SELECTOR (0x20 | 3)
%define SYSCALL_VECTOR     0x100          ; not a real vector: marks a syscall frame

bits 64
%include "arch/x86/trap_frame.inc"
section .text
extern syscall_dispatch
extern trap_return
extern user_frame_sysret_ok
global syscall_entry
syscall_entry:
        swapgs
        mov [gs:8], rsp                   ; struct cpu.syscall_user_rsp
        mov rsp, [gs:16]                  ; struct cpu.syscall_stack_top
        push USER_DATA_SELECTOR           ; ss
        push qword [gs:8]                 ; rsp
        push r11                          ; rflags
        push USER_CODE_SELECTOR           ; cs
        push rcx                          ; rip
        push rax                          ; "error code": the syscall number, to restart it after a signal
        push SYSCALL_VECTOR               ; vector
        PUSH_GENERAL_REGISTERS
        cld
        xor ebp, ebp                      ; backtraces end here
        mov rdi, rsp
        call syscall_dispatch
        cli
        mov rdi, rsp
        call user_frame_sysret_ok
        test al, al
        jz trap_return                    ; anything sysretq cannot restore: iretq
        POP_GENERAL_REGISTERS             ; rcx = the user's RIP, r11 its RFLAGS (checked)
        mov rsp, [rsp + 16 + 24]          ; past vector and error code, rip, cs, rflags: the user's RSP
        swapgs
global sysret_to_user
sysret_to_user:
        o64 sysret

; enter_user_mode(struct trap_frame *frame): leave the kernel for the first
; time through the common exit path, with a frame built by the caller.
global enter_user_mode
enter_user_mode:
        cli
        mov rsp, rdi
        jmp trap_return
