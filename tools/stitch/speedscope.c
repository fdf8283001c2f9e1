/*
 * profile.speedscope.json: speedscope's file format (its published
 * schema, https://www.speedscope.app/file-format-schema.json): shared
 * frames, and one "sampled" profile per process whose samples list frame
 * indices from the root to the leaf, weighted by their period in ns.
 * Frames are functions (name, kernel or not, object), named as in the
 * folded file.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "output.h"
#include "util.h"

struct frames {
	struct hmap index;        /* (name, module | kernel) -> position + 1 */
	const struct frame **v;
	size_t n;
};

static size_t frame_index(struct frames *fs, const struct frame *fr)
{
	uint64_t a = (uint64_t)(uintptr_t)fr->name;
	uint64_t b = (uint64_t)(uintptr_t)fr->module | (uint64_t)fr->kernel;
	uintptr_t i = (uintptr_t)hmap_get(&fs->index, a, b);
	if (i)
		return i - 1;
	fs->v = xrealloc(fs->v, (fs->n + 1) * sizeof *fs->v);
	fs->v[fs->n] = fr;
	hmap_put(&fs->index, a, b, (void *)(uintptr_t)(fs->n + 1));
	return fs->n++;
}

/* One process's profile; its frames are added to fs as they are met. */
static void profile(FILE *f, const struct run *r, struct proc *p, struct frames *fs,
		    const struct frame ***buf, size_t *cap)
{
	uint64_t total = 0;
	int first = 1;
	fputs("{\"type\":\"sampled\",\"name\":", f);
	char *name = xasprintf("%s (pid %u)", p->comm, p->pid);
	json_str(f, name);
	free(name);
	fputs(",\"unit\":\"nanoseconds\",\"startValue\":0,\"samples\":[", f);
	for (size_t i = 0; i < r->st->n; i++) {
		const struct stack *k = &r->st->v[i];
		if (k->proc != p || !in_view(r, k))
			continue;
		uint32_t n = stack_frames(k, r->sy, buf, cap);
		fputs(first ? "[" : ",[", f);
		first = 0;
		for (uint32_t j = n; j-- > 0;)
			fprintf(f, "%zu%s", frame_index(fs, (*buf)[j]), j ? "," : "");
		fputc(']', f);
	}
	fputs("],\"weights\":[", f);
	first = 1;
	for (size_t i = 0; i < r->st->n; i++) {
		const struct stack *k = &r->st->v[i];
		if (k->proc != p || !in_view(r, k))
			continue;
		fprintf(f, "%s%" PRIu64, first ? "" : ",", k->s->period);
		first = 0;
		total += k->s->period;
	}
	fprintf(f, "],\"endValue\":%" PRIu64 "}", total);
}

static int has_samples(const struct run *r, const struct proc *p)
{
	for (size_t i = 0; i < r->st->n; i++)
		if (r->st->v[i].proc == p && in_view(r, &r->st->v[i]))
			return 1;
	return 0;
}

void write_speedscope(FILE *f, const struct run *r)
{
	struct frames fs = { 0 };
	const struct frame **buf = NULL;
	size_t cap = 0;
	int first = 1;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"name\":", f);
	json_str(f, r->records_path);
	fputs(",\"exporter\":\"stitch\",\"activeProfileIndex\":0,\"profiles\":[", f);
	for (size_t i = 0; i < r->procs->n; i++) {
		if (!has_samples(r, r->procs->v[i]))
			continue;
		fputs(first ? "\n" : ",\n", f);
		first = 0;
		profile(f, r, r->procs->v[i], &fs, &buf, &cap);
	}
	/* The frames last: only now are they all known. */
	fputs("],\n\"shared\":{\"frames\":[", f);
	for (size_t i = 0; i < fs.n; i++) {
		char label[512];
		snprintf(label, sizeof label, "%s%s", fs.v[i]->name, fs.v[i]->kernel ? "_[k]" : "");
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", f);
		json_str(f, label);
		if (fs.v[i]->file || fs.v[i]->module) {
			fputs(",\"file\":", f);
			json_str(f, fs.v[i]->file ? fs.v[i]->file : fs.v[i]->module);
		}
		fputc('}', f);
	}
	fputs("]}}\n", f);
	free(buf);
	free(fs.v);
	hmap_free(&fs.index, NULL);
}
