/*
 * The user-space shared-object loader (<stitch_dl.h>). The ELF64 layouts
 * are <stitch/elf.h>: newlib has no <elf.h>.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stitch.h>
#include <stitch_dl.h>
#include <stitch/elf.h>

#define PAGE 4096UL
#define PAGE_DOWN(x) ((x) & ~(PAGE - 1))
#define PAGE_UP(x) (((x) + PAGE - 1) & ~(PAGE - 1))

#define MAX_PHDRS 16
#define MAX_SEGMENTS 8

struct dl_object {
	uintptr_t bias;                   /* run-time address of vaddr 0 */
	struct { uintptr_t start, len; } maps[MAX_SEGMENTS];
	int nmaps;
	const struct elf64_sym *syms;
	uint32_t nsyms;
	const char *strs;
	uintptr_t text;                   /* != 0 while the SFrame is registered */
	uintptr_t eh_text;                /* != 0 while the .eh_frame is */
};

static int fail(int err)
{
	errno = err;
	return -1;
}

static int read_at(int fd, long off, void *buf, size_t len)
{
	if (lseek(fd, off, SEEK_SET) != off)
		return -1;
	return read(fd, buf, len) == (ssize_t)len ? 0 : fail(ENOEXEC);
}

static int read_headers(int fd, struct elf64_ehdr *eh, struct elf64_phdr *ph)
{
	if (read_at(fd, 0, eh, sizeof *eh))
		return -1;
	if (memcmp(eh->ident, "\177ELF\2\1", 6) || eh->type != ET_DYN ||
	    eh->machine != EM_X86_64 || eh->phentsize != sizeof *ph ||
	    eh->phnum == 0 || eh->phnum > MAX_PHDRS)
		return fail(ENOEXEC);
	return read_at(fd, (long)eh->phoff, ph, eh->phnum * sizeof *ph);
}

/* [lo, hi): the pages the PT_LOAD segments cover, relative to vaddr 0. */
static int span(const struct elf64_phdr *ph, int n, uintptr_t *lo, uintptr_t *hi)
{
	*lo = UINTPTR_MAX;
	*hi = 0;
	for (int i = 0; i < n; i++) {
		if (ph[i].type != PT_LOAD)
			continue;
		if (ph[i].filesz > ph[i].memsz || ph[i].offset % PAGE != ph[i].vaddr % PAGE)
			return fail(ENOEXEC);
		if (PAGE_DOWN(ph[i].vaddr) < *lo)
			*lo = PAGE_DOWN(ph[i].vaddr);
		if (PAGE_UP(ph[i].vaddr + ph[i].memsz) > *hi)
			*hi = PAGE_UP(ph[i].vaddr + ph[i].memsz);
	}
	return *hi > *lo ? 0 : fail(ENOEXEC);
}

/* A mapping exactly at `at`: the kernel honours a hint that is free. */
static int map_at(struct dl_object *o, uintptr_t at, size_t len, int prot,
		  int fd, long off)
{
	if (o->nmaps == MAX_SEGMENTS)
		return fail(ENOEXEC);
	void *p = stitch_mmap((void *)at, len, prot, fd, off);
	if (p == STITCH_MAP_FAILED)
		return -1;
	o->maps[o->nmaps].start = (uintptr_t)p;
	o->maps[o->nmaps++].len = len;
	return (uintptr_t)p == at ? 0 : fail(ENOMEM);
}

/*
 * One PT_LOAD: its file pages as a private file mapping (the text one is
 * PROT_EXEC: the kernel reports it as a load event), and the bss beyond
 * the file bytes zeroed: the rest of its last file page by hand, whole
 * pages beyond as anonymous memory.
 */
