/* The console terminal (see kernel/console/console.h): COM1 with a line discipline
 * in the spirit of Linux's n_tty, much smaller.
 *
 * Received bytes go through receive_byte() under the console lock, in the
 * UART's interrupt (or in read(), when polling): input translation (ICRNL,
 * INLCR, IGNCR), then either line editing into `line` (ICANON) or straight
 * into the `input` ring. A finished line is moved into the ring with its
 * last entry marked as a line end; read() in canonical mode waits for a
 * marked entry and returns at most one line. ^D ends a line with an entry
 * that carries no byte, so that ^D on an empty line reads as 0: end of
 * file.
 *
 * With ISIG, ^C, ^\ and ^Z flush the input and send SIGINT, SIGQUIT and
 * SIGTSTP to the foreground process group (TIOCSPGRP); the signals are
 * sent after the console lock is dropped (send_signals).
 *
 * Left out on purpose: SIGTTIN and SIGTTOU for background reads and
 * writes (a background job reads and writes as if in front), flow control (IXON:
 * ^S/^Q are ordinary bytes), VLNEXT and VREPRINT, VTIME (reads behave as
 * VTIME=0), tab columns when erasing (a tab is erased as one column),
 * sessions and hangup. Output goes to console_output() (kernel/base/printk.c),
 * which takes printk's lock a line at a time, so kernel messages and
 * program output never share a line; serial_write always sends "\n" as
 * "\r\n" (OPOST|ONLCR can't be turned off). */
#include "kernel/console/console.h"

#include "arch/x86/interrupt_controllers.h"
#include "arch/x86/serial.h"
#include "kernel/lib/errno.h"
#include "kernel/irq/irq.h"
#include "kernel/base/percpu.h"
#include "kernel/fs/poll.h"
#include "kernel/base/printk.h"
#include "kernel/process/signal.h"
#include "kernel/base/spinlock.h"
#include "kernel/time/timers.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/vfs.h"
#include "sched/task.h"
#include "sched/wait.h"

#define INPUT_SIZE  1024      /* entries waiting for read(); Linux has 4096 */
#define LINE_SIZE   512       /* longest line being edited, its end included */
#define POLL_PERIOD 1000000ul /* ns between looks at the UART, when polling */

/* An input entry is a byte plus two marks. */
#define ENTRY_BYTE     0x0ff
#define ENTRY_LINE_END 0x100 /* the last entry of a canonical line */
#define ENTRY_NO_BYTE  0x200 /* ^D: ends the line, gives nothing to read */

static struct {
    struct spinlock lock; /* everything below; taken in the interrupt */
    struct wait_queue readers;
    struct linux_termios termios;
    struct linux_winsize winsize;
    int pgrp;
    uint16_t input[INPUT_SIZE]; /* ring: input_head - input_tail entries */
    uint64_t input_head, input_tail;
    unsigned line_ends; /* entries in the ring marked ENTRY_LINE_END */
    char line[LINE_SIZE];
    size_t line_length;
    unsigned interrupt_chars; /* ^C, ^\ and ^Z seen */
    uint64_t signals_to_send; /* bit n-1: signal n, for the foreground group */
    bool polling;             /* no receive interrupt: read() polls */
} console = {
    .lock = SPINLOCK_INIT("console"),
    .readers = {.lock = SPINLOCK_INIT("console_readers"), .head = 0},
    /* Linux's defaults for a serial console (tty_std_termios, INIT_C_CC). */
    /* clang-format off */
    .termios = {
        .c_iflag = ICRNL | IXON,
        .c_oflag = OPOST | ONLCR,
        .c_cflag = B38400 | CS8 | CREAD | HUPCL,
        .c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
        .c_cc = { [VINTR] = 003, [VQUIT] = 034, [VERASE] = 0177, [VKILL] = 025, [VEOF] = 004,
                  [VTIME] = 0, [VMIN] = 1, [VSTART] = 021, [VSTOP] = 023, [VSUSP] = 032,
                  [VREPRINT] = 022, [VDISCARD] = 017, [VWERASE] = 027, [VLNEXT] = 026 },
    },
    /* clang-format on */
    .winsize = {.ws_row = 24, .ws_col = 80},
    .pgrp = 1,
};

