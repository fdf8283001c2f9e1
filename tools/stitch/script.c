/*
 * perf-script-like listings. write_script() prints the stitched samples;
 * write_raw() prints every record as it came, deferred markers and cookies
 * included, so the deferral can be followed by eye (--no-stitch).
 */
#include <inttypes.h>

#include "output.h"

uint64_t time_ns(const struct run *r, uint64_t ticks)
{
	uint64_t hz = r->stream->head.tsc_hz;
	if (!hz)
		return ticks; /* no clock rate: show the raw stamps */
	return (uint64_t)((unsigned __int128)ticks * 1000000000u / hz);
}

const char *event_name(const struct sample_rec *s)
{
	return s->event == SAMPLE_EVENT_SYSCALL ? "syscall" : "cpu-clock";
}

const char *stack_comm(const struct stack *k)
{
	return k->proc->comm;
}

int in_profile(const struct stack *k)
{
	return k->s->event == SAMPLE_EVENT_CPU_CLOCK;
}

int in_view(const struct run *r, const struct stack *k)
{
	return in_profile(k) && (r->keep_idle || !k->idle);
}

uint64_t idle_left_out(const struct run *r)
{
	return r->keep_idle ? 0 : r->c->samples_idle;
}

static void print_head(FILE *f, const struct run *r, const char *comm, uint32_t pid,
		       uint32_t tid, uint32_t cpu, uint64_t time)
{
	uint64_t ns = time_ns(r, time);
	fprintf(f, "%16s %6u/%-6u [%03u] %5" PRIu64 ".%09" PRIu64 ": ",
		comm, pid, tid, cpu, ns / 1000000000u, ns % 1000000000u);
}

static void print_frame(FILE *f, const struct frame *fr)
{
	if (fr->known)
		fprintf(f, "\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)", fr->addr, fr->name,
			fr->off, fr->module);
	else
		fprintf(f, "\t%16" PRIx64 " %s (%s)", fr->addr, fr->name,
			fr->module ? fr->module : "[unknown]");
	if (fr->file)
		fprintf(f, " %s:%d", fr->file, fr->line);
	fputc('\n', f);
}

static void print_addrs(FILE *f, const struct run *r, struct proc *p,
			const uint64_t *ips, uint32_t n, int kernel)
{
	for (uint32_t i = 0; i < n; i++)
		print_frame(f, symbols_frame(r->sy, p, ips[i], kernel, i > 0));
}

static void print_sample_line(FILE *f, const struct run *r, const struct stack *k)
{
	const struct sample_rec *s = k->s;
	print_head(f, r, stack_comm(k), s->pid, s->tid, s->cpu, s->time);
	fprintf(f, "%10" PRIu64 " %s:", s->period, event_name(s));
	if (s->event == SAMPLE_EVENT_SYSCALL)
		fprintf(f, " nr %u", s->aux);
	fputc('\n', f);
}

void write_script(FILE *f, const struct run *r)
{
	for (size_t i = 0; i < r->st->n; i++) {
		const struct stack *k = &r->st->v[i];
		print_sample_line(f, r, k);
		print_addrs(f, r, k->proc, k->kips, k->nk, 1);
		print_addrs(f, r, k->proc, k->uips, k->nu, 0);
		if (k->user == USER_MISSING)
			fprintf(f, "\t%16s [user stack missing] (cookie %#" PRIx64 ")\n", "", k->cookie);
		fputc('\n', f);
	}
}

/* A sample exactly as recorded: its contexts, markers and cookie. */
static void raw_sample(FILE *f, const struct run *r, const struct sample_rec *s)
{
	struct proc *p = proc_at(r->procs, s->pid, s->time);
	struct stack k = { .s = s, .proc = p };
	int kernel = !(s->flags & SAMPLE_USER), pos = 0;
	print_sample_line(f, r, &k);
	for (uint32_t i = 0; i < s->nr; i++, pos++) {
		uint64_t v = s->ips[i];
		if (v == PERF_CONTEXT_KERNEL || v == PERF_CONTEXT_USER) {
			kernel = v == PERF_CONTEXT_KERNEL;
			pos = -1;
			fprintf(f, "\t%16s %s\n", "", kernel ? "PERF_CONTEXT_KERNEL" : "PERF_CONTEXT_USER");
		} else if (v == PERF_CONTEXT_USER_DEFERRED) {
			fprintf(f, "\t%16s PERF_CONTEXT_USER_DEFERRED cookie %#" PRIx64 "\n", "",
				i + 1 < s->nr ? s->ips[i + 1] : 0);
			break;
		} else {
			print_frame(f, symbols_frame(r->sy, p, v, kernel, pos > 0));
		}
	}
	if (s->copy)
		fprintf(f, "\t%16s stack copy: %" PRIu64 " bytes from sp %#" PRIx64 ", ip %#" PRIx64 "\n",
			"", s->copy->size, s->copy->regs[REC_REG_SP], s->copy->regs[REC_REG_IP]);
}

