/*
 * t-signal: signals delivered to handlers (docs/PROCESSES.md, "Signals").
 *
 *   - raise and kill(getpid()) run the handler with its signal, the
 *     siginfo (SI_USER, the sender's pid) and the sigcontext;
 *   - the interrupted registers come back whole after a handler that
 *     clobbers them: every general register (callee-saved ones too),
 *     xmm0, xmm8 and xmm15, the direction flag and MXCSR;
 *   - sigprocmask holds a signal back until it is unblocked, and then it
 *     is delivered before sigprocmask returns; a handler runs with its own
 *     signal and sa_mask blocked, and the mask comes back after it;
 *   - SA_RESETHAND, SA_NODEFER (a handler that raises its own signal),
 *     SIG_IGN, a default action that ignores (SIGCHLD) and one that kills
 *     (a child's SIGTERM: WTERMSIG 15);
 *   - setitimer delivers SIGALRM again and again, getitimer reads it,
 *     alarm(0) disarms; a signal ends a sleep early (sleep returns what
 *     was left, usleep fails with EINTR);
 *   - another process's kill() reaches the handler (and may end the
 *     parent's waitpid with EINTR);
 *   - sigaction refuses SIGKILL, SIGSTOP, 0 and 32, and a handler
 *     outside the user range (EFAULT), keeping the action it had.
 * "t-signal child PPID" is the child that signals its parent.
 */
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>
#include <stitch/signal.h>
#include "check.h"

#define SELF "/bin/t-signal"

static volatile int hits[STITCH_NSIG];
static volatile int last_code, last_pid, last_signo;
static volatile uint64_t blocked_inside;

static void count(int sig)
{
	hits[sig]++;
}

static void with_info(int sig, siginfo_t *info, void *uc)
{
	hits[sig]++;
	last_signo = info->si_signo;
	last_code = info->si_code;
	last_pid = ((struct stitch_siginfo *)info)->pid;
	/* The sigcontext: the interrupted rip lies in this program. */
	if (((struct stitch_sigcontext *)uc)->rip < 0x400000)
		last_code = -1;
	sigprocmask(SIG_BLOCK, NULL, (sigset_t *)&blocked_inside);
}

static int install(int sig, void (*fn)(int), int flags, sigset_t mask)
{
	struct sigaction sa = { .sa_handler = fn, .sa_flags = flags, .sa_mask = mask };
	return sigaction(sig, &sa, NULL);
}

#define INFO_HANDLER ((void (*)(int))(void (*)(void))with_info)

/*
 * The interrupted context comes back whole: regs_roundtrip loads known
 * values into every general register but rsp, into xmm0, xmm8 and xmm15,
 * clears DF, sets MXCSR to round down, and spins until clobber_all has
 * run; then it stores what it finds. clobber_all notes the MXCSR it
 * starts with (the default: a handler gets a fresh FPU state). clobber_all breaks the ABI on purpose, so that only the kernel's
 * sigreturn can put things back: it overwrites every general register,
 * callee-saved ones included, the three xmm registers, sets DF and
 * changes MXCSR's rounding mode. The periodic timer makes sure a signal
 * lands after the flag is cleared, wherever the first one fell.
 */
struct regs {
	uint64_t gpr[15]; /* rax rbx rcx rdx rsi rdi rbp r8 .. r15 */
	uint64_t xmm[3];  /* xmm0 xmm8 xmm15 */
	uint64_t rflags;
	uint32_t mxcsr;
};

#define GPR_BASE 0x0123456700000000ull /* gpr[i] = GPR_BASE + i */
#define RFLAGS_DF (1ull << 10)

static volatile int alarm_seen __attribute__((used));
static volatile uint32_t handler_mxcsr __attribute__((used));
void clobber_all(int sig);
void regs_roundtrip(struct regs *out);

