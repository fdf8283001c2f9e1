#include "stitch.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "unwind.h"
#include "util.h"

#define MAX_HOST_FRAMES 1024 /* the most frames unwound from a stack copy */

/* perf's markers are the last 4095 values of a u64 (PERF_CONTEXT_MAX). */
static int is_marker(uint64_t v)
{
	return v >= (uint64_t)-4095;
}

/* A run of addresses of one context inside a callchain. */
struct span {
	const uint64_t *ips;
	uint32_t n;
	int seen;
};

/*
 * Split a sample's callchain into its kernel and user spans and its
 * deferred cookie. Anything out of place is counted once per sample.
 */
static void split_chain(const struct sample_rec *s, struct span *k, struct span *u,
			int *deferred, uint64_t *cookie, struct counters *c)
{
	struct span *cur = NULL;
	int bad = 0;
	for (uint32_t i = 0; i < s->nr; i++) {
		uint64_t v = s->ips[i];
		if (v == PERF_CONTEXT_KERNEL || v == PERF_CONTEXT_USER) {
			cur = v == PERF_CONTEXT_KERNEL ? k : u;
			bad |= cur->seen;  /* a context twice: keep the first */
			cur = cur->seen ? NULL : cur;
			if (cur)
				*cur = (struct span){ s->ips + i + 1, 0, 1 };
		} else if (v == PERF_CONTEXT_USER_DEFERRED) {
			*deferred = 1;
			bad |= i + 2 != s->nr; /* the cookie must be the last entry */
			*cookie = i + 1 < s->nr ? s->ips[i + 1] : 0;
			break;
		} else if (is_marker(v) || !cur) {
			bad = 1;           /* unknown context, or no context yet */
			cur = NULL;
		} else {
			cur->n++;
		}
	}
	c->bad_callchain += bad;
}

/* The user addresses of a deferred record, past its PERF_CONTEXT_USER. */
static struct span deferred_span(const struct deferred_rec *d, struct counters *c)
{
	struct span sp = { d->ips, d->nr, 1 };
	if (sp.n && sp.ips[0] == PERF_CONTEXT_USER) {
		sp.ips++;
		sp.n--;
	} else {
		c->bad_callchain++;
	}
	for (uint32_t i = 0; i < sp.n; i++)
		if (is_marker(sp.ips[i])) {
			c->bad_callchain++;
			sp.n = i;
		}
	return sp;
}

/* What the cookie table holds for each deferred record. */
struct pending {
	const struct deferred_rec *d;
	struct span user;
	int used;
};

static uint64_t thread_key(const struct proc *p, uint32_t tid)
{
	return (uint64_t)p->index << 32 | tid;
}

static void index_deferred(struct hmap *cookies, struct pending **all, size_t *n,
			   const struct stream *s, struct procs *procs, struct counters *c)
{
	*all = xcalloc(s->nrecs, sizeof **all);
	*n = 0;
	for (size_t i = 0; i < s->nrecs; i++) {
		if (s->recs[i].type != REC_DEFERRED)
			continue;
		const struct deferred_rec *d = &s->recs[i].u.deferred;
		struct pending *pd = &(*all)[(*n)++];
		c->deferred++;
		c->deferred_incomplete += d->stop != UNWIND_STOP_END;
		pd->d = d;
		pd->user = deferred_span(d, c);
		if (!d->cookie) {
			c->cookie_zero++;
			continue;
		}
		uint64_t key = thread_key(proc_at(procs, d->pid, d->time), d->tid);
		struct pending *first = hmap_get(cookies, key, d->cookie);
		if (first) {
			/* Each consumer that asked gets its own record of the one
			 * unwind (sampler, tracer): only a repeat for the same
			 * consumer is a duplicate. The first one stands. */
			c->deferred_duplicate += first->d->consumer == d->consumer;
			pd->used = 1; /* and this one is no orphan */
			continue;
		}
		hmap_put(cookies, key, d->cookie, pd);
	}
}

static void stitch_one(struct stack *k, struct hmap *cookies, uint64_t cookie,
		       struct counters *c)
{
	struct pending *pd = cookie ? hmap_get(cookies, thread_key(k->proc, k->s->tid), cookie) : NULL;
	c->samples_deferred++;
	c->cookie_zero += cookie == 0;
	k->cookie = cookie;
	if (!pd) {
		k->user = USER_MISSING;
		c->samples_missing++;
		/* An NMI that hit user mode still knows where: keep that frame. */
		if (k->s->flags & SAMPLE_USER && !k->nk) {
			k->uips = &k->s->ip;
			k->nu = 1;
		}
		return;
	}
	pd->used = 1;
	k->d = pd->d;
	k->uips = pd->user.ips;
	k->nu = pd->user.n;
	k->user = USER_DEFERRED;
	k->cut = pd->d->stop == UNWIND_STOP_MAX_FRAMES;
	c->samples_stitched++;
}

