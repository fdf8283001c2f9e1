/*
 * Task work: callbacks that run in a task's own context, with interrupts
 * on, on its way back to ring 3 (exit_to_user_mode, kern/proc/entry.c). There
 * they may sleep, be preempted and take page faults, which an interrupt
 * handler may not: the deferred user-stack unwind is queued from the
 * self-IPI handler and runs here.
 */
#ifndef KERN_PROC_TASK_WORK_H
#define KERN_PROC_TASK_WORK_H

#include "kern/proc/task.h"

/*
 * Queues work on t and sets TIF_TASK_WORK. Callable with interrupts on or
 * off (from an interrupt handler such as the self-IPI); an NMI goes
 * through irq work (kern/proc/irq_work.h says why).
 * Returns 0, or -ESRCH when t is exiting (the work will never run).
 */
int task_work_add(struct task *t, struct task_work *work);

/* Runs (in queueing order) everything queued on current; interrupts on. */
void task_work_run(void);

/*
 * task_exit's part: refuse new work and drop what is still queued, without
 * running it (the task has no user context left to work on). Returns how
 * many were dropped. Their owners answer for them: the deferred unwinder
 * serves its consumers in unwind_deferred_task_exit.
 */
int task_work_exit(struct task *t);

#endif
