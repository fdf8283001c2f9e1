#include "kern/mm/uvm.h"
#include "kern/fs/initrd.h"
#include "kern/kernel.h"
#include "kern/mm/kmalloc.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/unwind/table.h"
#include "kern/lib/string.h"
#include "stitch/syscall.h"

struct uvm *uvm_create(void)
{
	struct uvm *mm = kzalloc(sizeof(*mm));
	if (!mm)
		return NULL;
	if (vm_space_init(&mm->vm)) {
		kfree(mm);
		return NULL;
	}
	mm->users = 1;
	mm->lock = (struct spinlock)SPINLOCK_INIT("uvm");
	return mm;
}

void uvm_get(struct uvm *mm)
{
	__atomic_fetch_add(&mm->users, 1, __ATOMIC_SEQ_CST);
}

void uvm_put(struct uvm *mm)
{
	if (__atomic_sub_fetch(&mm->users, 1, __ATOMIC_SEQ_CST) == 0)
		uvm_destroy(mm);
}

/*
 * Unmaps [start, end), which no region covers any more: mm->lock held,
 * dropped around each TLB shootdown, held again on return. With other
 * threads in the address space, a batch's frames go back to the allocator
 * only after every other CPU on which it is current has dropped its
 * translations to them (vm_flush_others): before that a thread there could
 * still read and write a freed frame. The wait cannot be under mm->lock: a
 * CPU waiting for the lock, interrupts off, would never take the IPI.
 * mm->unmapping keeps mmap, munmap and sbrk out meanwhile, so that no new
 * mapping takes part of the range before it is clear.
 */
static void unmap_pages(struct uvm *mm, uint64_t start, uint64_t end, irqflags_t *f)
{
	struct vm_batch b;
	mm->unmapping = true;
	while (start < end) {
		b.n = 0;
		start = vm_unmap_batch(&mm->vm, start, end, &b);
		/* One thread: the space is current on no other CPU (a CPU
		 * leaving it for another task or idle loads another CR3). */
		if (__atomic_load_n(&mm->users, __ATOMIC_SEQ_CST) > 1) {
			uvm_unlock(mm, *f);
			vm_flush_others(&mm->vm);
			*f = uvm_lock(mm);
		}
		for (size_t i = 0; i < b.n; i++)
			pmm_free(b.frames[i]);
	}
	mm->unmapping = false;
	uvm_wake_unmapping(mm);
}

void uvm_destroy(struct uvm *mm)
{
	/* No thread uses mm any more: no other CPU has it current, and
	 * unmap_pages flushes none. */
	irqflags_t f = uvm_lock(mm);
	unmap_pages(mm, 0, USER_END, &f);
	uvm_unlock(mm, f);
	vm_space_destroy(&mm->vm);
	while (mm->regions) {
		struct region *r = mm->regions;
		mm->regions = r->next;
		kfree(r);
	}
	unwind_tables_free(mm);
	kfree(mm);
}

struct region *uvm_find(struct uvm *mm, uint64_t addr)
{
	for (struct region *r = mm->regions; r && r->start <= addr; r = r->next)
		if (addr < r->end)
			return r;
	return NULL;
}

/* The lowest region that intersects [start, end), or NULL. */
static struct region *first_overlap(struct uvm *mm, uint64_t start, uint64_t end)
{
	for (struct region *r = mm->regions; r && r->start < end; r = r->next)
		if (r->end > start && r->end > r->start)
			return r;
	return NULL;
}

static struct region *region_new(struct uvm *mm, uint64_t start, uint64_t end,
				 unsigned prot, enum region_kind kind)
{
	if (mm->nregions == UVM_MAX_REGIONS)
		return NULL;
	struct region *r = kzalloc(sizeof(*r));
	if (!r)
		return NULL;
	r->start = start;
	r->end = end;
	r->prot = prot;
	r->kind = kind;
	mm->nregions++;
	return r;
}

static void region_insert(struct uvm *mm, struct region *r)
{
	struct region **pp = &mm->regions;
	while (*pp && (*pp)->start < r->start)
		pp = &(*pp)->next;
	r->next = *pp;
	*pp = r;
}

