/*
 * libFuzzer target: the ELF loader on a hostile file. kern/proc/elf.c parses
 * the input as spawn would; an accepted image is loaded by kern/mm/uvm.c into
 * a mock address space (mock.c) and pages of every segment are demand
 * faulted as the program (or the kernel's copy helpers) would touch them.
 *
 * Checked besides ASan/UBSan: a refused file is -ENOEXEC; an accepted one
 * has every segment inside the file and the load window, ascending, with no
 * shared page, the entry in an executable segment; each faulted page holds
 * the file's bytes where the segment has them and zeros elsewhere; accesses
 * the segment does not allow and addresses outside every region fault;
 * a registered PT_GNU_SFRAME lies in the user range; and after uvm_destroy
 * no frame and no object is left.
 */
#include <stdint.h>
#include <string.h>

#include "kern/proc/elf.h"
#include "kern/mm/mm.h"
#include "kern/unwind/table.h"
#include "kern/mm/uvm.h"
#include "mock.h"
#include "stitch/syscall.h"

static void check_image(const uint8_t *file, size_t size, const struct elf_image *img)
{
	MOCK_CHECK(img->nloads >= 1 && img->nloads <= ELF_MAX_LOADS);
	MOCK_CHECK(img->text >= 0 && img->text < img->nloads);
	MOCK_CHECK(img->build_id_size <= ELF_BUILD_ID_MAX);
	for (int i = 0; i < img->nloads; i++) {
		const struct elf_segment *s = &img->loads[i];
		MOCK_CHECK(s->filesz <= s->memsz && s->memsz > 0);
		MOCK_CHECK(s->offset <= size && s->filesz <= size - s->offset);
		MOCK_CHECK(s->data == file + s->offset);
		MOCK_CHECK(s->vaddr >= ELF_LOAD_MIN && s->vaddr + s->memsz <= ELF_LOAD_MAX);
		if (i)
			MOCK_CHECK(PAGE_ROUND_DOWN(s->vaddr) >=
				   PAGE_ROUND_UP(img->loads[i - 1].vaddr + img->loads[i - 1].memsz));
	}
	const struct elf_segment *t = &img->loads[img->text];
	MOCK_CHECK(t->prot & VM_EXEC);
	MOCK_CHECK(img->entry >= t->vaddr && img->entry - t->vaddr < t->memsz);
}

/* The page at va as the segment's file bytes and zeros define it. */
static void check_page(struct uvm *mm, const struct elf_segment *s, uint64_t va)
{
	uint64_t pa;
	MOCK_CHECK(vm_lookup(&mm->vm, va, &pa, NULL));
	const uint8_t *page = p2v(pa);
	for (uint64_t b = 0; b < PAGE_SIZE; b++) {
		uint64_t a = va + b;
		uint8_t want = a >= s->vaddr && a - s->vaddr < s->filesz ?
			       s->data[a - s->vaddr] : 0;
		MOCK_CHECK(page[b] == want);
	}
}

/* Touch the page holding addr: first with what the segment forbids, then
 * with what it allows; a second touch is a protection fault. */
static void touch(struct uvm *mm, const struct elf_segment *s, uint64_t addr)
{
	uint64_t va = PAGE_ROUND_DOWN(addr);
	if (vm_lookup(&mm->vm, va, NULL, NULL))
		return;
	unsigned denied = (VM_WRITE | VM_EXEC) & ~s->prot;
	if (denied)
		MOCK_CHECK(uvm_fault(mm, addr, denied) == -STITCH_EFAULT);
	int err = uvm_fault(mm, addr, s->prot);
	if (err == -STITCH_ENOMEM)
		return; /* the frame budget ran out: nothing may be mapped */
	MOCK_CHECK(err == 0);
	/* Present already (as when another thread of the process faulted
	 * it in first): nothing to do, and no frame taken. */
	long frames = mock_frames_out;
	MOCK_CHECK(uvm_fault(mm, addr, 0) == 0 && mock_frames_out == frames);
	check_page(mm, s, va);
}

static void load(const struct elf_image *img, size_t size)
{
	struct uvm *mm = uvm_create();
	MOCK_CHECK(mm);
	/* Some inputs run out of frames part way, as a full machine would. */
	mock_frames_budget = size % 5 == 0 ? 3 : -1;
	MOCK_CHECK(elf_load(mm, img, "bin/fuzz") == 0);
	for (int i = 0; i < img->nloads; i++) {
		const struct elf_segment *s = &img->loads[i];
		uint64_t at[] = { s->vaddr, s->vaddr + s->filesz - (s->filesz != 0),
				  s->vaddr + s->filesz, s->vaddr + s->memsz - 1 };
		for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
			if (at[k] < s->vaddr + s->memsz)
				touch(mm, s, at[k]);
	}
	MOCK_CHECK(uvm_fault(mm, 0, 0) == -STITCH_EFAULT);
	MOCK_CHECK(uvm_fault(mm, ELF_LOAD_MIN - 1, 0) == -STITCH_EFAULT);
	MOCK_CHECK(uvm_fault(mm, USER_STACK_BASE - 1, 0) == -STITCH_EFAULT);
	const struct elf_segment *t = &img->loads[img->text];
	const struct unwind_table *sf = unwind_table_find(mm, UNWIND_SFRAME, t->vaddr);
	if (sf) {
		MOCK_CHECK(img->sframe_addr && sf->addr == img->sframe_addr);
		MOCK_CHECK(sf->addr < USER_END &&
			   sf->len <= USER_END - sf->addr);
		MOCK_CHECK(sf->text_start == t->vaddr && sf->text_end == t->vaddr + t->memsz);
	}
	mock_frames_budget = -1;
	uvm_destroy(mm);
	MOCK_CHECK(mock_frames_out == 0 && mock_objects_out == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t id[ELF_BUILD_ID_MAX];
	uint32_t nid = elf_build_id(data, size, id);
	MOCK_CHECK(nid <= ELF_BUILD_ID_MAX);

	struct elf_image img;
	int err = elf_parse(data, size, &img);
	if (err) {
		MOCK_CHECK(err == -STITCH_ENOEXEC);
		return 0;
	}
	check_image(data, size, &img);
	/* The REC_MMAP of a spawn and of an mmap must name the same build id. */
	MOCK_CHECK(nid == img.build_id_size && memcmp(id, img.build_id, nid) == 0);
	load(&img, size);
	return 0;
}
