# tools/usim/: build/bin/stitch-usim runs Stitch's ring-3 programs on the
# Linux host under ptrace with the Stitch system-call contract
# (docs/USERLAND.md); test 30 runs the demo and the in-guest tests under it.
#
#   make                  build/bin/stitch-usim

USIM_TOOL := $(BIN)/stitch-usim
$(USIM_TOOL): tools/usim/usim.c include/stitch/syscall.h
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -o $@ $<

ALL_TARGETS  += $(USIM_TOOL)
TEST_PREREQS += $(USIM_TOOL)
