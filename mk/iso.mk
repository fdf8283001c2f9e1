# The boot media: an ESP image (FAT, made with mtools) holding the loader,
# the kernel, the initrd and the command line; and build/stitch.iso, an ISO
# that boots from CD-ROM (El Torito) and from a USB stick (GPT with the ESP
# as partition 2), made with xorriso.

RUN_PACKAGES += mtools dosfstools qemu-system-x86 ovmf
# The ISO (`make`, `make iso`); the boot tests read its partition table
# (fdisk) and test/t/08-boot-stick.t reads the screen with OCR.
PACKAGES += xorriso fdisk tesseract-ocr

# The kernel command line written into the ESP (tests override it per boot
# with tools/qemu-run --cmdline).
CMDLINE ?= init=/bin/demo
CMDLINE_FILE := $(BUILD)/cmdline.txt

# Rewritten only when CMDLINE changes, so the ESP is rebuilt then (the
# Makefile's VALUE_FILES).
VALUE_FILES += CMDLINE_FILE
CMDLINE_FILE_TEXT = $(CMDLINE)

ESP_FILES := $(LOADER_EFI) $(KERNEL_ELF) $(INITRD) $(CMDLINE_FILE)

# Size: the files plus 1 MiB for FAT overhead; mkfs.fat picks FAT12/16/32
# by size (UEFI reads all three). Small matters: the El Torito entry counts
# the image in 16-bit units of 512 bytes, so a CD boot wants it under 32 MiB.
$(ESP_IMG): $(ESP_FILES)
	rm -f $@
	kib=$$(du -kc $^ | tail -1 | cut -f1); kib=$$((kib + 1024)); \
		mkfs.fat -C -n STITCH $@ $$kib >/dev/null
	mmd -i $@ ::/EFI ::/EFI/BOOT ::/stitch
	mcopy -i $@ $(LOADER_EFI) ::/EFI/BOOT/BOOTX64.EFI
	mcopy -i $@ $(KERNEL_ELF) ::/stitch/kernel.elf
	mcopy -i $@ $(INITRD) ::/stitch/initrd.cpio
	mcopy -i $@ $(CMDLINE_FILE) ::/stitch/cmdline.txt

# The stick's data partition: an empty FAT volume labelled STITCHDATA
# where the loader saves the records a run kept in RAM
# (\stitch\records.bin, docs/BOOT.md). RECORDS_MIB sizes it; the records
# a run may keep are its free space less 1 MiB, at most 256 MiB.
RECORDS_MIB ?= 64
DATA_IMG := $(BUILD)/data-$(RECORDS_MIB)M.img

$(DATA_IMG):
	rm -f $(BUILD)/data-*M.img
	mkfs.fat -C -n STITCHDATA $@ $$(($(RECORDS_MIB) * 1024)) >/dev/null

# -append_partition + -appended_part_as_gpt give a real GPT whose partition
# 2 is the ESP (USB boot) and partition 3 the data partition (a basic data
# partition); the El Torito EFI entry points at the ESP (CD boot).
$(ISO): $(ESP_IMG) $(DATA_IMG)
	@size=$$(stat -c %s $(ESP_IMG)); [ $$size -le $$((65535 * 512)) ] || { \
		echo "iso: $(ESP_IMG) is $$size bytes; El Torito describes at most 65535 * 512" >&2; exit 1; }
	rm -rf $(BUILD)/isoroot && mkdir -p $(BUILD)/isoroot
	cp README.md $(BUILD)/isoroot/
	xorriso -as mkisofs -quiet -o $@ -R -J -V STITCH \
		-append_partition 2 0xef $(ESP_IMG) -append_partition 3 0x0c $(DATA_IMG) \
		-appended_part_as_gpt \
		-e --interval:appended_partition_2:all:: -no-emul-boot \
		$(BUILD)/isoroot

.PHONY: iso
iso: $(ISO)
RUN_TARGETS += $(ESP_IMG)
ALL_TARGETS += $(ISO)
