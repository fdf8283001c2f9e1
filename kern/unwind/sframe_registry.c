#include "kern/unwind/sframe_registry.h"
#include "kern/unwind/sframe_lookup.h"
#include <arch/uaccess.h>
#include "kern/kernel.h"
#include "kern/mm/kmalloc.h"
#include "kern/lib/stats.h"
#include "kern/proc/syscall.h"
#include "kern/proc/task.h"
#include "stitch/syscall.h"

/*
 * The registry: each address space's sections, newest first, their text
 * ranges disjoint. A registration is checked once, here, whichever way it
 * came (sframe_register); nothing further down checks it again. What the
 * header check does not see (the section is user memory and may change
 * meanwhile) is checked where the lookup reads it, and in full at first
 * use with sframe.validate (kern/unwind/sframe_lookup.c).
 */

/* SFrame's header and function descriptors sit at their natural
 * boundaries (the SFrame specification, "Overview"): a section starts at
 * a 4-byte boundary. */
#define SFRAME_ALIGN 4

/* A registration refused with -err: sframe_dropped and its reason. */
static void count_refused(int err)
{
	stat_inc(STAT_SFRAME_DROPPED);
	switch (err) {
	case -STITCH_EFAULT:
		stat_inc(STAT_SFRAME_REFUSED_RANGE);
		break;
	case -STITCH_EINVAL:
		stat_inc(STAT_SFRAME_REFUSED_LENGTH);
		break;
	case -STITCH_ENOEXEC:
		stat_inc(STAT_SFRAME_REFUSED_HEADER);
		break;
	case -STITCH_EEXIST:
		stat_inc(STAT_SFRAME_REFUSED_OVERLAP);
		break;
	default: /* -ENOMEM */
		stat_inc(STAT_SFRAME_REFUSED_FULL);
		break;
	}
}

/*
 * The header, read now from the caller's memory, so that a loader that
 * registers something that is not SFrame hears it at once: -ENOEXEC (bad
 * magic, version, ABI, layout) or -EFAULT (unreadable).
 */
static int check_header(uint64_t sframe, uint64_t len)
{
	struct sf_table t;
	struct sf_src src = { .in_place = true, .size = (uint32_t)len, .vaddr = sframe };
	arch_user_access_begin();
	int err = sf_open(&t, &src);
	arch_user_access_end();
	if (err == SF_E_FAULT)
		return -STITCH_EFAULT;
	return err ? -STITCH_ENOEXEC : 0;
}

/* The list of one kind's sections, and its length. */
static struct sframe_section **list_of(struct uvm *mm, int kind)
{
	return kind == SECTION_EH_FRAME ? &mm->ehframes : &mm->sframes;
}

static int *count_of(struct uvm *mm, int kind)
{
	return kind == SECTION_EH_FRAME ? &mm->nehframes : &mm->nsframes;
}

static bool text_taken(const struct sframe_section *list, uint64_t start, uint64_t end)
{
	for (const struct sframe_section *s = list; s; s = s->next)
		if (s->text_start < end && start < s->text_end)
			return true;
	return false;
}

/* The one check of a registration (sframe_registry.h gives the order). */
static int check(const struct uvm *mm, uint64_t sframe, uint64_t len,
		 uint64_t text, uint64_t text_len, enum sframe_origin from)
{
	int err;
	if (!user_range_ok(sframe, len) || !user_range_ok(text, text_len))
		return -STITCH_EFAULT;
	/* struct sf_src counts a section's bytes in 32 bits. */
	if (len == 0 || len > UINT32_MAX || text_len == 0)
		return -STITCH_EINVAL;
	if (sframe % SFRAME_ALIGN)
		return -STITCH_ENOEXEC;
	if (from == SFRAME_FROM_USER && (err = check_header(sframe, len)))
		return err;
	if (text_taken(mm->sframes, text, text + text_len))
		return -STITCH_EEXIST;
	return mm->nsframes < SFRAME_MAX_SECTIONS ? 0 : -STITCH_ENOMEM;
}

