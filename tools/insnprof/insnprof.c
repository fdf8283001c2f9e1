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
 * Memory (docs/BENCHMARKS.md, "A cost model that charges memory"): every
 * load and store (a memory callback on every instruction, user code too)
 * is counted for its function with its bytes and goes through a simulated
 * cache hierarchy (cachesim.h: L1I, L1D, L2 and the last-level cache of
 * one real CPU, LRU, physical addresses); so does every instruction
 * fetch, a line at a time (kernel code by the ELF's physical load
 * address, user code by the host address of its bytes in guest RAM,
 * whose offset the kernel's code gives). User code's lines evict the
 * kernel's. `rep` string instructions (found by their bytes at
 * translation) are charged by the bytes they move, not by their steps.
 * Modelled cycles, per function and window:
 *   instructions - rep steps that moved data
 *   + REP_START per rep execution + its bytes / REP_BYTES_PER_CYCLE
 *   + loads and fetches served by L2 x PEN_L2, by the LLC x PEN_LLC,
 *     by memory x PEN_MEM
 * Stores go through the caches too (they allocate and evict lines) and
 * their misses are counted, but not charged: a store buffer hides them.
 * `mem=off` leaves the memory out (counts stay 0, cycles = instructions).
 * Each window and func line goes on with "key value" pairs: cycles,
 * loads, stores, bytes, l1i_miss, l1d_miss (loads), l2_miss, llc_miss
 * (loads and fetches), st_l1d_miss, st_l2_miss, st_llc_miss (stores),
 * rep_execs, rep_steps, rep_bytes, and cycles_stores (the cycles if
 * stores' misses were charged like loads'); the window line also
 * nested_cycles. After a window's functions, "nested NAME insns N" and
 * the same pairs: what ran in the inner windows (a page fault inside an
 * unwind), so a window's own cost, without them, is its line minus this.
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

#include "cachesim.h"
#include "qemu-plugin.h"
#include "symbols.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_WINDOWS 8
#define MAX_DEPTH 16
#define MAX_ENDS 64

/* What is counted, per function and per window. */
enum { INSNS, LOADS, STORES, BYTES, L1I_MISS, L1D_MISS, L2_MISS, LLC_MISS,
       ST_L1D_MISS, ST_L2_MISS, ST_LLC_MISS, REP_EXECS, REP_STEPS, REP_BYTES, NC };
static const char *const cost_name[NC] = {
	"insns", "loads", "stores", "bytes", "l1i_miss", "l1d_miss", "l2_miss", "llc_miss",
	"st_l1d_miss", "st_l2_miss", "st_llc_miss", "rep_execs", "rep_steps", "rep_bytes",
};

struct window {
	const char *name;
	uint64_t start;             /* the function's first instruction */
	uint64_t entries;
	uint64_t total[NC], nested[NC];
	uint64_t *per_func;         /* [nsyms + 2][NC]: then [unknown], [user] */
};

static struct syms syms;
static struct window win[MAX_WINDOWS];
static unsigned nwin;
static int whole = -1;          /* the index of window=*, or -1 */
static const char *out_path, *pcs_path;
static uint64_t kernel_lo, kernel_hi;
static uint64_t *per_pc; /* pcs=: [kernel_hi - kernel_lo], by address */

/* The cost model (mem=on, the default). */
static bool mem_on = true;
static struct hierarchy caches;
static uint64_t last_fetch = UINT64_MAX;  /* the line fetched last */
/* Guest RAM's address in QEMU: host address of an instruction's bytes
 * minus its physical address, from the kernel's code; and how many kernel
 * instructions disagreed with it (the check that it holds). */
static intptr_t ram_host_delta;
static bool ram_known;
static uint64_t code_phys_mismatch;
/* The rep string step seen last: its instruction, where the next step of
 * the same execution goes, up or down. Any other instruction (the kernel's
 * one by one, a user block that does not start with the rep) forgets it:
 * two executions on adjacent buffers are two. */
static uint32_t rep_pc = UINT32_MAX;
static uint64_t rep_up, rep_down;

/* A translated block of user code: its instructions and the lines of
 * code it fetches (physical). Never freed: the plugin is not told when
 * QEMU drops a block (tens of bytes a block, a few MB in a long run). */
struct ublock {
	uint32_t n, nlines;
	bool rep_first;         /* it starts with a rep string instruction */
	uint64_t line[];
};

/* Return sites: the instruction after each `call <window>` seen. */
static struct { uint64_t addr; unsigned w; } ends[MAX_ENDS];
static unsigned nends;

/* The open windows of vCPU 0, innermost last. */
static unsigned stack[MAX_DEPTH], depth;
static uint64_t unbalanced, other_vcpu;

