#include "kern/ringbuf.h"
#include "kern/string.h"

void ring_init(struct ringbuf *r, void *buf, uint64_t size)
{
	r->buf = buf;
	r->size = size;
	r->head = r->tail = r->lost = 0;
}

void ring_write_wrapped(struct ringbuf *r, uint64_t at, const void *src, uint32_t len)
{
	uint64_t first = r->size - at;
	memcpy(r->buf + at, src, first);
	memcpy(r->buf, (const uint8_t *)src + first, len - first);
}

void ring_peek_wrapped(const struct ringbuf *r, uint64_t at, void *dst, uint32_t len)
{
	uint64_t first = r->size - at;
	memcpy(dst, r->buf + at, first);
	memcpy((uint8_t *)dst + first, r->buf, len - first);
}

uint64_t ring_take_lost(struct ringbuf *r)
{
	uint64_t n = __atomic_load_n(&r->lost, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&r->lost, n, __ATOMIC_RELAXED);
	return n;
}
