# userland/hostile/: the adversarial ring-3 programs and their runner
# /bin/hostile (docs/SECURITY.md); test/t/80-hostile.t boots them once.
#
# This file comes before mk/userland.mk (mk/*.mk are included in name
# order): it hands its programs to the SDK through USER_EXTRA_PROGRAMS /
# USER_SRCS_<name>, and they go into the initrd.

HOSTILE_FAMILIES := h-sys h-priv h-stack h-proc h-sframe
HOSTILE_PROGRAMS := hostile $(HOSTILE_FAMILIES)
USER_EXTRA_PROGRAMS += $(HOSTILE_PROGRAMS)
USER_SRCS_hostile := userland/hostile/runner.c
$(foreach p,$(HOSTILE_FAMILIES),$(eval USER_SRCS_$(p) := userland/hostile/$(p).c))
USER_SRCS_h-stack += userland/hostile/frames.S
USER_SRCS_h-sframe += userland/hostile/frames.S

# The programs' shared header: the SDK's rule knows only its own headers.
$(HOSTILE_PROGRAMS:%=$(BUILD)/userland/root/bin/%): userland/hostile/hostile.h