/* Per instruction, packed into the callback's userdata: its offset in
 * the kernel (32 bits; user code: the low half of its address), the
 * function (index + 1, 0 for none: 20 bits), the window it opens or ends
 * (+ 1: 4 bits each, MAX_WINDOWS < 15), and flags: user code, a rep
 * string instruction, one that reads (lods, scas, cmps) rather than
 * stores. */
#define UD(pc, func, open, end) ((uint64_t)(uint32_t)(pc) | \
	(uint64_t)(func) << 32 | (uint64_t)(open) << 52 | (uint64_t)(end) << 56)
#define UD_USER (1ull << 60)
#define UD_REP (1ull << 61)
#define UD_REP_READS (1ull << 62)

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

/* n more of what k counts, for function slot: in the innermost open
 * window (and as nested in the windows around it), and in the whole run. */
static void charge(size_t slot, unsigned k, uint64_t n)
{
	if (depth) {
		struct window *in = &win[stack[depth - 1]];
		in->total[k] += n;
		in->per_func[slot * NC + k] += n;
		for (unsigned i = 0; i + 1 < depth; i++) {
			win[stack[i]].total[k] += n;
			win[stack[i]].nested[k] += n;
		}
	}
	if (whole >= 0) {
		win[whole].total[k] += n;
		win[whole].per_func[slot * NC + k] += n;
	}
}

/* The misses of an access the level `served` served. */
static void charge_misses(size_t slot, unsigned l1, int served)
{
	if (served >= SERVED_L2)
		charge(slot, l1, 1);
	if (served >= SERVED_LLC)
		charge(slot, L2_MISS, 1);
	if (served >= SERVED_MEM)
		charge(slot, LLC_MISS, 1);
}

/* An instruction fetch from the line at paddr. The line fetched just
 * before is a hit that changes nothing (it is the most recent in its
 * set), so only a change of line goes through the caches. */
static void fetch(size_t slot, uint64_t paddr)
{
	uint64_t line = paddr / LINE_SIZE;
	if (line == last_fetch)
		return;
	last_fetch = line;
	charge_misses(slot, L1I_MISS, hier_fetch(&caches, paddr));
}

static size_t slot_of(uint64_t u)
{
	unsigned func = (u >> 32) & 0xfffff;
	return u & UD_USER ? syms.n + 1 : func ? func - 1 : syms.n;
}

static void on_insn(unsigned int vcpu, void *ud)
{
	uint64_t u = (uintptr_t)ud;
	unsigned open = (u >> 52) & 0xf, end = (u >> 56) & 0xf;
	if (vcpu != 0) {
		other_vcpu++;
		return;
	}
	if (end)
		leave(end - 1);
	if (open)
		enter(open - 1);
	size_t slot = slot_of(u);
	charge(slot, INSNS, 1);
	if (!(u & UD_REP))
		rep_pc = UINT32_MAX;
	if (depth && per_pc && (uint32_t)u < kernel_hi - kernel_lo)
		per_pc[(uint32_t)u]++;
	if (mem_on)
		fetch(slot, (uint32_t)u + kernel_lo - syms.phys_delta);
}

/* A block of user code: its instructions, and its lines fetched. */
static void on_user_block(unsigned int vcpu, void *ud)
{
	const struct ublock *b = ud;
	if (vcpu != 0) {
		other_vcpu += b->n;
		return;
	}
	charge(syms.n + 1, INSNS, b->n);
	if (!b->rep_first)
		rep_pc = UINT32_MAX;
	for (uint32_t i = 0; i < b->nlines; i++)
		fetch(syms.n + 1, b->line[i] * LINE_SIZE);
}

/* A load or store: counted with its bytes, through the data caches
 * (not an I/O access: uncached), and for a rep string instruction's step
 * that moves data (its store, or the load of lods, scas, cmps) as rep
 * bytes; a step that does not continue where the last one of the same
 * instruction left off (up or down) starts an execution. */
static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *ud)
{
	uint64_t u = (uintptr_t)ud;
	if (vcpu != 0)
		return;
	size_t slot = slot_of(u);
	unsigned size = 1u << qemu_plugin_mem_size_shift(info);
	bool store = qemu_plugin_mem_is_store(info);
	charge(slot, store ? STORES : LOADS, 1);
	charge(slot, BYTES, size);
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (hw && !qemu_plugin_hwaddr_is_io(hw)) {
		int served = hier_data(&caches, qemu_plugin_hwaddr_phys_addr(hw), size);
		if (!store)
			charge_misses(slot, L1D_MISS, served);
		else {
			/* Allocated like a load, counted, not charged: the
			 * store buffer hides a store's miss. */
			if (served >= SERVED_L2)
				charge(slot, ST_L1D_MISS, 1);
			if (served >= SERVED_LLC)
				charge(slot, ST_L2_MISS, 1);
			if (served >= SERVED_MEM)
				charge(slot, ST_LLC_MISS, 1);
		}
	}
	if ((u & UD_REP) && store == !(u & UD_REP_READS)) {
		if ((uint32_t)u != rep_pc || (vaddr != rep_up && vaddr != rep_down))
			charge(slot, REP_EXECS, 1);
		rep_pc = (uint32_t)u;
		rep_up = vaddr + size;
		rep_down = vaddr - size;
		charge(slot, REP_STEPS, 1);
		charge(slot, REP_BYTES, size);
	}
}

