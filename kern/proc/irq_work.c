#include "kern/proc/irq_work.h"
#include <arch/arch.h>

/* Each CPU's pending works, newest first. Pushed by anyone on that CPU
 * (NMI included), taken whole by that CPU's irq_work_run. */
static struct irq_work *pending[ARCH_MAX_CPUS];

bool irq_work_queue(struct irq_work *work)
{
	int idle = 0;
	if (!__atomic_compare_exchange_n(&work->busy, &idle, 1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	struct irq_work **head = &pending[arch_cpu_id()];
	struct irq_work *old = __atomic_load_n(head, __ATOMIC_RELAXED);
	do {
		work->next = old;
	} while (!__atomic_compare_exchange_n(head, &old, work, true,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	/* Only the push onto an empty list raises the IPI: a non-empty list
	 * already has one on its way that will take this work too. */
	if (!old)
		arch_irq_work_raise();
	return true;
}

void irq_work_run(void)
{
	struct irq_work *w = __atomic_exchange_n(&pending[arch_cpu_id()], NULL,
						 __ATOMIC_ACQUIRE);
	while (w) {
		struct irq_work *next = w->next;
		/* Free before it runs, so that func (or an NMI meanwhile)
		 * may queue it again; running covers the call itself. */
		__atomic_store_n(&w->running, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&w->busy, 0, __ATOMIC_RELEASE);
		w->func(w);
		__atomic_store_n(&w->running, 0, __ATOMIC_RELEASE);
		w = next;
	}
}

bool irq_work_wait(struct irq_work *work)
{
	irqflags_t f = irq_save();
	irq_work_run();
	irq_restore(f);
	bool waited = false;
	/* running is set before busy drops, so one of the two is always
	 * seen while the work is anywhere between queue and return. */
	while (__atomic_load_n(&work->busy, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&work->running, __ATOMIC_ACQUIRE)) {
		waited = true;
		arch_cpu_relax();
	}
	return waited;
}
