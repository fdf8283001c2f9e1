/*
 * The system-call tracer: the second consumer of the deferred unwinder.
 *
 *   trace.syscalls=read,write,...     (kernel command line, by name)
 *
 * At the entry of a chosen system call syscall_dispatch writes a REC_SAMPLE
 * of SAMPLE_EVENT_SYSCALL (aux = the number, period 1): the kernel
 * callchain from syscall_dispatch, unwound from the current frame (no fake
 * registers, as in the LKML thread "perf/x86: make perf callchain work
 * without CONFIG_FRAME_POINTER", Apr 2019), then PERF_CONTEXT_USER_DEFERRED
 * and the cookie of the tracer's own deferred unwind (strace_request). The
 * unwind answers with the tracer's REC_DEFERRED (REC_CONSUMER_TRACER). When
 * the sampler asks in the same kernel entry, both get the same cookie and
 * one unwind, each its own REC_DEFERRED.
 */
#ifndef KERN_PROFILE_STRACE_H
#define KERN_PROFILE_STRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "stitch/syscall.h"

/* Reads trace.syscalls and registers the consumer; after profile_init. */
void strace_init(void);

extern bool strace_traced[SYS_COUNT];

/* syscall_dispatch: record this call? */
static inline bool strace_wants(long nr)
{
	return nr >= 0 && nr < SYS_COUNT && strace_traced[nr];
}

/* syscall_dispatch, for a traced call: asks for the deferred unwind of
 * this entry's user stack. Its cookie, or 0 if the task has none to
 * unwind (it is exiting). */
uint64_t strace_request(void);

#endif
