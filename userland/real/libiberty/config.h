/*
 * config.h for the few libiberty files /bin/dmreal and /bin/rxreal are
 * built from (mk/binutils.mk): cplus-dem.c, cp-demangle.c, rust-demangle.c,
 * d-demangle.c, safe-ctype.c, xmalloc.c, xstrdup.c, xexit.c; regex.c.
 *
 * libiberty's configure script writes this file from probes of the host
 * it builds on; here the "host" is the SDK (newlib 3.3.0, x86_64, gcc),
 * and running that configure script would probe the Linux build machine
 * instead. So these are the answers for newlib, written by hand: only the
 * macros those files test (grep HAVE_ in them), each true of newlib
 * 3.3.0's headers and of libstitch.a (sbrk).
 */
#ifndef STITCH_LIBIBERTY_CONFIG_H
#define STITCH_LIBIBERTY_CONFIG_H

/* ISO C headers (regex.c includes <stdlib.h> and <string.h> on it). */
#define STDC_HEADERS 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_LIMITS_H 1
#define HAVE_UNISTD_H 1
#define HAVE_LONG_LONG 1
/* libstitch.a's sbrk: xmalloc's out-of-memory message says how much the
 * program had allocated. */
#define HAVE_SBRK 1
#define HAVE_DECL_SBRK 1
/* newlib declares these; libiberty.h must not declare them again. */
#define HAVE_DECL_CALLOC 1
#define HAVE_DECL_MALLOC 1
#define HAVE_DECL_REALLOC 1
#define HAVE_DECL_STRTOL 1
#define HAVE_DECL_STRTOUL 1
#define HAVE_DECL_STRTOLL 1
#define HAVE_DECL_STRTOULL 1
#define HAVE_DECL_SNPRINTF 1
#define HAVE_DECL_VSNPRINTF 1
#define HAVE_DECL_STRNLEN 1
/* Not declared by newlib's headers in gnu11 without _GNU_SOURCE: libiberty.h
 * declares them (prototypes only; none is called by these files). */
#define HAVE_DECL_ASPRINTF 0
#define HAVE_DECL_VASPRINTF 0
#define HAVE_DECL_BASENAME 0
#define HAVE_DECL_FFS 0
#define HAVE_DECL_STRVERSCMP 0

#endif
