/* ACPI tables: RSDP (from the loader) -> XSDT or RSDT -> one table. */
#ifndef KERN_ACPI_H
#define KERN_ACPI_H

#include <stdint.h>

#include "stitch/boot_info.h"

struct acpi_header {
	char signature[4];
	uint32_t length; /* of the whole table, header included */
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __attribute__((packed));

/* Finds the root table; returns false (and says why) if there is none. */
int acpi_init(const struct boot_info *bi);
/* The first table with this signature whose checksum is right, or NULL. */
const struct acpi_header *acpi_find(const char sig[4]);

#endif
