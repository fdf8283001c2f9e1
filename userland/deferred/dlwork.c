/*
 * dlwork [rounds]: loads /lib/libdeep.so with the user-space loader
 * (<stitch_dl.h>), which registers the object's .sframe, and runs code in
 * it in two phases:
 *
 *   registered     main -> dlwork_phase -> deep_run -> deep_mid ->
 *                  deep_leaf (in the object) or dlwork_callback (here):
 *                  every deferred unwind walks through the object's frames
 *   unregistered   the same after dl_unregister(): the object's pcs have
 *                  no SFrame entry, the unwinder falls back to the frame
 *                  pointer (counted) and, without frame pointers, stops
 *
 * then unloads it (dl_close: nothing registered, nothing mapped). The
 * stacktrace_setup(REMOVE) call between the phases is the boundary a test
 * sees (trace.syscalls=stacktrace_setup). Prints "dlwork: rounds=R
 * result=X calls=C".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stitch.h>
#include <stitch_dl.h>
#include "../workloads/workload.h"

typedef uint64_t (*run_fn)(uint64_t rounds, uint64_t (*callback)(uint64_t));

FRAME static uint64_t dlwork_callback(uint64_t x)
{
	for (int i = 0; i < 2048; i++)
		x = (x ^ (x >> 7)) * 0x9e3779b97f4a7c15ULL;
	return x;
}

/* Work after the call: no tail call, so this frame stays on the stack. */
FRAME static uint64_t dlwork_phase(run_fn run, uint64_t rounds)
{
	return run(rounds, dlwork_callback) ^ rounds;
}

int main(int argc, char **argv)
{
	long rounds = arg_long(argc, argv, 1, 2000, 1, 100000000);
	struct dl_object *o = dl_open("/lib/libdeep.so");
	if (!o) {
		printf("dlwork: dl_open: %s\n", strerror(errno));
		return 1;
	}
	run_fn run = (run_fn)dl_sym(o, "deep_run");
	uint64_t *calls = dl_sym(o, "deep_calls");
	if (!run || !calls) {
		printf("dlwork: deep_run or deep_calls missing\n");
		return 1;
	}
	uint64_t x = dlwork_phase(run, (uint64_t)rounds);
	if (dl_unregister(o)) {
		printf("dlwork: dl_unregister: %s\n", strerror(errno));
		return 1;
	}
	x += dlwork_phase(run, (uint64_t)rounds);
	printf("dlwork: rounds=%ld result=%llu calls=%llu\n", rounds,
	       (unsigned long long)x, (unsigned long long)*calls);
	return dl_close(o) ? 1 : 0;
}
