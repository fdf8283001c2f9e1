#include "kern/ringbuf.h"
#include "kern/string.h"

void ring_init(struct ringbuf *r, void *buf, uint64_t size)
{
	r->buf = buf;
	r->size = size;
	r->head = r->tail = r->lost = 0;
}

/* Records that wrap around the end of the buffer are copied in two
 * pieces, the second from the start, out of line: records are a few
 * hundred bytes and the rings MiBs, so the writer and the reader mostly
 * take the one-piece path, one memcpy (ring_peek, ringbuf.h). */
static __attribute__((noinline)) void copy_in_wrapped(struct ringbuf *r, uint64_t at,
						      const uint8_t *src, uint32_t len)
{
	uint64_t first = r->size - at;
	memcpy(r->buf + at, src, first);
	memcpy(r->buf, src + first, len - first);
}

void ring_peek_wrapped(const struct ringbuf *r, uint64_t at, void *dst, uint32_t len)
{
	uint64_t first = r->size - at;
	memcpy(dst, r->buf + at, first);
	memcpy((uint8_t *)dst + first, r->buf, len - first);
}

bool ring_write(struct ringbuf *r, const void *rec, uint32_t len)
{
	uint64_t head = r->head; /* ours: no other writer */
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	if (!r->buf || len > r->size - (head - tail)) {
		__atomic_fetch_add(&r->lost, 1, __ATOMIC_RELAXED);
		return false;
	}
	uint64_t at = head & (r->size - 1);
	if (at + len <= r->size)
		memcpy(r->buf + at, rec, len);
	else
		copy_in_wrapped(r, at, rec, len);
	__atomic_store_n(&r->head, head + len, __ATOMIC_RELEASE);
	return true;
}

uint64_t ring_take_lost(struct ringbuf *r)
{
	uint64_t n = __atomic_load_n(&r->lost, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&r->lost, n, __ATOMIC_RELAXED);
	return n;
}