/* ---- The line discipline (console lock held) ---- */

static bool has_flag(uint32_t flags, uint32_t flag)
{
    return (flags & flag) != 0;
}

/* c_cc entries of 0 are disabled (_POSIX_VDISABLE), so NUL matches none. */
static bool is_special(uint8_t c, int index)
{
    return console.termios.c_cc[index] != 0 && c == console.termios.c_cc[index];
}

static size_t input_count(void)
{
    return (size_t)(console.input_head - console.input_tail);
}

static bool input_push(uint16_t entry)
{
    if (input_count() == INPUT_SIZE)
        return false; /* full: the byte is lost, as on a real UART overrun */
    console.input[console.input_head++ % INPUT_SIZE] = entry;
    if (entry & ENTRY_LINE_END)
        console.line_ends++;
    return true;
}

static uint16_t input_pop(void)
{
    uint16_t entry = console.input[console.input_tail++ % INPUT_SIZE];
    if (entry & ENTRY_LINE_END)
        console.line_ends--;
    return entry;
}

static void flush_input(void)
{
    console.input_tail = console.input_head;
    console.line_ends = 0;
    console.line_length = 0;
}

static bool is_control(uint8_t c)
{
    return c < 0x20 || c == 0x7f;
}

/* Columns the echo of c took: 2 for "^X" forms. */
static unsigned echo_width(uint8_t c)
{
    return has_flag(console.termios.c_lflag, ECHOCTL) && is_control(c) && c != '\t' && c != '\n' ? 2 : 1;
}

static void echo_raw(const char *text, size_t length)
{
    if (has_flag(console.termios.c_lflag, ECHO))
        console_output(text, length);
}

/* With ECHOCTL, control bytes show as ^X (and DEL as ^?), as Linux does. */
static void echo_byte(uint8_t c)
{
    char text[2] = {(char)c, 0};
    if (echo_width(c) == 2) {
        text[0] = '^';
        text[1] = (char)(c ^ 0x40);
    }
    echo_raw(text, echo_width(c));
}

static void erase_last(void)
{
    uint8_t c = (uint8_t)console.line[--console.line_length];
    if (!has_flag(console.termios.c_lflag, ECHOE)) {
        echo_byte(console.termios.c_cc[VERASE]); /* the erase key itself */
        return;
    }
    for (unsigned i = echo_width(c); i > 0; i--)
        echo_raw("\b \b", 3);
}

/* ^W: the spaces before the cursor, then the word. */
static void erase_word(void)
{
    while (console.line_length > 0 && console.line[console.line_length - 1] == ' ')
        erase_last();
    while (console.line_length > 0 && console.line[console.line_length - 1] != ' ')
        erase_last();
}

static void kill_line(void)
{
    uint32_t lflag = console.termios.c_lflag;
    if (has_flag(lflag, ECHOKE) && has_flag(lflag, ECHOE)) {
        while (console.line_length > 0)
            erase_last();
        return;
    }
    echo_byte(console.termios.c_cc[VKILL]);
    if (has_flag(lflag, ECHOK))
        echo_raw("\n", 1);
    console.line_length = 0;
}

/* Move the edited line into the ring, its last entry marked; a line that
 * does not fit is dropped whole rather than cut. */
static void commit_line(bool end_of_file)
{
    size_t entries = console.line_length + (end_of_file ? 1 : 0);
    if (entries == 0 || INPUT_SIZE - input_count() < entries) {
        console.line_length = 0;
        return;
    }
    for (size_t i = 0; i < console.line_length; i++) {
        uint16_t entry = (uint8_t)console.line[i];
        if (i + 1 == console.line_length && !end_of_file)
            entry |= ENTRY_LINE_END;
        input_push(entry);
    }
    if (end_of_file)
        input_push(ENTRY_LINE_END | ENTRY_NO_BYTE);
    console.line_length = 0;
}

