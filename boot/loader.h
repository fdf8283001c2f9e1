/*
 * Stitch's UEFI loader: loads \stitch\kernel.elf, \stitch\initrd.cpio and
 * \stitch\cmdline.txt from the ESP it was started from, fills one
 * struct boot_info (include/stitch/boot_info.h), exits boot services and
 * jumps to the kernel.
 */
#ifndef BOOT_LOADER_H
#define BOOT_LOADER_H

#include <efi.h>
#include <efilib.h>
#include <stitch/boot_info.h>

#define PAGE_SIZE 4096ull

/* Stop the boot: print what failed, with its EFI status. */
#define FAIL(status, ...) do { \
	Print(L"stitch-boot: "); Print(__VA_ARGS__); \
	Print(L": %r\n", (status)); \
	return (status); \
} while (0)

/* Try an EFI call; on failure print what it was doing and return. */
#define TRY(call, ...) do { \
	EFI_STATUS try_status_ = (call); \
	if (EFI_ERROR(try_status_)) FAIL(try_status_, __VA_ARGS__); \
} while (0)

/* files.c */
EFI_STATUS open_boot_volume(EFI_HANDLE image, EFI_FILE_HANDLE *root);
EFI_STATUS read_file(EFI_FILE_HANDLE root, CHAR16 *path, UINTN *size,
		     EFI_PHYSICAL_ADDRESS *addr);

/* elf.c */
EFI_STATUS load_kernel(EFI_PHYSICAL_ADDRESS file, UINTN size,
		       struct boot_info *bi, UINT64 *entry);

/* paging.c */
EFI_STATUS build_boot_page_tables(struct boot_info *bi, UINT64 top_of_ram,
				  UINT64 *pml4);

/* memmap.c */
EFI_STATUS top_of_memory(UINT64 *top);
EFI_STATUS exit_boot_services(EFI_HANDLE image, struct boot_info *bi);

/* keep.c: records kept in RAM across a warm reset. Saves a previous
 * run's and powers off (returns only if there is none); reserves the
 * region for this run if the boot disk has a data partition. */
void keep_save_previous(EFI_HANDLE image);
void keep_reserve(EFI_HANDLE image, struct boot_info *bi);

/* Pages that the kernel keeps (BOOT_EFI_STITCH_MEMORY_TYPE), zeroed. */
EFI_STATUS alloc_stitch_pages(UINTN pages, EFI_PHYSICAL_ADDRESS *addr);

#endif
