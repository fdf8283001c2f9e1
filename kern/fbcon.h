/*
 * The framebuffer console: what the kernel prints on COM1 also appears on
 * the GOP framebuffer the loader found, below the firmware's and the
 * loader's own lines, in the font of kern/font.h, scrolling.
 */
#ifndef KERN_FBCON_H
#define KERN_FBCON_H

#include <stddef.h>

#include "stitch/boot_info.h"

/* Takes the framebuffer (none: the console stays serial only). */
void fbcon_init(const struct boot_framebuffer *fb);
/* Draws s[0, n): '\n' ends a line, '\t' goes to the next multiple of 8. */
void fbcon_write(const char *s, size_t n);

#endif
