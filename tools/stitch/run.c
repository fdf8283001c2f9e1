#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output.h"
#include "util.h"

typedef void writer_fn(FILE *, const struct run *);

/* "-" is standard output. */
static int write_path(const char *path, writer_fn *fn, const struct run *r)
{
	if (!strcmp(path, "-")) {
		fn(stdout, r);
		return fflush(stdout) ? -1 : 0;
	}
	FILE *f = fopen(path, "w");
	int err = !f;
	if (f) {
		fn(f, r);
		err = ferror(f) | (fclose(f) != 0);
	}
	if (err)
		fprintf(stderr, "stitch: cannot write %s: %s\n", path, strerror(errno));
	return err ? -1 : 0;
}

static int write_file(const char *dir, const char *name, writer_fn *fn, const struct run *r)
{
	char *path = xasprintf("%s/%s", dir, name);
	int err = write_path(path, fn, r);
	free(path);
	return err;
}

/* records.bin travels with the outputs, so the run can be redone from them. */
static int copy_records(const struct options *o, const uint8_t *buf, size_t len)
{
	char *path = xasprintf("%s/records.bin", o->outdir);
	struct stat a, b;
	int err = 0;
	if (!o->input || stat(o->input, &a) || stat(path, &b) ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		FILE *f = fopen(path, "wb");
		err = !f || fwrite(buf, 1, len, f) != len;
		if (f && fclose(f))
			err = 1;
		if (err)
			fprintf(stderr, "stitch: cannot write %s: %s\n", path, strerror(errno));
	}
	free(path);
	return err ? -1 : 0;
}

/* The perf command that reads perf.data with the guest's binaries. */
static void perf_hint(const struct options *o, const struct run *r)
{
	char kernel[PATH_MAX];
	struct proc *kp = &r->procs->kernel;
	char *k = o->kernel ? xstrdup(o->kernel) :
		  kp->nmaps ? symbols_host_path(r->sy, kp, kp->maps[0]) : NULL;
	/* perf shows 127 frames unless told (kernel.perf_event_max_stack):
	 * ask for the longest chain, so that it shows every frame stitch does. */
	uint64_t depth = perf_max_chain(r);
	fprintf(o->out, "perf report -i %s/perf.data --stdio --max-stack %" PRIu64,
		o->outdir, depth > 127 ? depth : 127);
	if (o->symfs)
		fprintf(o->out, " --symfs %s", o->symfs);
	/* perf joins a relative --vmlinux with --symfs: give it an absolute one */
	if (k && realpath(k, kernel))
		fprintf(o->out, " --vmlinux %s", kernel);
	fputc('\n', o->out);
	free(k);
}

/* Validate mode's verdict: how many samples' two user chains agree. */
static void validate_verdict(FILE *f, const struct run *r)
{
	const struct counters *c = r->c;
	uint32_t mode = r->stream->head.mode;
	if (mode != MODE_VALIDATE && mode != MODE_VALIDATE_EH && !c->validate_samples)
		return;
	fprintf(f, "%s: %" PRIu64 " of %" PRIu64 " samples agree (the deferred %s "
		"chain and libdw's from the stack copy",
		mode == MODE_VALIDATE_EH ? "validate-eh" : "validate", c->validate_agree,
		c->validate_samples, mode == MODE_VALIDATE_EH ? ".eh_frame" : "SFrame");
	if (c->validate_disagree)
		fprintf(f, "; %" PRIu64 " differ only where the stack copy ended, %" PRIu64
			" for a word below sp; report.txt lists those that differ",
			c->validate_copy_short, c->validate_copy_below);
	fprintf(f, ")\n");
}

/*
 * In the frame-pointer modes, a program built without frame pointers
 * (the SDK's default, like newlib's) gives user stacks of one frame: the
 * sampled pc, then rbp leads nowhere. With frame pointers even a sample in
 * main has its caller. Most user stacks of one frame: say so, and how to
 * build with them.
 */
