#include "kern/unwind/sframe_registry.h"
#include "kern/unwind/sframe_lookup.h"
#include <arch/uaccess.h>
#include "kern/kernel.h"
#include "kern/mm/kmalloc.h"
#include "kern/profile/stats.h"
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

static bool text_taken(const struct uvm *mm, uint64_t start, uint64_t end)
{
	for (const struct sframe_section *s = mm->sframes; s; s = s->next)
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
	if (text_taken(mm, text, text + text_len))
		return -STITCH_EEXIST;
	return mm->nsframes < SFRAME_MAX_SECTIONS ? 0 : -STITCH_ENOMEM;
}

static int insert(struct uvm *mm, uint64_t sframe, uint64_t len, uint64_t text,
		  uint64_t text_len)
{
	struct sframe_section *s = kzalloc(sizeof(*s));
	if (!s)
		return -STITCH_ENOMEM;
	*s = (struct sframe_section){
		.next = mm->sframes, .sframe_addr = sframe, .sframe_len = len,
		.text_start = text, .text_end = text + text_len,
	};
	mm->sframes = s;
	mm->nsframes++;
	mm->sframe_gen++;
	return 0;
}

int sframe_register(struct uvm *mm, uint64_t sframe, uint64_t len,
		    uint64_t text, uint64_t text_len, enum sframe_origin from)
{
	int err = check(mm, sframe, len, text, text_len, from);
	if (!err)
		err = insert(mm, sframe, len, text, text_len);
	if (err)
		count_refused(err);
	else
		stat_inc(STAT_SFRAME_REGISTERED);
	return err;
}

/* Unlinks and frees the section registered for text_start, with the FDE
 * index a lookup built at its first use (kern/unwind/sframe_lookup.c), if
 * any: 0 or -EINVAL. */
static int remove_section(struct uvm *mm, uint64_t text_start)
{
	for (struct sframe_section **pp = &mm->sframes; *pp; pp = &(*pp)->next) {
		struct sframe_section *s = *pp;
		if (s->text_start == text_start) {
			*pp = s->next;
			mm->nsframes--;
			if (mm->sframe_last == s)
				mm->sframe_last = NULL;
			mm->sframe_gen++;
			kfree((void *)s->table.fde_index);
			kfree(s);
			return 0;
		}
	}
	return -STITCH_EINVAL;
}

struct sframe_section *sframe_find(const struct uvm *mm, uint64_t pc)
{
	for (struct sframe_section *s = mm->sframes; s; s = s->next)
		if (pc >= s->text_start && pc < s->text_end)
			return s;
	return NULL;
}

void sframe_unmapped(struct uvm *mm)
{
	mm->sframe_gen++;
}

void sframe_free(struct uvm *mm)
{
	while (mm->sframes)
		remove_section(mm, mm->sframes->text_start);
	sframe_rule_cache_free(mm);
}

void sframe_drop(struct sframe_section *s, int err)
{
	remove_section(current->mm, s->text_start);
	stat_inc(STAT_SFRAME_DROPPED);
	stat_inc(err == SF_E_FAULT ? STAT_SFRAME_DROPPED_FAULT : STAT_SFRAME_DROPPED_INVALID);
}

/* (op, sframe, len, text_start, text_len). REMOVE names the section by
 * the start of its text (text_start), as the registry is keyed. */
long sys_stacktrace_setup(const long *arg)
{
	switch (arg[0]) {
	case STACKTRACE_SFRAME_ADD:
		return sframe_register(current->mm, arg[1], arg[2], arg[3], arg[4],
				       SFRAME_FROM_USER);
	case STACKTRACE_SFRAME_REMOVE: {
		int err = remove_section(current->mm, arg[3]);
		if (!err)
			stat_inc(STAT_SFRAME_REMOVED);
		return err;
	}
	default:
		return -STITCH_EINVAL;
	}
}
