/* Records kept in RAM across a warm reset: the kernel's writer. */
#include "arch/x86_64/channel/keep.h"
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/lib/string.h"
#include "stitch/keep.h"

static struct keep_header *hdr;
static struct shm_stream *stream;

bool keep_init(struct shm_stream *s, uint64_t reserve)
{
	uint64_t size = boot_info.keep_size;
	if (!boot_info.keep_phys || boot_info.keep_phys % KEEP_ALIGN ||
	    size <= KEEP_DATA_OFFSET)
		return false;
	hdr = p2v(boot_info.keep_phys);
	memset(hdr, 0, KEEP_DATA_OFFSET); /* an old seal must not survive */
	size = MIN(size - KEEP_DATA_OFFSET, KEEP_MAX);
	if (!shm_stream_init(s, (uint8_t *)hdr + KEEP_DATA_OFFSET, size, reserve))
		return false;
	stream = s;
	return true;
}

uint64_t keep_bytes(void)
{
	return stream ? stream->used : 0;
}

bool keep_seal(void)
{
	if (!stream)
		return false;
	const uint8_t *area = (const uint8_t *)hdr + KEEP_DATA_OFFSET;
	uint64_t bytes = stream->h->data_offset + stream->used;

	hdr->version = KEEP_VERSION;
	hdr->region_size = boot_info.keep_size;
	hdr->area_bytes = bytes;
	hdr->nchunks = (uint32_t)((bytes + KEEP_CHUNK - 1) / KEEP_CHUNK);
	hdr->complete = 1;
	for (uint32_t i = 0; i < hdr->nchunks; i++)
		hdr->chunk_crc[i] = keep_crc32(0, area + (uint64_t)i * KEEP_CHUNK,
					       MIN(KEEP_CHUNK, bytes - (uint64_t)i * KEEP_CHUNK));
	hdr->header_crc = keep_header_crc(hdr);
	/* Last: a region with the magic is whole. */
	__atomic_store_n(&hdr->magic, KEEP_MAGIC, __ATOMIC_RELEASE);
	return true;
}
