/*
 * The record channel (arch/x86_64/channel/): records out to the host,
 * through ivshmem shared memory if QEMU has it, else COM2; init says
 * which. The shared memory is bounded: `reserve` bytes at its end are kept
 * for the records that end the stream. arch_channel_write appends one
 * whole record or refuses it (false); once it refused one, it refuses
 * every record but the final ones (final: may use the reserve).
 */
#ifndef ARCH_CHANNEL_H
#define ARCH_CHANNEL_H

#include <stdbool.h>
#include <stdint.h>

void arch_channel_init(uint64_t reserve);
bool arch_channel_write(const void *buf, uint64_t n, bool final);
/* Where the records go, for the console. */
const char *arch_channel_name(void);
/* What a 10 ms tick may drain: the channel's speed. */
uint64_t arch_channel_tick_bytes(void);

#endif
