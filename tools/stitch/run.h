/* One run of stitch over a stream in memory: what main() and the tests call. */
#ifndef STITCH_RUN_H
#define STITCH_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "counters.h"

struct options {
	const char *input;  /* the records file (named in outputs, copied to -o) */
	const char *symfs;  /* --symfs: host root of the guest paths */
	const char *kernel; /* --kernel: the kernel ELF */
	const char *outdir; /* -o: write the output files there */
	int no_stitch;      /* --no-stitch: list the records as they came */
	const char *stats;  /* --stats: write the run's numbers as JSON there */
	const char *records_json; /* --records-json: every record as JSON there */
	int idle;           /* --idle: keep the idle samples in the profile */
	const char *from;   /* --from stream|map: whose samples (NULL: the
			     * stream's, or the map's if it has none) */
	FILE *out;          /* listings and the summary go here */
};

/* Returns 0, or -1 if an output file could not be written. A damaged
 * stream is not an error here: it is counted in c (counters_damage). */
int run_stitch(const struct options *o, const uint8_t *buf, size_t len,
	       struct counters *c);

#endif