static void from_copy(struct stack *k, struct symbols *sy, uint32_t max, struct counters *c)
{
	c->stack_copies++;
	k->copy_ips = xcalloc(max, sizeof *k->copy_ips);
	k->ncopy = unwind_copy(sy, k->proc, k->s, k->copy_ips, max);
	k->copy_ips = xrealloc(k->copy_ips, k->ncopy * sizeof *k->copy_ips);
	if (k->user == USER_DEFERRED) {
		k->validated = 1;
		k->agree = k->nu == k->ncopy &&
			   (!k->nu || !memcmp(k->uips, k->copy_ips, k->nu * sizeof *k->uips));
		/* The copy is not the whole stack: it ends at the record's
		 * room or at a page not present, and starts at sp, without
		 * the red zone. libdw's unwind may stop for a word it does
		 * not hold, a chain shorter than the deferred one for want
		 * of bytes, not a different one. */
		bool prefix = !k->agree && k->ncopy < k->nu &&
			      !memcmp(k->uips, k->copy_ips, k->ncopy * sizeof *k->uips);
		k->copy_why = !prefix ? NULL :
			      k->proc->copy_past_end ? "the stack copy ended" :
			      k->proc->copy_below_sp ? "a word below sp, not in the copy" : NULL;
		c->validate_samples++;
		c->validate_agree += k->agree;
		c->validate_disagree += !k->agree;
		c->validate_copy_short += k->copy_why && k->proc->copy_past_end;
		c->validate_copy_below += k->copy_why && !k->proc->copy_past_end;
	} else if (k->user != USER_MISSING) {
		k->uips = k->copy_ips;
		k->nu = k->ncopy;
		k->user = USER_STACK_COPY;
		k->cut = k->ncopy >= max; /* libdw filled the buffer */
	}
}

/* A sample without any callchain still says where it was, as perf shows it. */
static void ip_only(struct stack *k, struct counters *c)
{
	c->samples_ip_only++;
	if (k->s->flags & SAMPLE_USER) {
		k->uips = &k->s->ip;
		k->nu = 1;
		k->user = USER_INLINE;
	} else {
		k->kips = &k->s->ip;
		k->nk = 1;
	}
}

/* An idle sample: pid 0, kernel only, IDLE_FUNCTION on the kernel chain.
 * Without the kernel's symbols no frame has that name: nothing is idle. */
int stack_is_idle(const struct stack *k, struct symbols *sy)
{
	if (k->s->event != SAMPLE_EVENT_CPU_CLOCK || k->s->pid != 0 || k->nu ||
	    k->user != USER_NONE)
		return 0;
	for (uint32_t i = 0; i < k->nk; i++) {
		const struct frame *f = symbols_frame(sy, k->proc, k->kips[i], 1, i > 0);
		if (f->known && !strcmp(f->name, IDLE_FUNCTION))
			return 1;
	}
	return 0;
}

void stitch_run(struct stitch *st, const struct stream *s, struct procs *procs,
		struct symbols *sy, struct counters *c)
{
	struct hmap cookies = { 0 };
	struct pending *all;
	size_t nall;
	/* libdw stops where the kernel's unwinder would have (validate compares
	 * the two), within reason: the bound comes from the stream. */
	uint32_t max = s->head.max_frames ? s->head.max_frames : 256;
	max = max < MAX_HOST_FRAMES ? max : MAX_HOST_FRAMES;

	index_deferred(&cookies, &all, &nall, s, procs, c);
	st->v = xcalloc(s->nrecs, sizeof *st->v);
	st->n = 0;
	for (size_t i = 0; i < s->nrecs; i++) {
		if (s->recs[i].type != REC_SAMPLE)
			continue;
		const struct sample_rec *smp = &s->recs[i].u.sample;
		struct stack *k = &st->v[st->n++];
		struct span ks = { 0 }, us = { 0 };
		int deferred = 0;
		uint64_t cookie = 0;
		c->samples++;
		k->s = smp;
		k->proc = proc_at(procs, smp->pid, smp->time);
		split_chain(smp, &ks, &us, &deferred, &cookie, c);
		k->kips = ks.ips;
		k->nk = ks.n;
		if (us.seen) {
			k->uips = us.ips;
			k->nu = us.n;
			k->user = USER_INLINE;
		}
		if (deferred)
			stitch_one(k, &cookies, cookie, c);
		if (smp->copy)
			from_copy(k, sy, max, c);
		if (!k->nk && !k->nu && k->user != USER_MISSING)
			ip_only(k, c);
	}
	for (size_t i = 0; i < st->n; i++) {
		st->v[i].idle = stack_is_idle(&st->v[i], sy);
		c->samples_idle += st->v[i].idle;
	}
	for (size_t i = 0; i < nall; i++)
		c->deferred_orphan += !all[i].used && all[i].d->cookie;
	free(all);
	hmap_free(&cookies, NULL);
}

void stitch_free(struct stitch *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->v[i].copy_ips);
	free(st->v);
	free(st->made);
	memset(st, 0, sizeof *st);
}

uint32_t stack_frames(const struct stack *k, struct symbols *sy,
		      const struct frame ***buf, size_t *cap)
{
	uint32_t depth = k->nk + k->nu + (k->user == USER_MISSING) + k->cut;
	if (depth > *cap) {
		*cap = depth;
		*buf = xrealloc(*buf, *cap * sizeof **buf);
	}
	const struct frame **out = *buf;
	uint32_t n = 0;
	for (uint32_t i = 0; i < k->nk; i++)
		out[n++] = symbols_frame(sy, k->proc, k->kips[i], 1, i > 0);
	for (uint32_t i = 0; i < k->nu; i++)
		out[n++] = symbols_frame(sy, k->proc, k->uips[i], 0, i > 0);
	if (k->user == USER_MISSING)
		out[n++] = symbols_missing(sy);
	if (k->cut)
		out[n++] = symbols_cut(sy);
	return n;
}
