/*
 * Helpers shared by the library's files; not part of the API.
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

/* Copy len bytes at section offset off into dst; SF_E_HDR_BOUNDS if any
 * byte lies outside the section, SF_E_FAULT if the reader fails. Inline:
 * every field read goes through here, and with a constant len the copy
 * from an in-memory section becomes a plain load. */
static inline int sf_get(const struct sf_src *s, uint64_t off, uint32_t len, void *dst)
{
	/* No sum can overflow: off and len are each checked against size
	 * before they are combined. */
	if (off > s->size || len > s->size - off)
		return SF_E_HDR_BOUNDS;
	if (s->base) {
		/* GCC's builtin: a load for a constant len, else a memcpy call
		 * (which a freestanding program provides anyway). */
		__builtin_memcpy(dst, s->base + off, len);
		return SF_OK;
	}
	return s->read(s->ctx, s->vaddr + off, dst, len) ? SF_OK : SF_E_FAULT;
}

static inline uint16_t sf_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t sf_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t sf_le64(const uint8_t *p)
{
	return (uint64_t)sf_le32(p) | (uint64_t)sf_le32(p + 4) << 32;
}

/* The two base registers of a default FDE, as DWARF numbers. */
static inline uint8_t sf_sp_reg(const struct sf_table *t)
{
	return t->abi == SF_ABI_AMD64_LE ? SF_AMD64_SP : SF_AARCH64_SP;
}

static inline uint8_t sf_fp_reg(const struct sf_table *t)
{
	return t->abi == SF_ABI_AMD64_LE ? SF_AMD64_FP : SF_AARCH64_FP;
}

/* Width in bytes of an FRE start address of the given FRE type. */
static inline uint32_t sf_addr_size(uint8_t fre_type)
{
	return fre_type == SF_FRE_ADDR1 ? 1 : fre_type == SF_FRE_ADDR2 ? 2 : 4;
}

#endif /* STITCH_SFRAME_INTERNAL_H */
