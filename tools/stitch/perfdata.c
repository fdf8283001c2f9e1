/*
 * perf.data, as Debian's perf 6.1 reads it (tools/perf/Documentation/
 * perf.data-file-format.txt): a header, the event attributes (attr.size =
 * PERF_ATTR_SIZE_VER7, what 6.1 knows), the data section (COMM, MMAP,
 * MMAP2, EXIT, SAMPLE records, all with sample_id_all), then the feature
 * sections (build ids so perf matches the guest binaries, and the few
 * descriptive ones perf prints in its header).
 *
 * Samples carry the stitched callchain with PERF_CONTEXT_KERNEL and
 * PERF_CONTEXT_USER markers; a user part that never arrived is left out
 * (perf has no way to show stitch's "[user stack missing]" frame).
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "util.h"

#define PERF_MAGIC      0x32454c4946524550ull /* "PERFILE2" */
#define HEADER_SIZE     104
#define ATTR_SIZE       PERF_ATTR_SIZE_VER7
#define HOST_KERNEL_PID ((uint32_t)-1)
#define KERNEL_MMAP     "[kernel.kallsyms]"
#define PERF_MAX_CHAIN  8000 /* entries that fit a record's u16 size */

/* perf's feature bits (tools/perf/util/header.h). */
enum {
	FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4, FEAT_VERSION = 5,
	FEAT_ARCH = 6, FEAT_NRCPUS = 7, FEAT_CMDLINE = 11, FEAT_EVENT_DESC = 12,
	FEAT_SAMPLE_TIME = 21,
};

#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
		     PERF_SAMPLE_CALLCHAIN)

/* Event ids: the sampling clock, and the system-call tracer if it fired. */
enum { ID_CLOCK = 1, ID_SYSCALL = 2 };

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *data, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

static void put16(struct buf *b, uint16_t v) { put(b, &v, 2); }
static void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void put64(struct buf *b, uint64_t v) { put(b, &v, 8); }

static void pad_to(struct buf *b, size_t align)
{
	static const uint8_t zero[64];
	put(b, zero, (align - b->n % align) % align);
}

/* A record: its header is patched with the size once the body is written. */
static size_t rec_begin(struct buf *b, uint32_t type, uint16_t misc)
{
	size_t at = b->n;
	put32(b, type);
	put16(b, misc);
	put16(b, 0);
	return at;
}

static void rec_end(struct buf *b, size_t at)
{
	uint16_t size = (uint16_t)(b->n - at);
	memcpy(b->p + at + 6, &size, 2);
}

/* The sample_id_all trailer for SAMPLE_TYPE: tid, time, cpu, identifier. */
static void sample_id(struct buf *b, uint32_t pid, uint32_t tid, uint64_t time,
		      uint32_t cpu, uint64_t id)
{
	put32(b, pid);
	put32(b, tid);
	put64(b, time);
	put32(b, cpu);
	put32(b, 0);
	put64(b, id);
}

/* A NUL-terminated name padded to 8 bytes, as records carry them. */
static void name8(struct buf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
	pad_to(b, 8);
}

static struct perf_event_attr event_attr(const struct run *r, int syscall)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_SOFTWARE;
	a.size = ATTR_SIZE;
	a.config = syscall ? PERF_COUNT_SW_DUMMY : PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = SAMPLE_TYPE;
	a.sample_id_all = 1;
	if (!syscall) {
		a.freq = 1;
		a.sample_freq = r->stream->head.sample_hz ? r->stream->head.sample_hz : 1000;
		a.mmap = a.comm = a.mmap2 = a.task = 1;
	} else {
		a.sample_period = 1;
	}
	return a;
}

