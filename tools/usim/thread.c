/*
 * Threads under stitch-usim: the kernel's (kern/proc/thread.c,
 * docs/PROCESSES.md, "Threads") made of Linux's.
 *
 * thread_spawn becomes a clone(CLONE_THREAD) that the caller itself makes;
 * the tracer, told of the new thread by PTRACE_EVENT_CLONE, starts it at
 * its first stop at the entry and stack asked for. Without CLONE_FILES, as
 * the kernel gives a thread copies of the descriptors. Linux's tid is the
 * tid, and the first thread's the pid, as in the kernel. Each thread has
 * its own signal state, the creator's handlers and mask to begin with;
 * the break, the SFrame registrations and the signal page are the
 * process's (struct proc, group). The futex is Linux's private one on the
 * same word. thread_exit zeroes clear_tid and wakes its waiters (a Linux
 * futex call of the thread), then the thread leaves with Linux's exit; the
 * last thread to leave ends the process with exit_group, so that the
 * parent sees its status, as the kernel gives it.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <time.h>
#include <asm/unistd.h>
#include <stitch/syscall.h>
#include "usim.h"

/* sys_thread_spawn's checks, then the clone (on_clone_event, thread_init). */
void thread_spawn_call(struct proc *p, struct user_regs_struct *r)
{
	unsigned long entry = r->rdi, sp = r->rsi, clear_tid = r->rdx;

	if (!entry || !in_user_range(entry, 1) || sp % 16 || !in_user_range(sp - 1, 1) ||
	    (clear_tid && (clear_tid % 4 || !in_user_range(clear_tid, 4)))) {
		answer(p, r, -STITCH_EINVAL);
		return;
	}
	if (live_procs() >= MAX_PROCS) {
		answer(p, r, -STITCH_EAGAIN);
		return;
	}
	r->rdi = CLONE_VM | CLONE_FS | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
	r->rsi = sp;
	r->rdx = 0;	/* parent_tid, child_tid, tls: none */
	r->r10 = 0;
	r->r8 = 0;
	linux_call(p, r, __NR_clone, FIX_ERRNO);	/* the new tid */
}

/* The new thread t of creator's process, from the call's arguments
 * (creator is still in it). It starts at its first stop (thread_begin). */
void thread_init(struct proc *t, struct proc *creator)
{
	t->group = creator->group;
	t->start_ip = creator->entry.rdi;
	t->start_sp = creator->entry.rsi;
	t->clear_tid = creator->entry.rdx;
	memcpy(t->path, creator->path, sizeof(t->path));
	memset(&t->sig, 0, sizeof(t->sig));	/* nothing pending */
	memcpy(t->sig.action, creator->sig.action, sizeof(t->sig.action));
	t->sig.blocked = creator->sig.blocked;
}

/* At its first stop, where clone returned: the entry, the stack, and
 * registers and FPU as the kernel starts a thread with. */
void thread_begin(struct proc *t)
{
	struct user_regs_struct r;

	if (get_regs(t->pid, &r))
		return;
	r = (struct user_regs_struct){
		.rip = t->start_ip, .rsp = t->start_sp, .eflags = r.eflags,
		.orig_rax = (unsigned long)-1, .cs = r.cs, .ss = r.ss, .ds = r.ds,
		.es = r.es, .fs = r.fs, .gs = r.gs, .fs_base = r.fs_base, .gs_base = r.gs_base,
	};
	set_regs(t->pid, &r);
	fpu_initial(t->pid);
	t->start_ip = t->start_sp = 0;
	t->stitch = 1;
	t->stopped_early = 0;
	resume(t->pid, 0);
}

/* Zero the word and wake all its waiters, as the kernel does for a
 * joiner: a futex call of the leaving thread, the exit after it
 * (thread_exit_fixup). A word it cannot write is its own loss. */
static int clear_tid_word(struct proc *p, struct user_regs_struct *r)
{
	unsigned long word = p->clear_tid;
	uint32_t zero = 0;

	p->clear_tid = 0;
	if (!user_mapped(p->pid, word, sizeof(zero), 1) || poke(p->pid, word, &zero, sizeof(zero)))
		return 0;
	r->rdi = word;
	r->rsi = FUTEX_WAKE_PRIVATE;
	r->rdx = INT_MAX;
	linux_call(p, r, __NR_futex, FIX_CLEAR_TID);
	return 1;
}

/* thread_exit(status): decided here, one thread at a time, so exactly one
 * is the last; the others' exits leave the process running. */
void thread_exit_call(struct proc *p, struct user_regs_struct *r)
{
	if (p->clear_tid && clear_tid_word(p, r))
		return;
	p->thread_gone = 1;
	linux_call(p, r, live_threads(p->group) ? __NR_exit : __NR_exit_group, FIX_NONE);
}

/* The wake is done: step back onto the SYSCALL and make thread_exit again
 * (its arguments come back: keep_args); clear_tid is 0 now. */
void thread_exit_fixup(struct user_regs_struct *r)
{
	r->rip -= 2;	/* "syscall" is 0f 05 */
	r->rax = SYS_thread_exit;
}

/* futex(WAIT) with a timeout: Linux's relative struct timespec, on the
 * caller's stack (stack_scratch). 0 for none, 1 on no room. */
static unsigned long timeout_scratch(struct proc *p, struct user_regs_struct *r, uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
	unsigned long at;

	if (!ns)
		return 0;
	at = stack_scratch(p->pid, r, sizeof(ts));
	return at && !poke(p->pid, at, &ts, sizeof(ts)) ? at : 1;
}

/* sys_futex's checks, then Linux's futex on the same word. */
void futex_call(struct proc *p, struct user_regs_struct *r)
{
	long op = (long)r->rdi, val = (long)r->rdx;
	unsigned long word = r->rsi, timeout;

	if (word % 4 || !word || !in_user_range(word, 4) ||
	    (op != STITCH_FUTEX_WAIT && op != STITCH_FUTEX_WAKE) ||
	    (op == STITCH_FUTEX_WAKE && val < 0)) {
		answer(p, r, -STITCH_EINVAL);
		return;
	}
	r->rdi = word;
	if (op == STITCH_FUTEX_WAKE) {
		r->rsi = FUTEX_WAKE_PRIVATE;
		r->rdx = (unsigned long)(val > INT_MAX ? INT_MAX : val);
	} else {
		if ((timeout = timeout_scratch(p, r, r->r10)) == 1) {
			answer(p, r, -STITCH_EFAULT);
			return;
		}
		r->rsi = FUTEX_WAIT_PRIVATE;
		r->rdx = (uint32_t)val;
		r->r10 = timeout;
	}
	linux_call(p, r, __NR_futex, FIX_ERRNO);
}

/*
 * An exec event of p's process. Linux ends the other threads; an exec
 * from one of them gives that thread the pid, the first thread's, so
 * p's entry takes the state of the thread that made the call.
 */
void thread_exec(struct proc *p)
{
	unsigned long former;
	pid_t pid = p->pid;
	struct proc *t;

	if (ptrace(PTRACE_GETEVENTMSG, pid, 0, &former) == 0 && (pid_t)former != pid &&
	    (t = find_proc((pid_t)former))) {
		*p = *t;
		p->pid = pid;
		t->used = 0;	/* Linux reports no exit of the former tid */
	}
	p->group = p;
	p->thread_gone = 0;
	p->clear_tid = 0;
}
