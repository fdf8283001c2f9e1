/*
 * The user part of a sample's callchain. Today nothing is appended: the
 * samples carry the user ip (rec->ip, SAMPLE_USER) and the kernel chain.
 *
 * This is the one place where the deferred unwinder (issue 5, second
 * half) plugs in, per profile.mode: sframe/fp-deferred/guess append
 * PERF_CONTEXT_USER_DEFERRED and the task's cookie and request the
 * deferred unwind (irq work + self-IPI from NMI); fp walks the user frame
 * pointers; stack-copy appends a struct rec_stack_copy; validate does
 * both sframe and stack-copy.
 */
#include "kern/sample.h"

void sample_user_callchain(struct sample_ctx *ctx)
{
	(void)ctx;
}