static void kernel_mmap(struct buf *b, const struct run *r, const struct mmap_rec *m)
{
	/*
	 * perf wants a reference symbol for the kernel map (the name after
	 * "[kernel.kallsyms]", its address in pgoff), else it warns that
	 * kallsyms was restricted. Any symbol of the image will do: take the
	 * one at the start of the mapping.
	 */
	const struct frame *f = symbols_frame(r->sy, NULL, m->start, 1, 0);
	uint64_t ref = f->known ? m->start - f->off : 0;
	char *name = xasprintf(KERNEL_MMAP "%s", f->known ? f->name : "");
	size_t at = rec_begin(b, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	put32(b, HOST_KERNEL_PID);
	put32(b, 0);
	put64(b, m->start);
	put64(b, m->len);
	put64(b, ref);
	name8(b, name);
	sample_id(b, HOST_KERNEL_PID, 0, 0, 0, ID_CLOCK);
	rec_end(b, at);
	free(name);
}

static void user_mmap(struct buf *b, const struct run *r, struct proc *p,
		      const struct mmap_rec *m)
{
	uint8_t id[20] = { 0 };
	int n = symbols_build_id(r->sy, p, m, id);
	size_t at = rec_begin(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER |
			      (n ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	put32(b, p->pid);
	put32(b, m->tid ? m->tid : p->pid);
	put64(b, m->start);
	put64(b, m->len);
	put64(b, m->pgoff);
	/* with MMAP_BUILD_ID the device/inode fields hold the build id */
	uint8_t ids[24] = { (uint8_t)n };
	memcpy(ids + 4, id, 20);
	put(b, ids, sizeof ids);
	put32(b, 5); /* PROT_READ | PROT_EXEC: a text mapping */
	put32(b, 2); /* MAP_PRIVATE */
	name8(b, m->path);
	sample_id(b, p->pid, m->tid ? m->tid : p->pid, time_ns(r, m->time), 0, ID_CLOCK);
	rec_end(b, at);
}

/* The COMM of process p's thread tid (tid == pid: its first thread). */
static void comm(struct buf *b, const struct run *r, const struct proc *p, uint32_t tid,
		 uint64_t time)
{
	size_t at = rec_begin(b, PERF_RECORD_COMM, p->exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	put32(b, p->pid);
	put32(b, tid);
	name8(b, p->comm);
	sample_id(b, p->pid, tid, time_ns(r, time), 0, ID_CLOCK);
	rec_end(b, at);
}

static void task_exit(struct buf *b, const struct run *r, const struct exit_rec *e)
{
	size_t at = rec_begin(b, PERF_RECORD_EXIT, 0);
	put32(b, e->pid);
	put32(b, 0);
	put32(b, e->tid);
	put32(b, 0);
	put64(b, time_ns(r, e->time));
	sample_id(b, e->pid, e->tid, time_ns(r, e->time), 0, ID_CLOCK);
	rec_end(b, at);
}

/* Entries of a sample's callchain: each part behind its context marker. */
static uint64_t chain_len(const struct stack *k)
{
	return (k->nk ? 1 + k->nk : 0) + (k->nu ? 1 + k->nu : 0);
}

uint64_t perf_max_chain(const struct run *r)
{
	uint64_t max = 0;
	for (size_t i = 0; i < r->st->n; i++) {
		uint64_t n = chain_len(&r->st->v[i]);
		if (n > max && n <= PERF_MAX_CHAIN)
			max = n;
	}
	return max;
}

static void sample(struct buf *b, const struct run *r, const struct stack *k)
{
	const struct sample_rec *s = k->s;
	uint32_t nu = k->nu;
	uint64_t nr = chain_len(k);
	if (nr > PERF_MAX_CHAIN) {
		r->c->perf_too_long++; /* a perf record is at most 64 KiB */
		return;
	}
	uint64_t ip = k->nk ? k->kips[0] : nu ? k->uips[0] : s->ip;
	size_t at = rec_begin(b, PERF_RECORD_SAMPLE,
			      k->nk ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
	put64(b, in_profile(k) ? ID_CLOCK : ID_SYSCALL);
	put64(b, ip);
	put32(b, s->pid);
	put32(b, s->tid);
	put64(b, time_ns(r, s->time));
	put32(b, s->cpu);
	put32(b, 0);
	put64(b, in_profile(k) ? s->period : 1);
	put64(b, nr);
	if (k->nk) {
		put64(b, PERF_CONTEXT_KERNEL);
		put(b, k->kips, 8 * (size_t)k->nk);
	}
	if (nu) {
		put64(b, PERF_CONTEXT_USER);
		put(b, k->uips, 8 * (size_t)nu);
	}
	rec_end(b, at);
}

/* The data section: the stream's records, translated, in stream order
 * (perf sorts by time itself). */
static void data_section(struct buf *b, const struct run *r)
{
	size_t next_sample = 0, nprocs = r->procs->n;
	for (size_t i = 0; i < r->procs->kernel.nmaps; i++)
		kernel_mmap(b, r, r->procs->kernel.maps[i]);
	/* One COMM per process, with the name stitch uses for all its samples
	 * (also for the ones no REC_COMM named, or perf would name them). */
	for (size_t i = 0; i < nprocs; i++)
		comm(b, r, r->procs->v[i], r->procs->v[i]->pid, r->procs->v[i]->t_comm);
	for (size_t i = 0; i < r->stream->nrecs; i++) {
		const struct record *rec = &r->stream->recs[i];
		switch (rec->type) {
		case REC_COMM: /* each further thread of a process: a COMM of its own */
			if (rec->u.comm.tid && rec->u.comm.tid != rec->u.comm.pid)
				comm(b, r, proc_at(r->procs, rec->u.comm.pid, rec->u.comm.time),
				     rec->u.comm.tid, rec->u.comm.time);
			break;
		case REC_MMAP:
			if (!(rec->u.mmap.flags & MMAP_KERNEL))
				user_mmap(b, r, proc_at(r->procs, rec->u.mmap.pid, rec->u.mmap.time),
					  &rec->u.mmap);
			break;
		case REC_EXIT:
			task_exit(b, r, &rec->u.exit);
			break;
		case REC_SAMPLE:
			sample(b, r, &r->st->v[next_sample++]);
			break;
		}
	}
}

static void feat_string(struct buf *b, const char *s)
{
	/* perf's header strings: u32 length (padded to 64), then the bytes */
	uint32_t len = (uint32_t)((strlen(s) + 1 + 63) / 64 * 64);
	put32(b, len);
	size_t at = b->n;
	put(b, s, strlen(s) + 1);
	while (b->n - at < len)
		put(b, "", 1);
}

static void build_id_entry(struct buf *b, uint32_t pid, uint16_t misc, const char *name,
			   const uint8_t id[20], int n)
{
	size_t at = rec_begin(b, 0, misc | (1 << 15)); /* PERF_RECORD_MISC_BUILD_ID_SIZE */
	put32(b, pid);
	uint8_t bid[24] = { 0 };
	memcpy(bid, id, (size_t)n);
	bid[20] = (uint8_t)n;
	put(b, bid, sizeof bid);
	name8(b, name);
	rec_end(b, at);
}

static void feat_build_ids(struct buf *b, const struct run *r)
{
	uint8_t id[20];
	int n;
	struct proc *k = &r->procs->kernel;
	if (k->nmaps && (n = symbols_build_id(r->sy, k, k->maps[0], id)) > 0)
		build_id_entry(b, HOST_KERNEL_PID, PERF_RECORD_MISC_KERNEL, KERNEL_MMAP, id, n);
	for (size_t i = 0; i < r->procs->n; i++) {
		struct proc *p = r->procs->v[i];
		for (size_t j = 0; j < p->nmaps; j++)
			if ((n = symbols_build_id(r->sy, p, p->maps[j], id)) > 0)
				build_id_entry(b, p->pid, PERF_RECORD_MISC_USER, p->maps[j]->path, id, n);
	}
}

static int has_syscalls(const struct run *r)
{
	for (size_t i = 0; i < r->st->n; i++)
		if (!in_profile(&r->st->v[i]))
			return 1;
	return 0;
}

static void feat_event_desc(struct buf *b, const struct run *r, int nattrs)
{
	put32(b, (uint32_t)nattrs);
	put32(b, ATTR_SIZE);
	for (int i = 0; i < nattrs; i++) {
		struct perf_event_attr a = event_attr(r, i);
		put(b, &a, ATTR_SIZE);
		put32(b, 1);
		feat_string(b, i ? "syscall" : "cpu-clock");
		put64(b, i ? ID_SYSCALL : ID_CLOCK);
	}
}

static void feat_sample_time(struct buf *b, const struct run *r)
{
	uint64_t first = UINT64_MAX, last = 0;
	for (size_t i = 0; i < r->st->n; i++) {
		uint64_t t = time_ns(r, r->st->v[i].s->time);
		first = t < first ? t : first;
		last = t > last ? t : last;
	}
	put64(b, r->st->n ? first : 0);
	put64(b, last);
}

static void feature(struct buf *b, int feat, const struct run *r, int nattrs)
{
	switch (feat) {
	case FEAT_BUILD_ID: feat_build_ids(b, r); break;
	case FEAT_HOSTNAME: feat_string(b, "stitch-guest"); break;
	case FEAT_OSRELEASE: feat_string(b, "stitch"); break;
	case FEAT_VERSION: feat_string(b, "stitch"); break;
	case FEAT_ARCH: feat_string(b, "x86_64"); break;
	case FEAT_NRCPUS:
		put32(b, r->stream->head.ncpus ? r->stream->head.ncpus : 1);
		put32(b, r->stream->head.ncpus ? r->stream->head.ncpus : 1);
		break;
	case FEAT_CMDLINE:
		put32(b, 2);
		feat_string(b, "stitch");
		feat_string(b, r->records_path);
		break;
	case FEAT_EVENT_DESC: feat_event_desc(b, r, nattrs); break;
	case FEAT_SAMPLE_TIME: feat_sample_time(b, r); break;
	}
}

int write_perf_data(const char *path, const struct run *r)
{
	static const int feats[] = { FEAT_BUILD_ID, FEAT_HOSTNAME, FEAT_OSRELEASE,
		FEAT_VERSION, FEAT_ARCH, FEAT_NRCPUS, FEAT_CMDLINE, FEAT_EVENT_DESC,
		FEAT_SAMPLE_TIME };
	enum { NFEAT = sizeof feats / sizeof feats[0] };
	int nattrs = has_syscalls(r) ? 2 : 1;
	struct buf b = { 0 };
	uint64_t bits[4] = { 0 };

	/* header, patched at the end */
	put(&b, (uint8_t[HEADER_SIZE]){ 0 }, HEADER_SIZE);
	size_t ids_at = b.n;
	for (int i = 0; i < nattrs; i++)
		put64(&b, i ? ID_SYSCALL : ID_CLOCK);
	size_t attrs_at = b.n;
	for (int i = 0; i < nattrs; i++) {
		struct perf_event_attr a = event_attr(r, i);
		put(&b, &a, ATTR_SIZE);
		put64(&b, ids_at + 8 * (size_t)i);
		put64(&b, 8);
	}
	size_t data_at = b.n;
	data_section(&b, r);
	size_t data_size = b.n - data_at;

	/* feature index, then each feature's bytes */
	size_t index_at = b.n;
	put(&b, (uint8_t[NFEAT * 16]){ 0 }, NFEAT * 16);
	for (int i = 0; i < NFEAT; i++) {
		uint64_t sec[2] = { b.n, 0 };
		feature(&b, feats[i], r, nattrs);
		sec[1] = b.n - sec[0];
		memcpy(b.p + index_at + 16 * (size_t)i, sec, sizeof sec);
		bits[feats[i] / 64] |= 1ull << (feats[i] % 64);
	}

	uint64_t head[HEADER_SIZE / 8] = {
		PERF_MAGIC, HEADER_SIZE, ATTR_SIZE + 16,
		attrs_at, (uint64_t)nattrs * (ATTR_SIZE + 16),
		data_at, data_size,
		0, 0,
		bits[0], bits[1], bits[2], bits[3],
	};
	memcpy(b.p, head, sizeof head);

	FILE *f = fopen(path, "wb");
	int err = !f || fwrite(b.p, 1, b.n, f) != b.n;
	if (f && fclose(f))
		err = 1;
	free(b.p);
	return err ? -1 : 0;
}
