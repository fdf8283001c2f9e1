/*
 * A process's user memory: one address space (page tables with the
 * kernel half shared) and a sorted list of regions. Nothing is mapped up
 * front: the first touch of any page, by the program or by the kernel's
 * copy helpers, faults, and uvm_fault() maps a fresh page filled from the
 * region's source (the ELF file or an mmapped file in the initrd, or
 * zeros). Every mapped frame belongs to the process and is freed with it.
 *
 * Layout (docs/USERLAND.md):
 *
 *   0x400000 ...             the executable's PT_LOAD segments
 *   end of the last one      the heap (sbrk), at most USER_HEAP_MAX
 *   ... USER_MMAP_TOP        mmap regions, placed top down
 *   (about 1 TiB unmapped)   the guard below the stack
 *   USER_STACK_BASE ...      the stack, fixed size, ends at USER_END
 *
 * A compat (i386) program's space is the same below 4 GiB
 * (docs/PROCESSES.md, "32-bit programs"): segments below 2 GiB
 * (ELF32_LOAD_MAX, kern/proc/elf.h),
 * the heap, mmap regions top down from COMPAT_MMAP_TOP, the stack ending
 * at COMPAT_STACK_END; the last page below 4 GiB stays unmapped.
 */
#ifndef KERN_MM_UVM_H
#define KERN_MM_UVM_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/mm/vm.h"
#include "kern/lib/spinlock.h"
#include "kern/unwind/table.h"

#define USER_END        0x00007ffffffff000ull /* USER_TOP of docs/USERLAND.md */
#define USER_STACK_SIZE (1ull << 20)
#define USER_STACK_BASE (USER_END - USER_STACK_SIZE)
#define USER_MMAP_TOP   0x00007f0000000000ull
#define USER_HEAP_MAX   (1ull << 30)
#define USER_MMAP_MAX   (1ull << 30) /* one mapping; more is -ENOMEM */
#define UVM_MAX_REGIONS 64

#define COMPAT_USER_END  (1ull << 32)
#define COMPAT_STACK_END (COMPAT_USER_END - 0x1000)
#define COMPAT_MMAP_TOP  0xf0000000ull

/* [addr, addr + n) lies below end (n == 0: always true). */
static inline bool range_below(uint64_t addr, uint64_t n, uint64_t end)
{
	return n == 0 || (addr < end && n <= end - addr);
}

/* The end of the calling task's user range: 4 GiB in a compat process,
 * whichever way it entered the kernel (kern/mm/uvm_lock.c; the host
 * fuzzers link a stand-in). */
uint64_t current_user_end(void);

/* [addr, addr + n) lies in the calling task's user range. The one range
 * check of user addresses: the copy helpers and the system calls use it. */
static inline bool user_range_ok(uint64_t addr, uint64_t n)
{
	return range_below(addr, n, current_user_end());
}

enum region_kind {
	REGION_ELF,   /* a PT_LOAD segment of the executable or the signal page */
	REGION_HEAP,
	REGION_STACK,
	REGION_ANON,  /* mmap, fd -1 */
	REGION_FILE,  /* mmap of an initrd file: a private copy */
};

struct region {
	struct region *next;      /* the next region up */
	uint64_t start, end;      /* page aligned, [start, end) */
	unsigned prot;            /* VM_WRITE | VM_EXEC; always readable */
	enum region_kind kind;
	/* Bytes that come from a file: [file_vaddr, file_vaddr + file_size)
	 * holds file_data[0 .. file_size); every other byte is zero. */
	const uint8_t *file_data;
	uint64_t file_vaddr, file_size;
	const char *path;         /* initrd name of the file, or NULL */
	uint64_t file_offset;     /* the file offset that file_vaddr maps */
};

struct initrd_file;                  /* kern/fs/initrd.h: what uvm_mmap maps */

