/*
 * /bin/hostile32: a 32-bit (i386) program that lies to the kernel's
 * unwinders (test/t/38-compat-hostile.t), freestanding as /bin/compat32
 * (its int $0x80 gate, userland/compat/start32.S). Its modes (argv[1]):
 *
 *   fp ROUNDS      makes int $0x80 calls with every register -1 (all_ones),
 *                  spawns `honest ROUNDS` and, while it runs, spins ROUNDS
 *                  rounds in each lie_* of userland/compat/lies32.S with
 *                  the frame pointer:
 *                    self        at a frame whose saved ebp is itself
 *                    straddle    0xfffffffc: its frame crosses 4 GiB
 *                    unmapped    0xfffff000: the unmapped last page
 *                    misaligned  2 bytes into a stack word
 *                    high        0x1_0000_1000, set in 64-bit mode
 *                    kernel      0xffffffff_80001000, likewise
 *                    sp_high     good, but rsp's upper half set likewise
 *   honest ROUNDS  spins in honest_leaf, under honest_mid and honest_top:
 *                  good frame pointers, whose samples must stay right
 *   eh ROUNDS      removes the loader's .eh_frame registration and, case
 *                  after case, registers an i386 .eh_frame (built by hand
 *                  from one CIE and one FDE covering its text) damaged one
 *                  way (or unmapped once registered), and spins ROUNDS
 *                  rounds under it (eh_cases below)
 *
 * Prints "hostile32: CASE registered|refused" per case and
 * "hostile32: ok" when every answer of the kernel was the expected one.
 */
#include <stddef.h>
#include <stdint.h>
#include "stitch/elf.h"
#include "stitch/syscall.h"
#include "lib32.h"

long far64_syscall6(uint32_t nr, const uint32_t *arg_lo_hi);
void compat_main(uint32_t *sp);
void honest_top(long rounds);
void lie_self(uint32_t ebp, uint32_t rounds);
void lie_straddle(uint32_t ebp, uint32_t rounds);
void lie_unmapped(uint32_t ebp, uint32_t rounds);
void lie_misaligned(uint32_t ebp, uint32_t rounds);
void lie_high(uint32_t lo, uint32_t hi, uint32_t rounds);
void lie_kernel(uint32_t lo, uint32_t hi, uint32_t rounds);
void lie_sp_high(uint32_t hi, uint32_t rounds);
extern const struct elf32_ehdr __ehdr_start;

#define SYS(nr, a, b, c) sys6(SYS_##nr, (long)(a), (long)(b), (long)(c), 0, 0, 0)

static int bad;

static void expect(int ok, const char *what)
{
	if (ok)
		return;
	bad = 1;
	put("# hostile32: ");
	put(what);
	put("\n");
}

static void __attribute__((noreturn)) exit_with(int status)
{
	SYS(exit, status, 0, 0);
	for (;;)
		;
}

/* Good frames (this file is built with frame pointers): a sample in the
 * leaf walks leaf, mid, top, compat_main, _start. noipa: as static
 * functions gcc gives them its own calling convention and the leaf no
 * frame. */
static volatile uint32_t sink;
void __attribute__((noipa)) honest_leaf(long rounds)
{
	for (long i = 0; i < rounds; i++)
		sink = sink * 1103515245u + 12345u;
}

void __attribute__((noipa)) honest_mid(long rounds)
{
	honest_leaf(rounds);
	sink++;
}

void __attribute__((noipa)) honest_top(long rounds)
{
	honest_mid(rounds);
	sink++;
}

/* int $0x80 with every register -1: numbers outside the table, and each
 * call that takes a descriptor or a pointer (the others would exit,
 * sleep for 4 295 s or move the break), all refused with the error that
 * names the first bad argument; and numbers past the table with good
 * arguments. */
static void all_ones(void)
{
	static const struct { long nr, err; } calls[] = {
		{ -1, STITCH_ENOSYS }, { 0, STITCH_ENOSYS }, { SYS_COUNT, STITCH_ENOSYS },
		{ 0x7fffffff, STITCH_ENOSYS }, { SYS_write, STITCH_EBADF }, { SYS_read, STITCH_EBADF },
		{ SYS_open, STITCH_EFAULT }, { SYS_close, STITCH_EBADF }, { SYS_lseek, STITCH_EBADF },
		{ SYS_fstat, STITCH_EBADF }, { SYS_gettimeofday, STITCH_EFAULT },
		{ SYS_times, STITCH_EFAULT }, { SYS_spawn, STITCH_EFAULT }, { SYS_pipe, STITCH_EFAULT },
		{ SYS_exec, STITCH_EFAULT }, { SYS_stacktrace_setup, STITCH_EINVAL },
	};
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		expect(sys6(calls[i].nr, -1, -1, -1, -1, -1, -1) == -calls[i].err, "all ones");
	expect(sys6(SYS_COUNT + 1, 0, 0, 0, 0, 0, 0) == -STITCH_ENOSYS, "past the table");
}

