/*
 * The record stream in QEMU's ivshmem shared memory (arch/x86_64/channel/ivshmem.h
 * has the layout). Finding the device: arch/x86_64/channel/pci.c.
 *
 * The BAR is mapped write-back. That is right for this device, not for
 * PCI memory in general: ivshmem's BAR2 is host RAM (the memory backend).
 * Under TCG QEMU models no caches; every guest store is a store into the
 * host mapping of the file (share=on: MAP_SHARED), so the host sees it
 * whatever the page attributes say. Under KVM, guest RAM-backed memory is
 * write-back in the EPT too (KVM honours guest memory types only with
 * non-coherent DMA assigned), so write-back is coherent there as well;
 * uncached would only make every store slow. The BAR may lie above 4 GiB
 * (OVMF puts it at 0xe0_0000_0000), outside the direct map, hence a window
 * of its own.
 */
#include "arch/x86_64/channel/ivshmem.h"
#include "arch/x86_64/channel/pci.h"
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/lib/string.h"
#include "kern/mm/vm.h"

/*
 * The window: in PML4 slot 511, the kernel image's, whose level-3 table
 * every address space shares (kern/mm/vm.h: no PML4 slot is added after
 * boot), 256 GiB below the image. At most IVSHMEM_MAP_MAX of a larger BAR
 * is used: far more than a run writes.
 */
#define IVSHMEM_VIRT    0xffffffc000000000ull
#define IVSHMEM_MAP_MAX (16ull << 30)

/* The data area must hold the reserve and the start of a stream. */
#define SHM_MIN_DATA 4096

bool shm_stream_init(struct shm_stream *s, void *mem, uint64_t bytes,
		     uint64_t reserve)
{
	uint64_t off = sizeof(struct shm_header);
	if (bytes < off || bytes - off < reserve + SHM_MIN_DATA)
		return false;
	*s = (struct shm_stream){
		.h = mem, .data = (uint8_t *)mem + off, .size = bytes - off,
		.limit = bytes - off - reserve,
	};
	*s->h = (struct shm_header){ .version = SHM_VERSION,
				     .data_offset = (uint32_t)off,
				     .data_size = s->size };
	/* Last, so a header with the magic is whole. */
	__atomic_store_n(&s->h->magic, SHM_MAGIC, __ATOMIC_RELEASE);
	return true;
}

bool shm_stream_append(struct shm_stream *s, const void *rec, uint64_t n,
		       bool final)
{
	uint64_t end = final ? s->size : s->limit;
	if ((s->full && !final) || n % 8 || s->used > end || n > end - s->used) {
		if (!final)
			s->full = true;
		s->h->dropped++;
		s->h->dropped_bytes += n;
		return false;
	}
	/* memcpy moves words (arch/x86_64/cpu/string.c): records are whole
	 * multiples of 8 bytes at 8-aligned offsets. */
	memcpy(s->data + s->used, rec, n);
	s->used += n;
	/* Release: the bytes are in place before the count that covers them,
	 * so a QEMU killed at any moment leaves whole records behind. */
	__atomic_store_n(&s->h->written, s->used, __ATOMIC_RELEASE);
	return true;
}

bool ivshmem_map(void **mem, uint64_t *bytes, uint64_t *phys)
{
	struct pci_dev d;
	uint64_t base, size;

	if (!pci_find(IVSHMEM_VENDOR, IVSHMEM_DEVICE, &d))
		return false;
	if (!pci_bar_mem(d, IVSHMEM_BAR, &base, &size) || size < PAGE_SIZE ||
	    base % PAGE_SIZE) {
		kprintf("channel: ivshmem at %02x:%02x.%x has no usable BAR%d\n",
			d.bus, d.dev, d.fn, IVSHMEM_BAR);
		return false;
	}
	size = MIN(size, IVSHMEM_MAP_MAX);
	pci_write16(d, PCI_COMMAND, pci_read16(d, PCI_COMMAND) | PCI_COMMAND_MEM);
	if (vm_map_range(&kernel_space, IVSHMEM_VIRT, base, size,
			 VM_WRITE | VM_LARGE)) {
		kprintf("channel: no memory to map ivshmem's %lu MiB\n", size >> 20);
		return false;
	}
	*mem = (void *)IVSHMEM_VIRT;
	*bytes = size;
	*phys = base;
	return true;
}
