/*
 * t-thread [storm]: the SDK's POSIX threads (docs/USERLAND.md, "Threads").
 * Each check prints "ok N - what" or "not ok N - what"; the exit status is
 * the number of failures.
 *   - four threads add to one counter under a mutex: the exact total;
 *   - a producer and a consumer through a condition variable: every item,
 *     in order; a timed wait with nobody to signal times out;
 *   - join gives each thread's return value; tids are distinct, none the
 *     pid; errno is per thread; malloc and free from four threads at once;
 *   - exec from a process with three more threads: they are gone when the
 *     new program starts (it reads end of file from a pipe whose write end
 *     only they still held);
 *   - shootdown: a page another thread keeps reading (on another CPU, when
 *     there is one) is unmapped; the reader's next read faults and the
 *     process dies of SIGSEGV, rather than reading the freed frame through
 *     a translation its CPU kept (the TLB shootdown, kern/mm/uvm.c);
 *   - storm: rounds of threads that start and end at once, detached and
 *     joined (test 35 samples this).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <stitch.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures, checks;

static void check(int ok, const char *what)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++checks, what);
	failures += !ok;
}

#define ADDS 20000
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *adder(void *arg)
{
	for (int i = 0; i < ADDS; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return arg;
}

#define ITEMS 2000
#define SLOTS 8
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int queue[SLOTS], head, count;

static void *producer(void *arg)
{
	(void)arg;
	for (int i = 1; i <= ITEMS; i++) {
		pthread_mutex_lock(&qlock);
		while (count == SLOTS)
			pthread_cond_wait(&not_full, &qlock);
		queue[(head + count++) % SLOTS] = i;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&qlock);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	long in_order = 0;
	for (int i = 1; i <= ITEMS; i++) {
		pthread_mutex_lock(&qlock);
		while (count == 0)
			pthread_cond_wait(&not_empty, &qlock);
		int v = queue[head];
		head = (head + 1) % SLOTS;
		count--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&qlock);
		in_order += v == i;
	}
	*(long *)arg = in_order;
	return NULL;
}

static void *tid_and_errno(void *arg)
{
	errno = (int)(long)arg;
	usleep(2000); /* the others set theirs meanwhile */
	return (void *)(long)(errno == (int)(long)arg ? pthread_self() : 0);
}

static void *mallocs(void *arg)
{
	unsigned long seed = (unsigned long)arg, bad = 0;
	for (int i = 0; i < 2000; i++) {
		size_t n = 16 + (seed = seed * 6364136223846793005ul + 1) % 600;
		unsigned char *p = malloc(n);
		memset(p, (int)(seed & 0xff), n);
		for (size_t k = 0; k < n; k++)
			bad += p[k] != (unsigned char)(seed & 0xff);
		free(p);
	}
	return (void *)bad;
}

static void *nothing(void *arg)
{
	return arg;
}

static void storm(int rounds)
{
	pthread_attr_t detached;
	pthread_attr_init(&detached);
	pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
	int joined = 0, failed = 0;
	for (int r = 0; r < rounds; r++) {
		pthread_t t[4];
		for (int i = 0; i < 4; i++)
			failed += pthread_create(&t[i], i & 1 ? &detached : NULL, nothing,
						 (void *)(long)i) != 0;
		for (int i = 0; i < 4; i += 2) {
			void *ret;
			joined += !pthread_join(t[i], &ret) && ret == (void *)(long)i;
		}
	}
	check(!failed && joined == 2 * rounds, "storm: every thread started, every joinable one joined");
}

static void *spinner(void *arg)
{
	for (;;)
		__asm__ volatile("pause");
	return arg;
}

/* "exec R W": three threads that hold the pipe's write end W (their own
 * copies), then exec "exec-done R W", which drops W and must read end of
 * file from R: only if the three are gone. */
static int exec_modes(char **argv)
{
	if (strcmp(argv[1], "exec") == 0) {
		pthread_t t;
		for (int i = 0; i < 3; i++)
			pthread_create(&t, NULL, spinner, NULL);
		char *args[] = { "t-thread", "exec-done", argv[2], argv[3], NULL };
		execv("/bin/t-thread", args);
		return 2;
	}
	char c;
	close(atoi(argv[3]));
	return read(atoi(argv[2]), &c, 1) == 0 ? 42 : 1;
}

