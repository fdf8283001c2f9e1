#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include <arch/uaccess.h>
#include "kern/unwind/ehframe_format.h"
#include "kern/unwind/sframe_format.h"
#include "kern/unwind/lookup.h"
#include "kern/unwind/table.h"
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
	STAT_REGISTER_EXEC, STAT_REGISTER_CALL, /* every attempt, by its way in */
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

/* An SFrame table, by the loader's way in. */
static int reg(struct uvm *mm, uint64_t addr, uint64_t len, uint64_t text, uint64_t text_len)
{
	struct unwind_table_spec spec = { .addr = addr, .len = len, .text = text,
					  .text_len = text_len };
	return unwind_table_register(mm, &sframe_format, &spec, UNWIND_FROM_LOADER);
}

/* An .eh_frame table, by the loader's way in, .eh_frame in [seg, seg_end). */
static int reg_eh(struct uvm *mm, uint64_t addr, uint64_t text, uint64_t seg, uint64_t seg_end)
{
	struct unwind_table_spec spec = { .addr = addr, .len = 64, .text = text,
					  .text_len = 0x1000, .seg_start = seg,
					  .seg_end = seg_end };
	return unwind_table_register(mm, &ehframe_format, &spec, UNWIND_FROM_LOADER);
}

/* The loader's way in (no header read): every refusal of the one check,
 * in its order, each counted by its reason; the list, the lookup, the
 * generation that voids cached rules, the limit. */
KTEST(table_check_and_list)
{
	uint64_t before[NREG_STATS];
	struct uvm *mm = uvm_create();
	KASSERT(t, mm != NULL);
	read_stats(before);
	uint64_t gen = mm->tables.gen;

	KEXPECT_EQ(t, reg(mm, 0x500000, 64, 0x401000, 0x1000), 0);
	/* Each change draws a generation no address space had before. */
	KEXPECT(t, mm->tables.gen > gen);
	gen = mm->tables.gen;
	KEXPECT_EQ(t, reg(mm, 0x600000, 64, 0x401800, 0x1000), -STITCH_EEXIST);
	KEXPECT_EQ(t, reg(mm, 0x600000, 64, 0x402000, 0x1000), 0);
	KEXPECT_EQ(t, reg(mm, USER_END - 2, 64, 0x403000, 0x10), -STITCH_EFAULT);
	KEXPECT_EQ(t, reg(mm, 0x700000, 64, USER_END, 0x10), -STITCH_EFAULT);
	/* Range before length: a length that wraps is outside user memory. */
	KEXPECT_EQ(t, reg(mm, 0x700000, -4096ull, 0x403000, 0x10), -STITCH_EFAULT);
	KEXPECT_EQ(t, reg(mm, 0x700000, 0, 0x403000, 0x10), -STITCH_EINVAL);
	KEXPECT_EQ(t, reg(mm, 0x700000, 64, 0x403000, 0), -STITCH_EINVAL);
	KEXPECT_EQ(t, reg(mm, 0x700000, 1ull << 32, 0x403000, 0x10), -STITCH_EINVAL);
	KEXPECT_EQ(t, reg(mm, 0x700002, 64, 0x403000, 0x10), -STITCH_ENOEXEC);
	KEXPECT_EQ(t, mm->tables.count[UNWIND_SFRAME], 2);
	KEXPECT(t, mm->tables.gen > gen); /* one registration went in */
	gen = mm->tables.gen;

	const struct unwind_table *s = unwind_table_find(mm, UNWIND_SFRAME, 0x402fff);
	KEXPECT(t, s && s->addr == 0x600000 && s->text_start == 0x402000 &&
		   s->text_end == 0x403000 && !s->opened && s->fmt == &sframe_format);
	/* An SFrame table points only into itself. */
	KEXPECT(t, s && s->seg_start == 0x600000 && s->seg_end == 0x600040);
	KEXPECT(t, unwind_table_find(mm, UNWIND_SFRAME, 0x403000) == NULL);
	KEXPECT(t, unwind_table_find(mm, UNWIND_SFRAME, 0x400fff) == NULL);
	KEXPECT(t, unwind_table_find(mm, UNWIND_EH_FRAME, 0x402fff) == NULL);
	unwind_tables_unmapped(mm);
	KEXPECT(t, mm->tables.gen > gen);

	/* Up to UNWIND_MAX_TABLES, then -ENOMEM. */
	int n = 2;
	while (n < 64 && !reg(mm, 0x500000, 64, 0x500000 + n * 0x10, 0x10))
		n++;
	KEXPECT_EQ(t, n, UNWIND_MAX_TABLES);
	KEXPECT_EQ(t, mm->tables.count[UNWIND_SFRAME], UNWIND_MAX_TABLES);

	/* registered 2 + 14; dropped 9: range 3, length 3, header 1,
	 * overlap 1, full 1; 25 attempts, all the loader's. */
	const uint64_t want[NREG_STATS] = { UNWIND_MAX_TABLES, 9, 3, 3, 1, 1, 1, 0, 25, 0 };
	expect_moved(t, before, want);

	/* The other format's list: the same text is free there; its segment
	 * is checked as the table's range is. */
	KEXPECT_EQ(t, reg_eh(mm, 0x700000, 0x401000, 0x700000, 0x6ff000), -STITCH_EFAULT);
	KEXPECT_EQ(t, reg_eh(mm, 0x700000, 0x401000, 0x700000, USER_END + 4096), -STITCH_EFAULT);
	KEXPECT_EQ(t, reg_eh(mm, 0x700000, 0x401000, 0x700000, 0x700000), -STITCH_EINVAL);
	KEXPECT_EQ(t, reg_eh(mm, 0x700000, 0x401000, 0x700000, 0x710000), 0);
	KEXPECT_EQ(t, reg_eh(mm, 0x700000, 0x401800, 0x700000, 0x710000), -STITCH_EEXIST);
	s = unwind_table_find(mm, UNWIND_EH_FRAME, 0x401000);
	KEXPECT(t, s && s->fmt == &ehframe_format && s->seg_end == 0x710000);
	KEXPECT_EQ(t, mm->tables.count[UNWIND_EH_FRAME], 1);
	KEXPECT_EQ(t, mm->tables.count[UNWIND_SFRAME], UNWIND_MAX_TABLES);
	uvm_destroy(mm); /* unwind_tables_free: the tables go with it */
}

