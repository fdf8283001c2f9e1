/*
 * rxreal [PATTERNS [TEXT]]: a real regular-expression search
 * workload, libiberty's regex.c (GNU regex, renamed xregcomp/xregexec by
 * include/xregex.h) from the binutils 2.40 tarball (mk/binutils.mk), built
 * with the SDK's flags.
 *
 * PATTERNS (default /data/real-rx-patterns.txt) holds one POSIX extended
 * regular expression a line; TEXT (default /data/real-changelog.txt:
 * libiberty's own ChangeLog) is searched line by line for each, as
 * `LC_ALL=C grep -E -n` does. For pattern number P (from 1) each matching
 * line is printed as
 *   rxP:LINE:TEXT
 * followed by
 *   rxreal: pattern P: N of M lines match
 * Test 33 compares these with build/real/rxreal.expected (the host's GNU
 * grep on the same files). Exits 1 when a file cannot be read or a
 * pattern does not compile (regerror's message printed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xregex.h"

struct lines {
	char **line;
	long n, cap;
};

/* Every line of PATH, without its newline. */
static __attribute__((noipa)) struct lines read_lines(const char *path)
{
	struct lines l = { 0 };
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t cap = 0;
	ssize_t len;

	if (!f) {
		printf("rxreal: cannot open %s\n", path);
		exit(1);
	}
	/* newlib 3.3.0 has POSIX getline under this name only. */
	while ((len = __getline(&s, &cap, f)) >= 0) {
		if (len > 0 && s[len - 1] == '\n')
			s[len - 1] = 0;
		if (l.n == l.cap && !(l.line = realloc(l.line, (l.cap = l.cap * 2 + 256) * sizeof(char *)))) {
			printf("rxreal: out of memory\n");
			exit(1);
		}
		l.line[l.n++] = s;
		s = NULL;
		cap = 0;
	}
	fclose(f);
	return l;
}

static __attribute__((noipa)) void compile_all(const struct lines *pats, regex_t *re)
{
	for (long p = 0; p < pats->n; p++) {
		int err = regcomp(&re[p], pats->line[p], REG_EXTENDED | REG_NOSUB);
		if (err) {
			char msg[128];
			regerror(err, &re[p], msg, sizeof msg);
			printf("rxreal: pattern %ld /%s/: %s\n", p + 1, pats->line[p], msg);
			exit(1);
		}
	}
}

/* Prints the lines of TEXT that RE (pattern P) matches; their number. */
static __attribute__((noipa)) long search(const regex_t *re, long p, const struct lines *text)
{
	long hits = 0;

	for (long i = 0; i < text->n; i++) {
		if (regexec(re, text->line[i], 0, NULL, 0) != 0)
			continue;
		hits++;
		printf("rx%ld:%ld:%s\n", p + 1, i + 1, text->line[i]);
	}
	return hits;
}

int main(int argc, char **argv)
{
	struct lines pats = read_lines(argc > 1 ? argv[1] : "/data/real-rx-patterns.txt");
	struct lines text = read_lines(argc > 2 ? argv[2] : "/data/real-changelog.txt");
	regex_t *re = calloc((size_t)pats.n + 1, sizeof *re);

	if (!re || pats.n == 0) {
		printf("rxreal: no patterns or no memory\n");
		return 1;
	}
	compile_all(&pats, re);
	for (long p = 0; p < pats.n; p++)
		printf("rxreal: pattern %ld: %ld of %ld lines match\n", p + 1,
		       search(&re[p], p, &text), text.n);
	return 0;
}
