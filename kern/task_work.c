#include "kern/task_work.h"
#include <arch/arch.h>
#include "kern/spinlock.h"
#include "stitch/syscall.h"

/* Every task's works list and exiting flag: another CPU's irq work may add
 * to a task while it takes its list or exits. A leaf lock. */
static struct spinlock task_work_lock = SPINLOCK_INIT("task_work");

int task_work_add(struct task *t, struct task_work *work)
{
	irqflags_t f = spin_lock_irqsave(&task_work_lock);
	if (t->exiting) {
		spin_unlock_irqrestore(&task_work_lock, f);
		return -STITCH_ESRCH;
	}
	work->next = t->works;
	t->works = work;
	task_set_pending(t, TIF_TASK_WORK);
	spin_unlock_irqrestore(&task_work_lock, f);
	return 0;
}

/* Takes the whole list at once (newest first) and reverses it. */
static struct task_work *take_all(struct task *t)
{
	irqflags_t f = spin_lock_irqsave(&task_work_lock);
	struct task_work *list = t->works, *fifo = NULL;
	t->works = NULL;
	task_clear_pending(t, TIF_TASK_WORK);
	spin_unlock_irqrestore(&task_work_lock, f);
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
	struct task_work *w = take_all(current);
	while (w) {
		struct task_work *next = w->next;
		w->func(w);
		w = next;
	}
}

int task_work_exit(struct task *t)
{
	irqflags_t f = spin_lock_irqsave(&task_work_lock);
	t->exiting = true;
	spin_unlock_irqrestore(&task_work_lock, f);
	int n = 0;
	for (struct task_work *w = take_all(t); w; w = w->next)
		n++;
	return n;
}
