/*
 * Records kept in RAM across a warm reset (include/stitch/keep.h): the
 * loader's half. On a normal boot it reserves the region, if the boot
 * medium has a writable data partition labelled STITCHDATA to save it to
 * (`make iso` makes one). On the boot after the kernel's warm reset it
 * finds the sealed region, checks it, writes \stitch\records.bin and
 * \stitch\records.txt (what was checked, what was damaged) to that
 * partition with the file protocol, says so on the screen and powers off.
 *
 * Only the boot medium is written: the data partition must be on the same
 * disk as the volume the loader was started from (the same device path up
 * to the partition node), so no other disk of the machine is touched.
 */
#include "loader.h"
#include <stitch/keep.h>
#include <stitch/shm.h>

#define DATA_LABEL   L"STITCHDATA"
/* Lowest address tried for the region: clear of what firmware uses low
 * in memory during a boot (OVMF's PEI and DXE allocate from the top of
 * low memory down, and below 16 MiB). */
#define KEEP_LOW     (256ull << 20)
#define KEEP_LOW_MIN (16ull << 20)
/* Left free on the partition for records.txt and FAT's own growth. */
#define FS_SLACK     (1ull << 20)
#define WRITE_PIECE  (1u << 20)
#define SHOW_SECONDS 5

static BOOLEAN is_partition(EFI_DEVICE_PATH *n)
{
	return DevicePathType(n) == MEDIA_DEVICE_PATH &&
	       DevicePathSubType(n) == MEDIA_HARDDRIVE_DP;
}

/* Bytes of the path before its partition node; 0 if it has none. */
static UINTN disk_prefix(EFI_DEVICE_PATH *p)
{
	for (EFI_DEVICE_PATH *n = p; !IsDevicePathEnd(n); n = NextDevicePathNode(n))
		if (is_partition(n))
			return (UINT8 *)n - (UINT8 *)p;
	return 0;
}

/* The STITCHDATA volume on the boot disk, writable; NULL if none. */
static EFI_FILE_HANDLE open_data_volume(EFI_HANDLE image, UINT64 *free_space)
{
	EFI_LOADED_IMAGE *loaded;
	EFI_HANDLE *handles;
	EFI_FILE_HANDLE found = NULL;
	UINTN n;

	if (EFI_ERROR(BS->HandleProtocol(image, &LoadedImageProtocol, (void **)&loaded)))
		return NULL;
	EFI_DEVICE_PATH *boot = DevicePathFromHandle(loaded->DeviceHandle);
	UINTN len = boot ? disk_prefix(boot) : 0;
	if (len == 0 || EFI_ERROR(LibLocateHandle(ByProtocol, &FileSystemProtocol,
						  NULL, &n, &handles)))
		return NULL;
	for (UINTN i = 0; i < n && !found; i++) {
		EFI_DEVICE_PATH *p = DevicePathFromHandle(handles[i]);
		if (handles[i] == loaded->DeviceHandle || !p || disk_prefix(p) != len ||
		    CompareMem(p, boot, len))
			continue;
		EFI_FILE_HANDLE root = LibOpenRoot(handles[i]);
		EFI_FILE_SYSTEM_INFO *info = root ? LibFileSystemInfo(root) : NULL;
		if (info && !info->ReadOnly && StrCmp(info->VolumeLabel, DATA_LABEL) == 0) {
			found = root;
			*free_space = info->FreeSpace;
		} else if (root) {
			root->Close(root);
		}
		if (info)
			FreePool(info);
	}
	FreePool(handles);
	return found;
}

static BOOLEAN is_ram(UINT32 type)
{
	return type == EfiConventionalMemory || type == EfiBootServicesCode ||
	       type == EfiBootServicesData || type == EfiLoaderCode ||
	       type == EfiLoaderData;
}

