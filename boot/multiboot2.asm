; The first code that runs: GRUB jumps here in 32-bit protected mode with
; paging off (multiboot2 machine state: EAX = magic, EBX = physical address
; of the boot information). We build just enough page tables to enter long
; mode and jump to the higher-half kernel; kernel/init/main.c builds the real ones.
;
; Early tables (all in .bss, found by physical address = virtual - KERNEL_VMA):
;   identity map     0 .. 4 GiB  (needed while we switch modes, and by APs)
;   direct map       0xFFFF800000000000 + 0 .. 4 GiB (to read boot info)
;   kernel image     0xFFFFFFFF80000000 + 0 .. 1 GiB
; All with 2 MiB pages, so four page directories cover 4 GiB.

%define KERNEL_VMA      0xFFFFFFFF80000000
%define MB2_MAGIC       0xE85250D6
%define MB2_ARCH_I386   0
%define PAGE_PRESENT    1
%define PAGE_WRITE      2
%define PAGE_HUGE       0x80
%define BOOT_STACK_SIZE 16384

%define PHYS(x) ((x) - KERNEL_VMA)

section .multiboot2 align=8
mb2_header_start:
        dd MB2_MAGIC
        dd MB2_ARCH_I386
        dd mb2_header_end - mb2_header_start
        dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header_start))
        ; information request: command line, modules, memory map, ACPI RSDPs
        align 8
        dw 1, 0
        dd 8 + 4 * 5
        dd 1, 3, 6, 14, 15
        align 8
        ; module alignment: modules start on page boundaries
        dw 6, 0
        dd 8
        align 8
        ; end tag
        dw 0, 0
        dd 8
mb2_header_end:

section .boot.text progbits alloc exec nowrite align=16
bits 32
global boot_entry32
boot_entry32:
        cli
        mov esp, PHYS(boot_stack_top)
        mov [PHYS(boot_magic)], eax
        mov [PHYS(boot_info_phys)], ebx

        ; Long mode needs CPUID leaf 0x80000001 bit 29.
        mov eax, 0x80000000
        cpuid
        cmp eax, 0x80000001
        jb .no_long_mode
        mov eax, 0x80000001
        cpuid
        test edx, 1 << 29
        jz .no_long_mode

        call build_early_page_tables

        mov eax, cr4
        or eax, 1 << 5                  ; PAE
        mov cr4, eax
        mov eax, PHYS(early_pml4)
        mov cr3, eax
        mov ecx, 0xC0000080             ; EFER
        rdmsr
        or eax, (1 << 8) | (1 << 11)    ; long mode enable, no-execute enable
        wrmsr
        mov eax, cr0
        or eax, (1 << 31) | (1 << 16)   ; paging, write-protect in ring 0
        mov cr0, eax

        lgdt [PHYS(early_gdt_pointer)]
        jmp 0x08:boot_entry64_low

.no_long_mode:
        ; Say so on COM1 (no printk yet), then stop.
        mov esi, PHYS(no_long_mode_message)
.print:
        lodsb
        test al, al
        jz .halt
        mov dx, 0x3F8
        out dx, al
        jmp .print
.halt:
        hlt
        jmp .halt

; Fill the early tables. Each PD entry maps 2 MiB.
build_early_page_tables:
        ; four page directories: 2048 entries mapping 0..4 GiB
        mov edi, PHYS(early_pd)
        mov eax, PAGE_PRESENT | PAGE_WRITE | PAGE_HUGE
        xor edx, edx
        mov ecx, 2048
.fill_pd:
        mov [edi], eax
        mov [edi + 4], edx
        add eax, 0x200000
        adc edx, 0
        add edi, 8
        loop .fill_pd

        ; low PDPT: 4 entries -> the four PDs (identity and direct map share it)
        mov edi, PHYS(early_pdpt_low)
        mov eax, PHYS(early_pd) + PAGE_PRESENT + PAGE_WRITE
        mov ecx, 4
.fill_pdpt:
        mov [edi], eax
        add eax, 4096
        add edi, 8
        loop .fill_pdpt

        ; high PDPT: entry 510 (-2 GiB) -> first PD (physical 0 .. 1 GiB)
        mov dword [PHYS(early_pdpt_high) + 510 * 8], PHYS(early_pd) + PAGE_PRESENT + PAGE_WRITE

        mov eax, PHYS(early_pdpt_low) + PAGE_PRESENT + PAGE_WRITE
        mov [PHYS(early_pml4)], eax               ; identity
        mov [PHYS(early_pml4) + 256 * 8], eax     ; direct map
        mov dword [PHYS(early_pml4) + 511 * 8], PHYS(early_pdpt_high) + PAGE_PRESENT + PAGE_WRITE
        ret

bits 64
boot_entry64_low:
        mov rax, boot_entry64_high
        jmp rax

section .text
extern kernel_main
global boot_entry64_high
boot_entry64_high:
        xor ax, ax
        mov ds, ax
        mov es, ax
        mov ss, ax
        mov fs, ax
        mov gs, ax
        mov rsp, boot_stack_top
        xor ebp, ebp                    ; terminates backtraces
        mov edi, [rel boot_magic]
        mov esi, [rel boot_info_phys]
        call kernel_main
.hang:
        cli
        hlt
        jmp .hang

; Application processors arrive here from boot/trampoline.asm, in long mode
; on the early page tables, with RDI = their struct cpu and RSI = stack top.
extern ap_main
extern kernel_page_table_phys
global ap_entry64
ap_entry64:
        mov rax, [rel kernel_page_table_phys]
        mov cr3, rax
        mov rsp, rsi
        xor ebp, ebp
        call ap_main
        jmp boot_entry64_high.hang

section .rodata
no_long_mode_message: db "nohzk: this CPU has no long mode (x86-64); cannot boot", 13, 10, 0

align 16
early_gdt:
        dq 0
        dq 0x00AF9A000000FFFF           ; 0x08: 64-bit code
        dq 0x00CF92000000FFFF           ; 0x10: data
early_gdt_end:
early_gdt_pointer:
        dw early_gdt_end - early_gdt - 1
        dd PHYS(early_gdt)

section .data
global boot_magic, boot_info_phys
boot_magic:     dd 0
boot_info_phys: dd 0

section .bss
align 4096
global early_pml4
early_pml4:      resb 4096
early_pdpt_low:  resb 4096
early_pdpt_high: resb 4096
early_pd:        resb 4096 * 4
; The boot CPU's stack, which it keeps as its idle stack. The page below it
; is a guard: paging_init() leaves it unmapped, so an overflow faults (as on
; the stacks of kernel_stack_allocate) instead of running into early_pd.
align 4096
global boot_stack_guard, boot_stack
boot_stack_guard: resb 4096
boot_stack:      resb BOOT_STACK_SIZE
global boot_stack_top
boot_stack_top:
