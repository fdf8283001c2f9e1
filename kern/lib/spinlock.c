#include "kern/lib/spinlock.h"
#include "kern/kernel.h"

bool spin_held(const struct spinlock *l)
{
	return __atomic_load_n(&l->locked, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&l->cpu, __ATOMIC_RELAXED) == (int)arch_cpu_id();
}

/* Test and test-and-set: wait with plain loads, so the line is not
 * bounced between waiters; arch_cpu_relax in the wait (under -icount QEMU switches
 * CPUs there, docs/SMP.md). */
void spin_lock(struct spinlock *l)
{
	if (spin_held(l))
		panic("spin_lock: %s already held by this CPU", l->name);
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			arch_cpu_relax();
	__atomic_store_n(&l->cpu, (int)arch_cpu_id(), __ATOMIC_RELAXED);
}

void spin_unlock(struct spinlock *l)
{
	if (!spin_held(l))
		panic("spin_unlock: %s not held by this CPU", l->name);
	__atomic_store_n(&l->cpu, -1, __ATOMIC_RELAXED);
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}
