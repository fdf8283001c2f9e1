#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A section's bytes as they are in the file, at their run-time address. */
static void src_of(Elf_Scn *scn, const GElf_Shdr *shdr, struct eh_src *s)
{
	Elf_Data *d = shdr->sh_type == SHT_NOBITS ? NULL : elf_rawdata(scn, NULL);
	*s = (struct eh_src){ 0 };
	if (!d || !d->d_buf)
		return;
	s->base = d->d_buf;
	s->size = d->d_size;
	s->vaddr = shdr->sh_addr;
}

/* The ABI the CFI is for, from the ELF header: x86-64, or i386 (an
 * ELFCLASS32 EM_386 file); any other machine is not this library's. */
static bool abi_of(const GElf_Ehdr *ehdr, uint8_t *abi)
{
	if (ehdr->e_ident[EI_CLASS] == ELFCLASS64 && ehdr->e_machine == EM_X86_64)
		*abi = EH_ABI_X86_64;
	else if (ehdr->e_ident[EI_CLASS] == ELFCLASS32 && ehdr->e_machine == EM_386)
		*abi = EH_ABI_I386;
	else
		return false;
	return true;
}

static bool find_sections(struct input *in)
{
	GElf_Ehdr ehdr;
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!gelf_getehdr(in->elf, &ehdr) || elf_getshdrstrndx(in->elf, &shstrndx))
		return false;
	if (!abi_of(&ehdr, &in->abi)) {
		in->other_machine = true;
		return false;
	}
	in->relocatable = ehdr.e_type == ET_REL;
	while ((scn = elf_nextscn(in->elf, scn))) {
		GElf_Shdr shdr;
		const char *name;
		if (!gelf_getshdr(scn, &shdr) ||
		    !(name = elf_strptr(in->elf, shstrndx, shdr.sh_name)))
			continue;
		if (!strcmp(name, ".eh_frame"))
			src_of(scn, &shdr, &in->frame);
		else if (!strcmp(name, ".eh_frame_hdr"))
			src_of(scn, &shdr, &in->hdr);
	}
	in->frame.abi = in->hdr.abi = in->abi;
	return true;
}

bool input_open(const char *path, struct input *in)
{
	*in = (struct input){ .fd = open(path, O_RDONLY) };
	if (in->fd < 0)
		return false;
	elf_version(EV_CURRENT);
	in->elf = elf_begin(in->fd, ELF_C_READ, NULL);
	if (!in->elf || elf_kind(in->elf) != ELF_K_ELF || !find_sections(in)) {
		if (in->other_machine)
			fprintf(stderr, "ehframe: %s: not an x86-64 or i386 ELF file\n", path);
		input_close(in);
		errno = ENOEXEC;
		return false;
	}
	return true;
}

void input_close(struct input *in)
{
	if (in->elf)
		elf_end(in->elf);
	if (in->fd >= 0)
		close(in->fd);
	in->elf = NULL;
	in->fd = -1;
}

int input_table(const char *path, const struct input *in, bool allow_no_hdr,
		struct eh_table *t)
{
	int err;

	if (in->relocatable) {
		fprintf(stderr, "ehframe: %s: relocatable object: its addresses are "
			"filled in by relocations; use a linked file\n", path);
		return EH_E_INVAL;
	}
	if (!in->frame.size) {
		fprintf(stderr, "ehframe: %s: no .eh_frame\n", path);
		return EH_E_INVAL;
	}
	if (!in->hdr.size && allow_no_hdr)
		err = eh_open_frame(t, &in->frame);
	else if (!in->hdr.size)
		err = EH_E_HDR_NO_TABLE;
	else
		err = eh_open(t, &in->hdr, &in->frame);
	if (err)
		fprintf(stderr, "ehframe: %s: %s\n", path, in->hdr.size ? eh_strerror(err) :
			"no .eh_frame_hdr (link with --eh-frame-hdr)");
	return err;
}
