/*
 * Two small open-addressing tables: one maps a pair of u64 keys to a
 * pointer (cookies, symbol cache), the other interns strings so that
 * frames can be compared by pointer.
 */
#ifndef STITCH_HASH_H
#define STITCH_HASH_H

#include <stddef.h>
#include <stdint.h>

struct hslot;

struct hmap {
	struct hslot *slots;
	size_t cap, n;
};

void *hmap_get(const struct hmap *m, uint64_t a, uint64_t b);
void hmap_put(struct hmap *m, uint64_t a, uint64_t b, void *v);
/* Frees the table, and each value with free_value unless it is NULL. */
void hmap_free(struct hmap *m, void (*free_value)(void *));

struct strset {
	char **slots;
	size_t cap, n;
};

/* The one copy of s held by the set (made on first use). */
const char *intern(struct strset *set, const char *s);
void strset_free(struct strset *set);

#endif
