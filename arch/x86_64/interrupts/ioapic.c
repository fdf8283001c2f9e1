/*
 * IOAPIC: two MMIO registers (select, window) in front of an indexed
 * register file; redirection entry n is registers 0x10 + 2n (low) and
 * 0x11 + 2n (high).
 */
#include "arch/x86_64/interrupts/ioapic.h"
#include "arch/x86_64/interrupts/lapic.h"
#include "arch/x86_64/interrupts/madt.h"
#include "kern/kernel.h"
#include "kern/mm/mm.h"

#define REG_VER 0x01
#define REG_REDIR 0x10

#define REDIR_NMI        (4u << 8)  /* delivery mode 100: NMI, vector ignored */
#define REDIR_ACTIVE_LOW (1u << 13)
#define REDIR_LEVEL      (1u << 15)
#define REDIR_MASKED     (1u << 16)

static uint32_t rd(const struct madt_ioapic *io, uint32_t reg)
{
	volatile uint32_t *m = p2v(io->phys);
	m[0] = reg;
	return m[4];
}

static void wr(const struct madt_ioapic *io, uint32_t reg, uint32_t v)
{
	volatile uint32_t *m = p2v(io->phys);
	m[0] = reg;
	m[4] = v;
}

static unsigned inputs(const struct madt_ioapic *io)
{
	return ((rd(io, REG_VER) >> 16) & 0xff) + 1;
}

void ioapic_init(void)
{
	for (int i = 0; i < madt.nioapics; i++)
		for (unsigned n = 0; n < inputs(&madt.ioapic[i]); n++)
			wr(&madt.ioapic[i], REG_REDIR + 2 * n, REDIR_MASKED);
}

/* The IOAPIC serving `gsi`, and the input number on it; NULL if none. */
static const struct madt_ioapic *find(uint32_t gsi, unsigned *n)
{
	for (int i = 0; i < madt.nioapics; i++) {
		const struct madt_ioapic *io = &madt.ioapic[i];
		if (gsi >= io->gsi_base && gsi < io->gsi_base + inputs(io)) {
			*n = gsi - io->gsi_base;
			return io;
		}
	}
	return NULL;
}

bool ioapic_serves(uint32_t gsi)
{
	unsigned n;
	return find(gsi, &n) != NULL;
}

/* Physical destination: this CPU. The low word last, so the entry is
 * never live with a stale destination. */
static void route_gsi(uint32_t gsi, uint32_t low)
{
	unsigned n;
	const struct madt_ioapic *io = find(gsi, &n);
	if (!io)
		panic("ioapic: no IOAPIC serves GSI %u", gsi);
	wr(io, REG_REDIR + 2 * n, REDIR_MASKED);
	wr(io, REG_REDIR + 2 * n + 1, lapic_id() << 24);
	wr(io, REG_REDIR + 2 * n, low);
}

void ioapic_route_nmi(uint32_t gsi)
{
	route_gsi(gsi, REDIR_NMI); /* edge, active high */
}

void ioapic_mask(uint32_t gsi)
{
	route_gsi(gsi, REDIR_MASKED);
}

void ioapic_route_isa(unsigned irq, uint8_t vector)
{
	/* ISA defaults: identity GSI, edge triggered, active high. */
	uint32_t gsi = irq, flags = 0;
	for (int i = 0; i < madt.nisos; i++) {
		if (madt.iso[i].irq != irq)
			continue;
		gsi = madt.iso[i].gsi;
		if ((madt.iso[i].flags & MADT_POLARITY_MASK) == MADT_POLARITY_LOW)
			flags |= REDIR_ACTIVE_LOW;
		if ((madt.iso[i].flags & MADT_TRIGGER_MASK) == MADT_TRIGGER_LEVEL)
			flags |= REDIR_LEVEL;
	}
	route_gsi(gsi, vector | flags); /* fixed delivery */
}
