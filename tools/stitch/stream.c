/*
 * Reading untrusted bytes: every read goes through rd32()/rd64() on a
 * record whose size was checked against the bytes left, and every count
 * taken from the data (nr, size, count) is checked against the record size
 * before it is used. The stream may be cut at any byte; the reader keeps
 * what was whole and counts the rest.
 */
#include "stream.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* A record's bytes, size already checked against the stream. */
struct body {
	const uint8_t *p;
	size_t size;
};

static uint16_t rd16(struct body b, size_t off)
{
	uint16_t v;
	memcpy(&v, b.p + off, sizeof v);
	return v;
}

static uint32_t rd32(struct body b, size_t off)
{
	uint32_t v;
	memcpy(&v, b.p + off, sizeof v);
	return v;
}

static uint64_t rd64(struct body b, size_t off)
{
	uint64_t v;
	memcpy(&v, b.p + off, sizeof v);
	return v;
}

/* Copy nr u64 entries starting at off, if they fit in the record. */
static uint64_t *rd_ips(struct body b, size_t off, uint32_t nr, struct counters *c)
{
	if (off > b.size || nr > (b.size - off) / 8) {
		c->bad_callchain++;
		return NULL;
	}
	uint64_t *ips = xcalloc(nr ? nr : 1, sizeof *ips);
	for (uint32_t i = 0; i < nr; i++)
		ips[i] = rd64(b, off + 8 * (size_t)i);
	return ips;
}

/* A fixed-size name field: force a terminator and count if it was missing. */
static void rd_name(char *dst, size_t n, const uint8_t *src, struct counters *c)
{
	memcpy(dst, src, n);
	if (!memchr(dst, 0, n))
		c->bad_string++;
	dst[n - 1] = 0;
}

static int parse_comm(struct record *r, struct body b, struct counters *c)
{
	struct comm_rec *m = &r->u.comm;
	m->time = rd64(b, offsetof(struct rec_comm, time));
	m->pid = rd32(b, offsetof(struct rec_comm, pid));
	m->tid = rd32(b, offsetof(struct rec_comm, tid));
	m->ppid = rd32(b, offsetof(struct rec_comm, ppid));
	m->flags = rd32(b, offsetof(struct rec_comm, flags));
	rd_name(m->name, sizeof m->name, b.p + offsetof(struct rec_comm, name), c);
	return 1;
}

static int parse_mmap(struct record *r, struct body b, struct counters *c)
{
	struct mmap_rec *m = &r->u.mmap;
	m->time = rd64(b, offsetof(struct rec_mmap, time));
	m->pid = rd32(b, offsetof(struct rec_mmap, pid));
	m->tid = rd32(b, offsetof(struct rec_mmap, tid));
	m->start = rd64(b, offsetof(struct rec_mmap, start));
	m->len = rd64(b, offsetof(struct rec_mmap, len));
	m->pgoff = rd64(b, offsetof(struct rec_mmap, pgoff));
	m->flags = rd32(b, offsetof(struct rec_mmap, flags));
	m->build_id_size = rd32(b, offsetof(struct rec_mmap, build_id_size));
	if (m->build_id_size > sizeof m->build_id) {
		c->bad_size++;
		m->build_id_size = 0;
	}
	memcpy(m->build_id, b.p + offsetof(struct rec_mmap, build_id), sizeof m->build_id);

	size_t off = offsetof(struct rec_mmap, path), n = b.size - off;
	const uint8_t *nul = memchr(b.p + off, 0, n);
	if (!nul)
		c->bad_string++;
	size_t len = nul ? (size_t)(nul - (b.p + off)) : n;
	m->path = xmalloc(len + 1);
	memcpy(m->path, b.p + off, len);
	m->path[len] = 0;
	return 1;
}

static struct stack_copy *parse_copy(struct body b, size_t off, struct counters *c)
{
	size_t fixed = REC_NREGS * 8 + 8;
	if (off > b.size || b.size - off < fixed) {
		c->bad_stack_copy++;
		return NULL;
	}
	struct stack_copy *sc = xcalloc(1, sizeof *sc);
	for (int i = 0; i < REC_NREGS; i++)
		sc->regs[i] = rd64(b, off + 8 * (size_t)i);
	sc->size = rd64(b, off + REC_NREGS * 8);
	if (sc->size > b.size - off - fixed) {
		c->bad_stack_copy++;
		free(sc);
		return NULL;
	}
	sc->stack = xmalloc(sc->size ? sc->size : 1);
	memcpy(sc->stack, b.p + off + fixed, sc->size);
	return sc;
}

