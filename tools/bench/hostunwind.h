/*
 * bench-unwind: four user-stack unwinders on the same stack snapshots (the
 * stack copies of a stack-copy or validate run), timed one after the other
 * in one process. See docs/BENCHMARKS.md, "Host-side comparison".
 *
 * A snapshot is what the kernel copied at one sample: the user registers
 * and the stack from sp upward. The code and its unwind tables come from
 * the ELF files under --symfs that the stream's REC_MMAP records name,
 * placed where the guest mapped them.
 */
#ifndef BENCH_HOSTUNWIND_H
#define BENCH_HOSTUNWIND_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "sframe.h"
#include "stream.h"
#include "symbols.h"

/* One ELF file mapped into a guest process. */
struct image {
	uint64_t start, end;   /* the mapping (text) in the guest */
	int64_t bias;          /* guest address = the file's vaddr + bias */
	uint8_t *file;         /* the whole file, read into memory */
	size_t size;
	GElf_Phdr *load;       /* its PT_LOAD headers */
	size_t nload;
	bool has_sframe;
	struct sf_table sframe;
	uint64_t eh_frame;     /* guest address of .eh_frame, 0 if none */
	int32_t *eh_table;     /* its search table (ehframe.c), pairs of offsets */
	size_t neh;            /* entries in it */
	uint64_t eh_table_addr; /* where libunwind reads it: outside user space */
};

/* One sample's stack copy, with the images of its process. */
struct snap {
	const struct sample_rec *s;
	struct proc *proc;
	const uint64_t *regs;  /* enum rec_reg order */
	const uint8_t *stack;  /* the copy: guest addresses [sp, sp + size) */
	uint64_t sp, size;
	struct image **images;
	size_t nimages;
};

/* An unwinder: fills out[] with at most max pcs, leaf first; returns how many. */
typedef uint32_t unwinder_fn(const struct snap *sn, uint64_t *out, uint32_t max, void *ctx);

/* ehframe.c: fill im->eh_table from the .eh_frame bytes at guest addr. */
void eh_frame_index(struct image *im, const uint8_t *sec, size_t size, uint64_t addr);

/* images.c */
struct image *image_load(const char *path, const struct mmap_rec *m);
void image_free(struct image *im);
/* The image of sn whose mapping holds addr, or NULL. */
const struct image *snap_image(const struct snap *sn, uint64_t addr);
/* Guest memory as the snapshot knows it: the stack copy, then the files'
 * loaded bytes. false when addr..addr+len is in neither. */
bool snap_read(const struct snap *sn, uint64_t addr, void *dst, uint32_t len);

/* The unwinders (ctx: the libdw one needs stitch's symbols). */
uint32_t unwind_sframe(const struct snap *sn, uint64_t *out, uint32_t max, void *ctx);
uint32_t unwind_fp(const struct snap *sn, uint64_t *out, uint32_t max, void *ctx);
uint32_t unwind_libunwind(const struct snap *sn, uint64_t *out, uint32_t max, void *ctx);
uint32_t unwind_libdw(const struct snap *sn, uint64_t *out, uint32_t max, void *ctx);
void libunwind_init(void);
void libunwind_fini(void);

#endif
