#include "symbols.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* Separate debug files are looked for next to the file and, like perf
 * --symfs does, under the symfs's /usr/lib/debug: never the host's. */
static char *debuginfo_path;

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

char *symbols_host_path(const struct symbols *sy, const struct proc *p,
			const struct mmap_rec *m)
{
	if (p == &sy->procs->kernel && sy->kernel_file)
		return xstrdup(sy->kernel_file);
	return xasprintf("%s%s", sy->symfs ? sy->symfs : "", m->path);
}

/*
 * Where the file's vaddr 0 ended up: the mapping says that `start` holds
 * file offset `pgoff`; the PT_LOAD containing that offset says which vaddr
 * that is. Executables (ET_EXEC) are never moved. Returns 0 if the file
 * cannot be what was mapped.
 */
static int load_bias(Elf *elf, const struct mmap_rec *m, GElf_Addr *bias)
{
	GElf_Ehdr eh;
	size_t n;
	*bias = 0;
	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &n))
		return 0;
	if (eh.e_type != ET_DYN)
		return 1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (m->pgoff >= ph.p_offset && m->pgoff - ph.p_offset < ph.p_filesz) {
			*bias = m->start - (ph.p_vaddr + (m->pgoff - ph.p_offset));
			return 1;
		}
	}
	return 0; /* no segment holds pgoff */
}

/* A file whose build id is not the one the guest mapped would name every
 * frame wrongly: better none (perf refuses it too). */
static int same_build(Elf *elf, const struct mmap_rec *m)
{
	const void *id;
	ssize_t n = m->build_id_size ? dwelf_elf_gnu_build_id(elf, &id) : 0;
	return !m->build_id_size ||
	       (n == (ssize_t)m->build_id_size && !memcmp(id, m->build_id, m->build_id_size));
}

/* Open the host file of a mapping; check it and say where it goes. */
static int open_mapped(struct symbols *sy, const char *host, const struct mmap_rec *m,
		       GElf_Addr *bias)
{
	int fd = open(host, O_RDONLY), ok = 0;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (elf && !(ok = same_build(elf, m)))
		sy->c->build_id_mismatch++;
	ok = ok && load_bias(elf, m, bias);
	if (elf)
		elf_end(elf);
	if (!ok && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Was the same file already reported at the same place? */
static int reported_before(const struct proc *p, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(p->maps[j]->path, p->maps[i]->path) &&
		    p->maps[j]->start - p->maps[j]->pgoff ==
		    p->maps[i]->start - p->maps[i]->pgoff)
			return 1;
	return 0;
}

static Dwfl_Module *report_map(struct symbols *sy, struct proc *p,
			       const struct mmap_rec *m)
{
	char *host = symbols_host_path(sy, p, m);
	GElf_Addr bias;
	int fd = open_mapped(sy, host, m, &bias);
	Dwfl_Module *mod = fd >= 0 ? dwfl_report_elf(p->dwfl, m->path, host, fd, bias, true) : NULL;
	if (!mod) {
		sy->c->missing_files++;
		if (fd >= 0)
			close(fd);
	}
	free(host);
	return mod;
}

static void report_all(struct symbols *sy, struct proc *p)
{
	p->reported = 1;
	p->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!p->dwfl)
		die("libdwfl: %s", dwfl_errmsg(-1));
	dwfl_report_begin(p->dwfl);
	for (size_t i = 0; i < p->nmaps; i++)
		if (!reported_before(p, i))
			report_map(sy, p, p->maps[i]);
	dwfl_report_end(p->dwfl, NULL, NULL);
}

/*
 * A stream without a kernel mapping still has kernel addresses: with
 * --kernel, place the ELF where it was linked and make up the mapping
 * (perf.data needs one too).
 */
static void kernel_from_file(struct symbols *sy)
{
	struct proc *k = &sy->procs->kernel;
	struct mmap_rec probe = { .path = (char *)sy->kernel_file, .flags = MMAP_KERNEL };
	k->reported = 1;
	k->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!k->dwfl)
		die("libdwfl: %s", dwfl_errmsg(-1));
	dwfl_report_begin(k->dwfl);
	Dwfl_Module *mod = report_map(sy, k, &probe);
	dwfl_report_end(k->dwfl, NULL, NULL);
	if (!mod)
		return;
	Dwarf_Addr low, high;
	dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	sy->kernel_map = xcalloc(1, sizeof *sy->kernel_map);
	*sy->kernel_map = probe;
	sy->kernel_map->start = low;
	sy->kernel_map->len = high - low;
	sy->kernel_map->path = xstrdup(sy->kernel_file);
	proc_add_map(k, sy->kernel_map);
}

