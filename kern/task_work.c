#include "kern/task_work.h"
#include "arch/x86_64/arch.h"
#include "stitch/syscall.h"

int task_work_add(struct task *t, struct task_work *work)
{
	irqflags_t f = irq_save();
	if (t->exiting) {
		irq_restore(f);
		return -STITCH_ESRCH;
	}
	work->next = t->works;
	t->works = work;
	task_set_pending(t, TIF_TASK_WORK);
	irq_restore(f);
	return 0;
}

/* Takes the whole list at once (newest first) and reverses it. */
static struct task_work *take_all(struct task *t)
{
	irqflags_t f = irq_save();
	struct task_work *list = t->works, *fifo = NULL;
	t->works = NULL;
	task_clear_pending(t, TIF_TASK_WORK);
	irq_restore(f);
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
	irqflags_t f = irq_save();
	t->exiting = true;
	irq_restore(f);
	int n = 0;
	for (struct task_work *w = take_all(t); w; w = w->next)
		n++;
	return n;
}