/* A generation no address space has had (the rule caches are per task,
 * and a task's outlives an exec's address space). */
static uint64_t sframe_gens;

static void new_generation(struct uvm *mm)
{
	__atomic_store_n(&mm->sframe_gen, __atomic_add_fetch(&sframe_gens, 1, __ATOMIC_SEQ_CST),
			 __ATOMIC_SEQ_CST);
}

/* Linked whole, then published: a walk on another CPU sees it or not. */
static int insert(struct uvm *mm, int kind, uint64_t sframe, uint64_t len, uint64_t text,
		  uint64_t text_len)
{
	struct sframe_section *s = kzalloc(sizeof(*s));
	if (!s)
		return -STITCH_ENOMEM;
	irqflags_t f = uvm_lock(mm);
	*s = (struct sframe_section){
		.next = *list_of(mm, kind), .sframe_addr = sframe, .sframe_len = len,
		.text_start = text, .text_end = text + text_len, .kind = (uint8_t)kind,
	};
	__atomic_store_n(list_of(mm, kind), s, __ATOMIC_SEQ_CST);
	++*count_of(mm, kind);
	new_generation(mm);
	uvm_unlock(mm, f);
	return 0;
}

/*
 * An .eh_frame_hdr, read now from the caller's memory: version 1 with a
 * search table of fixed-size entries (eh_open, with .eh_frame taken where
 * the header says, up to the segment's end): -ENOEXEC, or -EFAULT when
 * unreadable.
 */
static int check_eh_header(uint64_t hdr, uint64_t len, uint64_t seg_start, uint64_t seg_end)
{
	struct eh_src h = { .in_place = true, .size = len, .vaddr = hdr };
	struct eh_src f = { .in_place = true };
	struct eh_table t;
	arch_user_access_begin();
	int err = eh_hdr_frame_ptr(&h, &f.vaddr);
	if (!err && (f.vaddr < seg_start || f.vaddr >= seg_end))
		err = EH_E_HDR_FRAME_PTR;
	if (!err) {
		f.size = seg_end - f.vaddr;
		err = eh_open(&t, &h, &f);
	}
	arch_user_access_end();
	if (err == EH_E_FAULT)
		return -STITCH_EFAULT;
	return err ? -STITCH_ENOEXEC : 0;
}

static int check_eh(const struct uvm *mm, uint64_t hdr, uint64_t len, uint64_t text,
		    uint64_t text_len, uint64_t seg_start, uint64_t seg_end,
		    enum sframe_origin from)
{
	int err;
	if (!user_range_ok(hdr, len) || !user_range_ok(text, text_len) ||
	    seg_end < seg_start || !user_range_ok(seg_start, seg_end - seg_start))
		return -STITCH_EFAULT;
	if (len == 0 || len > UINT32_MAX || text_len == 0 || seg_end == seg_start ||
	    seg_end - seg_start > UINT32_MAX)
		return -STITCH_EINVAL;
	/* The header's four encoding bytes then 4-byte fields (ld's layout). */
	if (hdr % SFRAME_ALIGN)
		return -STITCH_ENOEXEC;
	if (from == SFRAME_FROM_USER && (err = check_eh_header(hdr, len, seg_start, seg_end)))
		return err;
	if (text_taken(mm->ehframes, text, text + text_len))
		return -STITCH_EEXIST;
	return mm->nehframes < SFRAME_MAX_SECTIONS ? 0 : -STITCH_ENOMEM;
}

int ehframe_register(struct uvm *mm, uint64_t hdr, uint64_t len, uint64_t text,
		     uint64_t text_len, uint64_t seg_start, uint64_t seg_end,
		     enum sframe_origin from)
{
	int err = check_eh(mm, hdr, len, text, text_len, seg_start, seg_end, from);
	if (!err)
		err = insert(mm, SECTION_EH_FRAME, hdr, len, text, text_len);
	if (err) {
		stat_inc(STAT_EHFRAME_REFUSED);
		return err;
	}
	mm->ehframes->seg_start = seg_start;
	mm->ehframes->seg_end = seg_end;
	/* sf_step_rule and sf_quick_of read only the ABI of the table. */
	mm->ehframes->table.abi = SF_ABI_AMD64_LE;
	stat_inc(STAT_EHFRAME_REGISTERED);
	return 0;
}

