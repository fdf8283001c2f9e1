/*
 * recextract SHM OUT: cut the record stream out of the ivshmem shared
 * memory file that QEMU leaves behind (tools/qemu-run --records), so that
 * OUT is a plain stream (REC_STREAM at byte 0) for every consumer.
 *
 * The file's first bytes are a struct shm_header (include/stitch/shm.h,
 * the kernel's definition). The header comes from the guest: every field
 * is checked against the file before it is used.
 *
 * Exit status: 0 the stream was written to OUT; 1 the file holds no
 * stream (no magic: the kernel did not use the device), OUT untouched;
 * 2 a malformed header or an I/O error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stitch/shm.h"

static const char *prog = "recextract";

/* Says what failed (and why, if errno says), returns exit status 2. */
static int fail(const char *what, const char *path)
{
	if (errno)
		fprintf(stderr, "%s: %s %s: %s\n", prog, what, path, strerror(errno));
	else
		fprintf(stderr, "%s: %s %s\n", prog, what, path);
	return 2;
}

/* The header's claims, against the size of the file that holds them. */
static const char *check(const struct shm_header *h, uint64_t file_size)
{
	if (h->version != SHM_VERSION)
		return "unknown header version in";
	if (h->data_offset < sizeof *h || h->data_offset > file_size)
		return "data offset outside the file in";
	if (h->data_size > file_size - h->data_offset)
		return "data area larger than the file in";
	if (h->written > h->data_size)
		return "byte count beyond the data area in";
	if (h->written % 8)
		return "byte count not a multiple of 8 (records are) in";
	return NULL;
}

/* Copies n bytes from offset off of in to out. */
static int copy(int in, uint64_t off, uint64_t n, int out)
{
	static char buf[1 << 20];
	while (n) {
		size_t want = n < sizeof buf ? (size_t)n : sizeof buf;
		ssize_t got = pread(in, buf, want, (off_t)off);
		if (got <= 0) {
			if (got == 0)
				errno = 0; /* the file is shorter than it said */
			return -1;
		}
		for (ssize_t done = 0; done < got;) {
			ssize_t w = write(out, buf + done, (size_t)(got - done));
			if (w < 0)
				return -1;
			done += w;
		}
		off += (uint64_t)got;
		n -= (uint64_t)got;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s SHM-FILE OUT\n", prog);
		return 2;
	}
	int in = open(argv[1], O_RDONLY);
	struct stat st;
	if (in < 0 || fstat(in, &st) < 0)
		return fail("cannot read", argv[1]);

	struct shm_header h;
	ssize_t got = pread(in, &h, sizeof h, 0);
	if (got < 0)
		return fail("cannot read", argv[1]);
	if ((size_t)got < sizeof h || h.magic != SHM_MAGIC) {
		fprintf(stderr, "%s: no record stream in %s\n", prog, argv[1]);
		return 1;
	}
	const char *bad = check(&h, (uint64_t)st.st_size);
	if (bad) {
		errno = 0;
		return fail(bad, argv[1]);
	}

	int out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return fail("cannot create", argv[2]);
	errno = 0;
	if (copy(in, h.data_offset, h.written, out) < 0)
		return fail("cannot copy the stream to", argv[2]);
	if (close(out) < 0)
		return fail("cannot write", argv[2]);
	if (h.dropped)
		fprintf(stderr, "%s: the shared memory was full: %llu records "
			"(%llu bytes) refused, counted in the stream\n", prog,
			(unsigned long long)h.dropped,
			(unsigned long long)h.dropped_bytes);
	return 0;
}