static int parse_sample(struct record *r, struct body b, struct counters *c)
{
	struct sample_rec *m = &r->u.sample;
	m->time = rd64(b, offsetof(struct rec_sample, time));
	m->cpu = rd32(b, offsetof(struct rec_sample, cpu));
	m->pid = rd32(b, offsetof(struct rec_sample, pid));
	m->tid = rd32(b, offsetof(struct rec_sample, tid));
	m->event = rd16(b, offsetof(struct rec_sample, event));
	m->flags = rd16(b, offsetof(struct rec_sample, flags));
	m->ip = rd64(b, offsetof(struct rec_sample, ip));
	m->period = rd64(b, offsetof(struct rec_sample, period));
	m->aux = rd32(b, offsetof(struct rec_sample, aux));
	m->nr = rd32(b, offsetof(struct rec_sample, nr));
	m->ips = rd_ips(b, sizeof(struct rec_sample), m->nr, c);
	if (!m->ips)
		return 0;
	if (m->flags & SAMPLE_STACK_COPY)
		m->copy = parse_copy(b, sizeof(struct rec_sample) + 8 * (size_t)m->nr, c);
	return 1;
}

static int parse_deferred(struct record *r, struct body b, struct counters *c)
{
	struct deferred_rec *m = &r->u.deferred;
	m->time = rd64(b, offsetof(struct rec_deferred, time));
	m->cpu = rd32(b, offsetof(struct rec_deferred, cpu));
	m->pid = rd32(b, offsetof(struct rec_deferred, pid));
	m->tid = rd32(b, offsetof(struct rec_deferred, tid));
	m->stop = rd32(b, offsetof(struct rec_deferred, stop));
	m->cookie = rd64(b, offsetof(struct rec_deferred, cookie));
	m->period = rd64(b, offsetof(struct rec_deferred, period));
	m->nr = rd32(b, offsetof(struct rec_deferred, nr));
	m->consumer = rd32(b, offsetof(struct rec_deferred, consumer));
	m->ips = rd_ips(b, sizeof(struct rec_deferred), m->nr, c);
	return m->ips != NULL;
}

static int parse_exit(struct record *r, struct body b, struct counters *c)
{
	(void)c;
	struct exit_rec *m = &r->u.exit;
	m->time = rd64(b, offsetof(struct rec_exit, time));
	m->pid = rd32(b, offsetof(struct rec_exit, pid));
	m->tid = rd32(b, offsetof(struct rec_exit, tid));
	m->status = (int32_t)rd32(b, offsetof(struct rec_exit, status));
	m->flags = rd32(b, offsetof(struct rec_exit, flags));
	return 1;
}

static int parse_lost(struct record *r, struct body b, struct counters *c)
{
	struct lost_rec *m = &r->u.lost;
	m->cpu = rd32(b, offsetof(struct rec_lost, cpu));
	m->count = rd64(b, offsetof(struct rec_lost, count));
	c->lost += m->count;
	return 1;
}

static int parse_stats(struct record *r, struct body b, struct counters *c)
{
	struct stats_rec *m = &r->u.stats;
	size_t fits = (b.size - sizeof(struct rec_stats)) / sizeof(struct rec_stat);
	m->count = rd32(b, offsetof(struct rec_stats, count));
	if (m->count > fits) {
		c->bad_size++;
		m->count = (uint32_t)fits;
	}
	m->stat = xcalloc(m->count ? m->count : 1, sizeof *m->stat);
	for (uint32_t i = 0; i < m->count; i++) {
		size_t off = sizeof(struct rec_stats) + i * sizeof(struct rec_stat);
		rd_name(m->stat[i].name, sizeof m->stat[i].name, b.p + off, c);
		m->stat[i].value = rd64(b, off + offsetof(struct rec_stat, value));
	}
	return 1;
}

static int parse_map_stack(struct record *r, struct body b, struct counters *c)
{
	struct map_stack_rec *m = &r->u.map_stack;
	m->time = rd64(b, offsetof(struct rec_map_stack, time));
	m->id = rd32(b, offsetof(struct rec_map_stack, id));
	m->kind = rd16(b, offsetof(struct rec_map_stack, kind));
	m->nr = rd16(b, offsetof(struct rec_map_stack, nr));
	m->ips = rd_ips(b, sizeof(struct rec_map_stack), m->nr, c);
	return m->ips != NULL;
}

