#include "kern/proc/syscall.h"
#include "kern/profile/sample.h"
#include "kern/lib/stats.h"
#include "kern/profile/strace.h"
#include "stitch/syscall.h"

/* The table: each call's handler and its name (for the tracer's
 * trace.syscalls= and what it prints), and how int $0x80 passes its
 * arguments (compat, below). */
#define SYSCALL(name, compat) [SYS_##name] = { sys_##name, #name, compat }
/* Compat: argument i is signed (an fd, a pid, an offset, an increment):
 * sign-extended from 32 bits; the others (pointers, sizes, flags of
 * unsigned kind) are zero-extended. */
#define S(i) (1u << (i))
/* Compat: refused with -ENOSYS (docs/PROCESSES.md, "32-bit programs"). */
#define NO_COMPAT 0x80u
static const struct {
	syscall_fn fn;
	const char *name;
	unsigned compat;
} syscalls[SYS_COUNT] = {
	SYSCALL(exit, S(0)),
	SYSCALL(write, S(0)),
	SYSCALL(read, S(0)),
	SYSCALL(open, S(1)),
	SYSCALL(close, S(0)),
	SYSCALL(lseek, S(0) | S(1) | S(2)),
	SYSCALL(fstat, S(0)),
	SYSCALL(isatty, S(0)),
	SYSCALL(sbrk, S(0)),
	SYSCALL(mmap, S(2) | S(3) | S(4)),
	SYSCALL(munmap, 0),
	SYSCALL(getpid, 0),
	SYSCALL(kill, S(0) | S(1)),
	SYSCALL(gettimeofday, 0),
	SYSCALL(times, 0),
	SYSCALL(yield, 0),
	SYSCALL(sleep, 0),
	SYSCALL(spawn, 0),
	SYSCALL(wait, S(0)),
	SYSCALL(pipe, 0),
	SYSCALL(stacktrace_setup, S(0)),
	SYSCALL(getppid, 0),
	SYSCALL(exec, 0),
	/* Handlers need a 32-bit signal frame and trampoline. */
	SYSCALL(sigaction, NO_COMPAT),
	SYSCALL(sigprocmask, S(0)),
	SYSCALL(sigreturn, NO_COMPAT),
	SYSCALL(setitimer, S(0)),
	/* Threads need a 32-bit thread start and the i386 TLS. */
	SYSCALL(thread_spawn, NO_COMPAT),
	SYSCALL(thread_exit, S(0)),
	SYSCALL(futex, NO_COMPAT),
	SYSCALL(gettid, 0),
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

long syscall_dispatch_compat(long nr, const uint32_t reg[6])
{
	stat_inc(STAT_COMPAT_SYSCALLS);
	unsigned how = nr >= 0 && nr < SYS_COUNT ? syscalls[nr].compat : 0;
	if (how & NO_COMPAT) {
		stat_inc(STAT_COMPAT_REFUSED);
		return -STITCH_ENOSYS;
	}
	long arg[6];
	for (int i = 0; i < 6; i++)
		arg[i] = how & S(i) ? (long)(int32_t)reg[i] : (long)reg[i];
	return syscall_dispatch(nr, arg);
}
