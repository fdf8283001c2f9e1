#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/mm/mm.h"
#include "kern/unwind/sframe_registry.h"
#include "kern/lib/stats.h"
#include "kern/proc/syscall.h"
#include "kern/proc/task.h"
#include "kern/mm/uvm.h"
#include "stitch/syscall.h"

/* The counters a registration moves, read before and after. */
static const enum stat reg_stats[] = {
	STAT_SFRAME_REGISTERED, STAT_SFRAME_DROPPED, STAT_SFRAME_REFUSED_RANGE,
	STAT_SFRAME_REFUSED_LENGTH, STAT_SFRAME_REFUSED_HEADER,
	STAT_SFRAME_REFUSED_OVERLAP, STAT_SFRAME_REFUSED_FULL, STAT_SFRAME_REMOVED,
};
#define NREG_STATS (sizeof reg_stats / sizeof reg_stats[0])

static void read_stats(uint64_t v[NREG_STATS])
{
	for (unsigned i = 0; i < NREG_STATS; i++)
		v[i] = stat_total(reg_stats[i]);
}

/* Each counter moved by exactly want[i] since before. */
static void expect_moved(struct ktest *t, const uint64_t before[NREG_STATS],
			 const uint64_t want[NREG_STATS])
{
	uint64_t now[NREG_STATS];
	read_stats(now);
	for (unsigned i = 0; i < NREG_STATS; i++)
		if (!KEXPECT_EQ(t, now[i] - before[i], want[i]))
			kprintf("#   counter %s\n", stat_name(reg_stats[i]));
}

/* The loader's way in (no header read): every refusal of the one check,
 * in its order, each counted by its reason; the list, the lookup, the
 * generation that voids cached rules, the limit. */
KTEST(sframe_reg_check_and_list)
{
	uint64_t before[NREG_STATS];
	struct uvm *mm = uvm_create();
	KASSERT(t, mm != NULL);
	read_stats(before);
	uint64_t gen = mm->sframe_gen;
	enum sframe_origin L = SFRAME_FROM_LOADER;

	KEXPECT_EQ(t, sframe_register(mm, 0x500000, 64, 0x401000, 0x1000, L), 0);
	/* Each change draws a generation no address space had before. */
	KEXPECT(t, mm->sframe_gen > gen);
	gen = mm->sframe_gen;
	KEXPECT_EQ(t, sframe_register(mm, 0x600000, 64, 0x401800, 0x1000, L), -STITCH_EEXIST);
	KEXPECT_EQ(t, sframe_register(mm, 0x600000, 64, 0x402000, 0x1000, L), 0);
	KEXPECT_EQ(t, sframe_register(mm, USER_END - 2, 64, 0x403000, 0x10, L), -STITCH_EFAULT);
	KEXPECT_EQ(t, sframe_register(mm, 0x700000, 64, USER_END, 0x10, L), -STITCH_EFAULT);
	/* Range before length: a length that wraps is outside user memory. */
	KEXPECT_EQ(t, sframe_register(mm, 0x700000, -4096ull, 0x403000, 0x10, L), -STITCH_EFAULT);
	KEXPECT_EQ(t, sframe_register(mm, 0x700000, 0, 0x403000, 0x10, L), -STITCH_EINVAL);
	KEXPECT_EQ(t, sframe_register(mm, 0x700000, 64, 0x403000, 0, L), -STITCH_EINVAL);
	KEXPECT_EQ(t, sframe_register(mm, 0x700000, 1ull << 32, 0x403000, 0x10, L), -STITCH_EINVAL);
	KEXPECT_EQ(t, sframe_register(mm, 0x700002, 64, 0x403000, 0x10, L), -STITCH_ENOEXEC);
	KEXPECT_EQ(t, mm->nsframes, 2);
	KEXPECT(t, mm->sframe_gen > gen); /* one registration went in */
	gen = mm->sframe_gen;

	const struct sframe_section *s = sframe_find(mm, 0x402fff);
	KEXPECT(t, s && s->sframe_addr == 0x600000 && s->text_start == 0x402000 &&
		   s->text_end == 0x403000 && !s->checked);
	KEXPECT(t, sframe_find(mm, 0x403000) == NULL);
	KEXPECT(t, sframe_find(mm, 0x400fff) == NULL);
	sframe_unmapped(mm);
	KEXPECT(t, mm->sframe_gen > gen);

	/* Up to SFRAME_MAX_SECTIONS, then -ENOMEM. */
	int n = 2;
	while (n < 64 && !sframe_register(mm, 0x500000, 64, 0x500000 + n * 0x10, 0x10, L))
		n++;
	KEXPECT_EQ(t, n, SFRAME_MAX_SECTIONS);
	KEXPECT_EQ(t, mm->nsframes, SFRAME_MAX_SECTIONS);

	/* registered 2 + 14; dropped 9: range 3, length 3, header 1,
	 * overlap 1, full 1. */
	const uint64_t want[NREG_STATS] = { SFRAME_MAX_SECTIONS, 9, 3, 3, 1, 1, 1, 0 };
	expect_moved(t, before, want);
	uvm_destroy(mm); /* sframe_free: the sections go with it */
}

