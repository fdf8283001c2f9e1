/*
 * Runs the whole of stitch (reader, stitcher, symbols, unwinder, every
 * writer) in one process over damaged versions of a good stream, built
 * with ASan and UBSan so that any out-of-bounds access or undefined
 * behaviour aborts. Damage: every prefix (the stream cut at each byte),
 * and every byte replaced by 0xff, then by 0x00.
 *
 *   fuzz-stream STREAM SYMFS KERNEL OUTDIR
 *
 * Prints one line per kind of damage: how many runs, and how many of the
 * cut streams were counted as anomalous (truncated, no REC_END, ...).
 * Exits non-zero if a cut stream went uncounted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	uint8_t *buf = malloc(*len);
	if (!buf || fread(buf, 1, *len, f) != *len) {
		perror(path);
		exit(2);
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s STREAM SYMFS KERNEL OUTDIR\n", argv[0]);
		return 2;
	}
	size_t len;
	uint8_t *good = read_file(argv[1], &len);
	FILE *sink = fopen("/dev/null", "w");
	struct options o = { .input = "fuzz", .symfs = argv[2], .kernel = argv[3],
			     .outdir = argv[4], .out = sink };
	size_t uncounted = 0;

	for (size_t cut = 0; cut < len; cut++) {
		/* A copy of exactly `cut` bytes: ASan sees any read past it. */
		uint8_t *b = malloc(cut ? cut : 1);
		memcpy(b, good, cut);
		struct counters c = { 0 };
		run_stitch(&o, b, cut, &c);
		if (!counters_damage(&c, NULL, 0)) { /* a cut stream is damaged */
			uncounted++;
			fprintf(stderr, "cut at %zu: no anomaly counted\n", cut);
		}
		free(b);
	}
	printf("prefixes %zu uncounted %zu\n", len, uncounted);

	static const uint8_t fill[] = { 0xff, 0x00 };
	for (size_t k = 0; k < sizeof fill; k++) {
		uint8_t *b = malloc(len);
		for (size_t at = 0; at < len; at++) {
			memcpy(b, good, len);
			b[at] = fill[k];
			struct counters c = { 0 };
			run_stitch(&o, b, len, &c);
		}
		free(b);
		printf("corrupted-%#x %zu\n", fill[k], len);
	}
	fclose(sink);
	free(good);
	return uncounted ? 1 : 0;
}
