/*
 * The framebuffer console: what the kernel prints on COM1 also appears on
 * the GOP framebuffer the loader found, below the firmware's and the
 * loader's own lines, in the font of kern/lib/font.h, scrolling.
 */
#ifndef KERN_LIB_FBCON_H
#define KERN_LIB_FBCON_H

#include <stddef.h>

#include "stitch/boot_info.h"

#include <stdbool.h>
#include <stdint.h>

#define FBCON_MAX_COLS 240 /* 1920 pixels of 8; a wider screen keeps a margin */
#define FBCON_MAX_ROWS 135 /* 2160 lines of 16 */
#define FBCON_FG 0x00d0d0d0u /* light grey: the same in RGBX and BGRX */
#define FBCON_BG 0x00000000u

/* One console on one framebuffer: the kernel's (fbcon_init), or a test's. */
struct fbcon {
	uint64_t base;     /* physical; p2v() each time, as kernel_space_init moves it */
	uint32_t pitch;
	uint32_t top;      /* first scan line of row 0 */
	uint32_t cols, rows;
	uint32_t col, row; /* the cursor */
	bool on;
	char grid[FBCON_MAX_ROWS][FBCON_MAX_COLS];  /* what should be shown */
	char shown[FBCON_MAX_ROWS][FBCON_MAX_COLS]; /* what the screen shows */
};

/* Takes fb for con and clears it below fb->text_bottom; false (nothing
 * written) for a framebuffer it cannot use. */
bool fbcon_setup(struct fbcon *con, const struct boot_framebuffer *fb);
/* Draws s[0, n) on con. */
void fbcon_put(struct fbcon *con, const char *s, size_t n);

/* The kernel's console: takes the framebuffer (none: the console stays
 * serial only). */
void fbcon_init(const struct boot_framebuffer *fb);
/* Draws s[0, n): '\n' ends a line, '\t' goes to the next multiple of 8. */
void fbcon_write(const char *s, size_t n);

#endif