/* SYS_stacktrace_setup on a real address space (/bin/fib, whose own
 * section the loader registered): the header is read from the caller's
 * memory at ADD; REMOVE by text start. */
KTEST(sframe_reg_system_call)
{
	uint64_t rw, ro, before[NREG_STATS];
	struct uvm *mm = ktest_borrow_mm(t, &rw, &ro);
	if (!mm)
		return;
	const struct sframe_section *own = sframe_find(mm, mm->text_start);
	KASSERT(t, own != NULL);
	uint64_t sf = own->sframe_addr, len = own->sframe_len;
	read_stats(before);

	long add[5] = { STACKTRACE_SFRAME_ADD, (long)sf, (long)len, (long)rw, 64 };
	KEXPECT_EQ(t, sys_stacktrace_setup(add), 0); /* fib's section, other text */
	KEXPECT(t, sframe_find(mm, rw + 63) && sframe_find(mm, rw + 63)->sframe_addr == sf);
	KEXPECT_EQ(t, sys_stacktrace_setup(add), -STITCH_EEXIST);
	add[3] = (long)(rw + 64);
	add[1] = (long)(sf + 4); /* aligned, but no header there */
	KEXPECT_EQ(t, sys_stacktrace_setup(add), -STITCH_ENOEXEC);
	add[1] = (long)(sf + 1); /* misaligned: refused before any read */
	KEXPECT_EQ(t, sys_stacktrace_setup(add), -STITCH_ENOEXEC);
	add[1] = (long)rw; /* zeros */
	KEXPECT_EQ(t, sys_stacktrace_setup(add), -STITCH_ENOEXEC);
	add[1] = (long)(rw + PAGE_SIZE); /* the hole: unreadable */
	KEXPECT_EQ(t, sys_stacktrace_setup(add), -STITCH_EFAULT);

	long rm[5] = { STACKTRACE_SFRAME_REMOVE, 0, 0, (long)rw, 0 };
	uint64_t gen = mm->sframe_gen;
	KEXPECT_EQ(t, sys_stacktrace_setup(rm), 0);
	KEXPECT(t, mm->sframe_gen > gen);
	KEXPECT(t, sframe_find(mm, rw) == NULL);
	KEXPECT_EQ(t, sys_stacktrace_setup(rm), -STITCH_EINVAL);
	long bad_op[5] = { 7, 0, 0, 0, 0 };
	KEXPECT_EQ(t, sys_stacktrace_setup(bad_op), -STITCH_EINVAL);

	/* registered 1, dropped 5: range 1, header 3, overlap 1; removed 1. */
	const uint64_t want[NREG_STATS] = { 1, 5, 1, 0, 3, 1, 0, 1 };
	expect_moved(t, before, want);
	ktest_return_mm(mm);
}