#define FOR_EACH_DESC(d, map, n, size) \
	for (EFI_MEMORY_DESCRIPTOR *d = (map); \
	     (UINT8 *)d < (UINT8 *)(map) + (n) * (size); \
	     d = (EFI_MEMORY_DESCRIPTOR *)((UINT8 *)d + (size)))

/* Is [a, a + len) RAM, every page of it? */
static BOOLEAN all_ram(EFI_MEMORY_DESCRIPTOR *map, UINTN n, UINTN size,
		       UINT64 a, UINT64 len)
{
	for (UINT64 at = a; at < a + len; at += PAGE_SIZE) {
		BOOLEAN ok = FALSE;
		FOR_EACH_DESC(d, map, n, size)
			if (is_ram(d->Type) && at >= d->PhysicalStart &&
			    at < d->PhysicalStart + d->NumberOfPages * PAGE_SIZE)
				ok = TRUE;
		if (!ok)
			return FALSE;
	}
	return TRUE;
}

/* A sealed region on a 2 MiB boundary of RAM, its header whole. */
static struct keep_header *find_sealed(void)
{
	UINTN n, key, size;
	UINT32 version;
	struct keep_header *found = NULL;
	EFI_MEMORY_DESCRIPTOR *map = LibMemoryMap(&n, &key, &size, &version);
	if (!map)
		return NULL;
	FOR_EACH_DESC(d, map, n, size) {
		UINT64 end = d->PhysicalStart + d->NumberOfPages * PAGE_SIZE;
		if (!is_ram(d->Type) || found)
			continue;
		for (UINT64 a = (d->PhysicalStart + KEEP_ALIGN - 1) & ~(KEEP_ALIGN - 1);
		     a + KEEP_DATA_OFFSET <= end && !found; a += KEEP_ALIGN) {
			struct keep_header *h = (struct keep_header *)a;
			if (h->magic == KEEP_MAGIC &&
			    all_ram(map, n, size, a, KEEP_DATA_OFFSET))
				found = h;
		}
	}
	/* The rest of the region must be RAM too before anything reads it. */
	if (found && (found->region_size > KEEP_DATA_OFFSET + KEEP_MAX ||
		      !all_ram(map, n, size, (UINT64)found, found->region_size)))
		found = NULL;
	FreePool(map);
	return found;
}

/* The header as sealed: its CRC, and bounds that agree with each other. */
static BOOLEAN header_ok(struct keep_header *h)
{
	return keep_header_crc(h) == h->header_crc && h->version == KEEP_VERSION &&
	       h->region_size > KEEP_DATA_OFFSET &&
	       h->area_bytes >= sizeof(struct shm_header) &&
	       h->area_bytes <= h->region_size - KEEP_DATA_OFFSET &&
	       h->nchunks == (h->area_bytes + KEEP_CHUNK - 1) / KEEP_CHUNK;
}

static EFI_STATUS write_file(EFI_FILE_HANDLE dir, CHAR16 *name, const void *buf,
			     UINTN n)
{
	EFI_FILE_HANDLE f;
	EFI_STATUS status;

	if (!EFI_ERROR(dir->Open(dir, &f, name, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, 0)))
		f->Delete(f); /* the last run's */
	status = dir->Open(dir, &f, name, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE |
			   EFI_FILE_MODE_CREATE, 0);
	if (EFI_ERROR(status))
		return status;
	for (UINTN done = 0; done < n && !EFI_ERROR(status);) {
		UINTN piece = n - done < WRITE_PIECE ? n - done : WRITE_PIECE, wrote = piece;
		status = f->Write(f, &wrote, (UINT8 *)buf + done); /* not written to */
		if (!EFI_ERROR(status) && wrote != piece)
			status = EFI_VOLUME_FULL;
		done += wrote;
	}
	if (!EFI_ERROR(status))
		status = f->Flush(f);
	if (EFI_ERROR(status)) {
		f->Delete(f); /* a cut-off file would pass for a short run */
		return status;
	}
	return f->Close(f);
}

