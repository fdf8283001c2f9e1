#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/mm/kmalloc.h"
#include "kern/mm/uvm.h"
#include "kern/unwind/lookup.h"

/* The first pc after `after` that falls in pc0's set. */
static uint64_t same_set(const struct rule_cache *c, uint64_t pc0, uint64_t after)
{
	uint64_t pc = after + 1;
	while (rule_set(c, pc) != rule_set(c, pc0))
		pc++;
	return pc;
}

/* Whether the cache answers pc, "none" as it was filed (no rule, no
 * error but the frame pointer's turn), without a lookup. */
static bool hits(struct ktest *t, struct rule_lookup *l, uint64_t pc)
{
	uint32_t lookups = l->lookups;
	struct unwind_answer a = lookup_rule(l, pc, true);
	KEXPECT_EQ(t, a.err, SF_E_NO_FDE);
	KEXPECT(t, a.quick == NULL);
	return l->lookups == lookups;
}

/* A set holds two pcs that hash alike, the newest in front, and a third
 * evicts the older of the two: a leaf's pc and a return address of one
 * set must not evict each other on every unwind. In an address space
 * without tables, so that every lookup answers "none", filed with the
 * walk's tag and bit 0 set. */
KTEST(rule_cache_two_ways)
{
	struct uvm *mm = uvm_create();
	KASSERT(t, mm != NULL);
	struct rule_cache *c = kzalloc(sizeof(struct rule_cache));
	KASSERT(t, c != NULL);
	struct rule_lookup l;
	lookup_begin(&l, mm, UNWIND_SFRAME, c, 1000);

	uint64_t a = 0x401000, b = same_set(c, a, a), d = same_set(c, a, b);
	KEXPECT(t, !hits(t, &l, a));
	KEXPECT(t, !hits(t, &l, b));
	KEXPECT_EQ(t, l.cache_fills, 2);
	struct rule_entry *set = rule_set(c, a);
	KEXPECT_EQ(t, set[0].pc, b); /* the newest in front */
	KEXPECT_EQ(t, set[0].tag, l.tag | 1);
	KEXPECT_EQ(t, set[1].pc, a);
	KEXPECT(t, hits(t, &l, a));
	KEXPECT(t, hits(t, &l, b));

	KEXPECT(t, !hits(t, &l, d)); /* a, the oldest, goes */
	KEXPECT(t, hits(t, &l, d));
	KEXPECT(t, hits(t, &l, b));
	KEXPECT(t, !hits(t, &l, a));
	KEXPECT_EQ(t, l.cache_fills, 4);
	KEXPECT_EQ(t, l.lookups, 4);

	lookup_end(&l, 8); /* eight steps, four of them looked up */
	kfree(c);
	uvm_destroy(mm);
}
