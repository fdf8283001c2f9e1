/*
 * insnprof: a QEMU TCG plugin that counts the guest instructions each
 * kernel function runs inside "windows": from the first instruction of a
 * window function to the return to its caller, whatever it calls and
 * whatever interrupts it meanwhile. For Stitch: unwind_user (the deferred
 * unwind), nmi_dispatch (the NMI handler), demand_page (a page fault).
 *
 *   qemu-system-x86_64 ... -plugin build/bin/insnprof.so,kernel=build/kernel/kernel.elf,\
 *       window=unwind_user,window=nmi_dispatch,out=FILE
 *
 * Where a window ends: the plugin API of QEMU 7.2 gives a callback no
 * registers, so the return address cannot be read. Instead, when a direct
 * `call <window>` is translated, the instruction after it becomes the
 * window's end; that also covers a window function that leaves through a
 * tail call. A window entered through an indirect call never ends, which
 * the output reports ("open" at exit). Windows nest (an NMI during an
 * unwind): an instruction counts for the function it is in, in the
 * innermost window, and as "nested" for the windows around it.
 *
 * Kernel instructions (from the kernel ELF's lowest symbol up) are counted
 * one by one; user code a block at a time, as "[user]" (it runs inside a
 * window only when the window's task was preempted and another one ran;
 * the kernel's TSC counts those too). One vCPU (-smp 1) is assumed, and
 * other vCPUs' instructions are counted apart. QEMU calls a callback
 * before the instruction runs, so an instruction that faults counts once
 * for the fault and again when it is restarted; QEMU's icount does not
 * count the faulting attempt. docs/BENCHMARKS.md compares the totals with
 * the kernel's own TSC counts.
 *
 * `window=*` is the whole run: every instruction, each counted for its
 * function whatever windows are open (the other windows' counts do not
 * see it). Two runs' whole-run counts, one with sampling and one without,
 * say where everything sampling costs goes, the self-IPI, the irq work
 * and the return to user mode included.
 *
 * The output, tab-separated, a window per line and then its functions:
 *   window NAME entries E insns N nested M open D unbalanced U
 *   func NAME FUNCTION COUNT       (most first; "[unknown]": no symbol)
 *
 * `pcs=FILE` also writes, for every kernel instruction that ran inside a
 * window (any but `*`), its address and how often, one "ADDR COUNT" line
 * each in address order: what `objdump -d` of the kernel needs beside it
 * to show which instructions of a function a window's count is made of.
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin.h"
#include "symbols.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_WINDOWS 8
#define MAX_DEPTH 16
#define MAX_ENDS 64

struct window {
	const char *name;
	uint64_t start;             /* the function's first instruction */
	uint64_t entries, insns, nested;
	uint64_t *per_func;         /* [nsyms + 2]: then [unknown], [user] */
};

static struct syms syms;
static struct window win[MAX_WINDOWS];
static unsigned nwin;
static int whole = -1;          /* the index of window=*, or -1 */
static const char *out_path, *pcs_path;
static uint64_t kernel_lo, kernel_hi;
static uint64_t *per_pc; /* pcs=: [kernel_hi - kernel_lo], by address */

/* Return sites: the instruction after each `call <window>` seen. */
static struct { uint64_t addr; unsigned w; } ends[MAX_ENDS];
static unsigned nends;

/* The open windows of vCPU 0, innermost last. */
static unsigned stack[MAX_DEPTH], depth;
static uint64_t unbalanced, other_vcpu;

/* Per instruction, packed into the callback's userdata: its offset in
 * the kernel (32 bits), the function (index + 1, 0 for none: 20 bits),
 * and the window it opens or ends (+ 1: 4 bits each, MAX_WINDOWS < 15). */
#define UD(pc, func, open, end) ((void *)(uintptr_t)((uint64_t)(pc) | \
	(uint64_t)(func) << 32 | (uint64_t)(open) << 52 | (uint64_t)(end) << 56))

