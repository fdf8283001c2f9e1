/*
 * piper [bytes [chunk]]: two processes and a pipe. The parent spawns a
 * second copy of this program as the writer, which inherits the pipe
 * (spawn passes every open descriptor on, docs/USERLAND.md), and reads
 * until end of file. Both sides block in the kernel in turn:
 *   reader: main -> piper_consume -> read
 *   writer: main -> piper_produce -> write
 *
 * Prints "piper: bytes=N chunk=C checksum=X", X = FNV-1a of the stream,
 * which the writer derives from xorshift64; the host build agrees.
 */
#include <stitch.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "workload.h"

#define PIPER_PATH "/bin/piper"

static uint64_t stream_state = 0x2545f4914f6cdd1dULL;

static void fill_stream(unsigned char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		stream_state ^= stream_state << 13;
		stream_state ^= stream_state >> 7;
		stream_state ^= stream_state << 17;
		buf[i] = (unsigned char)stream_state;
	}
}

/* Writer side: bytes of the stream in chunk-sized write() calls. */
FRAME static int piper_produce(int fd, long bytes, size_t chunk)
{
	unsigned char *buf = malloc(chunk);

	if (!buf)
		return 1;
	while (bytes > 0) {
		size_t n = bytes < (long)chunk ? (size_t)bytes : chunk;
		size_t done = 0;

		fill_stream(buf, n);
		while (done < n) {	/* a pipe may take less than asked */
			long w = write(fd, buf + done, n - done);

			if (w <= 0)
				return 1;
			done += (size_t)w;
		}
		bytes -= (long)n;
	}
	free(buf);
	return 0;
}

/* Reader side: everything until end of file; the byte count or -1. */
FRAME static long piper_consume(int fd, size_t chunk, uint64_t *sum)
{
	unsigned char *buf = malloc(chunk);
	long total = 0, n;

	if (!buf)
		return -1;
	while ((n = read(fd, buf, chunk)) > 0) {
		*sum = fnv1a(*sum, buf, (size_t)n);
		total += n;
	}
	free(buf);
	return n < 0 ? -1 : total;
}

static int run_writer(int argc, char **argv)
{
	int rfd = (int)arg_long(argc, argv, 2, -1, 0, 1023);
	int wfd = (int)arg_long(argc, argv, 3, -1, 0, 1023);
	long bytes = arg_long(argc, argv, 4, 0, 0, 1L << 40);
	size_t chunk = (size_t)arg_long(argc, argv, 5, 4096, 1, 1 << 24);

	close(rfd);	/* only the parent reads */
	return piper_produce(wfd, bytes, chunk);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--writer") == 0)
		return run_writer(argc, argv);

	long bytes = arg_long(argc, argv, 1, 4 << 20, 0, 1L << 40);
	size_t chunk = (size_t)arg_long(argc, argv, 2, 16384, 1, 1 << 24);
	char rfd_s[16], wfd_s[16], bytes_s[24], chunk_s[24];
	uint64_t sum = FNV_OFFSET;
	int fds[2], status, pid;
	long got;

	if (pipe(fds) < 0) {
		perror("piper: pipe");
		return 1;
	}
	snprintf(rfd_s, sizeof(rfd_s), "%d", fds[0]);
	snprintf(wfd_s, sizeof(wfd_s), "%d", fds[1]);
	snprintf(bytes_s, sizeof(bytes_s), "%ld", bytes);
	snprintf(chunk_s, sizeof(chunk_s), "%zu", chunk);
	char *child_argv[] = { PIPER_PATH, "--writer", rfd_s, wfd_s, bytes_s,
			       chunk_s, NULL };
	pid = spawn(PIPER_PATH, child_argv);
	if (pid < 0) {
		perror("piper: spawn");
		return 1;
	}
	close(fds[1]);	/* else our own write end keeps end of file away */
	got = piper_consume(fds[0], chunk, &sum);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || got != bytes) {
		fprintf(stderr, "piper: writer status %#x, got %ld of %ld bytes\n",
			status, got, bytes);
		return 1;
	}
	printf("piper: bytes=%ld chunk=%zu checksum=%016llx\n", bytes, chunk,
	       (unsigned long long)sum);
	return 0;
}