static void lie_fp(long rounds, char *self)
{
	all_ones();
	char *child[] = { self, "honest", NULL, NULL };
	char num[12], *p = num + sizeof num;
	*--p = 0;
	for (unsigned long v = (unsigned long)rounds * 6; v || p == num + sizeof num - 1; v /= 10)
		*--p = '0' + v % 10;
	child[2] = p;
	long pid = SYS(spawn, self, child, 0);
	expect(pid > 0, "spawn honest");
	/* A frame whose saved ebp is its own address, its return address
	 * one in the text: one step, then a caller frame below its sp. */
	volatile uint32_t loop[2];
	loop[0] = (uint32_t)(uintptr_t)&loop[0];
	loop[1] = (uint32_t)(uintptr_t)honest_mid + 1;
	lie_self((uint32_t)(uintptr_t)&loop[0], rounds);
	lie_straddle(0xfffffffcu, rounds);
	lie_unmapped(0xfffff000u, rounds);
	lie_misaligned((uint32_t)(uintptr_t)&loop[0] + 2, rounds);
	lie_high(0x1000, 1, rounds);
	lie_kernel(0x80001000u, 0xffffffffu, rounds);
	lie_sp_high(1, rounds);
	int status = -1;
	expect(SYS(wait, pid, &status, 0) == pid && status == 0, "honest exits 0");
}

/* ---- .eh_frame, by hand ---- */

#define BUF (103 * 4096)
static uint8_t bss[BUF] __attribute__((aligned(4096)));
static uint8_t *buf = bss; /* where build() writes */
static uint32_t text, text_len;

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		*p++ = (uint8_t)(v >> 8 * i);
	return p;
}

/* The offsets of the pieces, for the damage. */
struct layout { uint8_t *hdr, *frame, *cie, *cie_align, *fde, *fde_begin, *fde_range, *end; };

/*
 * hdr: version 1, eh_frame_ptr pcrel|sdata4, count udata4, table
 * datarel|sdata4, one entry; then .eh_frame: a CIE "zR" as gcc -m32 writes
 * it (code 1, data -4, RA column 8: eip; FDEs pcrel|sdata4; def_cfa esp+4,
 * eip at cfa-4) with cie_nops nops after that; an FDE over [text,
 * +text_len) with its program insns (n bytes, repeated times times); the
 * terminator.
 */
static struct layout build(uint32_t cie_nops, const uint8_t *insns, uint32_t n,
			   uint32_t times)
{
	struct layout l;
	for (uint32_t i = 0; i < BUF; i++)
		buf[i] = 0;
	l.hdr = buf;
	l.frame = buf + 64;
	uint8_t *p = l.frame;
	l.cie = p;
	p = put32(p + 4, 0);
	*p++ = 1;
	*p++ = 'z', *p++ = 'R', *p++ = 0;
	*p++ = 1;    /* code alignment */
	l.cie_align = p;
	*p++ = 0x7c; /* data alignment -4 */
	*p++ = 8;    /* return address column: eip */
	*p++ = 1;
	*p++ = 0x1b; /* pcrel | sdata4 */
	*p++ = 0x0c, *p++ = 4, *p++ = 4; /* def_cfa esp, 4 */
	*p++ = 0x88, *p++ = 1;            /* offset eip, cfa-4 */
	p += cie_nops;                    /* DW_CFA_nop is 0 */
	while ((p - l.cie) % 4)
		p++;
	put32(l.cie, (uint32_t)(p - l.cie - 4));
	l.fde = p;
	p = put32(p + 4, (uint32_t)(p + 4 - l.cie));
	l.fde_begin = p;
	p = put32(p, text - (uint32_t)(uintptr_t)p);
	l.fde_range = p;
	p = put32(p, text_len);
	*p++ = 0; /* augmentation data length */
	for (uint32_t t = 0; t < times; t++)
		for (uint32_t i = 0; i < n; i++)
			*p++ = insns[i];
	while ((p - l.fde) % 4)
		p++;
	put32(l.fde, (uint32_t)(p - l.fde - 4));
	p = put32(p, 0);
	l.end = p;
	uint8_t *h = l.hdr;
	h[0] = 1, h[1] = 0x1b, h[2] = 0x03, h[3] = 0x3b;
	put32(h + 4, (uint32_t)(l.frame - (h + 4)));
	put32(h + 8, 1);
	put32(h + 12, text - (uint32_t)(uintptr_t)h);
	put32(h + 16, (uint32_t)(l.fde - h));
	return l;
}

/* EH_FRAME_ADD of the header at buf for [at, at + n), .eh_frame ending at
 * end; int $0x80 passes 32-bit arguments. */
