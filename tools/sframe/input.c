#include "input.h"
#include "reloc.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			uint8_t *bigger = realloc(buf, cap);
			if (!bigger) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = bigger;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	bool failed = ferror(f);
	fclose(f);
	if (failed) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	*size = n;
	return buf;
}

bool find_sframe(Elf *elf, struct section *sec, Elf_Scn **scn_out)
{
	GElf_Ehdr ehdr;
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!gelf_getehdr(elf, &ehdr) || elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;
		if (!gelf_getshdr(scn, &shdr) ||
		    !(name = elf_strptr(elf, shstrndx, shdr.sh_name)) ||
		    strcmp(name, ".sframe") != 0 || shdr.sh_type == SHT_NOBITS)
			continue;
		Elf_Data *d = elf_rawdata(scn, NULL);
		sec->data = d ? d->d_buf : NULL;
		sec->size = d ? d->d_size : 0;
		sec->addr = shdr.sh_addr;
		sec->relocatable = ehdr.e_type == ET_REL;
		*scn_out = scn;
		return true;
	}
	return false;
}

static int visit_elf(Elf *elf, const char *path, const char *member,
		     bool relocate, visit_fn visit, void *arg)
{
	struct section sec;
	Elf_Scn *scn;
	uint8_t *copy = NULL;

	if (!find_sframe(elf, &sec, &scn))
		return visit(arg, member, NULL);
	if (relocate && sec.relocatable && reloc_wanted(&sec)) {
		char why[128];
		if (!(copy = relocated_copy(elf, scn, &sec, why, sizeof why))) {
			fprintf(stderr, "sframe: %s%s%s%s: .rela.sframe: %s\n", path,
				member ? "(" : "", member ? member : "", member ? ")" : "", why);
			return 1;
		}
		sec.data = copy;
	}
	int ret = visit(arg, member, &sec);
	free(copy);
	return ret;
}

static int visit_archive(int fd, Elf *ar, const char *path, bool relocate,
			 visit_fn visit, void *arg)
{
	Elf *m;
	int ret = 0;

	while ((m = elf_begin(fd, ELF_C_READ, ar))) {
		Elf_Arhdr *h = elf_getarhdr(m);
		/* libelf lists the symbol and name tables as members "/" and "//". */
		if (h && h->ar_name[0] != '/' && elf_kind(m) == ELF_K_ELF)
			ret |= visit_elf(m, path, h->ar_name, relocate, visit, arg);
		elf_next(m);
		elf_end(m);
	}
	return ret;
}

static int visit_blob(const char *path, uint64_t vaddr, visit_fn visit, void *arg)
{
	size_t size;
	uint8_t *buf = read_file(path, &size);
	if (!buf)
		return -1;
	struct section sec = { buf, size, vaddr, false };
	int ret = visit(arg, NULL, &sec);
	free(buf);
	return ret;
}

/* A raw section starts with the SFrame magic (either byte order). */
static bool is_blob(int fd)
{
	uint8_t m[2];
	bool blob = pread(fd, m, 2, 0) == 2 &&
		    ((m[0] == 0xe2 && m[1] == 0xde) || (m[0] == 0xde && m[1] == 0xe2));
	return blob;
}

int each_section(const char *path, uint64_t blob_vaddr, bool relocate,
		 visit_fn visit, void *arg)
{
	int fd = open(path, O_RDONLY);
	int ret = -1;

	if (fd < 0)
		return -1;
	if (is_blob(fd)) {
		close(fd);
		return visit_blob(path, blob_vaddr, visit, arg);
	}
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_AR)
		ret = visit_archive(fd, elf, path, relocate, visit, arg);
	else if (elf && elf_kind(elf) == ELF_K_ELF)
		ret = visit_elf(elf, path, NULL, relocate, visit, arg);
	else
		errno = ENOEXEC;
	elf_end(elf);
	close(fd);
	return ret;
}
