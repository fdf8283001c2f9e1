/*
 * The system-call tracer: the second consumer of the deferred unwinder.
 *
 *   trace.syscalls=read,write,...     (kernel command line, by name)
 *
 * At the entry of a chosen system call it writes a REC_SAMPLE of
 * SAMPLE_EVENT_SYSCALL (aux = the number, period 1): the kernel callchain
 * from syscall_dispatch, unwound from the current frame (no fake
 * registers, as in the LKML thread "perf/x86: make perf callchain work
 * without CONFIG_FRAME_POINTER", Apr 2019), then PERF_CONTEXT_USER_DEFERRED and a cookie it
 * requested from kern/unwind_deferred.h as REC_CONSUMER_TRACER. When the
 * sampler asks in the same kernel entry, both get the same cookie and
 * one unwind, each its own REC_DEFERRED.
 */
#ifndef KERN_STRACE_H
#define KERN_STRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "stitch/syscall.h"

struct unwind_work;

/* Reads trace.syscalls and registers the consumer; after profile_init. */
void strace_init(void);

extern bool strace_traced[SYS_COUNT];

/* syscall_dispatch: record this call? */
static inline bool strace_wants(long nr)
{
	return nr >= 0 && nr < SYS_COUNT && strace_traced[nr];
}

/* The tracer's consumer, for the sample being built: the sampler's hook
 * requests the unwind with it for SAMPLE_EVENT_SYSCALL samples. */
struct unwind_work *strace_work(void);

#endif
