/* The IOAPIC(s) named by the ACPI MADT, for ISA interrupts. */
#ifndef ARCH_X86_64_IOAPIC_H
#define ARCH_X86_64_IOAPIC_H

#include <stdint.h>

/* Masks every input of every IOAPIC in the MADT. */
void ioapic_init(void);
/* Routes ISA IRQ `irq` to `vector` on this CPU, honouring the MADT's
 * interrupt source overrides (IRQ 0 is usually GSI 2). */
void ioapic_route_isa(unsigned irq, uint8_t vector);

#endif
