/*
 * <stitch_dl.h>: a small user-space loader for position-independent shared
 * objects (userland/lib/dl.c), the kind of loader the kernel cannot see
 * into: it maps the object's PT_LOAD segments itself (SYS_mmap of the
 * initrd file, so the kernel reports the executable mapping to the
 * profiler), applies its relocations, and registers its PT_GNU_SFRAME for
 * its text with stacktrace_setup(), so that the deferred unwinder can walk
 * through the object's frames.
 *
 * The object must be self-contained: R_X86_64_RELATIVE, _64, GLOB_DAT and
 * JUMP_SLOT relocations whose symbols it defines itself (no libc, no other
 * objects); its hash table must be DT_HASH (-Wl,--hash-style=sysv).
 */
#ifndef STITCH_DL_H
#define STITCH_DL_H

struct dl_object;

/* Loads the initrd file path. NULL and errno on failure (ENOEXEC for
 * what this loader cannot load, what stacktrace_setup returned for a
 * refused SFrame section). */
struct dl_object *dl_open(const char *path);

/* The address of the object's defined symbol name, or NULL. */
void *dl_sym(struct dl_object *o, const char *name);

/* Drops the SFrame (and .eh_frame) registration while the object stays mapped (its frames
 * then fall back to frame pointers). 0, or -1 and errno. */
int dl_unregister(struct dl_object *o);

/* Unregisters (if still registered) and unmaps; frees o. 0 or -1. */
int dl_close(struct dl_object *o);

#endif
