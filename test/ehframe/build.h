/*
 * Hand-built .eh_frame and .eh_frame_hdr sections for the unit test: a
 * byte buffer with little-endian and LEB128 writers, and the entries gcc
 * writes (a "zR" CIE, FDEs with pcrel|sdata4 addresses, ld's datarel|sdata4
 * search table), each with knobs to break it one way.
 */
#ifndef STITCH_TEST_EHFRAME_BUILD_H
#define STITCH_TEST_EHFRAME_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ehframe.h"

/* Where every hand-built section lives. */
#define FV 0x10000ull   /* .eh_frame */
#define HV 0x20000ull   /* .eh_frame_hdr */

struct buf {
	uint8_t b[1 << 16];
	uint32_t n;
	uint64_t vaddr;
};

void put8(struct buf *b, uint8_t v);
void put16(struct buf *b, uint16_t v);
void put32(struct buf *b, uint32_t v);
void put64(struct buf *b, uint64_t v);
void putuleb(struct buf *b, uint64_t v);
void putsleb(struct buf *b, int64_t v);
void putbytes(struct buf *b, const void *p, uint32_t n);

/* An entry: a length placeholder now, filled in by end_entry. */
uint32_t begin_entry(struct buf *b);
void end_entry(struct buf *b, uint32_t at);

/* A CIE's parts; cie_gcc() fills in gcc's usual one. */
struct cie_spec {
	uint8_t version;
	const char *aug;
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;
	const uint8_t *augdata; /* NULL: 'R' byte only (fde_enc) */
	uint32_t augdata_len;
	uint8_t fde_enc;
	const uint8_t *insns;
	uint32_t insns_len;
};

/* gcc's CIE: "zR", 1, -8, column 16, pcrel|sdata4; CFA = rsp+8, RA at
 * CFA-8. */
struct cie_spec cie_gcc(void);
uint32_t put_cie(struct buf *b, const struct cie_spec *c);

/* An FDE for [start, start+size) under the CIE at cie_off, in the CIE's
 * encoding enc (pcrel|sdata4, udata4 or absptr), with empty 'z' data. */
uint32_t put_fde(struct buf *b, uint32_t cie_off, uint8_t enc, uint64_t start,
		 uint64_t size, const uint8_t *insns, uint32_t len);

/* ld's header: datarel|sdata4 entries (start, FDE address) for n FDEs in
 * the order given. */
void put_hdr(struct buf *h, uint64_t frame_vaddr, uint32_t n, const uint64_t *start,
	     const uint32_t *fde_off);

/* An eh_src over a buffer. */
struct eh_src src_of(const struct buf *b);

#endif

/* --- shared by unit.c and malformed.c ------------------------------------ */

/* One TAP line. */
void ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A .eh_frame and its header, and a cursor for the next test's. */
struct sec {
	struct buf f, h;
};

/* gcc's CIE at offset 0, then nothing: the caller adds FDEs. */
void sec_begin(struct sec *s);
/* A header over the FDEs at fde_off[0..n), starts taken from them. */
void sec_hdr(struct sec *s, uint32_t n, const uint32_t *fde_off);

/*
 * The library's answers, each asked twice: from an exact-size heap copy of
 * the bytes (ASan sees any read past it) and through a reader callback
 * that counts any request outside the section (oob_reads). The two must
 * agree (way_mismatches counts when not). Return the error of the call.
 */
extern unsigned oob_reads, way_mismatches;
int lookup(const struct sec *s, uint64_t pc, struct sf_rule *r, uint32_t budget);
int lookup_fde(const struct sec *s, uint64_t pc, struct eh_fde *fde);
int check_table(const struct sec *s);
int walk(const struct sec *s, uint32_t *fdes);

void malformed(void);
