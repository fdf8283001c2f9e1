/*
 * report.txt: per process, the functions with the most samples by self
 * (the sample's leaf was in them) and by total (they were anywhere on the
 * stack), kernel [k] and user [.], like `perf report --stdio`; then the
 * system calls, the validate comparison and every counter.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "util.h"

#define TOP_FUNCTIONS 20
#define MAX_DISAGREEMENTS 20

struct fn {
	const struct frame *f; /* the first frame seen: name, module, file */
	uint64_t self, total;
	size_t stamp;          /* last sample counted in total (no double counting) */
};

struct proc_profile {
	struct proc *p;
	uint64_t samples;
	struct fn *fns;
	size_t n;
	struct hmap index;     /* (name, module|kernel) -> fn + 1 */
};

static struct fn *fn_of(struct proc_profile *pp, const struct frame *f)
{
	uint64_t b = (uint64_t)(uintptr_t)f->module | (uint64_t)f->kernel;
	uintptr_t i = (uintptr_t)hmap_get(&pp->index, (uint64_t)(uintptr_t)f->name, b);
	if (i)
		return &pp->fns[i - 1];
	pp->fns = xrealloc(pp->fns, (pp->n + 1) * sizeof *pp->fns);
	pp->fns[pp->n] = (struct fn){ .f = f, .stamp = (size_t)-1 };
	hmap_put(&pp->index, (uint64_t)(uintptr_t)f->name, b, (void *)(uintptr_t)(pp->n + 1));
	return &pp->fns[pp->n++];
}

static struct proc_profile *profile_of(struct proc_profile **v, size_t *n, struct proc *p)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].p == p)
			return &(*v)[i];
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[*n] = (struct proc_profile){ .p = p };
	return &(*v)[(*n)++];
}

static size_t build_profiles(const struct run *r, struct proc_profile **out)
{
	struct proc_profile *v = NULL;
	size_t n = 0;
	const struct frame **fr = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < r->st->n; i++) {
		const struct stack *k = &r->st->v[i];
		if (!in_view(r, k))
			continue;
		struct proc_profile *pp = profile_of(&v, &n, k->proc);
		uint32_t nf = stack_frames(k, r->sy, &fr, &cap);
		pp->samples++;
		for (uint32_t j = 0; j < nf; j++) {
			struct fn *f = fn_of(pp, fr[j]);
			f->self += j == 0;
			if (f->stamp != i)
				f->total++;
			f->stamp = i;
		}
	}
	free(fr);
	*out = v;
	return n;
}

static int by_self(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return x->total < y->total ? 1 : x->total > y->total ? -1 : strcmp(x->f->name, y->f->name);
}

