/*
 * The kernel interfaces that kern/proc/elf.c, kern/fs/initrd.c and kern/mm/uvm.c call,
 * implemented on the host for the fuzz targets: a page allocator whose
 * "physical" addresses are host pointers (p2v is the identity), a heap on
 * malloc, and an address space that is a table of (va, frame) pairs. The
 * kernel's own headers declare all of it; this header adds what the
 * targets check: how many frames and objects are still out.
 */
#ifndef FUZZ_MOCK_H
#define FUZZ_MOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Frames handed out by pmm_alloc*() and not yet freed. */
extern long mock_frames_out;
/* kmalloc/kzalloc objects not yet freed. */
extern long mock_objects_out;
/* After this many more frame allocations, pmm_alloc* fail (-1: never). */
extern long mock_frames_budget;

/* Mappings of an address space (its page table entries). */
size_t mock_vm_count(const void *as);
/* Mapping i of an address space: false past the last one. */
bool mock_vm_entry(const void *as, size_t i, uint64_t *va, unsigned *flags);

/* mock_sframe.c: the task whose mm `current->mm` is. */
struct uvm;
void mock_set_current_mm(struct uvm *mm);

/* Aborts with a message: a broken invariant is a crash for libFuzzer. */
__attribute__((noreturn)) void mock_fail(const char *what);
#define MOCK_CHECK(cond) ((cond) ? (void)0 : mock_fail(#cond))

#endif
