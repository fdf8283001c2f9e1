/* The IOAPIC(s) named by the ACPI MADT: ISA interrupts, the HPET's NMI. */
#ifndef ARCH_X86_64_INTERRUPTS_IOAPIC_H
#define ARCH_X86_64_INTERRUPTS_IOAPIC_H

#include <stdbool.h>
#include <stdint.h>

/* Masks every input of every IOAPIC in the MADT. */
void ioapic_init(void);
/* Routes ISA IRQ `irq` to `vector` on this CPU, honouring the MADT's
 * interrupt source overrides (IRQ 0 is usually GSI 2). */
void ioapic_route_isa(unsigned irq, uint8_t vector);
/* Does an IOAPIC of the MADT have input `gsi`? */
bool ioapic_serves(uint32_t gsi);
/* Input `gsi` raises an NMI on this CPU (edge-triggered, active high). */
void ioapic_route_nmi(uint32_t gsi);
void ioapic_mask(uint32_t gsi);

#endif
