#include "kern/profile/record.h"
#include <arch/arch.h>
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/profile/ringbuf.h"
#include "kern/lib/stats.h"
#include "kern/lib/string.h"
#include "kern/profile/summary.h"
#include "stitch/syscall.h"

struct cpu_rings {
	struct ringbuf nmi;
	struct ringbuf normal;
};

static struct cpu_rings rings[ARCH_MAX_CPUS];
static unsigned ncpus;
static bool ready;

static int draining;           /* one drainer at a time */
static bool started, ended;
static uint64_t records_out;   /* records written to the channel */
static uint8_t drain_buf[RECORD_MAX];

/* Records dropped (full ring, full channel) and not yet in a REC_LOST. */
static uint64_t unreported[ARCH_MAX_CPUS];
/* The channel refused a record: it refuses all but the final ones now. */
static bool channel_full;

struct stats_rec {
	struct rec_stats s;
	struct rec_stat stat[STAT_COUNT];
};

static void *alloc_ring(uint64_t bytes)
{
	uint64_t pa = pmm_alloc_pages(bytes / PAGE_SIZE);
	return pa ? p2v(pa) : NULL;
}

static bool power_of_two_pages(uint64_t n)
{
	return n >= PAGE_SIZE && (n & (n - 1)) == 0;
}

int record_init(uint64_t nmi_bytes, uint64_t normal_bytes)
{
	assert(!ready && power_of_two_pages(nmi_bytes) &&
	       power_of_two_pages(normal_bytes));
	ncpus = MIN(arch_ncpus(), ARCH_MAX_CPUS);
	for (unsigned c = 0; c < ncpus; c++) {
		void *a = alloc_ring(nmi_bytes), *b = alloc_ring(normal_bytes);
		if (!a || !b) {
			/* Given back: the caller may try smaller rings. */
			if (a)
				pmm_free_pages(v2p(a), nmi_bytes / PAGE_SIZE);
			if (b)
				pmm_free_pages(v2p(b), normal_bytes / PAGE_SIZE);
			while (c--) {
				pmm_free_pages(v2p(rings[c].nmi.buf), nmi_bytes / PAGE_SIZE);
				pmm_free_pages(v2p(rings[c].normal.buf), normal_bytes / PAGE_SIZE);
			}
			return -STITCH_ENOMEM;
		}
		ring_init(&rings[c].nmi, a, nmi_bytes);
		ring_init(&rings[c].normal, b, normal_bytes);
	}
	ready = true;
	return 0;
}

bool record_ready(void)
{
	return ready;
}

uint64_t record_time(void)
{
	return arch_cycles();
}

static bool valid_size(uint32_t size)
{
	return size % 8 == 0 && size >= 16 && size <= RECORD_MAX;
}

/*
 * What a REC_DEFERRED leaves free in the normal ring: deferred records are
 * its bulk (one per sampled kernel entry), and when the drain falls behind
 * (many CPUs, a high rate) they would fill it and crowd out the rare
 * records the host needs to make sense of the rest (COMM, MMAP, EXIT).
 * Those may use the last sixteenth; a deferred record that would eat
 * into it is dropped and counted like any other loss.
 */
#define NORMAL_KEEP_SHIFT 4

/* One record, rec then tail, into cpu's ring r (its one writer), leaving
 * keep bytes free. Inline: the NMI's sample and the deferred record come
 * through here. */
static inline int put(unsigned cpu, struct ringbuf *r, uint32_t type, void *rec,
		      uint32_t len, const void *tail, uint32_t tail_len, uint64_t keep)
{
	struct rec_header *h = rec;
	h->type = type;
	h->size = len + tail_len;
	struct ring_piece v[2] = { { rec, len }, { tail, tail_len } };
	if (ring_writev(r, v, tail_len ? 2 : 1, keep))
		return 0;
	stat_inc_on(cpu, STAT_RECORDS_LOST);
	return -1;
}

