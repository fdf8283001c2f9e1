#include "kern/proc/elf.h"
#include "kern/fs/initrd.h"
#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/lib/string.h"
#include "kern/mm/vm.h"
#include "stitch/syscall.h"

/* A small valid executable: text at 0x401000 (R X), data at 0x402000
 * (RW, bss beyond the file), a build-id note, a PT_GNU_SFRAME. */
struct test_elf {
	struct elf64_ehdr eh;
	struct elf64_phdr ph[4];
	uint32_t note[3];
	char note_name[4];
	uint8_t build_id[20];
	uint8_t text[64], data[32];
};

static void make_elf(struct test_elf *e)
{
	memset(e, 0, sizeof(*e));
	memcpy(e->eh.ident, "\x7f" "ELF\x02\x01\x01", 7);
	e->eh.type = 2;
	e->eh.machine = 62;
	e->eh.version = 1;
	e->eh.entry = 0x401010;
	e->eh.phoff = offsetof(struct test_elf, ph);
	e->eh.ehsize = sizeof(e->eh);
	e->eh.phentsize = sizeof(struct elf64_phdr);
	e->eh.phnum = 4;
	e->ph[0] = (struct elf64_phdr){ 1, 5, offsetof(struct test_elf, text), 0x401000, 0,
				  sizeof(e->text), sizeof(e->text), 0x1000 };
	e->ph[1] = (struct elf64_phdr){ 1, 6, offsetof(struct test_elf, data), 0x402000, 0,
				  sizeof(e->data), 0x3000, 0x1000 };
	e->ph[2] = (struct elf64_phdr){ 4, 4, offsetof(struct test_elf, note), 0x400100, 0,
				  12 + 4 + 20, 12 + 4 + 20, 4 };
	e->ph[3] = (struct elf64_phdr){ 0x6474e554, 4, 0, 0x401020, 0, 0x18, 0x18, 8 };
	e->note[0] = 4;
	e->note[1] = 20;
	e->note[2] = 3; /* NT_GNU_BUILD_ID */
	memcpy(e->note_name, "GNU", 4);
	for (int i = 0; i < 20; i++)
		e->build_id[i] = (uint8_t)(0xa0 + i);
}

static int parse(const struct test_elf *e, uint64_t size, struct elf_image *img)
{
	return elf_parse((const uint8_t *)e, size, img);
}

KTEST(elf_parse_valid)
{
	static struct test_elf e;
	struct elf_image img;
	make_elf(&e);
	KASSERT_EQ(t, parse(&e, sizeof(e), &img), 0);
	KEXPECT_EQ(t, img.entry, 0x401010);
	KASSERT_EQ(t, img.nloads, 2);
	KEXPECT_EQ(t, img.text, 0);
	KEXPECT_EQ(t, img.loads[0].prot, VM_EXEC);
	KEXPECT_EQ(t, img.loads[1].prot, VM_WRITE);
	KEXPECT_EQ(t, img.loads[1].filesz, sizeof(e.data));
	KEXPECT_EQ(t, img.loads[1].memsz, 0x3000);
	KEXPECT(t, img.loads[0].data == e.text);
	KEXPECT_EQ(t, img.end, 0x405000);
	KEXPECT_EQ(t, img.sframe_addr, 0x401020);
	KEXPECT_EQ(t, img.sframe_size, 0x18);
	KEXPECT_EQ(t, img.build_id_size, 20);
	KEXPECT(t, memcmp(img.build_id, e.build_id, 20) == 0);
}

/* Each malformation alone must be refused with -ENOEXEC. */
KTEST(elf_parse_malformed)
{
	static struct test_elf e;
	struct elf_image img;
	static const char *const what[] = {
		"magic", "32-bit", "big endian", "ET_DYN", "machine",
		"phentsize", "phoff past the end", "phnum * size overflows",
		"no phdrs", "filesz > memsz", "data past the end",
		"offset + filesz wraps", "vaddr in page 0", "vaddr + memsz wraps",
		"above the load limit", "segments share a page",
		"entry outside text", "entry in data (no X)", "truncated header",
	};
	for (unsigned i = 0; i < ARRAY_SIZE(what); i++) {
		uint64_t size = sizeof(e);
		make_elf(&e);
		switch (i) {
		case 0: e.eh.ident[1] = 'e'; break;
		case 1: e.eh.ident[4] = 1; break;
		case 2: e.eh.ident[5] = 2; break;
		case 3: e.eh.type = 3; break;
		case 4: e.eh.machine = 3; break;
		case 5: e.eh.phentsize = 32; break;
		case 6: e.eh.phoff = sizeof(e) - 8; break;
		case 7: e.eh.phoff = UINT64_MAX - 100; break;
		case 8: e.eh.phnum = 0; break;
		case 9: e.ph[1].filesz = 0x4000; break;
		case 10: e.ph[1].offset = sizeof(e) - 4; break;
		case 11: e.ph[1].offset = UINT64_MAX - 8; break;
		case 12: e.ph[0].vaddr = 0x10; e.eh.entry = 0x20; break;
		case 13: e.ph[1].vaddr = UINT64_MAX - 0x1000; break;
		case 14: e.ph[1].vaddr = ELF_LOAD_MAX; break;
		case 15: e.ph[1].vaddr = 0x401800; break;
		case 16: e.eh.entry = 0x400000; break;
		case 17: e.eh.entry = 0x402000; break;
		case 18: size = 40; break;
		}
		int err = parse(&e, size, &img);
		if (err != -STITCH_ENOEXEC)
			kprintf("# elf_parse_malformed: %s: got %d\n", what[i], err);
		KEXPECT_EQ(t, err, -STITCH_ENOEXEC);
	}
}