void symbols_init(struct symbols *sy, struct procs *procs, const char *symfs,
		  const char *kernel_file, struct counters *c)
{
	memset(sy, 0, sizeof *sy);
	sy->procs = procs;
	sy->symfs = symfs;
	sy->kernel_file = kernel_file;
	sy->c = c;
	free(debuginfo_path);
	debuginfo_path = xasprintf(":.debug:%s/usr/lib/debug", symfs ? symfs : "");
	elf_version(EV_CURRENT);
	if (kernel_file && procs->kernel.nmaps == 0)
		kernel_from_file(sy);
}

Dwfl *symbols_dwfl(struct symbols *sy, struct proc *p)
{
	if (!p->reported)
		report_all(sy, p);
	return p->dwfl;
}

const char *symbols_intern(struct symbols *sy, const char *s)
{
	return intern(&sy->strings, s);
}

static const struct frame *marker(struct symbols *sy, struct frame *f,
				  const char *name)
{
	if (!f->name)
		f->name = symbols_intern(sy, name);
	return f;
}

const struct frame *symbols_missing(struct symbols *sy)
{
	return marker(sy, &sy->missing, "[user stack missing]");
}

const struct frame *symbols_cut(struct symbols *sy)
{
	return marker(sy, &sy->cut, "[cut at the frame bound]");
}

static void lookup(struct symbols *sy, struct proc *p, struct frame *f, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(symbols_dwfl(sy, p), pc);
	if (!mod)
		return;
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL);
	if (name) {
		/* Drop a symbol version ("memcpy@@GLIBC_2.14"), as perf does. */
		char plain[256];
		snprintf(plain, sizeof plain, "%.*s", (int)strcspn(name, "@"), name);
		f->name = symbols_intern(sy, plain);
		f->off = off + (f->addr - pc);
		f->known = 1;
	}
	Dwfl_Line *line = dwfl_module_getsrc(mod, pc);
	const char *file = line ? dwfl_lineinfo(line, NULL, &f->line, NULL, NULL, NULL) : NULL;
	if (file)
		f->file = symbols_intern(sy, file);
}

const struct frame *symbols_frame(struct symbols *sy, struct proc *p,
				  uint64_t addr, int kernel, int caller)
{
	if (kernel)
		p = &sy->procs->kernel;
	uint64_t key = (uint64_t)p->index << 2 | (uint64_t)kernel << 1 | (caller != 0);
	struct frame *f = hmap_get(&sy->cache, key, addr);
	if (f)
		return f;

	f = xcalloc(1, sizeof *f);
	f->addr = addr;
	f->kernel = kernel;
	f->name = symbols_intern(sy, "[unknown]");
	/* A return address of 0 would wrap: look it up as it is. */
	uint64_t pc = caller && addr ? addr - 1 : addr;
	const struct mmap_rec *m = proc_map(p, addr);
	sy->c->frames++;
	if (!m) {
		sy->c->frames_unmapped++;
	} else {
		f->module = symbols_intern(sy, m->path);
		lookup(sy, p, f, pc);
		/* Not every caller entry is a return address: past an interrupt
		 * frame comes the interrupted ip, maybe a function's first byte,
		 * whose addr - 1 is padding. Then the address itself is right. */
		if (!f->known && pc != addr)
			lookup(sy, p, f, addr);
		if (!f->known)
			sy->c->frames_no_symbol++;
	}
	hmap_put(&sy->cache, key, addr, f);
	return f;
}

int symbols_build_id(struct symbols *sy, struct proc *p,
		     const struct mmap_rec *m, uint8_t id[20])
{
	if (m->build_id_size) {
		memcpy(id, m->build_id, m->build_id_size);
		return (int)m->build_id_size;
	}
	Dwfl_Module *mod = dwfl_addrmodule(symbols_dwfl(sy, p), m->start);
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = mod ? dwfl_module_build_id(mod, &bits, &vaddr) : 0;
	if (n <= 0 || n > 20)
		return 0;
	memcpy(id, bits, (size_t)n);
	return n;
}

void symbols_free(struct symbols *sy)
{
	hmap_free(&sy->cache, free); /* the cache owns the frames */
	free(debuginfo_path);
	debuginfo_path = NULL;
	strset_free(&sy->strings);
	if (sy->kernel_map)
		free(sy->kernel_map->path);
	free(sy->kernel_map);
}
