/*
 * Signals under stitch-usim: the tracer keeps each process's Stitch
 * signal state (struct sigstate) and delivers the signals itself, as
 * kern/proc/signal.c and arch/x86_64/signal.c do (docs/PROCESSES.md,
 * "Signals"; docs/USERLAND.md, "stitch-usim").
 *
 * Linux only carries them. kill(pid, sig) becomes a Linux real-time
 * signal LINUX_SIG_BASE + sig, which has no meaning of its own and tells
 * the sender's pid; the interval timer is Linux's, whose SIGALRM (14) is
 * Stitch's too. When the target stops for such a signal, the tracer
 * suppresses it and does what the kernel does on the way back to ring 3:
 * a blocked signal waits, an ignored one goes, a default action kills,
 * a handler gets a struct stitch_sigframe on the stack. Its trampoline
 * is /lib/sigpage's, which the tracer maps at STITCH_SIGPAGE_ADDR when the
 * first handler is installed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <unistd.h>
#include <asm/unistd.h>
#include <stitch/syscall.h>
#include "usim.h"

/* Linux's first real-time signal (the kernel's, not glibc's SIGRTMIN):
 * Stitch signal s travels as LINUX_SIG_BASE + s, at most 63. */
#define LINUX_SIG_BASE 32

/* newlib's numbers (the SDK's) of the signals the kernel treats apart. */
#define S_SIGKILL  9
#define S_SIGSEGV  11
#define S_SIGALRM  14
#define S_SIGURG   16
#define S_SIGSTOP  17
#define S_SIGCONT  19
#define S_SIGCHLD  20
#define S_SIGWINCH 28

#define SIG_BIT(sig)    (1ull << ((sig) - 1))
#define SIG_UNCATCHABLE (SIG_BIT(S_SIGKILL) | SIG_BIT(S_SIGSTOP))

#define RFLAGS_IF        (1ull << 9)
#define RFLAGS_DF        (1ull << 10)
#define MAX_YEAR_US      (365ull * 86400 * 1000000)
#define MAX_SIGPAGE      (4 * PAGE)

/* /lib/sigpage's loadable bytes, read once at start (whole words, for
 * PTRACE_POKEDATA); without them handlers are refused, as by the kernel. */
static uint64_t sigpage[MAX_SIGPAGE / 8];
static size_t sigpage_size;

/* ---- the signal page ---- */

/* The PT_LOAD of ROOT/lib/sigpage that is linked at STITCH_SIGPAGE_ADDR. */
static int sigpage_segment(Elf *elf, GElf_Phdr *ph)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, ph) && ph->p_type == PT_LOAD &&
		    ph->p_vaddr == STITCH_SIGPAGE_ADDR)
			return 0;
	return -1;
}

int sigpage_load(const char *root)
{
	char path[4096];
	GElf_Phdr ph;
	size_t size;
	char *raw;
	Elf *elf;
	int fd, err = -1;

	snprintf(path, sizeof(path), "%s/lib/sigpage", root);
	elf_version(EV_CURRENT);
	if ((fd = open(path, O_RDONLY)) < 0)
		goto out;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	raw = elf ? elf_rawfile(elf, &size) : NULL;
	if (raw && sigpage_segment(elf, &ph) == 0 && ph.p_filesz <= ph.p_memsz &&
	    ph.p_memsz <= MAX_SIGPAGE && ph.p_offset + ph.p_filesz <= size) {
		memcpy(sigpage, raw + ph.p_offset, ph.p_filesz);
		sigpage_size = ph.p_memsz;
		err = 0;
	}
	elf_end(elf);
	close(fd);
out:
	if (err)
		fprintf(stderr, "usim: no usable %s: handlers are refused (ENOSYS), "
			"default actions only\n", path);
	return err;
}

/* At sigaction's entry: make the call an mmap of the page's place. */
static void map_sigpage(struct proc *p, struct user_regs_struct *r)
{
	r->rdi = STITCH_SIGPAGE_ADDR;
	r->rsi = (sigpage_size + PAGE - 1) & ~(PAGE - 1);
	r->rdx = PROT_READ | PROT_EXEC;
	r->r10 = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE;
	r->r8 = (unsigned long)-1;
	r->r9 = 0;
	linux_call(p, r, __NR_mmap, FIX_SIGPAGE);
}

