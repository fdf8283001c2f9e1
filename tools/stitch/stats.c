/*
 * stats.json (--stats FILE): the run in numbers, for programs rather than
 * people (tools/bench reads it): the stream's parameters, the bytes each
 * record type took, the kernel's REC_STATS counters and stitch's own, how
 * each sample got its user part, how deferred unwinds ended and how many
 * samples shared one, and each process life with its start, exit,
 * samples and how far their user stacks reached. Everything here is counted by the same code that writes the
 * other outputs; this file only adds it up.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "util.h"

#define NTYPES (REC_MAP_COUNTS + 1)

static const char *const part_names[] = {
	[USER_NONE] = "none", [USER_INLINE] = "inline", [USER_DEFERRED] = "deferred",
	[USER_STACK_COPY] = "stack_copy", [USER_MISSING] = "missing",
};
#define NPARTS (sizeof part_names / sizeof part_names[0])

/* The bytes of a rec_stack_copy as the sample record carries it. */
static uint64_t copy_bytes(const struct stack_copy *sc)
{
	return sizeof(uint64_t) * (REC_NREGS + 1) + (sc->size + 7) / 8 * 8;
}

static void stream_part(FILE *f, const struct run *r)
{
	const struct rec_stream *h = &r->stream->head;
	fprintf(f, "\"stream\":{\"mode\":\"%s\",\"ncpus\":%" PRIu32 ",\"tsc_hz\":%" PRIu64
		",\"sample_hz\":%" PRIu32 ",\"max_frames\":%" PRIu32 ",\"ended\":%s}",
		mode_name(h->mode), h->ncpus, h->tsc_hz, h->sample_hz, h->max_frames,
		r->stream->ended ? "true" : "false");
}

/* Records and bytes per type; REC_STREAM is the header (not in recs). */
static void bytes_part(FILE *f, const struct run *r)
{
	uint64_t count[NTYPES] = { 0 }, bytes[NTYPES] = { 0 }, copies = 0, total = 0;
	if (r->stream->head.magic == REC_STREAM_MAGIC) {
		count[REC_STREAM] = 1;
		bytes[REC_STREAM] = sizeof(struct rec_stream);
	}
	for (size_t i = 0; i < r->stream->nrecs; i++) {
		const struct record *rec = &r->stream->recs[i];
		count[rec->type]++;
		bytes[rec->type] += rec->size;
		if (rec->type == REC_SAMPLE && rec->u.sample.copy)
			copies += copy_bytes(rec->u.sample.copy);
	}
	fputs("\"records\":{", f);
	for (size_t t = 1; t < NTYPES; t++) {
		fprintf(f, "%s\"%s\":{\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
			t > 1 ? "," : "", type_name((uint32_t)t), count[t], bytes[t]);
		total += bytes[t];
	}
	fprintf(f, "},\"bytes_total\":%" PRIu64 ",\"bytes_stack_copy\":%" PRIu64, total, copies);
}

static void kernel_part(FILE *f, const struct run *r)
{
	int first = 1;
	fputs("\"kernel\":{", f);
	for (size_t i = 0; i < r->stream->nrecs; i++) {
		const struct record *rec = &r->stream->recs[i];
		if (rec->type != REC_STATS)
			continue;
		for (uint32_t j = 0; j < rec->u.stats.count; j++) {
			fprintf(f, "%s", first ? "" : ",");
			json_str(f, rec->u.stats.stat[j].name);
			fprintf(f, ":%" PRIu64, rec->u.stats.stat[j].value);
			first = 0;
		}
	}
	fputc('}', f);
}

/*
 * Per sample of the profile (cpu-clock): where its user part came from,
 * its frames; per deferred record: why it stopped, and whether any sample
 * used it (the unwinds that served samples: samples_stitched divided by
 * these is the coalescing factor).
 */
