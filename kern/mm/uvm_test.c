#include "kern/fs/initrd.h"
#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/mm/mm.h"
#include "kern/unwind/table.h"
#include "kern/lib/string.h"
#include "kern/mm/uvm.h"
#include "kern/proc/elf.h"
#include "stitch/syscall.h"

/* An address space with /bin/fib loaded (not mapped: nothing is). */
static struct uvm *load_fib(struct ktest *t, struct elf_image *img)
{
	struct initrd_file f;
	if (initrd_lookup("/bin/fib", &f) || elf_parse(f.data, f.size, img)) {
		ktest_skip(t, "no /bin/fib in the initrd");
		return NULL;
	}
	struct uvm *mm = uvm_create();
	if (mm && elf_load(mm, img, f.name)) {
		uvm_destroy(mm);
		mm = NULL;
	}
	KEXPECT(t, mm != NULL);
	return mm;
}

KTEST(uvm_regions_and_lookup)
{
	struct elf_image img;
	struct uvm *mm = load_fib(t, &img);
	if (!mm)
		return;
	const struct elf_segment *text = &img.loads[img.text];
	struct region *r = uvm_find(mm, text->vaddr);
	KASSERT(t, r != NULL);
	KEXPECT_EQ(t, r->kind, REGION_ELF);
	KEXPECT_EQ(t, r->prot, VM_EXEC);
	KEXPECT_EQ(t, uvm_find(mm, r->end - 1), r);
	KEXPECT(t, uvm_find(mm, 0) == NULL);
	KEXPECT(t, uvm_find(mm, PAGE_ROUND_UP(img.end)) == NULL); /* empty heap */
	r = uvm_find(mm, USER_END - 1);
	KEXPECT(t, r && r->kind == REGION_STACK && r->end == USER_END);
	KEXPECT(t, uvm_find(mm, USER_STACK_BASE - 1) == NULL); /* the guard */
	KEXPECT(t, uvm_find(mm, USER_END) == NULL);
	/* The loader registered the executable's SFrame section. */
	const struct unwind_table *s = unwind_table_find(mm, UNWIND_SFRAME, img.entry);
	KEXPECT(t, s && s->addr == img.sframe_addr && s->text_start == text->vaddr);
	KEXPECT_EQ(t, mm->build_id_size, 20);
	KEXPECT(t, strcmp(mm->exe_path, "bin/fib") == 0);
	uvm_destroy(mm);
}

/* Demand paging: a page appears on first touch, filled from the file. */
KTEST(uvm_fault_fills_from_file)
{
	struct elf_image img;
	struct uvm *mm = load_fib(t, &img);
	if (!mm)
		return;
	const struct elf_segment *text = &img.loads[img.text];
	uint64_t pa;
	KEXPECT(t, !vm_lookup(&mm->vm, text->vaddr, NULL, NULL));
	KASSERT_EQ(t, uvm_fault(mm, text->vaddr + 5, VM_EXEC), 0);
	KASSERT(t, vm_lookup(&mm->vm, text->vaddr, &pa, NULL));
	KEXPECT(t, memcmp(p2v(pa), text->data, MIN(text->filesz, PAGE_SIZE)) == 0);
	/* Present already (another thread of the process faulted it in
	 * meanwhile): nothing to do, the access is retried. */
	KEXPECT_EQ(t, uvm_fault(mm, text->vaddr, VM_EXEC), 0);
	/* Text is not writable, data not executable, the guard not there. */
	KEXPECT_EQ(t, uvm_fault(mm, text->vaddr + PAGE_SIZE, VM_WRITE), -STITCH_EFAULT);
	const struct elf_segment *data = &img.loads[img.nloads - 1];
	KEXPECT_EQ(t, uvm_fault(mm, data->vaddr, VM_EXEC), -STITCH_EFAULT);
	KEXPECT_EQ(t, uvm_fault(mm, USER_STACK_BASE - 8, VM_WRITE), -STITCH_EFAULT);
	/* The bss part of the last data page is zero. */
	uint64_t last = PAGE_ROUND_DOWN(data->vaddr + data->filesz);
	KASSERT_EQ(t, uvm_fault(mm, last, VM_WRITE), 0);
	KASSERT(t, vm_lookup(&mm->vm, data->vaddr + data->filesz, &pa, NULL));
	KEXPECT_EQ(t, *(uint8_t *)p2v(pa), 0);
	KEXPECT_EQ(t, *((uint8_t *)p2v(pa) - 1), data->data[data->filesz - 1]);
	uvm_destroy(mm);
}