/* Flags for a rep string instruction (movs, cmps, stos, lods, scas with
 * a rep prefix), by its bytes: UD_REP, and UD_REP_READS for those whose
 * step's data is a load; 0 for any other instruction. */
static uint64_t rep_string(const uint8_t *b, size_t n)
{
	bool rep = false;
	size_t i = 0;
	for (; i < n; i++) {
		uint8_t c = b[i];
		if (c == 0xf3 || c == 0xf2)
			rep = true;
		else if (c != 0x66 && c != 0x67 && c != 0xf0 && c != 0x2e && c != 0x36 &&
			 c != 0x3e && c != 0x26 && c != 0x64 && c != 0x65 && (c & 0xf0) != 0x40)
			break; /* not a prefix (nor REX): the opcode */
	}
	if (!rep || i == n)
		return 0;
	uint8_t op = b[i];
	if (op < 0xa4 || op > 0xaf || op == 0xa8 || op == 0xa9)
		return 0;
	bool reads = op == 0xa6 || op == 0xa7 || op >= 0xac;
	return UD_REP | (reads ? UD_REP_READS : 0);
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

/* User code: one callback per block (its instructions, its lines of
 * code) and, with mem=on, one per memory access. */
static void translate_user(struct qemu_plugin_tb *tb, size_t n)
{
	/* An instruction (at most 15 bytes) adds at most two lines. */
	struct ublock *b = malloc(sizeof *b + (mem_on ? 2 * n : 0) * sizeof b->line[0]);
	if (!b)
		return;
	b->n = (uint32_t)n;
	b->nlines = 0;
	b->rep_first = false;
	for (size_t i = 0; mem_on && i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		size_t size = qemu_plugin_insn_size(insn);
		/* Before the kernel's code told where RAM is: the boot code,
		 * whose addresses are physical. */
		uint8_t *h = qemu_plugin_insn_haddr(insn);
		uint64_t pa = ram_known && h ? (uint64_t)((intptr_t)h - ram_host_delta) : va;
		for (uint64_t l = pa / LINE_SIZE; l <= (pa + size - 1) / LINE_SIZE; l++)
			if (!b->nlines || b->line[b->nlines - 1] != l)
				b->line[b->nlines++] = l;
		uint64_t rep = rep_string(qemu_plugin_insn_data(insn), size);
		if (i == 0 && rep)
			b->rep_first = true;
		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
						 (void *)(uintptr_t)(UD(va, 0, 0, 0) | UD_USER | rep));
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_user_block, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	if (qemu_plugin_tb_vaddr(tb) < kernel_lo) {
		translate_user(tb, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		const uint8_t *bytes = qemu_plugin_insn_data(insn);
		size_t size = qemu_plugin_insn_size(insn);
		note_call(va, bytes, size);
		long f = syms_at(&syms, va);
		uint64_t ud = UD(va - kernel_lo, f + 1, role(va, 1), role(va, 0)) |
			rep_string(bytes, size);
		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS,
						       (void *)(uintptr_t)ud);
		if (!mem_on)
			continue;
		/* The kernel's code says where guest RAM is in QEMU. */
		uint8_t *h = qemu_plugin_insn_haddr(insn);
		intptr_t delta = (intptr_t)h - (intptr_t)(va - syms.phys_delta);
		if (!ram_known && h) {
			ram_host_delta = delta;
			ram_known = true;
		} else if (h && delta != ram_host_delta)
			code_phys_mismatch++;
		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
						 (void *)(uintptr_t)ud);
	}
}

static int by_count_desc(const void *a, const void *b, void *arg)
{
	const uint64_t *c = arg;
	uint64_t x = c[*(const size_t *)a * NC], y = c[*(const size_t *)b * NC];
	return (x < y) - (x > y);
}