static int parse_map_counts(struct record *r, struct body b, struct counters *c)
{
	struct map_counts_rec *m = &r->u.map_counts;
	size_t fits = (b.size - sizeof(struct rec_map_counts)) / sizeof(struct rec_map_count);
	m->time = rd64(b, offsetof(struct rec_map_counts, time));
	m->period = rd64(b, offsetof(struct rec_map_counts, period));
	m->n = rd32(b, offsetof(struct rec_map_counts, n));
	if (m->n > fits) {
		c->bad_size++;
		m->n = (uint32_t)fits;
	}
	m->c = xcalloc(m->n ? m->n : 1, sizeof *m->c);
	for (uint32_t i = 0; i < m->n; i++) {
		size_t off = sizeof(struct rec_map_counts) + i * sizeof(struct rec_map_count);
		m->c[i] = (struct rec_map_count){
			.pid = rd32(b, off + offsetof(struct rec_map_count, pid)),
			.program = rd32(b, off + offsetof(struct rec_map_count, program)),
			.kstack = rd32(b, off + offsetof(struct rec_map_count, kstack)),
			.ustack = rd32(b, off + offsetof(struct rec_map_count, ustack)),
			.user = rd32(b, off + offsetof(struct rec_map_count, user)),
			.count = rd64(b, off + offsetof(struct rec_map_count, count)),
		};
	}
	return 1;
}

static int parse_end(struct record *r, struct body b, struct counters *c)
{
	(void)c;
	r->u.end.time = rd64(b, offsetof(struct rec_end, time));
	r->u.end.records = rd64(b, offsetof(struct rec_end, records));
	return 1;
}

/* The stream header; returns 0 when the rest cannot be trusted. */
static int parse_head(struct stream *s, struct body b, struct counters *c)
{
	struct rec_stream *h = &s->head;
	h->magic = rd64(b, offsetof(struct rec_stream, magic));
	h->version = rd32(b, offsetof(struct rec_stream, version));
	h->ncpus = rd32(b, offsetof(struct rec_stream, ncpus));
	h->tsc_hz = rd64(b, offsetof(struct rec_stream, tsc_hz));
	h->mode = rd32(b, offsetof(struct rec_stream, mode));
	h->sample_hz = rd32(b, offsetof(struct rec_stream, sample_hz));
	h->max_frames = rd32(b, offsetof(struct rec_stream, max_frames));
	if (h->magic != REC_STREAM_MAGIC) {
		c->bad_magic++;
		return 0;
	}
	if (h->version != REC_STREAM_VERSION) {
		c->bad_version++;
		return 0;
	}
	return 1;
}

struct rec_kind {
	size_t min_size;
	int (*parse)(struct record *, struct body, struct counters *);
};

static const struct rec_kind kinds[] = {
	[REC_STREAM]   = { sizeof(struct rec_stream), NULL },
	[REC_COMM]     = { sizeof(struct rec_comm), parse_comm },
	[REC_MMAP]     = { sizeof(struct rec_mmap) + 8, parse_mmap },
	[REC_SAMPLE]   = { sizeof(struct rec_sample), parse_sample },
	[REC_DEFERRED] = { sizeof(struct rec_deferred), parse_deferred },
	[REC_EXIT]     = { sizeof(struct rec_exit), parse_exit },
	[REC_LOST]     = { sizeof(struct rec_lost), parse_lost },
	[REC_STATS]    = { sizeof(struct rec_stats), parse_stats },
	[REC_END]      = { sizeof(struct rec_end), parse_end },
	[REC_MAP_STACK] = { sizeof(struct rec_map_stack), parse_map_stack },
	[REC_MAP_COUNTS] = { sizeof(struct rec_map_counts), parse_map_counts },
};

static void push(struct stream *s, size_t *cap, const struct record *r)
{
	if (s->nrecs == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		s->recs = xrealloc(s->recs, *cap * sizeof *s->recs);
	}
	s->recs[s->nrecs++] = *r;
}

/*
 * Where the stream starts. The serial line that carries it may first carry
 * other bytes (the firmware prints on every serial port), so look for the
 * first REC_STREAM header with its magic; without one, start at 0.
 */
static size_t find_start(const uint8_t *buf, size_t len)
{
	struct rec_stream h = { .h = { REC_STREAM, sizeof h }, .magic = REC_STREAM_MAGIC };
	size_t n = offsetof(struct rec_stream, magic) + sizeof h.magic;
	for (size_t off = 0; len >= n && off <= len - n; off++)
		if (!memcmp(buf + off, &h, offsetof(struct rec_stream, magic)) &&
		    !memcmp(buf + off + offsetof(struct rec_stream, magic), &h.magic, sizeof h.magic))
			return off;
	return 0;
}