/* One line on the screen and in records.txt. */
static void say(CHAR8 *txt, UINTN *len, UINTN cap, CHAR16 *fmt, ...)
{
	CHAR16 line[200];
	va_list ap;
	va_start(ap, fmt);
	UINTN n = VSPrint(line, sizeof(line), fmt, ap);
	va_end(ap);
	Print(L"stitch-boot: %s\n", line);
	for (UINTN i = 0; i < n && *len + 1 < cap; i++)
		txt[(*len)++] = (CHAR8)line[i];
	if (*len + 1 < cap)
		txt[(*len)++] = '\n';
}

/* Checks and saves the region; the status of the writes. */
static EFI_STATUS save(EFI_HANDLE image, struct keep_header *h)
{
	static CHAR8 txt[4096];
	UINTN len = 0, bad = 0;
	const UINT8 *area = (const UINT8 *)h + KEEP_DATA_OFFSET;
	const struct shm_header *sh = (const struct shm_header *)area;
	UINT64 free_space;

	if (!header_ok(h)) {
		Print(L"stitch-boot: kept records at %lx: the header is damaged; nothing saved\n",
		      (UINT64)h);
		return EFI_CRC_ERROR;
	}
	say(txt, &len, sizeof(txt), L"records kept in RAM at %lx: %ld bytes in %d chunks of %d KiB",
	    (UINT64)h, h->area_bytes, h->nchunks, KEEP_CHUNK >> 10);
	for (UINT32 i = 0; i < h->nchunks; i++) {
		UINT64 at = (UINT64)i * KEEP_CHUNK;
		UINT64 n = h->area_bytes - at < KEEP_CHUNK ? h->area_bytes - at : KEEP_CHUNK;
		if (keep_crc32(0, area + at, n) != h->chunk_crc[i]) {
			say(txt, &len, sizeof(txt), L"DAMAGED: chunk %d (bytes %ld-%ld) changed during the reset",
			    i, at, at + n - 1);
			bad++;
		}
	}
	UINT64 written = sh->written;
	if (sh->magic != SHM_MAGIC || sh->data_offset != sizeof(*sh) ||
	    written != h->area_bytes - sh->data_offset) {
		say(txt, &len, sizeof(txt), L"DAMAGED: the stream header disagrees; saving the area as it is");
		written = h->area_bytes - sizeof(*sh);
	}
	if (sh->dropped)
		say(txt, &len, sizeof(txt), L"the kernel refused %ld records (%ld bytes): the region was full",
		    sh->dropped, sh->dropped_bytes);
	say(txt, &len, sizeof(txt), bad ? L"%d of %d chunks DAMAGED: records.bin holds them as they are" :
	    L"all %d chunks intact", bad ? bad : h->nchunks, h->nchunks);

	EFI_FILE_HANDLE root = open_data_volume(image, &free_space), dir;
	if (!root) {
		Print(L"stitch-boot: no writable STITCHDATA partition on this disk: records not saved\n");
		return EFI_NOT_FOUND;
	}
	TRY(root->Open(root, &dir, L"\\stitch", EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE |
		       EFI_FILE_MODE_CREATE, EFI_FILE_DIRECTORY),
	    L"cannot create \\stitch on the data partition");
	EFI_STATUS status = write_file(dir, L"records.bin", area + sizeof(*sh), written);
	if (EFI_ERROR(status))
		say(txt, &len, sizeof(txt), L"records.bin NOT saved: %r", status);
	else
		say(txt, &len, sizeof(txt), L"saved %ld bytes to \\stitch\\records.bin on STITCHDATA",
		    written);
	EFI_STATUS txt_status = write_file(dir, L"records.txt", txt, len);
	if (EFI_ERROR(txt_status))
		Print(L"stitch-boot: records.txt not saved: %r\n", txt_status);
	dir->Close(dir);
	root->Close(root);
	return EFI_ERROR(status) ? status : txt_status;
}

