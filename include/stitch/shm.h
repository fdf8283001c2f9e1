/*
 * The layout of the shared-memory record channel, the contract between the
 * kernel (arch/x86_64/channel/ivshmem.c, which writes it into QEMU's ivshmem BAR)
 * and tools/recextract (which cuts the stream out of the host file after
 * QEMU exits). The area starts with a struct shm_header; the record stream
 * (include/stitch/records.h) follows, appended linearly, whole records
 * only, never wrapped: when the data area is full, records are refused
 * and counted here.
 */
#ifndef STITCH_SHM_H
#define STITCH_SHM_H

#include <stdint.h>

#define SHM_MAGIC   0x4d53484354495453ull /* "STITCHSM" */
#define SHM_VERSION 1

struct shm_header {
	uint64_t magic;         /* SHM_MAGIC, stored last: the area is formatted */
	uint32_t version;       /* SHM_VERSION */
	uint32_t data_offset;   /* where the data starts, from the area's start */
	uint64_t data_size;     /* bytes of the data area */
	uint64_t written;       /* bytes of stream in it, always whole records */
	uint64_t dropped;       /* records refused because the area was full */
	uint64_t dropped_bytes; /* their bytes */
	uint64_t pad[2];
};

#endif
