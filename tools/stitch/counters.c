#include "counters.h"

#include <inttypes.h>
#include <stddef.h>

void counters_print(FILE *f, const struct counters *c)
{
#define STITCH_COUNTER_LINE(name, text) \
	fprintf(f, "  %-22s %10" PRIu64 "  %s\n", #name, c->name, text);
	STITCH_COUNTERS(STITCH_COUNTER_LINE)
#undef STITCH_COUNTER_LINE
}

/* The counters that mean damage, and how the warning names them: %lu is
 * the count (a kind whose text has none is a yes/no). */
static const struct {
	size_t off;
	const char *text;
} damage[] = {
#define D(name, text) { offsetof(struct counters, name), text }
	D(no_stream_header, "no REC_STREAM first"),
	D(bad_magic, "bad magic"),
	D(bad_version, "unknown version"),
	D(stream_headers, "%" PRIu64 " extra REC_STREAM"),
	D(truncated, "%" PRIu64 " record(s) cut short"),
	D(bad_size, "%" PRIu64 " record(s) of bad size"),
	D(unknown_type, "%" PRIu64 " record(s) of unknown type skipped"),
	D(bad_callchain, "%" PRIu64 " bad callchain(s)"),
	D(bad_stack_copy, "%" PRIu64 " bad stack copies"),
	D(bad_string, "%" PRIu64 " unterminated string(s)"),
	D(missing_end, "no REC_END"),
	D(end_count_mismatch, "REC_END count differs from what was read"),
	D(after_end, "%" PRIu64 " record(s) after REC_END"),
#undef D
};

int counters_damage(const struct counters *c, char *buf, size_t size)
{
	int kinds = 0;
	size_t at = 0;
	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(damage) / sizeof(damage[0]); i++) {
		uint64_t n = *(const uint64_t *)((const char *)c + damage[i].off);
		if (!n)
			continue;
		if (at < size && kinds)
			at += snprintf(buf + at, size - at, ", ");
		if (at < size)
			at += snprintf(buf + at, size - at, damage[i].text, n);
		kinds++;
	}
	return kinds;
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
