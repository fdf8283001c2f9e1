/*
 * SFrame registration: which user text ranges have which SFrame section.
 * This registry owns each address space's list (struct uvm's sframe_*
 * fields): every operation on it is here, kern/mm/uvm.c only says when the
 * address space changes.
 *
 * Two ways in, one function: the kernel's ELF loader registers the
 * executable's PT_GNU_SFRAME at spawn, and a user-space loader registers
 * the sections of what it loads with SYS_stacktrace_setup (after Linux's
 * proposal: op, addr, len, text_start, text_len). The sections stay in
 * user memory: nothing is pinned or copied. The unwinder opens a section
 * at its first use, reads it in place with single user loads, checks what
 * each lookup reads, and drops it (counted) when that fails.
 */
#ifndef KERN_SFRAME_REG_H
#define KERN_SFRAME_REG_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/mm/uvm.h"
#include "sframe/sframe.h"

/* The most sections one address space may have registered. */
#define SFRAME_MAX_SECTIONS 16

/*
 * A registered section: user addresses, read lazily by the unwinder, which
 * opens it at its first use. Owned by this registry (kern/unwind/sframe_registry.c)
 * from registration to removal: what the unwinder keeps per section
 * (the open table, anything derived from it) belongs here, and goes with
 * the section.
 */
struct sframe_section {
	struct sframe_section *next;
	uint64_t sframe_addr, sframe_len;
	uint64_t text_start, text_end;   /* the code it describes */
	bool checked;                    /* table is open (header and layout checked) */
	struct sf_table table;           /* reads in place, with single user loads */
};

/* Where a registration comes from. The section of a program the kernel
 * loads is in an address space that does not run yet: its header is read
 * at its first use. A program's own registration is in its memory now:
 * the header is read at once, so that a wrong one is refused. */
enum sframe_origin {
	SFRAME_FROM_LOADER, /* kern/mm/uvm.c: the executable's PT_GNU_SFRAME */
	SFRAME_FROM_USER,   /* SYS_stacktrace_setup ADD; mm is current's */
};

/*
 * Registers [sframe, +len) for the code [text, +text_len) of mm, after
 * the one check every registration passes: 0, or the refusal, in this
 * order: -EFAULT (a range outside user memory, or, from user, a header
 * that cannot be read), -EINVAL (a zero length, or a section over
 * 4 GiB), -ENOEXEC (not at a 4-byte boundary, or, from user, no SFrame
 * header), -EEXIST (the text overlaps a registered range), -ENOMEM
 * (SFRAME_MAX_SECTIONS, or no memory). Counts sframe_registered, or
 * sframe_dropped and the refusal's reason (sframe_refused_*).
 */
int sframe_register(struct uvm *mm, uint64_t sframe, uint64_t len,
		    uint64_t text, uint64_t text_len, enum sframe_origin from);

/* The section covering pc, or NULL. */
struct sframe_section *sframe_find(const struct uvm *mm, uint64_t pc);

/* What kern/mm/uvm.c tells the registry: text may have been unmapped (the
 * cached rules are void); mm is being freed (its sections and cache go). */
void sframe_unmapped(struct uvm *mm);
void sframe_free(struct uvm *mm);

/* Reads the unwinder's command-line switches (sframe.validate,
 * unwind.rule_cache, unwind.fde_index). Boot, before the first process. */
void sframe_reg_init(void);

/* One unwind's state across its lookups: what it may still spend (FDE
 * probes and FRE rows), and what the caches saved it, counted into the
 * statistics once at its end (sframe_walk_done) rather than per step. */
struct sframe_walk {
	struct uvm *mm;   /* current's, read once */
	uint32_t work;
	uint32_t lookups; /* steps the rule cache did not answer */
	uint32_t cache_hits, cache_misses, last_hits;
	uint32_t index_lookups; /* lookups in a section's FDE index */
	uint32_t quick_lookups; /* ... answered by sf_find_quick */
	struct sframe_section *sec; /* the section of the last lookup */
	struct sf_rule rule; /* the last rule looked up (not from the cache) */
	struct sf_quick quick; /* ... in its quick form, when quick_ok */
	bool quick_ok;
};

