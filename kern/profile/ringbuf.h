/*
 * A byte ring of whole records with one producer and one consumer that
 * never wait for each other.
 *
 * head and tail count bytes since the start and never wrap (2^64 bytes is
 * centuries); the ring holds bytes [tail, head). Only the producer stores
 * head, only the consumer stores tail. The producer writes the record's
 * bytes and then publishes them with a release store of head; the consumer
 * reads head with acquire before it reads the bytes, and gives the space
 * back with a release store of tail, which the producer loads with acquire
 * before it reuses the space. A record that does not fit is dropped whole
 * and counted in `lost`; nothing is ever overwritten.
 *
 * "One producer" is the caller's promise: the profiler keeps one ring per
 * CPU for its NMI handler (NMIs do not nest) and one for normal context
 * with interrupts disabled (the NMI never writes it), see record.c.
 */
#ifndef KERN_PROFILE_RINGBUF_H
#define KERN_PROFILE_RINGBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ringbuf {
	uint8_t *buf;
	uint64_t size;  /* a power of two */
	uint64_t head;  /* producer: end of the last published record */
	uint64_t tail;  /* consumer: start of the next unread record */
	uint64_t lost;  /* dropped records not yet reported (producer adds,
			 * consumer subtracts what it reported) */
};

void ring_init(struct ringbuf *r, void *buf, uint64_t size);

/* The calls a record passes through are inline: the producer's, one per
 * record (the NMI's included), and the consumer's, with which the drain
 * looks at the next record of every ring (header and time stamp) for each
 * record it moves. What wraps around the end of the buffer takes two
 * copies, out of line: records are a few hundred bytes and the rings
 * MiBs, so that is rare. */

/* ring_writev's and ring_peek's bytes that wrap, at ring position pos. */
void ring_write_wrapped(struct ringbuf *r, uint64_t pos, const void *src, uint32_t len);
void ring_peek_wrapped(const struct ringbuf *r, uint64_t pos, void *dst, uint32_t len);

/*
 * Producer: appends a record given in n pieces (a header here, its
 * entries there) or drops it whole and counts the loss; false when
 * dropped. The pieces are copied one after the other into one
 * reservation and published together: no staging copy of the record.
 * keep bytes must stay free after it: room a bulk record leaves for
 * rarer ones (record.c).
 */
struct ring_piece {
	const void *p;
	uint32_t len;
};
static inline bool ring_writev(struct ringbuf *r, const struct ring_piece *v, unsigned n,
			       uint64_t keep)
{
	uint64_t head = r->head, at = head; /* ours: no other writer */
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE), len = 0;
	for (unsigned i = 0; i < n; i++)
		len += v[i].len;
	if (!r->buf || len + keep > r->size - (head - tail)) {
		__atomic_fetch_add(&r->lost, 1, __ATOMIC_RELAXED);
		return false;
	}
	for (unsigned i = 0; i < n; at += v[i].len, i++) {
		uint64_t off = at & (r->size - 1);
		if (off + v[i].len <= r->size)
			__builtin_memcpy(r->buf + off, v[i].p, v[i].len);
		else
			ring_write_wrapped(r, at, v[i].p, v[i].len);
	}
	__atomic_store_n(&r->head, at, __ATOMIC_RELEASE);
	return true;
}

/* Producer: the same for a record in one piece. */
static inline bool ring_write(struct ringbuf *r, const void *rec, uint32_t len)
{
	struct ring_piece v = { rec, len };
	return ring_writev(r, &v, 1, 0);
}

/* Consumer: bytes readable now. */
static inline uint64_t ring_used(const struct ringbuf *r)
{
	return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - r->tail;
}

/* Consumer: copies len bytes at offset off from the tail (off + len <=
 * ring_used) without consuming them. */
static inline void ring_peek(const struct ringbuf *r, uint64_t off, void *dst, uint32_t len)
{
	uint64_t pos = r->tail + off, at = pos & (r->size - 1);
	if (at + len <= r->size)
		__builtin_memcpy(dst, r->buf + at, len); /* a load, for a header */
	else
		ring_peek_wrapped(r, pos, dst, len);
}

/* Consumer: the first len bytes (len <= ring_used) where they lie, or
 * NULL when they wrap around the end of the buffer (ring_peek copies
 * them). Valid until ring_consume gives them back. */
static inline const void *ring_span(const struct ringbuf *r, uint32_t len)
{
	uint64_t at = r->tail & (r->size - 1);
	return at + len <= r->size ? r->buf + at : NULL;
}

/* Consumer: frees the first len bytes. */
static inline void ring_consume(struct ringbuf *r, uint32_t len)
{
	__atomic_store_n(&r->tail, r->tail + len, __ATOMIC_RELEASE);
}

/* Consumer: takes the count of dropped records (and resets it). */
uint64_t ring_take_lost(struct ringbuf *r);

#endif