__asm__(".text\n"
	".globl clobber_all\n.type clobber_all, @function\n"
	"clobber_all:\n"
	"	mov $-1, %rax\n	mov %rax, %rbx\n	mov %rax, %rcx\n	mov %rax, %rdx\n"
	"	mov %rax, %rsi\n	mov %rax, %rdi\n	mov %rax, %rbp\n	mov %rax, %r8\n"
	"	mov %rax, %r9\n	mov %rax, %r10\n	mov %rax, %r11\n	mov %rax, %r12\n"
	"	mov %rax, %r13\n	mov %rax, %r14\n	mov %rax, %r15\n"
	"	stmxcsr handler_mxcsr(%rip)\n"
	"	pcmpeqd %xmm0, %xmm0\n	pcmpeqd %xmm8, %xmm8\n	pcmpeqd %xmm15, %xmm15\n"
	"	movl $0x7f80, -4(%rsp)\n	ldmxcsr -4(%rsp)\n" /* round toward zero */
	"	std\n"
	"	incl alarm_seen(%rip)\n"
	"	ret\n"
	".size clobber_all, .-clobber_all\n"

	".globl regs_roundtrip\n.type regs_roundtrip, @function\n"
	"regs_roundtrip:\n"
	"	.cfi_startproc\n"
	"	push %rbx\n	.cfi_adjust_cfa_offset 8\n	push %rbp\n	.cfi_adjust_cfa_offset 8\n"
	"	push %r12\n	.cfi_adjust_cfa_offset 8\n	push %r13\n	.cfi_adjust_cfa_offset 8\n"
	"	push %r14\n	.cfi_adjust_cfa_offset 8\n	push %r15\n	.cfi_adjust_cfa_offset 8\n"
	"	push %rdi\n	.cfi_adjust_cfa_offset 8\n"
	"	movabs $0x0123456700000000, %rax\n	lea 1(%rax), %rbx\n	lea 2(%rax), %rcx\n"
	"	lea 3(%rax), %rdx\n	lea 4(%rax), %rsi\n	lea 5(%rax), %rdi\n"
	"	lea 6(%rax), %rbp\n	lea 7(%rax), %r8\n	lea 8(%rax), %r9\n"
	"	lea 9(%rax), %r10\n	lea 10(%rax), %r11\n	lea 11(%rax), %r12\n"
	"	lea 12(%rax), %r13\n	lea 13(%rax), %r14\n	lea 14(%rax), %r15\n"
	"	movq %rax, %xmm0\n	movq %rbx, %xmm8\n	movq %rcx, %xmm15\n"
	"	cld\n	ldmxcsr mxcsr_loop(%rip)\n"
	"	movl $0, alarm_seen(%rip)\n"
	"1:	cmpl $0, alarm_seen(%rip)\n"
	"	je 1b\n"
	"	xchg %rdi, (%rsp)\n" /* rdi = out; the slot holds rdi's value */
	"	mov %rax, 0(%rdi)\n	mov %rbx, 8(%rdi)\n	mov %rcx, 16(%rdi)\n"
	"	mov %rdx, 24(%rdi)\n	mov %rsi, 32(%rdi)\n	mov %rbp, 48(%rdi)\n"
	"	mov %r8, 56(%rdi)\n	mov %r9, 64(%rdi)\n	mov %r10, 72(%rdi)\n"
	"	mov %r11, 80(%rdi)\n	mov %r12, 88(%rdi)\n	mov %r13, 96(%rdi)\n"
	"	mov %r14, 104(%rdi)\n	mov %r15, 112(%rdi)\n"
	"	mov (%rsp), %rax\n	mov %rax, 40(%rdi)\n"
	"	movq %xmm0, 120(%rdi)\n	movq %xmm8, 128(%rdi)\n	movq %xmm15, 136(%rdi)\n"
	"	pushf\n	.cfi_adjust_cfa_offset 8\n	pop %rax\n	.cfi_adjust_cfa_offset -8\n"
	"	mov %rax, 144(%rdi)\n	stmxcsr 152(%rdi)\n"
	"	cld\n	ldmxcsr mxcsr_default(%rip)\n"
	"	add $8, %rsp\n	.cfi_adjust_cfa_offset -8\n"
	"	pop %r15\n	.cfi_adjust_cfa_offset -8\n	pop %r14\n	.cfi_adjust_cfa_offset -8\n"
	"	pop %r13\n	.cfi_adjust_cfa_offset -8\n	pop %r12\n	.cfi_adjust_cfa_offset -8\n"
	"	pop %rbp\n	.cfi_adjust_cfa_offset -8\n	pop %rbx\n	.cfi_adjust_cfa_offset -8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size regs_roundtrip, .-regs_roundtrip\n"
	".section .rodata\n.align 4\nmxcsr_default: .long 0x1f80\n"
	"mxcsr_loop: .long 0x3f80\n.text\n");

