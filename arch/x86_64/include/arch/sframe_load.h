/*
 * The SFrame library's in-place load for the kernel build (sframe/internal.h,
 * -DSF_ENV_LOAD_H): a section or stack in user memory is read with one
 * user load per field, inside the window the unwinder opened.
 */
#ifndef ARCH_X86_64_SFRAME_LOAD_H
#define ARCH_X86_64_SFRAME_LOAD_H

#include <arch/user_load.h>

static inline __attribute__((always_inline)) bool
sf_env_load(uint64_t addr, uint32_t len, void *dst)
{
	return arch_user_load(addr, len, dst);
}

/* A section read in place lies wholly in user memory (sf_open checks it
 * with sf_env_range_ok): its loads need no range check each. */
static inline __attribute__((always_inline)) bool
sf_env_range_ok(uint64_t addr, uint64_t len)
{
	return arch_user_range_ok(addr, len);
}

static inline __attribute__((always_inline)) bool
sf_env_load_in_range(uint64_t addr, uint32_t len, void *dst)
{
	return arch_user_load_in_range(addr, len, dst);
}

#endif
