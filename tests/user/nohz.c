/* The rules of /proc/PID/nohz (docs/nohz-task.md#patch-15-procselfnohz): every error
 * path, and what exec, fork, exit and a fatal fault do to the attribute
 * and to the nohz task's CPU.
 * Prints KTAP; scenario "nohz-rules" runs it at -smp 4 and -smp 2.
 * NOHZK_ONLY: Linux has no /proc/self/nohz, so tests/run does not run
 * this one on the host. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"
#include "../../user/lib/clock.h"
#include "../../user/lib/nohz.h"
#include "../../user/lib/pin.h"

static int unpin(void)
{
    return set_affinity_range(0, 0, (int)sysconf(_SC_NPROCESSORS_ONLN) - 1);
}

static int read_nohz(pid_t pid)
{
    char path[64], text[8] = { 0 };
    snprintf(path, sizeof(path), "/proc/%d/nohz", (int)pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, text, sizeof(text) - 1);
    close(fd);
    return got == 2 && text[1] == '\n' && (text[0] == '0' || text[0] == '1') ? text[0] - '0' : -2;
}

/* The "nohz" column of cpu's row in /proc/tick: a pid, -1 for none, -2
 * if there is no row. */
static int nohz_owner_in_proc_tick(int cpu)
{
    struct tick_row row;
    if (tick_row_read(cpu, &row) != 1)
        return -2;
    return !strcmp(row.nohz, "-") ? -1 : atoi(row.nohz);
}

/* The row says what the tick does, and its counters agree: every CPU
 * starts ticking, so a stopped tick has one stop more than restarts, and
 * only a stopped tick has no reason. */
static int tick_row_consistent(const struct tick_row *row)
{
    if (!strcmp(row->state, "stopped"))
        return !strcmp(row->reason, "-") && row->stops == row->restarts + 1;
    return strcmp(row->reason, "-") != 0 && row->stops == row->restarts;
}

/* Is cpu in the "housekeeping LIST" line of /proc/tick? 1, 0, or -1 if
 * there is no such line or its list cannot be read to its end. */
static int housekeeping_has(int cpu)
{
    char *line = NULL;
    size_t size = 0;
    int result = -1;
    FILE *file = fopen("/proc/tick", "r");
    if (!file)
        return -1;
    while (result < 0 && getline(&line, &size, file) > 0) {
        if (strncmp(line, "housekeeping ", 13) != 0)
            continue;
        result = 0;
        char *p = line + 13;
        while (*p >= '0' && *p <= '9') {
            long first = strtol(p, &p, 10), last = first;
            if (*p == '-')
                last = strtol(p + 1, &p, 10);
            result |= cpu >= first && cpu <= last;
            if (*p == ',')
                p++;
        }
        if (*p != '\n')
            result = -1;
    }
    free(line);
    fclose(file);
    return result;
}

/* spin_until_own_tick_stopped() of user/lib/nohz.h, when the row is not wanted. */
static int own_tick_stopped(int cpu)
{
    struct tick_row row;
    return spin_until_own_tick_stopped(cpu, &row);
}

/* cpu's row of /proc/tick's "stopped-tick rechecks" table: 1 with the
 * counts, 0 if there is none. */
static int rechecks_read(int cpu, unsigned long *skipped, unsigned long *made)
{
    char line[256];
    int in_table = 0, found = 0;
    FILE *file = fopen("/proc/tick", "r");
    if (!file)
        return 0;
    while (!found && fgets(line, sizeof(line), file)) {
        int row_cpu;
        if (!strncmp(line, "stopped-tick rechecks", 21))
            in_table = 1;
        else if (in_table)
            found = sscanf(line, "%d %lu %lu", &row_cpu, skipped, made) == 3 && row_cpu == cpu;
    }
    fclose(file);
    return found;
}

/* --- the tests, each in a child so that nothing leaks between them ----- */

static int reads_0_by_default(void)
{
    CHECK(read_nohz(getpid()) == 0);
    CHECK(read_nohz(getppid()) == 0);      /* anyone may read */
    return 1;
}

static int only_the_task_itself_may_write(void)
{
    CHECK(pin_to_cpu(0, 1) == 0);
    CHECK(write_nohz(getppid(), "1") == EPERM);
    CHECK(write_nohz(getppid(), "0") == EPERM);
    CHECK(read_nohz(getppid()) == 0);
    return 1;
}

