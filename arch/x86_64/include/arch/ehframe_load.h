/*
 * The .eh_frame library's in-place load for the kernel build
 * (ehframe/read.c, -DEH_ENV_LOAD_H): a section in user memory is read with
 * one user load per field, inside the window the unwinder opened. Fields
 * are 1, 2, 4 or 8 bytes; anything else is read a byte at a time.
 */
#ifndef ARCH_X86_64_EHFRAME_LOAD_H
#define ARCH_X86_64_EHFRAME_LOAD_H

#include <arch/user_load.h>

static inline __attribute__((always_inline)) bool
eh_env_load(uint64_t addr, uint32_t len, void *dst)
{
	if (len == 1 || len == 2 || len == 4 || len == 8)
		return arch_user_load(addr, len, dst);
	for (uint32_t i = 0; i < len; i++)
		if (!arch_user_load(addr + i, 1, (uint8_t *)dst + i))
			return false;
	return true;
}

#endif