static void enter(unsigned w)
{
	if (depth == MAX_DEPTH) {
		unbalanced++;
		return;
	}
	stack[depth++] = w;
	win[w].entries++;
}

/* Closes w and, if it was not the innermost (an end was missed), the
 * windows inside it too, counting that as unbalanced. */
static void leave(unsigned w)
{
	for (unsigned i = depth; i-- > 0;) {
		if (stack[i] != w)
			continue;
		unbalanced += depth - 1 - i;
		depth = i;
		return;
	}
}

/* n instructions of function slot, in the innermost open window. */
static void count(size_t slot, uint64_t n)
{
	struct window *in = &win[stack[depth - 1]];
	in->insns += n;
	in->per_func[slot] += n;
	for (unsigned i = 0; i + 1 < depth; i++) {
		win[stack[i]].insns += n;
		win[stack[i]].nested += n;
	}
}

/* n instructions of function slot in the whole run (window=*). */
static void count_whole(size_t slot, uint64_t n)
{
	win[whole].insns += n;
	win[whole].per_func[slot] += n;
}

static void on_insn(unsigned int vcpu, void *ud)
{
	uint64_t u = (uintptr_t)ud;
	unsigned func = (u >> 32) & 0xfffff, open = (u >> 52) & 0xf, end = (u >> 56) & 0xf;
	if (vcpu != 0) {
		other_vcpu++;
		return;
	}
	if (end)
		leave(end - 1);
	if (open)
		enter(open - 1);
	if (depth)
		count(func ? func - 1 : syms.n, 1);
	if (depth && per_pc && (uint32_t)u < kernel_hi - kernel_lo)
		per_pc[(uint32_t)u]++;
	if (whole >= 0)
		count_whole(func ? func - 1 : syms.n, 1);
}

/* A block of user code: its instruction count is the userdata. */
static void on_user_block(unsigned int vcpu, void *ud)
{
	if (vcpu != 0)
		other_vcpu += (uintptr_t)ud;
	else {
		if (depth)
			count(syms.n + 1, (uintptr_t)ud);
		if (whole >= 0)
			count_whole(syms.n + 1, (uintptr_t)ud);
	}
}

/* A direct near call (E8 rel32) to a window: its return site ends it. */
static void note_call(uint64_t vaddr, const uint8_t *b, size_t size)
{
	if (size != 5 || b[0] != 0xe8)
		return;
	int32_t rel;
	memcpy(&rel, b + 1, 4);
	uint64_t target = vaddr + 5 + (int64_t)rel;
	for (unsigned w = 0; w < nwin; w++) {
		if ((int)w == whole || win[w].start != target)
			continue;
		for (unsigned i = 0; i < nends; i++)
			if (ends[i].addr == vaddr + 5)
				return;
		if (nends == MAX_ENDS) {
			fprintf(stderr, "insnprof: too many call sites\n");
			return;
		}
		ends[nends].addr = vaddr + 5;
		ends[nends++].w = w;
	}
}

static unsigned role(uint64_t vaddr, int open)
{
	if (open) {
		for (unsigned w = 0; w < nwin; w++)
			if ((int)w != whole && win[w].start == vaddr)
				return w + 1;
		return 0;
	}
	for (unsigned i = 0; i < nends; i++)
		if (ends[i].addr == vaddr)
			return ends[i].w + 1;
	return 0;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	if (qemu_plugin_tb_vaddr(tb) < kernel_lo) {
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_user_block, QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		note_call(va, qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn));
		long f = syms_at(&syms, va);
		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS,
						       UD(va - kernel_lo, f + 1, role(va, 1), role(va, 0)));
	}
}

static int by_count_desc(const void *a, const void *b, void *arg)
{
	const uint64_t *c = arg;
	uint64_t x = c[*(const size_t *)a], y = c[*(const size_t *)b];
	return (x < y) - (x > y);
}

