/*
 * The walk's per-step lookup: for a pc of the current task, its frame
 * rule, from the rule cache or from the table that covers pc, in the
 * format the walk reads (kern/unwind/table.h). The walk (kern/unwind/
 * user.c) asks lookup_rule() and steps by the answer, a value; what the
 * lookup keeps between two of its calls (struct rule_lookup: the budget,
 * the last table, its counters) is its own, on the walk's stack.
 *
 * A lookup reads the table in place with single user loads, inside the
 * user-access window the walk holds open, and checks every read (the
 * formats' libraries, docs/SFRAME.md, docs/EHFRAME.md); it spends at most
 * what is left of the walk's budget.
 */
#ifndef KERN_UNWIND_LOOKUP_H
#define KERN_UNWIND_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/unwind/table.h"
#include "sframe/sframe.h"

/*
 * A task's rule cache (unwind.rule_cache=0 turns it off; one per task,
 * so that the threads' walks on several CPUs never write one entry at
 * once; the deferred core creates it at the task's first unwind and frees
 * it with the task, kern/unwind/deferred.c): two-way set-associative,
 * pc -> (rule in its quick form, or "none": the frame pointer's turn;
 * rules of another shape, which x86-64 code hardly has, are looked up
 * each time), each entry tagged with the address space's table
 * generation, which the registry changes when a table is added or
 * removed or text is unmapped: entries of an older generation are empty.
 * It holds only answers a lookup gave, so it saves lookups without
 * changing an answer.
 */
#define RULE_CACHE_BITS 10 /* 1024 entries, 32 KiB per task */
#define RULE_CACHE_SIZE (1u << RULE_CACHE_BITS)
#define RULE_CACHE_WAYS 2  /* a leaf's pc and a return address that hash
			    * alike would otherwise evict each other on
			    * every unwind */

/* 32 bytes, a power of two, for the index arithmetic (a set is a 64-byte
 * line). No table: a quick step fails only on the stack (a bad frame, a
 * fault, the end), never on its table. */
struct rule_entry {
	uint64_t pc;
	uint64_t tag; /* the walk's tag; bit 0 set: pc has no rule */
	struct sf_quick q;
};
_Static_assert(sizeof(struct rule_entry) == 32, "rule cache entry");

struct rule_cache {
	struct rule_entry e[RULE_CACHE_SIZE];
};

/* A new, empty cache; NULL when the cache is off, or without memory (the
 * walks then look every rule up). Task context. */
struct rule_cache *rule_cache_new(void);
void rule_cache_free(struct rule_cache *c);

/* The lookup's own state across one walk. The walk holds it and reads
 * none of it. */
struct rule_lookup {
	struct uvm *mm;             /* current's, read once */
	struct rule_cache *cache;   /* the task's, NULL when off */
	uint64_t tag;               /* the cache's tag for a rule in this walk */
	enum unwind_format_id fmt;  /* whose tables a miss looks in */
	bool alone;                 /* mm has one thread: no table holds */
	bool indexed_chunk;         /* a chunk of an index was built (table.h) */
	uint32_t budget;            /* what is left of unwind.budget */
	uint32_t lookups;           /* steps the cache did not answer */
	uint32_t cache_fills, last_hits;
	struct unwind_table *last;  /* the table the last miss used */
	struct unwind_rule r;       /* the last rule a table gave */
};

/* What a lookup answers the walk: two words, returned in registers. A
 * rule of another shape (SF_OK, quick NULL) and the table of an error
 * are the lookup's to give (lookup_other, lookup_table): rare, they cost
 * the common answer nothing. */
struct unwind_answer {
	int err;                     /* SF_OK, or why there is no rule (below) */
	const struct sf_quick *quick; /* the rule in its quick form, or NULL */
};

/* Reads the switches (unwind.rule_cache, and the formats'). Boot, before
 * the first process. */
void lookup_init(void);

/* Before the walk's window opens: its format, budget and cache, and a
 * hold on mm's tables (unwind_tables_hold) until lookup_end. */
void lookup_begin(struct rule_lookup *l, struct uvm *mm, enum unwind_format_id fmt,
		  struct rule_cache *cache, uint32_t budget);
/* After it: the counters; frames is how many steps the walk took. */
void lookup_end(const struct rule_lookup *l, uint32_t frames);

/* The last answer's rule of another shape (SF_OK, quick NULL): the rule
 * and the ABI to step by it. */
static inline const struct unwind_rule *lookup_other(const struct rule_lookup *l)
{
	return &l->r;
}

/* The table the last answer came from (its error's: the one to drop). */
static inline struct unwind_table *lookup_table(const struct rule_lookup *l)
{
	return l->last;
}

/* The set pc may be cached in: RULE_CACHE_WAYS entries, the most
 * recently filled first. */
static inline struct rule_entry *rule_set(const struct rule_cache *c, uint64_t pc)
{
	uint64_t set = (pc * 0x9e3779b97f4a7c15ull) >> (64 - RULE_CACHE_BITS + 1);
	return (struct rule_entry *)&c->e[set * RULE_CACHE_WAYS];
}

/* The lookup the cache did not answer (kern/unwind/lookup.c). */
struct unwind_answer lookup_slow(struct rule_lookup *l, uint64_t pc);

/*
 * The frame rule at pc (the frame's pc, less one in a caller), with the
 * walk's user-access window open: from the rule cache, else looked up in
 * the table covering pc (opened and indexed at its first use) and put
 * into the cache. Answers:
 *   SF_OK, quick        the rule, in its quick form (valid until the next
 *                       lookup);
 *   SF_OK, quick NULL   a rule of another shape (lookup_other);
 *   SF_E_NO_FDE         no table, FDE or row covers pc: the frame
 *                       pointer's turn (SF_E_NO_FRE likewise);
 *   SF_E_BUDGET, SF_E_REG  stop: the budget is spent, a rule this
 *                       unwinder does not follow;
 *   another SF_E_*      the table faulted or is damaged: drop it
 *                       (lookup_table).
 * Inline: a cached rule, the common case, costs a probe and no call.
 * cached (a constant) says whether the walk has a cache (lookup_begin's
 * cache not NULL), so that a walk with one and a walk without are each
 * compiled without the other's test. Reads may take page faults.
 */
static inline __attribute__((always_inline)) struct unwind_answer
lookup_rule(struct rule_lookup *l, uint64_t pc, bool cached)
{
	if (cached) {
		/* An entry of this walk holds pc's quick rule (l->tag) or says
		 * it has none (l->tag | 1); a zeroed entry (tag 0) matches
		 * nothing: a walk's tag is at least 2 (lookup_begin). */
		const struct rule_entry *set = rule_set(l->cache, pc);
		for (unsigned i = 0; i < RULE_CACHE_WAYS; i++)
			if (set[i].pc == pc && set[i].tag == l->tag)
				return (struct unwind_answer){ .quick = &set[i].q };
		for (unsigned i = 0; i < RULE_CACHE_WAYS; i++)
			if (set[i].pc == pc && set[i].tag == (l->tag | 1))
				return (struct unwind_answer){ .err = SF_E_NO_FDE };
	}
	return lookup_slow(l, pc);
}

#endif
