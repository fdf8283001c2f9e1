#include "hash.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

struct hslot {
	uint64_t a, b;
	void *v; /* NULL: empty slot */
};

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

static struct hslot *find(const struct hmap *m, uint64_t a, uint64_t b)
{
	size_t i = mix(a, b) & (m->cap - 1);
	while (m->slots[i].v && (m->slots[i].a != a || m->slots[i].b != b))
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

void *hmap_get(const struct hmap *m, uint64_t a, uint64_t b)
{
	return m->cap ? find(m, a, b)->v : NULL;
}

static void grow(struct hmap *m)
{
	struct hmap bigger = { xcalloc(m->cap ? 2 * m->cap : 64, sizeof(struct hslot)),
			       m->cap ? 2 * m->cap : 64, 0 };
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].v)
			hmap_put(&bigger, m->slots[i].a, m->slots[i].b, m->slots[i].v);
	free(m->slots);
	*m = bigger;
}

void hmap_put(struct hmap *m, uint64_t a, uint64_t b, void *v)
{
	if (2 * (m->n + 1) > m->cap)
		grow(m);
	struct hslot *s = find(m, a, b);
	if (!s->v)
		m->n++;
	*s = (struct hslot){ a, b, v };
}

void hmap_free(struct hmap *m, void (*free_value)(void *))
{
	for (size_t i = 0; free_value && i < m->cap; i++)
		if (m->slots[i].v)
			free_value(m->slots[i].v);
	free(m->slots);
	memset(m, 0, sizeof *m);
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static char **str_find(const struct strset *set, const char *s)
{
	size_t i = str_hash(s) & (set->cap - 1);
	while (set->slots[i] && strcmp(set->slots[i], s))
		i = (i + 1) & (set->cap - 1);
	return &set->slots[i];
}

const char *intern(struct strset *set, const char *s)
{
	if (2 * (set->n + 1) > set->cap) {
		struct strset bigger = { xcalloc(set->cap ? 2 * set->cap : 64, sizeof(char *)),
					 set->cap ? 2 * set->cap : 64, set->n };
		for (size_t i = 0; i < set->cap; i++)
			if (set->slots[i])
				*str_find(&bigger, set->slots[i]) = set->slots[i];
		free(set->slots);
		*set = bigger;
	}
	char **slot = str_find(set, s);
	if (!*slot) {
		*slot = xstrdup(s);
		set->n++;
	}
	return *slot;
}

void strset_free(struct strset *set)
{
	for (size_t i = 0; i < set->cap; i++)
		free(set->slots[i]);
	free(set->slots);
	memset(set, 0, sizeof *set);
}
