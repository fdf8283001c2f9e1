/*
 * The scheduler: round robin over one run queue, a time slice of one
 * 100 Hz PIT tick, an idle task that halts. The LAPIC timer is left to the
 * sampler. The kernel is not preemptible: a task switches only inside
 * schedule(), which the return-to-user path calls when the tick asked for
 * it (TIF_NEED_RESCHED) and sleeping code calls to block.
 */
#ifndef KERN_SCHED_H
#define KERN_SCHED_H

#include <stdbool.h>
#include <stdint.h>

struct task;

/* Gives the CPU to the next runnable task (or idle); returns when current
 * runs again. A task that is not TASK_RUNNABLE stays off the run queue. */
void schedule(void);
/* Puts a new or woken task on the run queue. */
void sched_add(struct task *t);
bool sched_has_runnable(void);

/* The PIT tick (interrupt context): wakes timed sleepers, ends the time
 * slice when another task is waiting. */
void sched_tick(void);

/*
 * Sleeping. A caller rechecks its condition in a loop around sleep_on:
 *     while (!cond)
 *             if ((err = sleep_on(chan)) != 0)
 *                     return err;
 * No interrupt handler changes what such conditions read, and the kernel
 * is not preemptible, so no wakeup is lost between check and sleep.
 * Returns 0, or -EINTR when the task has been killed (it must then go
 * back towards user mode, where it exits).
 */
int sleep_on(const void *chan);
void wakeup(const void *chan);
/* Sleeps until clock_ns() >= deadline; 0 or -EINTR. */
int sleep_until(uint64_t deadline_ns);
/* Makes a sleeping task runnable (kill). */
void task_wake(struct task *t);

/* Nanoseconds since proc_init, from the TSC. */
uint64_t clock_ns(void);
void clock_init(void);

#endif
