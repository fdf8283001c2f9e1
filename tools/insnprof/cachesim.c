/*
 * Set-associative LRU caches and a hierarchy of them (cachesim.h says
 * which CPU and from where). Each set is a small array of line numbers,
 * most recently used first: a hit moves its line to the front, a miss
 * shifts the set down one place (dropping the last, least recently used
 * line) and puts the new line in front. With at most 16 ways that is a
 * few dozen bytes moved per access.
 */
#include <stdlib.h>
#include <string.h>

#include "cachesim.h"

static bool pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

int cache_init(struct cache *c, const char *name, size_t size, unsigned ways, unsigned line)
{
	memset(c, 0, sizeof *c);
	if (!pow2(size) || !pow2(line) || !ways || size % ((size_t)ways * line))
		return -1;
	c->name = name;
	c->ways = ways;
	c->sets = size / ((size_t)ways * line);
	while ((1u << c->line_shift) < line)
		c->line_shift++;
	if (!pow2(c->sets))
		return -1;
	c->lines = calloc((size_t)c->sets * ways, sizeof *c->lines);
	return c->lines ? 0 : -1;
}

void cache_free(struct cache *c)
{
	free(c->lines);
	c->lines = NULL;
}

static uint64_t *set_of(const struct cache *c, uint64_t line)
{
	return c->lines + (line & (c->sets - 1)) * c->ways;
}

bool cache_holds(const struct cache *c, uint64_t addr)
{
	uint64_t line = addr >> c->line_shift;
	const uint64_t *set = set_of(c, line);
	for (unsigned w = 0; w < c->ways; w++)
		if (set[w] == line + 1)
			return true;
	return false;
}

bool cache_access(struct cache *c, uint64_t addr)
{
	uint64_t line = addr >> c->line_shift;
	uint64_t *set = set_of(c, line);
	unsigned w = 0;
	c->accesses++;
	while (w < c->ways && set[w] != line + 1)
		w++;
	bool hit = w < c->ways;
	if (!hit) {
		c->misses++;
		w = c->ways - 1; /* the least recently used goes */
	}
	memmove(set + 1, set, w * sizeof *set);
	set[0] = line + 1;
	return hit;
}

int hier_init(struct hierarchy *h)
{
	memset(h, 0, sizeof *h);
	if (cache_init(&h->l1i, "L1I", L1I_SIZE, L1I_WAYS, LINE_SIZE) ||
	    cache_init(&h->l1d, "L1D", L1D_SIZE, L1D_WAYS, LINE_SIZE) ||
	    cache_init(&h->l2, "L2", L2_SIZE, L2_WAYS, LINE_SIZE) ||
	    cache_init(&h->llc, "LLC", LLC_SIZE, LLC_WAYS, LINE_SIZE)) {
		hier_free(h);
		return -1;
	}
	return 0;
}

void hier_free(struct hierarchy *h)
{
	cache_free(&h->l1i);
	cache_free(&h->l1d);
	cache_free(&h->l2);
	cache_free(&h->llc);
}

/* One line through the first level l1, then L2 and the LLC. */
static int one_line(struct hierarchy *h, struct cache *l1, uint64_t paddr)
{
	if (cache_access(l1, paddr))
		return SERVED_L1;
	if (cache_access(&h->l2, paddr))
		return SERVED_L2;
	if (cache_access(&h->llc, paddr))
		return SERVED_LLC;
	return SERVED_MEM;
}

int hier_fetch(struct hierarchy *h, uint64_t paddr)
{
	return one_line(h, &h->l1i, paddr);
}

int hier_data(struct hierarchy *h, uint64_t paddr, unsigned size)
{
	uint64_t first = paddr >> h->l1d.line_shift;
	uint64_t last = (paddr + (size ? size : 1) - 1) >> h->l1d.line_shift;
	int worst = SERVED_L1;
	for (uint64_t l = first; l <= last; l++) {
		int s = one_line(h, &h->l1d, l << h->l1d.line_shift);
		if (s > worst)
			worst = s;
	}
	return worst;
}

unsigned hier_penalty(int served)
{
	static const unsigned pen[] = { 0, PEN_L2, PEN_LLC, PEN_MEM };
	return pen[served];
}
