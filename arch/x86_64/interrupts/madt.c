/*
 * The MADT ("APIC" table): a header, the LAPIC address, then a list of
 * variable-length entries, each checked to lie within the table.
 */
#include "arch/x86_64/interrupts/madt.h"
#include "kern/acpi.h"
#include "kern/kernel.h"
#include "kern/lib/string.h"

enum {
	ENT_LAPIC = 0,
	ENT_IOAPIC = 1,
	ENT_ISO = 2,
	ENT_LAPIC_ADDR = 5,
};

#define LAPIC_ENABLED 0x1

struct madt madt;

/* Little-endian field of `size` bytes at offset `off` of an entry. */
static uint64_t field(const uint8_t *e, unsigned off, unsigned size)
{
	uint64_t v = 0;
	memcpy(&v, e + off, size);
	return v;
}

static void entry(const uint8_t *e, unsigned len)
{
	switch (e[0]) {
	case ENT_LAPIC:
		if (len >= 8 && (field(e, 4, 4) & LAPIC_ENABLED) && madt.ncpus < MADT_MAX_CPUS)
			madt.apic_id[madt.ncpus++] = e[3];
		break;
	case ENT_IOAPIC:
		if (len >= 12 && madt.nioapics < MADT_MAX_IOAPICS)
			madt.ioapic[madt.nioapics++] = (struct madt_ioapic){
				.id = e[2], .phys = field(e, 4, 4), .gsi_base = field(e, 8, 4) };
		break;
	case ENT_ISO:
		if (len >= 10 && e[2] == 0 /* ISA */ && madt.nisos < MADT_MAX_ISOS)
			madt.iso[madt.nisos++] = (struct madt_iso){
				.irq = e[3], .gsi = field(e, 4, 4), .flags = field(e, 8, 2) };
		break;
	case ENT_LAPIC_ADDR:
		if (len >= 12)
			madt.lapic_phys = field(e, 4, 8);
		break;
	}
}

void madt_init(void)
{
	const struct acpi_header *h = acpi_find("APIC");
	if (!h || h->length < sizeof(*h) + 8)
		panic("madt: no ACPI MADT");
	const uint8_t *p = (const uint8_t *)h;
	madt.lapic_phys = field(p, sizeof(*h), 4);

	for (unsigned off = sizeof(*h) + 8; off + 2 <= h->length;) {
		unsigned len = p[off + 1];
		if (len < 2 || off + len > h->length) {
			kprintf("madt: bad entry at offset %u, ignoring the rest\n", off);
			break;
		}
		entry(p + off, len);
		off += len;
	}
	if (madt.nioapics == 0)
		panic("madt: no IOAPIC");
}
