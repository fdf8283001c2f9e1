/*
 * bench-unwind [--symfs DIR] [--csv FILE] [--seconds S] RECORDS.bin
 *
 * Every sample of RECORDS.bin that carries a stack copy (modes stack-copy
 * and validate) is one snapshot. Four unwinders walk all of them, one
 * after the other in this one process: our SFrame library, a frame-pointer
 * walk, libunwind and libdw (as stitch uses it). Each first walks every
 * snapshot once (its chains, compared with libdw's), then again as many
 * times as fill S seconds (default 1), timed with CLOCK_MONOTONIC: frames
 * per second. The stream is read with stitch's own reader (tools/stitch).
 * --diff lists, on stderr, every chain (but the fp walk's) that differs
 * from libdw's and where.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostunwind.h"
#include "util.h"

#define MAX_FRAMES 512 /* profile.frames of the benchmark runs */

struct unwinder {
	const char *name;
	unwinder_fn *fn;
	uint64_t frames, agree;  /* first pass: frames, chains equal to libdw's */
	uint64_t timed_frames;
	double seconds;
	unsigned rounds;
};

struct chains {
	uint64_t *ips;           /* per snapshot, MAX_FRAMES each */
	uint32_t *n;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The images of each process life, loaded once. */
struct proc_images {
	struct proc *p;
	struct image **v;
	size_t n;
};

static struct proc_images *images_of(struct proc_images **all, size_t *nall,
				     struct symbols *sy, struct proc *p)
{
	for (size_t i = 0; i < *nall; i++)
		if ((*all)[i].p == p)
			return &(*all)[i];
	*all = xrealloc(*all, (*nall + 1) * sizeof **all);
	struct proc_images *pi = &(*all)[(*nall)++];
	*pi = (struct proc_images){ .p = p, .v = xcalloc(p->nmaps + 1, sizeof *pi->v) };
	for (size_t i = 0; i < p->nmaps; i++) {
		char *path = symbols_host_path(sy, p, p->maps[i]);
		struct image *im = path ? image_load(path, p->maps[i]) : NULL;
		if (im)
			pi->v[pi->n++] = im;
		else
			fprintf(stderr, "bench-unwind: cannot use %s\n", path ? path : p->maps[i]->path);
		free(path);
	}
	return pi;
}

static size_t collect(const struct stream *s, struct procs *procs, struct symbols *sy,
		      struct snap **out, struct proc_images **all, size_t *nall)
{
	struct snap *v = NULL;
	size_t n = 0;
	for (size_t i = 0; i < s->nrecs; i++) {
		const struct sample_rec *smp = &s->recs[i].u.sample;
		if (s->recs[i].type != REC_SAMPLE || !smp->copy)
			continue;
		struct proc *p = proc_at(procs, smp->pid, smp->time);
		struct proc_images *pi = images_of(all, nall, sy, p);
		v = xrealloc(v, (n + 1) * sizeof *v);
		v[n++] = (struct snap){ .s = smp, .proc = p, .regs = smp->copy->regs,
					.stack = smp->copy->stack, .sp = smp->copy->regs[REC_REG_SP],
					.size = smp->copy->size, .images = pi->v, .nimages = pi->n };
	}
	*out = v;
	return n;
}

/* --diff: where a chain parts from libdw's, and the pcs on both sides. */
static void show_diff(const struct unwinder *u, const struct snap *sn, const uint64_t *a,
		      uint32_t na, const uint64_t *b, uint32_t nb)
{
	uint32_t k = 0;
	while (k < na && k < nb && a[k] == b[k])
		k++;
	fprintf(stderr, "%s: pid %u time %" PRIu64 ": %u frames, libdw %u; first difference at "
		"frame %u: %#" PRIx64 " vs libdw %#" PRIx64 "\n", u->name, sn->s->pid, sn->s->time,
		na, nb, k, k < na ? a[k] : 0, k < nb ? b[k] : 0);
}

static void first_pass(struct unwinder *u, const struct snap *v, size_t n, void *ctx,
		       struct chains *got, const struct chains *ref, int diff)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t *ips = got->ips + i * MAX_FRAMES;
		got->n[i] = u->fn(&v[i], ips, MAX_FRAMES, ctx);
		u->frames += got->n[i];
		if (!ref)
			continue;
		const uint64_t *want = ref->ips + i * MAX_FRAMES;
		int same = got->n[i] == ref->n[i] && !memcmp(ips, want, got->n[i] * sizeof *ips);
		u->agree += same;
		if (!same && diff)
			show_diff(u, &v[i], ips, got->n[i], want, ref->n[i]);
	}
}

