/* Signal system calls: sigaction, sigprocmask, sigreturn, setitimer
 * (stitch/signal.h; kill is in sys_proc.c). */
#include <arch/signal.h>
#include "kern/kernel.h"
#include "kern/lib/spinlock.h"
#include "kern/mm/uaccess.h"
#include "kern/proc/sched.h"
#include "kern/proc/signal.h"
#include "kern/proc/syscall.h"
#include "kern/proc/task.h"
#include "kern/lib/stats.h"
#include "kern/unwind/deferred.h"
#include "stitch/syscall.h"

static bool valid(long sig)
{
	return sig > 0 && sig < STITCH_NSIG;
}

/* A new mask for current (what may be blocked of it), and the signal it
 * lets through, if one is pending; sched_lock held. */
static void set_blocked_locked(struct task *t, uint64_t mask)
{
	t->sig.blocked = mask & ~SIG_UNCATCHABLE;
	if (t->sig.pending & ~t->sig.blocked)
		task_set_pending(t, TIF_SIGNAL);
}

long sys_sigaction(const long *arg)
{
	struct task *t = current;
	int sig = (int)arg[0];
	struct stitch_sigaction act, old;
	if (!valid(arg[0]))
		return -STITCH_EINVAL;
	if (arg[1] && copy_from_user(&act, arg[1], sizeof(act)))
		return -STITCH_EFAULT;
	if (arg[1] && (SIG_BIT(sig) & SIG_UNCATCHABLE))
		return -STITCH_EINVAL;
	if (arg[1] && act.handler > STITCH_SIG_IGN && !signal_page_present())
		return -STITCH_ENOSYS;
	/* A handler the return to ring 3 could not jump to: an iret to a
	 * non-canonical rip faults in the kernel, not in the program. */
	if (arg[1] && act.handler >= USER_END)
		return -STITCH_EFAULT;
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	old = t->sig.action[sig];
	if (arg[1]) {
		act.pad = 0;
		t->sig.action[sig] = act;
		/* Ignoring a signal discards it if it is pending (POSIX). */
		if (act.handler == STITCH_SIG_IGN)
			__atomic_fetch_and(&t->sig.pending, ~SIG_BIT(sig), __ATOMIC_SEQ_CST);
	}
	spin_unlock_irqrestore(&sched_lock, f);
	return arg[2] ? copy_to_user(arg[2], &old, sizeof(old)) : 0;
}

long sys_sigprocmask(const long *arg)
{
	struct task *t = current;
	uint64_t set = 0, old;
	if (arg[1] && get_user_u64(&set, arg[1]))
		return -STITCH_EFAULT;
	if (arg[1] && arg[0] != STITCH_SIG_SETMASK && arg[0] != STITCH_SIG_BLOCK &&
	    arg[0] != STITCH_SIG_UNBLOCK)
		return -STITCH_EINVAL;
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	old = t->sig.blocked;
	if (arg[1])
		set_blocked_locked(t, arg[0] == STITCH_SIG_SETMASK ? set :
				      arg[0] == STITCH_SIG_BLOCK ? old | set : old & ~set);
	spin_unlock_irqrestore(&sched_lock, f);
	return arg[2] ? copy_to_user(arg[2], &old, sizeof(old)) : 0;
}

/*
 * From the signal page's trampoline, with rsp at the frame's info. A
 * frame that cannot be taken back (unreadable, a rip or rsp outside the
 * user range, an MXCSR the CPU refuses) kills the process: there is no
 * context left to return to. The result is the restored rax, which the
 * system-call return writes back where it was. The samples of this entry
 * were taken in the trampoline, over the signal frame: what they are owed
 * is that stack, unwound before the frame's registers replace it.
 */
long sys_sigreturn(const long *arg)
{
	(void)arg;
	struct task *t = current;
	struct trap_frame *tf = task_user_frame(t);
	uint64_t blocked;
	unwind_deferred_settle(t);
	if (arch_sigreturn(tf, &blocked)) {
		stat_inc(STAT_SIGRETURN_REFUSED);
		task_kill(t, SIGSEGV, "sigreturn: bad signal frame", tf->rip, tf->rsp);
		return (long)tf->rax;
	}
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	set_blocked_locked(t, blocked);
	spin_unlock_irqrestore(&sched_lock, f);
	return (long)tf->rax;
}

long sys_setitimer(const long *arg)
{
	struct task *t = current;
	struct stitch_itimerval v, old;
	if (arg[0] != STITCH_ITIMER_REAL)
		return -STITCH_EINVAL;
	if (arg[1] && copy_from_user(&v, arg[1], sizeof(v)))
		return -STITCH_EFAULT;
	/* Beyond a year is a programming error, not a timer. */
	if (arg[1] && (v.value_us > 365ull * 86400 * 1000000 ||
		       v.interval_us > 365ull * 86400 * 1000000))
		return -STITCH_EINVAL;
	uint64_t now = clock_ns();
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	struct signals *s = &t->sig;
	old.value_us = s->itimer_next_ns ? (MAX(s->itimer_next_ns, now) - now + 999) / 1000 : 0;
	old.interval_us = s->itimer_interval_ns / 1000;
	if (arg[1]) {
		s->itimer_next_ns = v.value_us ? now + v.value_us * 1000 : 0;
		s->itimer_interval_ns = v.value_us ? v.interval_us * 1000 : 0;
	}
	spin_unlock_irqrestore(&sched_lock, f);
	return arg[2] ? copy_to_user(arg[2], &old, sizeof(old)) : 0;
}
