/*
 * sort [count [rounds]]: qsort with a comparator, so the sampled stacks pass
 * through libc: main -> sort_rounds -> qsort (newlib) -> ... -> compare_keys.
 *
 * Prints "sort: count=N rounds=R checksum=X", X = FNV-1a of every sorted
 * array. Sorting a total order has one answer, so glibc's qsort in the
 * native host build gives the same X as newlib's in the guest.
 */
#include "workload.h"

static uint64_t rng_state;

/* xorshift64: the same key sequence on every machine. */
static uint64_t next_key(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

FRAME static int compare_keys(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

FRAME static uint64_t sort_rounds(uint64_t *keys, size_t count, long rounds)
{
	uint64_t sum = FNV_OFFSET;

	for (long r = 0; r < rounds; r++) {
		for (size_t i = 0; i < count; i++)
			keys[i] = next_key() % 1000003;	/* duplicates too */
		qsort(keys, count, sizeof(keys[0]), compare_keys);
		sum = fnv1a(sum, keys, count * sizeof(keys[0]));
	}
	return sum;
}

int main(int argc, char **argv)
{
	size_t count = (size_t)arg_long(argc, argv, 1, 20000, 1, 1 << 22);
	long rounds = arg_long(argc, argv, 2, 4, 1, 1000000);
	uint64_t *keys = malloc(count * sizeof(*keys));

	if (!keys) {
		perror("sort: malloc");
		return 1;
	}
	rng_state = 0x9e3779b97f4a7c15ULL;
	printf("sort: count=%zu rounds=%ld checksum=%016llx\n", count, rounds,
	       (unsigned long long)sort_rounds(keys, count, rounds));
	free(keys);
	return 0;
}
