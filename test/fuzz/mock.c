/*
 * Host stand-ins for the kernel services the loader's parsers and the
 * user address space code use (see mock.h). Only what kern/proc/elf.c,
 * kern/fs/initrd.c and kern/mm/uvm.c link against.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kernel.h"
#include "kern/mm/kmalloc.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/mm/uvm.h"
#include "kern/mm/vm.h"
#include "mock.h"
#include "stitch/syscall.h"

long mock_frames_out, mock_objects_out, mock_frames_budget = -1;

/* Physical addresses are host addresses. */
uint64_t phys_map_offset;
struct boot_info boot_info;

void mock_fail(const char *what)
{
	fprintf(stderr, "fuzz: invariant broken: %s\n", what);
	abort();
}

void panic(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("fuzz: kernel panic: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

int kprintf(const char *fmt, ...)
{
	(void)fmt; /* the parsers print nothing worth keeping while fuzzing */
	return 0;
}

/* --- kmalloc ------------------------------------------------------------ */

void *kmalloc(size_t n)
{
	void *p = n ? malloc(n) : NULL;
	if (p)
		mock_objects_out++;
	return p;
}

void *kzalloc(size_t n)
{
	void *p = kmalloc(n);
	if (p)
		memset(p, 0, n);
	return p;
}

void kfree(void *p)
{
	if (p)
		mock_objects_out--;
	free(p);
}

/* --- frames ------------------------------------------------------------- */

/* No task: the 64-bit user range. */
uint64_t current_user_end(void)
{
	return USER_END;
}

/* One thread, no interrupts: nothing to lock out. */
irqflags_t uvm_lock(struct uvm *mm)
{
	(void)mm;
	return 0;
}

void uvm_unlock(struct uvm *mm, irqflags_t f)
{
	(void)mm;
	(void)f;
}

/* One thread: an unmap is never in progress when another call starts. */
int uvm_wait_unmapping(struct uvm *mm)
{
	MOCK_CHECK(!mm->unmapping);
	return 0;
}

void uvm_wake_unmapping(struct uvm *mm)
{
	(void)mm;
}

uint64_t pmm_alloc_zero(void)
{
	if (mock_frames_budget == 0)
		return 0;
	if (mock_frames_budget > 0)
		mock_frames_budget--;
	void *p = aligned_alloc(PAGE_SIZE, PAGE_SIZE);
	if (!p)
		return 0;
	memset(p, 0, PAGE_SIZE);
	mock_frames_out++;
	return (uint64_t)(uintptr_t)p;
}

uint64_t pmm_alloc(void)
{
	return pmm_alloc_zero();
}

void pmm_free(uint64_t pa)
{
	MOCK_CHECK(pa % PAGE_SIZE == 0 && pa != 0);
	mock_frames_out--;
	free((void *)(uintptr_t)pa);
}

/* --- address spaces: a table of pages ------------------------------------ */

#define MOCK_MAX_PAGES 1024

struct mock_table {
	size_t n;
	struct { uint64_t va, pa; unsigned flags; } e[MOCK_MAX_PAGES];
};

static struct mock_table *table(const struct vm_space *as)
{
	return (struct mock_table *)(uintptr_t)as->root;
}

size_t mock_vm_count(const void *as)
{
	return table(as)->n;
}

bool mock_vm_entry(const void *as, size_t i, uint64_t *va, unsigned *flags)
{
	const struct mock_table *t = table(as);
	if (i >= t->n)
		return false;
	*va = t->e[i].va;
	*flags = t->e[i].flags;
	return true;
}

int vm_space_init(struct vm_space *as)
{
	struct mock_table *t = kzalloc(sizeof(*t));
	as->root = (uint64_t)(uintptr_t)t;
	return t ? 0 : -STITCH_ENOMEM;
}

void vm_space_destroy(struct vm_space *as)
{
	/* The caller unmapped and freed every frame first (kern/mm/vm.h). */
	MOCK_CHECK(table(as)->n == 0);
	kfree(table(as));
	as->root = 0;
}

static long find(const struct mock_table *t, uint64_t va)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].va == va)
			return (long)i;
	return -1;
}

int vm_map(struct vm_space *as, uint64_t va, uint64_t pa, unsigned flags)
{
	struct mock_table *t = table(as);
	if (va % PAGE_SIZE || pa % PAGE_SIZE)
		return -STITCH_EINVAL;
	/* A user mapping in the kernel half would be a loader bug. */
	MOCK_CHECK(!(flags & VM_USER) || va < USER_TOP);
	if (find(t, va) >= 0)
		return -STITCH_EEXIST;
	if (t->n == MOCK_MAX_PAGES)
		return -STITCH_ENOMEM;
	t->e[t->n].va = va;
	t->e[t->n].pa = pa;
	t->e[t->n].flags = flags;
	t->n++;
	return 0;
}

bool vm_lookup(const struct vm_space *as, uint64_t va, uint64_t *pa, unsigned *flags)
{
	const struct mock_table *t = table(as);
	long i = find(t, PAGE_ROUND_DOWN(va));
	if (i < 0)
		return false;
	if (pa)
		*pa = t->e[i].pa + va % PAGE_SIZE;
	if (flags)
		*flags = t->e[i].flags;
	return true;
}

uint64_t vm_unmap_batch(struct vm_space *as, uint64_t start, uint64_t end,
			struct vm_batch *b)
{
	struct mock_table *t = table(as);
	for (size_t i = 0; i < t->n;) {
		if (t->e[i].va >= start && t->e[i].va < end) {
			if (b->n == VM_BATCH_FRAMES)
				return start; /* the caller comes back for the rest */
			b->frames[b->n++] = t->e[i].pa;
			t->e[i] = t->e[--t->n];
		} else {
			i++;
		}
	}
	return end;
}

/* One thread on one CPU: no other TLB to flush. */
void vm_flush_others(const struct vm_space *as)
{
	(void)as;
}
