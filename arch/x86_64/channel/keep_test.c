#include "kern/mm/kmalloc.h"
#include "kern/lib/ktest.h"
#include "kern/lib/string.h"
#include "stitch/keep.h"

/* The CRC the kernel seals with and the loader checks: CRC-32/ISO-HDLC
 * (zlib's, UEFI's), whose check value for "123456789" is 0xCBF43926; fed
 * in pieces it gives the same; the header CRC covers the chunk table. */
KTEST(keep_crc32)
{
	static const char check[] = "123456789";
	KEXPECT_EQ(t, keep_crc32(0, check, 9), 0xcbf43926u);
	KEXPECT_EQ(t, keep_crc32(keep_crc32(0, check, 4), check + 4, 5), 0xcbf43926u);
	KEXPECT_EQ(t, keep_crc32(0, check, 0), 0);

	struct keep_header *h = kzalloc(sizeof(*h));
	KASSERT(t, h != NULL);
	h->region_size = 1 << 20;
	uint32_t crc = keep_header_crc(h);
	h->magic = KEEP_MAGIC; /* stored after the CRC: not covered */
	h->header_crc = crc;
	KEXPECT_EQ(t, keep_header_crc(h), crc);
	h->chunk_crc[KEEP_MAX_CHUNKS - 1] = 1; /* the last entry is covered */
	KEXPECT(t, keep_header_crc(h) != crc);
	kfree(h);
}