static int by_total(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->self < y->self ? 1 : x->self > y->self ? -1 : strcmp(x->f->name, y->f->name);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static void fn_table(FILE *f, struct proc_profile *pp, int self_first)
{
	if (pp->n > 1)
		qsort(pp->fns, pp->n, sizeof *pp->fns, self_first ? by_self : by_total);
	fprintf(f, "  %8s %8s %-4s %-32s %-24s %s\n", self_first ? "Self" : "Total",
		self_first ? "Total" : "Self", "", "Function", "Object", "Source");
	for (size_t i = 0; i < pp->n && i < TOP_FUNCTIONS; i++) {
		const struct fn *x = &pp->fns[i];
		if (self_first && !x->self)
			break;
		uint64_t a = self_first ? x->self : x->total, b = self_first ? x->total : x->self;
		fprintf(f, "  %7.2f%% %7.2f%% %-4s %-32s %-24s %s\n", pct(a, pp->samples),
			pct(b, pp->samples), x->f->kernel ? "[k]" : "[.]", x->f->name,
			x->f->module ? x->f->module : "[unknown]",
			x->f->file ? base_name(x->f->file) : "");
	}
}

/* Busiest process first, as perf report sorts by overhead; then by pid. */
static int by_samples(const void *a, const void *b)
{
	const struct proc_profile *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->p->pid < y->p->pid ? -1 : x->p->pid > y->p->pid;
}

#define MAX_THREADS_SHOWN 64

/* A process with several threads: its samples by thread (tid), in the
 * order the threads first appear. */
static void threads_table(FILE *f, const struct run *r, const struct proc_profile *pp)
{
	uint32_t tid[MAX_THREADS_SHOWN];
	uint64_t count[MAX_THREADS_SHOWN], other = 0;
	size_t n = 0;
	for (size_t i = 0; i < r->st->n; i++) {
		const struct stack *k = &r->st->v[i];
		if (!in_view(r, k) || k->proc != pp->p)
			continue;
		size_t j = 0;
		while (j < n && tid[j] != k->s->tid)
			j++;
		if (j == n && n == MAX_THREADS_SHOWN) {
			other++;
			continue;
		}
		if (j == n) {
			tid[n] = k->s->tid;
			count[n++] = 0;
		}
		count[j]++;
	}
	if (n < 2)
		return;
	fputs("By thread:\n       tid   samples\n", f);
	for (size_t j = 0; j < n; j++)
		fprintf(f, "  %8u %9" PRIu64 " %6.2f%%%s\n", tid[j], count[j],
			pct(count[j], pp->samples), tid[j] == pp->p->pid ? "  (first thread)" : "");
	if (other)
		fprintf(f, "  %8s %9" PRIu64 " %6.2f%%\n", "others", other, pct(other, pp->samples));
	fputc('\n', f);
}

static void profiles(FILE *f, const struct run *r)
{
	struct proc_profile *v;
	size_t n = build_profiles(r, &v);
	uint64_t all = 0;
	if (n > 1)
		qsort(v, n, sizeof *v, by_samples);
	for (size_t i = 0; i < n; i++)
		all += v[i].samples;
	for (size_t i = 0; i < n; i++) {
		struct proc_profile *pp = &v[i];
		fprintf(f, "\n== %s (pid %u): %" PRIu64 " samples, %.2f%% of all; shares below "
			"are of this process ==\n\n", pp->p->comm, pp->p->pid,
			pp->samples, pct(pp->samples, all));
		threads_table(f, r, pp);
		fputs("By self:\n", f);
		fn_table(f, pp, 1);
		fputs("\nBy total (self plus callees):\n", f);
		fn_table(f, pp, 0);
		free(pp->fns);
		hmap_free(&pp->index, NULL);
	}
	free(v);
}

/* Traced system calls: how many of each number, per process. */
static void syscalls(FILE *f, const struct run *r)
{
	struct hmap seen = { 0 };
	uint64_t n = 0;
	for (size_t i = 0; i < r->st->n; i++)
		n += !in_profile(&r->st->v[i]);
	if (!n)
		return;
	fprintf(f, "\n== system calls traced: %" PRIu64 " ==\n", n);
	/* One line per (process, number), where the pair first occurs. */
	for (size_t i = 0; i < r->st->n; i++) {
		const struct stack *k = &r->st->v[i];
		if (in_profile(k) || hmap_get(&seen, k->proc->index, k->s->aux))
			continue;
		hmap_put(&seen, k->proc->index, k->s->aux, (void *)1);
		uint64_t count = 0;
		for (size_t j = i; j < r->st->n; j++) {
			const struct stack *o = &r->st->v[j];
			count += !in_profile(o) && o->proc == k->proc && o->s->aux == k->s->aux;
		}
		fprintf(f, "  %-16s pid %-6u syscall %-4u %10" PRIu64 "\n", stack_comm(k), k->proc->pid,
			k->s->aux, count);
	}
	hmap_free(&seen, NULL);
}

static void chain_line(FILE *f, const struct run *r, const char *what, int width,
		       struct proc *p, const uint64_t *ips, uint32_t n)
{
	fprintf(f, "    %-*s", width, what);
	for (uint32_t i = 0; i < n; i++) {
		const struct frame *fr = symbols_frame(r->sy, p, ips[i], 0, i > 0);
		fprintf(f, "%s%s", i ? " <- " : " ", fr->known ? fr->name : "");
		if (!fr->known)
			fprintf(f, "%#" PRIx64, ips[i]);
	}
	fputc('\n', f);
}

static void validation(FILE *f, const struct run *r)
{
	const struct counters *c = r->c;
	if (!c->validate_samples)
		return;
	/* validate-eh compares the deferred .eh_frame chain. */
	bool eh = r->stream->head.mode == MODE_VALIDATE_EH;
	const char *ours = eh ? "eh-frame:" : "sframe:";
	int width = eh ? 9 : 7;
	fprintf(f, "\n== %s: the deferred %s chain and libdw's chain from the stack copy ==\n"
		"  agree on %" PRIu64 " of %" PRIu64 " samples (%.2f%%), differ on %" PRIu64,
		mode_name(r->stream->head.mode), eh ? ".eh_frame" : "SFrame",
		c->validate_agree, c->validate_samples,
		pct(c->validate_agree, c->validate_samples), c->validate_disagree);
	if (c->validate_disagree)
		fprintf(f, " (%" PRIu64 " of them only where the stack copy ended, %" PRIu64
			" for a word below sp)", c->validate_copy_short, c->validate_copy_below);
	fputc('\n', f);
	uint64_t shown = 0;
	for (size_t i = 0; i < r->st->n; i++) {
		const struct stack *k = &r->st->v[i];
		if (!k->validated || k->agree)
			continue;
		if (shown++ == MAX_DISAGREEMENTS) {
			fprintf(f, "  ... %" PRIu64 " more\n", c->validate_disagree - MAX_DISAGREEMENTS);
			break;
		}
		uint32_t d = 0;
		while (d < k->nu && d < k->ncopy && k->uips[d] == k->copy_ips[d])
			d++;
		fprintf(f, "  %s pid %u tid %u time %" PRIu64 " ns: first difference at frame %u",
			stack_comm(k), k->s->pid, k->s->tid, time_ns(r, k->s->time), d);
		if (k->copy_why)
			fprintf(f, " (%s)", k->copy_why);
		fputc('\n', f);
		chain_line(f, r, ours, width, k->proc, k->uips, k->nu);
		chain_line(f, r, "libdw:", width, k->proc, k->copy_ips, k->ncopy);
	}
}

static void run_counters(FILE *f, const struct run *r)
{
	uint64_t stops[UNWIND_STOP_COUNT + 1] = { 0 };
	fputs("\n== run counters (REC_STATS) ==\n", f);
	for (size_t i = 0; i < r->stream->nrecs; i++) {
		const struct record *rec = &r->stream->recs[i];
		if (rec->type == REC_DEFERRED)
			stops[rec->u.deferred.stop < UNWIND_STOP_COUNT ? rec->u.deferred.stop
								      : UNWIND_STOP_COUNT]++;
		if (rec->type != REC_STATS)
			continue;
		for (uint32_t j = 0; j < rec->u.stats.count; j++)
			fprintf(f, "  %-31s %10" PRIu64 "\n", rec->u.stats.stat[j].name,
				rec->u.stats.stat[j].value);
	}
	fputs("\n== deferred unwinds by stop reason ==\n", f);
	for (uint32_t s = 0; s <= UNWIND_STOP_COUNT; s++)
		fprintf(f, "  %-31s %10" PRIu64 "\n", stop_name(s), stops[s]);
	fputs("\n== stitch counters ==\n", f);
	counters_print(f, r->c);
}

void write_report(FILE *f, const struct run *r)
{
	const struct rec_stream *h = &r->stream->head;
	const struct counters *c = r->c;
	fprintf(f, "# Stitch profile of %s\n", r->records_path);
	fprintf(f, "# mode %s, %u cpus, sampling at %u Hz, tsc %" PRIu64 " Hz, deferred unwinds "
		"bounded at %u frames\n", mode_name(h->mode), h->ncpus, h->sample_hz, h->tsc_hz,
		h->max_frames);
	fprintf(f, "# %" PRIu64 " samples: %" PRIu64 " with a deferred user stack, %" PRIu64
		" stitched, %" PRIu64 " missing it; %" PRIu64 " deferred records (%" PRIu64
		" duplicate, %" PRIu64 " orphan); %" PRIu64 " records lost\n",
		c->samples, c->samples_deferred, c->samples_stitched, c->samples_missing,
		c->deferred, c->deferred_duplicate, c->deferred_orphan, c->lost);
	if (idle_left_out(r))
		fprintf(f, "# %" PRIu64 " idle samples (pid 0 in the kernel's idle loop) left out of the "
			"processes below; stitch --idle keeps them\n", idle_left_out(r));
	char damage[256];
	if (counters_damage(c, damage, sizeof damage))
		fprintf(f, "# WARNING: damaged stream (%s); what could be read was used, "
			"counters below\n", damage);
	profiles(f, r);
	syscalls(f, r);
	validation(f, r);
	run_counters(f, r);
}
