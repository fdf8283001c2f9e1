/*
 * The fast record channel: QEMU's ivshmem-plain device, whose BAR2 is
 * host memory (a memory-backend-file that tools/qemu-run creates), so the
 * kernel writes the record stream into it like RAM and the bytes land in
 * a host file. The area's layout, shared with tools/recextract, is
 * include/stitch/shm.h.
 */
#ifndef ARCH_X86_64_CHANNEL_IVSHMEM_H
#define ARCH_X86_64_CHANNEL_IVSHMEM_H

#include <stdbool.h>
#include <stdint.h>
#include "stitch/shm.h"

/* The PCI IDs of QEMU's ivshmem (plain and doorbell), and the shared BAR. */
#define IVSHMEM_VENDOR 0x1af4
#define IVSHMEM_DEVICE 0x1110
#define IVSHMEM_BAR    2

/*
 * The kernel's writer of one area (any memory: the tests use a page).
 * `reserve` bytes at the end of the data area are kept for the records
 * that end the stream (REC_LOST, REC_STATS, REC_END): an ordinary record
 * that does not fit before them is refused, and from then on every
 * ordinary record is (the stream stays a prefix of the run, no holes); a
 * final record may use the reserve.
 */
struct shm_stream {
	struct shm_header *h;
	uint8_t *data;
	uint64_t size;  /* of the data area */
	uint64_t limit; /* size - reserve: the end for ordinary records */
	uint64_t used;
	bool full;
};

/* Formats mem[0, bytes) with an empty stream. False (nothing written) if
 * the data area could not hold the reserve and a few records. */
bool shm_stream_init(struct shm_stream *s, void *mem, uint64_t bytes,
		     uint64_t reserve);
/* Appends one record of n bytes (a multiple of 8); false if it was
 * refused (counted in the header). */
bool shm_stream_append(struct shm_stream *s, const void *rec, uint64_t n,
		       bool final);

/* Finds the ivshmem device, maps its shared BAR write-back into the
 * kernel half and returns it; false if there is none. */
bool ivshmem_map(void **mem, uint64_t *bytes, uint64_t *phys);

#endif
