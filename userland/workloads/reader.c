/*
 * reader [path [chunk [rounds]]]: a system-call-heavy workload. It reads an
 * initrd file with large read() calls, so each call spends a long stretch
 * in the kernel (copying chunk bytes) on one and the same user stack:
 * main -> reader_rounds -> read_file -> read -> (SYSCALL).
 *
 * Prints "reader: bytes=N chunk=C rounds=R checksum=X", X = FNV-1a of the
 * file contents read R times; the native host build reads the same file.
 */
#include <fcntl.h>
#include <unistd.h>
#include "workload.h"

/* One pass over the file from its start; -1 on error. */
FRAME static long read_file(int fd, char *buf, size_t chunk, uint64_t *sum)
{
	long total = 0;
	long n;

	if (lseek(fd, 0, SEEK_SET) != 0)
		return -1;
	while ((n = read(fd, buf, chunk)) > 0) {
		*sum = fnv1a(*sum, buf, (size_t)n);
		total += n;
	}
	return n < 0 ? -1 : total;
}

FRAME static long reader_rounds(int fd, char *buf, size_t chunk, long rounds,
				uint64_t *sum)
{
	long bytes = 0;

	for (long r = 0; r < rounds; r++) {
		bytes = read_file(fd, buf, chunk, sum);
		if (bytes < 0)
			return -1;
	}
	return bytes;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/data/blob";
	size_t chunk = (size_t)arg_long(argc, argv, 2, 1 << 20, 1, 1 << 24);
	long rounds = arg_long(argc, argv, 3, 4, 1, 1000000);
	uint64_t sum = FNV_OFFSET;
	char *buf = malloc(chunk);
	int fd = open(initrd_path(path), O_RDONLY);
	long bytes;

	if (!buf || fd < 0) {
		perror("reader");
		return 1;
	}
	bytes = reader_rounds(fd, buf, chunk, rounds, &sum);
	if (bytes < 0) {
		perror("reader: read");
		return 1;
	}
	printf("reader: bytes=%ld chunk=%zu rounds=%ld checksum=%016llx\n", bytes,
	       chunk, rounds, (unsigned long long)sum);
	close(fd);
	free(buf);
	return 0;
}
