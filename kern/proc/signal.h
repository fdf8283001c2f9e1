/*
 * Signals (docs/PROCESSES.md, "Signals"): what each task has caught,
 * blocked and is owed, delivery on the return-to-user path onto a frame
 * the arch writes (arch/signal.h), and the signal page, the trampoline a
 * handler returns to, mapped into every process.
 *
 * Signal numbers are the SDK's (newlib's <sys/signal.h>); a mask has bit
 * sig - 1. sched_lock guards a task's struct signals; pending and blocked
 * are read without it where a stale value costs one more turn of a loop
 * (task_interrupted).
 */
#ifndef KERN_PROC_SIGNAL_H
#define KERN_PROC_SIGNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "stitch/signal.h"

struct task;
struct trap_frame;
struct uvm;

struct signals {
	struct stitch_sigaction action[STITCH_NSIG]; /* [0] unused */
	struct stitch_siginfo info[STITCH_NSIG];     /* of each pending signal */
	uint64_t blocked;
	uint64_t pending;
	/* ITIMER_REAL: clock_ns() of the next SIGALRM (0: disarmed), the
	 * period (0: one shot). */
	uint64_t itimer_next_ns, itimer_interval_ns;
};

/* The SDK's numbers (newlib's) of the signals the kernel sends itself,
 * and of those it treats apart; a killed task's wait status holds them. */
#define SIGILL  4
#define SIGTRAP 5
#define SIGFPE  8
#define SIGKILL 9
#define SIGBUS  10
#define SIGSEGV 11
#define SIGALRM 14
#define SIGURG  16
#define SIGSTOP 17
#define SIGCONT 19
#define SIGCHLD 20
#define SIGWINCH 28
#define NSIG    STITCH_NSIG
#define SIG_BIT(sig) (1ull << ((sig) - 1))
/* Neither caught, ignored nor blocked. */
#define SIG_UNCATCHABLE (SIG_BIT(SIGKILL) | SIG_BIT(SIGSTOP))

/* Boot: finds /lib/sigpage in the initrd (without it, handlers are
 * refused with -ENOSYS, said once). */
void signal_init(void);
/* Whether there is a signal page to return from handlers through. */
bool signal_page_present(void);
/* A new address space gets the signal page (not a compat one): 0 or
 * -ENOMEM. */
int signal_map_page(struct uvm *mm);
/* The profiler's REC_MMAP of the signal page in t's address space. */
void signal_record_page(const struct task *t);

/* Sends sig (not SIGKILL: task_kill) with its siginfo code and sender;
 * sched_lock held. An ignored signal goes; a blocked one waits. */
void signal_send_locked(struct task *t, int sig, int code, int sender);
/* On the way back to ring 3 (TIF_SIGNAL): the lowest deliverable signal
 * runs its handler on a frame over tf, is ignored, or kills. */
void signal_deliver(struct task *t, struct trap_frame *tf);
/* exec: caught signals go back to their default action. */
void signal_exec(struct task *t);
/* The tick, sched_lock held: t's interval timer. */
void signal_tick_locked(struct task *t, uint64_t now);

#endif
