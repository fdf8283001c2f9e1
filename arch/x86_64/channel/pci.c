/*
 * PCI configuration space through ports 0xcf8 (address) and 0xcfc (data).
 *
 * Why not ECAM (the MMIO window the ACPI MCFG table describes): the channel
 * needs a few dozen reads of the standard 256-byte header of one device,
 * which the legacy mechanism reaches on every PC chipset (q35 included),
 * under OVMF and under the direct boot alike, without parsing MCFG or
 * mapping its window. Two port accesses per read is nothing at boot.
 * There is one CPU and interrupts do not touch PCI, so the address/data
 * pair needs no lock.
 */
#include "arch/x86_64/channel/pci.h"
#include "arch/x86_64/x86.h"

enum { CONFIG_ADDRESS = 0xcf8, CONFIG_DATA = 0xcfc };

#define CONFIG_ENABLE  0x80000000u
#define HEADER_MULTIFN 0x80 /* header type bit 7: functions 1-7 exist */
#define NO_DEVICE      0xffff

static void select_reg(struct pci_dev d, unsigned off)
{
	outl(CONFIG_ADDRESS, CONFIG_ENABLE | (uint32_t)d.bus << 16 |
			     (uint32_t)(d.dev & 31) << 11 |
			     (uint32_t)(d.fn & 7) << 8 | (off & 0xfc));
}

uint32_t pci_read32(struct pci_dev d, unsigned off)
{
	select_reg(d, off);
	return inl(CONFIG_DATA);
}

uint16_t pci_read16(struct pci_dev d, unsigned off)
{
	return (uint16_t)(pci_read32(d, off) >> (8 * (off & 2)));
}

void pci_write32(struct pci_dev d, unsigned off, uint32_t v)
{
	select_reg(d, off);
	outl(CONFIG_DATA, v);
}

/* A 16-bit write, so that the neighbouring register is not written: the
 * status register next to the command register clears bits written as 1. */
void pci_write16(struct pci_dev d, unsigned off, uint16_t v)
{
	select_reg(d, off);
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"((uint16_t)(CONFIG_DATA + (off & 2))));
}

static bool matches(struct pci_dev d, uint16_t vendor, uint16_t device)
{
	uint32_t id = pci_read32(d, PCI_VENDOR_ID);
	return (id & 0xffff) == vendor && id >> 16 == device;
}

/* Every bus number, not just those behind known bridges: a missing device
 * reads as vendor 0xffff, and the scan stops at the first match. */
bool pci_find(uint16_t vendor, uint16_t device, struct pci_dev *out)
{
	for (unsigned bus = 0; bus < 256; bus++)
		for (unsigned dev = 0; dev < 32; dev++) {
			struct pci_dev d = { (uint8_t)bus, (uint8_t)dev, 0 };
			if (pci_read16(d, PCI_VENDOR_ID) == NO_DEVICE)
				continue;
			unsigned nfn = pci_read16(d, PCI_HEADER_TYPE) & HEADER_MULTIFN ? 8 : 1;
			for (unsigned fn = 0; fn < nfn; fn++) {
				d.fn = (uint8_t)fn;
				if (matches(d, vendor, device)) {
					*out = d;
					return true;
				}
			}
		}
	return false;
}

#define BAR_IO       0x1
#define BAR_TYPE     0x6
#define BAR_TYPE_64  0x4
#define BAR_MEM_MASK (~(uint64_t)0xf)

bool pci_bar_mem(struct pci_dev d, unsigned n, uint64_t *base, uint64_t *size)
{
	unsigned off = PCI_BAR0 + 4 * n;
	uint32_t lo = pci_read32(d, off);
	if (lo & BAR_IO)
		return false;
	bool is64 = (lo & BAR_TYPE) == BAR_TYPE_64;
	uint32_t hi = is64 ? pci_read32(d, off + 4) : 0;

	/* Sizing makes the BAR decode at all-ones for a moment: no decoding
	 * while it does. */
	uint16_t cmd = pci_read16(d, PCI_COMMAND);
	pci_write16(d, PCI_COMMAND, cmd & ~PCI_COMMAND_MEM);
	pci_write32(d, off, ~0u);
	uint32_t mlo = pci_read32(d, off), mhi = ~0u;
	pci_write32(d, off, lo);
	if (is64) {
		pci_write32(d, off + 4, ~0u);
		mhi = pci_read32(d, off + 4);
		pci_write32(d, off + 4, hi);
	}
	pci_write16(d, PCI_COMMAND, cmd);

	uint64_t mask = ((uint64_t)mhi << 32 | mlo) & BAR_MEM_MASK;
	*base = ((uint64_t)hi << 32 | lo) & BAR_MEM_MASK;
	*size = ~mask + 1;
	return *base != 0 && mask != 0;
}
