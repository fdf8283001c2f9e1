/*
 * Shared by the workloads: a checksum and argument parsing.
 *
 * Every workload is also compiled natively on the host (mk/userland.mk) and
 * must print the same line there, so this only uses standard C.
 */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * Functions whose frames a profile should show: noipa forbids inlining,
 * cloning (fib.constprop.0) and merging, so each name is one real frame.
 */
#define FRAME __attribute__((noipa))

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME  0x100000001b3ULL

/* FNV-1a over bytes: simple, order-sensitive, same on host and guest. */
static inline uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * FNV_PRIME;
	return h;
}

static inline uint64_t fnv1a_u64(uint64_t h, uint64_t v)
{
	return fnv1a(h, &v, sizeof(v));
}

/*
 * An initrd path such as "/data/blob" as this build must open it: itself in
 * the guest; under $STITCH_HOST_ROOT in the native host build, which runs
 * the same workloads to compute the expected checksums.
 */
static inline const char *initrd_path(const char *path)
{
#ifdef STITCH_HOST_BUILD
	static char host_path[4096];
	const char *root = getenv("STITCH_HOST_ROOT");

	snprintf(host_path, sizeof(host_path), "%s%s", root ? root : ".", path);
	return host_path;
#else
	return path;
#endif
}

/* The work at the bottom of a deep stack, so that most samples see all
 * of it: n rounds of xorshift64. */
static inline uint64_t xorshift_rounds(uint64_t x, int n)
{
	for (int i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

/* argv[i] as a number in [lo, hi], or def when absent; exits on nonsense. */
static inline long arg_long(int argc, char **argv, int i, long def, long lo, long hi)
{
	char *end;
	long v;

	if (i >= argc)
		return def;
	v = strtol(argv[i], &end, 0);
	if (*argv[i] == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "%s: argument %d must be %ld..%ld\n", argv[0], i, lo, hi);
		exit(2);
	}
	return v;
}

#endif
