/* Allocation that cannot fail quietly, and small string helpers. */
#ifndef STITCH_UTIL_H
#define STITCH_UTIL_H

#include <stddef.h>
#include <stdio.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "stitch: <message>" and exit(2): for the command line and I/O only. */
/* A JSON string: quotes, backslashes and control characters escaped. */
void json_str(FILE *f, const char *s);
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
