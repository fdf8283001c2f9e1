/*
 * efi_main: the whole boot, in order. Every failure before the jump is
 * printed on the UEFI console with its EFI status, and the loader returns
 * to the firmware instead of jumping into a half-prepared kernel.
 */
#include "loader.h"

#define KERNEL_PATH  L"\\stitch\\kernel.elf"
#define INITRD_PATH  L"\\stitch\\initrd.cpio"
#define CMDLINE_PATH L"\\stitch\\cmdline.txt"

EFI_STATUS alloc_stitch_pages(UINTN pages, EFI_PHYSICAL_ADDRESS *addr)
{
	EFI_STATUS status = BS->AllocatePages(AllocateAnyPages,
					      BOOT_EFI_STITCH_MEMORY_TYPE, pages, addr);
	if (!EFI_ERROR(status))
		ZeroMem((void *)*addr, pages * PAGE_SIZE);
	return status;
}

/* The command line file, trimmed at the first line end, NUL-terminated. */
static EFI_STATUS read_cmdline(EFI_FILE_HANDLE root, struct boot_info *bi)
{
	EFI_PHYSICAL_ADDRESS addr;
	EFI_STATUS status;
	UINTN size, n = 0;

	if ((status = read_file(root, CMDLINE_PATH, &size, &addr)) != EFI_SUCCESS)
		return status;
	if (size >= BOOT_CMDLINE_MAX)
		FAIL(EFI_BAD_BUFFER_SIZE, L"cmdline.txt is longer than %d bytes",
		     BOOT_CMDLINE_MAX - 1);
	for (const char *s = (const char *)addr; n < size && s[n] != '\n' && s[n] != '\r'; n++)
		bi->cmdline[n] = s[n];
	bi->cmdline[n] = 0;
	if (addr)
		BS->FreePages(addr, (size + PAGE_SIZE - 1) / PAGE_SIZE);
	return EFI_SUCCESS;
}

static void find_rsdp(struct boot_info *bi)
{
	EFI_GUID acpi20 = ACPI_20_TABLE_GUID, acpi10 = ACPI_TABLE_GUID;

	for (UINTN i = 0; i < ST->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &ST->ConfigurationTable[i];
		if (!CompareGuid(&t->VendorGuid, &acpi20)) {
			bi->rsdp_phys = (UINT64)t->VendorTable;
			bi->acpi_version = 2;
			return; /* prefer 2.0: it has the XSDT */
		}
		if (!CompareGuid(&t->VendorGuid, &acpi10)) {
			bi->rsdp_phys = (UINT64)t->VendorTable;
			bi->acpi_version = 1;
		}
	}
}

/* The GOP framebuffer, if there is one; a machine without is not an error. */
static void find_framebuffer(struct boot_info *bi)
{
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop;
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info;

	if (EFI_ERROR(LibLocateProtocol(&GraphicsOutputProtocol, (void **)&gop)) || !gop)
		return;
	info = gop->Mode->Info;
	if (info->PixelFormat != PixelRedGreenBlueReserved8BitPerColor &&
	    info->PixelFormat != PixelBlueGreenRedReserved8BitPerColor)
		return; /* bit-mask and blt-only modes: the kernel does not draw */
	bi->fb.base = gop->Mode->FrameBufferBase;
	bi->fb.size = gop->Mode->FrameBufferSize;
	bi->fb.width = info->HorizontalResolution;
	bi->fb.height = info->VerticalResolution;
	bi->fb.pitch = info->PixelsPerScanLine * 4;
	bi->fb.format = info->PixelFormat == PixelRedGreenBlueReserved8BitPerColor ?
			BOOT_FB_RGBX : BOOT_FB_BGRX;
}

/*
 * Where the text the firmware and the loader printed ends, in scan lines,
 * so that the kernel's console starts below it. The text console (UEFI
 * 2.9, 12.4 Simple Text Output) gives the cursor row and the mode's rows;
 * firmware draws them in the spec's standard font, 19 pixels high (33.2.6
 * "Fonts": EFI_GLYPH_HEIGHT), and EDK2 centres the rows on the screen. A
 * blank row is left as a margin.
 */
#define GLYPH_HEIGHT 19

static void mark_text_bottom(struct boot_info *bi)
{
	SIMPLE_TEXT_OUTPUT_INTERFACE *out = ST->ConOut;
	UINTN cols, rows, glyph = GLYPH_HEIGHT;

	if (!bi->fb.base || EFI_ERROR(out->QueryMode(out, out->Mode->Mode, &cols, &rows)) ||
	    rows == 0 || (UINTN)out->Mode->CursorRow >= rows)
		return; /* unknown: the kernel's console takes the whole screen */
	if (rows * glyph > bi->fb.height)
		glyph = bi->fb.height / rows;
	bi->fb.text_bottom = (UINT32)((bi->fb.height - rows * glyph) / 2 +
				      ((UINTN)out->Mode->CursorRow + 1) * glyph);
}

/* Switch to the boot page tables and enter the kernel (SysV: rdi = bi). */
static void __attribute__((noreturn))
jump_to_kernel(UINT64 pml4, UINT64 entry, struct boot_info *bi)
{
	__asm__ volatile("cli\n\t"
			 "mov %0, %%cr3\n\t"
			 "jmp *%1"
			 : : "r"(pml4), "r"(entry), "D"(bi) : "memory");
	__builtin_unreachable();
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_PHYSICAL_ADDRESS bi_page, kernel_file;
	EFI_FILE_HANDLE root;
	EFI_STATUS status;
	struct boot_info *bi;
	UINTN kernel_file_size;
	UINT64 entry, pml4, top;

	InitializeLib(image, systab);
	Print(L"stitch-boot: loading the kernel\n");
	keep_save_previous(image);

	TRY(alloc_stitch_pages((sizeof(*bi) + PAGE_SIZE - 1) / PAGE_SIZE, &bi_page),
	    L"no memory for boot_info");
	bi = (struct boot_info *)bi_page;
	bi->magic = BOOT_INFO_MAGIC;
	bi->version = BOOT_INFO_VERSION;
	bi->size = sizeof(*bi);

	if ((status = open_boot_volume(image, &root)) != EFI_SUCCESS ||
	    (status = read_file(root, KERNEL_PATH, &kernel_file_size, &kernel_file)) != EFI_SUCCESS ||
	    (status = load_kernel(kernel_file, kernel_file_size, bi, &entry)) != EFI_SUCCESS ||
	    (status = read_file(root, INITRD_PATH, &bi->initrd_size, &bi->initrd_phys)) != EFI_SUCCESS ||
	    (status = read_cmdline(root, bi)) != EFI_SUCCESS)
		return status;
	/* The ELF file itself is no longer needed once its segments are placed. */
	BS->FreePages(kernel_file, (kernel_file_size + PAGE_SIZE - 1) / PAGE_SIZE);

	find_rsdp(bi);
	find_framebuffer(bi);
	keep_reserve(image, bi);
	if ((status = top_of_memory(&top)) != EFI_SUCCESS ||
	    (status = build_boot_page_tables(bi, top, &pml4)) != EFI_SUCCESS)
		return status;

	Print(L"stitch-boot: kernel %lx bytes at %lx, initrd %ld bytes, cmdline \"%a\"\n",
	      bi->kernel_size, bi->kernel_phys, bi->initrd_size, bi->cmdline);
	mark_text_bottom(bi);
	if ((status = exit_boot_services(image, bi)) != EFI_SUCCESS)
		return status;
	jump_to_kernel(pml4, entry, bi);
}
