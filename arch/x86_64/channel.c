/*
 * The record channel: COM2 (port 0x2f8), which tools/qemu-run writes to a
 * host file (--records). A 16550 with its 16-byte FIFO: when the line
 * status says the transmitter is empty, 16 bytes go out without asking
 * again, which saves 15 of 16 port reads (each one an exit to QEMU).
 * docs/SAMPLING.md has the measured throughput.
 */
#include "arch/x86_64/arch.h"

enum {
	COM2 = 0x2f8,
	REG_DATA = 0, REG_IER = 1, REG_FCR = 2, REG_LCR = 3, REG_MCR = 4,
	REG_LSR = 5,
};

#define LCR_8N1       0x03
#define LCR_DLAB      0x80
#define LSR_THR_EMPTY 0x20
#define FIFO_BYTES    16

void arch_channel_init(void)
{
	outb(COM2 + REG_IER, 0);
	outb(COM2 + REG_LCR, LCR_DLAB);
	outb(COM2 + REG_DATA, 1); /* 115200 baud; QEMU ignores the rate */
	outb(COM2 + REG_IER, 0);
	outb(COM2 + REG_LCR, LCR_8N1);
	outb(COM2 + REG_FCR, 0x07); /* FIFOs on and cleared */
	outb(COM2 + REG_MCR, 0x03);
}

/* Bounded: a machine without COM2 reads 0xff and must not hang us. */
static void wait_empty(void)
{
	for (int i = 0; i < 100000 && !(inb(COM2 + REG_LSR) & LSR_THR_EMPTY); i++)
		pause();
}

void arch_channel_write(const void *buf, uint64_t n)
{
	const uint8_t *p = buf;
	while (n) {
		wait_empty();
		uint64_t burst = n < FIFO_BYTES ? n : FIFO_BYTES;
		for (uint64_t i = 0; i < burst; i++)
			outb(COM2 + REG_DATA, p[i]);
		p += burst;
		n -= burst;
	}
}