static void timed(struct unwinder *u, const struct snap *v, size_t n, void *ctx, double want)
{
	uint64_t *ips = xcalloc(MAX_FRAMES, sizeof *ips);
	double t0 = now(), t;
	do {
		for (size_t i = 0; i < n; i++)
			u->timed_frames += u->fn(&v[i], ips, MAX_FRAMES, ctx);
		u->rounds++;
	} while ((t = now() - t0) < want);
	u->seconds = t;
	free(ips);
}

static void report(FILE *f, const struct unwinder *us, size_t nu, size_t n, int csv)
{
	if (csv)
		fputs("unwinder,snapshots,frames_per_snapshot,agree_with_libdw_pct,"
		      "rounds,seconds,frames_per_second\n", f);
	else
		fprintf(f, "%-10s %10s %13s %11s %7s %8s %14s\n", "unwinder", "snapshots",
			"frames/snap", "= libdw %", "rounds", "seconds", "frames/s");
	for (size_t i = 0; i < nu; i++) {
		const struct unwinder *u = &us[i];
		double per = n ? (double)u->frames / (double)n : 0;
		double agree = n ? 100.0 * (double)u->agree / (double)n : 0;
		double fps = u->seconds > 0 ? (double)u->timed_frames / u->seconds : 0;
		fprintf(f, csv ? "%s,%zu,%.2f,%.2f,%u,%.3f,%.0f\n" :
				 "%-10s %10zu %13.2f %11.2f %7u %8.3f %14.0f\n",
			u->name, n, per, agree, u->rounds, u->seconds, fps);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "symfs", required_argument, NULL, 's' },
		{ "csv", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 't' },
		{ "diff", no_argument, NULL, 'd' },
		{ 0 },
	};
	const char *symfs = NULL, *csv = NULL;
	double want = 1.0;
	int ch, diff = 0;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': symfs = optarg; break;
		case 'c': csv = optarg; break;
		case 't': want = atof(optarg); break;
		case 'd': diff = 1; break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || !(want > 0)) {
usage:
		fputs("usage: bench-unwind [--symfs DIR] [--csv FILE] [--seconds S] [--diff] RECORDS.bin\n",
		      stderr);
		return 2;
	}
	unsetenv("DEBUGINFOD_URLS");
	elf_version(EV_CURRENT);

	size_t len;
	uint8_t *buf = read_file(argv[optind], &len);
	if (!buf)
		die("cannot open %s", argv[optind]);
	struct counters c = { 0 };
	struct stream s;
	struct procs procs;
	struct symbols sy;
	stream_parse(&s, buf, len, &c);
	procs_build(&procs, &s);
	symbols_init(&sy, &procs, symfs, NULL, &c);

	struct snap *v;
	struct proc_images *all = NULL;
	size_t nall = 0, n = collect(&s, &procs, &sy, &v, &all, &nall);
	if (!n) {
		fprintf(stderr, "bench-unwind: %s has no stack copies (a stack-copy or validate run has)\n",
			argv[optind]);
		return 1;
	}
	libunwind_init();
	struct unwinder us[] = {
		{ .name = "libdw", .fn = unwind_libdw }, { .name = "sframe", .fn = unwind_sframe },
		{ .name = "fp", .fn = unwind_fp }, { .name = "libunwind", .fn = unwind_libunwind },
	};
	size_t nu = sizeof us / sizeof us[0];
	struct chains ref = { xcalloc(n * MAX_FRAMES, 8), xcalloc(n, 4) };
	struct chains got = { xcalloc(n * MAX_FRAMES, 8), xcalloc(n, 4) };
	/* libdw first: its chains are the reference the others are held to. */
	first_pass(&us[0], v, n, &sy, &ref, NULL, 0);
	us[0].agree = n;
	for (size_t i = 1; i < nu; i++)
		first_pass(&us[i], v, n, &sy, &got, &ref, diff && strcmp(us[i].name, "fp"));
	for (size_t i = 0; i < nu; i++)
		timed(&us[i], v, n, &sy, want);

	report(stdout, us, nu, n, 0);
	if (csv) {
		FILE *f = fopen(csv, "w");
		if (!f)
			die("cannot write %s", csv);
		report(f, us, nu, n, 1);
		if (fclose(f))
			die("cannot write %s", csv);
	}
	libunwind_fini();
	for (size_t i = 0; i < nall; i++) {
		for (size_t j = 0; j < all[i].n; j++)
			image_free(all[i].v[j]);
		free(all[i].v);
	}
	free(all);
	free(v);
	free(ref.ips), free(ref.n), free(got.ips), free(got.n);
	symbols_free(&sy);
	procs_free(&procs);
	stream_free(&s);
	free(buf);
	return 0;
}
