/*
 * libFuzzer target: stitch's reader and everything behind it, on a hostile
 * record stream. Coverage-guided, where test/stitch/fuzz-stream.c walks the
 * fixed set of cuts and one-byte corruptions of one stream: both run the
 * same entry point, run_stitch(), with ASan and UBSan.
 *
 * Each input runs twice: as a raw listing (--no-stitch: every record the
 * reader accepted) and stitched (procs, cookies, the perf-script listing).
 * No symbol files, so that an input costs microseconds, not a libdw
 * session. Checked besides the sanitizers: a stream whose records do not
 * tile the input up to a final REC_END (cut, corrupt, no REC_END) is
 * counted as damaged.
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

/*
 * The oracle, independent of the reader: from where the reader found
 * REC_STREAM, record headers must lead exactly to the end of the input,
 * the last one a REC_END. (Not "the last 24 bytes are a REC_END": a
 * REC_END may be longer than its struct, and the reader accepts it.)
 */
static int whole(const uint8_t *data, size_t size, size_t off)
{
	uint32_t last = 0;
	while (size - off >= sizeof(struct rec_header)) {
		struct rec_header h;
		memcpy(&h, data + off, sizeof h);
		if (h.size < sizeof h || h.size % 8 || h.size > size - off)
			return 0;
		last = h.type;
		off += h.size;
	}
	return off == size && last == REC_END;
}

static void check_counted(const uint8_t *data, size_t size, const struct counters *c)
{
	if (!whole(data, size, c->junk_bytes) && !counters_damage(c, NULL, 0)) {
		fprintf(stderr, "fuzz: a damaged stream went uncounted\n");
		abort();
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
