/*
 * SFrame registration: which user text ranges have which SFrame section.
 * This registry owns each address space's list (struct uvm's sframe_*
 * fields): every operation on it is here, kern/mm/uvm.c only says when the
 * address space changes.
 *
 * Two ways in, one function: the kernel's ELF loader registers the
 * executable's PT_GNU_SFRAME at spawn, and a user-space loader registers
 * the sections of what it loads with SYS_stacktrace_setup (after Linux's
 * proposal: op, addr, len, text_start, text_len). The sections stay in
 * user memory: nothing is pinned or copied. The lookup opens a section
 * at its first use, reads it in place with single user loads, checks what
 * it reads (kern/unwind/sframe_lookup.h), and the walk drops the section
 * (counted) when that fails.
 */
#ifndef KERN_SFRAME_REG_H
#define KERN_SFRAME_REG_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/mm/uvm.h"
#include "sframe/sframe.h"
#include "ehframe/ehframe.h"

/* The most sections one address space may have registered. */
#define SFRAME_MAX_SECTIONS 16

/*
 * A registered section: user addresses, read lazily by the unwinder, which
 * opens it at its first use. Owned by this registry (kern/unwind/sframe_registry.c)
 * from registration to removal: what the lookup keeps per section (the
 * open table, its FDE index: kern/unwind/sframe_lookup.c) goes with the
 * section.
 */
struct sframe_section {
	struct sframe_section *next;
	uint64_t sframe_addr, sframe_len; /* .sframe, or .eh_frame_hdr */
	uint64_t text_start, text_end;   /* the code it describes */
	bool checked;                    /* table is open (header and layout checked) */
	int busy;                        /* a lookup holds it (sframe_lookup.c) */
	struct sframe_section *dead_next;/* on mm->sframe_dead */
	struct sf_table table;           /* reads in place, with single user loads;
					  * of an .eh_frame section only its ABI
					  * (for sf_step_rule, sf_quick_of) */
	/* SECTION_EH_FRAME: the segment that holds .eh_frame, which must
	 * contain the address eh_frame_ptr names (the header gives no size:
	 * .eh_frame is taken to run to the segment's end), the open table,
	 * and the error a lookup dropped it for (counted by reason). */
	uint8_t kind;                    /* enum unwind_section_kind */
	uint64_t seg_start, seg_end;
	struct eh_table eh;
	int eh_err;
};

/* The two formats a section may be in; each address space has a list of
 * each, and a walk reads the list of the profile's mode. */
enum unwind_section_kind { SECTION_SFRAME, SECTION_EH_FRAME };

/* Where a registration comes from. The section of a program the kernel
 * loads is in an address space that does not run yet: its header is read
 * at its first use. A program's own registration is in its memory now:
 * the header is read at once, so that a wrong one is refused. */
enum sframe_origin {
	SFRAME_FROM_LOADER, /* kern/mm/uvm.c: the executable's PT_GNU_SFRAME */
	SFRAME_FROM_USER,   /* SYS_stacktrace_setup ADD; mm is current's */
};

/*
 * Registers [sframe, +len) for the code [text, +text_len) of mm, after
 * the one check every registration passes: 0, or the refusal, in this
 * order: -EFAULT (a range outside user memory, or, from user, a header
 * that cannot be read), -EINVAL (a zero length, or a section over
 * 4 GiB), -ENOEXEC (not at a 4-byte boundary, or, from user, no SFrame
 * header), -EEXIST (the text overlaps a registered range), -ENOMEM
 * (SFRAME_MAX_SECTIONS, or no memory). Counts sframe_registered, or
 * sframe_dropped and the refusal's reason (sframe_refused_*).
 */
int sframe_register(struct uvm *mm, uint64_t sframe, uint64_t len,
		    uint64_t text, uint64_t text_len, enum sframe_origin from);

/*
 * Registers the .eh_frame_hdr [hdr, +len) for the code [text, +text_len)
 * of mm; .eh_frame lies in the segment [seg_start, seg_end) (the PT_LOAD
 * that holds it: the header gives its address, not its size). The same
 * checks and refusals as sframe_register, in the list of .eh_frame
 * sections (at most SFRAME_MAX_SECTIONS of them): a header that is not
 * version 1 with a search table is -ENOEXEC, from user read at once.
 * Counts ehframe_registered or ehframe_refused.
 */
int ehframe_register(struct uvm *mm, uint64_t hdr, uint64_t len, uint64_t text,
		     uint64_t text_len, uint64_t seg_start, uint64_t seg_end,
		     enum sframe_origin from);

/* The section covering pc, or NULL. */
struct sframe_section *sframe_find(const struct uvm *mm, uint64_t pc);
/* The .eh_frame section covering pc, or NULL. */
struct sframe_section *ehframe_find(const struct uvm *mm, uint64_t pc);

/* What kern/mm/uvm.c tells the registry: text may have been unmapped (the
 * cached rules are void); mm is being freed (its sections and the
 * lookup's rule cache go). */
void sframe_unmapped(struct uvm *mm);
void sframe_free(struct uvm *mm);

/* Unregisters a section the unwinder found unusable at run time: err is
 * SF_E_FAULT (a read faulted) or why it is not valid SFrame. Counted in
 * sframe_dropped and sframe_dropped_fault / sframe_dropped_invalid; an
 * .eh_frame section in ehframe_dropped and by the reason in s->eh_err
 * (ehframe_bad_*). */
void sframe_drop(struct sframe_section *s, int err);

/* A walk's hold on mm's sections: one removed meanwhile is freed after
 * the last walk that began before its removal ends. */
void sframe_read_begin(struct uvm *mm);
void sframe_read_end(struct uvm *mm);

#endif
