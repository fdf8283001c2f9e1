/*
 * Threads: tasks that share their process's pid and address space
 * (docs/PROCESSES.md, "Threads"), and the futex their SDK synchronises
 * with.
 *
 * A thread starts where the SDK says, on the stack it allocated; it knows
 * no thread-local storage (the SDK finds its own data from the stack
 * pointer). The process is the group of tasks with one pid: its first
 * thread's tid. A thread that leaves while others run is freed at once
 * (the kernel reaps it); the last one to leave exits as the process,
 * with the wait status of today's exit.
 */
#include "kern/fs/file.h"
#include "kern/kernel.h"
#include "kern/lib/string.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/mm/uaccess.h"
#include "kern/mm/uvm.h"
#include "kern/profile/record.h"
#include "kern/proc/sched.h"
#include "kern/proc/syscall.h"
#include "kern/proc/task.h"
#include "kern/unwind/deferred.h"
#include "stitch/syscall.h"

static bool same_process(const struct task *a, const struct task *b)
{
	return a != b && a->pid == b->pid && a->state != TASK_FREE &&
	       a->state != TASK_ZOMBIE;
}

void thread_group_kill_locked(struct task *t, int wait_status)
{
	for (struct task *s = tasks; s < tasks + NPROC; s++) {
		if (!same_process(s, t) || s->kill_sig)
			continue;
		strlcpy(s->kill_reason, t->kill_reason, sizeof(s->kill_reason));
		s->kill_quiet = true;
		s->exit_status = wait_status;
		s->kill_sig = SIGKILL;
		task_set_pending(s, TIF_KILLED);
		task_kick_locked(s);
	}
}

/* Whether t's process has another thread that has not left. */
static bool others_alive(struct task *t)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	bool alive = false;
	for (struct task *s = tasks; s < tasks + NPROC && !alive; s++)
		alive = same_process(s, t) && !s->thread_gone;
	spin_unlock_irqrestore(&sched_lock, f);
	return alive;
}

#define EXEC_POLL_NS 1000000ull /* 1 ms */

int thread_exec_alone(struct task *t)
{
	if (!others_alive(t))
		return 0;
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	thread_group_kill_locked(t, SIGKILL);
	spin_unlock_irqrestore(&sched_lock, f);
	/* They leave at their next return towards ring 3, at once if they
	 * sleep: a few ticks at most. */
	while (others_alive(t)) {
		int err = sleep_until(clock_ns() + EXEC_POLL_NS);
		if (err)
			return err;
	}
	return 0;
}

/* A new task in current's process: a kernel stack, the shared address
 * space, copies of the descriptors. The tid, or -errno. */
static long thread_start(uint64_t entry, uint64_t sp, uint64_t clear_tid)
{
	struct task *me = current;
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	struct task *t = NULL;
	for (struct task *s = tasks; s < tasks + NPROC && !t; s++)
		if (s->state == TASK_FREE)
			t = s;
	if (t) {
		t->state = TASK_EMBRYO;
		t->pid = me->pid;
		t->tid = proc_new_id();
		t->parent = me->parent;
	}
	spin_unlock_irqrestore(&sched_lock, f);
	if (!t)
		return -STITCH_EAGAIN;
	uint64_t kstack = pmm_alloc_pages(KSTACK_PAGES);
	if (!kstack || unwind_task_init(t)) {
		if (kstack)
			pmm_free_pages(kstack, KSTACK_PAGES);
		f = spin_lock_irqsave(&sched_lock);
		unwind_task_free(t);
		memset(t, 0, sizeof(*t));
		spin_unlock_irqrestore(&sched_lock, f);
		return -STITCH_ENOMEM;
	}
	t->kstack = (uint64_t)p2v(kstack);
	t->kstack_top = t->kstack + KSTACK_SIZE;
	t->kbounds = (struct kstack){ t->kstack, t->kstack_top };
	uvm_get(me->mm);
	t->mm = me->mm;
	t->clear_tid = clear_tid;
	strlcpy(t->name, me->name, sizeof(t->name));
	fd_inherit(t, me);
	/* Handlers and mask as the creator's (POSIX: the mask is
	 * inherited); nothing pending, no interval timer. */
	f = spin_lock_irqsave(&sched_lock);
	memcpy(t->sig.action, me->sig.action, sizeof(t->sig.action));
	t->sig.blocked = me->sig.blocked;
	spin_unlock_irqrestore(&sched_lock, f);
	arch_task_init(&t->arch);
	arch_task_start_user(&t->arch, t->kstack_top, entry, sp, t->mm->compat);
	record_comm(t->pid, t->tid, t->parent ? t->parent->pid : 0, 0,
		    proc_base_name(t->name));
	long tid = t->tid;
	sched_add(t);
	return tid;
}

/* SYS_thread_spawn(entry, sp, clear_tid): the new thread starts at entry
 * with rsp = sp (the SDK puts its function and argument there). */