static void write_window(FILE *f, unsigned wi, size_t *order)
{
	const struct window *w = &win[wi];
	unsigned open = 0;
	for (unsigned i = 0; i < depth; i++)
		open += stack[i] == wi;
	fprintf(f, "window\t%s\tentries\t%lu\tinsns\t%lu\tnested\t%lu\topen\t%u\tunbalanced\t%lu\n",
		w->name, (unsigned long)w->entries, (unsigned long)w->insns,
		(unsigned long)w->nested, open, (unsigned long)unbalanced);
	for (size_t i = 0; i < syms.n + 2; i++)
		order[i] = i;
	qsort_r(order, syms.n + 2, sizeof *order, by_count_desc, w->per_func);
	for (size_t i = 0; i < syms.n + 2 && w->per_func[order[i]]; i++)
		fprintf(f, "func\t%s\t%s\t%lu\n", w->name,
			order[i] < syms.n ? syms.v[order[i]].name :
			order[i] == syms.n ? "[unknown]" : "[user]",
			(unsigned long)w->per_func[order[i]]);
}

static void write_pcs(void)
{
	FILE *f = fopen(pcs_path, "w");
	if (!f) {
		fprintf(stderr, "insnprof: cannot write %s\n", pcs_path);
		return;
	}
	for (uint64_t i = 0; i < kernel_hi - kernel_lo; i++)
		if (per_pc[i])
			fprintf(f, "%lx %lu\n", (unsigned long)(kernel_lo + i),
				(unsigned long)per_pc[i]);
	fclose(f);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id, (void)p;
	FILE *f = fopen(out_path, "w");
	size_t *order = malloc((syms.n + 2) * sizeof *order);
	if (!f || !order) {
		fprintf(stderr, "insnprof: cannot write %s\n", out_path);
		return;
	}
	fprintf(f, "# insnprof: guest instructions per kernel function in each window\n");
	for (unsigned w = 0; w < nwin; w++)
		write_window(f, w, order);
	fprintf(f, "other_vcpu\t%lu\n", (unsigned long)other_vcpu);
	free(order);
	fclose(f);
	if (per_pc)
		write_pcs();
}

/* On stderr: qemu_plugin_outs() writes only with `-d plugin`. */
static int fail(const char *what, const char *detail)
{
	fprintf(stderr, "insnprof: %s%s\n", what, detail);
	return -1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	(void)info;
	const char *kernel = NULL, *names[MAX_WINDOWS];
	char err[300];
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "kernel=", 7))
			kernel = argv[i] + 7;
		else if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
		else if (!strncmp(argv[i], "pcs=", 4))
			pcs_path = argv[i] + 4;
		else if (!strncmp(argv[i], "window=", 7) && nwin < MAX_WINDOWS)
			names[nwin++] = argv[i] + 7;
		else
			return fail("unknown or one too many argument: ", argv[i]);
	}
	if (!kernel || !out_path || !nwin)
		return fail("usage: kernel=ELF,out=FILE,window=FUNCTION|*[,window=...][,pcs=FILE]", "");
	if (syms_load(&syms, kernel, err, sizeof err))
		return fail(err, "");
	kernel_lo = syms.v[0].start;
	kernel_hi = syms.v[syms.n - 1].end;
	if (kernel_hi - kernel_lo > UINT32_MAX || syms.n >= (1u << 20) - 1)
		return fail("kernel too large for the userdata's fields", "");
	if (pcs_path && !(per_pc = calloc(kernel_hi - kernel_lo, sizeof *per_pc)))
		return fail("out of memory", "");
	for (unsigned w = 0; w < nwin; w++) {
		bool all = !strcmp(names[w], "*");
		long s = all ? 0 : syms_named(&syms, names[w]);
		if (s < 0)
			return fail("no such function in the kernel: ", names[w]);
		if (all)
			whole = (int)w;
		/* The whole run: one entry, and no first instruction. */
		win[w] = (struct window){ .name = names[w], .entries = all,
					  .start = all ? 0 : syms.v[s].start,
					  .per_func = calloc(syms.n + 2, sizeof(uint64_t)) };
		if (!win[w].per_func)
			return fail("out of memory", "");
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