/* At its exit: the bytes, by POKEDATA, which may write a read-only page. */
static int fill_sigpage(struct proc *p, long mapped)
{
	if (mapped != (long)STITCH_SIGPAGE_ADDR) {
		fprintf(stderr, "usim: pid %d: cannot map the signal page at %#lx: %ld\n",
			p->pid, (unsigned long)STITCH_SIGPAGE_ADDR, mapped);
		return -1;
	}
	for (size_t i = 0; i < (sigpage_size + 7) / 8; i++)
		if (ptrace(PTRACE_POKEDATA, p->pid, STITCH_SIGPAGE_ADDR + 8 * i, sigpage[i]))
			return -1;
	p->group->sigpage_mapped = 1;
	return 0;
}

/* ---- sending ---- */

static int ignored_by_default(int sig)
{
	return sig == S_SIGURG || sig == S_SIGCONT || sig == S_SIGCHLD || sig == S_SIGWINCH;
}

static int ignored(const struct sigstate *s, int sig)
{
	uint64_t h = s->action[sig].handler;

	return h == STITCH_SIG_IGN || (h == STITCH_SIG_DFL && ignored_by_default(sig));
}

/* signal_send_locked: an ignored signal goes unless blocked; one of each
 * is pending, not a queue. */
static void post(struct proc *p, int sig, int code, int sender)
{
	struct sigstate *s = &p->sig;

	if (ignored(s, sig) && !(s->blocked & SIG_BIT(sig)))
		return;
	s->info[sig] = (struct stitch_siginfo){ .signo = sig, .code = code, .pid = sender };
	s->pending |= SIG_BIT(sig);
}

/* Only our own processes: a pid of the host must never be signalled. */
void kill_call(struct proc *p, struct user_regs_struct *r)
{
	struct proc *target = find_proc((pid_t)r->rdi);
	long sig = (long)r->rsi;

	if (sig < 0 || sig >= STITCH_NSIG)
		answer(p, r, -STITCH_EINVAL);
	else if ((long)r->rdi <= 0 || !target)
		answer(p, r, -STITCH_ESRCH);
	else if (sig == 0)	/* only whether pid is there (POSIX) */
		answer(p, r, 0);
	else {	/* to the task named, not whichever thread Linux would pick */
		r->rdx = sig == S_SIGKILL ? SIGKILL : (unsigned long)(LINUX_SIG_BASE + sig);
		r->rsi = (unsigned long)target->pid;
		r->rdi = (unsigned long)target->group->pid;
		linux_call(p, r, __NR_tgkill, FIX_ERRNO);
	}
}

/* ---- ending a process ---- */

/* Linux ends a process for signal sig by default (its numbers). */
static int linux_terminates(int sig)
{
	return sig != SIGCHLD && sig != SIGCONT && sig != SIGSTOP && sig != SIGTSTP &&
	       sig != SIGTTIN && sig != SIGTTOU && sig != SIGURG && sig != SIGWINCH;
}

/*
 * The kernel's task_kill: the wait status names sig. Linux makes that
 * status only by delivering the signal of that number, so the tracer
 * sends it and lets it through at its stop (signal_stop). Where Linux's
 * default for that number does not end a process (newlib's SIGSTOP,
 * SIGTSTP, SIGTTIN, SIGTTOU, SIGIO are Linux's SIGCHLD, SIGCONT, SIGTTIN,
 * SIGTTOU, SIGURG), SIGKILL ends it instead, and the report says so.
 */
static void die(struct proc *p, int sig, const char *why)
{
	int lsig = linux_terminates(sig) ? sig : SIGKILL;

	fprintf(stderr, "usim: pid %d (%s) killed: signal %d (%s) status %d%s\n", p->pid,
		p->path, sig, why, 128 + lsig,
		lsig != sig ? ": Linux has no such default, sent SIGKILL" : "");
	/* The whole process goes: its first thread, reported last, says no more. */
	p->sig.dying = p->group->sig.dying = lsig;
	tgkill(p->group->pid, p->pid, lsig);
}

/* ---- delivery ---- */