/* Into cpu's normal ring, which is this CPU's (no preemption in between). */
static inline int put_normal(unsigned cpu, uint32_t type, void *rec, uint32_t len,
			     const void *tail, uint32_t tail_len)
{
	struct ringbuf *r = &rings[cpu].normal;
	if (!ready)
		return -1; /* no stream (kernel tests, early boot): no loss */
	/* Interrupts off: nothing else on this CPU writes the normal ring
	 * while we do (the NMI writes only its own). */
	irqflags_t f = irq_save();
	uint64_t keep = type == REC_DEFERRED ? r->size >> NORMAL_KEEP_SHIFT : 0;
	int err = put(cpu, r, type, rec, len, tail, tail_len, keep);
	irq_restore(f);
	return err;
}

int record_write(uint32_t type, void *rec, uint32_t size)
{
	assert(valid_size(size));
	summary_record(type, rec);
	return put_normal(arch_cpu_id(), type, rec, size, NULL, 0);
}

uint64_t record_room(void)
{
	const struct ringbuf *r = &rings[arch_cpu_id()].normal;
	return ready ? r->size - ring_used(r) : 0;
}

int record_write_nmi(unsigned cpu, uint32_t type, void *rec, uint32_t size)
{
	/* No assert here: a panic in NMI context would print over whatever
	 * the interrupted code was printing; a bad size is a drop. */
	if (!ready)
		return -1;
	if (cpu >= ncpus || !valid_size(size)) {
		stat_inc(STAT_RECORDS_LOST);
		return -1;
	}
	return put(cpu, &rings[cpu].nmi, type, rec, size, NULL, 0, 0);
}

int record_comm(uint32_t pid, uint32_t tid, uint32_t ppid, uint32_t flags,
		const char *name)
{
	struct rec_comm r = { .time = record_time(), .pid = pid, .tid = tid,
			      .ppid = ppid, .flags = flags };
	strlcpy(r.name, name, sizeof r.name);
	return record_write(REC_COMM, &r, sizeof r);
}

int record_exit(uint32_t pid, uint32_t tid, int32_t status, uint32_t flags)
{
	struct rec_exit r = { .time = record_time(), .pid = pid, .tid = tid,
			      .status = status, .flags = flags };
	return record_write(REC_EXIT, &r, sizeof r);
}

int record_mmap(uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
		uint64_t pgoff, uint32_t flags, const uint8_t *build_id,
		uint32_t build_id_size, const char *path)
{
	struct {
		struct rec_mmap m;
		char path[256];
	} r;
	size_t plen = strnlen(path, sizeof r.path - 1);
	uint32_t size = (uint32_t)ROUND_UP(sizeof r.m + plen + 1, 8);

	memset(&r, 0, sizeof r);
	r.m.time = record_time();
	r.m.pid = pid;
	r.m.tid = tid;
	r.m.start = start;
	r.m.len = len;
	r.m.pgoff = pgoff;
	r.m.flags = flags;
	r.m.build_id_size = MIN(build_id_size, sizeof r.m.build_id);
	memcpy(r.m.build_id, build_id, r.m.build_id_size);
	memcpy(r.path, path, plen);
	return record_write(REC_MMAP, &r, size);
}

int record_deferred(uint32_t pid, uint32_t tid, uint32_t consumer,
		    uint64_t cookie, uint32_t stop, const uint64_t *ips, uint32_t nr)
{
	/* The fixed part and ips[0] here, the entries where they are: both
	 * go into one ring reservation, no staging copy of the record. */
	unsigned cpu = arch_cpu_id();
	struct {
		struct rec_deferred r;
		uint64_t user;
	} head = {
		.r = { .time = record_time(), .cpu = cpu, .pid = pid,
		       .tid = tid, .stop = stop, .cookie = cookie, .period = 0,
		       .nr = 1 + nr, .consumer = consumer },
		.user = PERF_CONTEXT_USER,
	};
	_Static_assert(__builtin_offsetof(typeof(head), user) ==
		       __builtin_offsetof(struct rec_deferred, ips), "ips[0]");
	uint32_t tail_len = nr * (uint32_t)sizeof *ips;
	assert(valid_size(sizeof head + tail_len));
	int err = put_normal(cpu, REC_DEFERRED, &head, sizeof head, ips, tail_len);
	if (!err)
		stat_inc_on(cpu, STAT_DEFERRED_RECORDS);
	return err;
}

