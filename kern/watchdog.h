/*
 * The lockup detector (docs/SMP.md, "The watchdog").
 *
 * Each CPU checks itself in its own NMIs (the sampling NMIs, or, when
 * nothing samples, a watchdog NMI at watchdog.hz): its progress counter
 * (interrupts handled, schedules) must move, or the CPU must be seen with
 * interrupts on. A CPU seen with interrupts off at every NMI, without
 * progress, for longer than watchdog.irqoff_ms is stuck. The PIT tick
 * checks the run queue: a runnable task that no CPU has run for longer
 * than watchdog.runnable_ms is starved. Either prints every CPU's kernel
 * stack (each CPU unwinds its own, from an NMI) and the run queue, then
 * ends the run with a failure verdict (a panic: arch_shutdown(false)).
 *
 * Command line: `watchdog=off` turns it off; `watchdog.irqoff_ms=N`
 * (default 10000), `watchdog.runnable_ms=N` (default 30000),
 * `watchdog.hz=N` (default 10). A malformed or out-of-range value is a
 * console line and the default.
 */
#ifndef KERN_WATCHDOG_H
#define KERN_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/nmi.h"

struct task;

#define WATCHDOG_IRQOFF_MS_DEFAULT   10000
#define WATCHDOG_RUNNABLE_MS_DEFAULT 30000
#define WATCHDOG_HZ_DEFAULT          10

/* One CPU's view of itself, as its NMIs last saw it. */
struct watchdog_cpu {
	uint64_t seen_progress; /* the progress counter at the last look */
	uint64_t off_since;     /* cycles: since when seen off without progress; 0: not */
};

/*
 * The rule, without side effects (the unit tests call it): an NMI at
 * cycle `now` saw the CPU with `progress` and interrupts on or off. True
 * when it has been seen with interrupts off and no progress, at every
 * look, for more than `bound` cycles.
 */
bool watchdog_judge(struct watchdog_cpu *w, uint64_t progress, bool irqs_off,
		    uint64_t now, uint64_t bound);

/*
 * The starved task among ts[0..n) (queued[i]: clock_ns() when ts[i] was
 * queued), or NULL: a runnable task that is no CPU's current and has
 * waited more than bound_ns at now_ns.
 */
struct task *watchdog_starved(struct task *ts, unsigned n, const uint64_t *queued,
			      uint64_t now_ns, uint64_t bound_ns);

/* Reads the command line and arms the detector. nmis_running: every CPU
 * already takes NMIs at a steady rate (the sampler's), which the detector
 * rides; else it starts its own on every CPU. */
void watchdog_init(bool nmis_running);
/* The end of the run (arch_shutdown): no more checks. */
void watchdog_stop(void);

/* Hooks. This CPU made progress (an interrupt handled, a schedule). */
void watchdog_touch(void);
/* Every NMI, after its handler (nmi_dispatch). */
void watchdog_nmi(unsigned cpu, const struct nmi_regs *r);
/* t goes on the run queue (sched_lock held). */
void watchdog_queued(struct task *t);
/* The PIT tick, sched_lock held: the run-queue check. */
void watchdog_tick(void);

/* For tests: what a detection does instead of the report and the end of
 * the run (NULL: the real one), and the bound in cycles. */
typedef void (*watchdog_action_fn)(unsigned cpu, const struct nmi_regs *r);
void watchdog_test_arm(watchdog_action_fn fn, uint64_t irqoff_cycles);
void watchdog_test_disarm(void);

#endif