static long reg(uint32_t at, uint32_t n, const uint8_t *end)
{
	return sys6(SYS_stacktrace_setup, STACKTRACE_EH_FRAME_ADD, (long)buf, 64, (long)at,
		    (long)n, (long)end);
}

static void unreg(void)
{
	sys6(SYS_stacktrace_setup, STACKTRACE_EH_FRAME_REMOVE, 0, 0, (long)text, 0, 0);
}

static void spin(const char *name, long rounds, long err, long want)
{
	put("hostile32: ");
	put(name);
	put(err ? " refused\n" : " registered\n");
	expect(err == want, name);
	honest_top(rounds);
	unreg();
}

/* This program's first PT_LOAD that is executable. */
static const struct elf32_phdr *text_phdr(void)
{
	const struct elf32_phdr *p = (const void *)((const char *)&__ehdr_start +
						    __ehdr_start.phoff);
	for (int i = 0; i < __ehdr_start.phnum; i++)
		if (p[i].type == PT_LOAD && (p[i].flags & PF_X))
			return &p[i];
	return NULL;
}

static void eh_cases(long rounds)
{
	const struct elf32_phdr *t = text_phdr();
	expect(t != NULL, "text segment");
	if (!t)
		return;
	text = t->vaddr, text_len = t->memsz;
	static const uint8_t none[] = { 0 };
	static const uint8_t pair[] = { 0x0a, 0x0b }; /* remember_state, restore_state */
	unreg(); /* the loader's */

	/* The FDE's length runs past the end of the section. */
	struct layout l = build(0, none, 1, 1);
	put32(l.fde, 0x40);
	spin("truncated-fde", rounds, reg(text, text_len, l.end), 0);

	/* x86-64's return-address column (16) in an i386 CIE: no rule would
	 * save it (EH_E_RA_COLUMN); the data alignment +4 instead of -4: eip
	 * read above the CFA. */
	l = build(0, none, 1, 1);
	l.cie_align[1] = 16;
	spin("ra-column", rounds, reg(text, text_len, l.end), 0);
	l = build(0, none, 1, 1);
	l.cie_align[0] = 4;
	spin("data-align", rounds, reg(text, text_len, l.end), 0);

	/* CFA programs longer than unwind.budget: nops in the CIE, and
	 * remember/restore pairs going round in the FDE. */
	l = build(300000, none, 1, 1);
	spin("budget-nops", rounds, reg(text, text_len, l.end), 0);
	l = build(0, pair, sizeof pair, 100000);
	spin("budget-pairs", rounds, reg(text, text_len, l.end), 0);

	/* An FDE that starts 16 bytes below 4 GiB and wraps over 0 to cover
	 * the text: no wrap in a 32-bit space. */
	l = build(0, none, 1, 1);
	put32(l.fde_begin, 0xfffffff0u - (uint32_t)(uintptr_t)l.fde_begin);
	put32(l.fde_range, text + text_len + 16);
	spin("wrap", rounds, reg(text, text_len, l.end), 0);

	/* A good section in memory of its own, unmapped once registered:
	 * the first lookup faults in it. */
	unsigned long m = sys6(SYS_mmap, 0, BUF, STITCH_PROT_READ | STITCH_PROT_WRITE, -1, 0, 0);
	expect(m < -4095ul, "mmap"); /* above 2 GiB: negative as a long */
	if (m < -4095ul) {
		buf = (uint8_t *)m;
		l = build(0, none, 1, 1);
		long err = reg(text, text_len, l.end);
		expect(SYS(munmap, m, BUF, 0) == 0, "munmap");
		spin("unmapped", rounds, err, 0);
		buf = bss;
	}

	/* Text straddling 4 GiB, and above it (through the 64-bit SYSCALL
	 * after a far jump, the only way to pass a wider argument): refused
	 * at registration. */
	l = build(0, none, 1, 1);
	spin("text-straddle", 0, reg(0xfffff000u, 0x2000, l.end), -STITCH_EFAULT);
	uint32_t wide[12] = { STACKTRACE_EH_FRAME_ADD, 0, (uint32_t)(uintptr_t)buf, 0, 64, 0,
			      0x1000, 1, 0x1000, 0, (uint32_t)(uintptr_t)l.end, 0 };
	spin("text-high", 0, far64_syscall6(SYS_stacktrace_setup, wide), -STITCH_EFAULT);
}

void compat_main(uint32_t *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	const char *mode = argc > 2 ? argv[1] : "";
	long rounds = argc > 2 ? parse(argv[2]) : 0;
	if (same(mode, "honest"))
		honest_top(rounds);
	else if (same(mode, "fp"))
		lie_fp(rounds, argv[0]);
	else if (same(mode, "eh"))
		eh_cases(rounds);
	else
		expect(0, "usage: hostile32 fp|honest|eh ROUNDS");
	if (!same(mode, "honest") && !bad)
		put("hostile32: ok\n");
	exit_with(bad);
}
