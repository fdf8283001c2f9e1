/*
 * The SFrame walk's per-step lookup: for a pc of the current task, its
 * frame rule. This file and kern/unwind/sframe_lookup.c own everything a
 * lookup keeps: the walk's state (struct sframe_walk), the rule cache of
 * each address space, each section's FDE index, and the switches that
 * turn them off. The walk (kern/unwind/user.c) asks sframe_lookup() and
 * steps by the answer; the registry (kern/unwind/sframe_registry.c) says
 * which section covers a pc.
 *
 * A lookup reads the section in place with single user loads, inside the
 * user-access window the walk holds open, and checks every read (the
 * SFrame library, docs/SFRAME.md); it spends at most what is left of the
 * walk's budget.
 */
#ifndef KERN_SFRAME_LOOKUP_H
#define KERN_SFRAME_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/mm/uvm.h"
#include "kern/unwind/sframe_registry.h"
#include "sframe/sframe.h"

/*
 * The per-task rule cache (unwind.rule_cache=0 turns it off; per task, not
 * per address space, so that the threads' walks on several CPUs never
 * write one entry at once):
 * two-way set-associative, pc -> (rule in its quick form, or "none": the
 * frame pointer's turn; rules of another shape, which x86-64 code hardly
 * has, are looked up each time), each entry tagged with mm->sframe_gen,
 * which the registry bumps when a section is added or removed or text is
 * unmapped: entries of an older generation are empty. (A task's exit
 * frees its cache.) It holds only answers a lookup gave, so it
 * saves lookups without changing an answer.
 */
#define RULE_CACHE_BITS 10 /* 1024 entries, 32 KiB per address space */
#define RULE_CACHE_SIZE (1u << RULE_CACHE_BITS)
#define RULE_CACHE_WAYS 2  /* a leaf's pc and a return address that hash
			    * alike would otherwise evict each other on
			    * every unwind */

/* 32 bytes, a power of two, for the index arithmetic (a set is a 64-byte
 * line). No section: a quick step fails only on the stack (a bad frame, a
 * fault, the end), never on its section. */
struct sframe_rule_entry {
	uint64_t pc;
	uint64_t tag; /* rule_tag */
	struct sf_quick q;
};
_Static_assert(sizeof(struct sframe_rule_entry) == 32, "rule cache entry");

struct sframe_rule_cache {
	struct sframe_rule_entry e[RULE_CACHE_SIZE];
};

/* One walk's state across its lookups: what it may still spend (FDE
 * probes and FRE rows), what the caches saved it (counted into the
 * statistics once, at its end), and the last lookup's answer. */
struct sframe_walk {
	struct uvm *mm;                     /* current's, read once */
	const struct sframe_rule_cache *cache; /* the task's, NULL when off */
	uint64_t tag;      /* the cache's tag for a rule in this walk */
	uint32_t budget;   /* what is left of unwind.budget */
	uint32_t lookups;  /* steps the rule cache did not answer */
	uint32_t cache_misses, last_hits;
	uint32_t index_lookups; /* lookups in a section's FDE index */
	uint32_t quick_lookups; /* ... answered by sf_find_quick */
	struct sframe_section *sec; /* the section of the last lookup */
	struct sframe_section *last; /* the last one a lookup used */
	struct sf_rule rule;   /* the last rule looked up, any shape */
	struct sf_quick quick; /* ... in its quick form, when quick_ok */
	bool quick_ok;
	/* The walk's own: sp in the signal trampoline the frame came out of,
	 * whose signal frame holds the frame's registers; 0 while the frame
	 * is the entry's (kern/unwind/user.c). */
	uint64_t signal_sp;
};

/* Reads the switches (sframe.validate, unwind.rule_cache,
 * unwind.fde_index). Boot, before the first process. */
void sframe_lookup_init(void);

/* Before the walk's window opens: its budget, the task's rule cache
 * (*cache, allocated if it is on and not there yet), and a hold on mm's
 * sections (sframe_read_begin) until sframe_walk_done. */
