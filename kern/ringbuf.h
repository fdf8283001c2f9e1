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
#ifndef KERN_RINGBUF_H
#define KERN_RINGBUF_H

#include <stdbool.h>
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

/* Producer: appends len bytes (a whole record) or drops them and counts
 * the loss. False when dropped. */
bool ring_write(struct ringbuf *r, const void *rec, uint32_t len);

/* Consumer: bytes readable now. */
uint64_t ring_used(const struct ringbuf *r);
/* Consumer: copies len bytes at offset off from the tail (off + len <=
 * ring_used) without consuming them. */
void ring_peek(const struct ringbuf *r, uint64_t off, void *dst, uint32_t len);
/* Consumer: frees the first len bytes. */
void ring_consume(struct ringbuf *r, uint32_t len);
/* Consumer: takes the count of dropped records (and resets it). */
uint64_t ring_take_lost(struct ringbuf *r);

/* Producer: ring_write for a record given in n pieces (a header here, its
 * entries there), copied one after the other into one reservation and
 * published together: no staging copy of the whole record. */
struct ring_piece {
	const void *p;
	uint32_t len;
};
bool ring_writev(struct ringbuf *r, const struct ring_piece *v, unsigned n);

#endif
