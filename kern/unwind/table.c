#include "kern/unwind/table.h"
#include "kern/unwind/ehframe_format.h"
#include "kern/unwind/sframe_format.h"
#include <arch/time.h>
#include <arch/uaccess.h>
#include "kern/kernel.h"
#include "kern/lib/cmdline.h"
#include "kern/mm/kmalloc.h"
#include "kern/mm/uvm.h"
#include "kern/lib/stats.h"
#include "kern/proc/syscall.h"
#include "kern/proc/task.h"
#include "stitch/syscall.h"

/*
 * The registry: each address space's tables, one list per format, newest
 * first, their text ranges disjoint within a format. A registration is
 * checked once, here, whichever way it came (unwind_table_register);
 * nothing further down checks it again. What the header check does not
 * see (the table is user memory and may change meanwhile) is checked
 * where the format reads it, at first use and on each lookup.
 */

/* Both formats' headers sit at a 4-byte boundary: SFrame's header and
 * function descriptors at their natural ones (the SFrame specification,
 * "Overview"), .eh_frame_hdr's four encoding bytes then 4-byte fields
 * (ld's layout). */
#define TABLE_ALIGN 4

static const struct unwind_format *const formats[UNWIND_FORMATS] = {
	[UNWIND_SFRAME] = &sframe_format,
	[UNWIND_EH_FRAME] = &ehframe_format,
};

/* The index's switch and budgets (docs/DEFERRED.md): unwind.fde_index=0
 * turns it off; a table's index may take unwind.index_kib KiB, a
 * process's indexes unwind.index_process_kib KiB in all. The default
 * per table holds an index of 131 072 FDEs (32 bytes each). */
static bool index_on = true;
static uint64_t index_table_max, index_process_max;

void unwind_tables_init(void)
{
	index_on = cmdline_int(&boot_args, "unwind.fde_index", 1, 0, 1);
	index_table_max = (uint64_t)cmdline_int(&boot_args, "unwind.index_kib", 4096, 0, 1 << 20) << 10;
	index_process_max =
		(uint64_t)cmdline_int(&boot_args, "unwind.index_process_kib", 16384, 0, 1 << 20) << 10;
	for (int id = 0; id < UNWIND_FORMATS; id++)
		if (formats[id]->init)
			formats[id]->init();
}

/* The checks that need no list, in table.h's order: the ranges, the
 * lengths, the alignment, and, from user, the header (read now, the lock
 * not held: it may fault). */
static int check(const struct uvm *mm, struct unwind_table *t,
		 const struct unwind_table_spec *spec, enum unwind_origin from)
{
	/* mm's own range: the loader registers a new program's tables
	 * while its parent, maybe of the other width, is current. */
	uint64_t end = uvm_user_end(mm);
	if (!range_below(spec->addr, spec->len, end) || !range_below(spec->text, spec->text_len, end) ||
	    t->seg_end < t->seg_start || !range_below(t->seg_start, t->seg_end - t->seg_start, end))
		return -STITCH_EFAULT;
	/* The formats' sources count a table's bytes in 32 bits. */
	if (spec->len == 0 || spec->len > UINT32_MAX || spec->text_len == 0 ||
	    t->seg_end == t->seg_start || t->seg_end - t->seg_start > UINT32_MAX)
		return -STITCH_EINVAL;
	if (spec->addr % TABLE_ALIGN)
		return -STITCH_ENOEXEC;
	if (from == UNWIND_FROM_LOADER)
		return 0;
	arch_user_access_begin();
	int err = t->fmt->check(t);
	arch_user_access_end();
	return err;
}

static bool text_taken(const struct unwind_table *list, uint64_t start, uint64_t end)
{
	for (const struct unwind_table *s = list; s; s = s->next)
		if (s->text_start < end && start < s->text_end)
			return true;
	return false;
}

/* A generation no address space has had (the rule caches are per task,
 * and a task's outlives an exec's address space). */
