/*
 * Malformed sections, each broken one way: every one must give its own
 * error (never success, never a read outside the section: ways.c counts
 * reads outside, and the sanitized build traps on any through the heap
 * copy). Then every byte of a valid pair of sections changed, and every
 * truncation, asked the same questions: no crash, no read outside.
 */
#include <stdio.h>
#include <string.h>

#include "build.h"

#define BIG 100000

static struct sec M;

/* gcc's CIE, one FDE at 0x1000 of size 0x10 with these instructions, and
 * a header. */
static uint32_t fn(const uint8_t *insns, uint32_t len)
{
	sec_begin(&M);
	uint32_t off = put_fde(&M.f, 0, 0x1b, 0x1000, 0x10, insns, len);
	sec_hdr(&M, 1, &off);
	return off;
}

static int at(uint64_t pc)
{
	struct sf_rule r;
	return lookup(&M, pc, &r, BIG);
}

/* An FDE entry by hand: id, start, size, aug length, instructions. */
static uint32_t raw_fde(struct buf *b, uint32_t id, uint64_t start, uint32_t size,
			uint64_t auglen, const uint8_t *insns, uint32_t len)
{
	uint32_t e = begin_entry(b);
	put32(b, id);
	put32(b, (uint32_t)(start - (b->vaddr + b->n)));
	put32(b, size);
	putuleb(b, auglen);
	putbytes(b, insns, len);
	end_entry(b, e);
	return e;
}

/* A CIE by hand after "version, augmentation": the rest as given. */
static void raw_cie(struct buf *b, uint8_t version, const char *aug, const uint8_t *rest,
		    uint32_t len)
{
	b->n = 0;
	b->vaddr = FV;
	uint32_t e = begin_entry(b);
	put32(b, 0);
	put8(b, version);
	putbytes(b, aug, (uint32_t)strlen(aug) + 1);
	putbytes(b, rest, len);
	end_entry(b, e);
}

static const uint8_t nothing[] = { 0 };

/* The cases the brief names, with the error each must give. */
static void named(int *codes)
{
	/* 1. An FDE whose CIE pointer reaches back before the section. */
	sec_begin(&M);
	uint32_t off = raw_fde(&M.f, 200, 0x1000, 0x10, 0, nothing, 1);
	sec_hdr(&M, 1, &off);
	codes[0] = at(0x1000);
	ok(codes[0] == EH_E_CIE_POINTER, "CIE pointer outside the section: %s", eh_strerror(codes[0]));

	/* 2. The CIE's augmentation length runs past the CIE. */
	static const uint8_t rest[] = { 1, 0x78, 16, 50, 0x1b, 0x0c, 7, 8 };
	raw_cie(&M.f, 1, "zR", rest, sizeof rest);
	off = put_fde(&M.f, 0, 0x1b, 0x1000, 0x10, nothing, 1);
	sec_hdr(&M, 1, &off);
	codes[1] = at(0x1000);
	ok(codes[1] == EH_E_AUG_LENGTH, "augmentation length past the CIE's end: %s",
	   eh_strerror(codes[1]));

	/* 3. remember_state once more than the bound. */
	uint8_t deep[EH_STATE_DEPTH + 1];
	memset(deep, 0x0a, sizeof deep);
	deep[EH_STATE_DEPTH] = 0x41;
	fn(deep, sizeof deep);
	ok(at(0x1001) == EH_OK, "remember_state %d deep: within the bound", EH_STATE_DEPTH);
	deep[EH_STATE_DEPTH] = 0x0a;
	fn(deep, sizeof deep);
	codes[2] = at(0x1000);
	ok(codes[2] == EH_E_STATE_OVERFLOW, "remember_state %d deep: %s", EH_STATE_DEPTH + 1,
	   eh_strerror(codes[2]));

	/* 4. An advance past the end of the function. */
	static const uint8_t adv[] = { 0x0e, 16, 0x51 };
	fn(adv, sizeof adv);
	codes[3] = at(0x1000);
	ok(codes[3] == EH_E_ADVANCE, "advance_loc past the function: %s", eh_strerror(codes[3]));

	/* 5. The search table out of order (two entries swapped). */
	enum { N = 64 };
	uint32_t offs[N];
	sec_begin(&M);
	for (uint32_t i = 0; i < N; i++)
		offs[i] = put_fde(&M.f, 0, 0x1b, 0x1000 + 32 * i, 16, nothing, 1);
	uint32_t t = offs[N / 2];
	offs[N / 2] = offs[5], offs[5] = t;
	sec_hdr(&M, N, offs);
	codes[4] = check_table(&M);
	ok(codes[4] == EH_E_HDR_UNSORTED, "search table out of order: %s", eh_strerror(codes[4]));
	ok(at(0x1000 + 32 * 2) == EH_E_HDR_UNSORTED, "... and a lookup whose search crosses it");

	/* 6. A ULEB128 operand cut off by the end of the program. */
	static const uint8_t cut[] = { 0x0e, 0x90 };
	fn(cut, sizeof cut);
	codes[5] = at(0x1000);
	ok(codes[5] == EH_E_LEB, "truncated ULEB128: %s", eh_strerror(codes[5]));

	/* 7. An expression op. */
	static const uint8_t expr[] = { 0x0f, 1, 0x77 };
	fn(expr, sizeof expr);
	codes[6] = at(0x1000);
	ok(codes[6] == EH_E_EXPRESSION, "DW_CFA_def_cfa_expression: %s", eh_strerror(codes[6]));
}

