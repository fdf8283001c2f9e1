/*
 * The kernel's self-unwinder: SFrame rows for the pc, reads from the one
 * kernel stack that holds sp. See kern/unwind/kernel.h for the contract.
 */
#include "kern/unwind/kernel.h"
#include <arch/arch.h>
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/lib/string.h"

extern const uint8_t __sframe_start[], __sframe_end[];

/* Trap frames crossed in one walk: an NMI over an interrupt over an
 * exception is as deep as the kernel nests. */
#define MAX_TRAPS 4

static struct sf_table ktable;
static bool ready;
static const struct kstack *volatile task_stack[ARCH_MAX_CPUS];

/* The reader sf_step() gets: bytes of one stack, nothing else. */
struct stack_reader {
	uint64_t lo, hi;
};

static bool read_stack(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	const struct stack_reader *r = ctx;
	if (addr < r->lo || addr > r->hi || len > r->hi - addr)
		return false;
	memcpy(dst, (const void *)addr, len);
	return true;
}

/* Which stack sp is on: the current task's, or one the arch code owns. */
static bool stack_of(uint64_t sp, struct stack_reader *r)
{
	const struct kstack *ks = task_stack[arch_cpu_id()];
	if (ks && sp >= ks->lo && sp <= ks->hi) {
		r->lo = ks->lo;
		r->hi = ks->hi;
		return true;
	}
	return arch_stack_bounds(sp, &r->lo, &r->hi);
}

static bool in_text(uint64_t pc)
{
	return pc >= (uint64_t)__text_start && pc < (uint64_t)__text_end;
}

/*
 * Records f.pc, then its callers, while sp stays at or above skip_sp.
 * Ends at the first pc without an SFrame row (the assembly entry points),
 * at a trap frame from user mode, or on anything that does not look like a
 * kernel frame.
 */
static int walk(struct sf_frame f, uint64_t skip_sp, uint64_t *ips, int max)
{
	struct stack_reader r;
	int n = 0, traps = 0;

	if (!stack_of(f.sp, &r)) {
		/* sp on no kernel stack (an NMI in the syscall entry, before
		 * its stack switch): the pc is all there is. */
		if (skip_sp == 0 && max > 0)
			ips[n++] = f.pc;
		return n;
	}
	while (n < max) {
		if (f.sp >= skip_sp)
			ips[n++] = f.pc;
		if (f.caller) {
			int trap = arch_unwind_trap(f.pc, f.sp, read_stack, &r, &f);
			if (trap < 0 || (trap > 0 && ++traps > MAX_TRAPS))
				break;
			if (trap > 0) {
				/* The interrupted code may be on another stack
				 * (the trap switched to an IST stack). */
				if (!stack_of(f.sp, &r))
					break;
				continue;
			}
		}
		if (sf_step(&ktable, &f, read_stack, &r) != SF_OK || !in_text(f.pc))
			break;
	}
	return n;
}

int kunwind_from(uint64_t ip, uint64_t sp, uint64_t fp, uint64_t *ips, int max)
{
	struct sf_frame f = { .pc = ip, .sp = sp, .fp = fp, .caller = false };
	if (ready)
		return walk(f, 0, ips, max);
	if (max < 1)
		return 0;
	ips[0] = ip;
	return 1;
}

__attribute__((noinline)) int kunwind_here(uint64_t skip_sp, uint64_t *ips, int max)
{
	struct sf_frame f;
	if (!ready)
		return 0;
	arch_current_frame(&f);
	return walk(f, skip_sp, ips, max);
}

void kunwind_set_task_stack(const struct kstack *ks)
{
	task_stack[arch_cpu_id()] = ks;
}

static void print(const uint64_t *ips, int n)
{
	kprintf("backtrace (addr2line -f -e build/kernel/kernel.elf ADDR):\n");
	for (int i = 0; i < n; i++)
		kprintf("  #%d 0x%016lx\n", i, ips[i]);
}

void kunwind_print_from(uint64_t ip, uint64_t sp, uint64_t fp)
{
	uint64_t ips[KUNWIND_MAX_FRAMES];
	print(ips, kunwind_from(ip, sp, fp, ips, KUNWIND_MAX_FRAMES));
}

void kunwind_print_here(uint64_t skip_sp)
{
	uint64_t ips[KUNWIND_MAX_FRAMES];
	print(ips, kunwind_here(skip_sp, ips, KUNWIND_MAX_FRAMES));
}

/* The kernel's FDE index (sf_fde_index_build): every FDE's start and the
 * FDE itself while there are at most this many, in memory of its own
 * (before the page allocator runs), so that a kernel unwind, in the NMI
 * too, finds its functions by a search in a dense array instead of in
 * the section. Every FDE is read at boot (sf_fde_index_read_all): lookups
 * then write nothing, and NMIs on several CPUs may search at once. */
#define KINDEX_MAX 2048
static uint64_t kindex[(sizeof(struct sf_fde_index) +
			KINDEX_MAX * (12 + sizeof(struct sf_kept_fde)) + 7) / 8];

void kunwind_init(void)
{
	struct sf_src src = {
		.base = __sframe_start,
		.size = (uint32_t)(__sframe_end - __sframe_start),
		.vaddr = (uint64_t)__sframe_start,
	};
	struct sf_fde fde;
	int err = sf_open(&ktable, &src);
	/* ld 2.40 sets __sframe_end after the input sections but merges
	 * them later (docs/KERNEL.md): the header knows the real size. */
	if (!err) {
		src.size = sf_used_size(&ktable);
		err = sf_open(&ktable, &src);
	}
	if (!err)
		err = sf_validate(&ktable);
	if (!err)
		err = sf_fde_index_build(&ktable, kindex, MIN(sizeof kindex,
							   sf_fde_index_size(&ktable, KINDEX_MAX)));
	if (!err)
		err = sf_fde_index_read_all(&ktable);
	/* A kernel built without --gsframe would have an empty table. */
	if (!err)
		err = sf_fde_find(&ktable, (uint64_t)kunwind_init, &fde);
	if (err)
		panic("kunwind: the kernel's .sframe at 0x%lx is unusable: %s",
		      src.vaddr, sf_strerror(err));
	ready = true;
	kprintf("kunwind: .sframe v%u, %u functions, %u rows, %u bytes, index of %u\n",
		ktable.version, ktable.num_fdes, ktable.num_fres, src.size, ktable.fde_index->n);
}

const struct sf_table *kunwind_table(void)
{
	return &ktable;
}
