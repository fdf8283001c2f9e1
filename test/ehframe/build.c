#include "build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void room(struct buf *b, uint32_t n)
{
	if (b->n + n > sizeof b->b) {
		fprintf(stderr, "test section full\n");
		exit(2);
	}
}

void put8(struct buf *b, uint8_t v)
{
	room(b, 1);
	b->b[b->n++] = v;
}

void put16(struct buf *b, uint16_t v)
{
	put8(b, (uint8_t)v);
	put8(b, (uint8_t)(v >> 8));
}

void put32(struct buf *b, uint32_t v)
{
	put16(b, (uint16_t)v);
	put16(b, (uint16_t)(v >> 16));
}

void put64(struct buf *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b, (uint32_t)(v >> 32));
}

void putuleb(struct buf *b, uint64_t v)
{
	do {
		uint8_t byte = v & 0x7f;
		v >>= 7;
		put8(b, (uint8_t)(byte | (v ? 0x80 : 0)));
	} while (v);
}

void putsleb(struct buf *b, int64_t v)
{
	for (;;) {
		uint8_t byte = (uint8_t)(v & 0x7f);
		v >>= 7; /* arithmetic on gcc */
		bool done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
		put8(b, (uint8_t)(byte | (done ? 0 : 0x80)));
		if (done)
			return;
	}
}

void putbytes(struct buf *b, const void *p, uint32_t n)
{
	room(b, n);
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

uint32_t begin_entry(struct buf *b)
{
	uint32_t at = b->n;
	put32(b, 0);
	return at;
}

void end_entry(struct buf *b, uint32_t at)
{
	uint32_t len = b->n - at - 4;
	memcpy(b->b + at, &len, 4);
}

static const uint8_t gcc_insns[] = { 0x0c, 7, 8, 0x90, 1 }; /* def_cfa r7,8; offset r16,1 */

struct cie_spec cie_gcc(void)
{
	struct cie_spec c = { 1, "zR", 1, -8, 16, NULL, 0, 0x1b, gcc_insns, sizeof gcc_insns };
	return c;
}

uint32_t put_cie(struct buf *b, const struct cie_spec *c)
{
	uint32_t at = begin_entry(b);
	put32(b, 0);
	put8(b, c->version);
	putbytes(b, c->aug, (uint32_t)strlen(c->aug) + 1);
	putuleb(b, c->code_align);
	putsleb(b, c->data_align);
	if (c->version == 1)
		put8(b, (uint8_t)c->ra);
	else
		putuleb(b, c->ra);
	if (c->aug[0] == 'z') {
		if (c->augdata) {
			putuleb(b, c->augdata_len);
			putbytes(b, c->augdata, c->augdata_len);
		} else {
			putuleb(b, 1);
			put8(b, c->fde_enc);
		}
	}
	putbytes(b, c->insns, c->insns_len);
	while ((b->n - at) % 8) /* gas pads with DW_CFA_nop */
		put8(b, 0);
	end_entry(b, at);
	return at;
}

static void put_addr(struct buf *b, uint8_t enc, uint64_t v)
{
	if ((enc & 0x70) == 0x10)
		v -= b->vaddr + b->n;
	if ((enc & 0x0f) == 0x0b || (enc & 0x0f) == 0x03)
		put32(b, (uint32_t)v);
	else
		put64(b, v);
}

uint32_t put_fde(struct buf *b, uint32_t cie_off, uint8_t enc, uint64_t start,
		 uint64_t size, const uint8_t *insns, uint32_t len)
{
	uint32_t at = begin_entry(b);
	put32(b, b->n - cie_off);
	put_addr(b, enc, start);
	put_addr(b, (uint8_t)(enc & 0x0f), size);
	putuleb(b, 0);
	putbytes(b, insns, len);
	end_entry(b, at);
	return at;
}

void put_hdr(struct buf *h, uint64_t frame_vaddr, uint32_t n, const uint64_t *start,
	     const uint32_t *fde_off)
{
	h->n = 0;
	h->vaddr = HV;
	put8(h, 1);
	put8(h, 0x1b); /* eh_frame_ptr: pcrel|sdata4 */
	put8(h, 0x03); /* fde_count: udata4 */
	put8(h, 0x3b); /* table: datarel|sdata4 */
	put32(h, (uint32_t)(frame_vaddr - (h->vaddr + h->n)));
	put32(h, n);
	for (uint32_t i = 0; i < n; i++) {
		put32(h, (uint32_t)(start[i] - h->vaddr));
		put32(h, (uint32_t)(frame_vaddr + fde_off[i] - h->vaddr));
	}
}

struct eh_src src_of(const struct buf *b)
{
	struct eh_src s = { b->b, NULL, NULL, b->n, b->vaddr, false, NULL, EH_ABI_X86_64 };
	return s;
}

void sec_begin(struct sec *s)
{
	struct cie_spec c = cie_gcc();
	s->f.n = 0;
	s->f.vaddr = FV;
	s->h.n = 0;
	s->h.vaddr = HV;
	put_cie(&s->f, &c);
}

/* Starts read back from pcrel|sdata4 FDEs. */
void sec_hdr(struct sec *s, uint32_t n, const uint32_t *fde_off)
{
	uint64_t start[4096];
	int32_t rel;

	for (uint32_t i = 0; i < n && i < 4096; i++) {
		memcpy(&rel, s->f.b + fde_off[i] + 8, 4);
		start[i] = s->f.vaddr + fde_off[i] + 8 + (uint64_t)(int64_t)rel;
	}
	put_hdr(&s->h, s->f.vaddr, n, start, fde_off);
}
