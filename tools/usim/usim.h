/*
 * stitch-usim's parts (tools/usim/): usim.c, the tracer and the system
 * calls; signal.c, the signals the tracer emulates; thread.c, the threads
 * and their futex.
 */
#ifndef USIM_H
#define USIM_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>
#include <stitch/signal.h>

#define USER_TOP   0x00007ffffffff000UL	/* docs/USERLAND.md */
#define PAGE       4096UL
#define RED_ZONE   128UL		/* below rsp, the program's own */
#define MAX_PATH   255			/* longer paths: ENAMETOOLONG */
/* Unwind tables per format, as the kernel keeps (kern/unwind/table.h):
 * SFrame, .eh_frame. */
#define TABLE_FORMATS 2
#define MAX_TABLES 16
#define MAX_PROCS  64			/* tasks: spawn and thread_spawn give EAGAIN beyond */

struct range {
	unsigned long start, len;
};

/* What the tracer does at a system call's exit stop. */
enum fixup {
	FIX_NONE,	/* a Linux call of the loader itself: leave it */
	FIX_ERRNO,	/* translated: map Linux errno to newlib's */
	FIX_RESULT,	/* answered by the tracer: store result */
	FIX_SBRK,	/* translated to brk: turn the new break into the old */
	FIX_SIGPAGE,	/* a sigaction that first mapped the signal page */
	FIX_ITIMER,	/* translated to setitimer: convert the old value */
	FIX_SIGRETURN,	/* answered at the exit: the frame's registers */
	FIX_CLEAR_TID,	/* thread_exit woke clear_tid's waiters: now the exit */
};

/* A task's signals, as the kernel's struct signals holds them (each
 * thread has its own). */
struct sigstate {
	struct stitch_sigaction action[STITCH_NSIG];
	struct stitch_siginfo info[STITCH_NSIG];
	uint64_t blocked, pending;	/* bit sig - 1 */
	int dying;		/* the Linux signal it was sent to end it */
	unsigned long scratch;	/* setitimer's Linux structs on its stack */
};

/*
 * A traced task: a process's first thread, or another thread of it (the
 * Linux tid is the Stitch tid, the first thread's the pid). What the
 * threads of a process share is kept in its first thread's entry, group,
 * which Linux reports gone only after every other thread.
 */
struct proc {
	pid_t pid;
	int used;
	struct proc *group;	/* the process's first thread: itself for that */
	int stitch;		/* exec'd a Stitch program: its calls are ours */
	int in_syscall;		/* between a syscall's entry and exit stops */
	int exec_pending;	/* forked by spawn, must execve first */
	int restarting;		/* Linux will restart the translated call */
	int stopped_early;	/* its first stop came before the fork event */
	int thread_gone;	/* left by thread_exit, Linux's exit under way */
	unsigned long clear_tid;	/* zeroed and woken at thread_exit */
	unsigned long start_ip, start_sp;	/* a new thread's, until its first stop */
	enum fixup fix;
	long result;
	struct user_regs_struct entry;	/* the registers the call came with */
	unsigned long exec_path, exec_argv, exec_envp;
	char path[MAX_PATH + 1];
	struct sigstate sig;
	/* The process's, valid in group only. */
	unsigned long brk_start, brk;
	struct range tables[TABLE_FORMATS][MAX_TABLES]; /* text ranges registered */
	int sigpage_mapped;	/* the signal page is in the address space */
};

/* usim.c */
struct proc *find_proc(pid_t pid);
int live_procs(void);
int live_threads(const struct proc *group);
void resume(pid_t pid, int sig);
int user_mapped(pid_t pid, unsigned long addr, unsigned long len, int write);
int in_user_range(unsigned long addr, unsigned long len);
int peek(pid_t pid, unsigned long addr, void *buf, size_t len);
int poke(pid_t pid, unsigned long addr, const void *buf, size_t len);
void linux_call(struct proc *p, struct user_regs_struct *r, long nr, enum fixup fix);
void answer(struct proc *p, struct user_regs_struct *r, long result);
int linux_restarts(long ret);
void keep_args(const struct proc *p, struct user_regs_struct *r);
long newlib_errno(long e);
int get_regs(pid_t pid, struct user_regs_struct *r);
void set_regs(pid_t pid, struct user_regs_struct *r);
unsigned long stack_scratch(pid_t pid, const struct user_regs_struct *r, unsigned long len);

/* signal.c */
int sigpage_load(const char *root);
void kill_call(struct proc *p, struct user_regs_struct *r);
void sigaction_call(struct proc *p, struct user_regs_struct *r);
void sigprocmask_call(struct proc *p, struct user_regs_struct *r);
void setitimer_call(struct proc *p, struct user_regs_struct *r);
void sigreturn_call(struct proc *p, struct user_regs_struct *r);
void signal_fixup(struct proc *p, struct user_regs_struct *r);
void signal_return_to_user(struct proc *p, struct user_regs_struct *r);
int signal_stop(struct proc *p, int linux_sig);
void signal_exec(struct proc *p);
int fpu_initial(pid_t pid);

/* thread.c */
void thread_spawn_call(struct proc *p, struct user_regs_struct *r);
void thread_exit_call(struct proc *p, struct user_regs_struct *r);
void thread_exit_fixup(struct user_regs_struct *r);
void futex_call(struct proc *p, struct user_regs_struct *r);
void thread_init(struct proc *t, struct proc *creator);
void thread_begin(struct proc *t);
void thread_exec(struct proc *p);

#endif
