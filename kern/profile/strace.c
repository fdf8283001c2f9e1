#include "kern/profile/strace.h"
#include "kern/lib/cmdline.h"
#include "kern/kernel.h"
#include "kern/profile/record.h"
#include "kern/lib/string.h"
#include "kern/proc/task.h"
#include "kern/unwind/deferred.h"

bool strace_traced[SYS_COUNT];

static const char *const names[SYS_COUNT] = {
	[SYS_exit] = "exit", [SYS_write] = "write", [SYS_read] = "read",
	[SYS_open] = "open", [SYS_close] = "close", [SYS_lseek] = "lseek",
	[SYS_fstat] = "fstat", [SYS_isatty] = "isatty", [SYS_sbrk] = "sbrk",
	[SYS_mmap] = "mmap", [SYS_munmap] = "munmap", [SYS_getpid] = "getpid",
	[SYS_kill] = "kill", [SYS_gettimeofday] = "gettimeofday",
	[SYS_times] = "times", [SYS_yield] = "yield", [SYS_sleep] = "sleep",
	[SYS_spawn] = "spawn", [SYS_wait] = "wait", [SYS_pipe] = "pipe",
	[SYS_stacktrace_setup] = "stacktrace_setup", [SYS_getppid] = "getppid",
};

static struct unwind_work tracer_work;

/* The answer to the tracer's request of one entry: its REC_DEFERRED. */
static void tracer_deferred(struct unwind_work *work,
			    const struct unwind_trace *trace, uint64_t cookie)
{
	const struct task *t = current;
	(void)work;
	record_deferred((uint32_t)t->pid, (uint32_t)t->tid, REC_CONSUMER_TRACER,
			cookie, trace->stop, trace->entries, trace->nr);
}

uint64_t strace_request(void)
{
	uint64_t cookie;
	return unwind_deferred_request(&tracer_work, &cookie) >= 0 ? cookie : 0;
}

/* Marks the system call called name[0 .. len). */
static bool trace_name(const char *name, size_t len)
{
	for (int nr = 0; nr < SYS_COUNT; nr++)
		if (names[nr] && strlen(names[nr]) == len &&
		    strncmp(names[nr], name, len) == 0) {
			strace_traced[nr] = true;
			return true;
		}
	return false;
}

void strace_init(void)
{
	const char *list = cmdline_get(&boot_args, "trace.syscalls");
	unwind_deferred_init(&tracer_work, tracer_deferred);
	if (!list || !*list)
		return;
	for (const char *p = list; *p;) {
		size_t len = 0;
		while (p[len] && p[len] != ',')
			len++;
		if (len && !trace_name(p, len))
			kprintf("strace: no system call named %.*s\n", (int)len, p);
		p += len + (p[len] == ',');
	}
	kprintf("strace: tracing");
	for (int nr = 0; nr < SYS_COUNT; nr++)
		if (strace_traced[nr])
			kprintf(" %s", names[nr]);
	kprintf("\n");
}
