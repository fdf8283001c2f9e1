/*
 * dlthreads [rounds] [reopens]: three threads run in /lib/libdeep.so
 * (deep_run -> deep_mid -> deep_leaf / deep_twist, no callback) while a
 * fourth loads a second copy of the object, runs a little in it and
 * unloads it, `reopens` times: the registry gains and loses a section
 * (stacktrace_setup ADD, then REMOVE and the munmap of its text) while
 * the others' deferred unwinds walk the list on other CPUs. Prints
 * "dlthreads: reopens=N ok" when every thread's sums are right.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stitch.h>
#include <stitch_dl.h>
#include "../workloads/workload.h"

typedef uint64_t (*run_fn)(uint64_t rounds, uint64_t (*callback)(uint64_t));

struct worker {
	run_fn run;
	uint64_t rounds, result;
};

FRAME static void *dlthreads_worker(void *arg)
{
	struct worker *w = arg;
	w->result = w->run(w->rounds, NULL);
	return w;
}

/* Loads, runs a little in and unloads a copy: 0, or -1 with errno. */
FRAME static int dlthreads_churn_once(uint64_t *x)
{
	struct dl_object *o = dl_open("/lib/libdeep.so");
	if (!o)
		return -1;
	run_fn run = (run_fn)dl_sym(o, "deep_run");
	if (run)
		*x += run(2, NULL);
	return dl_close(o) || !run ? -1 : 0;
}

static long reopens, churned, churn_err;

FRAME static void *dlthreads_churn(void *arg)
{
	uint64_t *x = arg;
	for (churned = 0; churned < reopens; churned++)
		if (dlthreads_churn_once(x)) {
			churn_err = errno;
			break;
		}
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = arg_long(argc, argv, 1, 600, 1, 100000000);
	reopens = arg_long(argc, argv, 2, 40, 1, 100000);
	struct dl_object *o = dl_open("/lib/libdeep.so");
	run_fn run = o ? (run_fn)dl_sym(o, "deep_run") : NULL;
	if (!run) {
		printf("dlthreads: dl_open: %s\n", strerror(errno));
		return 1;
	}
	struct worker w[3];
	pthread_t t[4];
	uint64_t churn_x = 0;
	for (int i = 0; i < 3; i++) {
		w[i] = (struct worker){ run, (uint64_t)rounds + i, 0 };
		pthread_create(&t[i], NULL, dlthreads_worker, &w[i]);
	}
	pthread_create(&t[3], NULL, dlthreads_churn, &churn_x);
	int bad = 0;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	/* deep_run is a pure function of its arguments without a callback. */
	for (int i = 0; i < 3; i++)
		bad += w[i].result != run(w[i].rounds, NULL);
	if (churned != reopens)
		printf("dlthreads: reopen %ld failed: %s\n", churned, strerror((int)churn_err));
	printf("dlthreads: reopens=%ld %s\n", churned, bad || churned != reopens ? "FAILED" : "ok");
	return bad || churned != reopens || dl_close(o);
}
