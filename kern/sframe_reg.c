#include "kern/sframe_reg.h"
#include "kern/kernel.h"
#include "kern/stats.h"
#include "kern/syscall.h"
#include "kern/task.h"
#include "kern/uaccess.h"
#include "stitch/syscall.h"

bool sframe_user_read(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	(void)ctx;
	return copy_from_user(dst, addr, len) == 0;
}

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

int sframe_register(struct uvm *mm, uint64_t sframe, uint64_t len,
		    uint64_t text, uint64_t text_len)
{
	/* struct sf_src counts a section's bytes in 32 bits. */
	int err = len > UINT32_MAX ? -STITCH_EINVAL :
				     uvm_sframe_add(mm, sframe, len, text, text_len);
	if (err)
		count_refused(err);
	else
		stat_inc(STAT_SFRAME_REGISTERED);
	return err;
}

/* The bytes the header accounts for. ld 2.40 makes PT_GNU_SFRAME larger
 * than the merged section (docs/KERNEL.md), so the segment size overstates
 * it; reading past the real end would read other data. */
static uint32_t used_size(const struct sf_table *t)
{
	uint64_t fde_end = (uint64_t)t->fdes + (uint64_t)t->num_fdes * t->fde_size;
	uint64_t fre_end = (uint64_t)t->fres + t->fre_len;
	return (uint32_t)MIN(t->src.size, MAX(fde_end, fre_end));
}

/* Header, then a full validation pass, all read from user memory. */
static int open_section(struct sframe_section *s)
{
	struct sf_src src = {
		.read = sframe_user_read, .size = (uint32_t)s->sframe_len,
		.vaddr = s->sframe_addr,
	};
	int err = sf_open(&s->table, &src);
	if (!err) {
		src.size = used_size(&s->table);
		err = sf_open(&s->table, &src);
	}
	if (!err)
		err = sf_validate(&s->table);
	return err;
}

struct sframe_section *sframe_lookup(uint64_t pc, int *err)
{
	struct uvm *mm = current->mm;
	struct sframe_section *s = mm ? uvm_sframe_find(mm, pc) : NULL;
	*err = SF_OK;
	if (!s || s->checked)
		return s;
	*err = open_section(s);
	if (*err) {
		sframe_drop(s, *err);
		return NULL;
	}
	s->checked = true;
	return s;
}

void sframe_drop(struct sframe_section *s, int err)
{
	uvm_sframe_remove(current->mm, s->text_start);
	stat_inc(STAT_SFRAME_DROPPED);
	stat_inc(err == SF_E_FAULT ? STAT_SFRAME_DROPPED_FAULT : STAT_SFRAME_DROPPED_INVALID);
}

/*
 * The system call's ADD also reads the header now, from the caller's
 * memory, so that a loader that registers something that is not SFrame
 * hears it at once: -ENOEXEC (not an SFrame section: bad magic, version,
 * ABI, layout) or -EFAULT (unreadable). The full validation still happens
 * at first use: the section is user memory and may change meanwhile.
 */
static int check_header(uint64_t sframe, uint64_t len)
{
	struct sf_table t;
	struct sf_src src = { .read = sframe_user_read, .size = (uint32_t)len,
			      .vaddr = sframe };
	int err = sf_open(&t, &src);
	if (err == SF_E_FAULT)
		return -STITCH_EFAULT;
	return err ? -STITCH_ENOEXEC : 0;
}

static long add(const long *arg)
{
	uint64_t sframe = arg[1], len = arg[2];
	int err = 0;
	if (!user_range_ok(sframe, len) || !user_range_ok(arg[3], arg[4]))
		err = -STITCH_EFAULT;
	else if (len == 0 || len > UINT32_MAX)
		err = -STITCH_EINVAL;
	else
		err = check_header(sframe, len);
	if (err) {
		count_refused(err);
		return err;
	}
	return sframe_register(current->mm, sframe, len, arg[3], arg[4]);
}

/* (op, sframe, len, text_start, text_len). REMOVE names the section by
 * the start of its text (text_start), as the registry is keyed. */
long sys_stacktrace_setup(const long *arg)
{
	switch (arg[0]) {
	case STACKTRACE_SFRAME_ADD:
		return add(arg);
	case STACKTRACE_SFRAME_REMOVE: {
		int err = uvm_sframe_remove(current->mm, arg[3]);
		if (!err)
			stat_inc(STAT_SFRAME_REMOVED);
		return err;
	}
	default:
		return -STITCH_EINVAL;
	}
}
