/*
 * Stitching: every sample whose callchain ends with PERF_CONTEXT_USER_DEFERRED
 * gets the user callchain of the REC_DEFERRED record with the same (tid,
 * cookie) in the same process incarnation, however many samples share it.
 * Samples carrying a stack copy get their user part from libdw instead
 * (stack-copy mode) or as a second opinion (validate mode).
 */
#ifndef STITCH_STITCH_H
#define STITCH_STITCH_H

#include <stdint.h>

#include "symbols.h"

enum user_part {
	USER_NONE,       /* kernel-only sample (kernel thread, idle) */
	USER_INLINE,     /* the sample carried PERF_CONTEXT_USER itself */
	USER_DEFERRED,   /* stitched from its deferred record */
	USER_STACK_COPY, /* unwound on the host from the stack copy */
	USER_MISSING,    /* deferred, but the deferred record never came: uips
			  * holds at most the sampled ip of an NMI in user mode */
};

struct stack {
	const struct sample_rec *s;
	struct proc *proc;
	const uint64_t *kips;   /* kernel pcs, leaf first */
	uint32_t nk;
	const uint64_t *uips;   /* user pcs, leaf first */
	uint32_t nu;
	enum user_part user;
	uint64_t cookie;        /* USER_DEFERRED, USER_MISSING */
	const struct deferred_rec *d;
	uint64_t *copy_ips;     /* libdw's chain (stack copy), owned */
	uint32_t ncopy;
	int validated;          /* validate: both chains were there */
	int agree;              /* ... and they were identical */
	const char *copy_why;   /* ... or why libdw's chain is a prefix of it:
				   the copy did not hold what libdw read */
	int cut;                /* the user part stopped at the frame bound */
	int idle;               /* an idle sample (stack_is_idle) */
};

struct stitch {
	struct stack *v;        /* one per sample, stream order */
	size_t n;
	struct sample_rec *made; /* --from map: a sample per key, owned */
	size_t nmade;
};

/*
 * The kernel function whose frame marks an idle sample: every CPU's idle
 * task (pid 0) runs its idle loop in it (kern/proc/sched.c), halted or
 * looking for a task. A sample is idle when it is a cpu-clock sample of
 * pid 0 without a user part whose kernel chain holds this function, the
 * interrupts the CPU took while idle included (docs/STITCH.md).
 */
#define IDLE_FUNCTION "sched_idle_loop"

void stitch_run(struct stitch *st, const struct stream *s, struct procs *procs,
		struct symbols *sy, struct counters *c);
/* --from map: the stack map's counts (REC_MAP_COUNTS) as stacks, one per
 * sample counted (stackmap.c). */
void stackmap_stitch(struct stitch *st, const struct stream *s, struct procs *procs,
		     struct symbols *sy, struct counters *c);
void stitch_free(struct stitch *st);
/* Whether k is an idle sample (IDLE_FUNCTION on its kernel chain). */
int stack_is_idle(const struct stack *k, struct symbols *sy);

/* The frames of a stack, leaf first: kernel ones, then user ones. A
 * USER_MISSING stack ends with the frame "[user stack missing]" (after the
 * sampled ip when the NMI hit user mode), a cut one with "[cut at the frame
 * bound]". They go into *buf, which holds
 * *cap entries and is grown to fit (start with NULL and 0; the caller frees
 * it). Returns the count. */
uint32_t stack_frames(const struct stack *k, struct symbols *sy,
		      const struct frame ***buf, size_t *cap);

#endif