static void save_regs(const struct user_regs_struct *r, struct stitch_sigcontext *sc)
{
	*sc = (struct stitch_sigcontext){
		.r8 = r->r8, .r9 = r->r9, .r10 = r->r10, .r11 = r->r11,
		.r12 = r->r12, .r13 = r->r13, .r14 = r->r14, .r15 = r->r15,
		.rdi = r->rdi, .rsi = r->rsi, .rbx = r->rbx, .rdx = r->rdx,
		.rax = r->rax, .rcx = r->rcx, .rflags = r->eflags,
		.rsp = r->rsp, .rbp = r->rbp, .rip = r->rip,
	};
}

static void load_regs(struct user_regs_struct *r, const struct stitch_sigcontext *sc)
{
	r->r8 = sc->r8, r->r9 = sc->r9, r->r10 = sc->r10, r->r11 = sc->r11;
	r->r12 = sc->r12, r->r13 = sc->r13, r->r14 = sc->r14, r->r15 = sc->r15;
	r->rdi = sc->rdi, r->rsi = sc->rsi, r->rbx = sc->rbx, r->rdx = sc->rdx;
	r->rax = sc->rax, r->rcx = sc->rcx;
	r->eflags = (r->eflags & ~STITCH_SIGRETURN_RFLAGS) |
		    (sc->rflags & STITCH_SIGRETURN_RFLAGS) | RFLAGS_IF;
	r->rsp = sc->rsp, r->rbp = sc->rbp, r->rip = sc->rip;
}

/* The FPU state a handler or a new thread starts with: x87 stack empty,
 * default control words. 0, or -1 if ptrace refused. */
int fpu_initial(pid_t pid)
{
	struct user_fpregs_struct fp, initial = { .cwd = 0x37f, .mxcsr = 0x1f80 };

	if (ptrace(PTRACE_GETFPREGS, pid, 0, &fp))
		return -1;
	initial.mxcr_mask = fp.mxcr_mask;
	return ptrace(PTRACE_SETFPREGS, pid, 0, &initial) ? -1 : 0;
}

/* arch_signal_frame: the frame below the red zone at 16n + 8, the
 * registers pointed at the handler; 0, or -1 if the stack cannot take it.
 * The interrupted FPU state goes into the frame and the handler starts
 * with the initial one, as the kernel does. */
static int push_frame(struct proc *p, struct user_regs_struct *r, int sig, uint64_t blocked)
{
	struct stitch_sigframe f;
	struct user_fpregs_struct fp;
	unsigned long at = ((r->rsp - RED_ZONE - sizeof(f)) & ~15UL) - 8;

	_Static_assert(sizeof(fp) == sizeof(f.fpu), "FXSAVE image");
	if (r->rsp > USER_TOP || at >= r->rsp || ptrace(PTRACE_GETFPREGS, p->pid, 0, &fp))
		return -1;
	memset(&f, 0, sizeof(f));
	f.restorer = STITCH_SIGPAGE_TRAMPOLINE;
	f.info = p->sig.info[sig];
	save_regs(r, &f.sc);
	f.sc.blocked = blocked;
	memcpy(f.fpu, &fp, sizeof(f.fpu));
	if (!user_mapped(p->pid, at, sizeof(f), 1) || poke(p->pid, at, &f, sizeof(f)) ||
	    fpu_initial(p->pid))
		return -1;
	r->rip = p->sig.action[sig].handler;
	r->rdi = (unsigned long)sig;
	r->rsi = at + STITCH_SIGFRAME_INFO;
	r->rdx = at + STITCH_SIGFRAME_SC;
	r->rsp = at;
	r->eflags &= ~RFLAGS_DF;	/* as the ABI wants at a call */
	r->orig_rax = (unsigned long)-1;	/* no system call to restart */
	return 0;
}