static void chains_part(FILE *f, const struct run *r)
{
	uint64_t parts[NPARTS] = { 0 }, ufr = 0, kfr = 0, truncated = 0, used = 0;
	uint64_t stops[UNWIND_STOP_COUNT + 1] = { 0 };
	const struct stream *s = r->stream;
	char *seen = xcalloc(s->nrecs ? s->nrecs : 1, 1);
	for (size_t i = 0; i < r->st->n; i++) {
		const struct stack *k = &r->st->v[i];
		if (!in_profile(k))
			continue;
		parts[k->user]++;
		ufr += k->nu;
		kfr += k->nk;
		if (!k->d)
			continue;
		truncated += k->d->stop != UNWIND_STOP_END;
		size_t at = (size_t)((const char *)k->d - (const char *)&s->recs[0].u.deferred) /
			    sizeof *s->recs;
		used += !seen[at];
		seen[at] = 1;
	}
	free(seen);
	for (size_t i = 0; i < s->nrecs; i++)
		if (s->recs[i].type == REC_DEFERRED) {
			uint32_t stop = s->recs[i].u.deferred.stop;
			stops[stop < UNWIND_STOP_COUNT ? stop : UNWIND_STOP_COUNT]++;
		}
	fputs("\"user_parts\":{", f);
	for (size_t p = 0; p < NPARTS; p++)
		fprintf(f, "%s\"%s\":%" PRIu64, p ? "," : "", part_names[p], parts[p]);
	fprintf(f, "},\"user_frames\":%" PRIu64 ",\"kernel_frames\":%" PRIu64
		",\"samples_truncated\":%" PRIu64 ",\"deferred_used\":%" PRIu64
		",\"deferred_stop\":{", ufr, kfr, truncated, used);
	for (uint32_t w = 0; w <= UNWIND_STOP_COUNT; w++)
		fprintf(f, "%s\"%s\":%" PRIu64, w ? "," : "", stop_name(w), stops[w]);
	fputc('}', f);
}

/* The name of a user frame of k (i from the leaf), "" without a symbol. */
static const char *user_name(const struct run *r, const struct stack *k, uint32_t i)
{
	const struct frame *fr = symbols_frame(r->sy, k->proc, k->uips[i], 0, i > 0);
	return fr->known ? fr->name : "";
}

/* How far each sample's user stack reached (its outermost frame _start,
 * as crt0 starts every program; main among its frames) and, where the
 * sample carried a stack copy too, whether libdw's unwind of it gave the
 * same chain: per process, for make bench's compat part. */
struct reach {
	uint64_t user, at_start, has_main, validated, agree;
};

static void reach_add(struct reach *n, const struct run *r, const struct stack *k)
{
	n->validated += k->validated;
	n->agree += k->validated && k->agree;
	if (!k->nu)
		return;
	n->user++;
	n->at_start += !k->cut && !strcmp(user_name(r, k, k->nu - 1), "_start");
	for (uint32_t i = 0; i < k->nu; i++)
		if (!strcmp(user_name(r, k, i), "main")) {
			n->has_main++;
			break;
		}
}

static void procs_part(FILE *f, const struct run *r)
{
	fputs("\"processes\":[", f);
	for (size_t i = 0; i < r->procs->n; i++) {
		const struct proc *p = r->procs->v[i];
		uint64_t samples = 0, ufr = 0;
		struct reach n = { 0 };
		for (size_t j = 0; j < r->st->n; j++) {
			const struct stack *k = &r->st->v[j];
			if (k->proc == p && in_profile(k)) {
				samples++;
				ufr += k->nu;
				reach_add(&n, r, k);
			}
		}
		fprintf(f, "%s{\"pid\":%" PRIu32 ",\"comm\":", i ? "," : "", p->pid);
		json_str(f, p->comm);
		fprintf(f, ",\"start\":%" PRIu64 ",\"exit\":", p->t_comm);
		if (p->exited)
			fprintf(f, "%" PRIu64, p->t_exit);
		else
			fputs("null", f);
		fprintf(f, ",\"samples\":%" PRIu64 ",\"user_frames\":%" PRIu64
			",\"user_samples\":%" PRIu64 ",\"at_start\":%" PRIu64 ",\"has_main\":%" PRIu64
			",\"validated\":%" PRIu64 ",\"agree\":%" PRIu64 "}", samples, ufr, n.user,
			n.at_start, n.has_main, n.validated, n.agree);
	}
	fputc(']', f);
}

void write_stats(FILE *f, const struct run *r)
{
	fputs("{\"input\":", f);
	json_str(f, r->records_path);
	fputc(',', f);
	stream_part(f, r);
	fputc(',', f);
	bytes_part(f, r);
	fputc(',', f);
	kernel_part(f, r);
	fputc(',', f);
	json_counters(f, r->c);
	fputc(',', f);
	chains_part(f, r);
	fputc(',', f);
	procs_part(f, r);
	fputs("}\n", f);
}
