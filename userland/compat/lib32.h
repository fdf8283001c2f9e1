/*
 * What the freestanding 32-bit test programs (/bin/compat32,
 * /bin/hostile32) share: strings, numbers and the console, through
 * start32.S's int $0x80 gate.
 */
#ifndef USERLAND_COMPAT_LIB32_H
#define USERLAND_COMPAT_LIB32_H

#include <stddef.h>
#include "stitch/syscall.h"

long sys6(long nr, long a1, long a2, long a3, long a4, long a5, long a6);

static inline size_t len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static inline void put(const char *s)
{
	sys6(SYS_write, 1, (long)s, (long)len(s), 0, 0, 0);
}

static inline void put_num(long v)
{
	char buf[24], *p = buf + sizeof(buf);
	unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;
	*--p = 0;
	do
		*--p = '0' + u % 10;
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	put(p);
}

static inline long parse(const char *s)
{
	long v = 0;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return v;
}

static inline int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

#endif