static void canonical_byte(uint8_t c)
{
    bool extended = has_flag(console.termios.c_lflag, IEXTEN);
    if (is_special(c, VERASE) || c == '\b') {
        if (console.line_length > 0)
            erase_last();
    } else if (extended && is_special(c, VWERASE)) {
        erase_word();
    } else if (is_special(c, VKILL)) {
        kill_line();
    } else if (is_special(c, VEOF)) {
        commit_line(true); /* not echoed, as Linux */
    } else if (c == '\n' || is_special(c, VEOL) || (extended && is_special(c, VEOL2))) {
        console.line[console.line_length++] = (char)c; /* LINE_SIZE keeps room for it */
        if (c == '\n' && has_flag(console.termios.c_lflag, ECHONL))
            console_output("\n", 1);
        else
            echo_byte(c);
        commit_line(false);
    } else if (console.line_length < LINE_SIZE - 1) {
        console.line[console.line_length++] = (char)c;
        echo_byte(c);
    }
}

/* ^C, ^\, ^Z: flush the input and, once the lock is dropped, signal the
 * foreground process group, as Linux does. */
static void interrupt_char(uint8_t c)
{
    int signal = is_special(c, VINTR) ? SIGINT : is_special(c, VQUIT) ? SIGQUIT : SIGTSTP;
    console.interrupt_chars++;
    console.signals_to_send |= signal_bit(signal);
    if (!has_flag(console.termios.c_lflag, NOFLSH))
        flush_input();
    echo_byte(c);
}

static void receive_byte(uint8_t c)
{
    const struct linux_termios *termios = &console.termios;
    if (c == '\r') {
        if (has_flag(termios->c_iflag, IGNCR))
            return;
        if (has_flag(termios->c_iflag, ICRNL))
            c = '\n';
    } else if (c == '\n' && has_flag(termios->c_iflag, INLCR)) {
        c = '\r';
    }
    if (has_flag(termios->c_lflag, ISIG) &&
        (is_special(c, VINTR) || is_special(c, VQUIT) || is_special(c, VSUSP))) {
        interrupt_char(c);
    } else if (has_flag(termios->c_lflag, ICANON)) {
        canonical_byte(c);
    } else if (input_push(c)) {
        echo_byte(c);
    }
}

/* Whatever the UART holds. */
static unsigned drain_uart(void)
{
    unsigned received = 0;
    int c;
    while ((c = serial_read_byte()) >= 0) {
        receive_byte((uint8_t)c);
        received++;
    }
    return received;
}

/* Signals asked for by ^C and friends: sent outside the console lock,
 * which an interrupt handler holds. */
static void send_signals(void)
{
    spin_lock(&console.lock);
    uint64_t signals = console.signals_to_send;
    int group = console.pgrp;
    console.signals_to_send = 0;
    spin_unlock(&console.lock);
    for (int signal = 1; signals; signal++, signals >>= 1) {
        if (signals & 1)
            signal_send_group(group, signal);
    }
}

static void console_interrupt(struct trap_frame *frame)
{
    (void)frame;
    spin_lock(&console.lock);
    unsigned received = drain_uart();
    spin_unlock(&console.lock);
    if (received) {
        send_signals();
        wake_up_all(&console.readers);
        poll_notify();
    }
}

void console_test_inject(const char *bytes, size_t count)
{
    spin_lock(&console.lock);
    for (size_t i = 0; i < count; i++)
        receive_byte((uint8_t)bytes[i]);
    spin_unlock(&console.lock);
    send_signals();
    wake_up_all(&console.readers);
    poll_notify();
}

/* ---- termios ---- */

void console_get_termios(struct linux_termios *out)
{
    spin_lock(&console.lock);
    *out = console.termios;
    spin_unlock(&console.lock);
}

