/*
 * Finding ACPI tables. The firmware's data is checked before use: every
 * table's checksum, and every length against the space it claims.
 */
#include "kern/acpi.h"
#include "kern/lib/console.h"
#include "kern/mm/mm.h"
#include "kern/lib/string.h"

struct rsdp {
	char signature[8]; /* "RSD PTR " */
	uint8_t checksum;  /* over the first 20 bytes */
	char oem_id[6];
	uint8_t revision;  /* 0: ACPI 1.0 (RSDT only), 2: ACPI 2.0+ */
	uint32_t rsdt;
	uint32_t length;   /* revision 2: of the whole structure */
	uint64_t xsdt;
	uint8_t xchecksum;
	uint8_t reserved[3];
} __attribute__((packed));

static const struct acpi_header *root; /* XSDT or RSDT */
static unsigned entry_size;            /* 8 (XSDT) or 4 (RSDT) */

static uint8_t sum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint8_t s = 0;
	while (n--)
		s += *b++;
	return s;
}

static const struct acpi_header *table_at(uint64_t pa)
{
	const struct acpi_header *h = p2v(pa);
	if (!pa || h->length < sizeof(*h) || sum(h, h->length) != 0)
		return NULL;
	return h;
}

int acpi_init(const struct boot_info *bi)
{
	const struct rsdp *r = p2v(bi->rsdp_phys);
	if (!bi->rsdp_phys || memcmp(r->signature, "RSD PTR ", 8) || sum(r, 20)) {
		kprintf("acpi: no valid RSDP\n");
		return -1;
	}
	if (r->revision >= 2 && r->length >= sizeof(*r) && sum(r, r->length) == 0 &&
	    (root = table_at(r->xsdt)) != NULL) {
		entry_size = 8;
		return 0;
	}
	if ((root = table_at(r->rsdt)) != NULL) {
		entry_size = 4;
		return 0;
	}
	kprintf("acpi: neither XSDT nor RSDT is valid\n");
	return -1;
}

const struct acpi_header *acpi_find(const char sig[4])
{
	if (!root)
		return NULL;
	const uint8_t *e = (const uint8_t *)(root + 1);
	size_t n = (root->length - sizeof(*root)) / entry_size;
	for (size_t i = 0; i < n; i++, e += entry_size) {
		uint64_t pa = 0;
		memcpy(&pa, e, entry_size); /* entries are unaligned in the XSDT */
		const struct acpi_header *h = table_at(pa);
		if (h && memcmp(h->signature, sig, 4) == 0)
			return h;
	}
	return NULL;
}
