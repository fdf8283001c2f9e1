/* The C string and memory functions the kernel uses (GCC also emits calls
 * to memcpy, memmove, memset and memcmp on its own). memset, memcpy and
 * memmove are the architecture's (arch/x86_64/cpu/string.c: word at a time),
 * the others are in kern/lib/string.c. */
#ifndef KERN_LIB_STRING_H
#define KERN_LIB_STRING_H

#include <stddef.h>

void *memset(void *dst, int c, size_t n);
void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
/* Copies at most size-1 bytes and always terminates; returns strlen(src). */
size_t strlcpy(char *dst, const char *src, size_t size);

#endif