static int map_segment(struct dl_object *o, const struct elf64_phdr *p, int fd)
{
	int prot = STITCH_PROT_READ | (p->flags & PF_W ? STITCH_PROT_WRITE : 0) |
		   (p->flags & PF_X ? STITCH_PROT_EXEC : 0);
	uintptr_t start = o->bias + PAGE_DOWN(p->vaddr);
	uintptr_t file_end = o->bias + p->vaddr + p->filesz;
	uintptr_t mem_end = PAGE_UP(o->bias + p->vaddr + p->memsz);
	if (p->filesz && map_at(o, start, file_end - start, prot, fd,
				(long)PAGE_DOWN(p->offset)))
		return -1;
	if (p->memsz == p->filesz)
		return 0;
	if (!(p->flags & PF_W))
		return fail(ENOEXEC);
	uintptr_t zero_from = p->filesz ? file_end : start;
	memset((void *)zero_from, 0, PAGE_UP(zero_from) - zero_from);
	if (mem_end > PAGE_UP(zero_from))
		return map_at(o, PAGE_UP(zero_from), mem_end - PAGE_UP(zero_from),
			      prot, -1, 0);
	return 0;
}

static int relocate_one(struct dl_object *o, const struct elf64_rela *r)
{
	uint32_t type = (uint32_t)r->info, sym = (uint32_t)(r->info >> 32);
	uint64_t *where = (uint64_t *)(o->bias + r->offset);
	if (type == R_X86_64_RELATIVE) {
		*where = o->bias + (uint64_t)r->addend;
		return 0;
	}
	if (type != R_X86_64_64 && type != R_X86_64_GLOB_DAT &&
	    type != R_X86_64_JUMP_SLOT)
		return fail(ENOEXEC);
	/* Only symbols the object defines: there is nothing else to bind to. */
	if (sym >= o->nsyms || o->syms[sym].shndx == 0)
		return fail(ENOEXEC);
	uint64_t s = o->bias + o->syms[sym].value;
	*where = type == R_X86_64_64 ? s + (uint64_t)r->addend : s;
	return 0;
}

static int relocate(struct dl_object *o, uintptr_t rela, uint64_t size)
{
	const struct elf64_rela *r = (const struct elf64_rela *)(o->bias + rela);
	for (uint64_t i = 0; i < size / sizeof *r; i++)
		if (relocate_one(o, &r[i]))
			return -1;
	return 0;
}

/* The dynamic section: symbols, strings, both relocation tables. */
static int link_object(struct dl_object *o, const struct elf64_phdr *dyn)
{
	uintptr_t rela = 0, jmprel = 0, hash = 0, symtab = 0, strtab = 0;
	uint64_t relasz = 0, pltrelsz = 0;
	const struct elf64_dyn *d = (const struct elf64_dyn *)(o->bias + dyn->vaddr);
	for (uint64_t i = 0; i < dyn->memsz / sizeof *d && d[i].tag != DT_NULL; i++) {
		switch (d[i].tag) {
		case DT_RELA: rela = d[i].val; break;
		case DT_RELASZ: relasz = d[i].val; break;
		case DT_JMPREL: jmprel = d[i].val; break;
		case DT_PLTRELSZ: pltrelsz = d[i].val; break;
		case DT_HASH: hash = d[i].val; break;
		case DT_SYMTAB: symtab = d[i].val; break;
		case DT_STRTAB: strtab = d[i].val; break;
		}
	}
	if (!hash || !symtab || !strtab)
		return fail(ENOEXEC);
	/* DT_HASH: nbucket, nchain; nchain is the number of symbols. */
	o->nsyms = ((const uint32_t *)(o->bias + hash))[1];
	o->syms = (const struct elf64_sym *)(o->bias + symtab);
	o->strs = (const char *)(o->bias + strtab);
	return relocate(o, rela, relasz) || relocate(o, jmprel, pltrelsz) ? -1 : 0;
}

/* Registers PT_GNU_EH_FRAME for the executable segment: .eh_frame is
 * bounded by the end of the PT_LOAD segment that holds the header (ld
 * puts both in one). Only the eh-frame mode reads it; a kernel that
 * refuses it leaves the object's frames to the SFrame section. */
