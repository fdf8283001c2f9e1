/*
 * The local APIC (xAPIC, MMIO through the direct map) and its timer.
 *
 * The LAPIC timer is reserved for the sampling NMI; the scheduler tick is
 * the PIT (pit.h).
 */
#ifndef ARCH_X86_64_INTERRUPTS_LAPIC_H
#define ARCH_X86_64_INTERRUPTS_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

/* Pass as `vector` to the timer functions to deliver an NMI instead. */
#define LAPIC_TIMER_NMI 0x100

extern uint64_t lapic_timer_hz; /* timer ticks per second (divide by 16) */

void lapic_init(uint64_t phys);
/* Measures lapic_timer_hz and arch_tsc_hz over CAL_MS of PIT channel 2. */
void lapic_calibrate(void);
uint32_t lapic_id(void);
void lapic_eoi(void);
/* Sends `vector` to this CPU (fixed delivery, "self" shorthand); NMI-safe. */
void lapic_self_ipi(uint8_t vector);
/* Installs the handler of irq work's self-IPI (ipi.c). Boot, once. */
void self_ipi_init(void);
/* To another CPU, by APIC ID (normal context, interrupts off; not NMI):
 * a fixed interrupt, an NMI, and the INIT and start-up IPIs that start an
 * application processor at physical page `page` << 12 in real mode. */
void lapic_send_ipi(uint32_t apic_id, uint8_t vector);
void lapic_send_nmi(uint32_t apic_id);
void lapic_send_init(uint32_t apic_id);
void lapic_send_sipi(uint32_t apic_id, uint8_t page);

/* One interrupt after ns nanoseconds, or one every ns. */
void lapic_timer_oneshot(uint64_t ns, unsigned vector);
void lapic_timer_periodic(uint64_t ns, unsigned vector);
void lapic_timer_stop(void);
uint32_t lapic_timer_count(void); /* current count, counts down */

/* Counter-overflow interrupts (LVT PMC) as NMIs, or masked. */
void lapic_pmc_nmi(bool on);

#endif
