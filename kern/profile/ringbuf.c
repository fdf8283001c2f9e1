#include "kern/profile/ringbuf.h"
#include "kern/lib/string.h"

void ring_init(struct ringbuf *r, void *buf, uint64_t size)
{
	r->buf = buf;
	r->size = size;
	r->head = r->tail = r->lost = 0;
}

/* The copies of the inline producer and consumer (ringbuf.h) that wrap:
 * between a linear buffer and ring position pos, in at most two pieces
 * (the second after the wrap). */
void ring_write_wrapped(struct ringbuf *r, uint64_t pos, const void *src, uint32_t len)
{
	uint64_t at = pos & (r->size - 1), first = r->size - at;
	if (first >= len) {
		memcpy(r->buf + at, src, len);
	} else {
		memcpy(r->buf + at, src, first);
		memcpy(r->buf, (const uint8_t *)src + first, len - first);
	}
}

void ring_peek_wrapped(const struct ringbuf *r, uint64_t pos, void *dst, uint32_t len)
{
	uint64_t at = pos & (r->size - 1), first = r->size - at;
	if (first >= len) {
		memcpy(dst, r->buf + at, len);
	} else {
		memcpy(dst, r->buf + at, first);
		memcpy((uint8_t *)dst + first, r->buf, len - first);
	}
}

uint64_t ring_take_lost(struct ringbuf *r)
{
	uint64_t n = __atomic_load_n(&r->lost, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&r->lost, n, __ATOMIC_RELAXED);
	return n;
}
