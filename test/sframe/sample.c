/*
 * A host program and shared object with SFrame, PLT stubs and a frame
 * pointer-based function, as inputs for tests 20-22: the project itself
 * builds only static executables, which have no PCMASK (PLT) FDEs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A variable-length array makes GCC address the frame through rbp. */
int sample_vla(int n)
{
	char buf[n + 1];
	memset(buf, 'x', (size_t)n);
	buf[n] = 0;
	return (int)strlen(buf);
}

int sample_recurse(int n)
{
	return n <= 1 ? 1 : n * sample_recurse(n - 1) % 1000003;
}

#ifndef SAMPLE_LIB
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d %d\n", sample_vla(argc * 10), sample_recurse(argc + 5));
	puts(getenv("HOME") ? "home" : "no home");
	return 0;
}
#endif