/* Leaving canonical mode makes the half-edited line readable, as in
 * Linux. */
void console_set_termios(const struct linux_termios *termios)
{
    spin_lock(&console.lock);
    if (has_flag(console.termios.c_lflag, ICANON) && !has_flag(termios->c_lflag, ICANON)) {
        for (size_t i = 0; i < console.line_length; i++)
            input_push((uint8_t)console.line[i]);
        console.line_length = 0;
    }
    console.termios = *termios;
    spin_unlock(&console.lock);
    wake_up_all(&console.readers); /* what they wait for may have changed */
    poll_notify();
}

/* ---- The file ---- */

/* Enough input for a read of count bytes: a whole line in canonical
 * mode, VMIN bytes (or count, if smaller) in raw mode. VMIN=0 never
 * waits. */
static bool readable_locked(size_t count)
{
    if (has_flag(console.termios.c_lflag, ICANON))
        return console.line_ends > 0;
    size_t wanted = console.termios.c_cc[VMIN];
    return input_count() >= (wanted < count ? wanted : count);
}

static bool readable(size_t count)
{
    spin_lock(&console.lock);
    bool result = readable_locked(count);
    spin_unlock(&console.lock);
    return result;
}

/* Canonical: up to the end of one line (the rest of a long line stays
 * for the next read). Raw: whatever is there. */
static size_t take_input(char *buffer, size_t count)
{
    bool canonical = has_flag(console.termios.c_lflag, ICANON);
    size_t done = 0;
    while (done < count && input_count() > 0) {
        uint16_t entry = input_pop();
        if (!(entry & ENTRY_NO_BYTE))
            buffer[done++] = (char)(entry & ENTRY_BYTE);
        if (canonical && (entry & ENTRY_LINE_END))
            break;
    }
    return done;
}

/* Without the receive interrupt: look at the UART every millisecond. */
static long wait_polling(size_t count)
{
    for (;;) {
        spin_lock(&console.lock);
        drain_uart();
        bool ready = readable_locked(count);
        spin_unlock(&console.lock);
        send_signals();
        if (ready)
            return 0;
        if (sleep_ns_interruptible(POLL_PERIOD, signal_pending))
            return -ERESTARTSYS;
    }
}

static long console_read(struct file *file, void *buffer, size_t count)
{
    if (count == 0)
        return 0;
    for (;;) {
        spin_lock(&console.lock);
        if (console.polling)
            drain_uart();
        if (readable_locked(count)) {
            size_t done = take_input(buffer, count);
            spin_unlock(&console.lock);
            return (long)done;
        }
        spin_unlock(&console.lock);
        /* Another reader may take the line between the wakeup and the
         * lock: then we wait again. */
        if (file->flags & O_NONBLOCK)
            return -EAGAIN;
        long interrupted = console.polling ? wait_polling(count)
                                           : wait_event_interruptible(&console.readers, readable(count));
        if (interrupted)
            return interrupted;
    }
}

static long console_write(struct file *file, const void *buffer, size_t count)
{
    (void)file;
    console_output(buffer, count);
    return (long)count;
}

#define CONSOLE_CHUNK 256

long sys_write_console(uint64_t fd, const char *user_buffer, uint64_t count)
{
    char chunk[CONSOLE_CHUNK + 1];

    if (fd != 1 && fd != 2)
        return -EBADF;
    if ((int64_t)count < 0)
        return -EINVAL;
    for (uint64_t done = 0; done < count;) {
        size_t length = count - done < CONSOLE_CHUNK ? count - done : CONSOLE_CHUNK;
        if (copy_from_user(chunk, user_buffer + done, length) < 0)
            return done ? (long)done : -EFAULT;
        chunk[length] = '\0';
        printk("%s", chunk);
        done += length;
    }
    return (long)count;
}

/* TCSETSW would wait for output to drain: ours is written synchronously,
 * so it is TCSETS. */
