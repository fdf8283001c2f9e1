/*
 * Helpers shared by the library's files; not part of the API.
 *
 * The library in layers, each file including only headers of its own
 * layer or below and calling only functions of the layers below it:
 *   0  internal.h   checked loads from the three sources, byte order
 *   1  read.h       the readers' inline decoders, and the readers:
 *                   header.c, fde.c, fre.c, rule.c
 *   2  over the readers: validate.c, encode.c; plain.c, the reference
 *      lookup (through sframe.h only); fde_index.h and fde_index.c
 *   3  fast.c       the accelerated lookup, over the FDE index
 *   4  step.c       an unwind step, over the accelerated lookup
 */
#ifndef STITCH_SFRAME_INTERNAL_H
#define STITCH_SFRAME_INTERNAL_H

#include "sframe.h"

/* Encoded sizes, per version. */
#define SF_FDE_V1_SIZE  17
#define SF_FDE_V2_SIZE  20
#define SF_FDE_V3_SIZE  16
#define SF_ATTR_V3_SIZE 5 /* v3 attribute record before a function's FREs */

/* binutils 2.40 only emits PCMASK FDEs for AMD64 PLTs, whose entries are
 * 16 bytes; version 1 has no field for it, so it is implied. */
#define SF_V1_PLT_REP_SIZE 16

/* DWARF register numbers the default FDE's base registers stand for. */
#define SF_AMD64_SP  7
#define SF_AMD64_FP  6
#define SF_AARCH64_SP 31
#define SF_AARCH64_FP 29
/* And those of i386 (SF_ABI_I386_EH). */
#define SF_I386_SP 4
#define SF_I386_FP 5

#define SF_INLINE inline __attribute__((always_inline))

/*
 * The environment's checked load, for in_place sources and in-place stack
 * reads: sf_env_load(addr, len, dst) copies len bytes (a constant 1, 2, 4
 * or 8 at every call site) at run-time address addr, false on a fault.
 * sf_env_range_ok(addr, len) says whether a whole range may be read that
 * way (sf_open asks it of an in_place section), and
 * sf_env_load_in_range is sf_env_load inside such a range, without
 * checking the range again. A build may supply its own with
 * -DSF_ENV_LOAD_H='"header"' (the kernel's: one user load with an
 * exception-table fixup, arch/x86_64/include/arch/sframe_load.h); by
 * default the memory is this program's own and the load a plain one.
 */
#ifdef SF_ENV_LOAD_H
#include SF_ENV_LOAD_H
#else
static SF_INLINE bool sf_env_load(uint64_t addr, uint32_t len, void *dst)
{
	__builtin_memcpy(dst, (const void *)(uintptr_t)addr, len);
	return true;
}

static SF_INLINE bool sf_env_range_ok(uint64_t addr, uint64_t len)
{
	(void)addr, (void)len;
	return true;
}

static SF_INLINE bool sf_env_load_in_range(uint64_t addr, uint32_t len, void *dst)
{
	return sf_env_load(addr, len, dst);
}
#endif

/* How a source is read; hot loops are instantiated once per kind, so the
 * choice is made once per lookup, not once per field. */
enum sf_kind { SF_KIND_BASE, SF_KIND_IN_PLACE, SF_KIND_READ };

static inline enum sf_kind sf_kind(const struct sf_src *s)
{
	return s->base ? SF_KIND_BASE : s->in_place ? SF_KIND_IN_PLACE : SF_KIND_READ;
}

/* len bytes at section offset off, which the caller has proved lie in the
 * section. With constant kind and len this is one load. */
static SF_INLINE int sf_load(const struct sf_src *s, enum sf_kind k,
			     uint64_t off, uint32_t len, void *dst)
{
	if (k == SF_KIND_BASE) {
		__builtin_memcpy(dst, s->base + off, len);
		return SF_OK;
	}
	if (k == SF_KIND_IN_PLACE) /* in the range sf_open checked */
		return sf_env_load_in_range(s->vaddr + off, len, dst) ? SF_OK : SF_E_FAULT;
	return s->read(s->ctx, s->vaddr + off, dst, len) ? SF_OK : SF_E_FAULT;
}

/* Copy len bytes at section offset off into dst; SF_E_HDR_BOUNDS if any
 * byte lies outside the section, SF_E_FAULT if the reader fails. In place,
 * a record (an FDE, the header) is read in 8-byte loads and a 4, 2, 1-byte
 * tail: three loads for a 17-byte FDE. sf_get_kind is the same for a
 * source kind the caller already knows (a constant in a hot path). */
static SF_INLINE int sf_get_kind(const struct sf_src *s, enum sf_kind k, uint64_t off,
				 uint32_t len, void *dst)
{
	/* No sum can overflow: off and len are each checked against size
	 * before they are combined. */
	if (off > s->size || len > s->size - off)
		return SF_E_HDR_BOUNDS;
	if (k != SF_KIND_IN_PLACE)
		return sf_load(s, k, off, len, dst);
	uint8_t *d = dst;
	int err = SF_OK;
	for (; len >= 8 && !err; len -= 8, off += 8, d += 8)
		err = sf_load(s, k, off, 8, d);
	if (len >= 4 && !err) {
		err = sf_load(s, k, off, 4, d);
		len -= 4, off += 4, d += 4;
	}
	if (len >= 2 && !err) {
		err = sf_load(s, k, off, 2, d);
		len -= 2, off += 2, d += 2;
	}
	if (len && !err)
		err = sf_load(s, k, off, 1, d);
	return err;
}

static inline int sf_get(const struct sf_src *s, uint64_t off, uint32_t len, void *dst)
{
	return sf_get_kind(s, sf_kind(s), off, len, dst);
}

static SF_INLINE uint16_t sf_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static SF_INLINE uint32_t sf_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static SF_INLINE uint64_t sf_le64(const uint8_t *p)
{
	return (uint64_t)sf_le32(p) | (uint64_t)sf_le32(p + 4) << 32;
}

/* The two base registers of a default FDE, as DWARF numbers. */
static inline uint8_t sf_sp_reg(const struct sf_table *t)
{
	return t->abi == SF_ABI_AMD64_LE ? SF_AMD64_SP :
	       t->abi == SF_ABI_I386_EH  ? SF_I386_SP : SF_AARCH64_SP;
}

static inline uint8_t sf_fp_reg(const struct sf_table *t)
{
	return t->abi == SF_ABI_AMD64_LE ? SF_AMD64_FP :
	       t->abi == SF_ABI_I386_EH  ? SF_I386_FP : SF_AARCH64_FP;
}

/* A stack word's bytes: 4 on i386, 8 on both SFrame ABIs. */
static inline uint32_t sf_word(const struct sf_table *t)
{
	return t->abi == SF_ABI_I386_EH ? 4 : 8;
}

/* Whether the return address lies between a frame and its caller's (x86),
 * so that the CFA is strictly above sp. */
static inline bool sf_strict(const struct sf_table *t)
{
	return t->abi == SF_ABI_AMD64_LE || t->abi == SF_ABI_I386_EH;
}

/* Width in bytes of an FRE start address of the given FRE type. */
static inline uint32_t sf_addr_size(uint8_t fre_type)
{
	return fre_type == SF_FRE_ADDR1 ? 1 : fre_type == SF_FRE_ADDR2 ? 2 : 4;
}

#endif /* STITCH_SFRAME_INTERNAL_H */
