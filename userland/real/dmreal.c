/*
 * dmreal [FILE [ROUNDS]]: a real C++ demangler workload, libiberty's
 * cplus_demangle (cplus-dem.c, which hands "_Z" names to cp-demangle.c)
 * from the binutils 2.40 tarball (mk/binutils.mk), built with the SDK's
 * flags.
 *
 * FILE (default /data/real-cxxsyms.txt) holds one mangled name a line: the
 * "_Z" dynamic symbols of Debian's libstdc++.so.6, extracted at build time
 * with nm -D. Each is demangled exactly as c++filt 2.40 does by default
 * (binutils/cxxfilt.c, demangle_it: flags DMGL_PARAMS | DMGL_ANSI |
 * DMGL_VERBOSE, a leading '.' or '$' skipped, the name itself when it does
 * not demangle) and printed on a line of its own, followed by one line
 *   dmreal: N names, D demangled, checksum=X
 * (X: FNV-1a of the output lines). Test 33 compares the lines with
 * `c++filt < FILE` on the host (build/real/dmreal.expected). ROUNDS
 * (default 1) demangles the whole list that many times, printing it once.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "demangle.h"

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static __attribute__((noipa)) char *read_whole(const char *path, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap + 1);
	int fd = open(path, O_RDONLY);
	long r;

	if (fd < 0 || !b) {
		printf("dmreal: cannot open %s\n", path);
		exit(1);
	}
	while ((r = read(fd, b + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap && !(b = realloc(b, (cap *= 2) + 1))) {
			printf("dmreal: out of memory\n");
			exit(1);
		}
	}
	close(fd);
	b[n] = 0;
	*len = n;
	return b;
}

/* c++filt's demangle_it, into OUT (NULL: demangle only). */
static __attribute__((noipa)) int demangle_it(const char *name, FILE *out)
{
	const int flags = DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE;
	unsigned skip = name[0] == '.' || name[0] == '$';
	char *result = cplus_demangle(name + skip, flags);

	if (out) {
		if (!result)
			fputs(name, out);
		else {
			if (name[0] == '.')
				putc('.', out);
			fputs(result, out);
		}
		putc('\n', out);
	}
	free(result);
	return result != NULL;
}

static __attribute__((noipa)) long demangle_all(char *list, size_t len, FILE *out,
						 long *names)
{
	long done = 0;
	char *p = list, *end = list + len;

	*names = 0;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		*nl = 0;
		if (nl > p) {
			done += demangle_it(p, out);
			++*names;
		}
		*nl = '\n';
		p = nl + 1;
	}
	return done;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/data/real-cxxsyms.txt";
	long rounds = argc > 2 ? atol(argv[2]) : 1;
	size_t len, outlen;
	char *list = read_whole(path, &len);
	char *text = NULL;
	FILE *out = open_memstream(&text, &outlen);
	long names = 0, done = 0;

	if (!out || rounds < 1) {
		printf("dmreal: bad arguments or no memory\n");
		return 1;
	}
	for (long r = 0; r < rounds; r++)
		done = demangle_all(list, len, r == 0 ? out : NULL, &names);
	fclose(out);
	fwrite(text, 1, outlen, stdout);
	printf("dmreal: %ld names, %ld demangled, checksum=%016llx\n", names, done,
	       (unsigned long long)fnv1a(0xcbf29ce484222325ULL, text, outlen));
	return names > 0 ? 0 : 1;
}
