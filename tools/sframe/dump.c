/*
 * `sframe dump`: the text `readelf --sframe` of binutils 2.40 prints, for
 * version 1; the same layout, with the version named, for versions 2 and 3.
 * With --style=2.46 the walk is the same and dump246.c formats the header
 * and rows as readelf 2.46 does. All decoding is the library's; these files
 * only format.
 */
#include "dump.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/*
 * binutils 2.40 names the sorted flag and, when the frame-pointer flag is
 * set too, overwrites it with the latter (strcpy where strcat was meant).
 * Version 1 output reproduces that; later versions list every flag.
 */
static void flags_text(const struct sf_table *t, char *buf, size_t n)
{
	static const struct { uint8_t bit; const char *name; } names[] = {
		{ SF_F_FDE_SORTED, "SFRAME_F_FDE_SORTED" },
		{ SF_F_FRAME_POINTER, "SFRAME_F_FRAME_POINTER" },
		{ SF_F_FUNC_START_PCREL, "SFRAME_F_FDE_FUNC_START_PCREL" },
	};

	buf[0] = 0;
	if (!t->flags) {
		snprintf(buf, n, "NONE");
		return;
	}
	if (t->version == 1) {
		if (t->flags & SF_F_FDE_SORTED)
			snprintf(buf, n, "%s", names[0].name);
		if (t->flags & SF_F_FRAME_POINTER)
			snprintf(buf, n, "%s", names[1].name);
		return;
	}
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (!(t->flags & names[i].bit))
			continue;
		size_t len = strlen(buf);
		snprintf(buf + len, n - len, "%s%s", len ? "," : "", names[i].name);
	}
}

static void dump_header(FILE *out, const struct sf_table *t)
{
	char flags[128];

	flags_text(t, flags, sizeof flags);
	fprintf(out, "\n  Header :\n\n");
	fprintf(out, "    Version: SFRAME_VERSION_%u\n", t->version);
	fprintf(out, "    Flags: %s\n", flags);
	fprintf(out, "    Num FDEs: %" PRIu32 "\n", t->num_fdes);
	fprintf(out, "    Num FREs: %" PRIu32 "\n", t->num_fres);
}

const char *reg_name(const struct sf_table *t, uint8_t reg, char *buf, size_t n)
{
	bool amd64 = t->abi == SF_ABI_AMD64_LE;
	if (reg == (amd64 ? 7 : 31))
		return "sp";
	if (reg == (amd64 ? 6 : 29))
		return "fp";
	snprintf(buf, n, "r%u", reg);
	return buf;
}

/* CFA column: base+offset, in brackets when the CFA is loaded from there. */
static void cfa_text(const struct sf_table *t, const struct sf_rule *r,
		     char *buf, size_t n)
{
	char reg[8];
	const char *name = reg_name(t, r->cfa_reg, reg, sizeof reg);
	if (r->cfa_deref)
		snprintf(buf, n, "[%s%+d]", name, r->cfa_off);
	else
		snprintf(buf, n, "%s+%d", name, r->cfa_off);
}

void where_spelled(const struct sf_table *t, const struct sf_where *w,
		   const struct spelling *sp, char *buf, size_t n)
{
	char reg[8];
	const char *name = reg_name(t, w->reg, reg, sizeof reg);

	switch (w->how) {
	case SF_AT_CFA:
		snprintf(buf, n, sp->at_cfa, w->off);
		return;
	case SF_VAL_CFA:
		snprintf(buf, n, sp->val_cfa, w->off);
		return;
	case SF_REG:
		snprintf(buf, n, sp->reg, name, w->off);
		return;
	case SF_AT_REG:
		snprintf(buf, n, sp->at_reg, name, w->off);
		return;
	}
	snprintf(buf, n, "u");
}

/*
 * FP and RA columns. 2.40 prints c+-N for an offset stored in the FRE and
 * "u" otherwise, including for slots the header fixes (AMD64's RA).
 */
