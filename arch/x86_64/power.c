#include "arch/x86_64/arch.h"
#include "kern/console.h"
#include "kern/profile.h"

/* QEMU's isa-debug-exit at port 0xf4 exits with status (value << 1) | 1. */
#define DEBUG_EXIT_PORT    0xf4
#define DEBUG_EXIT_SUCCESS 0x10 /* QEMU exits 33 */
#define DEBUG_EXIT_FAILURE 0x11 /* QEMU exits 35 */

void arch_shutdown(bool success)
{
	cli();
	profile_finish(); /* the end of the record stream, on every way out */
	kprintf("stitch: shutdown (%s)\n", success ? "success" : "failure");
	outb(DEBUG_EXIT_PORT, success ? DEBUG_EXIT_SUCCESS : DEBUG_EXIT_FAILURE);
	/* Still here: real hardware, or QEMU without the device. */
	kprintf("stitch: no isa-debug-exit device; halted, power off by hand\n");
	for (;;)
		hlt();
}