/* SYS_stacktrace_setup on a real address space (/bin/fib, whose own
 * section the loader registered): the header is read from the caller's
 * memory at ADD; REMOVE by text start. */
KTEST(table_system_call)
{
	uint64_t rw, ro, before[NREG_STATS];
	struct uvm *mm = ktest_borrow_mm(t, &rw, &ro);
	if (!mm)
		return;
	const struct unwind_table *own = unwind_table_find(mm, UNWIND_SFRAME, mm->text_start);
	KASSERT(t, own != NULL);
	uint64_t sf = own->addr, len = own->len;
	read_stats(before);

	long add[5] = { STACKTRACE_SFRAME_ADD, (long)sf, (long)len, (long)rw, 64 };
	KEXPECT_EQ(t, sys_stacktrace_setup(add), 0); /* fib's section, other text */
	const struct unwind_table *s = unwind_table_find(mm, UNWIND_SFRAME, rw + 63);
	KEXPECT(t, s && s->addr == sf);
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
	uint64_t gen = mm->tables.gen;
	KEXPECT_EQ(t, sys_stacktrace_setup(rm), 0);
	KEXPECT(t, mm->tables.gen > gen);
	KEXPECT(t, unwind_table_find(mm, UNWIND_SFRAME, rw) == NULL);
	KEXPECT_EQ(t, sys_stacktrace_setup(rm), -STITCH_EINVAL);
	long bad_op[5] = { 7, 0, 0, 0, 0 };
	KEXPECT_EQ(t, sys_stacktrace_setup(bad_op), -STITCH_EINVAL);

	/* registered 1, dropped 5: range 1, header 3, overlap 1; removed 1;
	 * 6 attempts, all by the system call. */
	const uint64_t want[NREG_STATS] = { 1, 5, 1, 0, 3, 1, 0, 1, 0, 6 };
	expect_moved(t, before, want);
	ktest_return_mm(mm);
}

/* Registers fib's section for the text at rw, looks a pc of it up (the
 * first use: the table opens and its index is built, one chunk for
 * fib's FDEs), and removes it. */