static int only_0_or_1(void)
{
    static const char *const bad[] = { "2", "", "10", "1x", "yes", "-1", "1 1", "\n" };
    CHECK(pin_to_cpu(0, 1) == 0);
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int error = write_nohz(getpid(), bad[i]);
        if (error != EINVAL)
            printf("# %s:%d: writing '%s' gave errno %d, want EINVAL\n", __FILE__, __LINE__, bad[i], error);
        CHECK(error == EINVAL);
        CHECK(read_nohz(getpid()) == 0);
    }
    return 1;
}

static int whitespace_is_trimmed(void)
{
    CHECK(pin_to_cpu(0, 1) == 0);
    CHECK(write_nohz(getpid(), " 1\n") == 0);
    CHECK(read_nohz(getpid()) == 1);
    CHECK(nohz_owner_in_proc_tick(1) == getpid());
    CHECK(write_nohz(getpid(), "0\n") == 0);
    CHECK(read_nohz(getpid()) == 0);
    CHECK(nohz_owner_in_proc_tick(1) == -1);
    return 1;
}

static int unbound_task_is_ebusy(void)
{
    CHECK(unpin() == 0);
    CHECK(write_nohz(getpid(), "1") == EBUSY);
    CHECK(read_nohz(getpid()) == 0);
    return 1;
}

static int one_nohz_task_per_cpu_and_fork_does_not_inherit(void)
{
    CHECK(pin_to_cpu(0, 1) == 0);
    CHECK(write_nohz(getpid(), "1") == 0);
    pid_t child = fork();
    if (child == 0) {
        /* bound to CPU 1 too, by inheritance, but not a nohz task */
        _exit(read_nohz(getpid()) == 0 && write_nohz(getpid(), "1") == EBUSY && read_nohz(getpid()) == 0 ? 0 : 1);
    }
    CHECK(exit_status_of(child) == 0);
    CHECK(read_nohz(getpid()) == 1);
    return 1;
}

static int nohz_task_affinity_cannot_change(void)
{
    CHECK(pin_to_cpu(0, 1) == 0);
    CHECK(write_nohz(getpid(), "1") == 0);
    CHECK(pin_to_cpu(0, 0) == -1 && errno == EBUSY);
    CHECK(unpin() == -1 && errno == EBUSY);
    CHECK(sched_getcpu() == 1);
    CHECK(write_nohz(getpid(), "0") == 0);
    CHECK(pin_to_cpu(0, 0) == 0);          /* cleared: it may move again */
    CHECK(sched_getcpu() == 0);
    return 1;
}

/* Every CPU but 0 gets a nohz task (children waiting on a pipe); then
 * CPU 0, the last one without, refuses. */
static int last_free_cpu_is_ebusy(void)
{
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN), ready[2], hold[2];
    char byte;
    CHECK(cpus >= 2 && pipe(ready) == 0 && pipe(hold) == 0);
    for (int cpu = 1; cpu < cpus; cpu++) {
        if (fork() == 0) {
            close(hold[1]);
            byte = pin_to_cpu(0, cpu) == 0 && write_nohz(getpid(), "1") == 0 ? 'y' : 'n';
            write(ready[1], &byte, 1);
            read(hold[0], &byte, 1);        /* until the parent closes it */
            _exit(0);
        }
    }
    close(hold[0]);
    int all_set = 1;
    for (int cpu = 1; cpu < cpus; cpu++)
        all_set &= read(ready[0], &byte, 1) == 1 && byte == 'y';
    int error = pin_to_cpu(0, 0) == 0 ? write_nohz(getpid(), "1") : -1;
    close(hold[1]);
    while (wait(0) > 0)
        ;
    CHECK(all_set);
    CHECK(error == EBUSY);
    CHECK(read_nohz(getpid()) == 0);
    return 1;
}

/* execve keeps the attribute: the program after exec reads 1 (sh's own
 * read builtin, so no fork is involved). */