static uint64_t generations;

static void new_generation(struct unwind_registry *r)
{
	__atomic_store_n(&r->gen, __atomic_add_fetch(&generations, 1, __ATOMIC_SEQ_CST),
			 __ATOMIC_RELEASE);
}

/* The checks against the list and the insert, under one lock: two
 * registrations at once see each other. t is whole: a walk on another
 * CPU sees all of it or nothing. */
static int publish(struct uvm *mm, struct unwind_table *t)
{
	struct unwind_registry *r = &mm->tables;
	enum unwind_format_id id = t->fmt->id;
	int err = 0;
	irqflags_t f = uvm_lock(mm);
	if (text_taken(r->list[id], t->text_start, t->text_end))
		err = -STITCH_EEXIST;
	else if (r->count[id] >= UNWIND_MAX_TABLES)
		err = -STITCH_ENOMEM;
	if (!err) {
		t->next = r->list[id];
		__atomic_store_n(&r->list[id], t, __ATOMIC_RELEASE);
		r->count[id]++;
		new_generation(r);
	}
	uvm_unlock(mm, f);
	return err;
}

static int register_table(struct uvm *mm, const struct unwind_format *fmt,
			  const struct unwind_table_spec *spec, enum unwind_origin from)
{
	struct unwind_table tmp = {
		.fmt = fmt, .owner = &mm->tables, .addr = spec->addr, .len = spec->len,
		.text_start = spec->text, .text_end = spec->text + spec->text_len,
		.seg_start = spec->seg_start, .seg_end = spec->seg_end,
		.compat = mm->compat,
	};
	/* A table of a self-contained format points only into itself. */
	if (fmt->self_contained) {
		tmp.seg_start = spec->addr;
		tmp.seg_end = spec->addr + spec->len;
	}
	/* SFrame defines no ABI for i386: a compat program's section,
	 * from its file or its own call, is refused (its program runs). */
	if (fmt == &sframe_format && mm->compat) {
		stat_inc(STAT_SFRAME_DROPPED);
		stat_inc(STAT_SFRAME_REFUSED_COMPAT);
		return -STITCH_ENOEXEC;
	}
	struct unwind_table *t = NULL;
	int err = check(mm, &tmp, spec, from);
	if (!err && !(t = kzalloc(sizeof *t + fmt->state_size)))
		err = -STITCH_ENOMEM;
	if (!err) {
		*t = tmp;
		err = publish(mm, t);
	}
	if (err)
		kfree(t);
	fmt->count(err ? TABLE_REFUSED : TABLE_REGISTERED, &tmp, err);
	return err;
}

/* One function per origin, never inlined: make bench's plugin
 * (tools/insnprof) measures each as a window of its own, the cost of a
 * registration at exec and at dlopen (docs/BENCHMARKS.md, "Table
 * designs"). */
static __attribute__((noinline)) int register_at_exec(struct uvm *mm,
						      const struct unwind_format *fmt,
						      const struct unwind_table_spec *spec)
{
	return register_table(mm, fmt, spec, UNWIND_FROM_LOADER);
}

static __attribute__((noinline)) int register_by_call(struct uvm *mm,
						      const struct unwind_format *fmt,
						      const struct unwind_table_spec *spec)
{
	return register_table(mm, fmt, spec, UNWIND_FROM_USER);
}

int unwind_table_register(struct uvm *mm, const struct unwind_format *fmt,
			  const struct unwind_table_spec *spec, enum unwind_origin from)
{
	uint64_t t0 = arch_cycles();
	int err = from == UNWIND_FROM_LOADER ? register_at_exec(mm, fmt, spec)
					     : register_by_call(mm, fmt, spec);
	uint64_t cycles = arch_cycles() - t0;
	if (from == UNWIND_FROM_LOADER) {
		stat_inc(STAT_REGISTER_EXEC);
		stat_add(STAT_REGISTER_EXEC_CYCLES, cycles);
	} else {
		stat_inc(STAT_REGISTER_CALL);
		stat_add(STAT_REGISTER_CALL_CYCLES, cycles);
	}
	return err;
}

