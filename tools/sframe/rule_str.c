#include "rule_str.h"

#include <stdio.h>

static void where_str(const struct sf_where *w, char *buf, size_t n)
{
	switch (w->how) {
	case SF_SAME:      snprintf(buf, n, "same"); return;
	case SF_UNDEFINED: snprintf(buf, n, "undefined"); return;
	case SF_AT_CFA:    snprintf(buf, n, "[cfa%+d]", w->off); return;
	case SF_VAL_CFA:   snprintf(buf, n, "cfa%+d", w->off); return;
	case SF_REG:       snprintf(buf, n, "r%u%+d", w->reg, w->off); return;
	case SF_AT_REG:    snprintf(buf, n, "[r%u%+d]", w->reg, w->off); return;
	}
	snprintf(buf, n, "?");
}

void sf_rule_str(const struct sf_rule *r, char *buf, size_t n)
{
	char ra[32], fp[32];

	where_str(&r->ra, ra, sizeof ra);
	where_str(&r->fp, fp, sizeof fp);
	snprintf(buf, n, "cfa=%sr%u%+d%s ra=%s fp=%s", r->cfa_deref ? "[" : "",
		 r->cfa_reg, r->cfa_off, r->cfa_deref ? "]" : "", ra, fp);
}
