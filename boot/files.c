/* Reading whole files from the volume the loader itself was started from. */
#include "loader.h"

EFI_STATUS open_boot_volume(EFI_HANDLE image, EFI_FILE_HANDLE *root)
{
	EFI_LOADED_IMAGE *loaded;

	TRY(BS->HandleProtocol(image, &LoadedImageProtocol, (void **)&loaded),
	    L"no loaded-image protocol");
	*root = LibOpenRoot(loaded->DeviceHandle);
	if (!*root)
		FAIL(EFI_NOT_FOUND, L"cannot open the boot volume");
	return EFI_SUCCESS;
}

/* Read `path` into fresh kernel-owned pages; an empty file gives size 0. */
EFI_STATUS read_file(EFI_FILE_HANDLE root, CHAR16 *path, UINTN *size,
		     EFI_PHYSICAL_ADDRESS *addr)
{
	EFI_FILE_HANDLE file;
	EFI_FILE_INFO *info;
	EFI_STATUS status;
	UINTN want;

	TRY(root->Open(root, &file, path, EFI_FILE_MODE_READ, 0),
	    L"cannot open %s", path);
	info = LibFileInfo(file);
	if (!info) {
		file->Close(file);
		FAIL(EFI_DEVICE_ERROR, L"cannot stat %s", path);
	}
	want = info->FileSize;
	FreePool(info);

	*size = want;
	*addr = 0;
	status = EFI_SUCCESS;
	if (want > 0) {
		status = alloc_stitch_pages((want + PAGE_SIZE - 1) / PAGE_SIZE, addr);
		if (!EFI_ERROR(status))
			status = file->Read(file, size, (void *)*addr);
		if (!EFI_ERROR(status) && *size != want)
			status = EFI_END_OF_FILE; /* short read: the file changed */
	}
	file->Close(file);
	if (EFI_ERROR(status))
		FAIL(status, L"cannot read %s", path);
	return EFI_SUCCESS;
}