/* signal_deliver: the lowest deliverable signal; 1 if another may follow. */
static int deliver_one(struct proc *p, struct user_regs_struct *r)
{
	struct sigstate *s = &p->sig;
	uint64_t ready = s->pending & ~s->blocked, old = s->blocked;
	int sig;

	if (!ready)
		return 0;
	sig = __builtin_ctzll(ready) + 1;
	s->pending &= ~SIG_BIT(sig);
	if (ignored(s, sig))
		return 1;
	if (s->action[sig].handler == STITCH_SIG_DFL) {
		die(p, sig, s->info[sig].code == STITCH_SI_TIMER ? "interval timer" : "kill");
		return 0;
	}
	if (push_frame(p, r, sig, old)) {
		die(p, S_SIGSEGV, "no room for a signal frame");
		return 0;
	}
	s->blocked |= (s->action[sig].mask |
		       (s->action[sig].flags & STITCH_SA_NODEFER ? 0 : SIG_BIT(sig))) &
		      ~SIG_UNCATCHABLE;
	if (s->action[sig].flags & STITCH_SA_RESETHAND)
		s->action[sig].handler = STITCH_SIG_DFL;
	return 1;
}

/* What the kernel does last on the way back to ring 3: every deliverable
 * signal, each frame on the previous one (the last runs first). */
void signal_return_to_user(struct proc *p, struct user_regs_struct *r)
{
	while (!p->sig.dying && deliver_one(p, r))
		;
}

/*
 * A call that Linux interrupted for the signal and would restart returns
 * -EINTR instead when a Stitch signal is deliverable (there is no
 * SA_RESTART); otherwise Linux restarts it, as the kernel sleeps on.
 */
static void interrupt_call(struct proc *p, struct user_regs_struct *r)
{
	if (!p->restarting || !linux_restarts((long)r->rax) ||
	    !(p->sig.pending & ~p->sig.blocked))
		return;
	p->restarting = 0;
	r->rax = (unsigned long)-STITCH_EINTR;
	r->orig_rax = (unsigned long)-1;
	keep_args(p, r);	/* the call returns: with the arguments it came with */
}

/* The Stitch signal a Linux one carries, or 0; its siginfo code, sender. */
static int stitch_signal(struct proc *p, int lsig, int *code, int *sender)
{
	siginfo_t si;

	if (lsig == SIGALRM) {
		*code = STITCH_SI_TIMER;
		*sender = 0;
		return S_SIGALRM;
	}
	if (lsig <= LINUX_SIG_BASE || lsig >= LINUX_SIG_BASE + STITCH_NSIG)
		return 0;
	*code = STITCH_SI_USER;
	*sender = ptrace(PTRACE_GETSIGINFO, p->pid, 0, &si) == 0 ? si.si_pid : 0;
	return lsig - LINUX_SIG_BASE;
}

/*
 * A signal-delivery stop for Linux signal lsig: the signal to let
 * through (0: none). SIGPIPE and SIGCHLD mean nothing to Stitch
 * programs (a write to a closed pipe says EPIPE, a parent learns of its
 * child by wait), so they go.
 */
int signal_stop(struct proc *p, int lsig)
{
	struct user_regs_struct r;
	int sig, code, sender;

	if (p->sig.dying)
		return lsig == p->sig.dying ? lsig : 0;
	if (lsig == SIGPIPE || lsig == SIGCHLD)
		return 0;
	if (!(sig = stitch_signal(p, lsig, &code, &sender)))
		return lsig;
	post(p, sig, code, sender);
	if (p->stitch && !p->exec_pending && get_regs(p->pid, &r) == 0) {
		interrupt_call(p, &r);
		signal_return_to_user(p, &r);
		set_regs(p->pid, &r);
	}
	return 0;
}

/* exec: caught signals back to the default; mask, pending, timer stay. */
void signal_exec(struct proc *p)
{
	for (int sig = 1; sig < STITCH_NSIG; sig++)
		if (p->sig.action[sig].handler != STITCH_SIG_IGN)
			p->sig.action[sig] = (struct stitch_sigaction){ 0 };
	p->group->sigpage_mapped = 0;
}

/* ---- the system calls ---- */

static long read_action(struct proc *p, long sig, unsigned long uact,
			struct stitch_sigaction *act)
{
	if (sig <= 0 || sig >= STITCH_NSIG)
		return -STITCH_EINVAL;
	if (!uact)
		return 0;
	if (!user_mapped(p->pid, uact, sizeof(*act), 0) || peek(p->pid, uact, act, sizeof(*act)))
		return -STITCH_EFAULT;
	if (SIG_BIT(sig) & SIG_UNCATCHABLE)
		return -STITCH_EINVAL;
	if (act->handler > STITCH_SIG_IGN && !sigpage_size)
		return -STITCH_ENOSYS;
	/* As the kernel: a handler a return to ring 3 could not jump to. */
	if (act->handler >= USER_TOP)
		return -STITCH_EFAULT;
	return 0;
}

