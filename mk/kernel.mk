# kern/ and arch/x86_64/: the kernel, build/kernel/kernel.elf.

# The SFrame library (sframe/) is compiled in from its own sources with the
# kernel's flags: the kernel unwinds itself with it (kern/kunwind.c).
KERNEL_SRCS := $(wildcard kern/*.c arch/x86_64/*.c arch/x86_64/*.S sframe/*.c)
KERNEL_OBJS := $(patsubst %,$(BUILD)/kernel/%.o,$(basename $(KERNEL_SRCS)))

# No frame pointers: the kernel unwinds itself with the .sframe section
# that --gsframe emits from GCC's CFI, like Linux with ORC. The same CFI
# also goes to .debug_frame (-g without unwind tables: GCC then says
# `.cfi_sections .debug_frame`), which is not loaded but stays in
# kernel.elf for gdb; .eh_frame, which would be loaded, is not made. (The
# .sframe, text and data are byte for byte what -fasynchronous-unwind-tables
# gives.) The assembly has CFI for debuggers only: it is assembled without
# --gsframe, so it gets no SFrame entry and ends a kernel unwind, as
# kern/kunwind.c expects.
KERNEL_ASFLAGS := -std=gnu11 -ffreestanding -fno-pic -mcmodel=kernel \
	-mno-red-zone -mgeneral-regs-only -fno-stack-protector -O2 -g $(WARN) \
	-Iinclude -I. -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-fomit-frame-pointer -MMD -MP
KERNEL_CFLAGS := $(KERNEL_ASFLAGS) -Wa,--gsframe
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=4096 -z noexecstack \
	--build-id -T linker.ld

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

ALL_TARGETS  += $(KERNEL_ELF)
TEST_PREREQS += $(ESP_IMG)
