# userland/hostile/: the adversarial ring-3 programs and their runner
# /bin/hostile (docs/SECURITY.md); test/t/80-hostile.t boots them once.
# /bin/h-load is the load of test/t/83-load.t and `make load`.
#
# This file comes before mk/userland.mk (mk/*.mk are included in name
# order): it hands its programs to the SDK through USER_EXTRA_PROGRAMS /
# USER_SRCS_<name>, and they go into the initrd.

# Tests 80 and 83 read the streams through tools/recstream.py summary
# (JSON), with Perl's JSON::XS: a load run is large.
ifneq ($(filter test load,$(MAKECMDGOALS)),)
PACKAGES += libjson-xs-perl
endif

HOSTILE_FAMILIES := h-sys h-priv h-stack h-proc h-sframe h-load h-signal h-thread
HOSTILE_PROGRAMS := hostile $(HOSTILE_FAMILIES)
USER_EXTRA_PROGRAMS += $(HOSTILE_PROGRAMS)
USER_SRCS_hostile := userland/hostile/runner.c
$(foreach p,$(HOSTILE_FAMILIES),$(eval USER_SRCS_$(p) := userland/hostile/$(p).c))
USER_SRCS_h-stack += userland/hostile/frames.S
USER_SRCS_h-sframe += userland/hostile/frames.S

# The programs' shared header: the SDK's rule knows only its own headers.
$(HOSTILE_PROGRAMS:%=$(BUILD)/userland/root/bin/%): userland/hostile/hostile.h

# make load: the long load, 32 processes at 20 kHz for 60 s of guest
# time with the default 2 MiB rings (test 83; `make test` runs it for 8 s
# with 16 KiB rings, so that losses happen and their counting is checked).
LOAD_PROCS   ?= 32
LOAD_SECONDS ?= 60
LOAD_RING    ?= 2048

.PHONY: load
load: $(KERNEL_ELF) $(INITRD) $(BIN)/stitch
	LOAD_PROCS=$(LOAD_PROCS) LOAD_SECONDS=$(LOAD_SECONDS) LOAD_RING=$(LOAD_RING) \
		prove -v test/t/83-load.t
