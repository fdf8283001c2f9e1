#include "kern/proc/syscall.h"
#include "kern/profile/sample.h"
#include "kern/profile/stats.h"
#include "kern/profile/strace.h"
#include "stitch/syscall.h"

static const syscall_fn syscalls[SYS_COUNT] = {
	[SYS_exit] = sys_exit,
	[SYS_write] = sys_write,
	[SYS_read] = sys_read,
	[SYS_open] = sys_open,
	[SYS_close] = sys_close,
	[SYS_lseek] = sys_lseek,
	[SYS_fstat] = sys_fstat,
	[SYS_isatty] = sys_isatty,
	[SYS_sbrk] = sys_sbrk,
	[SYS_mmap] = sys_mmap,
	[SYS_munmap] = sys_munmap,
	[SYS_getpid] = sys_getpid,
	[SYS_kill] = sys_kill,
	[SYS_gettimeofday] = sys_gettimeofday,
	[SYS_times] = sys_times,
	[SYS_yield] = sys_yield,
	[SYS_sleep] = sys_sleep,
	[SYS_spawn] = sys_spawn,
	[SYS_wait] = sys_wait,
	[SYS_pipe] = sys_pipe,
	[SYS_stacktrace_setup] = sys_stacktrace_setup,
	[SYS_getppid] = sys_getppid,
};

long syscall_dispatch(long nr, const long *arg)
{
	/* The tracer's sample: its kernel chain starts here, its user
	 * stack comes from the tracer's deferred unwind (kern/profile/strace.h). */
	if (strace_wants(nr)) {
		stat_inc(STAT_SYSCALLS_TRACED);
		sample_software(SAMPLE_EVENT_SYSCALL, (uint32_t)nr, 1, strace_request());
	}
	if (nr < 0 || nr >= SYS_COUNT || !syscalls[nr])
		return -STITCH_ENOSYS;
	return syscalls[nr](arg);
}
