/*
 * The 16550 UARTs, polled, 115200 8N1: COM1 is the console, COM2 the
 * record channel's fallback (arch/x86_64/channel/channel.c).
 *
 * Writes go out in bursts of the 16-byte transmit FIFO: when the line
 * status says the transmitter is empty, 16 bytes go out without asking
 * again, which saves 15 of 16 port reads (each one an exit to QEMU).
 */
#include "arch/x86_64/channel/uart.h"
#include <arch/arch.h>
#include "arch/x86_64/x86.h"

enum {
	REG_DATA = 0,     /* divisor low byte when DLAB is set */
	REG_IER = 1,      /* divisor high byte when DLAB is set */
	REG_FCR = 2,
	REG_LCR = 3,
	REG_MCR = 4,
	REG_LSR = 5,
};

#define LCR_8N1       0x03
#define LCR_DLAB      0x80
#define LSR_THR_EMPTY 0x20
#define FIFO_BYTES    16

void uart_init(uint16_t port)
{
	outb(port + REG_IER, 0);            /* no interrupts: we poll */
	outb(port + REG_LCR, LCR_DLAB);
	outb(port + REG_DATA, 1);           /* divisor 1: 115200 baud */
	outb(port + REG_IER, 0);
	outb(port + REG_LCR, LCR_8N1);
	outb(port + REG_FCR, 0x07);         /* enable and clear the FIFOs */
	outb(port + REG_MCR, 0x03);         /* DTR, RTS */
}

/* Bounded wait: with no UART present the line reads 0xff, and a missing
 * port must not hang the kernel. */
static void wait_empty(uint16_t port)
{
	for (int i = 0; i < 100000 && !(inb(port + REG_LSR) & LSR_THR_EMPTY); i++)
		arch_cpu_relax();
}

void uart_write(uint16_t port, const void *buf, uint64_t n)
{
	const uint8_t *p = buf;
	while (n) {
		wait_empty(port);
		uint64_t burst = n < FIFO_BYTES ? n : FIFO_BYTES;
		for (uint64_t i = 0; i < burst; i++)
			outb(port + REG_DATA, p[i]);
		p += burst;
		n -= burst;
	}
}

void arch_console_putc(char c)
{
	uart_write(UART_COM1, &c, 1);
}
