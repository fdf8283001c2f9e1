/*
 * Every anomaly stitch meets is counted here, never silently dropped.
 * The X-macro keeps the names printed in report.txt, the descriptions and
 * the struct fields in one list.
 */
#ifndef STITCH_COUNTERS_H
#define STITCH_COUNTERS_H

#include <stdint.h>
#include <stdio.h>

#define STITCH_COUNTERS(X) \
	X(records,            "records read") \
	X(junk_bytes,         "bytes before REC_STREAM, skipped (firmware text on the serial line)") \
	X(no_stream_header,   "stream does not start with REC_STREAM") \
	X(bad_magic,          "REC_STREAM with a wrong magic") \
	X(bad_version,        "REC_STREAM with an unknown version") \
	X(stream_headers,     "REC_STREAM records after the first") \
	X(truncated,          "records cut short by the end of the stream") \
	X(bad_size,           "record sizes below the type's minimum or not a multiple of 8") \
	X(unknown_type,       "records of unknown type, skipped") \
	X(bad_callchain,      "callchains whose nr overruns the record or with misplaced markers") \
	X(bad_stack_copy,     "stack copies that overrun their record") \
	X(bad_string,         "names or paths without a terminating NUL") \
	X(missing_end,        "streams without REC_END") \
	X(end_count_mismatch, "REC_END whose record count differs from what was read") \
	X(after_end,          "records after REC_END") \
	X(lost,               "records the kernel dropped (sum of REC_LOST)") \
	X(samples,            "samples") \
	X(samples_ip_only,    "samples without a callchain: their ip stands for the stack") \
	X(samples_deferred,   "samples whose callchain ends with USER_DEFERRED") \
	X(samples_stitched,   "samples given the user callchain of their deferred record") \
	X(samples_missing,    "samples whose deferred record never arrived") \
	X(samples_idle,       "idle samples (pid 0 in sched_idle_loop): out of the profile without --idle") \
	X(deferred,           "deferred callchain records") \
	X(deferred_duplicate, "deferred records repeating a (tid, cookie, consumer) already seen") \
	X(deferred_orphan,    "deferred records that no sample asked for") \
	X(deferred_incomplete,"deferred records whose unwind stopped before the outermost frame") \
	X(cookie_zero,        "samples or deferred records with cookie 0") \
	X(stack_copies,       "samples carrying a user stack copy") \
	X(stack_unwound,      "stack copies unwound by libdw") \
	X(stack_unwind_failed,"stack copies libdw could not unwind past the first frame") \
	X(validate_samples,   "validate: samples with both a deferred chain and a stack copy") \
	X(validate_agree,     "validate: samples where both chains are identical") \
	X(validate_disagree,  "validate: samples where the chains differ") \
	X(validate_copy_short,"validate: of those, libdw's chain a prefix of the deferred one, cut where the stack copy ended") \
	X(validate_copy_below,"validate: of those, libdw's chain a prefix of the deferred one, cut for a word below sp (the red zone) the copy does not hold") \
	X(perf_too_long,      "samples too deep for a perf.data record, left out of perf.data") \
	X(build_id_mismatch,  "mapped files whose build id is not the stream's: not used") \
	X(missing_files,      "mapped files not found under --symfs, or not usable") \
	X(frames,             "distinct addresses symbolized") \
	X(frames_unmapped,    "distinct addresses outside every known mapping") \
	X(frames_no_symbol,   "distinct addresses in a mapping but without a symbol")

struct counters {
#define STITCH_COUNTER_FIELD(name, text) uint64_t name;
	STITCH_COUNTERS(STITCH_COUNTER_FIELD)
#undef STITCH_COUNTER_FIELD
};

/* One line per counter: name, value, description. */
void counters_print(FILE *f, const struct counters *c);
/* "stitch":{"records":N,...}: every counter, as a JSON member. */
void json_counters(FILE *f, const struct counters *c);

/*
 * Whether the stream itself was damaged (cut, corrupt, records skipped),
 * as opposed to losses the kernel counted in a whole stream. Writes what
 * was cut or skipped, in words, to buf ("2 records cut short, no
 * REC_END"); returns the number of kinds of damage, 0 for a whole stream.
 */
int counters_damage(const struct counters *c, char *buf, size_t size);

#endif