void sframe_walk_begin(struct sframe_walk *w, struct uvm *mm,
		       struct sframe_rule_cache **cache, uint32_t budget);
/* After it: the counters; frames is how many steps the walk took. */
void sframe_walk_done(const struct sframe_walk *w, uint32_t frames);

/* The set pc may be cached in: RULE_CACHE_WAYS entries, the most
 * recently filled first. */
static inline struct sframe_rule_entry *sframe_rule_set(const struct sframe_rule_cache *c,
							uint64_t pc)
{
	uint64_t set = (pc * 0x9e3779b97f4a7c15ull) >> (64 - RULE_CACHE_BITS + 1);
	return (struct sframe_rule_entry *)&c->e[set * RULE_CACHE_WAYS];
}

/* pc's entry with this tag, or NULL. A tag is the address space's
 * generation and whether the entry holds pc's quick rule (bit 0 clear)
 * or says that pc has no rule (bit 0 set: no section, FDE or row covers
 * it). A zeroed entry (tag 0) matches nothing: the generation is at least
 * 1 once a cache exists. */
static inline const struct sframe_rule_entry *
sframe_rule_find(const struct sframe_rule_cache *c, uint64_t pc, uint64_t tag)
{
	const struct sframe_rule_entry *set = sframe_rule_set(c, pc);
	for (unsigned i = 0; i < RULE_CACHE_WAYS; i++)
		if (set[i].pc == pc && set[i].tag == tag)
			return &set[i];
	return NULL;
}

/* The lookup the cache did not answer (kern/unwind/sframe_lookup.c): in
 * the SFrame sections, or in the .eh_frame sections (same answers; a
 * section's bad read is left in its eh_err for the drop's counters). */
int sframe_lookup_slow(struct sframe_walk *w, uint64_t pc);
int ehframe_lookup_slow(struct sframe_walk *w, uint64_t pc);

/*
 * The frame rule at pc (the frame's pc, less one in a caller), with the
 * walk's user-access window open: from the rule cache, else looked up in
 * the section covering pc (opened and indexed at its first use) and put
 * into the cache. Answers:
 *   SF_OK with *q       the rule, in its quick form (valid until the next
 *                       lookup);
 *   SF_OK, *q NULL      a rule of another shape: w->rule, of w->sec;
 *   SF_E_NO_FDE         no section, FDE or row covers pc: the frame
 *                       pointer's turn (SF_E_NO_FRE likewise);
 *   another SF_E_*      the lookup failed: w->sec is the section it is
 *                       about, to drop when it faulted or is not SFrame.
 * Inline: a cached rule, the common case, costs a probe and no call.
 * kind (a constant) says whose sections a miss looks up: the cache, its
 * answers and the errors are the same for SFrame and .eh_frame.
 * Reads may take page faults.
 */
static inline __attribute__((always_inline)) int
unwind_lookup(struct sframe_walk *w, uint64_t pc, const struct sf_quick **q, int kind)
{
	const struct sframe_rule_cache *c = w->cache;
	const struct sframe_rule_entry *e;
	if (c && (e = sframe_rule_find(c, pc, w->tag))) {
		*q = &e->q;
		return SF_OK;
	}
	if (c && sframe_rule_find(c, pc, w->tag | 1)) {
		*q = NULL;
		return SF_E_NO_FDE;
	}
	w->lookups++;
	int err = kind == SECTION_EH_FRAME ? ehframe_lookup_slow(w, pc) :
					     sframe_lookup_slow(w, pc);
	*q = !err && w->quick_ok ? &w->quick : NULL;
	return err;
}

/* The SFrame sections' lookup (kind a constant: the other kind's code is
 * not compiled into a walk). */
static inline __attribute__((always_inline)) int
sframe_lookup(struct sframe_walk *w, uint64_t pc, const struct sf_quick **q)
{
	return unwind_lookup(w, pc, q, SECTION_SFRAME);
}

#endif