_Static_assert(offsetof(struct regs, xmm) == 120 && offsetof(struct regs, rflags) == 144 &&
	       offsetof(struct regs, mxcsr) == 152, "regs_roundtrip's offsets");

static void registers_survive(void)
{
	struct regs r;
	struct itimerval every = { { 0, 3000 }, { 0, 3000 } }, off = { { 0, 0 }, { 0, 0 } };
	CHECK_EQ(install(SIGALRM, clobber_all, 0, 0), 0);
	CHECK_EQ(setitimer(ITIMER_REAL, &every, NULL), 0);
	regs_roundtrip(&r);
	setitimer(ITIMER_REAL, &off, NULL);
	for (int i = 0; i < 15; i++)
		CHECK_EQ(r.gpr[i], GPR_BASE + i);
	CHECK_EQ(r.xmm[0], GPR_BASE);
	CHECK_EQ(r.xmm[1], GPR_BASE + 1);
	CHECK_EQ(r.xmm[2], GPR_BASE + 2);
	CHECK_EQ(r.rflags & RFLAGS_DF, 0);
	/* The loop's MXCSR (round down) back; the handler started with the
	 * default one (0x1f80), not the loop's. */
	CHECK_EQ(r.mxcsr, 0x3f80);
	CHECK_EQ(handler_mxcsr, 0x1f80);
}

static int child(int ppid)
{
	return kill(ppid, SIGUSR2) == 0 ? 0 : 1;
}

static void raise_again(int sig)
{
	if (++hits[sig] < 3)
		raise(sig); /* SA_NODEFER: runs at once, nested */
}

