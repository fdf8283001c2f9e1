/*
 * The writers. Each takes the stitched stacks (and the symbols to name
 * their frames) and writes one output format.
 */
#ifndef STITCH_OUTPUT_H
#define STITCH_OUTPUT_H

#include <stdio.h>

#include "stitch.h"

/* Everything a writer may need about one run. */
struct run {
	const struct stream *stream;
	struct procs *procs;
	struct symbols *sy;
	struct stitch *st;
	struct counters *c;
	const char *records_path; /* the input, for the record of how to redo */
	int keep_idle;            /* --idle: idle samples stay in the profile */
};

/* script.c: samples as perf script prints them, stitched or as recorded. */
void write_script(FILE *f, const struct run *r);
void write_raw(FILE *f, const struct run *r);
/* report.c: report.txt */
void write_report(FILE *f, const struct run *r);
/* folded.c: Brendan Gregg's folded stacks */
void write_folded(FILE *f, const struct run *r);
/* flame.c: a self-contained SVG flame graph */
void write_flame(FILE *f, const struct run *r);
/* speedscope.c: speedscope's JSON file format */
void write_speedscope(FILE *f, const struct run *r);
/* stats.c: the run in numbers, as JSON (--stats) */
void write_stats(FILE *f, const struct run *r);
/* records_json.c: every record, parsed, as JSON (--records-json) */
void write_records_json(FILE *f, const struct run *r);
/* perfdata.c: a perf.data file perf 6.1 reads; 0 on success */
int write_perf_data(const char *path, const struct run *r);
/* The longest callchain written there (entries, context markers included):
 * what perf report's --max-stack needs to show every frame. */
uint64_t perf_max_chain(const struct run *r);

/* Helpers shared by the writers (script.c). */
uint64_t time_ns(const struct run *r, uint64_t ticks);
const char *event_name(const struct sample_rec *s);
/* The comm of a stack's process. */
const char *stack_comm(const struct stack *k);
/* Only cpu-clock samples make up the profile; syscall samples are counted apart. */
int in_profile(const struct stack *k);
/* What report.txt's sections, the folded stacks, the flame graph and
 * speedscope show: the profile, less the idle samples unless --idle. */
int in_view(const struct run *r, const struct stack *k);
/* How many idle samples the view leaves out (0 with --idle). */
uint64_t idle_left_out(const struct run *r);

#endif
