/*
 * Spinlocks (docs/SMP.md has the list and the order). Every lock is taken
 * with interrupts off on this CPU (spin_lock_irqsave), because interrupt
 * handlers take them too (the tick wakes sleepers, the irq work adds task
 * work): an interrupt that wanted a lock its own CPU holds would spin
 * forever. NMI code takes none: an NMI can land while its CPU holds any.
 *
 * The holder's CPU is recorded: taking a lock the CPU already holds panics
 * (it would deadlock), and spin_held() lets code assert it holds one.
 */
#ifndef KERN_LIB_SPINLOCK_H
#define KERN_LIB_SPINLOCK_H

#include <stdbool.h>

#include <arch/arch.h>

struct spinlock {
	int locked;
	int cpu;          /* the holder's index, -1 when free */
	const char *name;
};

#define SPINLOCK_INIT(n) { 0, -1, (n) }

void spin_lock(struct spinlock *l);   /* interrupts must be off */
void spin_unlock(struct spinlock *l);
bool spin_held(const struct spinlock *l);

static inline irqflags_t spin_lock_irqsave(struct spinlock *l)
{
	irqflags_t f = irq_save();
	spin_lock(l);
	return f;
}

static inline void spin_unlock_irqrestore(struct spinlock *l, irqflags_t f)
{
	spin_unlock(l);
	irq_restore(f);
}

#endif
