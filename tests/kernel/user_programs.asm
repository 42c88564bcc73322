; Tiny ring-3 programs for ktest=user, as position-independent flat code
; (tests/kernel/user_test.c copies each into a fresh process at 0x400000).
; Linux system call numbers: write 1, getpid 39, exit 60.

bits 64
section .rodata

%macro PROGRAM 1
global user_program_%1, user_program_%1_end
%endmacro

; write "hello from ring 3\n" to fd 1, exit 7
PROGRAM hello
user_program_hello:
        mov eax, 1
        mov edi, 1
        lea rsi, [rel .message]
        mov edx, .message_end - .message
        syscall
        mov edi, 7
        cmp rax, .message_end - .message
        je .ok
        mov edi, 100                    ; write returned the wrong count
.ok:    mov eax, 60
        syscall
        ud2
.message: db "hello from ring 3", 10
.message_end:
user_program_hello_end:

; bad arguments come back as errors, and the kernel keeps running:
; exit 0 if all were refused with the right errno, else the failing step
PROGRAM bad_arguments
user_program_bad_arguments:
        mov eax, 1                      ; write(1, NULL, 10) -> -EFAULT
        mov edi, 1
        xor esi, esi
        mov edx, 10
        syscall
        mov edi, 1
        cmp rax, -14
        jne .fail
        mov eax, 1                      ; write(1, kernel address, 10) -> -EFAULT
        mov edi, 1
        mov rsi, 0xffffffff80100000
        mov edx, 10
        syscall
        mov edi, 2
        cmp rax, -14
        jne .fail
        mov eax, 1                      ; write(99, ...) -> -EBADF
        mov edi, 99
        lea rsi, [rel user_program_bad_arguments]
        mov edx, 1
        syscall
        mov edi, 3
        cmp rax, -9
        jne .fail
        mov eax, 9999                   ; no such system call -> -ENOSYS
        syscall
        mov edi, 4
        cmp rax, -38
        jne .fail
        mov eax, 1                      ; write crossing the end of the stack -> -EFAULT
        mov edi, 1
        mov rsi, 0x7ffffffff000 - 4
        mov edx, 8
        syscall
        mov edi, 5
        cmp rax, -14
        jne .fail
        xor edi, edi
.fail:  mov eax, 60
        syscall
        ud2
user_program_bad_arguments_end:

; 1000 getpid calls, then exit 0: a count for context tracking
PROGRAM many_syscalls
user_program_many_syscalls:
        mov ebx, 1000
.again: mov eax, 39
        syscall
        dec ebx
        jnz .again
        xor edi, edi
        mov eax, 60
        syscall
        ud2
user_program_many_syscalls_end:

; spin without system calls until killed or for ~forever; used with the tick
PROGRAM spin
user_program_spin:
        mov rcx, 20000000
.loop:  pause
        dec rcx
        jnz .loop
        xor edi, edi
        mov eax, 60
        syscall
user_program_spin_end:

; faults: each must kill only its process
PROGRAM null_write
user_program_null_write:
        mov dword [0], 1
        ud2
user_program_null_write_end:

PROGRAM invalid_opcode
user_program_invalid_opcode:
        ud2
user_program_invalid_opcode_end:

PROGRAM divide_by_zero
user_program_divide_by_zero:
        xor edx, edx
        xor ecx, ecx
        mov eax, 1
        div ecx
        ud2
user_program_divide_by_zero_end:

PROGRAM breakpoint
user_program_breakpoint:
        int3
        ud2
user_program_breakpoint_end:

PROGRAM read_kernel
user_program_read_kernel:
        mov rax, 0xffffffff80100000
        mov rax, [rax]
        ud2
user_program_read_kernel_end:

PROGRAM jump_to_kernel
user_program_jump_to_kernel:
        mov rax, 0xffffffff80100000
        jmp rax
user_program_jump_to_kernel_end:

PROGRAM write_code
user_program_write_code:
        lea rax, [rel user_program_write_code]
        mov byte [rax], 0x90            ; the code is mapped read-only
        ud2
user_program_write_code_end:

PROGRAM stack_overflow
user_program_stack_overflow:
.down:  push rax                        ; until it runs off the mapped stack
        jmp .down
user_program_stack_overflow_end:

PROGRAM privileged
user_program_privileged:
        cli                             ; ring 3 may not: general protection
        ud2
user_program_privileged_end:
