#include "arch/x86_64/channel/ivshmem.h"
#include "kern/kernel.h"
#include "kern/lib/ktest.h"

/* An area of 8 KiB: a 64-byte header, 8128 bytes of data, of which the
 * last 1024 are the reserve. */
#define AREA    8192
#define RESERVE 1024
static uint64_t area[AREA / 8];

/* The header the host tool reads: magic, version, where the data is, how
 * big it is, nothing written; an area without room for the reserve and a
 * stream start is refused untouched. */
KTEST(shm_stream_format)
{
	struct shm_stream s;
	area[0] = 0;
	KEXPECT(t, !shm_stream_init(&s, area, sizeof(struct shm_header) + RESERVE + 4095,
				    RESERVE));
	KEXPECT_EQ(t, area[0], 0);
	KASSERT(t, shm_stream_init(&s, area, AREA, RESERVE));
	struct shm_header *h = (struct shm_header *)area;
	KEXPECT_EQ(t, sizeof *h, 64);
	KEXPECT_EQ(t, h->magic, SHM_MAGIC);
	KEXPECT_EQ(t, h->version, SHM_VERSION);
	KEXPECT_EQ(t, h->data_offset, 64);
	KEXPECT_EQ(t, h->data_size, AREA - 64);
	KEXPECT_EQ(t, h->written, 0);
	KEXPECT_EQ(t, h->dropped, 0);
}

/* Records go in back to back, byte for byte, and `written` covers them. */
KTEST(shm_stream_appends)
{
	struct shm_stream s;
	uint8_t rec[40];
	KASSERT(t, shm_stream_init(&s, area, AREA, RESERVE));
	struct shm_header *h = (struct shm_header *)area;
	const uint8_t *data = (const uint8_t *)area + h->data_offset;
	for (int i = 0; i < 3; i++) {
		ktest_fill(rec, sizeof rec, (uint8_t)(10 * i));
		KASSERT(t, shm_stream_append(&s, rec, sizeof rec, false));
	}
	KEXPECT_EQ(t, h->written, 3 * sizeof rec);
	for (int i = 0; i < 3; i++)
		KEXPECT(t, ktest_same(data + i * sizeof rec, sizeof rec, (uint8_t)(10 * i)));
	KEXPECT(t, !shm_stream_append(&s, rec, 12, false)); /* not a multiple of 8 */
}

/*
 * Ordinary records stop where the reserve starts: the first that does not
 * fit is refused, and so is every ordinary record after it, even one that
 * would fit (no holes in the stream). Final records go into the reserve
 * until the area is full. Every refusal is counted in the header.
 */
KTEST(shm_stream_full_keeps_reserve)
{
	struct shm_stream s;
	static uint8_t rec[512];
	KASSERT(t, shm_stream_init(&s, area, AREA, RESERVE));
	struct shm_header *h = (struct shm_header *)area;
	const uint8_t *data = (const uint8_t *)area + h->data_offset;
	int n = 0;
	ktest_fill(rec, sizeof rec, 1);
	while (shm_stream_append(&s, rec, sizeof rec, false))
		n++;
	KEXPECT_EQ(t, n, (AREA - 64 - RESERVE) / 512); /* 13 */
	KEXPECT_EQ(t, h->written, n * 512u);
	KEXPECT(t, !shm_stream_append(&s, rec, 16, false));
	KEXPECT_EQ(t, h->dropped, 2);
	KEXPECT_EQ(t, h->dropped_bytes, 512 + 16);

	ktest_fill(rec, sizeof rec, 2);
	KEXPECT(t, shm_stream_append(&s, rec, sizeof rec, true));
	KEXPECT(t, shm_stream_append(&s, rec, 448, true));
	KEXPECT(t, shm_stream_append(&s, rec, 512, true)); /* the last byte */
	KEXPECT_EQ(t, h->written, AREA - 64);
	KEXPECT(t, !shm_stream_append(&s, rec, 8, true));
	KEXPECT_EQ(t, h->dropped, 3);
	KEXPECT(t, ktest_same(data + n * 512, 512, 2));
	KEXPECT(t, !shm_stream_append(&s, rec, 8, false));
}
