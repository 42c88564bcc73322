/* COM1 (a 16550 UART at I/O port 0x3f8), polled output. "\n" is sent as
 * "\r\n" so that a raw terminal shows lines. Input comes later, with the
 * shell. */
#include "arch/x86/serial.h"

#include "arch/x86/cpu.h"

#define COM1 0x3f8
#define REG_DATA         0
#define REG_IRQ_ENABLE   1
#define REG_FIFO_CONTROL 2
#define REG_LINE_CONTROL 3
#define REG_MODEM_CONTROL 4
#define REG_LINE_STATUS  5
#define LINE_STATUS_TX_EMPTY 0x20
#define LINE_CONTROL_DLAB    0x80

void serial_init(void)
{
    outb(COM1 + REG_IRQ_ENABLE, 0);
    outb(COM1 + REG_LINE_CONTROL, LINE_CONTROL_DLAB);
    outb(COM1 + REG_DATA, 1);               /* divisor 1: 115200 baud */
    outb(COM1 + REG_IRQ_ENABLE, 0);
    outb(COM1 + REG_LINE_CONTROL, 0x03);    /* 8 bits, no parity, 1 stop */
    outb(COM1 + REG_FIFO_CONTROL, 0xc7);    /* FIFOs on and cleared */
    outb(COM1 + REG_MODEM_CONTROL, 0x03);   /* DTR, RTS */
}

static void put_byte(char c)
{
    while (!(inb(COM1 + REG_LINE_STATUS) & LINE_STATUS_TX_EMPTY))
        cpu_relax();
    outb(COM1 + REG_DATA, (uint8_t)c);
}

void serial_write(const char *text, size_t length)
{
    for (size_t i = 0; i < length; i++) {
        if (text[i] == '\n')
            put_byte('\r');
        put_byte(text[i]);
    }
}
