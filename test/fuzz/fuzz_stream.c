/*
 * libFuzzer target: stitch's reader and everything behind it, on a hostile
 * record stream. Coverage-guided, where test/stitch/fuzz-stream.c walks the
 * fixed set of cuts and one-byte corruptions of one stream: both run the
 * same entry point, run_stitch(), with ASan and UBSan.
 *
 * Each input runs twice: as a raw listing (--no-stitch: every record the
 * reader accepted) and stitched (procs, cookies, the perf-script listing).
 * No symbol files, so that an input costs microseconds, not a libdw
 * session. Checked besides the sanitizers: a stream without REC_END, or
 * one that is cut, is counted as such.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "stitch/records.h"

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sink = fopen("/dev/null", "w");
	return sink ? 0 : -1;
}

static void check_counted(const uint8_t *data, size_t size, const struct counters *c)
{
	/* A stream whose last 8 bytes are no REC_END header cannot be whole. */
	struct rec_header h = { 0 };
	if (size >= sizeof(struct rec_end))
		memcpy(&h, data + size - sizeof(struct rec_end), sizeof h);
	if (h.type != REC_END || h.size != sizeof(struct rec_end)) {
		if (!(c->missing_end || c->truncated || c->no_stream_header ||
		      c->bad_size || c->after_end)) {
			fprintf(stderr, "fuzz: a stream without REC_END went uncounted\n");
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct options raw = { .input = "fuzz", .no_stitch = 1, .out = sink };
	struct options stitched = { .input = "fuzz", .out = sink };
	struct counters c1 = { 0 }, c2 = { 0 };

	run_stitch(&raw, data, size, &c1);
	run_stitch(&stitched, data, size, &c2);
	check_counted(data, size, &c2);
	/* The reader is the same for both: it must have counted the same. */
	if (c1.records != c2.records || c1.truncated != c2.truncated ||
	    c1.bad_size != c2.bad_size || c1.missing_end != c2.missing_end ||
	    c1.after_end != c2.after_end) {
		fprintf(stderr, "fuzz: the two runs read the stream differently\n");
		abort();
	}
	return 0;
}