int sframe_register(struct uvm *mm, uint64_t sframe, uint64_t len,
		    uint64_t text, uint64_t text_len, enum sframe_origin from)
{
	int err = check(mm, sframe, len, text, text_len, from);
	if (!err)
		err = insert(mm, SECTION_SFRAME, sframe, len, text, text_len);
	if (err)
		count_refused(err);
	else
		stat_inc(STAT_SFRAME_REGISTERED);
	return err;
}

/* Unlinks and frees the section registered for text_start, with the FDE
 * index (SFrame's, or .eh_frame's) a lookup built at its first use
 * (kern/unwind/sframe_lookup.c), if any: 0 or -EINVAL. */
static void free_section(struct sframe_section *s)
{
	kfree((void *)s->table.fde_index);
	kfree(s->eh.index);
	kfree(s);
}

/* Frees the removed sections once no walk can hold them. */
static void free_dead(struct uvm *mm)
{
	struct sframe_section *s = __atomic_exchange_n(&mm->sframe_dead, NULL, __ATOMIC_SEQ_CST);
	while (s) {
		struct sframe_section *next = s->dead_next;
		free_section(s);
		stat_inc(STAT_SFRAME_DEFERRED_FREES);
		s = next;
	}
}

void sframe_read_begin(struct uvm *mm)
{
	__atomic_add_fetch(&mm->sframe_readers, 1, __ATOMIC_SEQ_CST);
}

void sframe_read_end(struct uvm *mm)
{
	if (__atomic_sub_fetch(&mm->sframe_readers, 1, __ATOMIC_SEQ_CST) == 0 &&
	    __atomic_load_n(&mm->sframe_dead, __ATOMIC_SEQ_CST))
		free_dead(mm);
}

/* Unlinks the section registered for text_start: 0 or -EINVAL. It is
 * freed with the FDE index a lookup built at its first use
 * (kern/unwind/sframe_lookup.c) at once if no walk is in progress (a walk
 * that begins after the unlink cannot find it), else by the last walk to
 * end (sframe_read_end): RCU's grace period, counted per address space. */
