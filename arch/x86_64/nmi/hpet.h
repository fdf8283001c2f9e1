/*
 * The HPET (IA-PC HPET specification 1.0a) as a sampling clock: one
 * comparator in periodic mode, its interrupt routed to an IOAPIC input
 * whose redirection entry delivers an NMI. Unlike the LAPIC timer's LVT,
 * an IOAPIC redirection entry has an NMI delivery mode (82093AA IOAPIC
 * datasheet, 3.2.4, "Delivery Mode"), so real hardware delivers it.
 */
#ifndef ARCH_X86_64_NMI_HPET_H
#define ARCH_X86_64_NMI_HPET_H

#include <stdbool.h>
#include <stdint.h>

/* Finds the HPET (ACPI table "HPET") and a periodic comparator whose
 * interrupt can reach an IOAPIC input; false and *why otherwise. */
bool hpet_detect(const char **why);
/* The chosen comparator and IOAPIC input, for the boot line. */
unsigned hpet_timer(void);
uint32_t hpet_gsi(void);
/* hz NMIs per second until hpet_nmi_stop(). */
void hpet_nmi_start(unsigned hz);
void hpet_nmi_stop(void);

#endif
