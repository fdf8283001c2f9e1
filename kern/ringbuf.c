#include "kern/ringbuf.h"
#include "kern/string.h"

void ring_init(struct ringbuf *r, void *buf, uint64_t size)
{
	r->buf = buf;
	r->size = size;
	r->head = r->tail = r->lost = 0;
}

/* Copies between a linear buffer and ring position pos, in at most two
 * pieces (the second after the wrap). */
static void copy_in(struct ringbuf *r, uint64_t pos, const uint8_t *src, uint32_t len)
{
	uint64_t at = pos & (r->size - 1), first = r->size - at;
	if (first >= len) {
		memcpy(r->buf + at, src, len);
	} else {
		memcpy(r->buf + at, src, first);
		memcpy(r->buf, src + first, len - first);
	}
}

static void copy_out(const struct ringbuf *r, uint64_t pos, uint8_t *dst, uint32_t len)
{
	uint64_t at = pos & (r->size - 1), first = r->size - at;
	if (first >= len) {
		memcpy(dst, r->buf + at, len);
	} else {
		memcpy(dst, r->buf + at, first);
		memcpy(dst + first, r->buf, len - first);
	}
}

/* The inline producer's and consumer's (ringbuf.h) copies that wrap. */
void ring_write_wrapped(struct ringbuf *r, uint64_t pos, const void *src, uint32_t len)
{
	copy_in(r, pos, src, len);
}

void ring_peek_wrapped(const struct ringbuf *r, uint64_t pos, void *dst, uint32_t len)
{
	copy_out(r, pos, dst, len);
}

uint64_t ring_take_lost(struct ringbuf *r)
{
	uint64_t n = __atomic_load_n(&r->lost, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&r->lost, n, __ATOMIC_RELAXED);
	return n;
}
