/*
 * The UEFI memory map: its top (for the boot page tables), then the final
 * map read by ExitBootServices, translated into struct boot_mem_region.
 */
#include "loader.h"

/* Room for the descriptors that our own allocations may add between reads. */
#define MAP_SLACK 16

static UINT32 region_type(UINT32 efi_type)
{
	switch (efi_type) {
	case EfiConventionalMemory:
	case EfiBootServicesCode:
	case EfiBootServicesData:
	case EfiLoaderCode:
	case EfiLoaderData:
		return BOOT_MEM_USABLE;
	case BOOT_EFI_STITCH_MEMORY_TYPE:
		return BOOT_MEM_STITCH;
	case EfiACPIReclaimMemory:
		return BOOT_MEM_ACPI_RECLAIM;
	case EfiACPIMemoryNVS:
		return BOOT_MEM_ACPI_NVS;
	case EfiRuntimeServicesCode:
	case EfiRuntimeServicesData:
		return BOOT_MEM_RUNTIME;
	case EfiMemoryMappedIO:
	case EfiMemoryMappedIOPortSpace:
		return BOOT_MEM_MMIO;
	default:
		return BOOT_MEM_RESERVED;
	}
}

static EFI_MEMORY_DESCRIPTOR *descriptor(void *map, UINTN desc_size, UINTN i)
{
	return (EFI_MEMORY_DESCRIPTOR *)((UINT8 *)map + i * desc_size);
}

/* Read the current map into a pool buffer of its own (caller frees). */
static EFI_STATUS read_map(void **map, UINTN *size, UINTN *key, UINTN *desc_size)
{
	UINT32 desc_version;
	UINTN cap = 0;

	BS->GetMemoryMap(&cap, NULL, key, desc_size, &desc_version);
	cap += MAP_SLACK * *desc_size;
	TRY(BS->AllocatePool(EfiLoaderData, cap, map), L"no memory for the memory map");
	*size = cap;
	TRY(BS->GetMemoryMap(size, *map, key, desc_size, &desc_version),
	    L"cannot read the memory map");
	return EFI_SUCCESS;
}

EFI_STATUS top_of_memory(UINT64 *top)
{
	UINTN size, key, desc_size;
	EFI_STATUS status;
	void *map;

	if ((status = read_map(&map, &size, &key, &desc_size)) != EFI_SUCCESS)
		return status;
	*top = 0;
	for (UINTN i = 0; i < size / desc_size; i++) {
		EFI_MEMORY_DESCRIPTOR *d = descriptor(map, desc_size, i);
		UINT64 end = d->PhysicalStart + d->NumberOfPages * PAGE_SIZE;
		if (region_type(d->Type) != BOOT_MEM_MMIO && end > *top)
			*top = end;
	}
	FreePool(map);
	return EFI_SUCCESS;
}

/*
 * Exit boot services with the key of a map read just before. When the map
 * changed in between (EFI_INVALID_PARAMETER), read it again and retry.
 * After success no boot service may be called: not even Print.
 */
EFI_STATUS exit_boot_services(EFI_HANDLE image, struct boot_info *bi)
{
	UINTN size, key, desc_size;
	EFI_STATUS status = EFI_INVALID_PARAMETER;
	void *map;

	for (int attempt = 0; attempt < 8 && status == EFI_INVALID_PARAMETER; attempt++) {
		if ((status = read_map(&map, &size, &key, &desc_size)) != EFI_SUCCESS)
			return status;
		status = BS->ExitBootServices(image, key);
		if (status == EFI_SUCCESS)
			break;
		FreePool(map);
	}
	if (EFI_ERROR(status))
		FAIL(status, L"ExitBootServices failed");

	bi->mem_count = bi->mem_dropped = 0;
	for (UINTN i = 0; i < size / desc_size; i++) {
		EFI_MEMORY_DESCRIPTOR *d = descriptor(map, desc_size, i);
		boot_mem_add(bi, d->PhysicalStart, d->NumberOfPages * PAGE_SIZE,
			   region_type(d->Type));
	}
	return EFI_SUCCESS;
}