KTEST(uvm_sbrk)
{
	struct elf_image img;
	struct uvm *mm = load_fib(t, &img);
	if (!mm)
		return;
	uint64_t b0 = mm->brk;
	KEXPECT_EQ(t, b0, PAGE_ROUND_UP(img.end));
	KEXPECT_EQ(t, uvm_sbrk(mm, 3 * PAGE_SIZE + 1), b0);
	KEXPECT_EQ(t, mm->heap->end, b0 + 4 * PAGE_SIZE);
	KASSERT_EQ(t, uvm_fault(mm, b0 + 3 * PAGE_SIZE, VM_WRITE), 0);
	KEXPECT_EQ(t, uvm_sbrk(mm, -(long)(PAGE_SIZE + 1)), b0 + 3 * PAGE_SIZE + 1);
	/* The page above the new break is gone (and its frame freed). */
	KEXPECT(t, !vm_lookup(&mm->vm, b0 + 3 * PAGE_SIZE, NULL, NULL));
	KEXPECT_EQ(t, uvm_sbrk(mm, USER_HEAP_MAX), -STITCH_ENOMEM);
	KEXPECT_EQ(t, uvm_sbrk(mm, -(long)(4 * PAGE_SIZE)), -STITCH_ENOMEM);
	KEXPECT_EQ(t, uvm_sbrk(mm, (long)(1ull << 62)), -STITCH_ENOMEM);
	KEXPECT_EQ(t, uvm_sbrk(mm, 0), b0 + 2 * PAGE_SIZE);
	uvm_destroy(mm);
}

KTEST(uvm_mmap_munmap)
{
	struct elf_image img;
	struct uvm *mm = load_fib(t, &img);
	if (!mm)
		return;
	long ra = uvm_mmap(mm, 0, 3 * PAGE_SIZE, VM_WRITE, NULL, 0);
	long rb = uvm_mmap(mm, 0, 1, 0, NULL, 0);
	KASSERT(t, ra > 0 && rb > 0);
	uint64_t a = ra, b = rb;
	KEXPECT_EQ(t, a % PAGE_SIZE, 0);
	KEXPECT(t, (uint64_t)a + 3 * PAGE_SIZE <= USER_MMAP_TOP);
	KEXPECT(t, b + PAGE_SIZE <= a || b >= a + 3 * PAGE_SIZE);
	KEXPECT_EQ(t, uvm_mmap(mm, 0, 0, 0, NULL, 0), -STITCH_EINVAL);
	KEXPECT_EQ(t, uvm_mmap(mm, 0, 1ull << 46, 0, NULL, 0), -STITCH_ENOMEM);
	for (int i = 0; i < 3; i++)
		KASSERT_EQ(t, uvm_fault(mm, a + i * PAGE_SIZE, VM_WRITE), 0);
	/* A hole in the middle splits the region in two. */
	int n = mm->nregions;
	KASSERT_EQ(t, uvm_munmap(mm, a + PAGE_SIZE, PAGE_SIZE), 0);
	KEXPECT_EQ(t, mm->nregions, n + 1);
	KEXPECT(t, uvm_find(mm, a) && uvm_find(mm, a + 2 * PAGE_SIZE));
	KEXPECT(t, uvm_find(mm, a + PAGE_SIZE) == NULL);
	KEXPECT(t, !vm_lookup(&mm->vm, a + PAGE_SIZE, NULL, NULL));
	KEXPECT(t, vm_lookup(&mm->vm, a + 2 * PAGE_SIZE, NULL, NULL));
	KEXPECT_EQ(t, uvm_munmap(mm, a + 1, PAGE_SIZE), -STITCH_EINVAL);
	KEXPECT_EQ(t, uvm_munmap(mm, 0xffffffff80000000ull, PAGE_SIZE), -STITCH_EINVAL);
	KEXPECT_EQ(t, uvm_munmap(mm, img.loads[0].vaddr & ~0xfffull, PAGE_SIZE),
		   -STITCH_EINVAL); /* not a mapping */
	KEXPECT_EQ(t, uvm_munmap(mm, a, 3 * PAGE_SIZE), 0);
	KEXPECT_EQ(t, mm->nregions, n - 1);
	uvm_destroy(mm);
}

/* A file mapping copies the file from the offset, zeros after its end. */
KTEST(uvm_mmap_file)
{
	struct elf_image img;
	struct initrd_file f;
	struct uvm *mm = load_fib(t, &img);
	if (!mm)
		return;
	KASSERT_EQ(t, initrd_lookup("/bin/fib", &f), 0);
	long a = uvm_mmap(mm, 0, 2 * PAGE_SIZE, 0, &f, PAGE_SIZE);
	uint64_t pa;
	KASSERT(t, a > 0);
	KEXPECT_EQ(t, uvm_mmap(mm, 0, PAGE_SIZE, 0, &f, 100), -STITCH_EINVAL);
	KASSERT_EQ(t, uvm_fault(mm, a, 0), 0);
	KASSERT(t, vm_lookup(&mm->vm, a, &pa, NULL));
	KEXPECT(t, memcmp(p2v(pa), f.data + PAGE_SIZE, PAGE_SIZE) == 0);
	long past = uvm_mmap(mm, 0, PAGE_SIZE, 0, &f, PAGE_ROUND_UP(f.size));
	KASSERT(t, past > 0);
	KASSERT_EQ(t, uvm_fault(mm, past, 0), 0);
	KASSERT(t, vm_lookup(&mm->vm, past, &pa, NULL));
	KEXPECT_EQ(t, *(uint64_t *)p2v(pa), 0);
	uvm_destroy(mm);
}
