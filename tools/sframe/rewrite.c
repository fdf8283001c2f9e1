/*
 * sframe rewrite: a program or shared object with its .sframe section
 * re-encoded (another SFrame version), through libelf with the layout
 * kept (ELF_F_LAYOUT): no other section moves, so no address in the code
 * changes. ld puts .sframe last in the read-only segment, before the
 * page gap that precedes the data segment: a section that grows (version
 * 3's FDEs are 21 bytes, version 1's 17) grows into that gap, or the
 * rewrite stops with the bytes it lacks.
 */
#include "rewrite.h"
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The segment ld makes for .sframe (binutils include/elf/common.h);
 * glibc 2.36's <elf.h> does not name it yet. */
#define PT_GNU_SFRAME 0x6474e554

static int fail(const char *path, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "sframe: %s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* out := in, byte for byte, with in's permissions. */
static int copy_file(const char *in, const char *out)
{
	struct stat st;
	size_t size;
	uint8_t *buf = read_file(in, &size);
	if (!buf || stat(in, &st))
		return fail(in, "%s", strerror(errno));
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 0777);
	bool ok = fd >= 0 && write(fd, buf, size) == (ssize_t)size;
	ok = fd >= 0 && close(fd) == 0 && ok;
	free(buf);
	return ok ? 0 : fail(out, "%s", strerror(errno));
}

/* The room after the section: up to the next section (or the section
 * header table) in the file, and up to the next allocated section in
 * memory. */
static void room(Elf *elf, const GElf_Shdr *me, uint64_t *file, uint64_t *mem)
{
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;

	*file = *mem = UINT64_MAX;
	if (gelf_getehdr(elf, &eh) && eh.e_shoff > me->sh_offset)
		*file = eh.e_shoff;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_size == 0)
			continue;
		if (sh.sh_type != SHT_NOBITS && sh.sh_offset > me->sh_offset && sh.sh_offset < *file)
			*file = sh.sh_offset;
		if ((sh.sh_flags & SHF_ALLOC) && sh.sh_addr > me->sh_addr && sh.sh_addr < *mem)
			*mem = sh.sh_addr;
	}
}

/* PT_GNU_SFRAME is the section; the PT_LOAD in which it is the last
 * section (next: the next section's file offset) ends where it now ends.
 * ld 2.40 makes both longer than the section (docs/KERNEL.md): they
 * shrink to it. */
static int fix_segments(Elf *elf, const char *path, const GElf_Shdr *old, uint64_t len,
			uint64_t next)
{
	size_t n;
	uint64_t new_end = old->sh_offset + len;

	if (elf_getphdrnum(elf, &n))
		return fail(path, "no program headers: %s", elf_errmsg(-1));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph))
			return fail(path, "%s", elf_errmsg(-1));
		uint64_t end = ph.p_offset + ph.p_filesz;
		if (ph.p_type == PT_GNU_SFRAME && ph.p_vaddr == old->sh_addr) {
			ph.p_filesz = ph.p_memsz = len;
		} else if (ph.p_type == PT_LOAD && old->sh_offset >= ph.p_offset &&
			   old->sh_offset < end && end <= next) {
			if (ph.p_memsz != ph.p_filesz)
				return fail(path, ".sframe ends a segment with .bss");
			ph.p_filesz = ph.p_memsz = new_end - ph.p_offset;
		} else {
			continue;
		}
		if (!gelf_update_phdr(elf, (int)i, &ph))
			return fail(path, "%s", elf_errmsg(-1));
	}
	elf_flagphdr(elf, ELF_C_SET, ELF_F_DIRTY);
	return 0;
}

static int replace(Elf *elf, const char *path, const uint8_t *buf, uint32_t len)
{
	struct section sec;
	Elf_Scn *scn;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	uint64_t file, mem;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return fail(path, "not an ELF file");
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return fail(path, "not a linked program or shared object");
	if (!find_sframe(elf, &sec, &scn) || !gelf_getshdr(scn, &sh))
		return fail(path, "no .sframe section");
	room(elf, &sh, &file, &mem);
	if (sh.sh_offset + len > file || sh.sh_addr + len > mem) {
		fail(path, ".sframe of %" PRIu32 " bytes does not fit: %" PRIu64
		     " bytes before the next section", len,
		     (file - sh.sh_offset < mem - sh.sh_addr ? file - sh.sh_offset :
								mem - sh.sh_addr));
		return REWRITE_NO_ROOM;
	}
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d)
		return fail(path, "%s", elf_errmsg(-1));
	d->d_buf = (void *)buf;
	d->d_size = len;
	d->d_type = ELF_T_BYTE;
	elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
	if (fix_segments(elf, path, &sh, len, file))
		return 1;
	sh.sh_size = len;
	if (!gelf_update_shdr(scn, &sh))
		return fail(path, "%s", elf_errmsg(-1));
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	if (elf_update(elf, ELF_C_WRITE) < 0)
		return fail(path, "%s", elf_errmsg(-1));
	return 0;
}

int elf_with_sframe(const char *in, const char *out, const uint8_t *buf, uint32_t len)
{
	if (copy_file(in, out))
		return 1;
	elf_version(EV_CURRENT);
	int fd = open(out, O_RDWR);
	if (fd < 0)
		return fail(out, "%s", strerror(errno));
	Elf *elf = elf_begin(fd, ELF_C_RDWR, NULL);
	int err = elf ? replace(elf, in, buf, len) : fail(in, "%s", elf_errmsg(-1));
	elf_end(elf);
	close(fd);
	if (err)
		unlink(out);
	return err;
}
