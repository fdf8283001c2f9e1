#include "kern/profile/strace.h"
#include "kern/lib/cmdline.h"
#include "kern/kernel.h"
#include "kern/profile/record.h"
#include "kern/lib/string.h"
#include "kern/proc/syscall.h"
#include "kern/proc/task.h"
#include "kern/unwind/deferred.h"

bool strace_traced[SYS_COUNT];

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
	for (int nr = 0; nr < SYS_COUNT; nr++) {
		const char *n = syscall_name(nr);
		if (n && strlen(n) == len && strncmp(n, name, len) == 0) {
			strace_traced[nr] = true;
			return true;
		}
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
			kprintf(" %s", syscall_name(nr));
	kprintf("\n");
}
