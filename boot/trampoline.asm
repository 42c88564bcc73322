; The application processor trampoline. arch/x86/smpboot.c copies this page
; to a free 4 KiB page below 1 MiB and sends INIT-SIPI-SIPI; the AP starts
; here in 16-bit real mode with CS = page >> 4, IP = 0. It can be placed at
; any such page: real mode code is relative to CS, and the two far jumps
; take their targets from memory that we fill in from the page's base.
;
; The boot CPU fills the parameter block at TRAMPOLINE_PARAMS (its layout is
; struct trampoline_params in arch/x86/smpboot.c): a 32-bit page table
; root (the early tables of boot/multiboot2.asm, which identity-map this
; page), the 64-bit entry point, the AP's struct cpu and stack. The AP sets
; `started` once it runs 64-bit code, so the boot CPU knows it arrived.

%define TRAMPOLINE_PARAMS 0xfc0

bits 16
org 0
trampoline_start:
        cli
        cld
        mov ax, cs
        mov ds, ax
        xor ebx, ebx
        mov bx, ax
        shl ebx, 4                          ; ebx = physical base of this page

        lea eax, [ebx + gdt]
        mov [gdt_pointer + 2], eax
        lea eax, [ebx + protected_mode]
        mov [protected_mode_target], eax
        lgdt [gdt_pointer]
        mov eax, cr0
        or eax, 1
        mov cr0, eax
        jmp dword far [protected_mode_target]

bits 32
protected_mode:
        mov ax, 0x10
        mov ds, ax
        mov es, ax
        mov ss, ax
        mov eax, cr4
        or eax, 1 << 5                      ; PAE
        mov cr4, eax
        mov eax, [ebx + TRAMPOLINE_PARAMS + 0]
        mov cr3, eax
        mov ecx, 0xC0000080                 ; EFER: long mode, no-execute
        rdmsr
        or eax, (1 << 8) | (1 << 11)
        wrmsr
        mov eax, cr0
        or eax, (1 << 31) | (1 << 16)       ; paging, write-protect
        mov cr0, eax
        lea eax, [ebx + long_mode]
        mov [ebx + long_mode_target], eax
        jmp far [ebx + long_mode_target]

bits 64
long_mode:
        mov ax, 0x10
        mov ds, ax
        mov es, ax
        mov ss, ax
        mov ebx, ebx                        ; clear the upper half
        mov dword [rbx + TRAMPOLINE_PARAMS + 32], 1    ; started
        mov rdi, [rbx + TRAMPOLINE_PARAMS + 16]        ; struct cpu *
        mov rsi, [rbx + TRAMPOLINE_PARAMS + 24]        ; stack top
        mov rax, [rbx + TRAMPOLINE_PARAMS + 8]         ; ap_entry64
        jmp rax

align 8
gdt:
        dq 0
        dq 0x00CF9A000000FFFF               ; 0x08: 32-bit code
        dq 0x00CF92000000FFFF               ; 0x10: data
        dq 0x00AF9A000000FFFF               ; 0x18: 64-bit code
gdt_end:
gdt_pointer:
        dw gdt_end - gdt - 1
        dd 0
protected_mode_target:
        dd 0
        dw 0x08
long_mode_target:
        dd 0
        dw 0x18

%if ($ - $$) > TRAMPOLINE_PARAMS
%error "trampoline code overlaps its parameter block"
%endif
        times TRAMPOLINE_PARAMS - ($ - $$) db 0
params:
        dq 0        ; +0  page table root (below 4 GiB)
        dq 0        ; +8  64-bit entry point
        dq 0        ; +16 struct cpu *
        dq 0        ; +24 stack top
        dd 0        ; +32 started
        times 4096 - ($ - $$) db 0
