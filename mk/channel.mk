# The record channel's host side: build/bin/recextract cuts the stream out
# of the ivshmem shared-memory file after QEMU exits (tools/qemu-run
# --records). The kernel side is arch/x86_64/channel/{channel,ivshmem,pci}.c;
# test/t/41-channel.t. docs/SAMPLING.md, "The drain and the channel".

CHANNEL_EXTRACT := $(BIN)/recextract
CHANNEL_SRCS    := tools/recextract/recextract.c
CHANNEL_HDRS    := include/stitch/shm.h

# The layout is include/stitch/shm.h, shared with the kernel, not copied.
$(CHANNEL_EXTRACT): $(CHANNEL_SRCS) $(CHANNEL_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -Wconversion -o $@ $(CHANNEL_SRCS)

RUN_TARGETS  += $(CHANNEL_EXTRACT)
