/* What the ACPI MADT says about interrupt controllers. */
#ifndef ARCH_X86_64_INTERRUPTS_MADT_H
#define ARCH_X86_64_INTERRUPTS_MADT_H

#include <stdint.h>

#define MADT_MAX_CPUS    64
#define MADT_MAX_IOAPICS 8
#define MADT_MAX_ISOS    16

/* Interrupt source override flags (MPS INTI flags). */
#define MADT_POLARITY_MASK 0x3
#define MADT_POLARITY_LOW  0x3
#define MADT_TRIGGER_MASK  0xc
#define MADT_TRIGGER_LEVEL 0xc

struct madt_ioapic {
	uint8_t id;
	uint64_t phys;
	uint32_t gsi_base;
};

struct madt_iso {
	uint8_t irq; /* ISA IRQ */
	uint32_t gsi;
	uint16_t flags;
};

struct madt {
	uint64_t lapic_phys;
	int ncpus; /* enabled processors */
	uint8_t apic_id[MADT_MAX_CPUS];
	int nioapics;
	struct madt_ioapic ioapic[MADT_MAX_IOAPICS];
	int nisos;
	struct madt_iso iso[MADT_MAX_ISOS];
};

extern struct madt madt;

/* Parses the MADT; panics without one (no interrupts without it). */
void madt_init(void);

#endif
