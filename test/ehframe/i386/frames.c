/*
 * Frames of every shape gcc gives an i386 function, for test 95: with and
 * without a frame pointer, a CFA on ebp (alloca), a realigned stack (a
 * DRAP register and CFA expressions), callee-saved registers pushed, a
 * tail call, a noreturn leaf. Linked alone (-nostdlib): _start is the
 * entry, and its FDE ends the stack.
 */
#include <stdint.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE int leaf(int x)
{
	return x * 3 + sink;
}

NOINLINE int saves(int a, int b, int c)
{
	/* Enough live values that ebx, esi and edi are pushed. */
	int s = 0;
	for (int i = 0; i < a; i++)
		s += leaf(i) * b + leaf(i + c) - leaf(s);
	return s;
}

NOINLINE int dynamic(int n)
{
	/* alloca: the CFA moves to ebp even without -fno-omit-frame-pointer. */
	volatile char *p = __builtin_alloca((unsigned)n + 16);
	p[n] = (char)n;
	return saves(n, p[n], 2);
}

NOINLINE __attribute__((force_align_arg_pointer)) int realigned(int n)
{
	/* A 32-byte local: the stack is realigned by way of a DRAP register. */
	int v[8] __attribute__((aligned(32)));
	for (int i = 0; i < 8; i++)
		v[i] = leaf(n + i);
	return v[n & 7];
}

NOINLINE int tail(int n)
{
	return dynamic(n + 1);
}

NOINLINE __attribute__((noreturn)) void stop(void)
{
	for (;;)
		sink++;
}

void _start(void)
{
	sink = tail(4) + realigned(5);
	stop();
}
