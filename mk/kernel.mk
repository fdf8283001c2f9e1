# kern/ and arch/$(ARCH)/: the kernel, build/kernel/kernel.elf.

# The SFrame library (sframe/) is compiled in from its own sources with the
# kernel's flags: the kernel unwinds itself with it (kern/unwind/kernel.c).
# So is the .eh_frame library (ehframe/), for the eh-frame mode's lookups.
KERNEL_SRCS := $(wildcard kern/*.c kern/*/*.c $(ARCH_DIR)/*/*.c $(ARCH_DIR)/*/*.S sframe/*.c \
	ehframe/*.c)
KERNEL_OBJS := $(patsubst %,$(BUILD)/kernel/%.o,$(basename $(KERNEL_SRCS))) \
	$(BUILD)/kernel/font.o

# The framebuffer console's font (kern/lib/font.h): a Linux console font of
# Debian's console-setup-linux, converted into a C array at build time.
RUN_PACKAGES += console-setup-linux
FONT ?= /usr/share/consolefonts/Lat15-TerminusBold16.psf.gz

$(BUILD)/kernel/font.c: $(FONT) tools/psf2c
	@mkdir -p $(dir $@)
	tools/psf2c $(FONT) $@

# No frame pointers: the kernel unwinds itself with the .sframe section
# that --gsframe emits from GCC's CFI, like Linux with ORC. The same CFI
# also goes to .debug_frame (-g without unwind tables: GCC then says
# `.cfi_sections .debug_frame`), which is not loaded but stays in
# kernel.elf for gdb; .eh_frame, which would be loaded, is not made. (The
# .sframe, text and data are byte for byte what -fasynchronous-unwind-tables
# gives.) The assembly has CFI for debuggers only: it is assembled without
# --gsframe, so it gets no SFrame entry and ends a kernel unwind, as
# kern/unwind/kernel.c expects; usercopy.S alone asks for .sframe itself
# (`.cfi_sections .sframe`), so a kernel unwind crosses the user copies.
KERNEL_ASFLAGS := -std=gnu11 -ffreestanding -fno-pic -mcmodel=kernel \
	-mno-red-zone -mgeneral-regs-only -fno-stack-protector -O2 -g $(WARN) \
	-Iinclude $(ARCH_INCLUDE) -I. -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-fomit-frame-pointer -MMD -MP
# -iquote sframe: ehframe/ehframe.h includes "sframe.h" (the rule's type).
KERNEL_CFLAGS := $(KERNEL_ASFLAGS) -Wa,--gsframe -iquote sframe
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=4096 -z noexecstack \
	--build-id -T linker.ld

$(BUILD)/kernel/font.o: $(BUILD)/kernel/font.c
	$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(BUILD)/kernel/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(BUILD)/kernel/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_ASFLAGS) -D__ASSEMBLY__ -c $< -o $@

$(KERNEL_ELF): $(KERNEL_OBJS) linker.ld
	@mkdir -p $(dir $@)
	$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS)

-include $(KERNEL_OBJS:.o=.d)
# The flags are here: a change to them rebuilds the kernel.
$(KERNEL_OBJS): mk/kernel.mk

RUN_TARGETS  += $(KERNEL_ELF)
TEST_PREREQS += $(ESP_IMG)

# The SFrame library reads user sections and stacks in place with the
# kernel's single user loads (sframe/internal.h, arch/$(ARCH)/include/arch/sframe_load.h).
SFRAME_ENV_LOAD := -DSF_ENV_LOAD_H='<arch/sframe_load.h>'
$(BUILD)/kernel/sframe/%.o: KERNEL_CFLAGS += $(SFRAME_ENV_LOAD)
# The .eh_frame library likewise (ehframe/read.c, arch/$(ARCH)/include/arch/ehframe_load.h).
EHFRAME_ENV_LOAD := -DEH_ENV_LOAD_H='<arch/ehframe_load.h>'
$(BUILD)/kernel/ehframe/%.o: KERNEL_CFLAGS += $(EHFRAME_ENV_LOAD)

# The arch boundary (docs/ARCHITECTURE.md): kern/, sframe/ and ehframe/ use nothing
# of arch/$(ARCH)/ but its interface headers, arch/$(ARCH)/include/arch/,
# and write no instruction of their own. tools/check-arch says where they
# do; the kernel does not link until it is satisfied. `make check-arch`
# runs it alone (test 14 gives it a file that breaks the rule).
ARCH_CHECK_SRCS := $(wildcard kern/*.c kern/*.h kern/*/*.c kern/*/*.h sframe/*.c sframe/*.h \
	ehframe/*.c ehframe/*.h)
ARCH_OBJS := $(filter $(BUILD)/kernel/$(ARCH_DIR)/%,$(KERNEL_OBJS))
ARCH_CHECK = @echo "tools/check-arch --arch $(ARCH_DIR) ... (kern/, sframe/, ehframe/)"; \
	tools/check-arch --arch $(ARCH_DIR) \
	--cpp "$(CC) -Iinclude $(ARCH_INCLUDE) -I. -iquote sframe $(SFRAME_ENV_LOAD) $(EHFRAME_ENV_LOAD)" \
	--objs "$(ARCH_OBJS)" $(ARCH_CHECK_SRCS)

$(BUILD)/kernel/arch-check.ok: $(ARCH_CHECK_SRCS) $(ARCH_OBJS) tools/check-arch \
		$(wildcard $(ARCH_DIR)/*.h $(ARCH_DIR)/*/*.h $(ARCH_DIR)/include/arch/*.h)
	$(ARCH_CHECK)
	@touch $@
$(KERNEL_ELF): $(BUILD)/kernel/arch-check.ok

.PHONY: check-arch
check-arch: $(ARCH_OBJS)
	$(ARCH_CHECK)