/* Before the walk's window opens: its budget, and the rule cache of mm
 * (current's) allocated if it is on and not there yet. After it: the
 * counters. */
void sframe_walk_begin(struct sframe_walk *w, struct uvm *mm, uint32_t budget);
void sframe_walk_done(const struct sframe_walk *w);

/*
 * The per-address-space rule cache (unwind.rule_cache=0 turns it off):
 * two-way set-associative, pc -> (rule in its quick form, or "none": the
 * frame pointer's turn; rules of another shape, which x86-64 code hardly
 * has, are looked up each time), each entry tagged with mm->sframe_gen, which the registry bumps
 * when a section is added or removed or text is unmapped: entries of an
 * older generation are empty. (A process's exit frees the cache with its
 * mm.) It holds only answers a lookup gave, so it saves lookups without
 * changing an answer (test 56).
 */
#define RULE_CACHE_BITS 10 /* 1024 entries, 32 KiB per address space */
#define RULE_CACHE_SIZE (1u << RULE_CACHE_BITS)
#define RULE_CACHE_WAYS 2  /* a leaf's pc and a return address that hash
			    * alike would otherwise evict each other on
			    * every unwind */

/* 32 bytes, a power of two, for the walk's index arithmetic (a set is a
 * 64-byte line). No section:
 * a quick step fails only on the stack (a bad frame, a fault, the end),
 * never on its section. */
struct sframe_rule_entry {
	uint64_t pc;
	uint64_t tag; /* sframe_rule_tag */
	struct sf_quick q;
};
_Static_assert(sizeof(struct sframe_rule_entry) == 32, "rule cache entry");

struct sframe_rule_cache {
	struct sframe_rule_entry e[RULE_CACHE_SIZE];
};

/* The set pc may be cached in: RULE_CACHE_WAYS entries, the most
 * recently filled first. */
static inline struct sframe_rule_entry *sframe_rule_set(const struct sframe_rule_cache *c,
							uint64_t pc)
{
	uint64_t set = (pc * 0x9e3779b97f4a7c15ull) >> (64 - RULE_CACHE_BITS + 1);
	return (struct sframe_rule_entry *)&c->e[set * RULE_CACHE_WAYS];
}

/* An entry's tag: the address space's generation, and whether the entry
 * holds pc's quick rule (none false) or says that pc has no rule (none:
 * no section, no FDE or no row covers it; the step falls back to the
 * frame pointer, as the lookup's answer would have it). A zeroed entry
 * (tag 0) matches nothing: the generation is at least 1 once a cache
 * exists. */
static inline uint64_t sframe_rule_tag(const struct uvm *mm, bool none)
{
	return mm->sframe_gen * 2 + none;
}

/* The "none" tag of the same generation as a rule tag. */
static inline uint64_t sframe_rule_none_tag(uint64_t rule_tag)
{
	return rule_tag | 1;
}

/* pc's entry with this tag, or NULL. */
static inline const struct sframe_rule_entry *
sframe_rule_find(const struct sframe_rule_cache *c, uint64_t pc, uint64_t tag)
{
	const struct sframe_rule_entry *set = sframe_rule_set(c, pc);
	for (unsigned i = 0; i < RULE_CACHE_WAYS; i++)
		if (set[i].pc == pc && set[i].tag == tag)
			return &set[i];
	return NULL;
}

/*
 * The frame rule at pc in current's address space when the cache has
 * none, with the user-access window open (arch_user_access_begin): from
 * the section covering pc (w->sec), which is opened at its first use
 * (header and layout; everything with sframe.validate) and looked up
 * with w->work as the allowance: w->quick when w->quick_ok, else
 * w->rule, valid until the next call. The answer goes into the cache.
 * On an error w->sec is the section it is about (NULL: none covers pc,
 * or the cache knows that pc has no rule; SF_E_NO_FDE). Reads may take
 * page faults.
 */
int sframe_find_rule(uint64_t pc, struct sframe_walk *w);

/* Unregisters a section the unwinder found unusable at run time: err is
 * SF_E_FAULT (a read faulted) or why it is not valid SFrame. Counted in
 * sframe_dropped and sframe_dropped_fault / sframe_dropped_invalid. */
void sframe_drop(struct sframe_section *s, int err);

#endif
