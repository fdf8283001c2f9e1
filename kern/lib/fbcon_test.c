#include "kern/lib/fbcon.h"
#include "kern/lib/font.h"
#include "kern/kernel.h"
#include "kern/mm/kmalloc.h"
#include "kern/lib/ktest.h"
#include "kern/mm/mm.h"
#include "kern/lib/string.h"

/* A framebuffer in RAM: 12 columns of 8 pixels, a pitch wider than the
 * line, TOP scan lines of "firmware text" (a pattern), 16 rows below. */
#define COLS  12
#define PITCH (COLS * FONT_WIDTH * 4 + 64)
#define TOP   20
#define ROWS  16
#define FIRMWARE 0x55555555u

static uint32_t px(const uint8_t *fb, uint32_t x, uint32_t y)
{
	return ((const uint32_t *)(fb + (uint64_t)y * PITCH))[x];
}

/* Does text cell (row, col) show c, pixel for pixel? */
static bool shows(const uint8_t *fb, uint32_t top, uint32_t row, uint32_t col, char c)
{
	const uint8_t *g = console_font.glyphs[c - FONT_FIRST];
	for (uint32_t y = 0; y < console_font.height; y++)
		for (uint32_t x = 0; x < FONT_WIDTH; x++) {
			uint32_t want = g[y] & (0x80 >> x) ? FBCON_FG : FBCON_BG;
			if (px(fb, col * FONT_WIDTH + x, top + row * console_font.height + y) != want)
				return false;
		}
	return true;
}

static bool top_kept(const uint8_t *fb)
{
	for (uint32_t y = 0; y < TOP; y++)
		for (uint32_t x = 0; x < PITCH / 4; x++)
			if (px(fb, x, y) != FIRMWARE)
				return false;
	return true;
}

KTEST(fbcon_draws_below_the_loader)
{
	uint32_t height = TOP + ROWS * console_font.height;
	uint64_t bytes = (uint64_t)PITCH * height;
	uint8_t *fb = kmalloc(bytes);
	struct fbcon *con = kzalloc(sizeof(*con));
	KASSERT(t, fb && con);
	for (uint64_t i = 0; i < bytes / 4; i++)
		((uint32_t *)fb)[i] = FIRMWARE;
	struct boot_framebuffer bf = { .base = v2p(fb), .size = bytes, .width = COLS * FONT_WIDTH,
				       .height = height, .pitch = PITCH, .format = BOOT_FB_BGRX,
				       .text_bottom = TOP };
	KASSERT(t, fbcon_setup(con, &bf));
	KEXPECT_EQ(t, con->cols, COLS);
	KEXPECT_EQ(t, con->rows, ROWS);
	KEXPECT(t, top_kept(fb));
	KEXPECT(t, px(fb, 0, TOP) == FBCON_BG && px(fb, PITCH / 4 - 1, height - 1) == FBCON_BG);

	/* A tab to column 8, a line longer than the screen wraps. */
	fbcon_put(con, "AB\tx\n0123456789abcd", 19);
	KEXPECT(t, shows(fb, TOP, 0, 0, 'A') && shows(fb, TOP, 0, 1, 'B'));
	KEXPECT(t, shows(fb, TOP, 0, 2, ' ') && shows(fb, TOP, 0, 7, ' ') &&
		   shows(fb, TOP, 0, 8, 'x'));
	KEXPECT(t, shows(fb, TOP, 1, 0, '0') && shows(fb, TOP, 1, 11, 'b'));
	KEXPECT(t, shows(fb, TOP, 2, 0, 'c') && shows(fb, TOP, 2, 1, 'd'));
	KEXPECT_EQ(t, con->row, 2);

	/* Scrolling: 14 more lines push the first off the top; row 0 shows
	 * what was row 1, and the firmware's lines stay. */
	for (int i = 0; i < 14; i++)
		fbcon_put(con, "\nz", 2);
	KEXPECT(t, shows(fb, TOP, 0, 0, '0') && shows(fb, TOP, 0, 11, 'b'));
	KEXPECT(t, shows(fb, TOP, 1, 0, 'c') && shows(fb, TOP, 1, 2, ' '));
	KEXPECT(t, shows(fb, TOP, ROWS - 1, 0, 'z') && shows(fb, TOP, ROWS - 1, 1, ' '));
	KEXPECT(t, top_kept(fb));
	/* A character outside printable ASCII is drawn as '?'. */
	fbcon_put(con, "\x01", 1);
	KEXPECT(t, shows(fb, TOP, ROWS - 1, 1, '?'));

	/* Fewer than 16 rows below the text: the whole screen. */
	bf.text_bottom = TOP + console_font.height;
	KASSERT(t, fbcon_setup(con, &bf));
	KEXPECT_EQ(t, con->top, 0);
	fbcon_put(con, "Q", 1);
	KEXPECT(t, shows(fb, 0, 0, 0, 'Q'));

	/* What it refuses: no framebuffer, above 4 GiB, a pitch shorter than
	 * a line, a size smaller than pitch x height. */
	struct boot_framebuffer bad = bf;
	bad.base = 0;
	KEXPECT(t, !fbcon_setup(con, &bad));
	bad = bf;
	bad.base = 5ull << 30;
	KEXPECT(t, !fbcon_setup(con, &bad));
	bad = bf;
	bad.pitch = COLS * FONT_WIDTH * 4 - 4;
	KEXPECT(t, !fbcon_setup(con, &bad));
	bad = bf;
	bad.size = bytes - 4;
	KEXPECT(t, !fbcon_setup(con, &bad));
	kfree(con);
	kfree(fb);
}
