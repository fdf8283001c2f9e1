#ifndef STITCH_TOOLS_SFRAME_DUMP_H
#define STITCH_TOOLS_SFRAME_DUMP_H

#include <stdbool.h>
#include <stdio.h>

#include "sframe.h"

/* Print t as `readelf --sframe` of binutils 2.40 does, or of 2.46 with
 * style246; stops at the first decoding error and returns it. */
int dump_section(FILE *out, const struct sf_table *t, bool style246);

/* Shared by both styles (dump.c): "sp", "fp" or rN for a DWARF register. */
const char *reg_name(const struct sf_table *t, uint8_t reg, char *buf, size_t n);

/* How a style spells each way of recovering a register: printf formats
 * of the offset (CFA-based) or of the register name and offset. */
struct spelling {
	const char *at_cfa, *val_cfa, *reg, *at_reg;
};

/* w as the style spells it; "u" when it is not saved (dump.c). */
void where_spelled(const struct sf_table *t, const struct sf_where *w,
		   const struct spelling *sp, char *buf, size_t n);

/* A row's pc as readelf prints it (dump.c). */
uint64_t row_pc(const struct sf_fde *fde, const struct sf_fre *fre);

/* readelf 2.46's header, FDE attributes and rows (dump246.c). */
void header_246(FILE *out, const struct sf_table *t);
void attrs_246(FILE *out, const struct sf_fde *fde);
void row_246(FILE *out, const struct sf_table *t, const struct sf_fde *fde,
	     const struct sf_fre *fre, const struct sf_rule *r);

#endif
