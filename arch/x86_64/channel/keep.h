/*
 * The kernel's side of the records kept in RAM (include/stitch/keep.h):
 * the record channel's third way out, for a machine with neither QEMU's
 * shared memory nor a host on COM2. The loader reserved the region
 * (boot_info.keep_phys) because the boot medium has a data partition to
 * save it to; the kernel writes the stream, seals it at shutdown and
 * warm-resets, and the loader saves it on the next boot.
 */
#ifndef ARCH_X86_64_CHANNEL_KEEP_H
#define ARCH_X86_64_CHANNEL_KEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/channel/ivshmem.h"

/* Formats the region as a stream area (shm_stream_init); false if the
 * loader reserved none or it is too small. */
bool keep_init(struct shm_stream *s, uint64_t reserve);
/* Once the stream has ended: the chunk CRCs, the header, the magic.
 * False if no stream went to the region. */
bool keep_seal(void);
/* Bytes of stream in the region (0 if none). */
uint64_t keep_bytes(void);

#endif
