/*
 * irq work: the one thing an NMI handler may ask of the rest of the
 * kernel. An NMI cannot take a lock or allocate, and it does no
 * return-to-user work: it returns straight to the code it interrupted, so
 * a task work it queued on a task in ring 3 would wait for that task's
 * next kernel entry. Instead it queues an irq_work on a per-CPU lock-free
 * list and raises a self-IPI (arch_irq_work_raise); the arch's IPI
 * handler, an ordinary interrupt, calls irq_work_run a moment later (as
 * soon as the interrupted code has interrupts enabled), and that
 * interrupt's return to ring 3 goes through exit_to_user_mode, which runs
 * the task work.
 *
 * Linux's kernel/irq_work.c in miniature: one list per CPU, pushed with
 * compare-and-swap, taken whole with one exchange.
 */
#ifndef KERN_PROC_IRQ_WORK_H
#define KERN_PROC_IRQ_WORK_H

#include <stdbool.h>

struct irq_work {
	struct irq_work *next;
	void (*func)(struct irq_work *work);
	int busy;    /* 1 from irq_work_queue until func is about to run */
	int running; /* 1 from before busy drops until func returned */
};

/*
 * Any context, NMI included: puts work on this CPU's list and, if the list
 * was empty, raises the self-IPI. Returns false (and does nothing) if the
 * work is already queued: it will run once, soon.
 */
bool irq_work_queue(struct irq_work *work);

/*
 * Runs this CPU's queued works, oldest last (order is not promised).
 * Interrupts must be off. The arch's self-IPI handler calls it
 * (arch/x86_64/interrupts/ipi.c); so may code that must
 * not wait for the IPI (the return-to-user path, task exit).
 */
void irq_work_run(void);

/*
 * Waits (interrupts on) until work is neither queued on any CPU nor
 * running: after it, func is not touching what work belongs to. Runs this
 * CPU's list first, as the work may be there. True if it had to wait for
 * another CPU.
 */
bool irq_work_wait(struct irq_work *work);

#endif
