#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/profile/ringbuf.h"
#include "kern/lib/string.h"

/* Records of 24 bytes in a 64-byte ring: the third one wraps. */
static uint8_t area[64];

/* Writes and reads go around the end of the buffer many times; every
 * record comes back whole, byte for byte. */
KTEST(ringbuf_wraps)
{
	struct ringbuf r;
	uint8_t rec[24], out[24];
	ring_init(&r, area, sizeof area);
	for (int i = 0; i < 50; i++) {
		ktest_fill(rec, sizeof rec, (uint8_t)(i * 7));
		KASSERT(t, ring_write(&r, rec, sizeof rec));
		KASSERT_EQ(t, ring_used(&r), sizeof rec);
		ring_peek(&r, 0, out, sizeof out);
		KASSERT(t, ktest_same(out, sizeof out, (uint8_t)(i * 7)));
		ring_consume(&r, sizeof out);
	}
	KEXPECT_EQ(t, r.head, 50 * sizeof rec); /* 18 times around */
	KEXPECT_EQ(t, ring_take_lost(&r), 0);
}

/* A full ring drops the new record whole, counts it, and keeps the old
 * ones intact; consuming makes room again; the count is taken once. */
KTEST(ringbuf_full_drops_and_counts)
{
	struct ringbuf r;
	uint8_t rec[24], out[24], big[65] = { 0 };
	ring_init(&r, area, sizeof area);
	ktest_fill(rec, sizeof rec, 1);
	KASSERT(t, ring_write(&r, rec, sizeof rec));
	ktest_fill(rec, sizeof rec, 2);
	KASSERT(t, ring_write(&r, rec, sizeof rec));
	ktest_fill(rec, sizeof rec, 3);
	KEXPECT(t, !ring_write(&r, rec, sizeof rec)); /* 48 used, 16 free */
	KEXPECT(t, !ring_write(&r, rec, sizeof rec));
	KEXPECT(t, ring_write(&r, rec, 16));          /* exactly fits */
	KEXPECT(t, !ring_write(&r, rec, 8));
	KEXPECT_EQ(t, ring_used(&r), 64);
	ring_peek(&r, 0, out, sizeof out);
	KEXPECT(t, ktest_same(out, sizeof out, 1));
	ring_peek(&r, 24, out, sizeof out);
	KEXPECT(t, ktest_same(out, sizeof out, 2));
	KEXPECT_EQ(t, ring_take_lost(&r), 3);
	KEXPECT_EQ(t, ring_take_lost(&r), 0);
	ring_consume(&r, 24);
	ktest_fill(rec, sizeof rec, 4);
	KEXPECT(t, ring_write(&r, rec, sizeof rec));
	KEXPECT(t, !ring_write(&r, big, sizeof big)); /* larger than the ring */
	KEXPECT_EQ(t, ring_take_lost(&r), 1);
}

/* Records of different sizes come out in the order they went in, with
 * the producer up to a full ring ahead of the consumer. */
KTEST(ringbuf_order)
{
	static const uint32_t sizes[] = { 8, 16, 24, 8, 32, 16, 8, 40, 8, 24 };
	struct ringbuf r;
	uint8_t rec[40];
	uint32_t in = 0, out = 0;
	ring_init(&r, area, sizeof area);
	for (int step = 0; step < 400; step++) {
		uint32_t len = sizes[in % ARRAY_SIZE(sizes)];
		/* Two writes for each read while there is room. */
		if (step % 3 != 2 && r.size - ring_used(&r) >= len) {
			ktest_fill(rec, len, (uint8_t)in);
			KASSERT(t, ring_write(&r, rec, len));
			in++;
		} else if (out < in) {
			len = sizes[out % ARRAY_SIZE(sizes)];
			KASSERT(t, ring_used(&r) >= len);
			ring_peek(&r, 0, rec, len);
			KASSERT(t, ktest_same(rec, len, (uint8_t)out));
			ring_consume(&r, len);
			out++;
		}
	}
	KEXPECT(t, out > 100);
	KEXPECT(t, r.head > 20 * sizeof area); /* around many times */
	KEXPECT_EQ(t, ring_take_lost(&r), 0);
}

/* A record in pieces (a header here, entries there) comes out as the
 * pieces one after the other, whole, also across the wrap; a record that
 * does not fit is dropped whole and counted, as with ring_write. */
KTEST(ringbuf_writev_pieces)
{
	struct ringbuf r;
	uint8_t head[8], body[16], out[24];
	ring_init(&r, area, sizeof area);
	for (int i = 0; i < 20; i++) {
		for (int k = 0; k < 8; k++)
			head[k] = (uint8_t)(i + k);
		for (int k = 0; k < 16; k++)
			body[k] = (uint8_t)(i + 8 + k);
		struct ring_piece v[2] = { { head, sizeof head }, { body, sizeof body } };
		KASSERT(t, ring_writev(&r, v, 2, 0));
		KASSERT_EQ(t, ring_used(&r), sizeof out);
		ring_peek(&r, 0, out, sizeof out);
		KASSERT(t, ktest_same(out, sizeof out, (uint8_t)i));
		ring_consume(&r, sizeof out);
	}
	struct ring_piece big[2] = { { area, 40 }, { area, 32 } };
	KEXPECT(t, !ring_writev(&r, big, 2, 0)); /* 72 bytes: more than the ring */
	KEXPECT_EQ(t, ring_used(&r), 0);
	KEXPECT_EQ(t, ring_take_lost(&r), 1);
}

/* A writer that keeps room leaves it to the others: its record is dropped
 * (and counted) when it would eat into the room, theirs still fit. */
KTEST(ringbuf_writev_keeps_room)
{
	struct ringbuf r;
	uint8_t rec[24] = { 0 };
	struct ring_piece v[1] = { { rec, sizeof rec } };
	ring_init(&r, area, sizeof area);
	KEXPECT(t, !ring_writev(&r, v, 1, sizeof area - 16)); /* 24 + 48 > 64 */
	KEXPECT_EQ(t, ring_used(&r), 0);
	KEXPECT_EQ(t, ring_take_lost(&r), 1);
	KEXPECT(t, ring_writev(&r, v, 1, sizeof area - 24));  /* exactly */
	KEXPECT(t, !ring_writev(&r, v, 1, 24));               /* 24 + 24 > 40 free */
	KEXPECT(t, ring_write(&r, rec, 40 - 16));             /* the kept room */
	KEXPECT_EQ(t, ring_used(&r), 48);
	KEXPECT_EQ(t, ring_take_lost(&r), 1);
}
