/*
 * /bin/ehrows: .eh_frame sections built to make the kernel's rows
 * (profile.mode=eh-convert, eh-rowcache; test/t/96-hostile-ehrows.t)
 * enormous or slow, sampled with the rule cache off so that every
 * sample looks its rule up:
 *
 *   million   16 384 FDEs of 64 rows each, a million rows in all, over a
 *             MiB from the program's text on (the first ones cover the
 *             text, with rules that lead nowhere): conversion must stop
 *             at its budget of rows and fall back, in chunks meanwhile;
 *   remember  one FDE whose program runs remember_state/restore_state
 *             50 000 times before its first row: each FDE's budget of
 *             instructions stops it (left to the interpreter, whose walk
 *             budget stops it in turn);
 *   churn     the million section registered and removed 40 times, each
 *             for 10 ms: its rows are taken and given back mid-conversion;
 *   race      two threads spinning in the text while the main thread
 *             registers the million section, then removes it under them:
 *             their walks convert it by turns, and the removal waits for
 *             the walks that hold it.
 *
 * The kernel must stay bounded (no walk longer than its chunk), count it
 * all, and give back every byte. Prints "ehrows: CASE registered" per
 * case and "ehrows: ok" at the end.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/times.h>
#include <stitch.h>
#include "selfelf.h"

#define FDES 16384
#define ROWS 64                 /* rows per FDE: each pc of its span */
#define SPAN ROWS               /* bytes each FDE covers */
#define HDR (12 + 8 * FDES)
#define FDE_BYTES 208           /* header 17, 3 bytes a row, padding */
#define BUF (HDR + 64 + FDES * FDE_BYTES + 4)
static uint8_t buf[BUF] __attribute__((aligned(16)));
static uint64_t text, text_len;

static uint8_t *put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); return p + 4; }

/* The CIE of every FDE: "zR", code 1, data -8, RA 16, FDEs pcrel|sdata4;
 * CFA rsp+8, RA at cfa-8. */
static uint8_t *cie(uint8_t *p)
{
	static const uint8_t c[] = { 24, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16,
				     1, 0x1b, 0x0c, 7, 8, 0x90, 1, 0, 0, 0, 0, 0, 0 };
	memcpy(p, c, sizeof c);
	return p + sizeof c;
}

/* An FDE over [start, +len) with program prog, padded to a 4-byte end. */
static uint8_t *fde(uint8_t *p, const uint8_t *frame, uint64_t start, uint32_t len,
		    const uint8_t *prog, uint32_t n)
{
	uint8_t *f = p;
	p = put32(p + 4, (uint32_t)(p + 4 - frame));
	p = put32(p, (uint32_t)(start - (uint64_t)p));
	p = put32(p, len);
	*p++ = 0;
	memcpy(p, prog, n), p += n;
	while ((p - f) % 4)
		*p++ = 0;
	put32(f, (uint32_t)(p - f - 4));
	return p;
}

/* .eh_frame_hdr for n FDEs at fdes[], their starts at starts[]. */
static void header(uint8_t *frame, uint8_t **fdes, const uint64_t *starts, uint32_t n)
{
	uint8_t *h = buf;
	h[0] = 1, h[1] = 0x1b, h[2] = 0x03, h[3] = 0x3b;
	put32(h + 4, (uint32_t)(frame - (h + 4)));
	put32(h + 8, n);
	for (uint32_t i = 0; i < n; i++) {
		put32(h + 12 + 8 * i, (uint32_t)(starts[i] - (uint64_t)h));
		put32(h + 16 + 8 * i, (uint32_t)(fdes[i] - h));
	}
}

static uint8_t *fde_at[FDES];
static uint64_t start_at[FDES];

/* FDES FDEs of ROWS rows: the CFA offset 16, 8, 16... at each byte. */
static void build_million(void)
{
	uint8_t prog[3 * (ROWS - 1)], *q = prog;
	for (int r = 1; r < ROWS; r++)
		*q++ = 0x41, *q++ = 0x0e, *q++ = r % 2 ? 16 : 8; /* advance 1, def_cfa_offset */
	uint8_t *frame = buf + HDR, *p = cie(frame);
	for (uint32_t i = 0; i < FDES; i++) {
		fde_at[i] = p;
		start_at[i] = text + (uint64_t)i * SPAN;
		p = fde(p, frame, start_at[i], SPAN, prog, sizeof prog);
	}
	put32(p, 0);
	header(frame, fde_at, start_at, FDES);
}

/* One FDE over the text: 50 000 remember/restore pairs, then a row. */
static void build_remember(void)
{
	static uint8_t prog[100002];
	for (int i = 0; i < 100000; i += 2)
		prog[i] = 0x0a, prog[i + 1] = 0x0b;
	prog[100000] = 0x0e, prog[100001] = 16;
	uint8_t *frame = buf + HDR, *p = cie(frame);
	fde_at[0] = p;
	start_at[0] = text;
	p = fde(p, frame, text, (uint32_t)text_len, prog, sizeof prog);
	put32(p, 0);
	header(frame, fde_at, start_at, 1);
}

static int reg(void)
{
	return stacktrace_setup_eh_frame(STACKTRACE_EH_FRAME_ADD, buf, HDR, (void *)text,
					 text_len, buf + BUF);
}

static void unreg(void)
{
	stacktrace_setup_eh_frame(STACKTRACE_EH_FRAME_REMOVE, NULL, 0, (void *)text, 0, NULL);
}

/* ticks of 10 ms of guest time in user mode, sampled. */
static volatile uint64_t sink;
static void __attribute__((noinline)) spin(int ticks)
{
	struct tms tm;
	clock_t end = times(&tm) + ticks;
	while (times(&tm) < end)
		for (int i = 0; i < 20000; i++)
			sink += (uint64_t)i * 7;
}

static volatile int racing;
static void *racer(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&racing, __ATOMIC_ACQUIRE))
		spin(1);
	return NULL;
}

static void say(const char *name, int err)
{
	printf("ehrows: %s %s\n", name, err ? "refused" : "registered");
}

int main(void)
{
	const struct elf64_phdr *t = own_phdr(PT_LOAD, PF_X);
	if (!t)
		return 1;
	text = t->vaddr, text_len = t->memsz;
	unreg(); /* the loader's registration: the text is this one */

	build_million();
	say("million", reg());
	spin(60);
	unreg();

	build_remember();
	say("remember", reg());
	spin(3);
	unreg();

	build_million();
	int err = 0;
	for (int i = 0; i < 40; i++) {
		err |= reg();
		spin(1);
		unreg();
	}
	say("churn", err);

	pthread_t th[2];
	racing = 1;
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, racer, NULL);
	say("race", reg());
	spin(10);
	unreg();
	spin(2);
	__atomic_store_n(&racing, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("ehrows: ok\n");
	return 0;
}
