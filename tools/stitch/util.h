/* Allocation that cannot fail quietly, and small string helpers. */
#ifndef STITCH_UTIL_H
#define STITCH_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "stitch: <message>" and exit(2): for the command line and I/O only. */
/* A JSON string: quotes, backslashes and control characters escaped. */
void json_str(FILE *f, const char *s);
/* The whole file, or standard input for "-"; NULL (errno set) when it
 * cannot be opened. A read error is fatal. The caller frees it. */
uint8_t *read_file(const char *path, size_t *len);
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
