/*
 * /bin/ehbad: damaged .eh_frame sections for the deferred unwinder
 * (test/t/84-hostile-ehframe.t, profile.mode=eh-frame,
 * unwind.rule_cache=0 so that every sample looks its rule up).
 *
 * The program removes the kernel loader's registration of its own
 * .eh_frame and, case after case, builds an .eh_frame_hdr and .eh_frame
 * by hand in its data (one CIE, one FDE covering the whole text), damages
 * them one way, registers them for its text with
 * stacktrace_setup_eh_frame(EH_FRAME_ADD) and spins for 30 ms under the
 * sampler, so that the unwinds of its samples read the damage:
 *
 *   cie-pointer  the FDE's CIE pointer leads before the section
 *   aug-length   the CIE's augmentation data runs past its end
 *   remember     remember_state nine times, never restored (deeper than 8)
 *   advance      an advance past the end of the function
 *   unsorted     the search table out of order
 *   rewritten    a good section, sampled, then its table entry rewritten
 *                to point outside .eh_frame
 *   budget       100 000 DW_CFA_nop in the CIE: more than unwind.budget
 *   version      a header of version 2: refused at registration (-ENOEXEC)
 *
 * The kernel must drop each damaged section once (counted by reason), end
 * each budget unwind with `budget` and keep that section, refuse the last,
 * and neither stall nor crash. Prints "ehbad: CASE registered|refused" per
 * case and "ehbad: ok" at the end.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/times.h>
#include <string.h>
#include <stitch.h>
#include "selfelf.h"

#define BUF 120000
static uint8_t buf[BUF] __attribute__((aligned(16)));
static uint64_t text, text_len;

static uint8_t *put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); return p + 4; }

/* The offsets of the pieces, for the damage. */
struct layout { uint8_t *hdr, *frame, *cie, *cie_auglen, *fde, *fde_cie, *fde_insns, *table, *end; };

/*
 * hdr: version 1, eh_frame_ptr pcrel|sdata4, count udata4, table
 * datarel|sdata4; then .eh_frame: a CIE "zR" (code 1, data -8, RA 16,
 * FDEs pcrel|sdata4) with cie_nops nops after def_cfa rsp+8 and RA at
 * cfa-8; an FDE over [text, +text_len) with its program insns; the
 * terminator.
 */
static struct layout build(uint32_t cie_nops, const uint8_t *insns, uint32_t ninsns,
			   int entries)
{
	struct layout l;
	memset(buf, 0, sizeof buf);
	l.hdr = buf;
	l.frame = buf + 64;
	uint8_t *p = l.frame;
	/* CIE */
	l.cie = p;
	p += 4;
	p = put32(p, 0);
	*p++ = 1;
	memcpy(p, "zR", 3), p += 3;
	*p++ = 1;    /* code alignment */
	*p++ = 0x78; /* data alignment -8 */
	*p++ = 16;   /* return address column */
	l.cie_auglen = p;
	*p++ = 1;
	*p++ = 0x1b; /* pcrel | sdata4 */
	*p++ = 0x0c, *p++ = 7, *p++ = 8; /* def_cfa rsp, 8 */
	*p++ = 0x90, *p++ = 1;            /* offset r16, cfa-8 */
	for (uint32_t i = 0; i < cie_nops; i++)
		*p++ = 0;
	while ((p - l.cie) % 4)
		*p++ = 0;
	put32(l.cie, (uint32_t)(p - l.cie - 4));
	/* FDE */
	l.fde = p;
	p += 4;
	l.fde_cie = p;
	p = put32(p, (uint32_t)(p - l.cie));
	p = put32(p, (uint32_t)(text - (uint64_t)p));
	p = put32(p, (uint32_t)text_len);
	*p++ = 0; /* augmentation data length */
	l.fde_insns = p;
	memcpy(p, insns, ninsns), p += ninsns;
	while ((p - l.fde) % 4)
		*p++ = 0;
	put32(l.fde, (uint32_t)(p - l.fde - 4));
	p = put32(p, 0);
	l.end = p;
	/* .eh_frame_hdr */
	uint8_t *h = l.hdr;
	h[0] = 1, h[1] = 0x1b, h[2] = 0x03, h[3] = 0x3b;
	put32(h + 4, (uint32_t)(l.frame - (h + 4)));
	put32(h + 8, (uint32_t)entries);
	l.table = h + 12;
	for (int i = 0; i < entries; i++) {
		/* unsorted: text, text + 16, text (the second leads past the third) */
		uint64_t loc = text + (i == 1 ? 16 : 0);
		put32(l.table + 8 * i, (uint32_t)(loc - (uint64_t)h));
		put32(l.table + 8 * i + 4, (uint32_t)(l.fde - h));
	}
	return l;
}

static int reg(void)
{
	return stacktrace_setup_eh_frame(STACKTRACE_EH_FRAME_ADD, buf, 64, (void *)text,
					 text_len, buf + BUF);
}

static void unreg(void)
{
	stacktrace_setup_eh_frame(STACKTRACE_EH_FRAME_REMOVE, NULL, 0, (void *)text, 0, NULL);
}

/* 30 ms of guest time, in user mode: the sampler's unwinds look the
 * spinning pc up in the registered section. */
static volatile uint64_t sink;
static void __attribute__((noinline)) spin(void)
{
	struct tms tm;
	clock_t end = times(&tm) + 3;
	while (times(&tm) < end)
		for (int i = 0; i < 20000; i++)
			sink += (uint64_t)i * 7;
}

static void run(const char *name, struct layout l)
{
	(void)l;
	unreg();
	int err = reg();
	printf("ehbad: %s %s\n", name, err ? "refused" : "registered");
	spin();
}

int main(void)
{
	const struct elf64_phdr *t = own_phdr(PT_LOAD, PF_X);
	if (!t)
		return 1;
	text = t->vaddr, text_len = t->memsz;
	static const uint8_t none[] = { 0 };
	static const uint8_t remember[] = { 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a };
	uint8_t advance[5] = { 0x04 }; /* advance_loc4 past the end */
	uint32_t past = (uint32_t)text_len + 0x1000;
	memcpy(advance + 1, &past, 4);

	/* The loader's registration goes first (its text is this one). */
	struct layout l = build(0, none, 1, 1);
	put32(l.fde_cie, 0x7ffffff0);
	run("cie-pointer", l);

	l = build(0, none, 1, 1);
	*l.cie_auglen = 0x7f;
	run("aug-length", l);

	l = build(0, remember, sizeof remember, 1);
	run("remember", l);

	l = build(0, advance, sizeof advance, 1);
	run("advance", l);

	l = build(0, none, 1, 3);
	run("unsorted", l);

	l = build(0, none, 1, 1);
	run("rewritten", l);
	put32(l.table + 4, 0x7ffffff0); /* the FDE address, far past .eh_frame */
	spin();

	l = build(100000, none, 1, 1);
	run("budget", l);
	unreg();

	l = build(0, none, 1, 1);
	l.hdr[0] = 2;
	int err = reg();
	printf("ehbad: version %s\n", err == -1 && errno == ENOEXEC ? "refused" : "registered");
	if (!err)
		return 1;
	printf("ehbad: ok\n");
	return 0;
}