void *unwind_table_alloc(uint64_t size)
{
	arch_user_access_end();
	void *mem = kmalloc(size);
	arch_user_access_begin();
	return mem;
}

/* Takes bytes of the process's index budget: false when over it. */
static bool index_charge(struct unwind_registry *r, uint64_t bytes)
{
	uint64_t held = __atomic_add_fetch(&r->index_bytes, bytes, __ATOMIC_RELAXED);
	if (held <= index_process_max)
		return true;
	__atomic_sub_fetch(&r->index_bytes, bytes, __ATOMIC_RELAXED);
	return false;
}

static void index_free(struct unwind_table *t)
{
	if (!t->index)
		return;
	__atomic_sub_fetch(&t->owner->index_bytes, t->index_bytes, __ATOMIC_RELAXED);
	kfree(t->index);
	t->index = NULL;
	t->lazy = NULL;
	t->index_bytes = 0;
	t->indexing = false;
}

void unwind_index_start(struct unwind_table *t)
{
	uint64_t entries = 0;
	uint64_t size = index_on ? t->fmt->index_size(t, &entries) : 0;
	if (!size)
		return;
	if (size > index_table_max || !index_charge(t->owner, size)) {
		stat_inc(STAT_UNWIND_INDEX_OVER_BUDGET);
		return;
	}
	void *mem = unwind_table_alloc(size);
	if (!mem || t->fmt->index_begin(t, mem, size)) {
		kfree(mem);
		t->lazy = NULL;
		__atomic_sub_fetch(&t->owner->index_bytes, size, __ATOMIC_RELAXED);
		stat_inc(STAT_UNWIND_INDEX_ABANDONED);
		return;
	}
	t->index = mem;
	t->index_bytes = size;
	t->indexing = true;
	stat_add(STAT_UNWIND_INDEX_BYTES, size);
	stat_add(STAT_UNWIND_INDEX_ENTRIES, entries);
}

int unwind_index_more(struct unwind_table *t)
{
	uint32_t work = UNWIND_INDEX_CHUNK;
	uint64_t t0 = arch_cycles();
	int err = t->fmt->index_more(t, &work);
	stat_add(STAT_UNWIND_INDEX_CYCLES, arch_cycles() - t0);
	stat_inc(STAT_UNWIND_INDEX_CHUNKS);
	if (err == SF_OK)
		t->indexing = false;
	if (err == SF_OK || err == SF_E_BUDGET)
		return SF_OK;
	/* The lookups search the table as it is; they find what is wrong
	 * with it (the index's error) themselves. */
	index_free(t);
	stat_inc(STAT_UNWIND_INDEX_ABANDONED);
	return err == SF_E_NOSPACE ? SF_OK : err;
}

/* Frees a table nothing can reach, with what its format built. */
static void free_table(struct unwind_table *t)
{
	if (t->fmt->free)
		t->fmt->free(t);
	index_free(t);
	kfree(t);
}

/* Frees the removed tables once no walk can hold them. */
void unwind_tables_free_dead(struct unwind_registry *r)
{
	struct unwind_table *t = __atomic_exchange_n(&r->dead, NULL, __ATOMIC_SEQ_CST);
	while (t) {
		struct unwind_table *next = t->dead_next;
		free_table(t);
		stat_inc(STAT_UNWIND_DEFERRED_FREES);
		t = next;
	}
}

/* Unlinks the table of format id registered for text_start (which NULL),
 * or the table which: 0 or -EINVAL. It is freed at once if no walk is in
 * progress (a walk that begins after the unlink cannot find it), else by
 * the last walk to end (unwind_tables_release): RCU's grace period,
 * counted per address space. */
