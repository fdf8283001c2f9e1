/*
 * Tasks: one per thread. A process is the group of tasks that share its
 * pid (the tid of its first thread), its address space and, copied at
 * thread start, its descriptors (kern/proc/thread.c).
 *
 * A task has a 16 KiB kernel stack. Whenever it runs in ring 3, that stack
 * is empty; every entry from ring 3 (system call, interrupt, exception)
 * puts the user's registers at its top (task_user_frame), so the user
 * context of a task that is in the kernel is always at the same place.
 *
 * Locking: the kernel is not preemptible (a task gives up its CPU only in
 * schedule(), on its way back to user mode or when it sleeps), and a task
 * runs on one CPU at a time. sched_lock guards the process table, task
 * states and the run queue; `pending` changes atomically; the task-work
 * list is lock-free (kern/proc/task_work.c, docs/SMP.md).
 */
#ifndef KERN_PROC_TASK_H
#define KERN_PROC_TASK_H

#include <stdbool.h>
#include <stdint.h>

#include <arch/arch.h>
#include <arch/task.h>
#include <arch/trap.h>
#include "kern/proc/signal.h"
#include "kern/unwind/kernel.h"

#define NPROC         64      /* the process table (docs/USERLAND.md: -EAGAIN) */
#define NOFILE        32      /* descriptors per process */
#define KSTACK_PAGES  4       /* 16 KiB kernel stack */
#define KSTACK_SIZE   (KSTACK_PAGES * 4096ull)
#define TASK_NAME_MAX 64      /* argv[0], truncated */


enum task_state {
	TASK_FREE,     /* an unused process-table slot */
	TASK_EMBRYO,   /* taken by proc_spawn, not yet runnable */
	TASK_RUNNABLE, /* running, or in the run queue */
	TASK_SLEEPING, /* waiting for wakeup(chan), a deadline, or a kill */
	TASK_ZOMBIE,   /* exited; its parent has not reaped it yet */
};

/*
 * Bits of task->pending: work the return-to-user path (kern/proc/entry.c) must
 * do before ring 3. Set from any context, NMI excepted, with
 * task_set_pending(); exit_to_user_mode() reads them with interrupts off.
 */
#define TIF_NEED_RESCHED 0 /* the time slice is over: schedule() */
#define TIF_TASK_WORK    1 /* task_work_add() queued work: task_work_run() */
#define TIF_KILLED       2 /* a fault or kill(): exit with kill_sig */
#define TIF_SIGNAL       3 /* a signal to deliver: signal_deliver() */
#define TIF_WORK_MASK ((1ul << TIF_NEED_RESCHED) | (1ul << TIF_TASK_WORK) | \
		       (1ul << TIF_KILLED) | (1ul << TIF_SIGNAL))

/* A callback to run in the task's own context on its way back to ring 3
 * (Linux's callback_head). The caller owns the memory; one struct may be
 * queued once at a time. */
struct task_work {
	struct task_work *next;
	void (*func)(struct task_work *work);
};

struct uvm;
struct file;
struct unwind_task_info;

struct task {
	int pid;
	int tid;
	char name[TASK_NAME_MAX];   /* argv[0] */
	enum task_state state;
	struct task *parent;        /* NULL: the kernel reaps it */

	/* Return-to-user work (entry.c, task_work.c). */
	unsigned long pending;      /* TIF_* bits */
	struct task_work *works;    /* queued task work, newest first; lock-free (task_work.c) */

	/* Kernel entry accounting, for the deferred unwinder: entries counts
	 * every entry from ring 3 (NMIs excepted: they are not a return
	 * path); in_kernel is true from such an entry until the return. */
	uint64_t kernel_entries;
	bool in_kernel;
	/* The deferred user unwind (kern/unwind/deferred.c): cookie, the
	 * consumers that asked, the bounded trace buffer. */
	struct unwind_task_info *unwind;

	/* Kernel stack and saved CPU state. */
	uint64_t kstack;            /* lowest address; 0 for the idle task */
	uint64_t kstack_top;
	struct kstack kbounds;      /* [kstack, kstack_top), for kunwind */
	struct arch_task arch;

	/* User memory (kern/mm/uvm.h): NULL for the idle task and once the task
	 * has exited. Descriptors (kern/fs/file.h). */
	struct uvm *mm;
	struct file *files[NOFILE];

	/* Scheduling (kern/proc/sched.c). */
	struct task *rq_next;
	unsigned last_cpu;          /* index + 1 of the CPU it last ran on, 0: never */
	unsigned avoid_cpu;         /* index + 1 of a CPU it must leave (sched.migrate) */
	uint64_t migrated_entry;    /* kernel_entries when sched.migrate last moved it */
	const void *chan;           /* what a sleeping task waits for */
	uint64_t wake_ns;           /* timed sleep: clock_ns() deadline, or 0 */

	/* Signals (kern/proc/signal.c). */
	struct signals sig;

	/* Threads (kern/proc/thread.c): clear_tid is the user word zeroed and
	 * futex-woken when the thread goes (the SDK's join); futex_addr the
	 * word a futex wait sleeps on (0: none, or woken); thread_gone is set,
	 * under sched_lock, once the thread has started to exit; kill_quiet
	 * for a thread that dies with its process, not by its own fault. */
	uint64_t clear_tid;
	uint64_t futex_addr;
	bool thread_gone;
	bool kill_quiet;

