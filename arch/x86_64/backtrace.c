/*
 * Kernel backtrace by frame pointer: each frame is [saved rbp, return
 * address] at rbp. This is the one function to replace when the kernel
 * unwinds itself with its own .sframe.
 *
 * The chain is untrusted (a fault may have come from a corrupt stack):
 * every frame must be aligned, mapped, above the previous one, and return
 * into kernel text; the walk stops at the first frame that is not.
 */
#include "arch/x86_64/arch.h"
#include "kern/console.h"
#include "kern/mm.h"
#include "kern/vm.h"

#define MAX_FRAMES 32

static bool readable(uint64_t addr)
{
	struct vm_space cur = { .root = read_cr3() & 0x000ffffffffff000ull };
	return vm_lookup(&cur, addr, NULL, NULL);
}

static bool in_text(uint64_t ip)
{
	return ip >= (uint64_t)__text_start && ip < (uint64_t)__text_end;
}

void arch_backtrace(uint64_t ip, uint64_t bp)
{
	kprintf("backtrace (addr2line -f -e build/kernel/kernel.elf ADDR):\n");
	kprintf("  #0 0x%016lx\n", ip);
	for (int n = 1; n < MAX_FRAMES && bp; n++) {
		if (bp % 8 || bp < KERNEL_HALF || !readable(bp) || !readable(bp + 8))
			break;
		const uint64_t *frame = (const uint64_t *)bp;
		uint64_t ret = frame[1], next = frame[0];
		if (!in_text(ret))
			break;
		kprintf("  #%d 0x%016lx\n", n, ret);
		if (next <= bp)
			break;
		bp = next;
	}
}
