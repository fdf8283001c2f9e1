/*
 * The record channel: how the stream leaves the machine.
 *
 *   - ivshmem (arch/x86_64/channel/ivshmem.c) when QEMU has the device
 *     (tools/qemu-run --records adds it): the kernel writes the stream into
 *     shared memory backed by a host file, about 100 times faster than
 *     COM2 (docs/SAMPLING.md has the numbers). Bounded: a full area
 *     refuses records, which the caller counts.
 *   - RAM kept across a warm reset (arch/x86_64/channel/keep.c) when the loader
 *     reserved some: it does so when the boot medium has a data partition
 *     to save it to (a stick made by `make iso`), and the loader saves it
 *     there on the next boot. The same writer as for ivshmem, bounded too.
 *   - COM2 (arch/x86_64/channel/uart.c) otherwise, real hardware included, which
 *     QEMU can write to a host file (tools/qemu-run --channel serial).
 *     Never refuses.
 */
#include <arch/arch.h>
#include "arch/x86_64/channel/ivshmem.h"
#include "arch/x86_64/channel/keep.h"
#include "arch/x86_64/channel/uart.h"
#include "kern/kernel.h"

/* What a 10 ms tick drains at most (kern/profile/profile.c). COM2 moves about
 * 550 KB/s under TCG: 4 KiB is about 7 ms. The drain into shared memory
 * moves about 20 MB/s (two copies, ring to buffer to area): 128 KiB is
 * about 6 ms, 12 MB/s, several times what 20 000 samples a second
 * produce, so that rings filled during a stall empty again quickly. */
#define COM2_TICK_BYTES    4096
#define IVSHMEM_TICK_BYTES (128u << 10)

static struct shm_stream shm;
static bool use_shm;

void arch_channel_init(uint64_t reserve)
{
	void *mem;
	uint64_t bytes, phys;

	if (ivshmem_map(&mem, &bytes, &phys)) {
		if (shm_stream_init(&shm, mem, bytes, reserve)) {
			use_shm = true;
			kprintf("channel: records to ivshmem shared memory at 0x%lx, "
				"%lu KiB\n", phys, bytes >> 10);
			return;
		}
		kprintf("channel: ivshmem's %lu bytes cannot hold a stream\n", bytes);
	}
	if (keep_init(&shm, reserve)) {
		use_shm = true;
		kprintf("channel: records kept in RAM at 0x%lx, %lu KiB, for the "
			"stick's data partition\n", boot_info.keep_phys, shm.size >> 10);
		return;
	}
	uart_init(UART_COM2);
	kprintf("channel: records to COM2\n");
}

bool arch_channel_write(const void *buf, uint64_t n, bool final)
{
	if (use_shm)
		return shm_stream_append(&shm, buf, n, final);
	uart_write(UART_COM2, buf, n);
	return true;
}

const char *arch_channel_name(void)
{
	return !use_shm ? "COM2" : keep_bytes() ? "RAM kept for the stick" :
		"ivshmem shared memory";
}

uint64_t arch_channel_tick_bytes(void)
{
	return use_shm ? IVSHMEM_TICK_BYTES : COM2_TICK_BYTES;
}
