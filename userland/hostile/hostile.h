/*
 * Shared by the adversarial programs of userland/hostile/ (docs/SECURITY.md).
 *
 * Each program holds a family of cases; `/bin/h-<family> CASE` runs one.
 * A case that the kernel must survive exits 0 when every answer it got was
 * the expected one (and prints "# " lines with the values otherwise); a
 * case that the kernel must kill never returns from its attack (exit 99 if
 * it does). /bin/hostile runs them all and checks the statuses.
 */
#ifndef HOSTILE_H
#define HOSTILE_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stitch.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096UL
#define KERNEL_TEXT 0xffffffff80000000UL
#define KERNEL_DIRECT 0xffff800000000000UL
#define NONCANONICAL 0x8000000000000000UL

struct hcase {
	const char *name;
	int (*run)(void);
};

static int hostile_failed;
static const char *hostile_case = "?";

/* A check inside a case: prints what went wrong and fails the case. */
#define EXPECT(cond, ...)                                                     \
	do {                                                                  \
		if (!(cond)) {                                                \
			hostile_failed++;                                     \
			printf("# %s: line %d: %s: ", hostile_case, __LINE__, #cond); \
			printf(__VA_ARGS__);                                  \
			printf("\n");                                         \
		}                                                             \
	} while (0)

/* A raw call that must return -e. */
#define EXPECT_ERR(call, e)                                                   \
	do {                                                                  \
		long r_ = (call);                                             \
		EXPECT(r_ == -(e), "%s returned %ld, want %d", #call, r_, -(e)); \
	} while (0)

static inline long sys(long nr, long a, long b, long c, long d, long e)
{
	return stitch_syscall(nr, a, b, c, d, e, 0);
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* TSC ticks per millisecond, measured once against the kernel's clock. */
static inline uint64_t tsc_per_ms(void)
{
	static uint64_t per_ms;
	if (!per_ms) {
		uint64_t t0 = rdtsc();
		usleep(20000);
		per_ms = (rdtsc() - t0) / 20;
		if (!per_ms)
			per_ms = 1;
	}
	return per_ms;
}

/* The TSC value ms milliseconds from now (at least). */
static inline uint64_t tsc_deadline(unsigned ms)
{
	return rdtsc() + ms * tsc_per_ms();
}

/* Runs the case named argv[1] of the table; the exit status of a case. */
static inline int hostile_main(const struct hcase *cases, int n, int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; argc == 2 && i < n; i++) {
		if (strcmp(cases[i].name, argv[1]) != 0)
			continue;
		hostile_case = cases[i].name;
		int st = cases[i].run();
		return st ? st : hostile_failed ? 1 : 0;
	}
	printf("# usage: %s CASE, one of:", argv[0]);
	for (int i = 0; i < n; i++)
		printf(" %s", cases[i].name);
	printf("\n");
	return 2;
}

#define HOSTILE_MAIN(cases)                                                   \
	int main(int argc, char **argv)                                       \
	{                                                                     \
		return hostile_main(cases, (int)(sizeof(cases) / sizeof(cases[0])), \
				    argc, argv);                              \
	}

#endif
