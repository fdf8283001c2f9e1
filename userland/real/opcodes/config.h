/*
 * config.h for the opcodes files /bin/disreal is built from
 * (mk/binutils.mk): i386-dis.c, dis-buf.c, dis-init.c, disassemble.c.
 *
 * opcodes' configure script writes this file from probes of the host it
 * builds on; the "host" here is the SDK (newlib 3.3.0, x86_64, gcc), which
 * that script cannot probe (userland/real/libiberty/config.h says why). So
 * these are newlib's answers to the macros of opcodes' config.in that
 * those files and the headers they include test, written by hand.
 */
#ifndef STITCH_OPCODES_CONFIG_H
#define STITCH_OPCODES_CONFIG_H

/* bfd.h refuses to be read without config.h first, which it sees by these. */
#define PACKAGE "opcodes"
#define PACKAGE_VERSION "2.40"
#define STDC_HEADERS 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STRINGS_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_STDINT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_UNISTD_H 1
#define SIZEOF_VOID_P 8
/* newlib declares stpcpy (sysdep.h would declare it again otherwise). */
#define HAVE_DECL_STPCPY 1
/* libiberty.h's prototypes (none of them called here). */
#define HAVE_DECL_BASENAME 0
/* English messages only: no gettext (opintl.h). */
#undef ENABLE_NLS
/* disassemble.c: the one architecture this program prints. */
#define ARCH_i386 1

#endif
