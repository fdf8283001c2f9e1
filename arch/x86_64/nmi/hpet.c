/*
 * The HPET as an NMI source (IA-PC HPET specification 1.0a, 2.3 "Register
 * Descriptions"). The registers are 64-bit, at the address the ACPI HPET
 * table gives; Stitch maps all of 0-4 GiB uncached where there is no RAM
 * (kern/mm/kernel_space.c), where HPETs live.
 */
#include "arch/x86_64/nmi/hpet.h"
#include "arch/x86_64/interrupts/ioapic.h"
#include "arch/x86_64/x86.h"
#include "kern/acpi.h"
#include "kern/mm/mm.h"

#define REG_CAP       0x000 /* [63:32] period in fs, [12:8] timers - 1 */
#define REG_CONF      0x010
#define REG_COUNTER   0x0f0
#define REG_TCONF(n)  (0x100 + 0x20 * (n)) /* [63:32] routes it can take */
#define REG_TCMP(n)   (0x108 + 0x20 * (n))

#define CONF_ENABLE   (1ull << 0)
#define CONF_LEGACY   (1ull << 1) /* timers 0/1 on IRQ 0/8: never */
#define TCONF_INT_ENB (1ull << 2)
#define TCONF_PERIODIC (1ull << 3)
#define TCONF_PER_CAP (1ull << 4)
#define TCONF_VAL_SET (1ull << 6)
#define TCONF_FSB_EN  (1ull << 14)
#define TCONF_ROUTE_SHIFT 9
#define FS_PER_S      1000000000000000ull

/* The ACPI HPET table (IA-PC HPET 1.0a, 3.2.4). */
struct acpi_hpet {
	struct acpi_header h;
	uint32_t block_id;
	uint8_t space_id, bit_width, bit_offset, access_size; /* the GAS */
	uint64_t address;
	uint8_t number;
	uint16_t min_tick;
	uint8_t attributes;
} __attribute__((packed));

static uint64_t base;   /* physical */
static uint64_t period_fs;
static unsigned timer;
static uint32_t gsi;

static uint64_t rd(unsigned reg)
{
	return *(volatile uint64_t *)p2v(base + reg);
}

static void wr(unsigned reg, uint64_t v)
{
	*(volatile uint64_t *)p2v(base + reg) = v;
}

/* The lowest route of a periodic comparator that an IOAPIC serves,
 * preferring inputs 16 and up: 0-15 are the ISA IRQs, and the PIT tick is
 * on 0 or 2 (IRQ 0, usually overridden to GSI 2), never shared. Inputs 16
 * and up may be PCI INTx lines that devices share; the kernel enables no
 * device interrupts, so at most a line left asserted by the firmware
 * gives one stray edge. */
static bool pick_timer(void)
{
	unsigned ntimers = ((rd(REG_CAP) >> 8) & 0x1f) + 1;
	for (uint32_t from = 16;; from = 0) {
		for (unsigned n = 0; n < ntimers; n++) {
			uint64_t c = rd(REG_TCONF(n));
			uint32_t routes = c >> 32;
			if (!(c & TCONF_PER_CAP))
				continue;
			for (uint32_t g = from; g < 32; g++)
				if ((routes >> g & 1) && g != 0 && g != 2 && ioapic_serves(g)) {
					timer = n;
					gsi = g;
					return true;
				}
		}
		if (from == 0)
			return false;
	}
}

bool hpet_detect(const char **why)
{
	const struct acpi_hpet *t = (const void *)acpi_find("HPET");
	if (!t || t->h.length < sizeof(*t)) {
		*why = "no ACPI HPET table";
		return false;
	}
	if (t->space_id != 0 || !t->address || t->address >= (4ull << 30) - 1024) {
		*why = "the HPET is not in memory below 4 GiB";
		return false;
	}
	base = t->address;
	period_fs = rd(REG_CAP) >> 32;
	/* The specification bounds the period at 100 ns. */
	if (period_fs == 0 || period_fs > 100000000ull) {
		*why = "the HPET reports no valid counter period";
		return false;
	}
	if (!pick_timer()) {
		*why = "no periodic HPET comparator reaches an IOAPIC input";
		return false;
	}
	return true;
}

unsigned hpet_timer(void)
{
	return timer;
}

uint32_t hpet_gsi(void)
{
	return gsi;
}

/* Periodic mode as the specification's 2.3.9.2.2 describes: with
 * Tn_VAL_SET_CNF set, the first comparator write sets the next match and
 * the second the period. Edge-triggered: an NMI needs an edge. */
void hpet_nmi_start(unsigned hz)
{
	uint64_t ticks = FS_PER_S / hz / period_fs;
	uint64_t c = rd(REG_TCONF(timer));

	ioapic_route_nmi(gsi);
	wr(REG_CONF, rd(REG_CONF) & ~(CONF_ENABLE | CONF_LEGACY));
	c &= ~(TCONF_FSB_EN | (0x1full << TCONF_ROUTE_SHIFT) | 2 /* level */);
	c |= TCONF_INT_ENB | TCONF_PERIODIC | TCONF_VAL_SET |
	     (uint64_t)gsi << TCONF_ROUTE_SHIFT;
	wr(REG_TCONF(timer), c);
	wr(REG_TCMP(timer), rd(REG_COUNTER) + ticks);
	wr(REG_TCMP(timer), ticks);
	wr(REG_CONF, rd(REG_CONF) | CONF_ENABLE);
}

void hpet_nmi_stop(void)
{
	wr(REG_TCONF(timer), rd(REG_TCONF(timer)) & ~(TCONF_INT_ENB | TCONF_PERIODIC));
	ioapic_mask(gsi);
}
