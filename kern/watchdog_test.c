/*
 * The lockup detector (kern/watchdog.c): its rule alone, then real NMIs
 * on a CPU spinning with interrupts off (this one, and another if there
 * is one), a CPU spinning with them on (must not fire), the run-queue
 * rule on stand-in tasks, and, with `ktest.lockup` on the command line
 * only, the real report that ends the run (test/t/16-watchdog.t).
 */
#include <arch/arch.h>
#include "kern/lib/cmdline.h"
#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/lib/string.h"
#include "kern/proc/task.h"
#include "kern/watchdog.h"

KTEST(watchdog_judge_rule)
{
	struct watchdog_cpu w = { 0 };
	const uint64_t bound = 1000;
	/* Interrupts on: never, however long without progress. */
	for (uint64_t now = 100; now < 10000; now += 100)
		KEXPECT(t, !watchdog_judge(&w, 5, false, now, bound));
	/* Off, no progress: only once more than bound has passed since the
	 * first look that saw it so. */
	KEXPECT(t, !watchdog_judge(&w, 5, true, 10000, bound));
	KEXPECT(t, !watchdog_judge(&w, 5, true, 10500, bound));
	KEXPECT(t, !watchdog_judge(&w, 5, true, 11000, bound));
	KEXPECT(t, watchdog_judge(&w, 5, true, 11001, bound));
	/* Progress resets it, and so does one look with interrupts on. */
	w = (struct watchdog_cpu){ 0 };
	KEXPECT(t, !watchdog_judge(&w, 5, true, 20000, bound));
	KEXPECT(t, !watchdog_judge(&w, 6, true, 20900, bound));
	KEXPECT(t, !watchdog_judge(&w, 6, true, 21500, bound));
	KEXPECT(t, !watchdog_judge(&w, 6, false, 21800, bound));
	KEXPECT(t, !watchdog_judge(&w, 6, true, 22000, bound));
	KEXPECT(t, !watchdog_judge(&w, 6, true, 22900, bound));
	KEXPECT(t, watchdog_judge(&w, 6, true, 23001, bound));
}

KTEST(watchdog_starved_rule)
{
	static struct task ts[4];
	uint64_t queued[4] = { 0 };
	memset(ts, 0, sizeof(ts));
	const uint64_t bound = 1000000;
	ts[0].state = TASK_SLEEPING; queued[0] = 1;      /* not runnable */
	ts[1].state = TASK_RUNNABLE; queued[1] = 500000; /* waited 1.5 ms... */
	ts[2].state = TASK_RUNNABLE; queued[2] = 1500000; /* 0.5 ms */
	ts[3].state = TASK_ZOMBIE;
	KEXPECT(t, watchdog_starved(ts, 4, queued, 2000000, bound) == &ts[1]);
	KEXPECT(t, watchdog_starved(ts, 4, queued, 1400000, bound) == NULL);
	/* Queued after the clock was read (another CPU, while the checker
	 * waited for the lock): not from the future, not starved. */
	KEXPECT(t, watchdog_starved(ts, 4, queued, 400000, bound) == NULL);
	/* ...but it is some CPU's current: running, not starved. */
	struct task *saved = cpu_current[0];
	cpu_current[0] = &ts[1];
	KEXPECT(t, watchdog_starved(ts, 4, queued, 2000000, bound) == NULL);
	cpu_current[0] = saved;
	KEXPECT(t, watchdog_starved(ts, 4, queued, 2600000, bound) == &ts[1]);
}

static volatile int fired_cpu;
static volatile uint64_t fired_at;
static volatile bool fired_irqs_off, fired_user;

static void caught(unsigned cpu, const struct nmi_regs *r)
{
	if (fired_cpu >= 0)
		return;
	fired_at = arch_cycles();
	fired_irqs_off = r->irqs_off;
	fired_user = r->user;
	fired_cpu = (int)cpu;
}

static void reset(void)
{
	fired_cpu = -1;
	fired_at = 0;
}

/* Spins until the watchdog fired or `ms` passed; interrupts as they are. */
static void spin_for(uint64_t ms)
{
	uint64_t until = arch_cycles() + ms * arch_tsc_hz / 1000;
	while (fired_cpu < 0 && arch_cycles() < until)
		arch_cpu_relax();
}

static void spin_irqs_off(void *ms)
{
	irqflags_t f = irq_save();
	spin_for((uint64_t)(uintptr_t)ms);
	irq_restore(f);
}

static void timer_on(void *hz) { arch_watchdog_start((unsigned)(uintptr_t)hz); }
static void timer_off(void *unused) { (void)unused; arch_sampling_stop(); }

#define BOUND_MS 50

KTEST(watchdog_fires_on_irqs_off_spin)
{
	unsigned self = arch_cpu_id();
	uint64_t bound = BOUND_MS * arch_tsc_hz / 1000;
	watchdog_test_arm(caught, bound);
	arch_watchdog_start(1000);

	/* Interrupts on, nothing arriving (no progress): four bounds, no
	 * report. */
	reset();
	irq_enable();
	spin_for(4 * BOUND_MS);
	KEXPECT_EQ(t, fired_cpu, -1);

	/* Interrupts off: reported on this CPU, in kernel mode, after the
	 * bound (and well before 2 s). */
	reset();
	uint64_t t0 = arch_cycles();
	spin_irqs_off((void *)2000);
	KEXPECT_EQ(t, fired_cpu, (int)self);
	KEXPECT(t, fired_irqs_off && !fired_user);
	KEXPECT(t, fired_at - t0 > bound);
	arch_sampling_stop();

	/* Another CPU, spinning in an arch_smp_call with interrupts off: its own
	 * NMIs see it. */
	if (arch_ncpus() > 1) {
		unsigned other = self == 0 ? 1 : 0;
		arch_smp_call(other, timer_on, (void *)1000);
		reset();
		t0 = arch_cycles();
		arch_smp_call(other, spin_irqs_off, (void *)2000);
		KEXPECT_EQ(t, fired_cpu, (int)other);
		KEXPECT(t, fired_irqs_off && !fired_user);
		KEXPECT(t, fired_at - t0 > bound);
		arch_smp_call(other, timer_off, NULL);
	}
	watchdog_test_disarm();
}

/* The real thing, with `ktest.lockup` only: the last CPU spins with
 * interrupts off until the watchdog (watchdog.irqoff_ms, default as the
 * kernel's) reports every CPU's stack and the tasks and ends the run with
 * failure. Coming back is this test's failure. */
KTEST(watchdog_lockup_reported)
{
	if (!cmdline_flag(&boot_args, "ktest.lockup")) {
		ktest_skip(t, "no ktest.lockup on the command line");
		return;
	}
	long ms = cmdline_int(&boot_args, "watchdog.irqoff_ms", WATCHDOG_IRQOFF_MS_DEFAULT,
			      10, 3600000);
	unsigned victim = arch_ncpus() - 1;
	kprintf("ktest.lockup: cpu %u spins with interrupts off; the watchdog should end "
		"the run after %ld ms\n", victim, ms);
	watchdog_test_arm(NULL, (uint64_t)ms * arch_tsc_hz / 1000);
	arch_watchdog_start_all(100);
	reset();
	uint64_t limit = (uint64_t)ms * 4 + 5000;
	if (victim == arch_cpu_id())
		spin_irqs_off((void *)(uintptr_t)limit);
	else
		arch_smp_call(victim, spin_irqs_off, (void *)(uintptr_t)limit);
	watchdog_test_disarm();
	KEXPECT(t, !"the watchdog did not end the run");
}
