/*
 * The search table libunwind needs, made from .eh_frame: the programs are
 * static, and ld writes .eh_frame_hdr (whose table it would be) only for
 * dynamic links. This is the table `ld --eh-frame-hdr` would write: one
 * (function start, FDE) pair of 32-bit offsets from .eh_frame's address per
 * FDE, sorted by start. Reading untrusted bytes: every field is checked
 * against the section's end; a malformed entry ends the walk.
 */
#include <stdlib.h>
#include <string.h>

#include "hostunwind.h"
#include "util.h"

/* DWARF pointer encodings (LSB, .eh_frame): format in the low nibble,
 * how it applies in the high one. */
#define PE_ABSPTR 0x00
#define PE_UDATA4 0x03
#define PE_UDATA8 0x04
#define PE_SDATA4 0x0b
#define PE_SDATA8 0x0c
#define PE_PCREL  0x10
#define PE_OMIT   0xff

struct cursor {
	const uint8_t *p;
	size_t off, end;
	uint64_t addr; /* guest address of p[0] */
	bool bad;
};

static uint64_t get(struct cursor *c, size_t n)
{
	uint64_t v = 0;
	if (c->bad || c->end - c->off < n) {
		c->bad = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)c->p[c->off + i] << (8 * i);
	c->off += n;
	return v;
}

static uint64_t uleb(struct cursor *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t b = (uint8_t)get(c, 1);
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80) || c->bad)
			return v;
	}
	c->bad = true;
	return 0;
}

/* A pointer in encoding enc; only what compilers emit for x86_64. */
static uint64_t pointer(struct cursor *c, uint8_t enc)
{
	uint64_t at = c->addr + c->off, v;
	switch (enc & 0x0f) {
	case PE_ABSPTR: case PE_UDATA8: case PE_SDATA8: v = get(c, 8); break;
	case PE_UDATA4: v = get(c, 4); break;
	case PE_SDATA4: v = (uint64_t)(int64_t)(int32_t)get(c, 4); break;
	default: c->bad = true; return 0;
	}
	if ((enc & 0x70) == PE_PCREL)
		v += at;
	else if (enc & 0x70)
		c->bad = true;
	return v;
}

/* The FDE pointer encoding of the CIE at off ('R' in its augmentation). */
static int cie_encoding(const struct cursor *sec, size_t off)
{
	struct cursor c = *sec;
	c.off = off;
	uint64_t len = get(&c, 4);
	if (len == 0 || len == 0xffffffff || len > c.end - c.off)
		return -1;
	c.end = c.off + len;
	if (get(&c, 4) != 0 || get(&c, 1) != 1)  /* a CIE, version 1 */
		return -1;
	const char *aug = (const char *)c.p + c.off;
	size_t alen = strnlen(aug, c.end - c.off);
	if (c.off + alen >= c.end || aug[0] != 'z')
		return PE_ABSPTR;
	c.off += alen + 1;
	uleb(&c), uleb(&c), get(&c, 1); /* code and data alignment, RA column */
	uleb(&c);                       /* augmentation data length */
	for (size_t i = 1; i < alen && !c.bad; i++) {
		if (aug[i] == 'R')
			return (int)get(&c, 1);
		if (aug[i] == 'P')
			pointer(&c, (uint8_t)get(&c, 1));
		else if (aug[i] == 'L')
			get(&c, 1);
		else if (aug[i] != 'S' && aug[i] != 'B')
			return -1;
	}
	return c.bad ? -1 : PE_ABSPTR;
}

static int by_start(const void *a, const void *b)
{
	int32_t x = ((const int32_t *)a)[0], y = ((const int32_t *)b)[0];
	return (x > y) - (x < y);
}

void eh_frame_index(struct image *im, const uint8_t *sec, size_t size, uint64_t addr)
{
	struct cursor c = { .p = sec, .end = size, .addr = addr };
	size_t cap = 0;
	while (c.off < c.end && !c.bad) {
		size_t start = c.off;
		uint64_t len = get(&c, 4);
		if (len == 0 || len == 0xffffffff || len > c.end - c.off)
			break; /* the terminator, 64-bit lengths (not emitted here), garbage */
		size_t next = c.off + len;
		uint64_t cie = get(&c, 4);
		if (cie != 0 && cie <= c.off - 4) {
			int enc = cie_encoding(&c, c.off - 4 - cie);
			uint64_t pc = enc < 0 ? 0 : pointer(&c, (uint8_t)enc);
			if (enc >= 0 && !c.bad) {
				if (im->neh == cap)
					im->eh_table = xrealloc(im->eh_table, (cap = cap ? 2 * cap : 256) * 8);
				im->eh_table[2 * im->neh] = (int32_t)(pc - addr);
				im->eh_table[2 * im->neh + 1] = (int32_t)start;
				im->neh++;
			}
		}
		c.off = next;
	}
	qsort(im->eh_table, im->neh, 8, by_start);
	im->eh_frame = addr;
}
