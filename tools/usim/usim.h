/*
 * stitch-usim's parts (tools/usim/): usim.c, the tracer and the system
 * calls; signal.c, the signals the tracer emulates.
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
#define MAX_SFRAME 8

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
};

/* A process's signals, as the kernel's struct signals holds them. */
struct sigstate {
	struct stitch_sigaction action[STITCH_NSIG];
	struct stitch_siginfo info[STITCH_NSIG];
	uint64_t blocked, pending;	/* bit sig - 1 */
	int page_mapped;	/* the signal page is in the address space */
	int dying;		/* the Linux signal it was sent to end it */
	unsigned long scratch;	/* setitimer's Linux structs on its stack */
};

struct proc {
	pid_t pid;
	int used;
	int stitch;		/* exec'd a Stitch program: its calls are ours */
	int in_syscall;		/* between a syscall's entry and exit stops */
	int exec_pending;	/* forked by spawn, must execve first */
	int restarting;		/* Linux will restart the translated call */
	int stopped_early;	/* its first stop came before the fork event */
	enum fixup fix;
	long result;
	struct user_regs_struct entry;	/* the registers the call came with */
	unsigned long brk_start, brk;
	unsigned long exec_path, exec_argv, exec_envp;
	char path[MAX_PATH + 1];
	struct range sframe[MAX_SFRAME];
	struct sigstate sig;
};

/* usim.c */
struct proc *find_proc(pid_t pid);
int user_range_ok(pid_t pid, unsigned long addr, unsigned long len, int write);
int peek(pid_t pid, unsigned long addr, void *buf, size_t len);
int poke(pid_t pid, unsigned long addr, const void *buf, size_t len);
void linux_call(struct proc *p, struct user_regs_struct *r, long nr, enum fixup fix);
void answer(struct proc *p, struct user_regs_struct *r, long result);
int linux_restarts(long ret);
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

#endif