/* More ways to break a CIE or FDE. */
static void entries(void)
{
	uint32_t off;

	/* An FDE whose CIE pointer leads to another FDE. */
	sec_begin(&M);
	uint32_t first = put_fde(&M.f, 0, 0x1b, 0x2000, 0x10, nothing, 1);
	off = raw_fde(&M.f, M.f.n + 4 - first, 0x1000, 0x10, 0, nothing, 1);
	sec_hdr(&M, 1, &off);
	ok(at(0x1000) == EH_E_NOT_CIE, "CIE pointer to an FDE: EH_E_NOT_CIE");

	/* The FDE's augmentation length past its end. */
	sec_begin(&M);
	off = raw_fde(&M.f, M.f.n + 4, 0x1000, 0x10, 40, nothing, 1);
	sec_hdr(&M, 1, &off);
	ok(at(0x1000) == EH_E_AUG_LENGTH, "FDE augmentation length past its end: EH_E_AUG_LENGTH");

	/* "zPR" whose data holds only one byte: P's pointer runs past it. */
	static const uint8_t zp[] = { 1, 0x78, 16, 1, 0x03, 0x0c, 7, 8, 0, 0, 0, 0 };
	raw_cie(&M.f, 1, "zPR", zp, sizeof zp);
	off = put_fde(&M.f, 0, 0x1b, 0x1000, 0x10, nothing, 1);
	sec_hdr(&M, 1, &off);
	ok(at(0x1000) == EH_E_AUG_LENGTH, "personality past the augmentation data: EH_E_AUG_LENGTH");

	static const uint8_t plain[] = { 1, 0x78, 16, 1, 0x1b, 0x0c, 7, 8 };
	raw_cie(&M.f, 2, "zR", plain, sizeof plain);
	off = put_fde(&M.f, 0, 0x1b, 0x1000, 0x10, nothing, 1);
	sec_hdr(&M, 1, &off);
	ok(at(0x1000) == EH_E_CIE_VERSION, "CIE version 2: EH_E_CIE_VERSION");

	const char *bad_aug[] = { "zX", "eh", "Rz" };
	for (int i = 0; i < 3; i++) {
		raw_cie(&M.f, 1, bad_aug[i], plain, sizeof plain);
		off = put_fde(&M.f, 0, 0x1b, 0x1000, 0x10, nothing, 1);
		sec_hdr(&M, 1, &off);
		ok(at(0x1000) == EH_E_AUGMENTATION, "augmentation \"%s\": EH_E_AUGMENTATION", bad_aug[i]);
	}
	/* An augmentation string without its NUL: the CIE ends first. */
	M.f.n = 0;
	uint32_t e = begin_entry(&M.f);
	put32(&M.f, 0), put8(&M.f, 1), put8(&M.f, 'z'), put8(&M.f, 'R');
	end_entry(&M.f, e);
	off = put_fde(&M.f, 0, 0x1b, 0x1000, 0x10, nothing, 1);
	sec_hdr(&M, 1, &off);
	ok(at(0x1000) == EH_E_AUGMENTATION, "augmentation string without NUL: EH_E_AUGMENTATION");

	static const uint8_t zero_caf[] = { 0, 0x78, 16, 1, 0x1b, 0x0c, 7, 8 };
	raw_cie(&M.f, 1, "zR", zero_caf, sizeof zero_caf);
	off = put_fde(&M.f, 0, 0x1b, 0x1000, 0x10, nothing, 1);
	sec_hdr(&M, 1, &off);
	ok(at(0x1000) == EH_E_CODE_ALIGN, "code alignment 0: EH_E_CODE_ALIGN");

	/* i386's return-address column (eip, 8) in an x86-64 CIE. */
	static const uint8_t ra8[] = { 1, 0x78, 8, 1, 0x1b, 0x0c, 7, 8 };
	raw_cie(&M.f, 1, "zR", ra8, sizeof ra8);
	off = put_fde(&M.f, 0, 0x1b, 0x1000, 0x10, nothing, 1);
	sec_hdr(&M, 1, &off);
	ok(at(0x1000) == EH_E_RA_COLUMN, "return-address column 8 in x86-64: EH_E_RA_COLUMN");

	/* FDE addresses textrel, and datarel (meaningless in .eh_frame). */
	uint8_t encs[] = { 0x2b, 0x3b, 0x0f };
	for (int i = 0; i < 3; i++) {
		uint8_t r[] = { 1, 0x78, 16, 1, encs[i], 0x0c, 7, 8 };
		raw_cie(&M.f, 1, "zR", r, sizeof r);
		off = put_fde(&M.f, 0, 0x1b, 0x1000, 0x10, nothing, 1);
		sec_hdr(&M, 1, &off);
		ok(at(0x1000) == EH_E_PTR_ENC, "FDE encoding 0x%02x: EH_E_PTR_ENC", encs[i]);
	}

	/* A range that wraps around the address space (absptr). */
	struct cie_spec c = cie_gcc();
	c.fde_enc = 0;
	M.f.n = 0;
	put_cie(&M.f, &c);
	off = put_fde(&M.f, 0, 0, 0xfffffffffffffff0ull, 0x20, nothing, 1);
	uint64_t start = 0xfffffffffffffff0ull;
	put_hdr(&M.h, FV, 1, &start, &off);
	ok(at(0xfffffffffffffff8ull) == EH_E_FDE_RANGE, "FDE range wraps: EH_E_FDE_RANGE");

	/* Lengths: past the section, the 64-bit escape, too short for an id. */
	off = fn(nothing, 1);
	M.f.b[off] = 0xf0;
	ok(at(0x1000) == EH_E_LENGTH, "FDE length past the section: EH_E_LENGTH");
	memset(M.f.b + off, 0xff, 4);
	ok(at(0x1000) == EH_E_LENGTH64, "64-bit length: EH_E_LENGTH64");
	memset(M.f.b + off, 0, 4);
	ok(at(0x1000) == EH_E_TERMINATOR, "the table names a zero terminator: EH_E_TERMINATOR");
	off = fn(nothing, 1);
	M.f.n = off + 6;
	ok(at(0x1000) == EH_E_LENGTH, "FDE cut short by the section's end: EH_E_LENGTH");
	fn(nothing, 1);
	M.h.b[16] = (uint8_t)(M.h.b[16] - 24); /* entry's FDE -> the CIE */
	ok(at(0x1000) == EH_E_NOT_FDE, "the table names a CIE: EH_E_NOT_FDE");
}

