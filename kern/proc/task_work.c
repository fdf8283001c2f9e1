#include "kern/proc/task_work.h"
#include <arch/arch.h>
#include "stitch/syscall.h"

/*
 * Each task's list is a stack of works pushed with compare-and-swap, taken
 * whole with one exchange, as Linux's kernel/task_work.c does; no lock.
 * Many may push at once (another CPU's irq work, the task itself), only
 * the task takes (task_work_run) or, at the end, closes the list
 * (task_work_exit): a task that exits runs no more task work. Closed
 * means the head is `closed`, which a push never replaces: from then on
 * task_work_add refuses, with no flag to read apart from the head.
 *
 * Why no lock is needed for the pending bit: a push sets TIF_TASK_WORK
 * after its work is on the list, and the take clears the bit before it
 * takes the list. A push that lands after the take sets the bit again
 * (the return-to-user loop comes back for it); one that lands between the
 * clear and the take leaves a bit with an empty list behind, and the
 * loop's next task_work_run finds nothing, which costs a turn, not a work.
 */
static struct task_work closed;

int task_work_add(struct task *t, struct task_work *work)
{
	struct task_work *head = __atomic_load_n(&t->works, __ATOMIC_RELAXED);
	do {
		if (head == &closed)
			return -STITCH_ESRCH;
		work->next = head;
	} while (!__atomic_compare_exchange_n(&t->works, &head, work, false,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	task_set_pending(t, TIF_TASK_WORK);
	return 0;
}

/* Takes the whole list at once (newest first), leaving `to` in its place,
 * and reverses it. */
static struct task_work *take_all(struct task *t, struct task_work *to)
{
	/* Closed stays closed (only the task closes its list: no race). */
	if (__atomic_load_n(&t->works, __ATOMIC_RELAXED) == &closed)
		return NULL;
	task_clear_pending(t, TIF_TASK_WORK);
	struct task_work *list = __atomic_exchange_n(&t->works, to, __ATOMIC_ACQUIRE);
	struct task_work *fifo = NULL;
	while (list) {
		struct task_work *next = list->next;
		list->next = fifo;
		fifo = list;
		list = next;
	}
	return fifo;
}

void task_work_run(void)
{
	/* Work queued while these run sets TIF_TASK_WORK again, and the
	 * return-to-user loop comes back for it. */
	struct task_work *w = take_all(current, NULL);
	while (w) {
		struct task_work *next = w->next;
		w->func(w);
		w = next;
	}
}

int task_work_exit(struct task *t)
{
	int n = 0;
	for (struct task_work *w = take_all(t, &closed); w; w = w->next)
		n++;
	return n;
}