/* The modelled cycles of a set of counts (cachesim.h's constants). */
static double cycles(const uint64_t *c)
{
	return (double)(c[INSNS] - c[REP_STEPS]) + (double)REP_START * c[REP_EXECS] +
		(double)c[REP_BYTES] / REP_BYTES_PER_CYCLE +
		(double)(c[L1I_MISS] + c[L1D_MISS]) * PEN_L2 +
		(double)c[L2_MISS] * (PEN_LLC - PEN_L2) + (double)c[LLC_MISS] * (PEN_MEM - PEN_LLC);
}

/* The same, with stores' misses charged like loads' (no store buffer):
 * how much the model's choice not to charge them weighs. */
static double cycles_stores(const uint64_t *c)
{
	return cycles(c) + (double)c[ST_L1D_MISS] * PEN_L2 +
		(double)c[ST_L2_MISS] * (PEN_LLC - PEN_L2) + (double)c[ST_LLC_MISS] * (PEN_MEM - PEN_LLC);
}

static void write_costs(FILE *f, const uint64_t *c)
{
	fprintf(f, "\tcycles\t%.0f\tcycles_stores\t%.0f", cycles(c), cycles_stores(c));
	for (unsigned k = LOADS; k < NC; k++)
		fprintf(f, "\t%s\t%lu", cost_name[k], (unsigned long)c[k]);
}

static void write_window(FILE *f, unsigned wi, size_t *order)
{
	const struct window *w = &win[wi];
	unsigned open = 0;
	for (unsigned i = 0; i < depth; i++)
		open += stack[i] == wi;
	fprintf(f, "window\t%s\tentries\t%lu\tinsns\t%lu\tnested\t%lu\topen\t%u\tunbalanced\t%lu",
		w->name, (unsigned long)w->entries, (unsigned long)w->total[INSNS],
		(unsigned long)w->nested[INSNS], open, (unsigned long)unbalanced);
	fprintf(f, "\tnested_cycles\t%.0f", cycles(w->nested));
	write_costs(f, w->total);
	fputc('\n', f);
	for (size_t i = 0; i < syms.n + 2; i++)
		order[i] = i;
	qsort_r(order, syms.n + 2, sizeof *order, by_count_desc, w->per_func);
	for (size_t i = 0; i < syms.n + 2 && w->per_func[order[i] * NC]; i++) {
		fprintf(f, "func\t%s\t%s\t%lu", w->name,
			order[i] < syms.n ? syms.v[order[i]].name :
			order[i] == syms.n ? "[unknown]" : "[user]",
			(unsigned long)w->per_func[order[i] * NC]);
		write_costs(f, w->per_func + order[i] * NC);
		fputc('\n', f);
	}
	fprintf(f, "nested\t%s\tinsns\t%lu", w->name, (unsigned long)w->nested[INSNS]);
	write_costs(f, w->nested);
	fputc('\n', f);
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
	fprintf(f, "# cost model (mem=%s): %s; L1I %d KiB %d-way, L1D %d KiB %d-way, L2 %d KiB %d-way, "
		"LLC %d KiB %d-way, %d-byte lines, LRU; extra cycles served by L2 %d, LLC %d, memory %d; "
		"rep strings %d + bytes / %d\n", mem_on ? "on" : "off", CPU_NAME,
		L1I_SIZE >> 10, L1I_WAYS, L1D_SIZE >> 10, L1D_WAYS, L2_SIZE >> 10, L2_WAYS,
		LLC_SIZE >> 10, LLC_WAYS, LINE_SIZE, PEN_L2, PEN_LLC, PEN_MEM, REP_START,
		REP_BYTES_PER_CYCLE);
	for (unsigned w = 0; w < nwin; w++)
		write_window(f, w, order);
	fprintf(f, "other_vcpu\t%lu\n", (unsigned long)other_vcpu);
	fprintf(f, "code_phys_mismatch\t%lu\n", (unsigned long)code_phys_mismatch);
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
		else if (!strcmp(argv[i], "mem=on") || !strcmp(argv[i], "mem=off"))
			mem_on = !strcmp(argv[i], "mem=on");
		else if (!strncmp(argv[i], "window=", 7) && nwin < MAX_WINDOWS)
			names[nwin++] = argv[i] + 7;
		else
			return fail("unknown or one too many argument: ", argv[i]);
	}
	if (!kernel || !out_path || !nwin)
		return fail("usage: kernel=ELF,out=FILE,window=FUNCTION|*[,window=...][,pcs=FILE][,mem=on|off]", "");
	if (syms_load(&syms, kernel, err, sizeof err))
		return fail(err, "");
	if (mem_on && (!syms.has_phys || hier_init(&caches)))
		return fail("no load segment for the kernel's code, or out of memory", "");
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
					  .per_func = calloc((syms.n + 2) * NC, sizeof(uint64_t)) };
		if (!win[w].per_func)
			return fail("out of memory", "");
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