static int remove_section(struct uvm *mm, int kind, uint64_t text_start)
{
	irqflags_t f = uvm_lock(mm);
	struct sframe_section *s = NULL;
	for (struct sframe_section **pp = list_of(mm, kind); *pp; pp = &(*pp)->next) {
		if ((*pp)->text_start == text_start) {
			s = *pp;
			__atomic_store_n(pp, s->next, __ATOMIC_SEQ_CST);
			--*count_of(mm, kind);
			new_generation(mm);
			break;
		}
	}
	uvm_unlock(mm, f);
	if (!s)
		return -STITCH_EINVAL;
	if (__atomic_load_n(&mm->sframe_readers, __ATOMIC_SEQ_CST) == 0) {
		free_section(s);
		return 0;
	}
	s->dead_next = __atomic_load_n(&mm->sframe_dead, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&mm->sframe_dead, &s->dead_next, s, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		;
	stat_inc(STAT_SFRAME_REMOVED_IN_WALK);
	return 0;
}

struct sframe_section *sframe_find(const struct uvm *mm, uint64_t pc)
{
	for (struct sframe_section *s = __atomic_load_n(&mm->sframes, __ATOMIC_ACQUIRE); s;
	     s = __atomic_load_n(&s->next, __ATOMIC_ACQUIRE))
		if (pc >= s->text_start && pc < s->text_end)
			return s;
	return NULL;
}

struct sframe_section *ehframe_find(const struct uvm *mm, uint64_t pc)
{
	for (struct sframe_section *s = __atomic_load_n(&mm->ehframes, __ATOMIC_ACQUIRE); s;
	     s = __atomic_load_n(&s->next, __ATOMIC_ACQUIRE))
		if (pc >= s->text_start && pc < s->text_end)
			return s;
	return NULL;
}

void sframe_unmapped(struct uvm *mm)
{
	new_generation(mm);
}

void sframe_free(struct uvm *mm)
{
	while (mm->sframes)
		remove_section(mm, SECTION_SFRAME, mm->sframes->text_start);
	while (mm->ehframes)
		remove_section(mm, SECTION_EH_FRAME, mm->ehframes->text_start);
	free_dead(mm);
}

/* The counter of the reason an .eh_frame section was dropped. */
static enum stat eh_reason(int err)
{
	switch (err) {
	case EH_E_FAULT:
		return STAT_EHFRAME_BAD_FAULT;
	case EH_E_INVAL: case EH_E_HDR_VERSION: case EH_E_HDR_NO_TABLE:
	case EH_E_HDR_TABLE_ENC: case EH_E_HDR_TABLE_SIZE: case EH_E_HDR_FRAME_PTR:
		return STAT_EHFRAME_BAD_HEADER;
	case EH_E_HDR_UNSORTED: case EH_E_HDR_FDE_ADDR: case EH_E_HDR_MISMATCH:
		return STAT_EHFRAME_BAD_TABLE;
	case EH_E_CIE_POINTER: case EH_E_NOT_CIE: case EH_E_CIE_VERSION:
	case EH_E_AUGMENTATION: case EH_E_AUG_LENGTH: case EH_E_CODE_ALIGN:
	case EH_E_CIE_ADVANCE:
		return STAT_EHFRAME_BAD_CIE;
	case EH_E_STATE_OVERFLOW: case EH_E_STATE_UNDERFLOW: case EH_E_ADVANCE:
	case EH_E_NO_CFA: case EH_E_OVERFLOW:
		return STAT_EHFRAME_BAD_PROGRAM;
	default: /* lengths, terminator, ranges, encodings, LEB128, truncation */
		return STAT_EHFRAME_BAD_FDE;
	}
}

void sframe_drop(struct sframe_section *s, int err)
{
	if (s->kind == SECTION_EH_FRAME) {
		int why = s->eh_err;
		remove_section(current->mm, SECTION_EH_FRAME, s->text_start);
		stat_inc(STAT_EHFRAME_DROPPED);
		stat_inc(eh_reason(why));
		return;
	}
	remove_section(current->mm, SECTION_SFRAME, s->text_start);
	stat_inc(STAT_SFRAME_DROPPED);
	stat_inc(err == SF_E_FAULT ? STAT_SFRAME_DROPPED_FAULT : STAT_SFRAME_DROPPED_INVALID);
}

/* (op, sframe, len, text_start, text_len[, seg_end]). REMOVE names the
 * section by the start of its text (text_start), as the registry is keyed.
 * EH_FRAME_ADD gives .eh_frame_hdr as (addr, len) and the end of the
 * segment holding .eh_frame as the sixth argument: .eh_frame must begin
 * at or after the header's start and runs at most to that end. */
long sys_stacktrace_setup(const long *arg)
{
	switch (arg[0]) {
	case STACKTRACE_SFRAME_ADD:
		return sframe_register(current->mm, arg[1], arg[2], arg[3], arg[4],
				       SFRAME_FROM_USER);
	case STACKTRACE_SFRAME_REMOVE: {
		int err = remove_section(current->mm, SECTION_SFRAME, arg[3]);
		if (!err)
			stat_inc(STAT_SFRAME_REMOVED);
		return err;
	}
	case STACKTRACE_EH_FRAME_ADD:
		return ehframe_register(current->mm, arg[1], arg[2], arg[3], arg[4],
					MIN((uint64_t)arg[1], (uint64_t)arg[5]), arg[5],
					SFRAME_FROM_USER);
	case STACKTRACE_EH_FRAME_REMOVE: {
		int err = remove_section(current->mm, SECTION_EH_FRAME, arg[3]);
		if (!err)
			stat_inc(STAT_EHFRAME_REMOVED);
		return err;
	}
	default:
		return -STITCH_EINVAL;
	}
}