void keep_save_previous(EFI_HANDLE image)
{
	struct keep_header *h = find_sealed();
	EFI_PHYSICAL_ADDRESS at = (UINT64)h;
	UINTN pages = KEEP_DATA_OFFSET / PAGE_SIZE;
	if (!h)
		return;
	/* The header pages must be free, so that clearing the magic writes
	 * nobody's memory: if the firmware took them during the reset, say
	 * so and boot as usual (a later boot finds the same stale magic and
	 * says so again, but never loops). */
	if (EFI_ERROR(BS->AllocatePages(AllocateAddress, EfiLoaderData, pages, &at))) {
		Print(L"stitch-boot: kept records at %lx: the firmware uses that memory now; "
		      L"not saved\n", (UINT64)h);
		return;
	}
	EFI_STATUS status = save(image, h);
	h->magic = 0; /* saved, or reported: the next boot runs the kernel */
	BS->FreePages(at, pages);
	Print(L"stitch-boot: %s; powering off in %d s\n",
	      EFI_ERROR(status) ? L"the records were NOT all saved" : L"done",
	      SHOW_SECONDS);
	BS->Stall(SHOW_SECONDS * 1000000);
	RT->ResetSystem(EfiResetShutdown, EFI_SUCCESS, 0, NULL);
	Print(L"stitch-boot: the firmware did not power off; switch off by hand\n");
	for (;;)
		BS->Stall(1000000);
}

/* The lowest 2 MiB-aligned address at or above `low` where `bytes` of
 * free memory start. */
static UINT64 free_at(UINT64 low, UINT64 bytes)
{
	UINTN n, key, size;
	UINT32 version;
	UINT64 best = 0;
	EFI_MEMORY_DESCRIPTOR *map = LibMemoryMap(&n, &key, &size, &version);
	if (!map)
		return 0;
	FOR_EACH_DESC(d, map, n, size) {
		UINT64 end = d->PhysicalStart + d->NumberOfPages * PAGE_SIZE;
		UINT64 a = (d->PhysicalStart + KEEP_ALIGN - 1) & ~(KEEP_ALIGN - 1);
		if (a < low)
			a = low;
		if (d->Type == EfiConventionalMemory && a >= d->PhysicalStart &&
		    a + bytes <= end && (!best || a < best))
			best = a;
	}
	FreePool(map);
	return best;
}

void keep_reserve(EFI_HANDLE image, struct boot_info *bi)
{
	UINT64 free_space, bytes, at;
	EFI_FILE_HANDLE root = open_data_volume(image, &free_space);
	if (!root)
		return; /* nowhere to save records: the kernel uses its other channels */
	root->Close(root);
	if (free_space < FS_SLACK + (1u << 20)) {
		Print(L"stitch-boot: the STITCHDATA partition is full: no records kept\n");
		return;
	}
	bytes = free_space - FS_SLACK;
	if (bytes > KEEP_DATA_OFFSET + KEEP_MAX)
		bytes = KEEP_DATA_OFFSET + KEEP_MAX;
	bytes &= ~(PAGE_SIZE - 1);
	if (!(at = free_at(KEEP_LOW, bytes)) && !(at = free_at(KEEP_LOW_MIN, bytes))) {
		Print(L"stitch-boot: no free memory for %ld KiB of kept records\n", bytes >> 10);
		return;
	}
	if (EFI_ERROR(BS->AllocatePages(AllocateAddress, BOOT_EFI_STITCH_MEMORY_TYPE,
					bytes / PAGE_SIZE, &at)))
		return;
	ZeroMem((void *)at, KEEP_DATA_OFFSET);
	bi->keep_phys = at;
	bi->keep_size = bytes;
	Print(L"stitch-boot: records will be kept in RAM at %lx (%ld KiB) for STITCHDATA\n",
	      at, bytes >> 10);
}
