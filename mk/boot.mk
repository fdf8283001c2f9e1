# boot/: the UEFI loader, built with Debian's gnu-efi (its crt0, its link
# script, objcopy to a PE32+ EFI application).

RUN_PACKAGES += gnu-efi

BOOT_SRCS := $(wildcard boot/*.c)
BOOT_OBJS := $(BOOT_SRCS:%.c=$(BUILD)/%.o)
BOOT_SO   := $(BUILD)/boot/loader.so

GNU_EFI_LIB := /usr/lib
BOOT_CFLAGS := -std=gnu11 -O2 $(WARN) -Wno-unused-parameter \
	-ffreestanding -fno-stack-protector -fpic -fshort-wchar -mno-red-zone \
	-DGNU_EFI_USE_MS_ABI -I/usr/include/efi -I/usr/include/efi/x86_64 -Iinclude

$(BUILD)/boot/%.o: boot/%.c boot/loader.h include/stitch/boot_info.h \
		include/stitch/keep.h include/stitch/shm.h
	@mkdir -p $(dir $@)
	$(HOST_CC) $(BOOT_CFLAGS) -c $< -o $@

$(BOOT_SO): $(BOOT_OBJS)
	ld -nostdlib -znocombreloc -shared -Bsymbolic -T $(GNU_EFI_LIB)/elf_x86_64_efi.lds \
		$(GNU_EFI_LIB)/crt0-efi-x86_64.o $^ -o $@ -L$(GNU_EFI_LIB) -lefi -lgnuefi

$(LOADER_EFI): $(BOOT_SO)
	objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel \
		-j .rela -j .rel.* -j .rela.* -j .reloc --target efi-app-x86_64 \
		--subsystem=10 $< $@

RUN_TARGETS += $(LOADER_EFI)