/* "shootdown": see the header. flags[0]: the reader has read the page;
 * flags[1]: the page is gone. Returns only if the last read did not fault. */
static volatile int *flags;
static volatile unsigned long *page;

static void *reader(void *unused)
{
	(void)unused;
	unsigned long sum = 0;
	while (!flags[1]) {
		sum += *page;
		flags[0] = 1;
	}
	sum += *page; /* must fault: the page was unmapped before flags[1] */
	return (void *)sum;
}

static int shootdown(void)
{
	int rw = STITCH_PROT_READ | STITCH_PROT_WRITE;
	flags = stitch_mmap(NULL, 4096, rw, -1, 0);
	page = stitch_mmap(NULL, 4096, rw, -1, 0);
	if (flags == STITCH_MAP_FAILED || page == STITCH_MAP_FAILED)
		return 2;
	*page = 42;
	pthread_t t;
	pthread_create(&t, NULL, reader, NULL);
	while (!flags[0])
		;
	stitch_munmap((void *)page, 4096);
	flags[1] = 1;
	pthread_join(t, NULL);
	return 0;
}

static void unmap_under_reader(void)
{
	char *args[] = { "t-thread", "shootdown", NULL };
	int status = -1, pid = spawn("/bin/t-thread", args);
	waitpid(pid, &status, 0);
	check(pid > 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
	      "munmap under a reading thread: its next read faults (SIGSEGV)");
}

static void exec_with_threads(void)
{
	int fds[2], status = -1;
	char r[12], w[12];
	pipe(fds);
	snprintf(r, sizeof(r), "%d", fds[0]);
	snprintf(w, sizeof(w), "%d", fds[1]);
	char *args[] = { "t-thread", "exec", r, w, NULL };
	int pid = spawn("/bin/t-thread", args);
	close(fds[0]);
	close(fds[1]);
	waitpid(pid, &status, 0);
	check(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 42,
	      "exec from one of four threads: the other three gone");
}

int main(int argc, char **argv)
{
	if (argc == 4)
		return exec_modes(argv);
	if (argc == 2 && strcmp(argv[1], "shootdown") == 0)
		return shootdown();
	if (argc > 1) {
		storm(atoi(argv[1]));
		return failures;
	}
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, adder, (void *)(long)(i + 1));
	int rets = 0;
	for (int i = 0; i < 4; i++) {
		void *ret;
		rets += !pthread_join(t[i], &ret) && ret == (void *)(long)(i + 1);
	}
	check(counter == 4 * ADDS, "mutex: four threads' increments all counted");
	check(rets == 4, "join: each thread's return value");

	long in_order = 0;
	pthread_t p, c;
	pthread_create(&c, NULL, consumer, &in_order);
	pthread_create(&p, NULL, producer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	check(in_order == ITEMS, "cond: the consumer got every item, in order");

	struct timeval now;
	gettimeofday(&now, NULL);
	struct timespec until = { now.tv_sec, now.tv_usec * 1000 + 20000000 };
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&qlock);
	int err = pthread_cond_timedwait(&not_empty, &qlock, &until);
	pthread_mutex_unlock(&qlock);
	check(err == ETIMEDOUT, "cond: a timed wait nobody signals times out");

	pthread_t ids[4];
	void *got[4];
	errno = 99;
	for (int i = 0; i < 4; i++)
		pthread_create(&ids[i], NULL, tid_and_errno, (void *)(long)(i + 1));
	for (int i = 0; i < 4; i++)
		pthread_join(ids[i], &got[i]);
	int distinct = errno == 99;
	for (int i = 0; i < 4; i++) {
		distinct &= got[i] == (void *)(long)ids[i] && ids[i] != (pthread_t)getpid() &&
			    ids[i] != pthread_self();
		for (int k = 0; k < i; k++)
			distinct &= ids[k] != ids[i];
	}
	check(distinct, "tids distinct, not the pid; errno per thread");

	unsigned long bad = 0;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, mallocs, (void *)(long)(i * 7919 + 1));
	for (int i = 0; i < 4; i++) {
		void *ret;
		pthread_join(t[i], &ret);
		bad += (unsigned long)ret;
	}
	check(bad == 0, "malloc and free from four threads at once");
	check(pthread_join(pthread_self(), NULL) == EDEADLK, "join of oneself: EDEADLK");
	exec_with_threads();
	unmap_under_reader();
	printf("t-thread: %d checks, %d failed\n", checks, failures);
	return failures;
}
