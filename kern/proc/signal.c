/*
 * Signals: sending, delivery on the return-to-user path, the interval
 * timer, and the signal page (kern/proc/signal.h; docs/PROCESSES.md,
 * "Signals"). The system calls are in kern/proc/sys_signal.c.
 */
#include "kern/proc/signal.h"
#include <arch/arch.h>
#include <arch/signal.h>
#include "kern/fs/initrd.h"
#include "kern/kernel.h"
#include "kern/lib/console.h"
#include "kern/lib/spinlock.h"
#include "kern/mm/uvm.h"
#include "kern/proc/elf.h"
#include "kern/proc/sched.h"
#include "kern/proc/task.h"
#include "kern/profile/record.h"
#include "kern/lib/stats.h"
#include "kern/unwind/deferred.h"

static struct elf_image sigpage;
static struct initrd_file sigpage_file;
static bool have_page;

void signal_init(void)
{
	if (initrd_lookup("/lib/sigpage", &sigpage_file) ||
	    elf_parse(sigpage_file.data, sigpage_file.size, &sigpage) ||
	    sigpage.loads[sigpage.text].vaddr != STITCH_SIGPAGE_ADDR) {
		kprintf("signal: no usable /lib/sigpage in the initrd: handlers are refused "
			"(ENOSYS), default actions only\n");
		return;
	}
	have_page = true;
}

bool signal_page_present(void)
{
	return have_page;
}

/* A compat program gets no signal page: it cannot install a handler
 * (docs/PROCESSES.md, "32-bit programs"), and all it has lies below
 * 4 GiB. */
static bool gets_page(const struct uvm *mm)
{
	return have_page && !mm->compat;
}

int signal_map_page(struct uvm *mm)
{
	return gets_page(mm) ? elf_map_image(mm, &sigpage, sigpage_file.name) : 0;
}

void signal_record_page(const struct task *t)
{
	if (!gets_page(t->mm))
		return;
	const struct elf_segment *text = &sigpage.loads[sigpage.text];
	record_mmap(t->pid, t->tid, text->vaddr, text->memsz, text->offset, 0,
		    sigpage.build_id, sigpage.build_id_size, "/lib/sigpage");
}

/* What a signal does with no handler: nothing for these, as POSIX has it
 * (SIGCONT continues, which is nothing here: nothing stops); the others
 * end the process (SIGSTOP too: there is no job control). */
static bool ignored_by_default(int sig)
{
	return sig == SIGURG || sig == SIGCONT || sig == SIGCHLD || sig == SIGWINCH;
}

static bool ignored(const struct task *t, int sig)
{
	uint64_t h = t->sig.action[sig].handler;
	return h == STITCH_SIG_IGN || (h == STITCH_SIG_DFL && ignored_by_default(sig));
}

void signal_send_locked(struct task *t, int sig, int code, int sender)
{
	uint64_t bit = SIG_BIT(sig);
	if (t->state == TASK_ZOMBIE || t->state == TASK_FREE)
		return;
	/* POSIX discards an ignored signal at once, unless it is blocked
	 * (the action may change before it is unblocked). */
	if (ignored(t, sig) && !(t->sig.blocked & bit)) {
		stat_inc(STAT_SIGNALS_IGNORED);
		return;
	}
	/* Not queued: a second one while the first is pending is the same. */
	t->sig.info[sig] = (struct stitch_siginfo){ .signo = sig, .code = code,
						    .pid = sender };
	__atomic_fetch_or(&t->sig.pending, bit, __ATOMIC_SEQ_CST);
	stat_inc(STAT_SIGNALS_SENT);
	if (!(t->sig.blocked & bit)) {
		task_set_pending(t, TIF_SIGNAL);
		task_kick_locked(t);
	}
}

/* The default action of a signal that ends the process: a kill, with
 * the reason of today's kill report. */
static void kill_by(struct task *t, const struct stitch_siginfo *info)
{
	char reason[48];
	if (info->code == STITCH_SI_TIMER)
		ksnprintf(reason, sizeof(reason), "signal %d (interval timer)", info->signo);
	else
		ksnprintf(reason, sizeof(reason), "kill(%d) by pid %d", info->signo, info->pid);
	task_kill(t, info->signo, reason, 0, 0);
}

void signal_deliver(struct task *t, struct trap_frame *tf)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	task_clear_pending(t, TIF_SIGNAL);
	uint64_t ready = t->sig.pending & ~t->sig.blocked;
	if (!ready) {
		spin_unlock_irqrestore(&sched_lock, f);
		return;
	}
	int sig = __builtin_ctzll(ready) + 1;
	__atomic_fetch_and(&t->sig.pending, ~SIG_BIT(sig), __ATOMIC_SEQ_CST);
	if (ready & ~SIG_BIT(sig))
		task_set_pending(t, TIF_SIGNAL); /* the next one, on the next turn */
	struct stitch_sigaction a = t->sig.action[sig];
	struct stitch_siginfo info = t->sig.info[sig];
	uint64_t old_blocked = t->sig.blocked;
	bool ignore = ignored(t, sig);
	bool handler = !ignore && a.handler != STITCH_SIG_DFL;
	if (handler) {
		if (a.flags & STITCH_SA_RESETHAND)
			t->sig.action[sig].handler = STITCH_SIG_DFL;
		t->sig.blocked |= (a.mask | (a.flags & STITCH_SA_NODEFER ? 0 : SIG_BIT(sig))) &
				  ~SIG_UNCATCHABLE;
	}
	spin_unlock_irqrestore(&sched_lock, f);

	if (ignore)
		return;
	if (!handler) {
		kill_by(t, &info);
		return;
	}
	/* The frame rewrites the user registers: what this entry owes the
	 * profiler is the stack where the program was, unwound now. */
	unwind_deferred_settle(t);
	if (arch_signal_frame(tf, a.handler, STITCH_SIGPAGE_TRAMPOLINE, &info, old_blocked)) {
		stat_inc(STAT_SIGNAL_FRAME_REFUSED);
		task_kill(t, SIGSEGV, "no room for a signal frame", tf->rip, tf->rsp);
		return;
	}
	stat_inc(STAT_SIGNALS_DELIVERED);
}

void signal_exec(struct task *t)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	for (int sig = 1; sig < STITCH_NSIG; sig++)
		if (t->sig.action[sig].handler != STITCH_SIG_IGN)
			t->sig.action[sig] = (struct stitch_sigaction){ 0 };
	spin_unlock_irqrestore(&sched_lock, f);
}

void signal_tick_locked(struct task *t, uint64_t now)
{
	struct signals *s = &t->sig;
	if (!s->itimer_next_ns || now < s->itimer_next_ns)
		return;
	/* A late tick does not pile up signals: one now, the next a period
	 * on (from now, when the schedule is more than a period behind). */
	uint64_t next = s->itimer_next_ns + s->itimer_interval_ns;
	s->itimer_next_ns = !s->itimer_interval_ns ? 0 :
			    next > now ? next : now + s->itimer_interval_ns;
	signal_send_locked(t, SIGALRM, STITCH_SI_TIMER, 0);
}
