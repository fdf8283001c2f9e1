/*
 * Signals: newlib declares the POSIX interfaces (<signal.h>,
 * <sys/time.h>, <unistd.h>); these are them on the kernel's
 * (stitch/signal.h). newlib's own signal() and raise() keep a table of
 * handlers in user space that no other process can reach: these replace
 * them, so that kill() from anywhere runs the handler signal() set.
 *
 * newlib's sigset_t has bit `sig` for signal sig (its sigaddset); the
 * kernel's masks have bit sig - 1.
 */
#include <errno.h>
#include <signal.h>
#include <stitch.h>
#include <stitch/signal.h>
#include <sys/time.h>
#include <unistd.h>
#include "sys.h"

static uint64_t to_kernel(sigset_t set)
{
	return (uint64_t)set >> 1;
}

static sigset_t from_kernel(uint64_t mask)
{
	return (sigset_t)(mask << 1);
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct stitch_sigaction k, o = { 0 };
	if (act) {
		k = (struct stitch_sigaction){
			.handler = (uint64_t)(uintptr_t)act->sa_handler,
			.mask = to_kernel(act->sa_mask),
			.flags = (uint32_t)act->sa_flags,
		};
	}
	long r = sys_result(sys3(SYS_sigaction, sig, act ? (long)&k : 0, old ? (long)&o : 0));
	if (r == 0 && old) {
		old->sa_handler = (_sig_func_ptr)(uintptr_t)o.handler;
		old->sa_mask = from_kernel(o.mask);
		old->sa_flags = (int)o.flags;
	}
	return (int)r;
}

_sig_func_ptr signal(int sig, _sig_func_ptr handler)
{
	struct sigaction act = { .sa_handler = handler }, old = { 0 };
	if (sigaction(sig, &act, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	uint64_t k = set ? to_kernel(*set) : 0, o = 0;
	long r = sys_result(sys3(SYS_sigprocmask, how, set ? (long)&k : 0, old ? (long)&o : 0));
	if (r == 0 && old)
		*old = from_kernel(o);
	return (int)r;
}

int raise(int sig)
{
	return kill(getpid(), sig);
}

static uint64_t usec(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000 + (uint64_t)tv->tv_usec;
}

static void to_timeval(uint64_t us, struct timeval *tv)
{
	tv->tv_sec = (time_t)(us / 1000000);
	tv->tv_usec = (suseconds_t)(us % 1000000);
}

int setitimer(int which, const struct itimerval *value, struct itimerval *old)
{
	struct stitch_itimerval k, o = { 0, 0 };
	if (value) {
		if (value->it_value.tv_sec < 0 || value->it_value.tv_usec < 0 ||
		    value->it_value.tv_usec >= 1000000 || value->it_interval.tv_sec < 0 ||
		    value->it_interval.tv_usec < 0 || value->it_interval.tv_usec >= 1000000) {
			errno = EINVAL;
			return -1;
		}
		k.value_us = usec(&value->it_value);
		k.interval_us = usec(&value->it_interval);
	}
	long r = sys_result(sys3(SYS_setitimer, which, value ? (long)&k : 0, old ? (long)&o : 0));
	if (r == 0 && old) {
		to_timeval(o.value_us, &old->it_value);
		to_timeval(o.interval_us, &old->it_interval);
	}
	return (int)r;
}

int getitimer(int which, struct itimerval *value)
{
	return setitimer(which, NULL, value);
}

unsigned alarm(unsigned seconds)
{
	struct itimerval v = { { 0, 0 }, { (time_t)seconds, 0 } }, old = { { 0, 0 }, { 0, 0 } };
	if (setitimer(ITIMER_REAL, &v, &old) != 0)
		return 0;
	/* What was left of the previous alarm, rounded up (never 0 if one was set). */
	return (unsigned)(old.it_value.tv_sec + (old.it_value.tv_usec > 0));
}
