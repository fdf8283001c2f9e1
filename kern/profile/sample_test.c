#include <arch/arch.h>
#include "kern/lib/cmdline.h"
#include "kern/kernel.h"
#include "kern/unwind/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/profile/profile.h"
#include "kern/profile/sample.h"
#include "kern/lib/stats.h"

/*
 * The busy loop test/t/40-sampling.t profiles: `ktest=sample_busy
 * profile.busy=MS [profile.hz=N]` spins for MS milliseconds in
 * sample_busy_leaf <- sample_busy_mid <- sample_busy_top <- this test, with
 * interrupts disabled, so that no tick and no drain runs: every NMI lands
 * in these functions, and the ring must hold the whole run. Then one
 * software-event sample from sample_busy_software. The host test checks
 * the records.
 */
static volatile uint64_t sink;

__attribute__((noipa)) void sample_busy_leaf(uint64_t end);
__attribute__((noipa)) void sample_busy_mid(uint64_t end);
__attribute__((noipa)) void sample_busy_top(uint64_t end);
__attribute__((noipa)) int sample_busy_software(void);

void sample_busy_leaf(uint64_t end)
{
	while (arch_cycles() < end)
		sink++;
}

/* The increments after each call keep them calls, not jumps. */
void sample_busy_mid(uint64_t end)
{
	sample_busy_leaf(end);
	sink++;
}

void sample_busy_top(uint64_t end)
{
	sample_busy_mid(end);
	sink++;
}

/* A software event (the system-call tracer's kind) from a known caller:
 * its callchain starts at the return address into this function. */
__attribute__((noipa)) int sample_busy_software(void)
{
	int err = sample_software(SAMPLE_EVENT_SYSCALL, 0x5a17, 1, 0);
	sink++;
	return err;
}

KTEST(sample_busy_loop)
{
	long ms = cmdline_int(&boot_args, "profile.busy", 0, 0, 60000);
	struct profile_config c;

	if (!ms) {
		ktest_skip(t, "no profile.busy= on the command line");
		return;
	}
	KASSERT(t, profile_parse(&c));
	uint64_t nmis = stat_total(STAT_NMI_COUNT);
	/* Interrupts off before the NMIs start: no sample may land in an
	 * interrupt handler or a drain. */
	irqflags_t f = irq_save();
	int err = profile_start(&c);
	if (!err)
		sample_busy_top(arch_cycles() + (uint64_t)ms * (arch_tsc_hz / 1000));
	profile_stop();
	irq_restore(f);
	KASSERT_EQ(t, err, 0);
	KEXPECT_EQ(t, sample_busy_software(), 0);
	nmis = stat_total(STAT_NMI_COUNT) - nmis;
	kprintf("# sample_busy_loop: %lu NMIs in %ld ms at %u Hz\n", nmis, ms, c.hz);
	KEXPECT(t, c.mode == MODE_NONE ? nmis == 0 : nmis > 0);
}
