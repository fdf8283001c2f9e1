/*
 * The stack map's counts as stacks (--from map): every count of a key
 * becomes that many samples of its stack, so that the report, the folded
 * stacks, the flame graph, speedscope and perf.data (one sample per count,
 * with the map's period) come out of the writers the stream uses.
 *
 * A key names its stacks by id (REC_MAP_STACK, each written once before
 * the first count that names it) and its process by pid and program (0
 * for what the pid ran first, 1 after its first exec...: the pid's
 * incarnations in stream order). A count naming a stack id the stream
 * never carried is a bad callchain: counted, and its samples left out.
 */
#include "stitch.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "util.h"

/* The most samples the counts may add up to: a damaged count could ask
 * for any number; past this one its key is a bad callchain. */
#define MAP_MAX_SAMPLES (1u << 23)

/* Whether count more samples fit after total. */
static int fits(size_t total, uint64_t count)
{
	return count <= MAP_MAX_SAMPLES - total;
}

/* The pid's program-th incarnation, as procs_build made them; the newest
 * one if the stream saw fewer (its REC_COMM was lost). */
static struct proc *program_of(struct procs *p, uint32_t pid, uint32_t program,
			       uint64_t time)
{
	struct proc *last = NULL;
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i]->pid != pid)
			continue;
		last = p->v[i];
		if (!program--)
			return last;
	}
	return last ? last : proc_at(p, pid, time);
}

/* The stack of (kind, id): NULL if the stream has none of that id. */
static const struct map_stack_rec *stack_of(const struct hmap *ids, uint16_t kind,
					    uint32_t id)
{
	return id ? hmap_get(ids, kind, id) : NULL;
}

/* One key's stack, on the synthetic sample s. False if an id is unknown. */
static int key_stack(struct stack *k, const struct rec_map_count *m,
		     const struct hmap *ids, struct counters *c)
{
	const struct map_stack_rec *ks = stack_of(ids, MAP_STACK_KERNEL, m->kstack);
	const struct map_stack_rec *us = stack_of(ids, MAP_STACK_USER, m->ustack);
	if ((m->kstack && !ks) || (m->ustack && !us))
		return 0;
	k->kips = ks ? ks->ips : NULL;
	k->nk = ks ? ks->nr : 0;
	k->uips = us ? us->ips : NULL;
	k->nu = us ? us->nr : 0;
	if (m->user < UNWIND_STOP_COUNT) {
		k->user = USER_DEFERRED;
		k->cut = m->user == UNWIND_STOP_MAX_FRAMES;
		c->samples_deferred += m->count;
		c->samples_stitched += m->count;
	} else if (m->user == MAP_USER_UNANSWERED) {
		k->user = USER_MISSING;
		c->samples_deferred += m->count;
		c->samples_missing += m->count;
	} else {
		k->user = USER_NONE; /* kernel only, no address space, refused */
	}
	return 1;
}

/* The synthetic sample of one key: what the writers read of a sample. */
static void key_sample(struct sample_rec *s, const struct rec_map_count *m,
		       const struct map_counts_rec *r, const struct stack *k)
{
	s->time = r->time;
	s->pid = s->tid = m->pid;
	s->event = SAMPLE_EVENT_CPU_CLOCK;
	s->flags = k->nk ? 0 : SAMPLE_USER;
	s->ip = k->nk ? k->kips[0] : k->nu ? k->uips[0] : 0;
	s->period = r->period;
}

void stackmap_stitch(struct stitch *st, const struct stream *s, struct procs *procs,
		     struct symbols *sy, struct counters *c)
{
	struct hmap ids = { 0 };
	size_t keys = 0, samples = 0;
	for (size_t i = 0; i < s->nrecs; i++) {
		const struct record *r = &s->recs[i];
		if (r->type == REC_MAP_STACK)
			hmap_put(&ids, r->u.map_stack.kind, r->u.map_stack.id,
				 (void *)&r->u.map_stack);
		else if (r->type == REC_MAP_COUNTS)
			for (uint32_t j = 0; j < r->u.map_counts.n; j++) {
				uint64_t n = r->u.map_counts.c[j].count;
				keys++;
				samples += fits(samples, n) ? n : 0;
			}
	}
	st->made = xcalloc(keys ? keys : 1, sizeof *st->made);
	st->v = xcalloc(samples ? samples : 1, sizeof *st->v);
	st->n = 0;
	for (size_t i = 0; i < s->nrecs; i++) {
		const struct record *r = &s->recs[i];
		if (r->type != REC_MAP_COUNTS)
			continue;
		for (uint32_t j = 0; j < r->u.map_counts.n; j++) {
			const struct rec_map_count *m = &r->u.map_counts.c[j];
			struct stack k = { 0 };
			if (!fits(st->n, m->count) || !key_stack(&k, m, &ids, c)) {
				c->bad_callchain++;
				continue;
			}
			struct sample_rec *smp = &st->made[st->nmade++];
			key_sample(smp, m, &r->u.map_counts, &k);
			k.s = smp;
			k.proc = program_of(procs, m->pid, m->program, r->u.map_counts.time);
			k.idle = stack_is_idle(&k, sy);
			for (uint64_t n = 0; n < m->count; n++)
				st->v[st->n++] = k;
			c->samples += m->count;
			c->samples_idle += k.idle ? m->count : 0;
		}
	}
	hmap_free(&ids, NULL);
}