static void register_eh_frame(struct dl_object *o, const struct elf64_phdr *ph, int n,
			      const struct elf64_phdr *text)
{
	const struct elf64_phdr *eh = NULL, *seg = NULL;
	for (int i = 0; i < n; i++)
		if (ph[i].type == PT_GNU_EH_FRAME)
			eh = &ph[i];
	for (int i = 0; eh && i < n; i++)
		if (ph[i].type == PT_LOAD && eh->vaddr >= ph[i].vaddr &&
		    eh->vaddr - ph[i].vaddr < ph[i].memsz)
			seg = &ph[i];
	if (!seg)
		return;
	uintptr_t t = o->bias + text->vaddr;
	if (stacktrace_setup_eh_frame(STACKTRACE_EH_FRAME_ADD, (void *)(o->bias + eh->vaddr),
				      eh->memsz, (void *)t, text->memsz,
				      (void *)(o->bias + seg->vaddr + seg->memsz)) == 0)
		o->eh_text = t;
}

/* Registers PT_GNU_SFRAME (and PT_GNU_EH_FRAME) for the executable segment. */
static int register_sframe(struct dl_object *o, const struct elf64_phdr *ph, int n)
{
	const struct elf64_phdr *sf = NULL, *text = NULL;
	for (int i = 0; i < n; i++) {
		if (ph[i].type == PT_GNU_SFRAME)
			sf = &ph[i];
		if (ph[i].type == PT_LOAD && ph[i].flags & PF_X)
			text = &ph[i];
	}
	if (text)
		register_eh_frame(o, ph, n, text);
	if (!sf || !text)
		return 0; /* nothing to register: its frames fall back */
	uintptr_t t = o->bias + text->vaddr;
	if (stacktrace_setup(STACKTRACE_SFRAME_ADD, (void *)(o->bias + sf->vaddr),
			     sf->memsz, (void *)t, text->memsz))
		return -1;
	o->text = t;
	return 0;
}

static int load(struct dl_object *o, int fd)
{
	struct elf64_ehdr eh;
	struct elf64_phdr ph[MAX_PHDRS];
	const struct elf64_phdr *dyn = NULL;
	uintptr_t lo, hi;
	if (read_headers(fd, &eh, ph) || span(ph, eh.phnum, &lo, &hi))
		return -1;
	/* Find room for the whole span, then put each segment in its place. */
	void *room = stitch_mmap(NULL, hi - lo, STITCH_PROT_READ, -1, 0);
	if (room == STITCH_MAP_FAILED || stitch_munmap(room, hi - lo))
		return -1;
	o->bias = (uintptr_t)room - lo;
	for (int i = 0; i < eh.phnum; i++) {
		if (ph[i].type == PT_LOAD && map_segment(o, &ph[i], fd))
			return -1;
		if (ph[i].type == PT_DYNAMIC)
			dyn = &ph[i];
	}
	if (!dyn || link_object(o, dyn))
		return dyn ? -1 : fail(ENOEXEC);
	return register_sframe(o, ph, eh.phnum);
}

struct dl_object *dl_open(const char *path)
{
	struct dl_object *o = calloc(1, sizeof *o);
	int fd = open(path, O_RDONLY);
	if (!o || fd < 0) {
		free(o);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	int err = load(o, fd) ? errno : 0;
	close(fd);
	if (err) {
		dl_close(o);
		errno = err;
		return NULL;
	}
	return o;
}

void *dl_sym(struct dl_object *o, const char *name)
{
	for (uint32_t i = 1; i < o->nsyms; i++)
		if (o->syms[i].shndx && strcmp(o->strs + o->syms[i].name, name) == 0)
			return (void *)(o->bias + o->syms[i].value);
	return NULL;
}

int dl_unregister(struct dl_object *o)
{
	bool eh = o->eh_text != 0;
	if (eh && stacktrace_setup_eh_frame(STACKTRACE_EH_FRAME_REMOVE, NULL, 0,
					    (void *)o->eh_text, 0, NULL))
		return -1;
	o->eh_text = 0;
	if (!o->text)
		return eh ? 0 : fail(EINVAL);
	if (stacktrace_setup(STACKTRACE_SFRAME_REMOVE, NULL, 0, (void *)o->text, 0))
		return -1;
	o->text = 0;
	return 0;
}

int dl_close(struct dl_object *o)
{
	int err = o->text || o->eh_text ? dl_unregister(o) : 0;
	for (int i = 0; i < o->nmaps; i++)
		if (stitch_munmap((void *)o->maps[i].start, o->maps[i].len))
			err = -1;
	free(o);
	return err;
}
