/*
 * SFrame registration: which user text ranges have which SFrame section.
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

#include "kern/uvm.h"

/* Registers [sframe, +len) for the code [text, +text_len) of mm; counts
 * sframe_registered, or sframe_dropped on failure. 0, -EFAULT (outside the
 * user range), -EINVAL (a zero or > 4 GiB length), -EEXIST (the text
 * overlaps a registered range), -ENOMEM; each refusal also counts its
 * reason (sframe_refused_*). */
int sframe_register(struct uvm *mm, uint64_t sframe, uint64_t len,
		    uint64_t text, uint64_t text_len);

/* Reads the unwinder's command-line switches (sframe.validate,
 * unwind.rule_cache). Boot, before the first process. */
void sframe_reg_init(void);

/* One unwind's state across its lookups: what it may still spend (FDE
 * probes and FRE rows), and what the caches saved it, counted into the
 * statistics once at its end (sframe_walk_done) rather than per step. */
struct sframe_walk {
	uint32_t work;
	uint32_t cache_hits, cache_misses, last_hits;
	struct sf_rule rule; /* the last rule looked up (not from the cache) */
};

void sframe_walk_done(const struct sframe_walk *w);

/*
 * The frame rule at pc in current's address space (*rule points into the
 * cache or at w->rule, valid until the next call), with the user-access
 * window open (arch_user_access_begin): from the rule cache, or from the
 * section covering pc, which is opened at its first use (header and
 * layout; everything with sframe.validate) and looked up with w->work
 * as the allowance. *sec is the section the answer or the error is about
 * (NULL: none covers pc, SF_E_NO_FDE). Reads may take page faults.
 */
int sframe_find_rule(uint64_t pc, const struct sf_rule **rule,
		     struct sframe_section **sec, struct sframe_walk *w);

/* Unregisters a section the unwinder found unusable at run time: err is
 * SF_E_FAULT (a read faulted) or why it is not valid SFrame. Counted in
 * sframe_dropped and sframe_dropped_fault / sframe_dropped_invalid. */
void sframe_drop(struct sframe_section *s, int err);

#endif
