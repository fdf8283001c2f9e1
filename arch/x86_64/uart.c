/* COM1, a 16550 UART at port 0x3f8: 115200 baud, 8N1, polled. */
#include "arch/x86_64/uart.h"
#include "arch/x86_64/arch.h"

enum {
	COM1 = 0x3f8,
	REG_DATA = 0,     /* divisor low byte when DLAB is set */
	REG_IER = 1,      /* divisor high byte when DLAB is set */
	REG_FCR = 2,
	REG_LCR = 3,
	REG_MCR = 4,
	REG_LSR = 5,
};

#define LCR_8N1  0x03
#define LCR_DLAB 0x80
#define LSR_THR_EMPTY 0x20

void uart_init(void)
{
	outb(COM1 + REG_IER, 0);            /* no interrupts: we poll */
	outb(COM1 + REG_LCR, LCR_DLAB);
	outb(COM1 + REG_DATA, 1);           /* divisor 1: 115200 baud */
	outb(COM1 + REG_IER, 0);
	outb(COM1 + REG_LCR, LCR_8N1);
	outb(COM1 + REG_FCR, 0x07);         /* enable and clear the FIFOs */
	outb(COM1 + REG_MCR, 0x03);         /* DTR, RTS */
}

void arch_console_putc(char c)
{
	/* Bounded wait: with no UART present the line reads 0xff, and a
	 * missing console must not hang the kernel. */
	for (int i = 0; i < 100000 && !(inb(COM1 + REG_LSR) & LSR_THR_EMPTY); i++)
		pause();
	outb(COM1 + REG_DATA, (uint8_t)c);
}