static uint64_t add_use_remove(struct ktest *t, struct uvm *mm, uint64_t sf, uint64_t len,
			       uint64_t rw, uint64_t held)
{
	long add[5] = { STACKTRACE_SFRAME_ADD, (long)sf, (long)len, (long)rw, 64 };
	long rm[5] = { STACKTRACE_SFRAME_REMOVE, 0, 0, (long)rw, 0 };
	struct rule_lookup l;

	KEXPECT_EQ(t, sys_stacktrace_setup(add), 0);
	lookup_begin(&l, mm, UNWIND_SFRAME, NULL, 100000);
	arch_user_access_begin();
	(void)lookup_rule(&l, rw, false); /* fib's FDEs lie outside: no rule */
	arch_user_access_end();
	const struct unwind_table *s = unwind_table_find(mm, UNWIND_SFRAME, rw);
	uint64_t size = s ? s->index_bytes : 0;
	KEXPECT(t, s && s->opened && s->index && !s->indexing && size > 32);
	KEXPECT_EQ(t, mm->tables.index_bytes, held + size);
	lookup_end(&l, 1);
	KEXPECT_EQ(t, sys_stacktrace_setup(rm), 0);
	KEXPECT_EQ(t, mm->tables.index_bytes, held);
	return size;
}

/* One walk's lookup of pc in mm's SFrame tables. */
static void look_up(struct uvm *mm, uint64_t pc)
{
	struct rule_lookup l;
	lookup_begin(&l, mm, UNWIND_SFRAME, NULL, 100000);
	arch_user_access_begin();
	(void)lookup_rule(&l, pc, false);
	arch_user_access_end();
	lookup_end(&l, 1);
}

/* The loader's own table, indexed lazily: a lookup at its last FDE's
 * start fills that block (counted once), and another in the same block
 * reads nothing more; the block's starts are the section's. */
static void fill_once(struct ktest *t, struct uvm *mm, const struct unwind_table *own)
{
	look_up(mm, own->text_start); /* opens and builds the top level */
	const struct lz_index *lz = own->lazy;
	KASSERT(t, lz && lz_ready(lz) && lz->n >= 2);
	uint32_t last = lz->n - 1, b = last >> LZ_BLOCK_SHIFT;
	uint32_t fills = lz->fills;
	uint64_t counted = stat_total(STAT_UNWIND_INDEX_FILLS);
	look_up(mm, lz->start[b << LZ_BLOCK_SHIFT] + 1);
	KEXPECT(t, lz->filled[b]);
	KEXPECT_EQ(t, stat_total(STAT_UNWIND_INDEX_FILLS) - counted, lz->fills - fills);
	fills = lz->fills;
	look_up(mm, lz->start[last]);
	KEXPECT_EQ(t, lz->fills, fills);
	const struct sf_table *sf = (const struct sf_table *)own->state;
	for (uint32_t i = b << LZ_BLOCK_SHIFT; i <= last; i++) {
		struct sf_fde fde;
		arch_user_access_begin();
		int err = sf_fde_get(sf, i, &fde);
		arch_user_access_end();
		KEXPECT(t, !err && fde.start == lz->start[i]);
	}
}

/* A table registered, indexed and removed in a loop: each index is
 * counted once, freed with its table (the process's index bytes back to
 * what the loader's own table holds), and no page is lost. */
KTEST(table_index_register_remove_loop)
{
	uint64_t rw, ro;
	struct uvm *mm = ktest_borrow_mm(t, &rw, &ro);
	if (!mm)
		return;
	const struct unwind_table *own = unwind_table_find(mm, UNWIND_SFRAME, mm->text_start);
	KASSERT(t, own != NULL);
	fill_once(t, mm, own);
	uint64_t held = mm->tables.index_bytes;
	/* The first time, fib's pages fault in and stay. */
	uint64_t size = add_use_remove(t, mm, own->addr, own->len, rw, held);
	size_t free_pages = pmm_nfree();
	uint64_t bytes = stat_total(STAT_UNWIND_INDEX_BYTES);
	uint64_t built = stat_total(STAT_SFRAME_INDEXED);
	for (int i = 0; i < 100; i++)
		add_use_remove(t, mm, own->addr, own->len, rw, held);
	KEXPECT_EQ(t, stat_total(STAT_SFRAME_INDEXED) - built, 100);
	KEXPECT_EQ(t, stat_total(STAT_UNWIND_INDEX_BYTES) - bytes, 100 * size);
	KEXPECT_EQ(t, pmm_nfree(), free_pages);
	ktest_return_mm(mm);
}
