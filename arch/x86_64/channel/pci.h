/*
 * PCI configuration space, read and written through the legacy
 * configuration mechanism (ports 0xcf8/0xcfc): enough to find a device by
 * its IDs and to locate and size its memory BARs. docs/SAMPLING.md says
 * why not ECAM.
 */
#ifndef ARCH_X86_64_CHANNEL_PCI_H
#define ARCH_X86_64_CHANNEL_PCI_H

#include <stdbool.h>
#include <stdint.h>

struct pci_dev {
	uint8_t bus, dev, fn;
};

/* Standard header offsets used here. */
#define PCI_VENDOR_ID   0x00
#define PCI_DEVICE_ID   0x02
#define PCI_COMMAND     0x04
#define PCI_HEADER_TYPE 0x0e
#define PCI_BAR0        0x10

#define PCI_COMMAND_MEM 0x2 /* decode the memory BARs */

uint32_t pci_read32(struct pci_dev d, unsigned off);
uint16_t pci_read16(struct pci_dev d, unsigned off);
void pci_write32(struct pci_dev d, unsigned off, uint32_t v);
void pci_write16(struct pci_dev d, unsigned off, uint16_t v);

/* The first function with these IDs (bus order); false if none. */
bool pci_find(uint16_t vendor, uint16_t device, struct pci_dev *out);

/*
 * Memory BAR n (a 64-bit BAR spans n and n + 1): its physical address and
 * size, found by the usual sizing writes with memory decoding off. False
 * for an I/O BAR, or one the firmware left unassigned (address 0).
 */
bool pci_bar_mem(struct pci_dev d, unsigned n, uint64_t *base, uint64_t *size);

#endif
