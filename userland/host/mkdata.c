/*
 * stitch-mkdata FILE BYTES: write BYTES pseudo-random bytes (xorshift64,
 * fixed seed) to FILE. Builds the initrd's /data/blob, the file that the
 * reader workload reads; the same bytes on every build.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	uint64_t x = 0x853c49e6748fea9bULL;
	unsigned char buf[4096];
	long bytes;
	FILE *f;

	if (argc != 3 || (bytes = strtol(argv[2], NULL, 0)) < 0) {
		fprintf(stderr, "usage: %s FILE BYTES\n", argv[0]);
		return 2;
	}
	f = fopen(argv[1], "wb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	while (bytes > 0) {
		size_t n = bytes < (long)sizeof(buf) ? (size_t)bytes : sizeof(buf);

		for (size_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[i] = (unsigned char)(x >> 24);
		}
		if (fwrite(buf, 1, n, f) != n) {
			perror(argv[1]);
			return 1;
		}
		bytes -= (long)n;
	}
	return fclose(f) == 0 ? 0 : 1;
}
