/*
 * threads [rounds]: four threads of one process, each in a recursion of
 * its own (threads_walk_a .. _d, depth 6, spinning at the bottom), so that
 * a sample's stitched stack tells which thread it came from. Prints each
 * thread's tid, "threads: rounds=R checksum=X" with X the FNV-1a of the
 * four threads' sums in the threads' order (the same however they were
 * scheduled: the demo compares it with the native build's), and
 * "threads: ok" when every sum equals the main thread's own.
 */
#include <pthread.h>
#include <unistd.h>
#include "workload.h"

#define DEPTH 6

static volatile unsigned long sink;

/* One recursion per thread: distinct functions, never inlined or merged. */
#define WALK(x)                                                              \
	__attribute__((noinline)) unsigned long threads_walk_##x(int d, long n) \
	{                                                                    \
		unsigned long s = 0;                                         \
		if (d == 0) {                                                \
			for (long i = 0; i < n; i++)                         \
				s += (unsigned long)i * (i ^ (x##_salt));     \
			return s;                                            \
		}                                                            \
		s = threads_walk_##x(d - 1, n) + (unsigned long)d;           \
		sink = s;                                                    \
		return s;                                                    \
	}
enum { a_salt = 3, b_salt = 5, c_salt = 7, d_salt = 11 };
WALK(a)
WALK(b)
WALK(c)
WALK(d)

struct job {
	unsigned long (*walk)(int, long);
	long rounds;
	unsigned long sum;
	pthread_t tid;
	char name;
};

static void *run(void *arg)
{
	struct job *j = arg;
	j->tid = pthread_self();
	for (long r = 0; r < j->rounds; r++)
		j->sum += j->walk(DEPTH, 2000);
	return j;
}

int main(int argc, char **argv)
{
	long rounds = arg_long(argc, argv, 1, 200, 1, 1000000);
	struct job jobs[4] = {
		{ threads_walk_a, rounds, 0, 0, 'a' }, { threads_walk_b, rounds, 0, 0, 'b' },
		{ threads_walk_c, rounds, 0, 0, 'c' }, { threads_walk_d, rounds, 0, 0, 'd' },
	};
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, run, &jobs[i])) {
			printf("threads: pthread_create failed\n");
			return 1;
		}
	int bad = 0;
	uint64_t checksum = FNV_OFFSET;
	for (int i = 0; i < 4; i++) {
		void *ret;
		if (pthread_join(t[i], &ret) || ret != &jobs[i] || jobs[i].tid != t[i])
			bad++;
		/* The same work alone: what the thread must have summed. */
		unsigned long want = 0;
		for (long r = 0; r < rounds; r++)
			want += jobs[i].walk(DEPTH, 2000);
		bad += jobs[i].sum != want;
		checksum = fnv1a_u64(checksum, jobs[i].sum);
		printf("threads: %c tid %u pid %d\n", jobs[i].name, (unsigned)t[i], getpid());
	}
	printf("threads: rounds=%ld checksum=%016llx\n", rounds, (unsigned long long)checksum);
	printf("threads: %s\n", bad ? "FAILED" : "ok");
	return bad != 0;
}