/* More ways to break a program. */
static void programs(void)
{
	static const uint8_t under[] = { 0x0b };
	fn(under, 1);
	ok(at(0x1000) == EH_E_STATE_UNDERFLOW, "restore_state first: EH_E_STATE_UNDERFLOW");

	static const uint8_t ops[][3] = { { 0x01, 0, 0 }, { 0x2d, 0, 0 }, { 0x2f, 6, 1 }, { 0x3f, 0, 0 } };
	for (int i = 0; i < 4; i++) {
		fn(ops[i], 3);
		ok(at(0x1000) == EH_E_UNSUPPORTED, "opcode 0x%02x: EH_E_UNSUPPORTED", ops[i][0]);
	}
	static const uint8_t loc4[] = { 0x04, 1, 0 };
	fn(loc4, sizeof loc4);
	ok(at(0x1000) == EH_E_TRUNCATED, "advance_loc4 cut off: EH_E_TRUNCATED");
	static const uint8_t far[] = { 0x04, 0xff, 0xff, 0xff, 0xff };
	fn(far, sizeof far);
	ok(at(0x1000) == EH_E_ADVANCE, "advance_loc4 by 4 GiB: EH_E_ADVANCE");

	struct buf p = { .n = 0 };
	for (int i = 0; i < 11; i++)
		put8(&p, 0x80);
	put8(&p, 0);
	uint8_t wide[16] = { 0x0e };
	memcpy(wide + 1, p.b, p.n);
	fn(wide, p.n + 1);
	ok(at(0x1000) == EH_E_LEB, "12-byte ULEB128: EH_E_LEB");
	static const uint8_t top[] = { 0x0e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
	fn(top, sizeof top);
	ok(at(0x1000) == EH_E_LEB, "ULEB128 of 65 bits: EH_E_LEB");

	static const uint8_t huge[] = { 0x86, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f };
	fn(huge, sizeof huge);
	ok(at(0x1000) == EH_E_OVERFLOW, "offset 2^62 * -8: EH_E_OVERFLOW");

	/* A CIE with no def_cfa; the FDE changes only the offset. */
	static const uint8_t nocfa[] = { 1, 0x78, 16, 1, 0x1b, 0x90, 1 };
	raw_cie(&M.f, 1, "zR", nocfa, sizeof nocfa);
	static const uint8_t off16[] = { 0x0e, 16 };
	uint32_t off = put_fde(&M.f, 0, 0x1b, 0x1000, 0x10, off16, 2);
	sec_hdr(&M, 1, &off);
	ok(at(0x1000) == EH_E_NO_CFA, "def_cfa_offset with no CFA rule: EH_E_NO_CFA");
	off = put_fde(&M.f, 0, 0x1b, 0x2000, 0x10, nothing, 1);
	sec_hdr(&M, 1, &off);
	ok(at(0x2000) == EH_E_NO_CFA, "no def_cfa at all: EH_E_NO_CFA");

	static const uint8_t cadv[] = { 1, 0x78, 16, 1, 0x1b, 0x0c, 7, 8, 0x41 };
	raw_cie(&M.f, 1, "zR", cadv, sizeof cadv);
	off = put_fde(&M.f, 0, 0x1b, 0x1000, 0x10, nothing, 1);
	sec_hdr(&M, 1, &off);
	ok(at(0x1000) == EH_E_CIE_ADVANCE, "an advance in the CIE: EH_E_CIE_ADVANCE");

	/* A long program: the budget stops it. */
	uint8_t nops[2000];
	memset(nops, 0, sizeof nops);
	fn(nops, sizeof nops);
	struct sf_rule r;
	ok(lookup(&M, 0x1000, &r, 2003) == EH_E_BUDGET && lookup(&M, 0x1000, &r, 2004) == EH_OK,
	   "2000 nops after the CIE's 4: a budget of 2003 stops them, 2004 runs them");
}

/* Header fields one at a time. */
static void headers(void)
{
	static const uint8_t body[] = { 0x41, 0x0e, 16 };
	struct sec keep;

	fn(body, sizeof body);
	keep = M;
	ok(at(0x1001) == EH_OK, "the header before breaking it");
	M.h.b[0] = 2;
	ok(at(0x1000) == EH_E_HDR_VERSION, "version 2: EH_E_HDR_VERSION");
	M = keep, M.h.b[3] = 0xff;
	ok(at(0x1000) == EH_E_HDR_NO_TABLE, "table encoding omitted: EH_E_HDR_NO_TABLE");
	M = keep, M.h.b[2] = 0xff;
	ok(at(0x1000) == EH_E_HDR_NO_TABLE, "count omitted: EH_E_HDR_NO_TABLE");
	M = keep, M.h.b[3] = 0x01;
	ok(at(0x1000) == EH_E_HDR_TABLE_ENC, "table in ULEB128: EH_E_HDR_TABLE_ENC");
	M = keep, M.h.b[3] = 0xbb;
	ok(at(0x1000) == EH_E_HDR_TABLE_ENC, "table indirect: EH_E_HDR_TABLE_ENC");
	M = keep, M.h.b[8] = 2;
	ok(at(0x1000) == EH_E_HDR_TABLE_SIZE, "count 2, room for 1: EH_E_HDR_TABLE_SIZE");
	M = keep, M.h.b[8] = 0xff, M.h.b[11] = 0xff;
	ok(at(0x1000) == EH_E_HDR_TABLE_SIZE, "count 0xff0000ff: EH_E_HDR_TABLE_SIZE");
	M = keep, M.h.b[4] += 4;
	ok(at(0x1000) == EH_E_HDR_FRAME_PTR, "eh_frame_ptr elsewhere: EH_E_HDR_FRAME_PTR");
	M = keep, M.h.b[1] = 0xff;
	ok(at(0x1000) == EH_E_HDR_FRAME_PTR, "eh_frame_ptr omitted: EH_E_HDR_FRAME_PTR");
	M = keep, M.h.b[19] = 0x40;
	ok(at(0x1000) == EH_E_HDR_FDE_ADDR, "entry's FDE outside .eh_frame: EH_E_HDR_FDE_ADDR");
	M = keep, M.h.b[12] += 2; /* entry start 0x1002, FDE starts 0x1000 */
	ok(at(0x1003) == EH_E_HDR_MISMATCH, "entry and FDE starts differ: EH_E_HDR_MISMATCH");
	M = keep, M.h.n = 3;
	ok(at(0x1000) == EH_E_TRUNCATED, "header of 3 bytes: EH_E_TRUNCATED");
	M = keep, M.h.b[1] = 0x2b;
	ok(at(0x1000) == EH_E_PTR_ENC, "eh_frame_ptr textrel: EH_E_PTR_ENC");

	struct eh_table t;
	struct eh_src f = src_of(&M.f), h = src_of(&M.h);
	f.size = 0;
	ok(eh_open(&t, &h, &f) == EH_E_INVAL && eh_open(NULL, &h, &f) == EH_E_INVAL &&
	   eh_open_frame(&t, NULL) == EH_E_INVAL, "empty section, NULL: EH_E_INVAL");
	ok(eh_open_frame(&t, &(struct eh_src){ M.f.b, NULL, NULL, M.f.n, FV, false, NULL, EH_ABI_X86_64 }) == EH_OK &&
	   eh_fde_find(&t, 0x1000, &(struct eh_fde){ 0 }) == EH_E_HDR_NO_TABLE,
	   "eh_fde_find without a header: EH_E_HDR_NO_TABLE");
	M = keep;
	f = src_of(&M.f), h = src_of(&M.h);
	h.abi = EH_ABI_I386;
	ok(eh_open(&t, &h, &f) == EH_E_INVAL, "header i386, .eh_frame x86-64: EH_E_INVAL");
	f.abi = h.abi = 7;
	ok(eh_open(&t, &h, &f) == EH_E_INVAL, "an ABI the library does not know: EH_E_INVAL");
	/* The same section read as i386: found through the same header
	 * (pcrel|sdata4 throughout: the width of absptr does not matter), its
	 * FDE's x86-64 CIE (return-address column 16) is not an i386 one; with
	 * eip's column it is (test 95 reads whole i386 programs). */
	f.abi = h.abi = EH_ABI_I386;
	struct eh_fde fde;
	ok(eh_open(&t, &h, &f) == EH_OK && eh_fde_find(&t, 0x1000, &fde) == EH_E_RA_COLUMN,
	   "the same table read as i386: its x86-64 CIE is EH_E_RA_COLUMN");
	for (uint32_t i = 0; i + 3 < M.f.n; i++)
		if (!memcmp(M.f.b + i, "\x01\x78\x10", 3))
			M.f.b[i + 2] = 8, i = M.f.n; /* code 1, data -8, RA 16: RA 8 */
	f = src_of(&M.f), f.abi = EH_ABI_I386;
	ok(eh_open(&t, &h, &f) == EH_OK && eh_fde_find(&t, 0x1000, &fde) == EH_OK &&
	   fde.start == 0x1000, "... with RA column 8: EH_OK, its FDE found");
}

/* A reader that faults past a given offset, as unmapped user memory. */
struct faulty {
	const struct buf *b;
	uint64_t mapped;
};

static bool faulty_read(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	const struct faulty *f = ctx;
	if (addr - f->b->vaddr + len > f->mapped)
		return false;
	memcpy(dst, f->b->b + (addr - f->b->vaddr), len);
	return true;
}

static void faults(void)
{
	static const uint8_t body[] = { 0x41, 0x0e, 16 };
	uint32_t off = fn(body, sizeof body);
	struct faulty ff = { &M.f, off + 10 };
	struct eh_src f = { NULL, faulty_read, &ff, M.f.n, FV, false, NULL, EH_ABI_X86_64 }, h = src_of(&M.h);
	struct eh_table t;
	struct sf_rule r;
	uint32_t b = BIG;
	ok(eh_open(&t, &h, &f) == EH_OK && eh_find_rule(&t, 0x1000, &r, &b) == EH_E_FAULT,
	   "a reader fault in the FDE: EH_E_FAULT");
}

/* Every byte changed, every truncation: the library stops with some
 * answer, and reads nothing outside (counted by ways.c). */
static void mutations(void)
{
	static const uint8_t p[] = { 0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6, 0x0a, 0x02, 0x30,
				     0x0c, 7, 8, 0xc6, 0x41, 0x0b };
	static const uint8_t vals[] = { 0x00, 0xff, 0x80, 0x7f, 0x01, 0x0b, 0x41 };
	sec_begin(&M);
	uint32_t offs[2];
	offs[0] = put_fde(&M.f, 0, 0x1b, 0x1000, 0x40, p, sizeof p);
	offs[1] = put_fde(&M.f, 0, 0x1b, 0x1040, 0x40, p, sizeof p);
	sec_hdr(&M, 2, offs);
	struct sec keep = M;
	unsigned cases = 0, before = oob_reads;
	uint64_t pcs[] = { 0x1000, 0x1001, 0x1004, 0x1035, 0x1041, 0x107f };

	for (int which = 0; which < 2; which++) {
		struct buf *b = which ? &M.h : &M.f;
		uint32_t n = b->n;
		for (uint32_t i = 0; i < n; i++) {
			for (unsigned v = 0; v < sizeof vals; v++) {
				M = keep;
				b->b[i] = vals[v];
				for (unsigned k = 0; k < 6; k++)
					lookup(&M, pcs[k], NULL, 500);
				uint32_t fdes;
				walk(&M, &fdes);
				check_table(&M);
				cases++;
			}
			M = keep;
			b->n = i;
			lookup(&M, 0x1001, NULL, 500);
			lookup(&M, 0x1041, NULL, 500);
			cases++;
		}
	}
	ok(oob_reads == before, "%u mutated or truncated sections: no read outside", cases);
}

void malformed(void)
{
	int codes[7];
	named(codes);
	bool distinct = true;
	for (int i = 0; i < 7; i++)
		for (int j = 0; j < i; j++)
			distinct &= codes[i] != codes[j];
	ok(distinct, "the seven named malformations give seven distinct errors");
	entries();
	programs();
	headers();
	faults();
	mutations();
}
