/*
 * libFuzzer target: a process's address space (kern/mm/uvm.c) driven by the
 * system calls a hostile program can make. A small executable is loaded
 * into a mock address space (mock.c); the input is a list of operations
 * with arbitrary arguments: sbrk, mmap, munmap, demand faults, SFrame
 * registration and removal, as SYS_sbrk, SYS_mmap, SYS_munmap, a touch and
 * SYS_stacktrace_setup pass them on.
 *
 * Checked after every operation: a free hint honoured; regions page aligned, ascending,
 * disjoint, counted, at most UVM_MAX_REGIONS, inside the user range; every
 * mapped page inside a region with the region's permissions; SFrame
 * sections inside the user range, 4-byte aligned, with disjoint text, at
 * most UNWIND_MAX_TABLES; the break inside the heap. At the end nothing leaks.
 */
#include <stdint.h>
#include <string.h>

#include "kern/mm/mm.h"
#include "kern/unwind/sframe_format.h"
#include "kern/unwind/table.h"
#include "kern/proc/syscall.h"
#include "kern/mm/uvm.h"
#include "kern/proc/elf.h"
#include "kern/fs/initrd.h"
#include "mock.h"
#include "stitch/syscall.h"

/* A tiny static executable: text at 0x400000, data right after. */
static const uint8_t text_bytes[64] = { 0xc3 };
static const struct elf_image image = {
	.entry = 0x400000, .nloads = 2, .text = 0,
	.loads = {
		{ .vaddr = 0x400000, .memsz = 0x1800, .data = text_bytes,
		  .filesz = sizeof text_bytes, .prot = VM_EXEC },
		{ .vaddr = 0x402000, .memsz = 0x3000, .data = text_bytes,
		  .filesz = sizeof text_bytes, .prot = VM_WRITE },
	},
	.end = 0x405000, .sframe_addr = 0x400800, .sframe_size = 0x100,
};

struct op {
	uint8_t code;
	uint64_t a, b, c;
};

/* Reads one operation; false at the end of the input. */
static bool next_op(const uint8_t **p, size_t *left, struct op *op)
{
	if (*left < 1 + 3 * 8)
		return false;
	op->code = (*p)[0];
	memcpy(&op->a, *p + 1, 8);
	memcpy(&op->b, *p + 9, 8);
	memcpy(&op->c, *p + 17, 8);
	*p += 25;
	*left -= 25;
	return true;
}

/* An address near an existing region (where splits and edges are), or
 * the raw argument: half the operations use each. */
static uint64_t pick_addr(struct uvm *mm, uint64_t raw, uint64_t sel, bool near)
{
	if (!near || mm->nregions == 0)
		return raw;
	const struct region *r = mm->regions;
	for (uint64_t k = sel % (uint64_t)mm->nregions; k; k--)
		r = r->next;
	return r->start + (raw % (r->end - r->start + 2 * PAGE_SIZE)) - PAGE_SIZE;
}

/* Whether any region, empty ones excepted, meets [start, end). */
static bool overlaps(struct uvm *mm, uint64_t start, uint64_t end)
{
	for (const struct region *r = mm->regions; r; r = r->next)
		if (r->start < end && start < r->end)
			return true;
	return false;
}