static long set_termios_from_user(unsigned long request, void *user_termios)
{
    struct linux_termios termios;
    if (copy_from_user(&termios, user_termios, sizeof(termios)) < 0)
        return -EFAULT;
    if (request == TCSETSF) {
        spin_lock(&console.lock);
        flush_input();
        spin_unlock(&console.lock);
    }
    console_set_termios(&termios);
    return 0;
}

static long console_ioctl(struct file *file, unsigned long request, unsigned long arg)
{
    (void)file;
    void *user = (void *)arg;
    struct linux_termios termios;
    struct linux_winsize winsize;
    int pgrp;
    switch (request) {
    case TCGETS:
        console_get_termios(&termios);
        return copy_to_user(user, &termios, sizeof(termios));
    case TCSETS:
    case TCSETSW:
    case TCSETSF:
        return set_termios_from_user(request, user);
    case TIOCGWINSZ:
        spin_lock(&console.lock);
        winsize = console.winsize;
        spin_unlock(&console.lock);
        return copy_to_user(user, &winsize, sizeof(winsize));
    case TIOCSWINSZ:
        if (copy_from_user(&winsize, user, sizeof(winsize)) < 0)
            return -EFAULT;
        spin_lock(&console.lock);
        console.winsize = winsize; /* no SIGWINCH to send */
        spin_unlock(&console.lock);
        return 0;
    case TIOCGPGRP:
        pgrp = console.pgrp;
        return copy_to_user(user, &pgrp, sizeof(pgrp));
    case TIOCSPGRP:
        /* Not checked against the caller's session, as Linux does: left out. */
        if (copy_from_user(&pgrp, user, sizeof(pgrp)) < 0)
            return -EFAULT;
        if (pgrp < 0)
            return -EINVAL;
        console.pgrp = pgrp;
        return 0;
    default:
        return -ENOTTY;
    }
}

/* Readable: a whole line in canonical mode, any byte in raw mode (as
 * Linux's n_tty). Without the receive interrupt nothing notifies pollers:
 * POLL_RECHECK makes them look again. Writes never block. */
static unsigned console_poll(struct file *file)
{
    (void)file;
    spin_lock(&console.lock);
    if (console.polling)
        drain_uart();
    bool ready = has_flag(console.termios.c_lflag, ICANON) ? console.line_ends > 0 : input_count() > 0;
    bool polling = console.polling;
    spin_unlock(&console.lock);
    if (polling)
        send_signals();
    return (ready ? POLLIN : 0) | POLLOUT | (polling ? POLL_RECHECK : 0);
}

static const struct file_ops console_ops = {
    .read = console_read,
    .write = console_write,
    .ioctl = console_ioctl,
    .poll = console_poll,
};

/* ---- Setup ---- */

static void create_console_nodes(void)
{
    static const char *const paths[] = {"/dev/console", "/dev/tty", "/dev/ttyS0"};
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        int error = vfs_create_device(paths[i], S_IFCHR | 0620, &console_ops, 0);
        if (error)
            printk("console: cannot create %s: error %d\n", paths[i], error);
    }
}

/* Kernel messages go out on COM1 from the first one on. */
void console_early_init(void)
{
    serial_init();
    printk_set_writer(serial_write);
}

/* The receive interrupt goes to CPU 0, like the rest of the legacy
 * devices; its handler is in place before the IOAPIC entry is opened. */
void console_init(uint32_t gsi, bool level_triggered, bool active_low)
{
    create_console_nodes();
    devices_init();
    if (gsi < DEVICE_GSI_COUNT) {
        irq_register(VECTOR_DEVICE_BASE + gsi, IRQ_SOURCE_DEVICE_FIRST + gsi, console_interrupt);
        if (ioapic_route(gsi, cpus[0]->apic_id, level_triggered, active_low) == 0) {
            serial_enable_receive_interrupt();
            return;
        }
    }
    printk("console: no IOAPIC route for GSI %u: COM1 input is polled\n", gsi);
    console.polling = true;
}
