/*
 * The record stream reader: turns the raw bytes of records.bin into an
 * array of parsed records. Every field is read through bounds checks; a
 * record that does not fit is counted and the stream ends there. See
 * include/stitch/records.h for the layout and docs/RECORDS.md for prose.
 */
#ifndef STITCH_STREAM_H
#define STITCH_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include <stitch/records.h>

#include "counters.h"

struct comm_rec {
	uint64_t time;
	uint32_t pid, tid, ppid;
	uint32_t flags;     /* COMM_EXEC */
	char name[16];
};

struct mmap_rec {
	uint64_t time;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t flags;
	uint32_t build_id_size;
	uint8_t build_id[20];
	char *path;
};

struct stack_copy {
	uint64_t regs[REC_NREGS];
	uint64_t size;
	uint8_t *stack;
};

struct sample_rec {
	uint64_t time;
	uint32_t cpu, pid, tid;
	uint16_t event, flags;
	uint64_t ip, period;
	uint32_t aux, nr;
	uint64_t *ips;
	struct stack_copy *copy; /* NULL unless SAMPLE_STACK_COPY */
};

struct deferred_rec {
	uint64_t time;
	uint32_t cpu, pid, tid, stop;
	uint64_t cookie, period;
	uint32_t nr;
	uint32_t consumer; /* REC_CONSUMER_*: one record per consumer and cookie */
	uint64_t *ips;
};

struct exit_rec {
	uint64_t time;
	uint32_t pid, tid;
	int32_t status;
	uint32_t flags; /* EXIT_THREAD: a thread left, not the process */
};

struct lost_rec {
	uint32_t cpu;
	uint64_t count;
};

struct stats_rec {
	uint32_t count;
	struct rec_stat *stat;
};

/* The stack map's records (profile.consumer=map|both). */
struct map_stack_rec {
	uint64_t time;
	uint32_t id;
	uint16_t kind, nr; /* MAP_STACK_* */
	uint64_t *ips;
};

struct map_counts_rec {
	uint64_t time, period;
	uint32_t n;
	struct rec_map_count *c;
};

struct end_rec {
	uint64_t time, records;
};

struct record {
	uint32_t type;   /* enum rec_type */
	uint64_t offset; /* where it starts in the stream */
	uint32_t size;   /* its bytes, header included */
	union {
		struct comm_rec comm;
		struct mmap_rec mmap;
		struct sample_rec sample;
		struct deferred_rec deferred;
		struct exit_rec exit;
		struct lost_rec lost;
		struct stats_rec stats;
		struct end_rec end;
		struct map_stack_rec map_stack;
		struct map_counts_rec map_counts;
	} u;
};

struct stream {
	struct rec_stream head; /* zero if the stream had none */
	struct record *recs;    /* every known record after REC_STREAM */
	size_t nrecs;
	int ended;              /* REC_END was read */
};

/* Parse buf[0..len); never fails: what cannot be read is counted in c. */
void stream_parse(struct stream *s, const uint8_t *buf, size_t len,
		  struct counters *c);
void stream_free(struct stream *s);

const char *mode_name(uint32_t mode);
const char *type_name(uint32_t type); /* "sample", "deferred", ... */
const char *stop_name(uint32_t stop);

#endif
