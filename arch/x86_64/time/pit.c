#include "arch/x86_64/time/pit.h"
#include "arch/x86_64/interrupts/ioapic.h"
#include <arch/trap.h>
#include "arch/x86_64/x86.h"
#include "kern/profile/profile.h"
#include "kern/proc/sched.h"

enum {
	PORT_CH0 = 0x40,
	PORT_CH2 = 0x42,
	PORT_CMD = 0x43,
	PORT_CTRL = 0x61, /* bit 0: channel 2 gate, 1: speaker, 5: channel 2 output */
};

#define CMD_CH0_RATE   0x34 /* channel 0, low then high byte, mode 2 */
#define CMD_CH2_ONCE   0xb0 /* channel 2, low then high byte, mode 0 */
#define CTRL_CH2_GATE  0x01
#define CTRL_SPEAKER   0x02
#define CTRL_CH2_OUT   0x20

static volatile uint64_t ticks;

static void tick(struct trap_frame *tf)
{
	(void)tf;
	ticks++;
	sched_tick();
	/* Drain some records, outside NMI context, at 100 Hz: a drain may
	 * take milliseconds (docs/SAMPLING.md); the tick's 1000 Hz is for
	 * the timed sleeps and interval timers. */
	if (ticks % DRAIN_TICKS == 0)
		profile_tick();
}

void pit_tick_init(void)
{
	uint16_t div = (PIT_HZ + TICK_HZ / 2) / TICK_HZ;
	outb(PORT_CMD, CMD_CH0_RATE);
	outb(PORT_CH0, div & 0xff);
	outb(PORT_CH0, div >> 8);
	trap_set_handler(VEC_PIT, tick);
	ioapic_route_isa(0, VEC_PIT);
}

uint64_t pit_ticks(void)
{
	return ticks;
}

/* Mode 0 starts counting when the count is written with the gate high,
 * and raises the output when it reaches zero. */
void pit_ch2_start(uint16_t count)
{
	outb(PORT_CTRL, (inb(PORT_CTRL) & ~CTRL_SPEAKER) | CTRL_CH2_GATE);
	outb(PORT_CMD, CMD_CH2_ONCE);
	outb(PORT_CH2, count & 0xff);
	outb(PORT_CH2, count >> 8);
}

bool pit_ch2_done(void)
{
	return inb(PORT_CTRL) & CTRL_CH2_OUT;
}