static void where_text(const struct sf_table *t, const struct sf_where *w,
		       int8_t fixed, char *buf, size_t n)
{
	static const struct spelling s240 = { "c%+d", "=c%+d", "=%s%+d", "[%s%+d]" };

	if (w->how == SF_AT_CFA && fixed)
		snprintf(buf, n, "u");
	else
		where_spelled(t, w, &s240, buf, n);
}

/* PCMASK (PLT) rows print their offset in the repeated block. */
uint64_t row_pc(const struct sf_fde *fde, const struct sf_fre *fre)
{
	return fde->pc_type == SF_PC_INC ? fde->start + fre->start : fre->start;
}

static void dump_row(FILE *out, const struct sf_table *t, const struct sf_fde *fde,
		     const struct sf_fre *fre, const struct sf_rule *r)
{
	char cfa[32], fp[32], ra[40];

	uint64_t pc = row_pc(fde, fre);
	cfa_text(t, r, cfa, sizeof cfa);
	if (r->ra.how == SF_UNDEFINED)
		snprintf(cfa, sizeof cfa, "%s+0", fre->base == SF_BASE_FP ? "fp" : "sp");
	where_text(t, &r->fp, t->fixed_fp, fp, sizeof fp);
	where_text(t, &r->ra, t->fixed_ra, ra, sizeof ra);
	/* An RA padding word is "not saved" to the rule; 2.40 prints it. */
	if (!t->fixed_ra && fde->fde_type == SF_FDE_DEFAULT && fre->nwords > 1 &&
	    fre->word[1] == 0)
		snprintf(ra, sizeof ra, "c+0");
	strcat(ra, fre->mangled_ra ? "[s]" : "   ");
	fprintf(out, "\n    %016" PRIx64 "  %-10s%-10s%-13s", pc, cfa, fp, ra);
}

/* The FDE's line: 2.40 appends the pauth key, and ", signal frame" for a
 * version 3 signal FDE; 2.46 its attributes, then the key. */
static void function_line(FILE *out, const struct sf_table *t,
			  const struct sf_fde *fde, bool style246)
{
	bool key_b = fde->pauth_key_b && t->abi != SF_ABI_AMD64_LE;

	fprintf(out, "\n    func idx [%" PRIu32 "]: pc = 0x%" PRIx64 ", size = %" PRIu32 " bytes",
		fde->index, fde->start, fde->size);
	if (style246)
		attrs_246(out, fde);
	if (key_b)
		fprintf(out, ", pauth = B key");
	if (fde->signal && !style246)
		fprintf(out, ", signal frame");
	fprintf(out, "\n    %-7s%-8s %-10s%-10s%-13s", "STARTPC",
		fde->pc_type == SF_PC_MASK ? "[m]" : "   ", "CFA", "FP", "RA");
}

static int dump_function(FILE *out, const struct sf_table *t, uint32_t idx,
			 bool style246)
{
	struct sf_fde fde;
	struct sf_fre fre;
	struct sf_rule r;
	int err;

	if ((err = sf_fde_get(t, idx, &fde)))
		return err;
	function_line(out, t, &fde, style246);
	uint32_t off = fde.first_fre;
	for (uint32_t i = 0; i < fde.num_fres; i++, off += fre.size) {
		if ((err = sf_fre_read(t, &fde, off, &fre)) ||
		    (err = sf_rule_of(t, &fde, &fre, &r)))
			return err;
		(style246 ? row_246 : dump_row)(out, t, &fde, &fre, &r);
	}
	fprintf(out, "\n");
	return SF_OK;
}

int dump_section(FILE *out, const struct sf_table *t, bool style246)
{
	int err;

	fprintf(out, "Contents of the SFrame section .sframe:");
	if (style246)
		header_246(out, t);
	else
		dump_header(out, t);
	/* readelf 2.46 lists the functions of versions 2 and 3 only. */
	if (style246 && t->version == 1) {
		fprintf(out, "\n No further information can be displayed.  "
			"SFrame version not supported\n");
		return SF_OK;
	}
	fprintf(out, "\n  Function Index :\n");
	for (uint32_t i = 0; i < t->num_fdes; i++)
		if ((err = dump_function(out, t, i, style246)))
			return err;
	return SF_OK;
}
