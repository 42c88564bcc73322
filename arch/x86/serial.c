/* COM1 (a 16550 UART at I/O port 0x3f8), polled output. "\n" is sent as
 * "\r\n" so that a raw terminal shows lines. Input: the UART raises ISA
 * IRQ 4 when a byte arrives (kernel/console/console.c handles it), or is polled.
 * Line errors (parity, framing, break) are not reported: the byte is taken
 * as it came. */
#include "arch/x86/serial.h"

#include "arch/x86/cpu.h"

#define COM1 0x3f8
#define REG_DATA         0
#define REG_IRQ_ENABLE   1
#define REG_FIFO_CONTROL 2
#define REG_LINE_CONTROL 3
#define REG_MODEM_CONTROL 4
#define REG_LINE_STATUS  5
#define LINE_STATUS_DATA_READY 0x01
#define LINE_STATUS_TX_EMPTY 0x20
#define LINE_CONTROL_DLAB    0x80
#define IRQ_ENABLE_RECEIVED  0x01
#define MODEM_CONTROL_DTR_RTS 0x03
#define MODEM_CONTROL_OUT2    0x08 /* gates the UART's IRQ line on PCs */

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

/* Only "data received": transmit stays polled, so there is no transmit
 * interrupt to acknowledge. */
void serial_enable_receive_interrupt(void)
{
    outb(COM1 + REG_MODEM_CONTROL, MODEM_CONTROL_DTR_RTS | MODEM_CONTROL_OUT2);
    outb(COM1 + REG_IRQ_ENABLE, IRQ_ENABLE_RECEIVED);
}

/* Reading the data register also clears the receive interrupt once the
 * FIFO is empty. */
int serial_read_byte(void)
{
    if (!(inb(COM1 + REG_LINE_STATUS) & LINE_STATUS_DATA_READY))
        return -1;
    return inb(COM1 + REG_DATA);
}
