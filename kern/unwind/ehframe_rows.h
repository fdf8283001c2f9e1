/*
 * Rows kept in kernel memory for an .eh_frame table (docs/EHFRAME.md,
 * "Rows"): two more ways to serve the .eh_frame format's lookups beside
 * interpreting in place, chosen at boot by profile.mode (eh-rowcache,
 * eh-convert; unwind.eh_rows=interpret|rowcache|convert overrides, so
 * that validate-eh can run either):
 *
 *   eh-convert   the table's FDEs are all run once, in bounded chunks at
 *                its first lookups, into one sorted array of 16-byte rows
 *                (ehframe/rows.c); once whole, a lookup is a binary search;
 *   eh-rowcache  a lookup that misses interprets, but runs pc's whole FDE
 *                and keeps its rows (a bounded cache per table, evictions
 *                counted): the next lookup in the function is a search.
 *
 * Either answers exactly what the interpreter would (test 28), and leaves
 * to it what the rows do not hold (EH_E_END): the walk, the rule cache
 * and the budget are the format's, unchanged. A table or process over its
 * budget of rows falls back to interpreting (counted).
 */
#ifndef KERN_UNWIND_EHFRAME_ROWS_H
#define KERN_UNWIND_EHFRAME_ROWS_H

#include <stdint.h>

#include "ehframe/ehframe.h"
#include "kern/unwind/table.h"

struct eh_rowcache;

/* A table's rows: part of the .eh_frame format's state (zeroed at
 * registration), touched only under the table's hold. */
struct eh_rows_state {
	uint8_t phase;             /* eh-convert: enum in ehframe_rows.c */
	uint64_t next;             /* eh-convert: the next entry to add */
	struct eh_rows rows;       /* eh-convert: the table's */
	struct eh_rowcache *cache; /* eh-rowcache: NULL until the first miss */
	uint64_t held;             /* bytes of kernel memory held */
	uint64_t *charged;         /* the process's total they count in */
};

/* Boot: which design serves the lookups. */
void eh_rows_setup(void);

/* pc's answer (the library's EH_* code and *rule) from t's rows, made or
 * extended first as the design says; EH_E_END: ask the interpreter. Adds
 * to r's rows count when the rows answered. The walk's window is open. */
int eh_rows_answer(struct eh_rows_state *s, struct eh_table *eh, uint64_t pc,
		   struct sf_rule *rule, struct unwind_rule *r);

/* Frees what the table's rows hold (the table is unreachable). */
void eh_rows_free(struct eh_rows_state *s);

#endif
