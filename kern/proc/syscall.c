#include "kern/proc/syscall.h"
#include "kern/profile/sample.h"
#include "kern/lib/stats.h"
#include "kern/profile/strace.h"
#include "stitch/syscall.h"

/* The table: each call's handler and its name (for the tracer's
 * trace.syscalls= and what it prints). */
#define SYSCALL(name) [SYS_##name] = { sys_##name, #name }
static const struct {
	syscall_fn fn;
	const char *name;
} syscalls[SYS_COUNT] = {
	SYSCALL(exit),
	SYSCALL(write),
	SYSCALL(read),
	SYSCALL(open),
	SYSCALL(close),
	SYSCALL(lseek),
	SYSCALL(fstat),
	SYSCALL(isatty),
	SYSCALL(sbrk),
	SYSCALL(mmap),
	SYSCALL(munmap),
	SYSCALL(getpid),
	SYSCALL(kill),
	SYSCALL(gettimeofday),
	SYSCALL(times),
	SYSCALL(yield),
	SYSCALL(sleep),
	SYSCALL(spawn),
	SYSCALL(wait),
	SYSCALL(pipe),
	SYSCALL(stacktrace_setup),
	SYSCALL(getppid),
	SYSCALL(exec),
	SYSCALL(sigaction),
	SYSCALL(sigprocmask),
	SYSCALL(sigreturn),
	SYSCALL(setitimer),
	SYSCALL(thread_spawn),
	SYSCALL(thread_exit),
	SYSCALL(futex),
	SYSCALL(gettid),
};

const char *syscall_name(long nr)
{
	return nr >= 0 && nr < SYS_COUNT ? syscalls[nr].name : NULL;
}

long syscall_dispatch(long nr, const long *arg)
{
	/* The tracer's sample: its kernel chain starts here, its user
	 * stack comes from the tracer's deferred unwind (kern/profile/strace.h). */
	if (strace_wants(nr)) {
		stat_inc(STAT_SYSCALLS_TRACED);
		sample_software(SAMPLE_EVENT_SYSCALL, (uint32_t)nr, 1, strace_request());
	}
	if (nr < 0 || nr >= SYS_COUNT || !syscalls[nr].fn)
		return -STITCH_ENOSYS;
	return syscalls[nr].fn(arg);
}