	/* Death: kill_sig != 0 once a fault or kill() condemned the task. */
	int kill_sig;
	char kill_reason[48];
	uint64_t kill_rip, kill_addr; /* 0 when the reason has none */
	int exit_status;            /* POSIX wait status, valid when a zombie */

	/* Accounting: CPU time in ns, children's when reaped; page faults on
	 * user addresses (all, and those taken by kernel code: the copy
	 * helpers, for instance while unwinding). */
	uint64_t utime_ns, stime_ns, cutime_ns, cstime_ns;
	uint64_t acct_ts;           /* clock_ns() when the last interval began */
	uint64_t page_faults;
	uint64_t kernel_page_faults;
};

/* The task each CPU runs, and each CPU's idle task; `current` and
 * `idle_task` are this CPU's (arch_cpu_id() needs no GS: NMI-safe). */
extern struct task *cpu_current[];
extern struct task idle_tasks[];
#define current   (cpu_current[arch_cpu_id()])
#define idle_task (idle_tasks[arch_cpu_id()])
extern struct task tasks[NPROC];

static inline void task_set_pending(struct task *t, int bit)
{
	__atomic_fetch_or(&t->pending, 1ul << bit, __ATOMIC_SEQ_CST);
}

static inline void task_clear_pending(struct task *t, int bit)
{
	__atomic_fetch_and(&t->pending, ~(1ul << bit), __ATOMIC_SEQ_CST);
}

static inline bool task_killed(const struct task *t)
{
	return __atomic_load_n(&t->kill_sig, __ATOMIC_RELAXED) != 0;
}

/* A sleep ends early: the task was killed, or has a signal to deliver. */
static inline bool task_interrupted(const struct task *t)
{
	return task_killed(t) || (__atomic_load_n(&t->sig.pending, __ATOMIC_RELAXED) &
				  ~__atomic_load_n(&t->sig.blocked, __ATOMIC_RELAXED));
}

/* The ring-3 registers of a task that entered the kernel from user mode
 * (rip, rsp, rbp at the entry). Not an NMI's: an NMI that interrupted
 * ring 3 has the user registers in its own frame on the NMI stack. */
static inline struct trap_frame *task_user_frame(struct task *t)
{
	return arch_user_frame(t->kstack_top);
}

/* kern/proc/proc.c */
void proc_init(void);
/* Starts init (argv[0] = path, then args split at commas), runs until it
 * and every other process have exited, prints the leak-check line; returns
 * init's wait status, or -1 if it could not start. */
int proc_run_init(const char *path, const char *args);
/* A new process running the initrd program path with argv (argc strings).
 * Descriptors: the parent's, or the console as 0, 1, 2 without a parent. */
long proc_spawn(const char *path, char *const argv[], int argc);
/* SYS_exec: current runs the initrd program path with argv from its
 * entry, in a new address space; descriptors stay. 0 (to the new program),
 * or -errno with the old program untouched. */
long proc_exec(const char *path, char *const argv[], int argc);
/* Condemns t: it exits with sig when it next heads for ring 3 (at once if
 * it sleeps). The first reason sticks. */
void task_kill(struct task *t, int sig, const char *reason, uint64_t rip,
	       uint64_t addr);
/* Ends current: a zombie for its parent to reap; with the kernel as its
 * parent, freed right after the switch away from it. init's exit kills
 * every other process. */
__attribute__((noreturn)) void task_exit(int wait_status);
/* current's descriptors and its reference to its address space go, on
 * its way out (task_exit, thread_leave). */
void task_drop_resources(struct task *t);
/* Called after every task switch by the task that now runs, sched_lock
 * still held: frees the task that exited with no parent to reap it (its
 * kernel stack is no longer in use). */
void proc_finish_switch(void);
/* SYS_wait: a child's pid (status stored at ustatus) or -errno. */
long proc_wait(int pid, uint64_t ustatus);
long proc_kill(int pid, int sig);
struct task *task_by_pid(int pid);
/* A new pid or tid (sched_lock held). */
int proc_new_id(void);
/* The last component of a path: a task's short name (REC_COMM). */
const char *proc_base_name(const char *path);
/* A thread that left its process: freed after the switch away from it
 * (sched_lock held). */
void proc_thread_gone_locked(struct task *t);

/* kern/proc/thread.c */
/* In task_exit: returns if t is the last thread of its process (the exit
 * is the process's); otherwise t leaves its process and the CPU for good. */
void thread_leave(struct task *t, int wait_status);
/* Condemns every other thread of t's process: each exits quietly
 * (kill_quiet) with wait_status. sched_lock held. */
void thread_group_kill_locked(struct task *t, int wait_status);
/* exec: t's other threads are killed and gone first (POSIX); 0, or
 * -EINTR if t itself is killed meanwhile. */
int thread_exec_alone(struct task *t);
/* Wakes up to n futex waiters on the user word uaddr of mm: how many. */
long futex_wake(struct uvm *mm, uint64_t uaddr, long n);

#endif
