/*
 * stitch: read a Stitch record stream, stitch the deferred user callchains
 * onto their samples, symbolize, and write the profile. See docs/STITCH.md.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "util.h"

/* Exit statuses (docs/STITCH.md). die() exits with EXIT_USAGE too. */
enum {
	EXIT_OUTPUT = 1,  /* an output file could not be written */
	EXIT_USAGE = 2,   /* a bad command line, an unreadable input */
	EXIT_DAMAGED = 3, /* the stream was cut or corrupt: outputs written
			   * from what could be read, the damage named */
};

static const char usage[] =
	"usage: stitch [options] RECORDS.bin\n"
	"  --symfs DIR     host directory where the guest's paths (/bin/prog) are found\n"
	"  --kernel FILE   the kernel ELF (default: the kernel mapping's path under --symfs)\n"
	"  -o DIR          write report.txt, profile.folded, flame.svg,\n"
	"                  profile.speedscope.json, perf.data and records.bin there\n"
	"                  (default: print the stitched samples)\n"
	"  --no-stitch     print the records as they came, deferred markers and cookies\n"
	"                  shown (like perf script --no-merge-callchains)\n"
	"  --stats FILE    write the run's numbers (records, bytes, counters, how samples\n"
	"                  got their user stacks, processes) as JSON to FILE; the\n"
	"                  samples are not printed then (-o still writes its files)\n"
	"  --records-json FILE  write every record, parsed, as JSON to FILE (- for\n"
	"                  standard output) and do nothing else\n"
	"  --from stream|map  whose samples make the profile: the stream's records,\n"
	"                  or the stack map's counts (profile.consumer=map|both);\n"
	"                  default: the stream's if it has any, else the map's\n"
	"  --idle          keep the idle samples (pid 0 in the kernel's idle loop) in\n"
	"                  report.txt, profile.folded, flame.svg and speedscope (by\n"
	"                  default they are counted and left out; perf.data has them)\n"
	"exit status: 0 done, 1 an output could not be written, 2 bad usage or\n"
	"unreadable input, 3 the stream was damaged (what could be read was used)\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "symfs", required_argument, NULL, 's' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "no-stitch", no_argument, NULL, 'n' },
		{ "stats", required_argument, NULL, 'S' },
		{ "records-json", required_argument, NULL, 'J' },
		{ "idle", no_argument, NULL, 'i' },
		{ "from", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct options o = { .out = stdout };
	int ch;
	while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': o.symfs = optarg; break;
		case 'k': o.kernel = optarg; break;
		case 'o': o.outdir = optarg; break;
		case 'n': o.no_stitch = 1; break;
		case 'S': o.stats = optarg; break;
		case 'J': o.records_json = optarg; break;
		case 'i': o.idle = 1; break;
		case 'f':
			if (strcmp(optarg, "stream") && strcmp(optarg, "map"))
				die("--from %s: stream or map", optarg);
			o.from = optarg;
			break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	/* An offline tool: never ask debuginfod servers for the guest's files. */
	unsetenv("DEBUGINFOD_URLS");

	o.input = argv[optind];
	size_t len;
	uint8_t *buf = read_file(o.input, &len);
	if (!buf)
		die("cannot open %s", o.input);
	struct counters c = { 0 };
	int err = run_stitch(&o, buf, len, &c);
	free(buf);
	if (err)
		return EXIT_OUTPUT;
	char damage[256];
	if (counters_damage(&c, damage, sizeof damage)) {
		fprintf(stderr, "stitch: warning: damaged stream %s (%s): what could be "
			"read was used\n", o.input, damage);
		return EXIT_DAMAGED;
	}
	return 0;
}
