#include "kern/lib/ktest.h"
#include "kern/lib/string.h"
#include "kern/proc/task.h"
#include "kern/proc/task_work.h"
#include "stitch/syscall.h"

static struct task_work works[3];
static int ran[3], nran;

static void record(struct task_work *w)
{
	ran[nran++] = (int)(w - works);
}

KTEST(task_work_runs_in_order)
{
	nran = 0;
	for (int i = 0; i < 3; i++) {
		works[i].func = record;
		KEXPECT_EQ(t, task_work_add(current, &works[i]), 0);
	}
	KEXPECT(t, current->pending & (1ul << TIF_TASK_WORK));
	task_work_run();
	KEXPECT_EQ(t, nran, 3);
	KEXPECT(t, ran[0] == 0 && ran[1] == 1 && ran[2] == 2);
	KEXPECT(t, !(current->pending & (1ul << TIF_TASK_WORK)));
	KEXPECT(t, current->works == NULL);
}

/* Work still queued at exit is dropped (and counted), never runs; later
 * work is refused. */
KTEST(task_work_exit_drops)
{
	static struct task dying;
	memset(&dying, 0, sizeof(dying));
	nran = 0;
	works[0].func = works[1].func = record;
	KEXPECT_EQ(t, task_work_add(&dying, &works[0]), 0);
	KEXPECT_EQ(t, task_work_add(&dying, &works[1]), 0);
	KEXPECT_EQ(t, task_work_exit(&dying), 2);
	KEXPECT_EQ(t, nran, 0);
	KEXPECT_EQ(t, task_work_add(&dying, &works[2]), -STITCH_ESRCH);
	KEXPECT_EQ(t, task_work_exit(&dying), 0); /* nothing got in */
}