static int remove_table(struct uvm *mm, enum unwind_format_id id, uint64_t text_start,
			const struct unwind_table *which)
{
	struct unwind_registry *r = &mm->tables;
	struct unwind_table *t = NULL;
	irqflags_t f = uvm_lock(mm);
	for (struct unwind_table **pp = &r->list[id]; *pp; pp = &(*pp)->next) {
		if (which ? *pp == which : (*pp)->text_start == text_start) {
			t = *pp;
			__atomic_store_n(pp, t->next, __ATOMIC_RELEASE);
			r->count[id]--;
			new_generation(r);
			break;
		}
	}
	uvm_unlock(mm, f);
	if (!t)
		return -STITCH_EINVAL;
	if (__atomic_load_n(&r->readers, __ATOMIC_SEQ_CST) == 0) {
		free_table(t);
		return 0;
	}
	t->dead_next = __atomic_load_n(&r->dead, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&r->dead, &t->dead_next, t, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		;
	stat_inc(STAT_UNWIND_REMOVED_IN_WALK);
	return 0;
}

struct unwind_table *unwind_table_find(const struct uvm *mm, enum unwind_format_id id,
				       uint64_t pc)
{
	for (struct unwind_table *t = __atomic_load_n(&mm->tables.list[id], __ATOMIC_ACQUIRE); t;
	     t = __atomic_load_n(&t->next, __ATOMIC_ACQUIRE))
		if (pc >= t->text_start && pc < t->text_end)
			return t;
	return NULL;
}

void unwind_tables_unmapped(struct uvm *mm)
{
	new_generation(&mm->tables);
}

void unwind_tables_free(struct uvm *mm)
{
	for (int id = 0; id < UNWIND_FORMATS; id++)
		while (mm->tables.list[id])
			remove_table(mm, id, 0, mm->tables.list[id]);
	unwind_tables_free_dead(&mm->tables);
}

void unwind_table_drop(struct unwind_table *t, int err)
{
	/* Counted first: the table may be freed by the removal (not while
	 * this walk holds the lists, but its format's state is read now). */
	t->fmt->count(TABLE_DROPPED, t, err);
	remove_table(current->mm, t->fmt->id, 0, t);
}

/* A removal by the program: by the start of the table's text, as the
 * registry is keyed. */
static long remove_by_user(enum unwind_format_id id, uint64_t text_start)
{
	int err = remove_table(current->mm, id, text_start, NULL);
	if (!err)
		formats[id]->count(TABLE_REMOVED, NULL, 0);
	return err;
}

/* (op, addr, len, text_start, text_len[, seg_end]). REMOVE names the
 * table by the start of its text (text_start). EH_FRAME_ADD gives
 * .eh_frame_hdr as (addr, len) and the end of the segment holding
 * .eh_frame as the sixth argument: .eh_frame must begin at or after the
 * header's start and runs at most to that end. */
long sys_stacktrace_setup(const long *arg)
{
	struct unwind_table_spec spec = { .addr = (uint64_t)arg[1], .len = (uint64_t)arg[2],
					  .text = (uint64_t)arg[3], .text_len = (uint64_t)arg[4] };
	switch (arg[0]) {
	case STACKTRACE_SFRAME_ADD:
		return unwind_table_register(current->mm, &sframe_format, &spec, UNWIND_FROM_USER);
	case STACKTRACE_SFRAME_REMOVE:
		return remove_by_user(UNWIND_SFRAME, spec.text);
	case STACKTRACE_EH_FRAME_ADD:
		spec.seg_start = MIN(spec.addr, (uint64_t)arg[5]);
		spec.seg_end = (uint64_t)arg[5];
		return unwind_table_register(current->mm, &ehframe_format, &spec, UNWIND_FROM_USER);
	case STACKTRACE_EH_FRAME_REMOVE:
		return remove_by_user(UNWIND_EH_FRAME, spec.text);
	default:
		return -STITCH_EINVAL;
	}
}