/* One record to the channel, not yet counted; false if it refused it
 * (full). */
static bool channel_put(const void *rec, uint32_t size, bool final)
{
	if (!arch_channel_write(rec, size, final)) {
		channel_full |= !final;
		return false;
	}
	return true;
}

/* n records of bytes in all went to the channel. */
static void count_out(uint64_t n, uint64_t bytes)
{
	unsigned cpu = arch_cpu_id();
	records_out += n;
	stat_add_on(cpu, STAT_RECORDS_DRAINED, n);
	stat_add_on(cpu, STAT_BYTES_DRAINED, bytes);
}

/* One record to the channel, counted; false if it refused it. */
static bool emit(const void *rec, uint32_t size, bool final)
{
	if (!channel_put(rec, size, final))
		return false;
	count_out(1, size);
	return true;
}

/* A record's header and time stamp, which every record starts with. */
struct rec_start {
	struct rec_header h;
	uint64_t time;
};

/* The start of a ring's next record, in one peek; false if empty. */
static bool next_of(const struct ringbuf *r, struct rec_start *s)
{
	if (ring_used(r) < sizeof *s)
		return false;
	ring_peek(r, 0, s, sizeof *s);
	return true;
}

/* One record from cpu's ring r to the channel, or dropped and counted.
 * From where it lies in the ring unless it wraps: the channel copies it
 * anyway. Its space goes back to the writer after. */
static bool move_one(unsigned cpu, struct ringbuf *r, const struct rec_header *h)
{
	const void *rec = ring_span(r, h->size);
	if (!rec) {
		ring_peek(r, 0, drain_buf, h->size);
		rec = drain_buf;
	}
	bool sent = channel_put(rec, h->size, false);
	ring_consume(r, h->size);
	if (!sent) {
		stat_inc(STAT_RECORDS_LOST);
		unreported[cpu]++;
	}
	return sent;
}

/* A REC_LOST for what cpu dropped since the last one. Not tried on a full
 * channel before the end: it would be refused, and the count waits for
 * the final one, which has room. */
static void report_lost(unsigned cpu, struct cpu_rings *cr, bool final)
{
	unreported[cpu] += ring_take_lost(&cr->nmi) + ring_take_lost(&cr->normal);
	if (!unreported[cpu] || (channel_full && !final))
		return;
	struct rec_lost l = { { REC_LOST, sizeof l }, cpu, 0, unreported[cpu] };
	if (emit(&l, sizeof l, final))
		unreported[cpu] = 0;
}

/*
 * Every CPU's two rings merged, oldest record first (the TSCs of the CPUs
 * are one clock), so the stream is in time order across CPUs as far as the
 * rings hold it: a record written after this drain with an older time
 * stamp (its writer read the clock before the drain, published after)
 * comes out in the next one. Then the REC_LOSTs.
 */
