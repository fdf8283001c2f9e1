/*
 * `sframe dump --style=2.46`: the header and rows as `readelf --sframe` of
 * binutils 2.46 prints them. What changed from 2.40 (docs/SFRAME.md): one
 * flag per line, the fixed CFA offsets in the header, "f" for an RA at the
 * header's fixed slot, "U" for an RA padding word, "RA undefined" for an
 * outermost row, flexible rules as reg+off or (reg+off) (loaded from
 * there), FDE attributes as attr = "S" (signal) and "F" (flexible).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dump.h"

/* Each set flag on its own line, a comma after all but the last; bits this
 * version does not name are printed as a number, as readelf does. */
static void flags_246(FILE *out, const struct sf_table *t)
{
	static const struct { uint8_t bit; uint8_t only; const char *name; } names[] = {
		{ SF_F_FDE_SORTED, 0, "SFRAME_F_FDE_SORTED" },
		{ SF_F_FRAME_POINTER, 2, "SFRAME_F_FRAME_POINTER" },
		{ SF_F_FUNC_START_PCREL, 0, "SFRAME_F_FDE_FUNC_START_PCREL" },
	};
	const char *prefix = "Flags: ";
	uint8_t left = t->flags;

	if (!left) {
		fprintf(out, "%11sNONE\n", prefix);
		return;
	}
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (!(left & names[i].bit) || (names[i].only && names[i].only != t->version))
			continue;
		left &= (uint8_t)~names[i].bit;
		fprintf(out, "%11s%s%s\n", prefix, names[i].name, left ? "," : "");
		prefix = " ";
	}
	if (left)
		fprintf(out, "%11s%u\n", prefix, left);
}

void header_246(FILE *out, const struct sf_table *t)
{
	fprintf(out, "\n  Header :\n\n    Version: SFRAME_VERSION_%u\n", t->version);
	flags_246(out, t);
	if (t->fixed_fp)
		fprintf(out, "    CFA fixed FP offset: %d\n", t->fixed_fp);
	if (t->fixed_ra)
		fprintf(out, "    CFA fixed RA offset: %d\n", t->fixed_ra);
	fprintf(out, "    Num FDEs: %" PRIu32 "\n", t->num_fdes);
	fprintf(out, "    Num FREs: %" PRIu32 "\n", t->num_fres);
}

void attrs_246(FILE *out, const struct sf_fde *fde)
{
	bool flex = fde->fde_type == SF_FDE_FLEX;
	if (fde->signal || flex)
		fprintf(out, ", attr = \"%s%s\"", fde->signal ? "S" : "", flex ? "F" : "");
}

/* A rule: "c" is the CFA; parentheses when the value is loaded from
 * there. readelf 2.46 shows a CFA-based load without them, so SF_AT_CFA
 * and SF_VAL_CFA print alike. */
static void where_246(const struct sf_table *t, const struct sf_where *w,
		      char *buf, size_t n)
{
	static const struct spelling s246 = { "c%+d", "c%+d", "%s%+d", "(%s%+d)" };
	where_spelled(t, w, &s246, buf, n);
}

/* Default FDE: 2.46 prints the header's fixed FP slot even where the row
 * has an FP word, "f" for a fixed RA slot, "U" for an RA padding word. */
static void default_cols(const struct sf_table *t, const struct sf_fre *fre,
			 const struct sf_rule *r, char *cfa, char *fp, char *ra, size_t n)
{
	snprintf(cfa, n, "%s+%d", fre->base == SF_BASE_FP ? "fp" : "sp", r->cfa_off);
	if (t->fixed_fp)
		snprintf(fp, n, "c%+d", t->fixed_fp);
	else
		where_246(t, &r->fp, fp, n);
	if (t->fixed_ra)
		snprintf(ra, n, "f");
	else if (fre->nwords > 1 && fre->word[1] == 0)
		snprintf(ra, n, "U");
	else
		where_246(t, &r->ra, ra, n);
}

/* Flexible FDE: words are (control, offset) pairs for CFA, RA, FP; a
 * single zero control word in the RA place is padding ("U"). */
static void flex_cols(const struct sf_table *t, const struct sf_fre *fre,
		      const struct sf_rule *r, char *cfa, char *fp, char *ra, size_t n)
{
	char reg[8];
	const char *base = reg_name(t, r->cfa_reg, reg, sizeof reg);

	snprintf(cfa, n, r->cfa_deref ? "(%s%+d)" : "%s%+d", base, r->cfa_off);
	where_246(t, &r->fp, fp, n);
	if (fre->nwords < 3)
		snprintf(ra, n, t->fixed_ra ? "f" : "u");
	else if (fre->word[2] == 0)
		snprintf(ra, n, "U");
	else
		where_246(t, &r->ra, ra, n);
}

void row_246(FILE *out, const struct sf_table *t, const struct sf_fde *fde,
	     const struct sf_fre *fre, const struct sf_rule *r)
{
	char cfa[32], fp[32], ra[40];

	fprintf(out, "\n    %016" PRIx64, row_pc(fde, fre));
	if (r->ra.how == SF_UNDEFINED) {
		fprintf(out, "  RA undefined");
		return;
	}
	if (fde->fde_type == SF_FDE_FLEX)
		flex_cols(t, fre, r, cfa, fp, ra, sizeof fp);
	else
		default_cols(t, fre, r, cfa, fp, ra, sizeof fp);
	strcat(ra, fre->mangled_ra ? "[s]" : "   ");
	fprintf(out, "  %-10s%-10s%-13s", cfa, fp, ra);
}
