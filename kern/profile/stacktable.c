#include "kern/profile/stacktable.h"
#include "kern/kernel.h"
#include "kern/lib/string.h"
#include "kern/mm/kmalloc.h"
#include "stitch/syscall.h"

#define SLOT_EMPTY 0ull
#define SLOT_BUSY  1ull
#define SLOT_READY (1ull << 63) /* in every ready slot's hash: never 0 or 1 */

int stack_table_init(struct stack_table *t, uint32_t cap, uint32_t nwords)
{
	uint32_t slots = 2;
	while (slots < 2 * (uint64_t)cap)
		slots <<= 1;
	*t = (struct stack_table){ .mask = slots - 1, .cap = cap, .nwords = nwords };
	t->hash = kzalloc(slots * sizeof *t->hash);
	t->start = kzalloc(slots * sizeof *t->start);
	t->len = kzalloc(slots * sizeof *t->len);
	t->written = kzalloc(slots);
	t->words = kzalloc((uint64_t)nwords * sizeof *t->words);
	if (t->hash && t->start && t->len && t->written && t->words)
		return 0;
	stack_table_free(t);
	return -STITCH_ENOMEM;
}

void stack_table_free(struct stack_table *t)
{
	kfree(t->hash);
	kfree(t->start);
	kfree(t->len);
	kfree(t->written);
	kfree(t->words);
	*t = (struct stack_table){ 0 };
}

static uint64_t hash_words(const uint64_t *w, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	for (uint32_t i = 0; i < n; i++) {
		h = (h ^ w[i]) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	return h | SLOT_READY;
}

static bool same(const struct stack_table *t, uint32_t slot, uint64_t h,
		 const uint64_t *w, uint32_t n)
{
	return __atomic_load_n(&t->hash[slot], __ATOMIC_ACQUIRE) == h &&
	       t->len[slot] == n && memcmp(&t->words[t->start[slot]], w, n * 8) == 0;
}

/* An id and n words: false when the table gives no more of either. */
static bool reserve(struct stack_table *t, uint32_t n, uint32_t *start)
{
	if (__atomic_fetch_add(&t->ids, 1, __ATOMIC_RELAXED) >= t->cap) {
		__atomic_fetch_sub(&t->ids, 1, __ATOMIC_RELAXED);
		return false;
	}
	/* Words never go back once given: those a lost race leaves unused
	 * stay so (rare: two CPUs claiming one slot). A run that does not
	 * fit takes none, so a shorter one may still. */
	uint32_t used = __atomic_load_n(&t->used, __ATOMIC_RELAXED);
	do {
		if (n > t->nwords - used) {
			__atomic_fetch_sub(&t->ids, 1, __ATOMIC_RELAXED);
			return false;
		}
	} while (!__atomic_compare_exchange_n(&t->used, &used, used + n, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	*start = used;
	return true;
}

/* Linear probing from the hash. */
bool stack_table_intern(struct stack_table *t, const uint64_t *w, uint32_t n, uint32_t *id)
{
	uint64_t h = hash_words(w, n);
	uint32_t start = 0, i = (uint32_t)h & t->mask;
	bool reserved = false, found = false;
	for (uint32_t probe = 0; probe <= t->mask; probe++, i = (i + 1) & t->mask) {
		uint64_t s = __atomic_load_n(&t->hash[i], __ATOMIC_ACQUIRE);
		if (s == h && same(t, i, h, w, n)) {
			found = true;
			break;
		}
		if (s != SLOT_EMPTY)
			continue; /* other words, or words being written */
		if (!reserved && !(reserved = reserve(t, n, &start)))
			return false;
		if (!__atomic_compare_exchange_n(&t->hash[i], &s, SLOT_BUSY, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			if ((found = same(t, i, h, w, n)))
				break;
			continue;
		}
		memcpy(&t->words[start], w, n * 8);
		t->start[i] = start;
		t->len[i] = n;
		__atomic_store_n(&t->hash[i], h, __ATOMIC_RELEASE);
		*id = i + 1;
		return true;
	}
	/* Found (the place reserved was not needed), or no slot left. */
	if (reserved)
		__atomic_fetch_sub(&t->ids, 1, __ATOMIC_RELAXED);
	*id = i + 1;
	return found;
}

const uint64_t *stack_table_slot(const struct stack_table *t, uint32_t s, uint32_t *n)
{
	if (!(__atomic_load_n(&t->hash[s], __ATOMIC_ACQUIRE) & SLOT_READY))
		return NULL;
	*n = t->len[s];
	return &t->words[t->start[s]];
}
