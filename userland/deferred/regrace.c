/*
 * regrace [contests] [depth]: registrations racing each other while the
 * profiler unwinds; run it with several CPUs at once (qemu-run
 * --parallel) in profile.mode=eh-frame.
 *
 * The program takes its own .eh_frame registration away (the loader's,
 * EH_FRAME_REMOVE), then four threads race `contests` times each to
 * register it again for the program's text (EH_FRAME_ADD of its own
 * .eh_frame_hdr), while two threads recurse `depth` deep in that text and
 * are sampled. The registry must let exactly one contender in at a time
 * (the overlap check and the insert one step under its lock), and a
 * table must be whole when a walk finds it (its segment set before it is
 * published, never through another registration): a table published
 * half-built reads wrong at its first use and is dropped
 * (ehframe_dropped). The winner holds the text a moment, then removes its
 * registration.
 *
 * Prints "regrace: contests=N wins=W overlaps=0 ok" when the workers'
 * sums are right and no two contenders ever held the text at once.
 */
#include <pthread.h>
#include <stdio.h>
#include <stitch.h>
#include "../workloads/workload.h"
#include "selfelf.h"

#define CONTENDERS 4
#define WORKERS 2

static long contests, depth;
static const struct elf64_phdr *hdr, *text, *seg;
static int holders, wins, overlaps, done;

/* Registers the program's .eh_frame for its text: 0 or -1. */
static int add_own(void)
{
	return stacktrace_setup_eh_frame(STACKTRACE_EH_FRAME_ADD, (void *)hdr->vaddr, hdr->memsz,
					 (void *)text->vaddr, text->memsz,
					 (void *)(seg->vaddr + seg->memsz));
}

static int remove_own(void)
{
	return stacktrace_setup_eh_frame(STACKTRACE_EH_FRAME_REMOVE, NULL, 0,
					 (void *)text->vaddr, 0, NULL);
}

/* The contenders start each round together, so that their registrations
 * meet in the registry: the last to arrive opens the round. */
static int arrived, round_no;

static void start_round(void)
{
	int r = __atomic_load_n(&round_no, __ATOMIC_SEQ_CST);
	if (__atomic_add_fetch(&arrived, 1, __ATOMIC_SEQ_CST) == CONTENDERS) {
		__atomic_store_n(&arrived, 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&round_no, r + 1, __ATOMIC_SEQ_CST);
		return;
	}
	while (__atomic_load_n(&round_no, __ATOMIC_SEQ_CST) == r)
		yield();
}

FRAME static void *regrace_contend(void *arg)
{
	(void)arg;
	for (long i = 0; i < contests; i++) {
		start_round();
		if (add_own())
			continue;
		if (__atomic_add_fetch(&holders, 1, __ATOMIC_SEQ_CST) != 1)
			__atomic_add_fetch(&overlaps, 1, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&wins, 1, __ATOMIC_SEQ_CST);
		for (volatile int spin = 0; spin < 20000; spin++)
			;
		__atomic_sub_fetch(&holders, 1, __ATOMIC_SEQ_CST);
		if (remove_own())
			__atomic_add_fetch(&overlaps, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

FRAME static uint64_t regrace_leaf(uint64_t x)
{
	for (int i = 0; i < 200; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

FRAME static uint64_t regrace_down(long n, uint64_t x)
{
	return n ? regrace_down(n - 1, x + (uint64_t)n) + 1 : regrace_leaf(x);
}

struct worker {
	uint64_t sum, want;
};

/* Recurses until the contenders are done, twice per round: the two sums
 * of a pure function must agree. */
FRAME static void *regrace_work(void *arg)
{
	struct worker *w = arg;
	for (uint64_t r = 0; !__atomic_load_n(&done, __ATOMIC_SEQ_CST); r++) {
		w->sum += regrace_down(depth, r);
		w->want += regrace_down(depth, r);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	contests = arg_long(argc, argv, 1, 300, 1, 1000000);
	depth = arg_long(argc, argv, 2, 12, 1, 1000);
	hdr = own_phdr(PT_GNU_EH_FRAME, 0);
	text = own_phdr(PT_LOAD, PF_X);
	seg = hdr ? own_load_holding(hdr->vaddr) : NULL;
	if (!hdr || !text || !seg || remove_own()) {
		printf("regrace: no .eh_frame registration of its own\n");
		return 1;
	}
	struct worker w[WORKERS] = { 0 };
	pthread_t c[CONTENDERS], t[WORKERS];
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, regrace_work, &w[i]);
	for (int i = 0; i < CONTENDERS; i++)
		pthread_create(&c[i], NULL, regrace_contend, NULL);
	for (int i = 0; i < CONTENDERS; i++)
		pthread_join(c[i], NULL);
	__atomic_store_n(&done, 1, __ATOMIC_SEQ_CST);
	int bad = overlaps != 0 || wins == 0;
	for (int i = 0; i < WORKERS; i++) {
		pthread_join(t[i], NULL);
		bad |= w[i].sum != w[i].want;
	}
	printf("regrace: contests=%ld wins=%d overlaps=%d %s\n", contests, wins, overlaps,
	       bad ? "FAILED" : "ok");
	return bad;
}
