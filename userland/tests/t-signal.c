/*
 * t-signal: signals delivered to handlers (docs/PROCESSES.md, "Signals").
 *
 *   - raise and kill(getpid()) run the handler with its signal, the
 *     siginfo (SI_USER, the sender's pid) and the sigcontext;
 *   - the interrupted registers come back whole after a handler that
 *     clobbers them: general registers and an SSE register;
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
 *   - sigaction refuses SIGKILL, SIGSTOP, 0 and 32.
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

/* A handler that clobbers every register a handler may. */
static void clobber(int sig)
{
	hits[sig]++;
	__asm__ volatile("pxor %%xmm0, %%xmm0\n\tmov $0, %%r8\n\tmov $0, %%r9\n\t"
			 "mov $0, %%r10\n\tmov $0, %%r11\n\tmov $0, %%rax\n\tcmp %%rax, %%rax"
			 ::: "xmm0", "r8", "r9", "r10", "r11", "rax", "cc");
}

/* Spins with known values in r8-r11 and xmm0 until the timer's signal
 * has run clobber; returns whether all came back. */
static int registers_survive(void)
{
	uint64_t r8, r9, r10, r11, x;
	struct itimerval once = { { 0, 0 }, { 0, 3000 } };
	hits[SIGALRM] = 0;
	install(SIGALRM, clobber, 0, 0);
	setitimer(ITIMER_REAL, &once, NULL);
	__asm__ volatile("mov $0x1111, %%r8\n\tmov $0x2222, %%r9\n\tmov $0x3333, %%r10\n\t"
			 "mov $0x4444, %%r11\n\tmov $0x5555, %%rax\n\tmovq %%rax, %%xmm0\n\t"
			 "1:\tcmpl $0, %[hits]\n\t"
			 "je 1b\n\t"
			 "mov %%r8, %[r8]\n\tmov %%r9, %[r9]\n\tmov %%r10, %[r10]\n\t"
			 "mov %%r11, %[r11]\n\tmovq %%xmm0, %[x]"
			 : [r8] "=m"(r8), [r9] "=m"(r9), [r10] "=m"(r10), [r11] "=m"(r11),
			   [x] "=m"(x)
			 : [hits] "m"(hits[SIGALRM])
			 : "r8", "r9", "r10", "r11", "rax", "xmm0", "cc", "memory");
	return r8 == 0x1111 && r9 == 0x2222 && r10 == 0x3333 && r11 == 0x4444 &&
	       x == 0x5555;
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

	CHECK(registers_survive());

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
	return check_exit();
}