static int exec_keeps_it(void)
{
    pid_t child = fork();
    if (child == 0) {
        if (pin_to_cpu(0, 1) != 0 || write_nohz(getpid(), "1") != 0)
            _exit(9);
        execl("/bin/sh", "sh", "-c", "read v < /proc/self/nohz; exit $((v + 40))", (char *)0);
        _exit(8);
    }
    CHECK(exit_status_of(child) == 41);
    return 1;
}

/* Exit, and a kill by a fault, clear the attribute and the mask (docs/nohz-task.md#patch-14-exit-clears-the-attribute):
 * the CPU is free for another nohz task at once. */
static int exit_and_fault_clear_the_mask(void)
{
    for (int round = 0; round < 2; round++) {
        pid_t child = fork();
        if (child == 0) {
            if (pin_to_cpu(0, 1) != 0 || write_nohz(getpid(), "1") != 0)
                _exit(9);
            if (round == 1)
                *(volatile int *)(long)getpid() = 0;    /* a fault at a small address: SIGSEGV */
            _exit(0);
        }
        int status = wait_status(child);
        if (round == 0)
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        else
            CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
        CHECK(nohz_owner_in_proc_tick(1) == -1);
        CHECK(pin_to_cpu(0, 1) == 0 && write_nohz(getpid(), "1") == 0);
        CHECK(write_nohz(getpid(), "0") == 0);
        CHECK(unpin() == 0);
    }
    return 1;
}

/* A nohz task killed by a fault while its tick is stopped, on
 * the last CPU, leaves that CPU clean: no owner, a housekeeping CPU again,
 * a tick whose state and counters agree; and the next task can be its
 * nohz task, whose tick stops again. */
