/* The kernel's function symbols, sorted by address (elfutils libelf). */
#ifndef INSNPROF_SYMBOLS_H
#define INSNPROF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct sym {
	uint64_t start, end; /* [start, end) */
	char *name;
};

struct syms {
	struct sym *v;
	size_t n;
	/* The segment of the code: physical = virtual - phys_delta. */
	uint64_t phys_delta;
	int has_phys;
};

/* Reads the code symbols of ELF file path; 0, or -1 with err set. */
int syms_load(struct syms *s, const char *path, char *err, size_t errlen);
/* The index of the symbol holding addr, or -1. */
long syms_at(const struct syms *s, uint64_t addr);
/* The index of the symbol called name, or -1. */
long syms_named(const struct syms *s, const char *name);

#endif