static void region_free(struct uvm *mm, struct region *r)
{
	struct region **pp = &mm->regions;
	while (*pp != r)
		pp = &(*pp)->next;
	*pp = r->next;
	mm->nregions--;
	kfree(r);
}

struct region *uvm_add_region(struct uvm *mm, const struct region *tmpl)
{
	struct region *r = region_new(mm, tmpl->start, tmpl->end, tmpl->prot, tmpl->kind);
	if (!r)
		return NULL;
	r->file_data = tmpl->file_data;
	r->file_vaddr = tmpl->file_vaddr;
	r->file_size = tmpl->file_size;
	r->path = tmpl->path;
	r->file_offset = tmpl->file_offset;
	region_insert(mm, r);
	return r;
}

/* Copies the file bytes that fall into the page at va. */
static void fill_page(const struct region *r, uint64_t va, uint8_t *page)
{
	uint64_t lo = MAX(va, r->file_vaddr);
	uint64_t hi = MIN(va + PAGE_SIZE, r->file_vaddr + r->file_size);
	if (lo < hi)
		memcpy(page + (lo - va), r->file_data + (lo - r->file_vaddr), hi - lo);
}

/* uvm_fault under mm->lock. A page another thread mapped since the
 * fault (both touched it at once) is there: the access can be retried. */
static int fault_locked(struct uvm *mm, uint64_t addr, unsigned access)
{
	struct region *r = uvm_find(mm, addr);
	if (!r || (access & ~r->prot & (VM_WRITE | VM_EXEC)))
		return -STITCH_EFAULT;
	uint64_t va = PAGE_ROUND_DOWN(addr);
	if (vm_lookup(&mm->vm, va, NULL, NULL))
		return 0;
	uint64_t pa = pmm_alloc_zero();
	if (!pa)
		return -STITCH_ENOMEM;
	fill_page(r, va, p2v(pa));
	int err = vm_map(&mm->vm, va, pa, r->prot | VM_USER);
	if (err)
		pmm_free(pa);
	return err;
}

int uvm_fault(struct uvm *mm, uint64_t addr, unsigned access)
{
	irqflags_t f = uvm_lock(mm);
	int err = fault_locked(mm, addr, access);
	uvm_unlock(mm, f);
	return err;
}

int uvm_write(struct uvm *mm, uint64_t va, const void *src, uint64_t n)
{
	const uint8_t *s = src;
	while (n) {
		uint64_t pa;
		if (!vm_lookup(&mm->vm, va, &pa, NULL)) {
			int err = uvm_fault(mm, va, VM_WRITE);
			if (err)
				return err;
			vm_lookup(&mm->vm, va, &pa, NULL);
		}
		uint64_t chunk = MIN(n, PAGE_ROUND_DOWN(va) + PAGE_SIZE - va);
		memcpy(p2v(pa), s, chunk);
		va += chunk;
		s += chunk;
		n -= chunk;
	}
	return 0;
}

static long sbrk_locked(struct uvm *mm, long increment, irqflags_t *f)
{
	struct region *h = mm->heap;
	uint64_t old = mm->brk, brk;
	if (increment >= 0) {
		if ((uint64_t)increment > h->start + USER_HEAP_MAX - old)
			return -STITCH_ENOMEM;
		brk = old + (uint64_t)increment;
	} else {
		uint64_t dec = -(uint64_t)increment;
		if (dec > old - h->start)
			return -STITCH_ENOMEM;
		brk = old - dec;
	}
	uint64_t end = PAGE_ROUND_UP(brk);
	if (end > h->end && first_overlap(mm, h->end, end))
		return -STITCH_ENOMEM;
	uint64_t top = h->end;
	h->end = end;
	mm->brk = brk;
	if (end < top)
		unmap_pages(mm, end, top, f);
	return (long)old;
}

/* The hint if [hint, hint + len) is free mmap space, else the highest
 * address below the mmap top (USER_MMAP_TOP, COMPAT_MMAP_TOP) where len bytes fit, above the heap's room;
 * 0 if none. (A user-space loader asks for the addresses that keep a
 * shared object's segments at their distances from one another.) */
