#include "counters.h"

#include <inttypes.h>

void counters_print(FILE *f, const struct counters *c)
{
#define STITCH_COUNTER_LINE(name, text) \
	fprintf(f, "  %-22s %10" PRIu64 "  %s\n", #name, c->name, text);
	STITCH_COUNTERS(STITCH_COUNTER_LINE)
#undef STITCH_COUNTER_LINE
}

void json_counters(FILE *f, const struct counters *c)
{
	fputs("\"stitch\":{", f);
	int first = 1;
#define STITCH_COUNTER_JSON(name, text) \
	fprintf(f, "%s\"" #name "\":%" PRIu64, first ? "" : ",", c->name); \
	first = 0;
	STITCH_COUNTERS(STITCH_COUNTER_JSON)
#undef STITCH_COUNTER_JSON
	fputc('}', f);
}
