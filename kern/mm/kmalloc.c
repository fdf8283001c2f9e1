/*
 * Every allocation starts on a page with a header at the page's start:
 * a slab (small objects of one class) or a big block (its own pages). The
 * header of any object is therefore found by rounding its address down to
 * the page, as long as big objects start in their first page.
 */
#include <stdint.h>

#include "kern/mm/kmalloc.h"
#include <arch/arch.h>
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/lib/spinlock.h"
#include "kern/lib/string.h"

#define SLAB_MAGIC 0x51ab51abu
#define BIG_MAGIC  0xb16b10c5u
#define MIN_CLASS  16
#define NCLASSES   7   /* 16, 32, ..., 1024 */
#define SLAB_HDR   64  /* objects start here; keeps them 16-aligned */
#define BIG_HDR    16

struct slab {
	uint32_t magic;
	uint32_t size;     /* object size of the class */
	uint32_t inuse;
	uint32_t capacity;
	struct slab *next, *prev; /* slabs of the class with a free object */
	void *free;        /* free objects, linked through their first word */
};

struct big {
	uint32_t magic;
	uint32_t pad;
	uint64_t npages;
};

_Static_assert(sizeof(struct slab) <= SLAB_HDR, "slab header too big");
_Static_assert(sizeof(struct big) <= BIG_HDR, "big header too big");

static struct slab *partial[NCLASSES];
/* Guards the slab lists and headers; taken before pmm_lock. */
static struct spinlock kmalloc_lock = SPINLOCK_INIT("kmalloc");

static int class_of(size_t n)
{
	int c = 0;
	for (size_t size = MIN_CLASS; size < n; size <<= 1)
		c++;
	return c;
}

static void list_remove(struct slab *s, int c)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		partial[c] = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->next = s->prev = NULL;
}

static void list_push(struct slab *s, int c)
{
	s->prev = NULL;
	s->next = partial[c];
	if (s->next)
		s->next->prev = s;
	partial[c] = s;
}

static struct slab *slab_new(int c)
{
	uint64_t pa = pmm_alloc();
	if (!pa)
		return NULL;
	struct slab *s = p2v(pa);
	uint32_t size = MIN_CLASS << c;
	*s = (struct slab){ .magic = SLAB_MAGIC, .size = size,
			    .capacity = (PAGE_SIZE - SLAB_HDR) / size };
	char *obj = (char *)s + SLAB_HDR;
	for (uint32_t i = 0; i < s->capacity; i++, obj += size) {
		*(void **)obj = s->free;
		s->free = obj;
	}
	list_push(s, c);
	return s;
}

static void *small_alloc(size_t n)
{
	int c = class_of(n);
	struct slab *s = partial[c] ? partial[c] : slab_new(c);
	if (!s)
		return NULL;
	void *obj = s->free;
	s->free = *(void **)obj;
	if (++s->inuse == s->capacity)
		list_remove(s, c);
	return obj;
}

static void small_free(struct slab *s, void *obj)
{
	int c = class_of(s->size);
	if (s->inuse == s->capacity)
		list_push(s, c);
	*(void **)obj = s->free;
	s->free = obj;
	if (--s->inuse == 0) {
		list_remove(s, c);
		s->magic = 0;
		pmm_free(v2p(s));
	}
}

static void *big_alloc(size_t n)
{
	uint64_t npages = PAGE_ROUND_UP(n + BIG_HDR) / PAGE_SIZE;
	uint64_t pa = pmm_alloc_pages(npages);
	if (!pa)
		return NULL;
	struct big *b = p2v(pa);
	*b = (struct big){ .magic = BIG_MAGIC, .npages = npages };
	return (char *)b + BIG_HDR;
}

void *kmalloc(size_t n)
{
	if (n == 0)
		return NULL;
	irqflags_t f = spin_lock_irqsave(&kmalloc_lock);
	void *p = n <= KMALLOC_MAX_SMALL ? small_alloc(n) : big_alloc(n);
	spin_unlock_irqrestore(&kmalloc_lock, f);
	return p;
}

void *kzalloc(size_t n)
{
	void *p = kmalloc(n);
	if (p)
		memset(p, 0, n);
	return p;
}

void kfree(void *p)
{
	if (!p)
		return;
	void *page = (void *)PAGE_ROUND_DOWN((uint64_t)p);
	irqflags_t f = spin_lock_irqsave(&kmalloc_lock);
	if (*(uint32_t *)page == SLAB_MAGIC) {
		small_free(page, p);
	} else if (*(uint32_t *)page == BIG_MAGIC && (char *)p == (char *)page + BIG_HDR) {
		struct big *b = page;
		b->magic = 0;
		pmm_free_pages(v2p(b), b->npages);
	} else {
		panic("kfree: %p was not allocated by kmalloc", p);
	}
	spin_unlock_irqrestore(&kmalloc_lock, f);
}
