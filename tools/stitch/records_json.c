/*
 * records.json (--records-json FILE): every record of the stream as the
 * reader parsed it, for programs (the tests read the kernel's streams
 * through this, not through a second decoder of the format). Addresses,
 * cookies and register values are hex strings ("0x..."), since they use
 * all 64 bits and JSON readers keep only 53 of a number; counts and times
 * are numbers. Stack copies carry their bytes as a hex string. The
 * stream's damage is in "stitch", stitch's counters (counters.h).
 */
#include <inttypes.h>

#include "output.h"
#include "util.h"

static void hex(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, ",\"%s\":\"0x%" PRIx64 "\"", key, v);
}

static void hex_list(FILE *f, const char *key, const uint64_t *v, uint64_t n)
{
	fprintf(f, ",\"%s\":[", key);
	for (uint64_t i = 0; i < n; i++)
		fprintf(f, "%s\"0x%" PRIx64 "\"", i ? "," : "", v[i]);
	fputc(']', f);
}

static void sample(FILE *f, const struct sample_rec *s)
{
	fprintf(f, ",\"time\":%" PRIu64 ",\"cpu\":%" PRIu32 ",\"pid\":%" PRIu32
		",\"tid\":%" PRIu32 ",\"event\":%u,\"flags\":%u,\"period\":%" PRIu64
		",\"aux\":%" PRIu32, s->time, s->cpu, s->pid, s->tid, s->event,
		s->flags, s->period, s->aux);
	hex(f, "ip", s->ip);
	hex_list(f, "ips", s->ips, s->nr);
	if (!s->copy)
		return;
	hex_list(f, "copy_regs", s->copy->regs, REC_NREGS);
	fputs(",\"copy\":\"", f);
	for (uint64_t i = 0; i < s->copy->size; i++)
		fprintf(f, "%02x", s->copy->stack[i]);
	fputc('"', f);
}

static void deferred(FILE *f, const struct deferred_rec *d)
{
	fprintf(f, ",\"time\":%" PRIu64 ",\"cpu\":%" PRIu32 ",\"pid\":%" PRIu32
		",\"tid\":%" PRIu32 ",\"stop\":%" PRIu32 ",\"stop_name\":\"%s\""
		",\"period\":%" PRIu64 ",\"consumer\":%" PRIu32, d->time, d->cpu,
		d->pid, d->tid, d->stop, stop_name(d->stop), d->period, d->consumer);
	hex(f, "cookie", d->cookie);
	hex_list(f, "ips", d->ips, d->nr);
}

static void mmap_fields(FILE *f, const struct mmap_rec *m)
{
	fprintf(f, ",\"time\":%" PRIu64 ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
		",\"flags\":%" PRIu32 ",\"build_id\":\"", m->time, m->pid, m->tid, m->flags);
	for (uint32_t i = 0; i < m->build_id_size; i++)
		fprintf(f, "%02x", m->build_id[i]);
	fputc('"', f);
	hex(f, "start", m->start);
	hex(f, "len", m->len);
	hex(f, "pgoff", m->pgoff);
	fputs(",\"path\":", f);
	json_str(f, m->path);
}

static void stats_fields(FILE *f, const struct stats_rec *st)
{
	fputs(",\"stats\":{", f);
	for (uint32_t i = 0; i < st->count; i++) {
		fputs(i ? "," : "", f);
		json_str(f, st->stat[i].name);
		fprintf(f, ":%" PRIu64, st->stat[i].value);
	}
	fputc('}', f);
}

static void map_counts(FILE *f, const struct map_counts_rec *m)
{
	fprintf(f, ",\"time\":%" PRIu64 ",\"period\":%" PRIu64 ",\"counts\":[",
		m->time, m->period);
	for (uint32_t i = 0; i < m->n; i++) {
		const struct rec_map_count *c = &m->c[i];
		fprintf(f, "%s{\"pid\":%" PRIu32 ",\"program\":%" PRIu32 ",\"kstack\":%" PRIu32
			",\"ustack\":%" PRIu32 ",\"user\":%" PRIu32 ",\"count\":%" PRIu64 "}",
			i ? "," : "", c->pid, c->program, c->kstack, c->ustack, c->user, c->count);
	}
	fputc(']', f);
}

