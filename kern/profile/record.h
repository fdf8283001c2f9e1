/*
 * Writing the record stream (include/stitch/records.h) and draining it to
 * the host.
 *
 * Each CPU has two rings (kern/profile/ringbuf.h), each with exactly one writer:
 *   - the NMI ring, written only by that CPU's NMI handler (samples);
 *   - the normal ring, written in normal context with interrupts disabled
 *     (COMM, MMAP, EXIT, DEFERRED, software-event samples): the NMI never
 *     touches it, so no writer ever interrupts another writer of its ring.
 * A full ring drops the record and counts it (stat records_lost, and a
 * REC_LOST record for that CPU at the next drain); nothing is overwritten.
 * A full channel (ivshmem's bounded area) refuses records: counted the same
 * way, reported in the final REC_LOST, for which the channel keeps room.
 *
 * The drainer runs in normal context (the tick, the idle loop, shutdown),
 * one at a time, and merges each CPU's two rings by time stamp, so every
 * record that goes into a ring must have its u64 time right after the
 * header (all of COMM, MMAP, SAMPLE, DEFERRED and EXIT do). The stream's
 * first record is REC_STREAM, the last REC_STATS then REC_END.
 */
#ifndef KERN_PROFILE_RECORD_H
#define KERN_PROFILE_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "stitch/records.h"

/* The largest record a ring accepts (a sample with a stack copy fits). */
#define RECORD_MAX 32768

/* Allocates each running CPU's rings (sizes: powers of two, bytes).
 * Returns 0, or -STITCH_ENOMEM. Once, before any other call. */
int record_init(uint64_t nmi_bytes, uint64_t normal_bytes);
bool record_ready(void);

/*
 * Normal context (interrupts enabled or disabled), never NMI: appends one
 * record to this CPU's normal ring. rec points at the whole record, header
 * included; record_write fills in rec->type and rec->size. size must be a
 * multiple of 8, at least 16 (header and time) and at most RECORD_MAX.
 * Returns 0, or -1 when the record was dropped (counted), or when there
 * is no stream yet (before record_init: nothing to lose, not counted).
 */
int record_write(uint32_t type, void *rec, uint32_t size);

/* Normal context, interrupts off: the bytes a record_write on this CPU
 * has room for now (a bulk writer drains, or waits, when it is short). */
uint64_t record_room(void);

/* NMI context only: the same into the NMI ring of cpu, this CPU (the
 * caller has its index already). */
int record_write_nmi(unsigned cpu, uint32_t type, void *rec, uint32_t size);

/* Time stamps of every record: TSC ticks (rec_stream.tsc_hz per second). */
uint64_t record_time(void);

/* Typed helpers for the records the process code writes. */
int record_comm(uint32_t pid, uint32_t tid, uint32_t ppid, uint32_t flags,
		const char *name);
int record_exit(uint32_t pid, uint32_t tid, int32_t status, uint32_t flags);
int record_mmap(uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
		uint64_t pgoff, uint32_t flags, const uint8_t *build_id,
		uint32_t build_id_size, const char *path);

/*
 * A consumer's REC_DEFERRED: the answer to the deferred unwind it asked
 * for with cookie. ips[] is PERF_CONTEXT_USER, then the nr user
 * addresses at ips, written from there (one ring reservation). nr is at
 * most RECORD_DEFERRED_MAX_ENTRIES. 0, or -1 if dropped (counted).
 */
int record_deferred(uint32_t pid, uint32_t tid, uint32_t consumer,
		    uint64_t cookie, uint32_t stop, const uint64_t *ips, uint32_t nr);
#define RECORD_DEFERRED_MAX_ENTRIES \
	((RECORD_MAX - sizeof(struct rec_deferred)) / sizeof(uint64_t) - 1)

/*
 * Normal context: moves records from the rings to the channel, up to about
 * max_bytes (whole records), and reports drops with REC_LOST. Returns the
 * bytes written. If another drain is running (an interrupt came in during
 * one), returns 0 at once.
 */
uint64_t record_drain(uint64_t max_bytes);
#define RECORD_DRAIN_ALL UINT64_MAX

/* The first record, straight to the channel (before anything is drained). */
void record_stream_begin(uint32_t mode, uint32_t sample_hz, uint32_t max_frames);
bool record_stream_started(void);
/* Drains everything, then REC_STATS and REC_END. Once. */
void record_stream_end(void);

#endif
