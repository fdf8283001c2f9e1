# The record channel's host side: build/bin/recextract cuts the stream out
# of the ivshmem shared-memory file after QEMU exits (tools/qemu-run
# --records). The kernel side is arch/x86_64/{channel,ivshmem,pci}.c;
# test/t/41-channel.t. docs/SAMPLING.md, "The drain and the channel".

CHANNEL_EXTRACT := $(BIN)/recextract
CHANNEL_SRCS    := tools/recextract/recextract.c
CHANNEL_HDRS    := arch/x86_64/ivshmem.h

# -I.: the layout is the kernel's own header, shared, not copied.
$(CHANNEL_EXTRACT): $(CHANNEL_SRCS) $(CHANNEL_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -Wconversion -I. -o $@ $(CHANNEL_SRCS)

ALL_TARGETS  += $(CHANNEL_EXTRACT)
TEST_PREREQS += $(CHANNEL_EXTRACT)