static void apply(struct uvm *mm, const struct op *op)
{
	bool near = op->code & 0x80;
	uint64_t addr = pick_addr(mm, op->a, op->c, near);
	long r;
	switch (op->code % 7) {
	case 0:
		r = uvm_sbrk(mm, (long)op->b);
		MOCK_CHECK(r >= 0 || r == -STITCH_ENOMEM);
		break;
	case 1: {
		static const struct initrd_file file = { .name = "data/x", .data = text_bytes,
							 .size = sizeof text_bytes };
		unsigned prot = op->c & (VM_WRITE | VM_EXEC);
		/* The hint: near a region (often page aligned), or raw. */
		uint64_t hint = op->c & 8 ? PAGE_ROUND_DOWN(addr) : addr;
		uint64_t len = op->b % (near ? 1ull << 20 : ~0ull);
		bool free_hint = hint && hint % PAGE_SIZE == 0 && len && len <= USER_MMAP_MAX &&
				 hint >= mm->heap->start + USER_HEAP_MAX &&
				 hint <= USER_MMAP_TOP - PAGE_ROUND_UP(len) &&
				 !overlaps(mm, hint, hint + PAGE_ROUND_UP(len)) &&
				 mm->nregions < UVM_MAX_REGIONS; /* else ENOMEM: no region left */
		r = uvm_mmap(mm, hint, len, prot, op->c & 4 ? &file : NULL,
			     op->a % (2 * PAGE_SIZE));
		MOCK_CHECK(r > 0 || r == -STITCH_EINVAL || r == -STITCH_ENOMEM);
		if (r > 0)
			MOCK_CHECK(r % PAGE_SIZE == 0 && uvm_find(mm, (uint64_t)r) &&
				   (uint64_t)r + PAGE_ROUND_UP(len) <= USER_MMAP_TOP);
		if (free_hint && op->a % (2 * PAGE_SIZE) == 0)
			MOCK_CHECK(r == (long)hint); /* a free hint is honoured */
		break;
	}
	case 2:
		r = uvm_munmap(mm, near ? PAGE_ROUND_DOWN(addr) : addr,
			       near ? op->b % (1ull << 22) : op->b);
		MOCK_CHECK(r == 0 || r == -STITCH_EINVAL || r == -STITCH_ENOMEM);
		break;
	case 3:
		r = uvm_fault(mm, addr, (unsigned)op->b & (VM_WRITE | VM_EXEC));
		MOCK_CHECK(r == 0 || r == -STITCH_EFAULT || r == -STITCH_ENOMEM);
		break;
	case 4: {
		struct unwind_table_spec spec = {
			.addr = addr, .len = op->b % (near ? 1ull << 16 : ~0ull),
			.text = near ? pick_addr(mm, op->c, op->b, true) : op->c,
			.text_len = op->b >> 40 };
		r = unwind_table_register(mm, &sframe_format, &spec, UNWIND_FROM_LOADER);
		MOCK_CHECK(r == 0 || r == -STITCH_EFAULT || r == -STITCH_EINVAL ||
			   r == -STITCH_ENOEXEC || r == -STITCH_EEXIST ||
			   r == -STITCH_ENOMEM);
		break;
	}
	case 5: {
		long arg[5] = { STACKTRACE_SFRAME_REMOVE, 0, 0,
				(long)(near && mm->tables.list[UNWIND_SFRAME] ?
				       mm->tables.list[UNWIND_SFRAME]->text_start : addr), 0 };
		r = sys_stacktrace_setup(arg);
		MOCK_CHECK(r == 0 || r == -STITCH_EINVAL);
		break;
	}
	case 6: {
		uint8_t bytes[16];
		memset(bytes, (int)op->b, sizeof bytes);
		/* Only where a write may go: uvm_write is for building stacks. */
		const struct region *g = uvm_find(mm, addr);
		if (g && (g->prot & VM_WRITE) && addr + sizeof bytes <= g->end) {
			r = uvm_write(mm, addr, bytes, sizeof bytes);
			MOCK_CHECK(r == 0 || r == -STITCH_ENOMEM);
		}
		break;
	}
	}
}

static void check(struct uvm *mm)
{
	int n = 0;
	uint64_t prev_end = 0;
	for (const struct region *r = mm->regions; r; r = r->next, n++) {
		MOCK_CHECK(r->start % PAGE_SIZE == 0 && r->end % PAGE_SIZE == 0);
		MOCK_CHECK(r->start <= r->end && r->end <= USER_END);
		MOCK_CHECK(r->start >= prev_end);
		prev_end = r->end;
	}
	MOCK_CHECK(n == mm->nregions && n <= UVM_MAX_REGIONS);
	MOCK_CHECK(mm->brk >= mm->heap->start && PAGE_ROUND_UP(mm->brk) == mm->heap->end);

	/* Every mapped page lies in a region and has its permissions. */
	uint64_t va;
	unsigned flags;
	for (size_t i = 0; mock_vm_entry(&mm->vm, i, &va, &flags); i++) {
		const struct region *r = uvm_find(mm, va);
		MOCK_CHECK(r && flags == (r->prot | VM_USER));
	}
	MOCK_CHECK(mock_vm_count(&mm->vm) == (size_t)mock_frames_out);

	int ns = 0;
	for (const struct unwind_table *s = mm->tables.list[UNWIND_SFRAME]; s; s = s->next, ns++) {
		MOCK_CHECK(s->addr < USER_END && s->len <= USER_END - s->addr);
		MOCK_CHECK(s->text_start < s->text_end && s->text_end <= USER_END);
		MOCK_CHECK(s->len > 0 && s->len <= UINT32_MAX);
		MOCK_CHECK(s->addr % 4 == 0);
		for (const struct unwind_table *t = s->next; t; t = t->next)
			MOCK_CHECK(t->text_end <= s->text_start || s->text_end <= t->text_start);
		MOCK_CHECK(unwind_table_find(mm, UNWIND_SFRAME, s->text_start) == s);
	}
	MOCK_CHECK(ns == mm->tables.count[UNWIND_SFRAME] && ns <= UNWIND_MAX_TABLES);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uvm *mm = uvm_create();
	MOCK_CHECK(mm);
	mock_set_current_mm(mm);
	MOCK_CHECK(elf_load(mm, &image, "bin/fuzz") == 0);
	/* Inputs that end in 0xff run with a few frames only. */
	mock_frames_budget = size && data[size - 1] == 0xff ? 4 : 256;
	struct op op;
	while (next_op(&data, &size, &op)) {
		apply(mm, &op);
		check(mm);
	}
	mock_frames_budget = -1;
	uvm_destroy(mm);
	MOCK_CHECK(mock_frames_out == 0 && mock_objects_out == 0);
	return 0;
}