/* Notes are bounded too: a bad one is ignored, not followed. */
KTEST(elf_parse_bad_note)
{
	static struct test_elf e;
	struct elf_image img;
	make_elf(&e);
	e.note[1] = 0xfffffff0; /* descsz far past the segment */
	KASSERT_EQ(t, parse(&e, sizeof(e), &img), 0);
	KEXPECT_EQ(t, img.build_id_size, 0);
	make_elf(&e);
	e.note[1] = 32; /* longer than a build ID may be */
	e.ph[2].filesz = e.ph[2].memsz = 12 + 4 + 32;
	KASSERT_EQ(t, parse(&e, sizeof(e), &img), 0);
	KEXPECT_EQ(t, img.build_id_size, 0);
}

/* A real program of the initrd: what the SDK's link produces. */
KTEST(elf_parse_initrd_program)
{
	struct initrd_file f;
	struct elf_image img;
	if (initrd_lookup("/bin/fib", &f)) {
		ktest_skip(t, "no /bin/fib in the initrd");
		return;
	}
	KASSERT_EQ(t, elf_parse(f.data, f.size, &img), 0);
	KEXPECT(t, img.nloads >= 3);
	KEXPECT_EQ(t, img.loads[img.text].prot, VM_EXEC);
	KEXPECT(t, img.loads[0].vaddr >= 0x400000);
	KEXPECT(t, img.sframe_addr > img.loads[0].vaddr && img.sframe_size > 28);
	KEXPECT_EQ(t, img.build_id_size, 20);
	KEXPECT_EQ(t, elf_parse(f.data, 63, &img), -STITCH_ENOEXEC);
}

/* Any ELF64's build ID, a shared object's too; nothing from junk. */
KTEST(elf_build_id_any_type)
{
	static struct test_elf e;
	uint8_t id[ELF_BUILD_ID_MAX];
	make_elf(&e);
	e.eh.type = 3; /* ET_DYN: no executable, still an ELF */
	KEXPECT_EQ(t, elf_build_id((const uint8_t *)&e, sizeof(e), id), 20);
	KEXPECT(t, memcmp(id, e.build_id, 20) == 0);
	e.eh.phoff = sizeof(e);
	KEXPECT_EQ(t, elf_build_id((const uint8_t *)&e, sizeof(e), id), 0);
	KEXPECT_EQ(t, elf_build_id((const uint8_t *)"not an ELF", 10, id), 0);
}

/* A 32-bit (i386) program and the loader's damaged copies of it
 * (mk/compat32.mk): ELF32 headers widened, the segments below 2 GiB, its
 * PT_GNU_EH_FRAME's segment found, its build id read from an ELF32 note. */
KTEST(elf_parse_compat)
{
	struct initrd_file f;
	struct elf_image img;
	if (initrd_lookup("/bin/compat32", &f)) {
		ktest_skip(t, "no /bin/compat32 in the initrd");
		return;
	}
	KASSERT_EQ(t, elf_parse(f.data, f.size, &img), 0);
	KEXPECT(t, img.compat);
	KEXPECT_EQ(t, img.loads[img.text].prot, VM_EXEC);
	KEXPECT(t, img.end <= ELF32_LOAD_MAX && img.entry >= img.loads[img.text].vaddr);
	KEXPECT(t, img.eh_seg > 0 && img.eh_hdr_addr > img.loads[0].vaddr);
	KEXPECT_EQ(t, img.sframe_addr, 0);
	KEXPECT_EQ(t, img.build_id_size, 20);
	uint8_t id[ELF_BUILD_ID_MAX];
	KEXPECT_EQ(t, elf_build_id(f.data, f.size, id), 20);
	KEXPECT(t, memcmp(id, img.build_id, 20) == 0);
	static const char *const bad[] = {
		"/data/compat32-truncated", "/data/compat32-high", "/data/compat32-machine",
	};
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		KASSERT_EQ(t, initrd_lookup(bad[i], &f), 0);
		KEXPECT_EQ(t, elf_parse(f.data, f.size, &img), -STITCH_ENOEXEC);
	}
	KASSERT_EQ(t, initrd_lookup("/data/compat32-sframe", &f), 0);
	KASSERT_EQ(t, elf_parse(f.data, f.size, &img), 0);
	KEXPECT(t, img.compat && img.sframe_addr != 0);
}
