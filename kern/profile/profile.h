/*
 * The profiler's switches and life cycle.
 *
 * Kernel command line:
 *   profile.mode=none|sframe|fp|fp-deferred|stack-copy|guess|validate|eh-frame|validate-eh
 *   (and eh-rowcache, eh-convert: eh-frame with rows, kern/unwind/ehframe_rows.h)
 *                        (enum rec_mode; default sframe). none: no
 *                        sampling NMIs, the record stream is still written
 *                        (the benchmarks' baseline).
 *   profile.hz=N         sampling rate, 100..20000 (default 1000)
 *   profile.frames=N     bound of the deferred unwind buffer (default 128)
 *   profile.ring=KiB     each CPU's NMI ring (default 2048; power of two)
 *   profile.source=auto|pmu|lapic|ioapic
 *                        the clock behind the sampling NMIs (default auto:
 *                        arch/x86_64/nmi/sampling.c says how it chooses)
 *   profile.consumer=stream|map|both
 *                        who gets the samples: the record stream (a record
 *                        each, default), the stack map (counts by stack,
 *                        kern/profile/stackmap.h; deferred modes only), or
 *                        both (their results must agree: test 89)
 *   profile.summary=on|off the kernel's own summary at the end of a run
 *                        (kern/profile/summary.h; default: on if there is a screen)
 *
 * kmain calls profile_init() once the timers run: it sets up the record
 * stream and starts sampling, except in kernel-test runs, where the LAPIC
 * timer belongs to the tests and a test that wants samples calls
 * profile_start() itself. arch_shutdown() calls profile_finish(), which
 * writes the end of the stream.
 */
#ifndef KERN_PROFILE_PROFILE_H
#define KERN_PROFILE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "stitch/records.h"

#define PROFILE_HZ_MIN     100
#define PROFILE_HZ_MAX     20000
#define PROFILE_HZ_DEFAULT 1000
#define PROFILE_FRAMES_DEFAULT 128
#define PROFILE_RING_KIB_DEFAULT 2048
/* Bytes of user stack a stack copy carries at most: perf's default for
 * --call-graph dwarf is 8 KiB too; 16 KiB leaves a record (RECORD_MAX)
 * room for its callchain. */
#define PROFILE_STACK_COPY_DEFAULT 8192
#define PROFILE_STACK_COPY_MAX 16384

struct profile_config {
	uint32_t mode;     /* enum rec_mode */
	uint32_t hz;
	uint32_t frames;
	uint32_t ring_kib;
	uint32_t stack_copy; /* bytes, stack-copy mode (validate copies all) */
	uint32_t consumer;   /* PROFILE_CONSUMER_* bits */
};

#define PROFILE_CONSUMER_STREAM 0x1
#define PROFILE_CONSUMER_MAP    0x2

/* The settings of this run (the deferred unwinder reads mode and frames). */
extern struct profile_config profile;

/* From the command line into *c, every field set: a bad value gets a
 * console line and its fall-back (a bad mode: none, and false). */
bool profile_parse(struct profile_config *c);
/* Parses the command line, starts the stream, and sampling if `sample`. */
void profile_init(bool sample);
/* Starts the record stream (if profile_init did not) and, unless mode is
 * none, the sampling NMIs. Returns 0 or -STITCH_ENOMEM. */
int profile_start(const struct profile_config *c);
void profile_stop(void);
/* Sampling NMIs arrive on every CPU (profile_start ran, no stop since). */
bool profile_sampling(void);
/* Stop, drain, REC_STATS, REC_END, counters on the console. Once. */
void profile_finish(void);
/* The timer tick (interrupt context): drain a bounded amount. */
void profile_tick(void);

#endif
