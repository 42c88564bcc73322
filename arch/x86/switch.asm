; context_switch(uint64_t *save_rsp, uint64_t new_rsp): save the callee-saved
; registers on the current stack, store the stack pointer in *save_rsp,
; load new_rsp and pop the registers saved there. The `ret` then returns
; into whatever the next task was doing when it called context_switch (or
; into task_first_run, for a task that never ran; see sched/kthread.c).
bits 64
section .text
global context_switch
context_switch:
        push rbp
        push rbx
        push r12
        push r13
        push r14
        push r15
        mov [rdi], rsp
        mov rsp, rsi
        pop r15
        pop r14
        pop r13
        pop r12
        pop rbx
        pop rbp
        ret