void stream_parse(struct stream *s, const uint8_t *buf, size_t len,
		  struct counters *c)
{
	size_t off = find_start(buf, len), cap = 0, nread = 0;
	memset(s, 0, sizeof *s);
	c->junk_bytes += off;

	while (off < len) {
		if (len - off < sizeof(struct rec_header)) {
			c->truncated++;
			break;
		}
		struct body b = { buf + off, 0 };
		uint32_t type = rd32(b, 0), size = rd32(b, 4);
		if (size < sizeof(struct rec_header) || size % 8) {
			c->bad_size++;  /* cannot find the next record: stop */
			break;
		}
		if (size > len - off) {
			c->truncated++;
			break;
		}
		b.size = size;
		nread++;
		c->records++;

		if (s->ended) {
			c->after_end++;
		} else if (type >= sizeof kinds / sizeof kinds[0] || !kinds[type].min_size) {
			c->unknown_type++;
		} else if (size < kinds[type].min_size) {
			c->bad_size++;
		} else if (type == REC_STREAM) {
			if (nread != 1)
				c->stream_headers++;
			else if (!parse_head(s, b, c))
				break;
		} else {
			struct record r = { .type = type, .offset = off, .size = size };
			if (nread == 1)
				c->no_stream_header++;
			if (kinds[type].parse(&r, b, c))
				push(s, &cap, &r);
			if (type == REC_END) {
				s->ended = 1;
				if (r.u.end.records != nread - 1)
					c->end_count_mismatch++;
			}
		}
		off += size;
	}
	if (len == 0)
		c->no_stream_header++;
	if (!s->ended)
		c->missing_end++;
}

static void record_free(struct record *r)
{
	switch (r->type) {
	case REC_MMAP:
		free(r->u.mmap.path);
		break;
	case REC_SAMPLE:
		free(r->u.sample.ips);
		if (r->u.sample.copy)
			free(r->u.sample.copy->stack);
		free(r->u.sample.copy);
		break;
	case REC_DEFERRED:
		free(r->u.deferred.ips);
		break;
	case REC_STATS:
		free(r->u.stats.stat);
		break;
	case REC_MAP_STACK:
		free(r->u.map_stack.ips);
		break;
	case REC_MAP_COUNTS:
		free(r->u.map_counts.c);
		break;
	}
}

void stream_free(struct stream *s)
{
	for (size_t i = 0; i < s->nrecs; i++)
		record_free(&s->recs[i]);
	free(s->recs);
	memset(s, 0, sizeof *s);
}

const char *mode_name(uint32_t mode)
{
	static const char *const names[] = {
		[MODE_NONE] = "none", [MODE_SFRAME] = "sframe", [MODE_FP] = "fp",
		[MODE_FP_DEFERRED] = "fp-deferred", [MODE_STACK_COPY] = "stack-copy",
		[MODE_GUESS] = "guess", [MODE_VALIDATE] = "validate",
		[MODE_EH_FRAME] = "eh-frame", [MODE_VALIDATE_EH] = "validate-eh",
	};
	return mode < sizeof names / sizeof names[0] ? names[mode] : "unknown";
}

const char *type_name(uint32_t type)
{
	static const char *const names[] = {
		[REC_STREAM] = "stream", [REC_COMM] = "comm", [REC_MMAP] = "mmap",
		[REC_SAMPLE] = "sample", [REC_DEFERRED] = "deferred", [REC_EXIT] = "exit",
		[REC_LOST] = "lost", [REC_STATS] = "stats", [REC_END] = "end",
		[REC_MAP_STACK] = "map_stack", [REC_MAP_COUNTS] = "map_counts",
	};
	return type < sizeof names / sizeof names[0] && names[type] ? names[type] : "unknown";
}

const char *stop_name(uint32_t stop)
{
	static const char *const names[] = {
		[UNWIND_STOP_END] = "end", [UNWIND_STOP_MAX_FRAMES] = "max-frames",
		[UNWIND_STOP_FAULT] = "fault", [UNWIND_STOP_NO_INFO] = "no-info",
		[UNWIND_STOP_BAD_SFRAME] = "bad-sframe", [UNWIND_STOP_BAD_FRAME] = "bad-frame",
		[UNWIND_STOP_TASK_EXITED] = "task-exited",
		[UNWIND_STOP_SIGNAL_FRAME] = "signal-frame",
		[UNWIND_STOP_BUDGET] = "budget", [UNWIND_STOP_KILLED] = "killed",
	};
	return stop < UNWIND_STOP_COUNT ? names[stop] : "unknown";
}
