#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/lib/string.h"
#include "kern/profile/stacktable.h"

/* The words of id, as the reader sees them, equal w[0 .. n). */
static bool holds(const struct stack_table *t, uint32_t id, const uint64_t *w, uint32_t n)
{
	uint32_t got;
	const uint64_t *p = stack_table_slot(t, id - 1, &got);
	return p && got == n && memcmp(p, w, n * 8) == 0;
}

/* The same words, the same id; other words (a prefix too), another. */
KTEST(stacktable_interns)
{
	struct stack_table tb;
	uint64_t a[3] = { 1, 2, 3 }, b[3] = { 1, 2, 4 };
	uint32_t ia, ia2, ib, ip;
	KASSERT_EQ(t, stack_table_init(&tb, 8, 64), 0);
	KEXPECT(t, stack_table_intern(&tb, a, 3, &ia) && ia != 0);
	KEXPECT(t, stack_table_intern(&tb, b, 3, &ib) && ib != ia);
	KEXPECT(t, stack_table_intern(&tb, a, 2, &ip) && ip != ia && ip != ib);
	KEXPECT(t, stack_table_intern(&tb, a, 3, &ia2) && ia2 == ia);
	KEXPECT(t, holds(&tb, ia, a, 3) && holds(&tb, ib, b, 3) && holds(&tb, ip, a, 2));
	KEXPECT_EQ(t, tb.ids, 3);
	stack_table_free(&tb);
}

/* At capacity a new stack is refused, a known one still found; a stack
 * whose words do not fit is refused though ids are left. */
KTEST(stacktable_bounded)
{
	struct stack_table tb;
	uint64_t w[4] = { 0 };
	uint32_t id, first = 0;
	KASSERT_EQ(t, stack_table_init(&tb, 4, 64), 0);
	for (uint64_t i = 1; i <= 4; i++) {
		w[0] = i;
		KEXPECT(t, stack_table_intern(&tb, w, 1, &id));
		first = first ? first : id;
	}
	w[0] = 5;
	KEXPECT(t, !stack_table_intern(&tb, w, 1, &id));
	w[0] = 1;
	KEXPECT(t, stack_table_intern(&tb, w, 1, &id) && id == first);
	stack_table_free(&tb);

	KASSERT_EQ(t, stack_table_init(&tb, 4, 10), 0);
	KEXPECT(t, stack_table_intern(&tb, w, 4, &id));
	w[0] = 2;
	KEXPECT(t, stack_table_intern(&tb, w, 4, &id));
	w[0] = 3;
	KEXPECT(t, !stack_table_intern(&tb, w, 4, &id)); /* 12 words of 10 */
	KEXPECT(t, stack_table_intern(&tb, w, 2, &id));  /* 10 of 10 */
	stack_table_free(&tb);
}

/* Two stacks with the same home slot (found by pigeonhole: five stacks,
 * four slots): the second goes to the next free slot, and both are
 * found again, whole. */
KTEST(stacktable_collisions)
{
	struct stack_table tb;
	uint64_t w[5][2];
	uint32_t home[5], id0, id1, again;
	for (int i = 0; i < 5; i++) {
		w[i][0] = 0x1000 + (uint64_t)i;
		w[i][1] = 0xffffffff80000000ull;
		KASSERT_EQ(t, stack_table_init(&tb, 2, 8), 0); /* 4 slots */
		KASSERT(t, stack_table_intern(&tb, w[i], 2, &home[i]));
		stack_table_free(&tb);
	}
	int a = -1, b = -1;
	for (int i = 0; i < 5 && b < 0; i++)
		for (int j = i + 1; j < 5 && b < 0; j++)
			if (home[i] == home[j])
				a = i, b = j;
	KASSERT(t, b >= 0);
	KASSERT_EQ(t, stack_table_init(&tb, 2, 8), 0);
	KEXPECT(t, stack_table_intern(&tb, w[a], 2, &id0) && id0 == home[a]);
	KEXPECT(t, stack_table_intern(&tb, w[b], 2, &id1) && id1 != id0);
	KEXPECT(t, holds(&tb, id0, w[a], 2) && holds(&tb, id1, w[b], 2));
	KEXPECT(t, stack_table_intern(&tb, w[b], 2, &again) && again == id1);
	stack_table_free(&tb);
}
