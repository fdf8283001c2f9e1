/*
 * The scheduler: round robin over one run queue that every CPU takes
 * from, a time slice of one 100 Hz PIT tick, an idle task per CPU that
 * halts. The LAPIC timer is left to the sampler. The kernel is not
 * preemptible: a task switches only inside schedule(), which the
 * return-to-user path calls when the tick asked for it (TIF_NEED_RESCHED)
 * and sleeping code calls to block. sched_lock (kern/proc/sched.c) guards the
 * queue, task states and the process table; docs/SMP.md has the order.
 */
#ifndef KERN_PROC_SCHED_H
#define KERN_PROC_SCHED_H

#include <stdbool.h>
#include <stdint.h>

struct task;
struct spinlock;

extern struct spinlock sched_lock;

/* Gives the CPU to the next runnable task (or idle); returns when current
 * runs again. A task that is not TASK_RUNNABLE stays off the run queue. */
void schedule(void);
/* Puts a new or woken task on the run queue. */
void sched_add(struct task *t);
bool sched_has_runnable(void);
/* An idle loop's turn (interrupts off): true if another task ran. */
bool sched_run_next(void);
/* A new task's first run releases the lock its creator's switch held. */
void sched_first_run(void);
/* task_exit, sched_lock held: switch away for good. */
__attribute__((noreturn)) void sched_exit_locked(void);
/* The sched.migrate test knob: current moves to another CPU now (and the
 * scheduler counts it); false when the knob is off or there is one CPU. */
bool sched_migrate(void);
/* This CPU's idle task becomes current (the boot thread, an AP's start). */
void sched_init_idle(void);
/* An AP's idle loop, after bring-up. */
__attribute__((noreturn)) void sched_idle_cpu(void);
/* The idle loop of every CPU (the idle task, pid 0): runs the queue's tasks
 * here, halts while it is empty, until done() says to stop (checked under
 * sched_lock, interrupts off; NULL: never). Returns with interrupts off.
 * The host's stitch tells idle samples by this function on their kernel
 * stack (docs/STITCH.md, "Idle samples"): keep its name, keep it out of line. */
void sched_idle_loop(bool (*done)(void));

/* The PIT tick (interrupt context): wakes timed sleepers, ends the time
 * slice when another task is waiting. */
void sched_tick(void);

/*
 * Sleeping. A caller rechecks its condition in a loop around sleep_on:
 *     while (!cond)
 *             if ((err = sleep_on(chan)) != 0)
 *                     return err;
 * With several CPUs the condition must be checked under a lock that the
 * waker takes too: sleep_on_locked(chan, lk) is called holding lk
 * (interrupts off), gives it up only once the task is asleep under
 * sched_lock, and takes it again before it returns; lk may be sched_lock
 * itself. Wakers call wakeup() (or wakeup_locked() with sched_lock held).
 * Returns 0, or -EINTR when the task has been killed (it must then go
 * back towards user mode, where it exits).
 */
int sleep_on(const void *chan);
int sleep_on_locked(const void *chan, struct spinlock *lk);
void wakeup(const void *chan);
void wakeup_locked(const void *chan);
/* Sleeps until clock_ns() >= deadline; 0 or -EINTR. */
int sleep_until(uint64_t deadline_ns);
/* Makes a sleeping task runnable (kill). */
void task_wake(struct task *t);
void task_wake_locked(struct task *t);
/* Brings t to its return-to-user path soon, for work just set in its
 * pending bits: wakes it if it sleeps, and, running on another CPU (maybe
 * in ring 3 for ever), interrupts it there (as Linux's kick_process).
 * sched_lock held. */
void task_kick_locked(struct task *t);

/* Nanoseconds since proc_init, from the TSC. */
uint64_t clock_ns(void);
void clock_init(void);

#endif
