/*
 * zreal [FILE [ZFILE [LEVEL]]]: a real compressor workload, zlib 1.2.12 from
 * the binutils 2.40 tarball (mk/binutils.mk) built with the SDK's flags.
 *
 * Reads FILE (default /data/real-libm.bin: newlib's libm.a without DWARF),
 * computes its CRC-32 and Adler-32 with zlib, deflates it at LEVEL
 * (default 6) in 64 KiB steps as a streaming compressor does, inflates the
 * result again in 64 KiB steps and compares it with FILE; then inflates
 * ZFILE (default /data/real-libm.z: the host's python3 zlib compression of
 * the same file at level 9) and compares that with FILE too.
 *
 * Prints, and test 33 compares with build/real/zreal.expected (the host's
 * python3 zlib on the same files, tools/real/zoracle.py):
 *   zreal: FILE: N bytes crc32=XXXXXXXX adler32=XXXXXXXX
 *   zreal: inflate(deflate level L): N bytes, identical
 *   zreal: inflate ZFILE (M bytes): N bytes, identical
 * and, not compared (another zlib release may choose other matches):
 *   zreal: deflate level L: M bytes crc32=XXXXXXXX
 * Exits 0 iff every step worked and both inflations gave FILE back.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "zlib.h"

#define STEP 65536

struct buf {
	unsigned char *data;
	size_t len, cap;
};

static void die(const char *what)
{
	printf("zreal: %s\n", what);
	exit(1);
}

static void reserve(struct buf *b, size_t more)
{
	if (b->len + more <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : STEP;
	while (cap < b->len + more)
		cap *= 2;
	b->data = realloc(b->data, cap);
	if (!b->data)
		die("out of memory");
	b->cap = cap;
}

static __attribute__((noipa)) struct buf read_whole(const char *path)
{
	struct buf b = { 0 };
	int fd = open(path, O_RDONLY);
	long n;

	if (fd < 0) {
		printf("zreal: cannot open %s\n", path);
		exit(1);
	}
	for (;;) {
		reserve(&b, STEP);
		n = read(fd, b.data + b.len, STEP);
		if (n < 0)
			die("read failed");
		if (n == 0)
			break;
		b.len += (size_t)n;
	}
	close(fd);
	return b;
}

/* The input handed over in STEP-byte pieces, the output taken STEP bytes
 * at a time: deflate's and inflate's state machines see what a streaming
 * program gives them. */
static __attribute__((noipa)) struct buf compress_all(const struct buf *in, int level)
{
	struct buf out = { 0 };
	z_stream z;
	size_t fed = 0;
	int flush, ret;

	memset(&z, 0, sizeof z);
	if (deflateInit(&z, level) != Z_OK)
		die("deflateInit failed");
	do {
		size_t piece = in->len - fed < STEP ? in->len - fed : STEP;
		z.next_in = in->data + fed;
		z.avail_in = (uInt)piece;
		fed += piece;
		flush = fed == in->len ? Z_FINISH : Z_NO_FLUSH;
		do {
			reserve(&out, STEP);
			z.next_out = out.data + out.len;
			z.avail_out = STEP;
			ret = deflate(&z, flush);
			if (ret == Z_STREAM_ERROR)
				die("deflate failed");
			out.len += STEP - z.avail_out;
		} while (z.avail_out == 0);
	} while (flush != Z_FINISH);
	if (ret != Z_STREAM_END)
		die("deflate did not finish");
	deflateEnd(&z);
	return out;
}

static __attribute__((noipa)) struct buf expand_all(const struct buf *in)
{
	struct buf out = { 0 };
	z_stream z;
	size_t fed = 0;
	int ret = Z_OK;

	memset(&z, 0, sizeof z);
	if (inflateInit(&z) != Z_OK)
		die("inflateInit failed");
	while (ret != Z_STREAM_END) {
		size_t piece = in->len - fed < STEP ? in->len - fed : STEP;
		if (piece == 0)
			die("compressed stream truncated");
		z.next_in = in->data + fed;
		z.avail_in = (uInt)piece;
		fed += piece;
		do {
			reserve(&out, STEP);
			z.next_out = out.data + out.len;
			z.avail_out = STEP;
			ret = inflate(&z, Z_NO_FLUSH);
			if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR)
				die(z.msg ? z.msg : "inflate failed");
			out.len += STEP - z.avail_out;
		} while (z.avail_out == 0 && ret != Z_STREAM_END);
	}
	if (fed - z.avail_in != in->len)
		die("bytes after the end of the compressed stream");
	inflateEnd(&z);
	return out;
}

static int same(const struct buf *a, const struct buf *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/data/real-libm.bin";
	const char *zpath = argc > 2 ? argv[2] : "/data/real-libm.z";
	int level = argc > 3 ? atoi(argv[3]) : 6;
	int ok = 1;

	if (level < 0 || level > 9)
		die("level is 0 to 9");
	struct buf in = read_whole(path);
	unsigned long crc = crc32(crc32(0L, Z_NULL, 0), in.data, (uInt)in.len);
	unsigned long adler = adler32(adler32(0L, Z_NULL, 0), in.data, (uInt)in.len);
	printf("zreal: %s: %zu bytes crc32=%08lx adler32=%08lx\n", path, in.len, crc, adler);

	struct buf z = compress_all(&in, level);
	printf("zreal: deflate level %d: %zu bytes crc32=%08lx\n", level, z.len,
	       crc32(0L, z.data, (uInt)z.len));
	struct buf back = expand_all(&z);
	ok &= same(&in, &back);
	printf("zreal: inflate(deflate level %d): %zu bytes, %s\n", level, back.len,
	       same(&in, &back) ? "identical" : "DIFFERENT");

	struct buf hz = read_whole(zpath);
	struct buf hback = expand_all(&hz);
	ok &= same(&in, &hback);
	printf("zreal: inflate %s (%zu bytes): %zu bytes, %s\n", zpath, hz.len, hback.len,
	       same(&in, &hback) ? "identical" : "DIFFERENT");
	return ok ? 0 : 1;
}
