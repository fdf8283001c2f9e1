/*
 * Reading fields of a section through a cursor: fixed-size little-endian
 * numbers, LEB128 numbers and the LSB's encoded pointers. Every read checks
 * the cursor's bounds before it touches a byte.
 */
#include "internal.h"

/* The environment's load for in_place sources: the kernel's is one user
 * load inside the unwinder's user-access window
 * (arch/$(ARCH)/include/arch/ehframe_load.h): bool eh_env_load(addr, len, dst). */
#ifdef EH_ENV_LOAD_H
#include EH_ENV_LOAD_H
#endif

static bool load(const struct eh_src *s, uint64_t addr, void *dst, uint32_t len)
{
#ifdef EH_ENV_LOAD_H
	if (s->in_place)
		return eh_env_load(addr, len, dst);
#endif
	return s->read && s->read(s->ctx, addr, dst, len);
}

void eh_bytes(struct eh_cur *c, void *dst, uint32_t len)
{
	if (c->err)
		goto zero;
	if (len > c->end - c->pos) {
		eh_fail(c, c->oob);
		goto zero;
	}
	const struct eh_src *s = c->s;
	if (s->read_left) {
		if (len > *s->read_left) {
			eh_fail(c, EH_E_BUDGET);
			goto zero;
		}
		*s->read_left -= len;
	}
	if (s->base)
		__builtin_memcpy(dst, s->base + c->pos, len);
	else if (!load(s, s->vaddr + c->pos, dst, len)) {
		eh_fail(c, EH_E_FAULT);
		goto zero;
	}
	c->pos += len;
	return;
zero:
	/* A failed read yields zeros: callers check err, never garbage. */
	__builtin_memset(dst, 0, len);
}

uint8_t eh_u8(struct eh_cur *c)
{
	uint8_t b;
	eh_bytes(c, &b, 1);
	return b;
}

uint16_t eh_u16(struct eh_cur *c)
{
	uint8_t b[2];
	eh_bytes(c, b, 2);
	return (uint16_t)(b[0] | b[1] << 8);
}

uint32_t eh_u32(struct eh_cur *c)
{
	uint8_t b[4];
	eh_bytes(c, b, 4);
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

uint64_t eh_u64(struct eh_cur *c)
{
	uint64_t lo = eh_u32(c);
	return lo | (uint64_t)eh_u32(c) << 32;
}

void eh_skip(struct eh_cur *c, uint64_t len)
{
	if (c->err)
		return;
	if (len > c->end - c->pos)
		eh_fail(c, c->oob);
	else
		c->pos += len;
}

/*
 * The groups of 7 bits of a LEB128 number, at most 10 bytes. The 10th
 * holds bit 63 only: its other bits must be zero (signed: copies of bit
 * 63), and it must be the last; else the number does not fit in 64 bits,
 * EH_E_LEB, as is a number the end cuts off.
 */
static uint64_t leb(struct eh_cur *c, bool sign)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	for (;;) {
		if (!c->err && c->pos == c->end)
			eh_fail(c, EH_E_LEB);
		b = eh_u8(c);
		if (c->err)
			return 0;
		uint64_t bits = b & 0x7f;
		if (shift == 63 && ((b & 0x80) || (bits != 0 && bits != (sign ? 0x7fu : 1u)))) {
			eh_fail(c, EH_E_LEB);
			return 0;
		}
		v |= bits << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (sign && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

uint64_t eh_uleb(struct eh_cur *c)
{
	return leb(c, false);
}

int64_t eh_sleb(struct eh_cur *c)
{
	return (int64_t)leb(c, true);
}

uint32_t eh_fmt_size(const struct eh_src *s, uint8_t enc)
{
	switch (EH_PE_FMT(enc)) {
	case EH_PE_ABSPTR:
		return s->abi == EH_ABI_I386 ? 4 : 8;
	case EH_PE_UDATA8:
	case EH_PE_SDATA8:
		return 8;
	case EH_PE_UDATA4:
	case EH_PE_SDATA4:
		return 4;
	case EH_PE_UDATA2:
	case EH_PE_SDATA2:
		return 2;
	}
	return 0;
}

/* The value as stored, sign-extended where the format is signed. */
static uint64_t raw(struct eh_cur *c, uint8_t enc)
{
	switch (EH_PE_FMT(enc)) {
	case EH_PE_ABSPTR:
		return c->s->abi == EH_ABI_I386 ? eh_u32(c) : eh_u64(c);
	case EH_PE_UDATA8:
	case EH_PE_SDATA8:
		return eh_u64(c);
	case EH_PE_ULEB128:
		return eh_uleb(c);
	case EH_PE_SLEB128:
		return (uint64_t)eh_sleb(c);
	case EH_PE_UDATA4:
		return eh_u32(c);
	case EH_PE_SDATA4:
		return (uint64_t)(int64_t)(int32_t)eh_u32(c);
	case EH_PE_UDATA2:
		return eh_u16(c);
	case EH_PE_SDATA2:
		return (uint64_t)(int64_t)(int16_t)eh_u16(c);
	}
	eh_fail(c, EH_E_PTR_ENC);
	return 0;
}

uint64_t eh_ptr(struct eh_cur *c, uint8_t enc, uint64_t datarel)
{
	uint64_t field = eh_addr(c);
	uint64_t base;

	/* indirect (a GOT slot to load) only ever marks the personality,
	 * which is skipped, never followed. */
	if (enc & EH_PE_INDIRECT)
		eh_fail(c, EH_E_PTR_ENC);
	switch (EH_PE_APP(enc)) {
	case 0:
		base = 0;
		break;
	case EH_PE_PCREL:
		base = field;
		break;
	case EH_PE_DATAREL:
		base = datarel;
		if (!datarel)
			eh_fail(c, EH_E_PTR_ENC);
		break;
	default: /* textrel, funcrel, aligned: not emitted for x86-64 */
		eh_fail(c, EH_E_PTR_ENC);
		base = 0;
	}
	uint64_t v = raw(c, enc);
	/* An i386 program's addresses wrap at 4 GiB, as its pc does. */
	return c->err ? 0 : (base + v) & eh_addr_max(c->s);
}
