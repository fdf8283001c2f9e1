/*
 * kentry CHUNK READS: long kernel entries on one user stack, for the curve
 * of cost against NMIs per kernel entry. Each read() of CHUNK bytes of
 * /data/blob keeps the task in the kernel (copying) for a time
 * proportional to CHUNK, and the user side does almost nothing between
 * two reads, so nearly every sample lands inside a read and all the
 * samples of one read share one cookie: one deferred unwind serves them.
 * tools/bench picks CHUNK so that a read lasts k sampling periods.
 *
 * Every read starts at the file's beginning (an lseek, a short entry of
 * its own, before each), so each is a whole CHUNK up to the file's 4 MiB.
 *
 * Stack: main -> kentry_loop -> read -> (SYSCALL).
 * Prints "kentry: chunk=C reads=R cycles_per_read=X", X the mean TSC
 * cycles of one read (under QEMU -icount: instructions), measured here
 * with RDTSC (allowed in ring 3) so that the driver can calibrate.
 */
#include <fcntl.h>
#include <unistd.h>
#include "../workloads/workload.h"

/* /data/blob's size (USER_BLOB_BYTES in mk/userland.mk). */
#define KENTRY_FILE_SIZE (4 << 20)

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* READS reads of chunk bytes from the file's start; returns the TSC
 * cycles spent inside read(), or 0 on error. */
FRAME static uint64_t kentry_loop(int fd, char *buf, size_t chunk, long reads)
{
	uint64_t cycles = 0;

	for (long i = 0; i < reads; i++) {
		if (lseek(fd, 0, SEEK_SET) != 0)
			return 0;
		uint64_t t0 = rdtsc();
		long n = read(fd, buf, chunk);
		cycles += rdtsc() - t0;
		if (n != (long)chunk)
			return 0;
	}
	return cycles;
}

int main(int argc, char **argv)
{
	size_t chunk = (size_t)arg_long(argc, argv, 1, 65536, 1, KENTRY_FILE_SIZE);
	long reads = arg_long(argc, argv, 2, 100, 1, 100000000);
	char *buf = malloc(chunk);
	int fd = open("/data/blob", O_RDONLY);

	if (!buf || fd < 0) {
		perror("kentry");
		return 1;
	}
	/* One read first, untimed: the buffer's pages fault in there, inside
	 * the kernel, and the timed reads all cost the same. */
	if (read(fd, buf, chunk) != (long)chunk) {
		perror("kentry: read");
		return 1;
	}
	uint64_t cycles = kentry_loop(fd, buf, chunk, reads);
	if (!cycles) {
		perror("kentry: read");
		return 1;
	}
	printf("kentry: chunk=%zu reads=%ld cycles_per_read=%llu\n", chunk, reads,
	       (unsigned long long)(cycles / (uint64_t)reads));
	close(fd);
	free(buf);
	return 0;
}