long sys_thread_spawn(const long *arg)
{
	uint64_t entry = arg[0], sp = arg[1], clear_tid = arg[2];
	if (!user_range_ok(entry, 1) || !entry || sp % 16 || !user_range_ok(sp - 1, 1) ||
	    (clear_tid && (clear_tid % 4 || !user_range_ok(clear_tid, 4))))
		return -STITCH_EINVAL;
	return thread_start(entry, sp, clear_tid);
}

long sys_thread_exit(const long *arg)
{
	task_exit(((int)arg[0] & 0xff) << 8);
}

long sys_gettid(const long *arg)
{
	(void)arg;
	return current->tid;
}

/* The joiner's word: zeroed and woken while the address space is still
 * this thread's (a bad address is the thread's own loss). */
static void clear_tid_word(struct task *t)
{
	if (t->clear_tid && !put_user_int(t->clear_tid, 0))
		futex_wake(t->mm, t->clear_tid, NPROC);
}

void thread_leave(struct task *t, int wait_status)
{
	clear_tid_word(t);
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	t->thread_gone = true;
	struct task *heir = NULL;
	for (struct task *s = tasks; s < tasks + NPROC && !heir; s++)
		if (same_process(s, t) && !s->thread_gone)
			heir = s;
	spin_unlock_irqrestore(&sched_lock, f);
	if (!heir)
		return;
	task_drop_resources(t);
	irq_disable();
	spin_lock(&sched_lock);
	/* Its children are the process's: another thread reaps them. */
	for (struct task *c = tasks; c < tasks + NPROC; c++)
		if (c->state != TASK_FREE && c->parent == t)
			c->parent = heir;
	record_exit(t->pid, t->tid, wait_status, EXIT_THREAD);
	proc_thread_gone_locked(t);
	sched_exit_locked();
}

/* The futex: a thread sleeps while the 32-bit word at uaddr holds val. The
 * word is read under sched_lock, which the waker takes too, so a wake
 * between the check and the sleep is not lost. A word that is not present
 * is faulted in with the lock off and read again, once. */
static long futex_wait(uint64_t uaddr, uint32_t val, uint64_t timeout_ns)
{
	struct task *t = current;
	uint64_t deadline = timeout_ns ? clock_ns() + MIN(timeout_ns, UINT64_MAX / 4) : 0;
	for (bool faulted_in = false;;) {
		irqflags_t f = spin_lock_irqsave(&sched_lock);
		uint32_t now;
		if (copy_from_user_nofault(&now, uaddr, sizeof(now))) {
			spin_unlock_irqrestore(&sched_lock, f);
			/* Gone again since it was faulted in (another thread
			 * unmaps it): a spurious -EAGAIN, which futex users
			 * retry in user mode, rather than a loop in here. */
			if (faulted_in)
				return -STITCH_EAGAIN;
			uint64_t word;
			if (get_user_u64(&word, uaddr & ~7ull))
				return -STITCH_EFAULT;
			faulted_in = true;
			continue;
		}
		long ret = 1;
		if (now != val)
			ret = -STITCH_EAGAIN;
		else if (deadline && clock_ns() >= deadline)
			ret = -STITCH_ETIMEDOUT;
		if (ret == 1) {
			t->futex_addr = uaddr;
			t->wake_ns = deadline;
			int err = sleep_on_locked(t->mm, &sched_lock);
			/* Woken (futex_wake cleared the word's address), killed
			 * or signalled, or else the deadline: look again. */
			ret = !t->futex_addr ? 0 : err ? err : 1;
			t->futex_addr = 0;
			t->wake_ns = 0;
		}
		spin_unlock_irqrestore(&sched_lock, f);
		if (ret != 1)
			return ret;
	}
}

long futex_wake(struct uvm *mm, uint64_t uaddr, long n)
{
	long woken = 0;
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	for (struct task *t = tasks; t < tasks + NPROC && woken < n; t++) {
		if (t->state != TASK_SLEEPING || t->chan != mm || t->futex_addr != uaddr)
			continue;
		t->futex_addr = 0; /* woken, not timed out */
		task_wake_locked(t);
		woken++;
	}
	spin_unlock_irqrestore(&sched_lock, f);
	return woken;
}

/* SYS_futex(op, uaddr, val, timeout_ns): FUTEX_WAIT sleeps while *uaddr
 * == val (0, -EAGAIN, -ETIMEDOUT, -EINTR); FUTEX_WAKE wakes up to val
 * waiters (how many). */
long sys_futex(const long *arg)
{
	uint64_t uaddr = arg[1];
	if (uaddr % 4 || !uaddr || !user_range_ok(uaddr, 4))
		return -STITCH_EINVAL;
	switch (arg[0]) {
	case STITCH_FUTEX_WAIT:
		return futex_wait(uaddr, (uint32_t)arg[2], (uint64_t)arg[3]);
	case STITCH_FUTEX_WAKE:
		return arg[2] < 0 ? -STITCH_EINVAL : futex_wake(current->mm, uaddr, arg[2]);
	default:
		return -STITCH_EINVAL;
	}
}
