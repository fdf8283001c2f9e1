/*
 * Records kept in RAM across a warm reset, for a machine with no host
 * attached (the idea of Linux's pstore/ramoops): the contract between the
 * UEFI loader, which reserves the region and, on the next boot, saves it
 * to \stitch\records.bin on the stick's data partition, and the kernel
 * (arch/x86_64/channel/keep.c), which writes the record stream into it and seals it.
 *
 *   [struct keep_header][chunk_crc[] ...][pad to KEEP_DATA_OFFSET]
 *   [struct shm_header + stream: the same area the ivshmem channel uses]
 *
 * The stream area is include/stitch/shm.h's: the kernel appends records
 * with the same writer as into ivshmem. Sealing computes the CRC-32 of
 * every KEEP_CHUNK bytes of the area (shm header included) and of the
 * header, and stores the magic last. The loader trusts nothing: a region
 * is found by its magic on a 2 MiB boundary of RAM, its header CRC and
 * bounds are checked, and every chunk whose CRC differs (firmware that
 * used the memory during the reset) is reported, never written silently.
 */
#ifndef STITCH_KEEP_H
#define STITCH_KEEP_H

#include <stdint.h>

#define KEEP_MAGIC   0x5045454b48435453ull /* "STCHKEEP" */
#define KEEP_VERSION 1
#define KEEP_ALIGN   (2ull << 20)  /* the region starts on a 2 MiB boundary */
#define KEEP_CHUNK   (64u << 10)
#define KEEP_MAX     (256ull << 20)
#define KEEP_MAX_CHUNKS (KEEP_MAX / KEEP_CHUNK)
/* Header and CRC table, then the stream area. */
#define KEEP_DATA_OFFSET 20480

struct keep_header {
	uint64_t magic;        /* KEEP_MAGIC once sealed; 0 after saving */
	uint32_t version;      /* KEEP_VERSION */
	uint32_t header_crc;   /* CRC-32 of the rest: region_size to the end */
	uint64_t region_size;  /* bytes, header included */
	uint64_t area_bytes;   /* bytes of the stream area that hold data:
				* the shm header and the records written */
	uint32_t nchunks;      /* ceil(area_bytes / KEEP_CHUNK) */
	uint32_t complete;     /* 1: the stream ended with REC_END */
	uint64_t pad[3];
	uint32_t chunk_crc[KEEP_MAX_CHUNKS];
};

_Static_assert(sizeof(struct keep_header) <= KEEP_DATA_OFFSET,
	       "the header and CRC table fit before the stream area");

/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as zlib's
 * crc32() and UEFI's CalculateCrc32: crc = keep_crc32(0, p, n) to start,
 * and feed the previous value to continue. Bitwise: no table to share
 * between the kernel, the loader and the host. */
static inline uint32_t keep_crc32(uint32_t crc, const void *p, uint64_t n)
{
	const uint8_t *b = p;
	crc = ~crc;
	while (n--) {
		crc ^= *b++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

/* What header_crc covers. */
static inline uint32_t keep_header_crc(const struct keep_header *h)
{
	return keep_crc32(0, &h->region_size,
			  sizeof(*h) - __builtin_offsetof(struct keep_header, region_size));
}

#endif