static void fp_warning(FILE *f, const struct run *r)
{
	uint32_t mode = r->stream->head.mode;
	uint64_t stacks = 0, one = 0;
	if (mode != MODE_FP && mode != MODE_FP_DEFERRED)
		return;
	for (size_t i = 0; i < r->st->n; i++) {
		const struct stack *k = &r->st->v[i];
		if (k->user != USER_INLINE && k->user != USER_DEFERRED)
			continue;
		stacks++;
		one += k->nu == 1;
	}
	if (!stacks || one * 2 <= stacks)
		return;
	fprintf(f, "stitch: warning: %" PRIu64 " of %" PRIu64 " user stacks have one frame in "
		"mode %s: the program seems built without frame pointers; build it with "
		"-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer (make run: "
		"APP_CFLAGS=\"-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer\"), "
		"or use MODE=sframe\n", one, stacks, mode_name(mode));
}

static int write_outputs(const struct options *o, const struct run *r,
			 const uint8_t *buf, size_t len)
{
	int err = 0;
	if (mkdir(o->outdir, 0777) && errno != EEXIST) {
		fprintf(stderr, "stitch: cannot create %s: %s\n", o->outdir, strerror(errno));
		return -1;
	}
	err |= write_file(o->outdir, "report.txt", write_report, r);
	err |= write_file(o->outdir, "profile.folded", write_folded, r);
	err |= write_file(o->outdir, "flame.svg", write_flame, r);
	err |= write_file(o->outdir, "profile.speedscope.json", write_speedscope, r);
	char *perf = xasprintf("%s/perf.data", o->outdir);
	if (write_perf_data(perf, r)) {
		fprintf(stderr, "stitch: cannot write %s\n", perf);
		err = -1;
	}
	free(perf);
	err |= copy_records(o, buf, len);

	const struct counters *c = r->c;
	char damage[256];
	fprintf(o->out, "stitch: %" PRIu64 " samples, %" PRIu64 " stitched, %" PRIu64
		" missing their user stack; ", c->samples, c->samples_stitched, c->samples_missing);
	if (counters_damage(c, damage, sizeof damage))
		fprintf(o->out, "WARNING: damaged stream (%s), what could be read was used; ", damage);
	fprintf(o->out, "wrote %s/{report.txt,profile.folded,flame.svg,"
		"perf.data,records.bin,profile.speedscope.json}\n", o->outdir);
	if (idle_left_out(r))
		fprintf(o->out, "stitch: %" PRIu64 " idle samples (pid 0 in the kernel's idle loop) left "
			"out of report.txt's processes, profile.folded, flame.svg and speedscope; "
			"--idle keeps them (perf.data has them)\n", idle_left_out(r));
	validate_verdict(o->out, r);
	fp_warning(o->out, r);
	perf_hint(o, r);
	return err ? -1 : 0;
}

/* --from, or by default the stream's samples when it has any, else the
 * stack map's counts when it has some. */
static int from_map(const struct options *o, const struct stream *s)
{
	int samples = 0, counts = 0;
	if (o->from)
		return !strcmp(o->from, "map");
	for (size_t i = 0; i < s->nrecs; i++) {
		samples |= s->recs[i].type == REC_SAMPLE &&
			   s->recs[i].u.sample.event == SAMPLE_EVENT_CPU_CLOCK;
		counts |= s->recs[i].type == REC_MAP_COUNTS;
	}
	return !samples && counts;
}

int run_stitch(const struct options *o, const uint8_t *buf, size_t len,
	       struct counters *c)
{
	struct stream s;
	struct procs procs;
	struct symbols sy;
	struct stitch st = { 0 };
	int err = 0;

	stream_parse(&s, buf, len, c);
	procs_build(&procs, &s);
	symbols_init(&sy, &procs, o->symfs, o->kernel, c);
	struct run r = { &s, &procs, &sy, &st, c, o->input ? o->input : "-", o->idle };

	if (o->records_json) {
		err |= write_path(o->records_json, write_records_json, &r);
	} else if (o->no_stitch) {
		write_raw(o->out, &r);
	} else {
		if (from_map(o, &s))
			stackmap_stitch(&st, &s, &procs, &sy, c);
		else
			stitch_run(&st, &s, &procs, &sy, c);
		if (o->stats)
			err |= write_path(o->stats, write_stats, &r);
		if (o->outdir)
			err |= write_outputs(o, &r, buf, len);
		else if (!o->stats)
			write_script(o->out, &r);
	}
	stitch_free(&st);
	symbols_free(&sy);
	procs_free(&procs);
	stream_free(&s);
	return err;
}