struct uvm {
	struct vm_space vm;
	/* The threads using it (uvm_get/uvm_put); the last one frees it. */
	int users;
	/* Guards the regions and the page tables' user half against the
	 * process's other threads (faults, mmap, munmap, sbrk on other CPUs).
	 * Nothing that touches user memory runs under it. */
	struct spinlock lock;
	/* An unmap is between batches, mm->lock dropped for a TLB shootdown
	 * (uvm.c, unmap_pages): mmap, munmap and sbrk wait. Under lock. */
	bool unmapping;
	struct region *regions;   /* ascending, disjoint */
	int nregions;
	struct region *heap;      /* [heap->start, PAGE_ROUND_UP(brk)) */
	uint64_t brk;
	/* Programs this process ran before this one (0: none; exec adds
	 * one): the stack map's keys tell a pid's programs apart by it. */
	uint32_t execs;
	/* A 32-bit (i386) program: every user address is below 4 GiB. */
	bool compat;
	/* Its unwind tables: only kern/unwind/table.c changes them. */
	struct unwind_registry tables;
	/* The executable, for the profiler's MMAP record (set by the ELF
	 * loader, kern/proc/elf_load.c). */
	const char *exe_path;     /* initrd name ("bin/fib") */
	uint64_t text_start, text_end, text_pgoff;
	uint8_t build_id[20];     /* NT_GNU_BUILD_ID: a SHA-1 at most */
	uint32_t build_id_size;
};

/* The end of mm's user range. */
static inline uint64_t uvm_user_end(const struct uvm *mm)
{
	return mm && mm->compat ? COMPAT_USER_END : USER_END;
}

/* The top of mm's user stack (a compat one's is a page below 4 GiB). */
static inline uint64_t uvm_stack_end(const struct uvm *mm)
{
	return mm && mm->compat ? COMPAT_STACK_END : USER_END;
}

/* An empty address space; NULL when out of memory. */
struct uvm *uvm_create(void);
/* Frees every page, page table and region. mm must not be current. */
void uvm_destroy(struct uvm *mm);
/* One more thread uses mm; uvm_put: one fewer, the last destroys it
 * (which must not be current on its CPU). */
void uvm_get(struct uvm *mm);
void uvm_put(struct uvm *mm);

/* A new region, a copy of *tmpl (its next aside), in its place among the
 * others: for the ELF loader, which lays out a fresh address space and
 * checks the segments itself. NULL when out of memory or regions. */
struct region *uvm_add_region(struct uvm *mm, const struct region *tmpl);

/* mm->lock with interrupts off, and its release (kern/mm/uvm_lock.c; the
 * host fuzzers link a stand-in). */
irqflags_t uvm_lock(struct uvm *mm);
void uvm_unlock(struct uvm *mm, irqflags_t f);
/* mm->lock held: sleeps (the lock dropped meanwhile) while an unmap is
 * between batches (mm->unmapping); 0, or -STITCH_EINTR if the task was
 * killed. uvm_wake_unmapping: wakes them once the unmap is over. */
int uvm_wait_unmapping(struct uvm *mm);
void uvm_wake_unmapping(struct uvm *mm);

/* The region holding addr, or NULL. */
struct region *uvm_find(struct uvm *mm, uint64_t addr);

/*
 * Demand paging: maps the page holding addr if a region allows `access`
 * (VM_WRITE and/or VM_EXEC; reads are always allowed). 0, -EFAULT (no
 * region, access not allowed, or the page is already there: a protection
 * fault) or -ENOMEM. Works on any mm, current or not.
 */
int uvm_fault(struct uvm *mm, uint64_t addr, unsigned access);

/* Writes n bytes at va into mm (not necessarily current), faulting the
 * pages in as a write would: for building a new process's stack. */
int uvm_write(struct uvm *mm, uint64_t va, const void *src, uint64_t n);

/* SYS_sbrk: the old break, or -ENOMEM (outside [heap start, + USER_HEAP_MAX)). */
long uvm_sbrk(struct uvm *mm, long increment);
/* SYS_mmap: the address of a new region of len bytes (rounded up to
 * pages): at hint if that range is free mmap space, else where the kernel
 * likes; file NULL for zeroed memory. -EINVAL, -ENOMEM. */
long uvm_mmap(struct uvm *mm, uint64_t hint, uint64_t len, unsigned prot,
	      const struct initrd_file *file, uint64_t offset);
/* SYS_munmap: removes [addr, addr + len) from mmap regions; -EINVAL if it
 * is not page aligned, leaves the user range, or touches another kind of
 * region. */
int uvm_munmap(struct uvm *mm, uint64_t addr, uint64_t len);

#endif
