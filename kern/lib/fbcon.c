/*
 * The framebuffer console.
 *
 * Text goes into a grid of characters first; after each write, the cells
 * whose character differs from what the screen shows are drawn. So the
 * kernel only ever writes the framebuffer, never reads it: the firmware
 * maps it uncached (the direct map does too), where a read costs a bus
 * round trip and a scroll by copying pixels would read the whole screen.
 * Scrolling moves the grid up one line; the redraw then touches only the
 * cells that changed.
 *
 * The area above boot_framebuffer.text_bottom (the firmware's and the
 * loader's lines) is never drawn on or scrolled: those lines stay.
 *
 * No lock, like the serial console: one CPU, and a panic in NMI context
 * must still print (at worst it garbles a line being drawn).
 */
#include "kern/lib/fbcon.h"
#include "kern/lib/font.h"
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/lib/string.h"

#define MIN_ROWS 16  /* fewer below the loader's lines: use the whole screen */
#define FG FBCON_FG
#define BG FBCON_BG

static struct fbcon screen;

static void draw_cell(struct fbcon *con, uint32_t row, uint32_t col, char c)
{
	const uint8_t *g = console_font.glyphs[c - FONT_FIRST];
	uint8_t *line = (uint8_t *)p2v(con->base) +
			(uint64_t)(con->top + row * console_font.height) * con->pitch;

	for (uint32_t y = 0; y < console_font.height; y++, line += con->pitch) {
		volatile uint32_t *px = (volatile uint32_t *)line + col * FONT_WIDTH;
		for (int x = 0; x < FONT_WIDTH; x++)
			px[x] = g[y] & (0x80 >> x) ? FG : BG;
	}
}

static void sync(struct fbcon *con)
{
	for (uint32_t r = 0; r < con->rows; r++)
		for (uint32_t c = 0; c < con->cols; c++)
			if (con->grid[r][c] != con->shown[r][c]) {
				draw_cell(con, r, c, con->grid[r][c]);
				con->shown[r][c] = con->grid[r][c];
			}
}

static void newline(struct fbcon *con)
{
	con->col = 0;
	if (con->row + 1 < con->rows) {
		con->row++;
		return;
	}
	memmove(con->grid[0], con->grid[1], sizeof(con->grid[0]) * (con->rows - 1));
	memset(con->grid[con->rows - 1], ' ', sizeof(con->grid[0]));
}

static void put(struct fbcon *con, char c)
{
	if (c == '\n') {
		newline(con);
		return;
	}
	if (c == '\t') {
		do
			put(con, ' ');
		while (con->col % 8);
		return;
	}
	if (c == '\r')
		return; /* lines end with '\n' in the kernel; CR is the UART's */
	if (con->col == con->cols)
		newline(con);
	con->grid[con->row][con->col++] = c >= FONT_FIRST && c <= FONT_LAST ? c : '?';
}

/* Every pixel of [top, height) to the background: the firmware's logo
 * goes, and `shown` is true from the start. */
static void clear(struct fbcon *con, uint32_t height)
{
	for (uint32_t y = con->top; y < height; y++) {
		volatile uint32_t *px = (volatile uint32_t *)
			((uint8_t *)p2v(con->base) + (uint64_t)y * con->pitch);
		for (uint32_t x = 0; x < con->pitch / 4; x++)
			px[x] = BG;
	}
	memset(con->grid, ' ', sizeof(con->grid));
	memset(con->shown, ' ', sizeof(con->shown));
}

bool fbcon_setup(struct fbcon *con, const struct boot_framebuffer *fb)
{
	/* The direct map covers 0-4 GiB (kern/mm/kernel_space.c); a framebuffer above it
	 * (some machines place it there) stays dark. */
	if (!fb->base || fb->base + fb->size > (4ull << 30) ||
	    (uint64_t)fb->pitch * fb->height > fb->size || fb->pitch < fb->width * 4)
		return false;
	con->base = fb->base;
	con->pitch = fb->pitch;
	con->top = MIN(fb->text_bottom, fb->height);
	if ((fb->height - con->top) / console_font.height < MIN_ROWS)
		con->top = 0;
	con->cols = MIN(fb->width / FONT_WIDTH, FBCON_MAX_COLS);
	con->rows = MIN((fb->height - con->top) / console_font.height, FBCON_MAX_ROWS);
	con->col = con->row = 0;
	if (con->rows == 0 || con->cols == 0)
		return false;
	clear(con, fb->height);
	return true;
}

void fbcon_put(struct fbcon *con, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put(con, s[i]);
	sync(con);
}

void fbcon_init(const struct boot_framebuffer *fb)
{
	screen.on = fbcon_setup(&screen, fb);
}

void fbcon_write(const char *s, size_t n)
{
	if (screen.on)
		fbcon_put(&screen, s, n);
}
