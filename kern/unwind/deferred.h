/*
 * Deferred user-space unwinding, shaped after Linux's
 * kernel/unwind/deferred.c (6.17+): it knows its consumers only as
 * callbacks, and nothing of what they do with a stack.
 *
 * A consumer owns a struct unwind_work (a callback and a bit). Wherever it
 * is, NMI included, it may call unwind_deferred_request(): that returns
 * the task's cookie for its current kernel entry and makes sure the user
 * stack will be unwound, once, on the task's way back to user mode, where
 * page faults are allowed. The callback then receives the trace and the
 * cookie; it runs in task context (current is the task) with interrupts
 * enabled, and writes whatever it keeps (kern/profile/sample_user.c and
 * kern/profile/strace.c each write their own record).
 *
 * One unwind per entry: every request between a kernel entry and the next
 * return to user mode (from any consumer, any number of times) gets the
 * same cookie and shares one trace; each consumer that asked is called
 * exactly once per cookie. docs/DEFERRED.md walks through it.
 */
#ifndef KERN_UNWIND_DEFERRED_H
#define KERN_UNWIND_DEFERRED_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/unwind/user.h"

struct task;

/* The user callchain of one entry: entries[0] is the user pc. */
struct unwind_trace {
	uint64_t *entries;
	uint32_t nr;
	enum unwind_stop stop;
};

struct unwind_work;
typedef void (*unwind_callback_t)(struct unwind_work *work,
				  const struct unwind_trace *trace,
				  uint64_t cookie);

/* A consumer. bit is assigned by unwind_deferred_init. */
struct unwind_work {
	unwind_callback_t func;
	int bit;
};

#define UNWIND_MAX_WORKS 4

/* Registers a consumer (boot time). 0, or -EBUSY when all bits are taken. */
int unwind_deferred_init(struct unwind_work *work, unwind_callback_t func);

/*
 * The most entries a trace holds (each task's buffer). Once at boot,
 * before the first task; until then one. (How the stack is walked is the
 * user unwinder's: unwind_user_set_method, kern/unwind/user.h.)
 */
void unwind_deferred_setup(uint32_t max_entries);

/*
 * Any context, NMI included, on behalf of current. *cookie: the entry's
 * cookie (never 0). Returns 0 when this request will be served, 1 when
 * this consumer had already asked for this cookie (it will be called once
 * for both), or -EINVAL when current has no user context (idle, exiting).
 */
int unwind_deferred_request(struct unwind_work *work, uint64_t *cookie);

/* Task life: per-task state and its trace buffer, allocated at spawn and
 * freed at reap. 0 or -ENOMEM. */
int unwind_task_init(struct task *t);
void unwind_task_free(struct task *t);

/*
 * The return-to-user path (kern/proc/entry.c), interrupts off, after the task
 * work: ends the entry (clears the cookie and the trace). Returns false,
 * changing nothing, if a request came after the last task-work run: the
 * caller runs the irq work and the task work and tries again, so that
 * request is served in this entry.
 */
bool unwind_exit_to_user(struct task *t);

/*
 * task_exit, while the address space is still there (as Linux's
 * unwind_deferred_task_exit, called before exit_mm): refuses every later
 * request (-EINVAL), then serves the consumers that asked and were not
 * called yet with a real unwind of the last entry's user stack. A task
 * without an address space gets an empty trace and stop
 * UNWIND_STOP_TASK_EXITED (counted), so that nothing is silently lost.
 */
void unwind_deferred_task_exit(struct task *t);

/*
 * The user context of this entry is about to change: exec replaces the
 * program, a signal frame points the registers at a handler, sigreturn
 * puts back the context the signal interrupted. What the
 * entry owes is the stack the program was interrupted on, unwound now;
 * requests in the rest of the entry are refused (they would describe
 * neither), and the return to user mode starts afresh.
 */
void unwind_deferred_settle(struct task *t);

#endif
