#include <arch/arch.h>
#include "arch/x86_64/x86.h"
#include "arch/x86_64/channel/keep.h"
#include "kern/acpi.h"
#include "kern/lib/console.h"
#include "kern/mm/mm.h"
#include "kern/profile/profile.h"
#include "kern/watchdog.h"

/* QEMU's isa-debug-exit at port 0xf4 exits with status (value << 1) | 1. */
#define DEBUG_EXIT_PORT    0xf4
#define DEBUG_EXIT_SUCCESS 0x10 /* QEMU exits 33 */
#define DEBUG_EXIT_FAILURE 0x11 /* QEMU exits 35 */

/* The FADT's reset register (ACPI 6.4, 5.2.9: Flags at 112, RESET_REG, a
 * Generic Address Structure, at 116, RESET_VALUE at 128). */
#define FADT_FLAGS      112
#define FADT_RESET_REG  116
#define FADT_RESET_VAL  128
#define FADT_RESET_SUP  (1u << 10)
#define GAS_MEMORY 0
#define GAS_IO     1

/* The PCH/ICH reset control register: 0x06 is a hard reset without a
 * power cycle, which keeps DRAM in self-refresh. */
#define PORT_RESET_CONTROL 0xcf9

static void acpi_reset(void)
{
	const uint8_t *fadt = (const uint8_t *)acpi_find("FACP");
	if (!fadt || ((const struct acpi_header *)fadt)->length <= FADT_RESET_VAL)
		return;
	uint32_t flags;
	uint64_t addr;
	__builtin_memcpy(&flags, fadt + FADT_FLAGS, 4);
	__builtin_memcpy(&addr, fadt + FADT_RESET_REG + 4, 8);
	uint8_t space = fadt[FADT_RESET_REG], value = fadt[FADT_RESET_VAL];
	if (!(flags & FADT_RESET_SUP) || !addr)
		return;
	if (space == GAS_IO && addr <= 0xffff)
		outb((uint16_t)addr, value);
	else if (space == GAS_MEMORY && addr < (4ull << 30))
		*(volatile uint8_t *)p2v(addr) = value;
}

/* A warm reset, the ways Linux's reboot=acpi,pci,kbd tries them. RAM is
 * not cleared: that is what keeps the records. */
static void warm_reset(void)
{
	acpi_reset();
	arch_delay_us(50000);
	outb(PORT_RESET_CONTROL, 0x02);
	outb(PORT_RESET_CONTROL, 0x06);
	arch_delay_us(50000);
	outb(0x64, 0xfe); /* the keyboard controller's reset line */
	arch_delay_us(50000);
}

void arch_shutdown(bool success)
{
	irq_disable();
	watchdog_stop(); /* the end may take long with interrupts off */
	profile_finish(); /* the end of the record stream, on every way out */
	kprintf("stitch: shutdown (%s)\n", success ? "success" : "failure");
	outb(DEBUG_EXIT_PORT, success ? DEBUG_EXIT_SUCCESS : DEBUG_EXIT_FAILURE);
	/* Still here: real hardware, or QEMU without the device. */
	if (keep_seal()) {
		kprintf("stitch: %lu bytes of records kept in RAM; resetting so that "
			"the loader saves them to the stick\n", keep_bytes());
		arch_delay_us(10000000); /* the summary stays on the screen 10 s */
		warm_reset();
		kprintf("stitch: the machine did not reset: the records stay in RAM\n");
	}
	kprintf("stitch: no isa-debug-exit device; halted, power off by hand\n");
	for (;;)
		hlt();
}
