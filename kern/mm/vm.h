/*
 * Address spaces: map, unmap and look up pages in any set of page tables.
 *
 * Every address space shares the kernel half (the upper 256 PML4 slots:
 * the direct map and the kernel image) with kernel_space, by copying those
 * PML4 entries when it is created. The kernel therefore never adds a PML4
 * slot after boot: kernel_space_init fills every slot the kernel uses.
 *
 * Physical frames belong to the caller: vm_unmap returns the frame it
 * unmapped, vm_space_destroy frees only page-table pages.
 */
#ifndef KERN_MM_VM_H
#define KERN_MM_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "stitch/boot_info.h"

#define VM_WRITE   0x1
#define VM_EXEC    0x2
#define VM_USER    0x4  /* reachable from ring 3 */
#define VM_NOCACHE 0x8  /* device memory */
#define VM_LARGE   0x10 /* vm_map_range: 2 MiB pages where aligned */

/* Lowest address of the kernel half; the user half is below USER_TOP. */
#define KERNEL_HALF 0xffff800000000000ull
#define USER_TOP    0x0000800000000000ull

struct vm_space {
	uint64_t root; /* physical address of the top-level table (CR3) */
};

extern struct vm_space kernel_space;

/* A new address space with an empty user half; -STITCH_ENOMEM. */
int vm_space_init(struct vm_space *as);
/* Frees the page tables of the user half (not the frames they map). */
void vm_space_destroy(struct vm_space *as);
/* Makes `as` the current address space (loads CR3). */
void vm_switch(const struct vm_space *as);
bool vm_is_current(const struct vm_space *as);

/* Maps one 4 KiB page; -STITCH_ENOMEM, -STITCH_EEXIST, -STITCH_EINVAL. */
int vm_map(struct vm_space *as, uint64_t va, uint64_t pa, unsigned flags);
/* Maps [va, va+len) to [pa, pa+len); page-aligned. On failure nothing of
 * the range stays mapped. */
int vm_map_range(struct vm_space *as, uint64_t va, uint64_t pa, uint64_t len,
		 unsigned flags);
/* Unmaps one 4 KiB page, frees page-table pages that became empty (in the
 * user half) and flushes the TLB entry. Returns the physical address that
 * was mapped, or 0 if nothing was. */
uint64_t vm_unmap(struct vm_space *as, uint64_t va);
/* Frames taken out of an address space's page tables and not yet freed:
 * another CPU on which the space is current may still translate to them
 * until its TLB is flushed (vm_flush_others). */
#define VM_BATCH_FRAMES 128
struct vm_batch {
	size_t n;
	uint64_t frames[VM_BATCH_FRAMES];
};
/* Unmaps pages of [start, end) in the user half, as many as b has room
 * for: their frames and the page tables that became empty go into b, not
 * back to the allocator. Flushes this CPU's TLB if as is current. Returns
 * the address below which [start, end) is unmapped: end when all of it. */
uint64_t vm_unmap_batch(struct vm_space *as, uint64_t start, uint64_t end,
			struct vm_batch *b);
/* Flushes the TLB of every other CPU on which as is current and waits
 * until each has: a TLB shootdown. Interrupts on, and no spinlock held
 * that another CPU may wait for with its interrupts off (arch_smp_call). */
void vm_flush_others(const struct vm_space *as);
/* Looks up va (any page size): true and *pa (the byte's physical address)
 * and *flags (VM_*) if mapped; either pointer may be NULL. */
bool vm_lookup(const struct vm_space *as, uint64_t va, uint64_t *pa,
	       unsigned *flags);

/* Builds kernel_space (direct map + kernel image) and switches to it. */
void kernel_space_init(const struct boot_info *bi);

#endif
