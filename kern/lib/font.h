/*
 * The framebuffer console's font: one glyph of 8 pixels by `height` rows
 * per printable ASCII character, one byte per row, the leftmost pixel in
 * the top bit. build/kernel/font.c is generated from a Linux console font
 * of Debian's console-setup-linux by tools/psf2c (mk/kernel.mk).
 */
#ifndef KERN_LIB_FONT_H
#define KERN_LIB_FONT_H

#include <stdint.h>

#define FONT_FIRST  0x20 /* ' ' */
#define FONT_LAST   0x7e /* '~' */
#define FONT_WIDTH  8
#define FONT_MAX_HEIGHT 32

struct font {
	uint32_t height;
	uint8_t glyphs[FONT_LAST - FONT_FIRST + 1][FONT_MAX_HEIGHT];
};

extern const struct font console_font;

#endif
