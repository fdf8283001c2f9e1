# kern/ and arch/x86_64/: the kernel, build/kernel/kernel.elf.

# The SFrame library (sframe/) is compiled in from its own sources with the
# kernel's flags: the kernel unwinds itself with it (kern/kunwind.c).
KERNEL_SRCS := $(wildcard kern/*.c arch/x86_64/*.c arch/x86_64/*.S sframe/*.c)
KERNEL_OBJS := $(patsubst %,$(BUILD)/kernel/%.o,$(basename $(KERNEL_SRCS)))

# No frame pointers: the kernel unwinds itself with the .sframe section
# that --gsframe emits from the CFI (-fasynchronous-unwind-tables), like
# Linux with ORC. Assembly without CFI gets no SFrame entry and ends a walk.
KERNEL_CFLAGS := -std=gnu11 -ffreestanding -fno-pic -mcmodel=kernel \
	-mno-red-zone -mgeneral-regs-only -fno-stack-protector -O2 -g $(WARN) \
	-Iinclude -I. -Wa,--gsframe -fasynchronous-unwind-tables \
	-fomit-frame-pointer -MMD -MP
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=4096 -z noexecstack \
	--build-id -T linker.ld

$(BUILD)/kernel/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(BUILD)/kernel/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_CFLAGS) -D__ASSEMBLY__ -c $< -o $@

$(KERNEL_ELF): $(KERNEL_OBJS) linker.ld
	@mkdir -p $(dir $@)
	$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS)

-include $(KERNEL_OBJS:.o=.d)

ALL_TARGETS  += $(KERNEL_ELF)
TEST_PREREQS += $(ESP_IMG)