int main(int argc, char **argv)
{
	check_begin(argv[0]);
	if (argc == 3 && strcmp(argv[1], "child") == 0)
		return child(atoi(argv[2]));

	/* raise, kill(self): the handler and its siginfo. */
	CHECK_EQ(install(SIGUSR1, INFO_HANDLER, SA_SIGINFO, 0), 0);
	CHECK_EQ(raise(SIGUSR1), 0);
	CHECK_EQ(hits[SIGUSR1], 1);
	CHECK_EQ(last_signo, SIGUSR1);
	CHECK_EQ(last_code, SI_USER);
	CHECK_EQ(last_pid, getpid());
	/* Inside, its own signal was blocked (newlib's bit: 1 << sig). */
	CHECK(blocked_inside & (1ul << SIGUSR1));
	sigset_t now;
	sigprocmask(SIG_BLOCK, NULL, &now);
	CHECK_EQ(now, 0);
	CHECK_EQ(kill(getpid(), SIGUSR1), 0);
	CHECK_EQ(hits[SIGUSR1], 2);

	registers_survive();

	/* Blocked: held back, then delivered by the unblocking call itself. */
	sigset_t usr1 = 0;
	sigaddset(&usr1, SIGUSR1);
	CHECK_EQ(sigprocmask(SIG_BLOCK, &usr1, NULL), 0);
	raise(SIGUSR1);
	CHECK_EQ(hits[SIGUSR1], 2);
	CHECK_EQ(sigprocmask(SIG_UNBLOCK, &usr1, NULL), 0);
	CHECK_EQ(hits[SIGUSR1], 3);

	/* SA_RESETHAND: once, then the default again. */
	CHECK_EQ(install(SIGUSR2, count, SA_RESETHAND, 0), 0);
	raise(SIGUSR2);
	struct sigaction old;
	CHECK_EQ(sigaction(SIGUSR2, NULL, &old), 0);
	CHECK_EQ(hits[SIGUSR2], 1);
	CHECK(old.sa_handler == SIG_DFL);

	/* SA_NODEFER: the handler raises its own signal, nested twice. */
	CHECK_EQ(install(SIGHUP, raise_again, SA_NODEFER, 0), 0);
	raise(SIGHUP);
	CHECK_EQ(hits[SIGHUP], 3);

	/* Ignored, by SIG_IGN and by default. */
	CHECK(signal(SIGUSR1, SIG_IGN) != SIG_ERR);
	CHECK_EQ(raise(SIGUSR1), 0);
	CHECK_EQ(raise(SIGCHLD), 0);
	CHECK_EQ(hits[SIGUSR1], 3);

	/* The interval timer. */
	hits[SIGALRM] = 0;
	CHECK_EQ(install(SIGALRM, count, 0, 0), 0);
	struct itimerval every = { { 0, 2000 }, { 0, 2000 } }, got;
	CHECK_EQ(setitimer(ITIMER_REAL, &every, NULL), 0);
	CHECK_EQ(getitimer(ITIMER_REAL, &got), 0);
	CHECK(got.it_interval.tv_usec == 2000 && got.it_value.tv_usec <= 2000);
	for (int i = 0; i < 200000000 && hits[SIGALRM] < 5; i++)
		__asm__ volatile("" ::: "memory");
	CHECK(hits[SIGALRM] >= 5);
	CHECK_EQ(alarm(0), 1); /* what was left, rounded up to a second */
	int settled = hits[SIGALRM];
	usleep(20000);
	CHECK_EQ(hits[SIGALRM], settled);

	/* A signal ends a sleep early. */
	struct itimerval soon = { { 0, 0 }, { 0, 20000 } };
	setitimer(ITIMER_REAL, &soon, NULL);
	unsigned left = sleep(5);
	CHECK(left >= 4 && left <= 5);
	CHECK_EQ(hits[SIGALRM], settled + 1);
	setitimer(ITIMER_REAL, &soon, NULL);
	CHECK_ERRNO(usleep(2000000), EINTR);

	/* Another process's kill. */
	hits[SIGUSR2] = 0;
	CHECK_EQ(install(SIGUSR2, count, 0, 0), 0);
	char ppid[16];
	snprintf(ppid, sizeof(ppid), "%d", getpid());
	char *kid[] = { SELF, "child", ppid, NULL };
	int status = -1, r, eintr = 0;
	int kpid = spawn(SELF, kid);
	/* The signal may end the wait (EINTR: there is no SA_RESTART). */
	while ((r = waitpid(kpid, &status, 0)) == -1 && errno == EINTR)
		eintr++;
	CHECK(r == kpid && WIFEXITED(status) && WEXITSTATUS(status) == 0 && eintr <= 1);
	CHECK_EQ(hits[SIGUSR2], 1);

	/* A default action that kills: a child sent SIGTERM. */
	int pid = spawn("/bin/t-proc", (char *[]){ "/bin/t-proc", "child-sleep", NULL });
	CHECK(pid > 0);
	usleep(50000);
	CHECK_EQ(kill(pid, SIGTERM), 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);

	/* What cannot be caught, and what is no signal. */
	CHECK_ERRNO(install(SIGKILL, count, 0, 0), EINVAL);
	CHECK_ERRNO(install(SIGSTOP, count, 0, 0), EINVAL);
	CHECK_ERRNO(install(0, count, 0, 0), EINVAL);
	CHECK_ERRNO(install(32, count, 0, 0), EINVAL);
	/* A handler outside the user range: non-canonical, the kernel's. */
	CHECK_ERRNO(install(SIGUSR1, (void (*)(int))0x0000800000000000ull, 0, 0), EFAULT);
	CHECK_ERRNO(install(SIGUSR1, (void (*)(int))0xffffffff80100000ull, 0, 0), EFAULT);
	CHECK_EQ(sigaction(SIGUSR1, NULL, &old), 0);
	CHECK(old.sa_handler == SIG_IGN);
	return check_exit();
}