static int fault_with_its_tick_stopped_leaves_the_cpu_clean(void)
{
    int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1, ready[2], go[2];
    struct tick_row row;
    char byte = 0, path[64];

    CHECK(cpu >= 1);
    pid_t victim = fork();
    if (victim == 0) {
        if (pin_to_cpu(0, cpu) != 0 || write_nohz(getpid(), "1") != 0)
            _exit(9);
        if (!own_tick_stopped(cpu))
            _exit(10);
        *(volatile int *)0 = 1;                 /* a null write: SIGSEGV, with the tick stopped */
        _exit(11);
    }
    int status = wait_status(victim);
    if (!WIFSIGNALED(status))
        printf("# the victim exited with %d (9: set, 10: its tick never stopped)\n", WEXITSTATUS(status));
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
    snprintf(path, sizeof(path), "/proc/%d/nohz", (int)victim);
    CHECK(access(path, F_OK) != 0);
    CHECK(nohz_owner_in_proc_tick(cpu) == -1);
    CHECK(housekeeping_has(cpu) == 1);
    /* Now idle, the CPU stops its tick: stopped, no reason, counters agree. */
    int stopped = 0;
    for (int64_t limit = now_ns() + 2000000000ll; !stopped && now_ns() < limit; sleep_ms(10))
        stopped = tick_row_read(cpu, &row) == 1 && !strcmp(row.state, "stopped");
    printf("# cpu %d after its nohz task died of SIGSEGV: %s, reason %s, nohz %s, stops %lu, restarts %lu, "
           "housekeeping %s\n", cpu, row.state, row.reason, row.nohz, row.stops, row.restarts,
           housekeeping_has(cpu) == 1 ? "yes" : "no");
    CHECK(stopped && tick_row_consistent(&row) && !strcmp(row.nohz, "-"));

    /* The next nohz task of that CPU. */
    CHECK(pipe(ready) == 0 && pipe(go) == 0);
    pid_t next = fork();
    if (next == 0) {
        close(ready[0]);
        close(go[1]);
        if (pin_to_cpu(0, cpu) != 0 || write_nohz(getpid(), "1") != 0 || read_nohz(getpid()) != 1)
            _exit(9);
        write(ready[1], "y", 1);
        if (!own_tick_stopped(cpu))
            _exit(10);
        write(ready[1], "s", 1);
        read(go[0], &byte, 1);
        _exit(0);
    }
    close(ready[1]);
    close(go[0]);
    int got_ready = read(ready[0], &byte, 1) == 1 && byte == 'y';
    int nohz = got_ready ? read_nohz(next) : -1, owner = nohz_owner_in_proc_tick(cpu);
    int housekeeping = housekeeping_has(cpu);
    int got_stopped = read(ready[0], &byte, 1) == 1 && byte == 's';
    write(go[1], "g", 1);
    status = wait_status(next);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        printf("# the next nohz task exited with %d (9: set, 10: its tick never stopped)\n", WEXITSTATUS(status));
    CHECK(got_ready && nohz == 1 && owner == next && housekeeping == 0);
    CHECK(got_stopped && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(nohz_owner_in_proc_tick(cpu) == -1 && housekeeping_has(cpu) == 1);
    return 1;
}

/* A task that may run anywhere is not placed on a nohz task's CPU while
 * another CPU it may use exists: the nohz task asked to run alone. The
 * trap it avoids: this process last ran on that CPU, every other CPU has
 * one spinner, so the nohz CPU (one task) ties with the best, and a
 * wakeup preferred the last CPU (found when rcustress's process woke on
 * CPU 3 under the spin of scenario nohz-rcu-load). */
static int a_waking_task_avoids_a_nohz_cpu(void)
{
    int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1, ready[2], go[2];
    pid_t spinners[16];
    char byte = 0;

    CHECK(cpu >= 1 && cpu < 16);
    CHECK(pipe(ready) == 0 && pipe(go) == 0);
    for (int other = 0; other < cpu; other++) {
        spinners[other] = fork();
        if (spinners[other] == 0) {
            pin_to_cpu(0, other);
            for (;;)
                ;
        }
    }
    /* The only idle CPU left is the last one: a wakeup puts us there. */
    int there = 0;
    for (int tries = 0; tries < 200 && !there; tries++) {
        sleep_ms(10);
        there = sched_getcpu() == cpu;
    }
    if (!there) {
        for (int other = 0; other < cpu; other++)
            kill(spinners[other], SIGKILL);
    }
    CHECK(there);
    pid_t nohz = fork();
    if (nohz == 0) {
        close(ready[0]);
        close(go[1]);
        if (pin_to_cpu(0, cpu) != 0 || write_nohz(getpid(), "1") != 0 || !own_tick_stopped(cpu))
            _exit(9);
        write(ready[1], "s", 1);    /* wakes the test process: where does it run? */
        for (volatile unsigned long i = 0; i < 100000000; i++)
            ;
        read(go[0], &byte, 1);
        _exit(0);
    }
    close(ready[1]);
    close(go[0]);
    int woke = read(ready[0], &byte, 1) == 1 && byte == 's';
    int where = sched_getcpu();
    write(go[1], "g", 1);
    for (int other = 0; other < cpu; other++)
        kill(spinners[other], SIGKILL);
    for (int other = 0; other < cpu; other++)
        waitpid(spinners[other], NULL, 0);
    int status = wait_status(nohz);
    printf("# woken on cpu %d (the nohz task's is %d)\n", where, cpu);
    CHECK(woke && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(where != cpu);
    return 1;
}

static volatile sig_atomic_t continued;

static void on_continue(int signal)
{
    (void)signal;
    continued = 1;
}

/* A nohz task stopped by SIGSTOP keeps its CPU and its flag; the CPU,
 * idle, stops its tick; continued, the task stops its tick again. (A
 * stopped task is an ordinary sleeper to the tick: nothing special, which
 * is what this shows.) */
static int stopped_nohz_task_keeps_its_cpu(void)
{
    int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1, ready[2];
    struct tick_row row;
    char byte = 0;

    alarm(60);      /* a kernel without stops would leave waitpid(WUNTRACED) waiting */
    CHECK(cpu >= 1 && pipe(ready) == 0);
    pid_t task = fork();
    if (task == 0) {
        signal(SIGCONT, on_continue);
        if (pin_to_cpu(0, cpu) != 0 || write_nohz(getpid(), "1") != 0)
            _exit(9);
        if (!own_tick_stopped(cpu))
            _exit(10);
        write(ready[1], "a", 1);
        while (!continued)
            ;
        if (!own_tick_stopped(cpu))
            _exit(11);
        write(ready[1], "b", 1);
        _exit(0);
    }
    CHECK(task > 0);
    int got_first = read(ready[0], &byte, 1) == 1 && byte == 'a';
    int status = 0;
    CHECK(kill(task, SIGSTOP) == 0 && waitpid(task, &status, WUNTRACED) == task && WIFSTOPPED(status));
    int idle_and_stopped = 0;
    for (int64_t limit = now_ns() + 2000000000ll; !idle_and_stopped && now_ns() < limit; sleep_ms(10))
        idle_and_stopped = tick_row_read(cpu, &row) == 1 && !strcmp(row.state, "stopped");
    int owner_while_stopped = nohz_owner_in_proc_tick(cpu), flag_while_stopped = read_nohz(task);
    printf("# cpu %d with its nohz task stopped: %s, reason %s, nohz %s, owner %d\n", cpu, row.state, row.reason,
           row.nohz, owner_while_stopped);
    CHECK(kill(task, SIGCONT) == 0);
    int got_second = read(ready[0], &byte, 1) == 1 && byte == 'b';
    status = wait_status(task);
    CHECK(got_first && idle_and_stopped && tick_row_consistent(&row));
    CHECK(owner_while_stopped == task && flag_while_stopped == 1);
    CHECK(got_second && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return 1;
}

/* With its tick stopped, a nohz task's system calls ask nothing about the
 * tick on their way out unless something asked for a recheck
 * (tick_nohz_user_enter(), tick_want_recheck()): the "skipped" count grows
 * with the calls, the "made" one does not, and the tick stays stopped. */
#define RECHECK_CALLS 5000
static int system_calls_skip_the_recheck_of_a_stopped_tick(void)
{
    int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
    CHECK(cpu >= 1);
    pid_t child = fork();
    if (child == 0) {
        unsigned long skipped[2], made[2];
        struct tick_row row;
        if (pin_to_cpu(0, cpu) != 0 || write_nohz(getpid(), "1") != 0)
            _exit(9);
        if (!own_tick_stopped(cpu))
            _exit(10);
        if (!rechecks_read(cpu, &skipped[0], &made[0]))
            _exit(11);
        for (int i = 0; i < RECHECK_CALLS; i++)
            syscall(SYS_getppid);
        if (!rechecks_read(cpu, &skipped[1], &made[1]) || tick_row_read(cpu, &row) != 1)
            _exit(11);
        unsigned long skips = skipped[1] - skipped[0], rechecks = made[1] - made[0];
        printf("# %d getppid calls on cpu %d: %lu rechecks skipped, %lu made; tick %s\n", RECHECK_CALLS, cpu, skips,
               rechecks, row.state);
        fflush(stdout);
        _exit(skips >= RECHECK_CALLS && rechecks <= RECHECK_CALLS / 20 && !strcmp(row.state, "stopped") ? 0 : 12);
    }
    int status = exit_status_of(child);
    if (status != 0)
        printf("# the child exited with %d (9: nohz refused, 10: tick never stopped, 11: no table)\n", status);
    CHECK(status == 0);
    return 1;
}

/* cpu's row of /proc/tick's "tick decisions" table, read with open, one
 * read and close (the file is generated at open): 1 with the counts, 0
 * if there is none. */
struct decisions {
    unsigned long decisions, timer_irqs, all_irqs;
};

static char decisions_text[65536];

static int decisions_read(int cpu, struct decisions *counts)
{
    int fd = open("/proc/tick", O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t got = read(fd, decisions_text, sizeof(decisions_text) - 1);
    close(fd);
    if (got <= 0)
        return 0;
    decisions_text[got] = 0;
    char *table = strstr(decisions_text, "tick decisions");
    for (char *line = table; line && (line = strchr(line, '\n')); ) {
        int row_cpu;
        line++;
        if (sscanf(line, "%d %lu %lu %lu", &row_cpu, &counts->decisions, &counts->timer_irqs,
                   &counts->all_irqs) == 4 && row_cpu == cpu)
            return 1;
    }
    return 0;
}

/* One timer interrupt, one decision: a nohz task whose tick a CPU-time
 * timer keeps (the cputimer dependency) spins in user mode, and each
 * tick that interrupts it decides the tick once, at the interrupt's
 * exit, not again on the way back to user mode
 * (kernel/time/tick_stop.c). Its own CPU reads the counts, in the open
 * of /proc/tick; between the two opens, three system calls return to
 * user mode on an isolated CPU with the tick running, each deciding
 * once (the first open's, its read's and its close's), and nothing else
 * runs there. So the decisions are the timer interrupts plus 3, and no
 * other interrupt comes. */
#define SYSCALLS_BETWEEN_READS 3
static int each_timer_interrupt_decides_the_tick_once(void)
{
    int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
    CHECK(cpu >= 1);
    pid_t child = fork();
    if (child == 0) {
        struct decisions before, after;
        struct itimerval virtual_timer = { .it_value = { .tv_sec = 1000 } };
        if (pin_to_cpu(0, cpu) != 0 || write_nohz(getpid(), "1") != 0)
            _exit(9);
        if (setitimer(ITIMER_VIRTUAL, &virtual_timer, NULL) != 0)
            _exit(10);
        if (!decisions_read(cpu, &before) || !decisions_read(cpu, &before))   /* the first touches the pages */
            _exit(11);
        for (volatile unsigned long i = 0; i < 20000000; i++)
            ;
        if (!decisions_read(cpu, &after))
            _exit(11);
        unsigned long decisions = after.decisions - before.decisions, timer = after.timer_irqs - before.timer_irqs;
        unsigned long all = after.all_irqs - before.all_irqs;
        printf("# cpu %d, tick kept by a CPU-time timer: %lu timer interrupts, %lu interrupts in all, %lu decisions "
               "(%d of them on system calls' way out)\n", cpu, timer, all, decisions, SYSCALLS_BETWEEN_READS);
        fflush(stdout);
        _exit(timer >= 10 && all == timer && decisions == timer + SYSCALLS_BETWEEN_READS ? 0 : 12);
    }
    int status = exit_status_of(child);
    if (status != 0)
        printf("# the child exited with %d (9: nohz refused, 10: setitimer failed, 11: no table, "
               "12: counts differ)\n", status);
    CHECK(status == 0);
    return 1;
}

/* A nohz task that clears its attribute while its tick is stopped is an
 * ordinary task again: under tick=task its tick comes back on the way out
 * of that write, with no interrupt to bring it (tick_want_recheck() in
 * nohz_task_clear()), and is seen ticking while the task spins on. */
static int clearing_the_attribute_brings_the_tick_back(void)
{
    int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
    CHECK(cpu >= 1);
    pid_t child = fork();
    if (child == 0) {
        struct tick_row row;
        if (pin_to_cpu(0, cpu) != 0 || write_nohz(getpid(), "1") != 0)
            _exit(9);
        if (!own_tick_stopped(cpu))
            _exit(10);
        if (write_nohz(getpid(), "0") != 0)
            _exit(11);
        for (volatile unsigned long i = 0; i < 20000000; i++)
            ;
        if (tick_row_read(cpu, &row) != 1)
            _exit(11);
        printf("# cpu %d after the attribute was cleared: %s, reason %s\n", cpu, row.state, row.reason);
        fflush(stdout);
        _exit(!strcmp(row.state, "ticking") ? 0 : 12);
    }
    int status = exit_status_of(child);
    if (status != 0)
        printf("# the child exited with %d (9: nohz refused, 10: tick never stopped, 12: still stopped)\n", status);
    CHECK(status == 0);
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(reads_0_by_default),
        KTAP_CASE(only_the_task_itself_may_write),
        KTAP_CASE(only_0_or_1),
        KTAP_CASE(whitespace_is_trimmed),
        KTAP_CASE(unbound_task_is_ebusy),
        KTAP_CASE(one_nohz_task_per_cpu_and_fork_does_not_inherit),
        KTAP_CASE(nohz_task_affinity_cannot_change),
        KTAP_CASE(last_free_cpu_is_ebusy),
        KTAP_CASE(exec_keeps_it),
        KTAP_CASE(exit_and_fault_clear_the_mask),
        KTAP_CASE(fault_with_its_tick_stopped_leaves_the_cpu_clean),
        KTAP_CASE(a_waking_task_avoids_a_nohz_cpu),
        KTAP_CASE(stopped_nohz_task_keeps_its_cpu),
        KTAP_CASE(system_calls_skip_the_recheck_of_a_stopped_tick),
        KTAP_CASE(clearing_the_attribute_brings_the_tick_back),
        KTAP_CASE(each_timer_interrupt_decides_the_tick_once),
    };
    return ktap_main_each_in_a_child(cases, KTAP_COUNT(cases));
}
