/*
 * A table that interns runs of 64-bit words (stacks, keys) under ids,
 * bounded and lock-free: the stack map's tables (kern/profile/stackmap.c).
 *
 * Any context, NMI included, may intern at the same time as any other: no
 * lock, no allocation after stack_table_init, at most every slot looked at
 * once. A slot goes empty -> busy (claimed by one compare-and-swap) ->
 * ready (its hash stored with release, after its words). Nobody waits for
 * a busy slot: it is passed over, so two CPUs interning the same words at
 * the same moment may give them two ids (a reader adds up by content; it
 * costs room, never a count). Slots are never freed.
 */
#ifndef KERN_PROFILE_STACKTABLE_H
#define KERN_PROFILE_STACKTABLE_H

#include <stdbool.h>
#include <stdint.h>

struct stack_table {
	uint64_t *hash;     /* per slot: empty (0), busy (1), or its ready hash */
	uint32_t *start;    /* per slot: its first word in words[] */
	uint32_t *len;      /* per slot: its words */
	uint8_t *written;   /* per slot: free for the reader's use (0 at first) */
	uint64_t *words;
	uint32_t mask;      /* slots - 1: at least twice the capacity, a power of two */
	uint32_t cap;       /* ids it gives at most */
	uint32_t ids;       /* ids given (atomic) */
	uint32_t nwords;    /* words it holds in all */
	uint32_t used;      /* words given (atomic) */
};

/* Normal context: room for cap ids and nwords words in all. 0, or
 * -STITCH_ENOMEM (then stack_table_free undoes what was allocated). */
int stack_table_init(struct stack_table *t, uint32_t cap, uint32_t nwords);
void stack_table_free(struct stack_table *t);

/* Any context: the id (never 0) of w[0 .. n), interned if new. False when
 * it is new and the table gives no more ids, or has no room for its words. */
bool stack_table_intern(struct stack_table *t, const uint64_t *w, uint32_t n, uint32_t *id);

/* The reader: the words of slot s and their count, or NULL while it is
 * empty or being written. Ids are slot + 1. */
const uint64_t *stack_table_slot(const struct stack_table *t, uint32_t s, uint32_t *n);

#endif
