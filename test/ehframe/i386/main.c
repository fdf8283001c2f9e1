/* A small static glibc program for test 95: what matters is the C
 * library linked with it (stdio, qsort, the string functions). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	qsort(argv, (size_t)argc, sizeof *argv, cmp);
	for (int i = 0; i < argc; i++)
		printf("%s\n", argv[i]);
	return 0;
}
