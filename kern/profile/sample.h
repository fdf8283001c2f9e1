/*
 * Samples: REC_SAMPLE records built in the NMI handler (the sampling
 * clock) or in normal context (software events such as the system-call
 * tracer).
 *
 * A sample carries the interrupted ip, PERF_CONTEXT_KERNEL and the kernel
 * callchain when the kernel was interrupted (unwound with the kernel's own
 * .sframe, kern/unwind/kernel.h), and then the user part: in an NMI sample
 * whatever sample_user_callchain() appends, that one function being where
 * the unwinding modes plug in (a USER_DEFERRED marker and cookie, an fp
 * walk, a stack copy); in a software event's, the cookie of the deferred
 * unwind its caller asked for.
 */
#ifndef KERN_PROFILE_SAMPLE_H
#define KERN_PROFILE_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/nmi.h"
#include "stitch/records.h"

/* The sample being built, as the user-callchain hook sees it. */
struct sample_ctx {
	const struct nmi_regs *regs;    /* NMI: interrupted registers; NULL
					 * for a software event */
	struct rec_sample *rec;         /* rec->ips[rec->nr] is the next entry */
	uint32_t len;                   /* bytes so far: header to ips[nr-1] and
					 * anything appended after ips[] */
	uint32_t cap;                   /* bytes available at rec */
};

/* Sets up the per-CPU buffers samples are built in; after record_init. */
int sample_init(void);

/* Arms and disarms sample_nmi (period: ns one NMI stands for). */
void sample_enable(uint64_t period_ns);
void sample_disable(void);

/* NMI context: one REC_SAMPLE of SAMPLE_EVENT_CPU_CLOCK into the NMI ring.
 * Counts the NMI as one of samples, samples_lost (ring full) or
 * nmi_ignored (not armed). */
void sample_nmi(const struct nmi_regs *regs);

/*
 * Normal context: a sample of a software event (SAMPLE_EVENT_SYSCALL, aux
 * = the system-call number) whose kernel callchain starts at the caller of
 * sample_software(), unwound from the current frame (no fake registers).
 * Its user part is PERF_CONTEXT_USER_DEFERRED and cookie, the deferred
 * unwind its caller asked for, or nothing if cookie is 0. Returns 0, or
 * -1 if dropped.
 */
int sample_software(uint16_t event, uint32_t aux, uint64_t period, uint64_t cookie);

/*
 * THE hook for the user part of a callchain (kern/profile/sample_user.c), called
 * for every NMI sample after the kernel part, in NMI context. It
 * may append entries with sample_push() (PERF_CONTEXT_USER_DEFERRED and a
 * cookie; PERF_CONTEXT_USER and an fp walk) and bytes after ips[] (a
 * struct rec_stack_copy, setting SAMPLE_STACK_COPY in rec->flags and
 * growing len to a multiple of 8). In NMI context it must not fault,
 * sleep, lock or allocate.
 */
void sample_user_callchain(struct sample_ctx *ctx);

/* Registers the sampler as a consumer of the deferred unwinder and sets
 * the deferred unwind's method and bound from profile.mode and
 * profile.frames; after profile_init, before the first process. */
void sample_user_init(void);

/* Appends one ips[] entry; false if the buffer is full. Inline: the NMI
 * appends two (a deferred chain's marker and cookie). */
static inline bool sample_push(struct sample_ctx *ctx, uint64_t entry)
{
	if (ctx->len + sizeof entry > ctx->cap)
		return false;
	ctx->rec->ips[ctx->rec->nr++] = entry;
	ctx->len += sizeof entry;
	return true;
}

#endif