static long put_user(struct proc *p, unsigned long uaddr, const void *v, size_t len)
{
	if (!uaddr)
		return 0;
	if (!user_mapped(p->pid, uaddr, len, 1) || poke(p->pid, uaddr, v, len))
		return -STITCH_EFAULT;
	return 0;
}

/* sys_sigaction, on the registers the call came with. */
static long sys_sigaction(struct proc *p, const struct user_regs_struct *r)
{
	struct stitch_sigaction act, old;
	long sig = (long)r->rdi, err = read_action(p, sig, r->rsi, &act);

	if (err)
		return err;
	old = p->sig.action[sig];
	if (r->rsi) {
		act.pad = 0;
		p->sig.action[sig] = act;
		if (act.handler == STITCH_SIG_IGN)	/* discards it if pending (POSIX) */
			p->sig.pending &= ~SIG_BIT(sig);
	}
	return put_user(p, r->rdx, &old, sizeof(old));
}

/* A handler needs the trampoline: the first one maps it (FIX_SIGPAGE). */
void sigaction_call(struct proc *p, struct user_regs_struct *r)
{
	struct stitch_sigaction act;
	long err = read_action(p, (long)r->rdi, r->rsi, &act);

	if (!err && r->rsi && act.handler > STITCH_SIG_IGN && !p->group->sigpage_mapped)
		map_sigpage(p, r);
	else
		answer(p, r, err ? err : sys_sigaction(p, r));
}

void sigprocmask_call(struct proc *p, struct user_regs_struct *r)
{
	struct sigstate *s = &p->sig;
	uint64_t set = 0, old = s->blocked;
	long how = (long)r->rdi;

	if (r->rsi && (!user_mapped(p->pid, r->rsi, 8, 0) || peek(p->pid, r->rsi, &set, 8))) {
		answer(p, r, -STITCH_EFAULT);
		return;
	}
	if (r->rsi && how != STITCH_SIG_SETMASK && how != STITCH_SIG_BLOCK &&
	    how != STITCH_SIG_UNBLOCK) {
		answer(p, r, -STITCH_EINVAL);
		return;
	}
	if (r->rsi)
		s->blocked = (how == STITCH_SIG_SETMASK ? set :
			      how == STITCH_SIG_BLOCK ? old | set : old & ~set) & ~SIG_UNCATCHABLE;
	/* What it unblocked is delivered at its exit (signal_return_to_user). */
	answer(p, r, put_user(p, r->rdx, &old, sizeof(old)));
}

static void to_timeval(uint64_t us, struct timeval *tv)
{
	tv->tv_sec = (time_t)(us / 1000000);
	tv->tv_usec = (suseconds_t)(us % 1000000);
}

/* Linux's setitimer (or getitimer, as a NULL new value would disarm),
 * with its struct itimervals on the caller's stack (stack_scratch). */
void setitimer_call(struct proc *p, struct user_regs_struct *r)
{
	struct stitch_itimerval v;
	struct itimerval lv[2] = { 0 };
	unsigned long at = stack_scratch(p->pid, r, sizeof(lv));

	if (r->rdi != STITCH_ITIMER_REAL) {
		answer(p, r, -STITCH_EINVAL);
		return;
	}
	if (r->rsi && (!user_mapped(p->pid, r->rsi, sizeof(v), 0) ||
		       peek(p->pid, r->rsi, &v, sizeof(v)))) {
		answer(p, r, -STITCH_EFAULT);
		return;
	}
	if (r->rsi && (v.value_us > MAX_YEAR_US || v.interval_us > MAX_YEAR_US)) {
		answer(p, r, -STITCH_EINVAL);
		return;
	}
	if (r->rsi) {
		to_timeval(v.value_us, &lv[0].it_value);
		to_timeval(v.value_us ? v.interval_us : 0, &lv[0].it_interval);
	}
	if (!at || poke(p->pid, at, lv, sizeof(lv))) {
		answer(p, r, -STITCH_EFAULT);
		return;
	}
	p->sig.scratch = at;
	r->rdi = ITIMER_REAL;
	if (r->rsi) {
		r->rsi = at;
		r->rdx = at + sizeof(lv[0]);
		linux_call(p, r, __NR_setitimer, FIX_ITIMER);
	} else {
		r->rsi = at + sizeof(lv[0]);
		linux_call(p, r, __NR_getitimer, FIX_ITIMER);
	}
}

