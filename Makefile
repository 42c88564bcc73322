# nohzk: build the kernel, boot it, test it. `make help` lists the targets.
#
# Variables every QEMU target accepts:
#   CPUS=N        number of CPUs (default 4)
#   ARGS="..."    kernel command line
#   CROSS=prefix  cross toolchain prefix (e.g. x86_64-elf-); default: host gcc

CPUS  ?= 4
ARGS  ?=
CROSS ?=

CC      := $(CROSS)gcc
LD      := $(CROSS)ld
NM      := $(CROSS)nm
NASM    := nasm
BUILD   := build
PYTHON  := python3

KERNEL_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -I. \
    -ffreestanding -fno-builtin -fno-stack-protector -fno-pic -fno-pie \
    -mno-red-zone -mcmodel=kernel -mgeneral-regs-only \
    -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
    -fno-asynchronous-unwind-tables -fno-tree-loop-distribute-patterns \
    -MMD -MP
KERNEL_LDFLAGS := -nostdlib -static -n -T linker.ld -z max-page-size=0x1000 -z noexecstack \
    $(shell $(LD) --help 2>/dev/null | grep -q no-warn-rwx-segments && echo --no-warn-rwx-segments)

# Every C file of these folders is part of the kernel; tests/kernel holds
# the in-kernel KTAP suites.
KERNEL_C_SOURCES := $(wildcard arch/x86/*.c kernel/*/*.c sched/*.c rcu/*.c tests/kernel/*.c)
KERNEL_ASM_SOURCES := boot/multiboot2.asm boot/trampoline_image.asm $(wildcard arch/x86/*.asm tests/kernel/*.asm)
KERNEL_OBJECTS := $(patsubst %.c,$(BUILD)/obj/%.o,$(KERNEL_C_SOURCES)) \
                  $(patsubst %.asm,$(BUILD)/obj/%.o,$(KERNEL_ASM_SOURCES))

KERNEL := $(BUILD)/nohzk.elf
BOOT   := tools/run/boot --smp $(CPUS) $(if $(ARGS),--append "$(ARGS)")

.PHONY: FORCE all kernel initrd user-programs host-tests run run-uefi debug test linux-tests mutants bench compare-linux trace clean help deps fuzz soak docs lab-start lab-export grade

all: kernel initrd user-programs host-tests

kernel: $(KERNEL)

# Our own programs: every user/NAME.c is a static musl program
# build/user/NAME, installed in the initrd as /bin/NAME.
USER_CC      := musl-gcc
USER_CFLAGS  := -static -O2 -g -Wall -Wextra -Werror
USER_PROGRAMS := $(patsubst user/%.c,$(BUILD)/user/%,$(wildcard user/*.c))

$(BUILD)/user/%: user/%.c $(wildcard user/lib/*.h)
	@mkdir -p $(dir $@)
	@echo "  MUSLCC  $<"
	@$(USER_CC) $(USER_CFLAGS) -o $@ $<

# Test programs (tests/user/*.c), each built twice from one source: with
# musl and with the host's glibc, both static; scenarios add them with
# tools/run/boot --add and compare their output with a run on the host.
TEST_PROGRAMS := $(foreach p,$(patsubst tests/user/%.c,%,$(wildcard tests/user/*.c)),\
                   $(BUILD)/tests-user/$(p).musl $(BUILD)/tests-user/$(p).glibc)

$(BUILD)/tests-user/%.musl: tests/user/%.c $(wildcard tests/user/*.h) $(wildcard user/lib/*.h)
	@mkdir -p $(dir $@)
	@echo "  MUSLCC  $<"
	@$(USER_CC) $(USER_CFLAGS) -o $@ $<

$(BUILD)/tests-user/%.glibc: tests/user/%.c $(wildcard tests/user/*.h) $(wildcard user/lib/*.h)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $< (static glibc)"
	@gcc $(USER_CFLAGS) -o $@ $<

# A test program that says DYNAMIC_BUILD is also built a third way,
# NAME.dyn: a PIE linked against the host's glibc (Debian 12's) without
# -static, which execve starts through Debian's dynamic loader.
DYNAMIC_TEST_PROGRAMS := $(patsubst tests/user/%.c,$(BUILD)/tests-user/%.dyn,\
                           $(shell grep -l DYNAMIC_BUILD tests/user/*.c))
TEST_PROGRAMS += $(DYNAMIC_TEST_PROGRAMS)

$(BUILD)/tests-user/%.dyn: tests/user/%.c $(wildcard tests/user/*.h) $(wildcard user/lib/*.h)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $< (dynamic glibc)"
	@gcc -DDYNAMIC_BUILD $(filter-out -static,$(USER_CFLAGS)) -o $@ $<

user-programs: $(USER_PROGRAMS) $(TEST_PROGRAMS)

# The initrd: Debian's busybox-static and its applets (tools/build/mkinitrd) and
# our programs; tools/run/boot puts build/initrd.cpio in every ISO it makes.
# A second archive, merged in by tools/run/boot --debian (make run does):
# Debian's dynamic loader, libc6, libnuma1 and four rt-tests programs.
initrd: $(BUILD)/initrd.cpio $(BUILD)/initrd-debian.cpio
$(BUILD)/initrd.cpio: tools/build/mkinitrd tools/lib/newc.py $(USER_PROGRAMS)
	@echo "  INITRD  $@"
	@tools/build/mkinitrd -o $@ $(USER_PROGRAMS)
$(BUILD)/initrd-debian.cpio: tools/build/mkinitrd tools/lib/newc.py
	@echo "  INITRD  $@"
	@tools/build/mkinitrd --debian -o $@

help:
	@echo "make run        boot nohzk in QEMU (-smp $(CPUS), SeaBIOS), console on this terminal"
	@echo "make run-uefi   the same under OVMF (UEFI)"
	@echo "make debug      QEMU stopped at the first instruction, gdb attached with symbols"
	@echo "make test       host unit tests, then every QEMU scenario, then the kept mutations"
	@echo "make linux-tests  the test programs on Debian's Linux 6.1 under QEMU (part of make test)"
	@echo "make mutants    only the kept mutations: each plausible bug must fail its test (tests/mutations/)"
	@echo "make bench      boot time, scheduler costs, noise, probes and rt-tests against Linux; build/bench.json"
	@echo "                (tools/measure/bench --only probes: the probes against Linux alone, about 30 s)"
	@echo "make compare-linux  the tick policies against Debian's Linux, counted by QEMU (COMPARE_ARGS=...),"
	@echo "                then three nohz pthreads 10 s on both (tools/measure/threads-witness),"
	@echo "                then oslat, cyclictest, hackbench on both (tools/measure/instruments, INSTRUMENTS_ARGS=...)"
	@echo "make trace CMD='...'  run CMD traced; build/trace.json (Perfetto) and build/trace.svg"
	@echo "make fuzz       libFuzzer on every parser, FUZZ_SECONDS each (default 60)"
	@echo "make soak       mixed load at -smp 4 for SOAK_SECONDS (default 600): no stall, panic or leak"
	@echo "make docs       redraw docs/img/*.svg from docs/diagrams/*.dot, then check the book (tools/check/check-docs)"
	@echo "make lab-start LAB=NAME  the lab's skeleton: a worktree on branch lab/NAME (docs/labs/)"
	@echo "make lab-export LAB=NAME DEST=DIR  the lab's skeleton as a stand-alone git repository"
	@echo "make grade LAB=NAME      run the lab's tests in QEMU and score them"
	@echo "make clean      remove build/"
	@echo "variables: CPUS=N ARGS=\"kernel command line\" CROSS=x86_64-elf-"
	@echo "the programs behind these targets, by role (build, check, run, measure, course): tools/README.md"

deps:
	@tools/build/check-deps

# The labs (docs/labs/README.md): the skeleton is made from today's sources.
lab-start:
	@test -n "$(LAB)" || { echo "usage: make lab-start LAB=NAME (tools/course/lab list)"; exit 2; }
	@tools/course/lab start $(LAB)

lab-export:
	@test -n "$(LAB)" -a -n "$(DEST)" || { echo "usage: make lab-export LAB=NAME DEST=DIR (tools/course/lab list)"; exit 2; }
	@tools/course/lab export $(LAB) $(DEST)

grade: kernel initrd
	@test -n "$(LAB)" || { echo "usage: make grade LAB=NAME (tools/course/lab list)"; exit 2; }
	@tools/course/grade $(LAB)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.asm arch/x86/trap_frame.inc
	@mkdir -p $(dir $@)
	@echo "  NASM    $<"
	@$(NASM) -f elf64 -Werror -o $@ $<

$(BUILD)/trampoline.bin: boot/trampoline.asm
	@mkdir -p $(dir $@)
	$(NASM) -f bin -Werror -o $@ $<

$(BUILD)/obj/boot/trampoline_image.o: $(BUILD)/trampoline.bin

# The vDSO (arch/x86/vdso/vdso.c): a position-independent shared object
# linked as Linux links its own (hash tables of both styles, LINUX_2.6
# versions, no relocations: it is mapped, never relocated), then put into
# the kernel image by arch/x86/vdso_image.asm.
VDSO_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -I. -fPIC -fno-stack-protector -fno-common \
    -mgeneral-regs-only -fasynchronous-unwind-tables -nostdlib
VDSO_LDFLAGS := -shared -soname=linux-vdso.so.1 --hash-style=both --build-id=sha1 --eh-frame-hdr \
    -Bsymbolic -z noexecstack -z max-page-size=4096 -T arch/x86/vdso/vdso.lds

$(BUILD)/vdso/vdso.so: arch/x86/vdso/vdso.c arch/x86/vdso/vdso_data.h arch/x86/vdso/vdso.lds
	@mkdir -p $(dir $@)
	@echo "  VDSO    $@"
	@$(CC) $(VDSO_CFLAGS) -c $< -o $(BUILD)/vdso/vdso.o
	@$(LD) $(VDSO_LDFLAGS) $(BUILD)/vdso/vdso.o -o $@.tmp
	@if readelf -rW $@.tmp | grep -q '^ *[0-9a-f]\{8,\} '; then echo "vdso: relocations in $@"; exit 1; fi
	@mv $@.tmp $@

$(BUILD)/obj/arch/x86/vdso_image.o: $(BUILD)/vdso/vdso.so

# Two links: the first gives the addresses for the symbol table, the second
# adds the table after everything it describes (see linker.ld), then we
# check that no described address moved.
$(BUILD)/ksyms_empty.o:
	@mkdir -p $(dir $@)
	printf '' | $(CC) -c -x assembler -o $@ -

# Relink when the set of objects changes (a source added or removed), not
# only when an object is newer than the kernel.
$(BUILD)/objects.list: FORCE
	@mkdir -p $(BUILD)
	@echo '$(KERNEL_OBJECTS)' | cmp -s - $@ || echo '$(KERNEL_OBJECTS)' > $@

FORCE:

$(BUILD)/nohzk.pass1.elf: $(KERNEL_OBJECTS) $(BUILD)/ksyms_empty.o linker.ld $(BUILD)/objects.list
	@echo "  LD      $@ (first pass)"
	@$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJECTS) $(BUILD)/ksyms_empty.o

$(BUILD)/ksyms.S: $(BUILD)/nohzk.pass1.elf tools/build/ksyms.sh
	@NM=$(NM) tools/build/ksyms.sh $< > $@

$(BUILD)/ksyms.o: $(BUILD)/ksyms.S
	@$(CC) -c -o $@ $<

$(KERNEL): $(KERNEL_OBJECTS) $(BUILD)/ksyms.o linker.ld $(BUILD)/objects.list
	@echo "  LD      $@"
	@$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJECTS) $(BUILD)/ksyms.o
	@NM=$(NM) tools/build/ksyms.sh $@ | cmp -s - $(BUILD)/ksyms.S || { echo "ksyms: addresses moved between links"; rm -f $@; exit 1; }

host-tests:
	$(MAKE) -C tests/host OUT=$(abspath $(BUILD))/host
	$(MAKE) -C tests/fuzz replay OUT=$(abspath $(BUILD))/host

# Host fuzzing of the parsers with libFuzzer (docs/reliability.md):
# FUZZ_SECONDS per target (default 60). Needs clang.
FUZZ_SECONDS ?= 60
fuzz: deps
	@FUZZ=1 tools/build/check-deps
	$(MAKE) -C tests/fuzz fuzz OUT=$(abspath $(BUILD))/fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

run: deps $(KERNEL) $(BUILD)/initrd.cpio $(BUILD)/initrd-debian.cpio
	$(BOOT) --interactive --debian

run-uefi: deps $(KERNEL) $(BUILD)/initrd.cpio $(BUILD)/initrd-debian.cpio
	$(BOOT) --interactive --uefi --debian

# A port of our own: two users of one machine must not share a gdb port.
GDB_PORT ?= $(shell echo $$((20000 + $$(id -u) % 20000)))
debug: deps $(KERNEL) $(BUILD)/initrd.cpio
	@echo "QEMU waits for gdb on port $(GDB_PORT); the console goes to $(BUILD)/debug-console.log"
	$(BOOT) --gdb $(GDB_PORT) --interactive > $(BUILD)/debug-console.log 2>&1 < /dev/null & \
	sleep 1; gdb -q -ex "target remote 127.0.0.1:$(GDB_PORT)" -x tools/run/gdbinit $(KERNEL); \
	kill %1 2>/dev/null || true

# The long mixed-load run (docs/reliability.md): SOAK_SECONDS (default 600),
# then the scenarios marked "soak" in tests/qemu/scenarios.py.
SOAK_SECONDS ?= 600
soak: deps all
	CPUS=$(CPUS) tools/run/soak $(SOAK_SECONDS)
	tests/run --soak

test: deps all
	tests/run

# The test programs of tests/user on Debian's Linux 6.1 under the same QEMU,
# the exact reference for their answers (docs/testing.md); make test runs
# them too, as items linux-NAME.LIBC.
linux-tests: deps $(TEST_PROGRAMS)
	tools/run/linux-tests

# Only the kept mutations (tests/mutations/, docs/testing.md "Mutations"),
# which `make test` runs last: each mutant must fail its test.
mutants: deps all
	tests/run --only '^mutant/'

bench: deps $(KERNEL) $(BUILD)/initrd.cpio $(BUILD)/initrd-debian.cpio $(USER_PROGRAMS) $(TEST_PROGRAMS)
	CPUS=$(CPUS) tools/measure/bench

# nohzk's tick policies against Debian's Linux 6.1 (docs/noise.md), at -smp
# 4: its kernel is downloaded once into build/linux/. COMPARE_ARGS passes
# options to tools/measure/compare-linux, e.g. "--runs 3 --seconds 5".
# Then three nohz pthreads on CPUs 1-3, 10 s, on both kernels
# (tools/measure/threads-witness, docs/threads.md); then Debian's oslat,
# cyclictest and hackbench on both (tools/measure/instruments,
# docs/linux-tools.md; INSTRUMENTS_ARGS, e.g. "--runs 3").
COMPARE_ARGS ?=
INSTRUMENTS_ARGS ?=
compare-linux: deps $(KERNEL) $(BUILD)/initrd.cpio $(BUILD)/initrd-debian.cpio $(USER_PROGRAMS) $(TEST_PROGRAMS)
	tools/measure/compare-linux $(COMPARE_ARGS)
	tools/measure/threads-witness
	tools/measure/instruments $(INSTRUMENTS_ARGS)

# CMD is read from the environment (make puts command-line variables
# there), so that its quotes reach the guest's shell untouched.
# TRACE=irq,tick,... picks the classes (default all), TRACE_SIZE the
# events kept per CPU.
TRACE      ?= all
TRACE_SIZE ?= 16384
CMD        ?= sleep 1
export CMD
trace: deps $(KERNEL) $(BUILD)/initrd.cpio
	tools/measure/trace --smp $(CPUS) --classes $(TRACE) --size $(TRACE_SIZE) $(if $(ARGS),--append "$(ARGS)") -- "$$CMD"

# The pictures of the book: docs/diagrams/NAME.dot drawn by graphviz into
# docs/img/NAME.svg (both committed; `make test` fails if they differ),
# then the book checked against the code.
docs: deps
	@for source in docs/diagrams/*.dot; do \
	    echo "  DOT     $$source"; \
	    dot -Tsvg "$$source" -o "docs/img/$$(basename "$$source" .dot).svg" || exit 1; \
	done
	tools/check/check-docs

clean:
	rm -rf $(BUILD)

-include $(KERNEL_OBJECTS:.o=.d)
