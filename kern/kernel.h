/*
 * What every kernel file needs: panic, assertions, small helpers, and the
 * boot hand-off (a copy of the loader's struct boot_info).
 */
#ifndef KERN_KERNEL_H
#define KERN_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kern/lib/console.h"
#include "stitch/boot_info.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define ROUND_UP(x, a) (((x) + (a) - 1) / (a) * (a))
#define ROUND_DOWN(x, a) ((x) / (a) * (a))

/* The loader's hand-off, copied into the kernel image by kmain before the
 * loader's memory (identity-mapped) goes away with the boot page tables. */
extern struct boot_info boot_info;

__attribute__((noreturn, format(printf, 1, 2)))
void panic(const char *fmt, ...);

/* panic() with a backtrace that starts at the interrupted (ip, sp, fp)
 * instead of the caller: for the trap path, which reports the interrupted
 * code. */
__attribute__((noreturn, format(printf, 4, 5)))
void panic_at(uint64_t ip, uint64_t sp, uint64_t fp, const char *fmt, ...);
/* A panic is under way (on any CPU). */
bool in_panic(void);

#define assert(cond)                                                          \
	do {                                                                  \
		if (!(cond))                                                  \
			panic("assertion failed: %s at %s:%d", #cond,         \
			      __FILE__, __LINE__);                            \
	} while (0)

#endif
