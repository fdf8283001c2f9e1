#include "counters.h"

#include <inttypes.h>

void counters_print(FILE *f, const struct counters *c)
{
#define STITCH_COUNTER_LINE(name, text) \
	fprintf(f, "  %-22s %10" PRIu64 "  %s\n", #name, c->name, text);
	STITCH_COUNTERS(STITCH_COUNTER_LINE)
#undef STITCH_COUNTER_LINE
}
