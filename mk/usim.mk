# tools/usim/: build/bin/stitch-usim runs Stitch's ring-3 programs on the
# Linux host under ptrace with the Stitch system-call contract
# (docs/USERLAND.md); test 30 runs the demo and the in-guest tests under it.
#
#   make                  build/bin/stitch-usim

USIM_TOOL := $(BIN)/stitch-usim
USIM_SRCS := tools/usim/usim.c tools/usim/signal.c tools/usim/thread.c
$(USIM_TOOL): $(USIM_SRCS) tools/usim/usim.h include/stitch/syscall.h include/stitch/signal.h
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -o $@ $(USIM_SRCS) -lelf

ALL_TARGETS  += $(USIM_TOOL)
TEST_PREREQS += $(USIM_TOOL)
