/*
 * The 8254 PIT: channel 0 is the 100 Hz tick (IRQ 0 through the IOAPIC),
 * channel 2 the known clock that the LAPIC timer and the TSC are
 * calibrated against (polled through port 0x61, no interrupt).
 */
#ifndef ARCH_X86_64_TIME_PIT_H
#define ARCH_X86_64_TIME_PIT_H

#include <stdbool.h>
#include <stdint.h>

#define PIT_HZ   1193182u
#define TICK_HZ  1000
#define DRAIN_TICKS (TICK_HZ / 100) /* the record drain's period, in ticks */

void pit_tick_init(void);
uint64_t pit_ticks(void); /* ticks since pit_tick_init */

/* Channel 2 counts `count` PIT cycles down once; done when it reached 0. */
void pit_ch2_start(uint16_t count);
bool pit_ch2_done(void);

#endif