static void raw_deferred(FILE *f, const struct run *r, const struct deferred_rec *d)
{
	struct proc *p = proc_at(r->procs, d->pid, d->time);
	print_head(f, r, p->comm, d->pid, d->tid, d->cpu, d->time);
	fprintf(f, "%10" PRIu64 " deferred callchain: cookie %#" PRIx64 " stop %s\n",
		d->period, d->cookie, stop_name(d->stop));
	for (uint32_t i = 0, pos = 0; i < d->nr; i++) {
		if (d->ips[i] == PERF_CONTEXT_USER)
			fprintf(f, "\t%16s PERF_CONTEXT_USER\n", "");
		else
			print_frame(f, symbols_frame(r->sy, p, d->ips[i], 0, pos++ > 0));
	}
}

static void raw_other(FILE *f, const struct run *r, const struct record *rec)
{
	switch (rec->type) {
	case REC_COMM: {
		const struct comm_rec *m = &rec->u.comm;
		print_head(f, r, m->name, m->pid, m->tid, 0, m->time);
		fprintf(f, "COMM %s ppid %u%s\n", m->name, m->ppid,
			m->flags & COMM_EXEC ? " exec" : "");
		break;
	}
	case REC_MMAP: {
		const struct mmap_rec *m = &rec->u.mmap;
		print_head(f, r, m->flags & MMAP_KERNEL ? "[kernel]" :
			   proc_at(r->procs, m->pid, m->time)->comm, m->pid, m->tid, 0, m->time);
		fprintf(f, "MMAP [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64 "]%s: %s\n",
			m->start, m->len, m->pgoff, m->flags & MMAP_KERNEL ? " kernel" : "", m->path);
		break;
	}
	case REC_EXIT: {
		const struct exit_rec *m = &rec->u.exit;
		print_head(f, r, proc_at(r->procs, m->pid, m->time)->comm, m->pid, m->tid, 0, m->time);
		fprintf(f, m->flags & EXIT_THREAD ? "EXIT thread status %d\n" : "EXIT status %d\n",
			m->status);
		break;
	}
	case REC_LOST:
		fprintf(f, "LOST cpu %u: %" PRIu64 " records dropped\n", rec->u.lost.cpu,
			rec->u.lost.count);
		break;
	case REC_STATS:
		fprintf(f, "STATS %u counters\n", rec->u.stats.count);
		for (uint32_t i = 0; i < rec->u.stats.count; i++)
			fprintf(f, "\t%-31s %" PRIu64 "\n", rec->u.stats.stat[i].name,
				rec->u.stats.stat[i].value);
		break;
	case REC_END:
		fprintf(f, "END after %" PRIu64 " records\n", rec->u.end.records);
		break;
	}
}

void write_raw(FILE *f, const struct run *r)
{
	const struct rec_stream *h = &r->stream->head;
	fprintf(f, "STREAM version %u, mode %s, %u cpus, tsc %" PRIu64 " Hz, %u Hz sampling, "
		"max %u frames\n", h->version, mode_name(h->mode), h->ncpus, h->tsc_hz,
		h->sample_hz, h->max_frames);
	for (size_t i = 0; i < r->stream->nrecs; i++) {
		const struct record *rec = &r->stream->recs[i];
		if (rec->type == REC_SAMPLE)
			raw_sample(f, r, &rec->u.sample);
		else if (rec->type == REC_DEFERRED)
			raw_deferred(f, r, &rec->u.deferred);
		else
			raw_other(f, r, rec);
		if (rec->type == REC_SAMPLE || rec->type == REC_DEFERRED)
			fputc('\n', f);
	}
}