static void record(FILE *f, const struct record *r)
{
	fprintf(f, "{\"type\":\"%s\",\"offset\":%" PRIu64 ",\"size\":%" PRIu32,
		type_name(r->type), r->offset, r->size);
	switch (r->type) {
	case REC_COMM:
		fprintf(f, ",\"time\":%" PRIu64 ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
			",\"ppid\":%" PRIu32 ",\"flags\":%" PRIu32 ",\"name\":", r->u.comm.time,
			r->u.comm.pid, r->u.comm.tid, r->u.comm.ppid, r->u.comm.flags);
		json_str(f, r->u.comm.name);
		break;
	case REC_MMAP: mmap_fields(f, &r->u.mmap); break;
	case REC_SAMPLE: sample(f, &r->u.sample); break;
	case REC_DEFERRED: deferred(f, &r->u.deferred); break;
	case REC_EXIT:
		fprintf(f, ",\"time\":%" PRIu64 ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
			",\"status\":%" PRId32 ",\"flags\":%" PRIu32, r->u.exit.time,
			r->u.exit.pid, r->u.exit.tid, r->u.exit.status, r->u.exit.flags);
		break;
	case REC_LOST:
		fprintf(f, ",\"cpu\":%" PRIu32 ",\"count\":%" PRIu64, r->u.lost.cpu,
			r->u.lost.count);
		break;
	case REC_STATS: stats_fields(f, &r->u.stats); break;
	case REC_MAP_STACK:
		fprintf(f, ",\"time\":%" PRIu64 ",\"id\":%" PRIu32 ",\"kind\":%u",
			r->u.map_stack.time, r->u.map_stack.id, r->u.map_stack.kind);
		hex_list(f, "ips", r->u.map_stack.ips, r->u.map_stack.nr);
		break;
	case REC_MAP_COUNTS: map_counts(f, &r->u.map_counts); break;
	case REC_END:
		fprintf(f, ",\"time\":%" PRIu64 ",\"records\":%" PRIu64, r->u.end.time,
			r->u.end.records);
		break;
	}
	fputc('}', f);
}

void write_records_json(FILE *f, const struct run *r)
{
	const struct rec_stream *h = &r->stream->head;
	fputs("{\"input\":", f);
	json_str(f, r->records_path);
	if (h->magic == REC_STREAM_MAGIC)
		fprintf(f, ",\"stream\":{\"version\":%" PRIu32 ",\"ncpus\":%" PRIu32
			",\"tsc_hz\":%" PRIu64 ",\"mode\":%" PRIu32 ",\"mode_name\":\"%s\""
			",\"sample_hz\":%" PRIu32 ",\"max_frames\":%" PRIu32 "}",
			h->version, h->ncpus, h->tsc_hz, h->mode, mode_name(h->mode),
			h->sample_hz, h->max_frames);
	else
		fputs(",\"stream\":null", f);
	fprintf(f, ",\"ended\":%s,\"stop_names\":[", r->stream->ended ? "true" : "false");
	for (uint32_t w = 0; w < UNWIND_STOP_COUNT; w++)
		fprintf(f, "%s\"%s\"", w ? "," : "", stop_name(w));
	fputs("],", f);
	json_counters(f, r->c);
	fputs(",\"records\":[\n", f);
	for (size_t i = 0; i < r->stream->nrecs; i++) {
		record(f, &r->stream->recs[i]);
		fputs(i + 1 < r->stream->nrecs ? ",\n" : "\n", f);
	}
	fputs("]}\n", f);
}