static uint64_t find_gap(struct uvm *mm, uint64_t hint, uint64_t len)
{
	uint64_t floor = mm->heap->start + USER_HEAP_MAX;
	uint64_t top = mm->compat ? COMPAT_MMAP_TOP : USER_MMAP_TOP;
	if (floor > top || len > top - floor)
		return 0;
	if (hint && hint % PAGE_SIZE == 0 && hint >= floor &&
	    hint <= top - len && !first_overlap(mm, hint, hint + len))
		return hint;
	uint64_t at = top - len;
	for (struct region *r; (r = first_overlap(mm, at, at + len));) {
		if (r->start < floor + len)
			return 0;
		at = r->start - len;
	}
	return at;
}

static long mmap_locked(struct uvm *mm, uint64_t hint, uint64_t len, unsigned prot,
			const struct initrd_file *file, uint64_t offset)
{
	if (len == 0 || offset % PAGE_SIZE)
		return -STITCH_EINVAL;
	if (len > USER_MMAP_MAX)
		return -STITCH_ENOMEM;
	len = PAGE_ROUND_UP(len);
	uint64_t at = find_gap(mm, hint, len);
	if (!at)
		return -STITCH_ENOMEM;
	struct region *r = region_new(mm, at, at + len, prot,
				      file ? REGION_FILE : REGION_ANON);
	if (!r)
		return -STITCH_ENOMEM;
	if (file && offset < file->size) {
		r->file_data = file->data + offset;
		r->file_vaddr = at;
		r->file_size = MIN(file->size - offset, len);
	}
	if (file) {
		r->path = file->name;
		r->file_offset = offset;
	}
	region_insert(mm, r);
	return (long)at;
}

static bool is_mmap(const struct region *r)
{
	return r->kind == REGION_ANON || r->kind == REGION_FILE;
}

static int munmap_locked(struct uvm *mm, uint64_t addr, uint64_t len, irqflags_t *f)
{
	if (addr % PAGE_SIZE || len == 0 || !range_below(addr, len, uvm_user_end(mm)))
		return -STITCH_EINVAL;
	uint64_t end = addr + PAGE_ROUND_UP(len);
	struct region *split = NULL;
	for (struct region *r = mm->regions; r && r->start < end; r = r->next) {
		if (r->end <= addr || r->end == r->start)
			continue;
		if (!is_mmap(r))
			return -STITCH_EINVAL;
		if (r->start < addr && r->end > end &&
		    !(split = region_new(mm, end, r->end, r->prot, r->kind)))
			return -STITCH_ENOMEM;
	}
	for (struct region *r = mm->regions, *next; r && r->start < end; r = next) {
		next = r->next;
		if (r->end <= addr || r->end == r->start)
			continue;
		if (r->start >= addr && r->end <= end) {
			region_free(mm, r);
		} else if (r->start < addr && r->end > end) {
			uint64_t top = split->end;
			*split = *r; /* same file source: it is keyed by address */
			split->start = end;
			split->end = top;
			r->end = addr;
			region_insert(mm, split);
		} else if (r->start < addr) {
			r->end = addr;
		} else {
			r->start = end;
		}
	}
	unmap_pages(mm, addr, end, f);
	unwind_tables_unmapped(mm); /* the text of a cached rule may be gone */
	return 0;
}

/* The region changes, under mm->lock: another thread of the process may
 * fault, map or unmap at the same time; each waits first for an unmap
 * that is between batches (unmap_pages). */
long uvm_sbrk(struct uvm *mm, long increment)
{
	irqflags_t f = uvm_lock(mm);
	long ret = uvm_wait_unmapping(mm);
	if (!ret)
		ret = sbrk_locked(mm, increment, &f);
	uvm_unlock(mm, f);
	return ret;
}

long uvm_mmap(struct uvm *mm, uint64_t hint, uint64_t len, unsigned prot,
	      const struct initrd_file *file, uint64_t offset)
{
	irqflags_t f = uvm_lock(mm);
	long ret = uvm_wait_unmapping(mm);
	if (!ret)
		ret = mmap_locked(mm, hint, len, prot, file, offset);
	uvm_unlock(mm, f);
	return ret;
}

int uvm_munmap(struct uvm *mm, uint64_t addr, uint64_t len)
{
	irqflags_t f = uvm_lock(mm);
	int ret = uvm_wait_unmapping(mm);
	if (!ret)
		ret = munmap_locked(mm, addr, len, &f);
	uvm_unlock(mm, f);
	return ret;
}
