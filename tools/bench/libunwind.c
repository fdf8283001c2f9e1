/*
 * libunwind (libunwind-dev) unwinding a snapshot remotely: unw_init_remote
 * on an address space whose accessors serve the snapshot, as perf's
 * libunwind support does for its stack copies. Registers come from the
 * copy's regs, memory from the copy and the ELF files, and the unwind
 * tables from each file's .eh_frame through the search table ehframe.c
 * makes (what .eh_frame_hdr holds in a dynamic link).
 */
#include <libunwind.h>
#include <stdlib.h>

#include "hostunwind.h"

/*
 * The .eh_frame_hdr lookup itself. libunwind exports it (libunwind-ptrace
 * and libunwind-coredump call it) but declares it only in its private
 * headers; perf declares it the same way.
 */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					       unw_dyn_info_t *di, unw_proc_info_t *pi,
					       int need_unwind_info, void *arg);

static unw_addr_space_t space;
static const struct proc *cached; /* whose unwind info libunwind has cached */

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	const struct snap *sn = arg;
	const struct image *im = snap_image(sn, ip);
	if (!im || !im->neh)
		return -UNW_ENOINFO;
	/* The table's offsets count from segbase: .eh_frame here, where an
	 * .eh_frame_hdr table would count from the header. */
	unw_dyn_info_t di = {
		.start_ip = im->start,
		.end_ip = im->end,
		.format = UNW_INFO_FORMAT_REMOTE_TABLE,
		.u.rti = {
			.segbase = im->eh_frame,
			.table_data = im->eh_table_addr,
			/* in words: each entry is two 4-byte offsets */
			.table_len = im->neh * 8 / sizeof(unw_word_t),
		},
	};
	return UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
}

/* dwarf_search_unwind_table's info lives in libunwind's own pool, which
 * libunwind frees itself: nothing to do (perf does the same). */
static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as, (void)pi, (void)arg;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void)as, (void)addr, (void)arg;
	return -UNW_ENOINFO;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
		      int write, void *arg)
{
	(void)as;
	if (write || !snap_read(arg, addr, val, sizeof *val))
		return -UNW_EINVAL;
	return 0;
}

/* libunwind's x86_64 register numbers are DWARF's. */
static const int rec_of_dwarf[17] = {
	REC_REG_AX, REC_REG_DX, REC_REG_CX, REC_REG_BX, REC_REG_SI, REC_REG_DI,
	REC_REG_BP, REC_REG_SP, REC_REG_R8, REC_REG_R9, REC_REG_R10, REC_REG_R11,
	REC_REG_R12, REC_REG_R13, REC_REG_R14, REC_REG_R15, REC_REG_IP,
};

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val,
		      int write, void *arg)
{
	(void)as;
	const struct snap *sn = arg;
	if (write || reg < 0 || reg > UNW_X86_64_RIP)
		return -UNW_EBADREG;
	*val = sn->regs[rec_of_dwarf[reg]];
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val,
			int write, void *arg)
{
	(void)as, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as, (void)c, (void)arg;
	return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
};

void libunwind_init(void)
{
	space = unw_create_addr_space(&accessors, 0);
	/* A profiler caches unwind info by ip, as perf asks libunwind to. */
	unw_set_caching_policy(space, UNW_CACHE_GLOBAL);
}

void libunwind_fini(void)
{
	unw_destroy_addr_space(space);
}

uint32_t unwind_libunwind(const struct snap *sn, uint64_t *out, uint32_t max, void *ctx)
{
	(void)ctx;
	unw_cursor_t c;
	unw_word_t ip;
	uint32_t n = 0;
	/* Every program is linked at 0x400000: one's cached ips are not
	 * another's. */
	if (sn->proc != cached) {
		unw_flush_cache(space, 0, 0);
		cached = sn->proc;
	}
	if (!max || unw_init_remote(&c, space, (void *)sn) < 0)
		return 0;
	do {
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0)
			break;
		out[n++] = ip;
	} while (n < max && unw_step(&c) > 0);
	return n;
}