static uint64_t usec(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000 + (uint64_t)tv->tv_usec;
}

/* setitimer's exit: the old value in Stitch's terms, if asked for. */
static long itimer_done(struct proc *p, long ret)
{
	struct itimerval lold;
	struct stitch_itimerval old;

	if (ret < 0)
		return -newlib_errno(-ret);
	if (peek(p->pid, p->sig.scratch + sizeof(lold), &lold, sizeof(lold)))
		return -STITCH_EFAULT;
	old.value_us = usec(&lold.it_value);
	old.interval_us = usec(&lold.it_interval);
	/* Linux rearms a periodic timer when the tracee takes its SIGALRM;
	 * until then it reads 0, as if disarmed. It is due: 1 us, as Linux
	 * says of a timer whose time has come. */
	if (!old.value_us && old.interval_us)
		old.value_us = 1;
	return put_user(p, p->entry.rdx, &old, sizeof(old));
}

/* sigreturn is answered at its exit stop, where the registers are set. */
void sigreturn_call(struct proc *p, struct user_regs_struct *r)
{
	r->orig_rax = (unsigned long)-1;
	p->fix = FIX_SIGRETURN;
}

/* arch_sigreturn's checks: 0, or -1 for a frame there is no returning to. */
static int read_frame(struct proc *p, unsigned long rsp, struct stitch_sigframe *f)
{
	struct user_fpregs_struct fp;
	unsigned long at = rsp - STITCH_SIGFRAME_INFO;
	uint32_t mxcsr, mask;

	if (at > rsp || !user_mapped(p->pid, at, sizeof(*f), 0) ||
	    peek(p->pid, at, f, sizeof(*f)))
		return -1;
	if (f->sc.rip >= USER_TOP || f->sc.rsp > USER_TOP)
		return -1;
	/* The CPU's MXCSR_MASK decides, as FXRSTOR would fault on the rest. */
	if (ptrace(PTRACE_GETFPREGS, p->pid, 0, &fp))
		return -1;
	mask = fp.mxcr_mask ? fp.mxcr_mask : 0xffbf;
	memcpy(&mxcsr, f->fpu + STITCH_FPU_MXCSR, 4);
	return mxcsr & ~mask ? -1 : 0;
}

static void sigreturn_done(struct proc *p, struct user_regs_struct *r)
{
	struct stitch_sigframe f;

	if (read_frame(p, r->rsp, &f) ||
	    ptrace(PTRACE_SETFPREGS, p->pid, 0, (struct user_fpregs_struct *)(void *)f.fpu)) {
		die(p, S_SIGSEGV, "sigreturn: bad signal frame");
		return;
	}
	load_regs(r, &f.sc);
	r->orig_rax = (unsigned long)-1;
	p->sig.blocked = f.sc.blocked & ~SIG_UNCATCHABLE;
}

/* The exit stop of the calls above. */
void signal_fixup(struct proc *p, struct user_regs_struct *r)
{
	switch (p->fix) {
	case FIX_SIGPAGE:	/* sys_sigaction reads the arguments it came with */
		r->rdi = p->entry.rdi, r->rsi = p->entry.rsi, r->rdx = p->entry.rdx;
		r->rax = (unsigned long)(fill_sigpage(p, (long)r->rax) ? -STITCH_ENOSYS :
					 sys_sigaction(p, r));
		return;
	case FIX_ITIMER:
		r->rax = (unsigned long)itimer_done(p, (long)r->rax);
		return;
	case FIX_SIGRETURN:
		sigreturn_done(p, r);
		return;
	default:
		return;
	}
}
