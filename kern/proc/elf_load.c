/*
 * An ELF image into an address space: its segments become regions that
 * fault their pages in from the file, its unwind tables are registered,
 * and an executable gets an empty heap and the stack. The image was
 * checked by elf_parse (elf.c); memory knows nothing of ELF.
 */
#include "kern/proc/elf.h"
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/mm/uvm.h"
#include "kern/unwind/ehframe_format.h"
#include "kern/unwind/sframe_format.h"
#include "kern/unwind/table.h"
#include "kern/lib/string.h"
#include "stitch/syscall.h"

_Static_assert(sizeof(((struct uvm *)0)->build_id) == ELF_BUILD_ID_MAX,
	       "struct uvm holds any build id elf_parse finds");

static int add_segment(struct uvm *mm, const struct elf_segment *s, const char *path)
{
	struct region r = {
		.start = PAGE_ROUND_DOWN(s->vaddr),
		.end = PAGE_ROUND_UP(s->vaddr + s->memsz),
		.prot = s->prot,
		.kind = REGION_ELF,
		.file_data = s->data,
		.file_vaddr = s->vaddr,
		.file_size = s->filesz,
		.path = path,
		.file_offset = s->offset,
	};
	return uvm_add_region(mm, &r) ? 0 : -STITCH_ENOMEM;
}

int elf_map_image(struct uvm *mm, const struct elf_image *img, const char *path)
{
	for (int i = 0; i < img->nloads; i++)
		if (add_segment(mm, &img->loads[i], path))
			return -STITCH_ENOMEM;
	const struct elf_segment *text = &img->loads[img->text];
	struct unwind_table_spec sf = { .addr = img->sframe_addr, .len = img->sframe_size,
					.text = text->vaddr, .text_len = text->memsz };
	if (img->sframe_addr &&
	    unwind_table_register(mm, &sframe_format, &sf, UNWIND_FROM_LOADER) == -STITCH_ENOMEM)
		return -STITCH_ENOMEM;
	if (img->eh_seg) {
		const struct elf_segment *seg = &img->loads[img->eh_seg - 1];
		struct unwind_table_spec eh = { .addr = img->eh_hdr_addr, .len = img->eh_hdr_size,
						.text = text->vaddr, .text_len = text->memsz,
						.seg_start = seg->vaddr,
						.seg_end = seg->vaddr + seg->memsz };
		if (unwind_table_register(mm, &ehframe_format, &eh, UNWIND_FROM_LOADER) ==
		    -STITCH_ENOMEM)
			return -STITCH_ENOMEM;
	}
	return 0;
}

int elf_load(struct uvm *mm, const struct elf_image *img, const char *path)
{
	/* First: the tables registered below are checked against mm's
	 * range. */
	mm->compat = img->compat;
	if (elf_map_image(mm, img, path))
		return -STITCH_ENOMEM;
	uint64_t heap = PAGE_ROUND_UP(img->end);
	uint64_t stack_end = img->compat ? COMPAT_STACK_END : USER_END;
	struct region h = { .start = heap, .end = heap, .prot = VM_WRITE,
			    .kind = REGION_HEAP };
	struct region stack = { .start = stack_end - USER_STACK_SIZE, .end = stack_end,
				.prot = VM_WRITE, .kind = REGION_STACK };
	mm->heap = uvm_add_region(mm, &h);
	if (!mm->heap || !uvm_add_region(mm, &stack))
		return -STITCH_ENOMEM;
	mm->brk = heap;

	const struct elf_segment *text = &img->loads[img->text];
	mm->exe_path = path;
	mm->text_start = text->vaddr;
	mm->text_end = text->vaddr + text->memsz;
	mm->text_pgoff = text->offset;
	memcpy(mm->build_id, img->build_id, img->build_id_size);
	mm->build_id_size = img->build_id_size;
	return 0;
}
