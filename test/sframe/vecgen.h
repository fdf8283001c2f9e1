/*
 * Hand-made SFrame sections for the tests: a description is laid out into
 * bytes by vec_build(), written from the specification independently of
 * the library's encoder, so the two can check each other.
 */
#ifndef STITCH_TEST_SFRAME_VECGEN_H
#define STITCH_TEST_SFRAME_VECGEN_H

#include <stddef.h>
#include <stdint.h>

#define VEC_MAX_FDES 8
#define VEC_MAX_FRES 8

struct vfre {
	uint32_t start;
	uint8_t base;     /* 0 fp, 1 sp */
	uint8_t nwords;
	uint8_t size;     /* word size code: 0, 1, 2 (1, 2, 4 bytes) */
	uint8_t mangled;
	int32_t w[6];
};

struct vfde {
	int64_t start;    /* the stored field */
	uint32_t size;
	uint8_t fre_type; /* start address width code */
	uint8_t pc_mask;
	uint8_t key_b;
	uint8_t signal;   /* v3 */
	uint8_t flex;     /* v3 info2 */
	uint8_t rep;      /* v2/v3 */
	int nfres;
	struct vfre fres[VEC_MAX_FRES];
};

struct vsec {
	const char *name;
	uint8_t version, flags, abi;
	int8_t fixed_fp, fixed_ra;
	int nfdes;
	struct vfde fdes[VEC_MAX_FDES];
};

/* Lay s out; returns its size (at most cap bytes are written). */
size_t vec_build(const struct vsec *s, uint8_t *out, size_t cap);

/* Size of one FDE array entry in version v. */
size_t vec_fde_size(uint8_t v);

/* Little-endian patch helpers for malformed variants. */
void vec_put16(uint8_t *p, size_t off, uint16_t v);
void vec_put32(uint8_t *p, size_t off, uint32_t v);

/* The valid sections (NULL-terminated table). */
extern const struct vsec vec_valid[];

/* Malformed sections and the error the library must give, at sf_open or
 * at sf_validate (NULL-terminated table). */
enum { STAGE_OPEN, STAGE_VALIDATE };
struct vbad {
	const char *name;
	int stage;
	int err;
};
extern const struct vbad vec_bad[];

/* The run-time address the malformed sections assume (see function-wraps). */
#define VEC_VADDR 0x10000

/* Build vec_bad[i] into b (cap bytes); returns its size. */
size_t vec_bad_build(int i, uint8_t *b, size_t cap);

#endif