static uint64_t drain_all(uint64_t max_bytes)
{
	/* Each ring's next record. It stays at the ring's tail until this
	 * drain moves it, so a ring is looked at again only once its record
	 * was moved, or while it has none. */
	struct {
		struct ringbuf *r;
		unsigned cpu;
		bool has;
		struct rec_start s;
	} next[2 * ARCH_MAX_CPUS];
	unsigned n = 0;
	uint64_t done = 0, sent = 0, sent_bytes = 0;

	for (unsigned c = 0; c < ncpus; c++) {
		next[n].r = &rings[c].nmi, next[n].cpu = c, next[n++].has = false;
		next[n].r = &rings[c].normal, next[n].cpu = c, next[n++].has = false;
	}
	while (done < max_bytes) {
		int oldest = -1;
		for (unsigned i = 0; i < n; i++) {
			if (!next[i].has)
				next[i].has = next_of(next[i].r, &next[i].s);
			if (next[i].has && (oldest < 0 || next[i].s.time < next[oldest].s.time))
				oldest = (int)i;
		}
		if (oldest < 0)
			break;
		uint32_t size = next[oldest].s.h.size;
		if (move_one(next[oldest].cpu, next[oldest].r, &next[oldest].s.h)) {
			sent++;
			sent_bytes += size;
		}
		done += size;
		next[oldest].has = false;
	}
	/* Counted once per drain, not per record. */
	if (sent)
		count_out(sent, sent_bytes);
	for (unsigned c = 0; c < ncpus; c++)
		report_lost(c, &rings[c], false);
	return done;
}

uint64_t record_drain(uint64_t max_bytes)
{
	uint64_t done = 0;
	if (!ready || !started || ended)
		return 0;
	if (__atomic_exchange_n(&draining, 1, __ATOMIC_ACQUIRE))
		return 0;
	done = drain_all(max_bytes);
	__atomic_store_n(&draining, 0, __ATOMIC_RELEASE);
	return done;
}

void record_stream_begin(uint32_t mode, uint32_t sample_hz, uint32_t max_frames)
{
	struct rec_stream s = {
		.h = { REC_STREAM, sizeof s },
		.magic = REC_STREAM_MAGIC,
		.version = REC_STREAM_VERSION,
		.ncpus = ncpus,
		.tsc_hz = arch_tsc_hz,
		.mode = mode,
		.sample_hz = sample_hz,
		.max_frames = max_frames,
	};
	assert(ready && !started);
	/* Room for the end: a REC_LOST per CPU, REC_STATS, REC_END. */
	arch_channel_init(ncpus * sizeof(struct rec_lost) +
			  sizeof(struct stats_rec) + sizeof(struct rec_end));
	emit(&s, sizeof s, false);
	started = true;
}

bool record_stream_started(void)
{
	return started;
}

/* The counters, as the stream carries them: every name with its total. */
static void stats_fill(struct rec_stat *out)
{
	for (int s = 0; s < STAT_COUNT; s++) {
		memset(out[s].name, 0, sizeof out[s].name);
		strlcpy(out[s].name, stat_name((enum stat)s), sizeof out[s].name);
		out[s].value = stat_total((enum stat)s);
	}
}

void record_stream_end(void)
{
	static struct stats_rec st;
	if (!started || ended)
		return;
	/* A drain the shutdown interrupted is abandoned: its record is
	 * half written, so the stream cannot be finished cleanly. */
	if (__atomic_exchange_n(&draining, 1, __ATOMIC_ACQUIRE))
		return;
	uint64_t t0 = arch_cycles(), bytes = drain_all(RECORD_DRAIN_ALL);
	uint64_t dt = arch_cycles() - t0;
	/* The channel's throughput, in guest time (docs/SAMPLING.md). */
	if (bytes >= 4096)
		kprintf("profile: final drain: %lu bytes in %lu us, %lu KB/s\n",
			bytes, arch_tsc_to_ns(dt) / 1000, bytes * arch_tsc_hz / dt / 1000);
	/* The end goes into the room the channel kept for it: what the
	 * channel refused is reported, and REC_END is still last. */
	for (unsigned c = 0; c < ncpus; c++)
		report_lost(c, &rings[c], true);
	st.s.h = (struct rec_header){ REC_STATS, sizeof st };
	st.s.count = STAT_COUNT;
	stats_fill(st.stat);
	emit(&st, sizeof st, true);
	struct rec_end e = { { REC_END, sizeof e }, record_time(), records_out };
	emit(&e, sizeof e, true);
	ended = true;
}
