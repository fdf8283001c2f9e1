# The kernel's own 32-bit (compat, i386) test programs (docs/PROCESSES.md,
# "32-bit programs"): freestanding, no libc, their system calls through
# the hand-written int $0x80 gate of userland/compat/start32.S, so that
# they test the kernel alone.
#
#   /bin/compat32          the checks and modes /bin/t-compat runs (test 34)
#   /bin/hostile32         lies to the unwinders (test 38-compat-hostile)
#   /data/compat32-*       damaged copies for the loader (mkhostile.py);
#                          in data/, copied as they are (strip would refuse
#                          or repair them)
#
# Included before mk/userland.mk (mk/*.mk in name order): the files go to
# the initrd through USER_EXTRA_FILES, so `make run` builds them too.
# Debian's gcc-multilib makes gcc -m32 a supported build (its 32-bit libgcc
# and headers): these programs link none of its libraries (freestanding,
# -nostdlib), 32-bit programs on the SDK's newlib do.

RUN_PACKAGES += gcc-multilib

COMPAT32_ROOT := $(BUILD)/userland/root
COMPAT32_OUT  := $(BUILD)/compat32
COMPAT32_CFLAGS := -m32 -std=gnu11 -O2 -g $(WARN) -ffreestanding -fno-pie \
	-fno-stack-protector -Iinclude
COMPAT32_LDFLAGS := -m32 -static -nostdlib -no-pie -Wl,--build-id -Wl,--eh-frame-hdr \
	-Wl,-z,noexecstack
COMPAT32_HOSTILE := truncated high machine sframe

# Every ABI header compiles with -m32: their _Static_asserts (one layout
# for 32-bit and 64-bit programs) hold in the 32-bit build too.
$(COMPAT32_OUT)/headers.ok: $(wildcard include/stitch/*.h) mk/compat32.mk
	@mkdir -p $(@D)
	for h in $(wildcard include/stitch/*.h); do \
		printf '#include <stddef.h>\n#include "%s"\n' $${h#include/} | \
		$(HOST_CC) $(COMPAT32_CFLAGS) -fsyntax-only -x c - || exit 1; \
	done
	touch $@

$(COMPAT32_ROOT)/bin/compat32: userland/compat/start32.S userland/compat/compat32.c userland/compat/lib32.h \
		$(COMPAT32_OUT)/headers.ok mk/compat32.mk
	@mkdir -p $(@D)
	$(HOST_CC) $(COMPAT32_CFLAGS) $(COMPAT32_LDFLAGS) -o $@ \
		userland/compat/start32.S userland/compat/compat32.c

$(addprefix $(COMPAT32_ROOT)/data/compat32-,$(COMPAT32_HOSTILE)) &: \
		$(COMPAT32_ROOT)/bin/compat32 userland/compat/mkhostile.py
	@mkdir -p $(COMPAT32_ROOT)/data
	python3 userland/compat/mkhostile.py $< $(COMPAT32_ROOT)/data

USER_EXTRA_FILES += bin/compat32 $(addprefix data/compat32-,$(COMPAT32_HOSTILE))

# /bin/hostile32: lying frame pointers and damaged i386 .eh_frame sections
# (test/t/38-compat-hostile.t); built with frame pointers, so that its
# honest frames are good ones.
$(COMPAT32_ROOT)/bin/hostile32: userland/compat/start32.S userland/compat/lies32.S \
		userland/compat/hostile32.c userland/compat/lib32.h $(COMPAT32_OUT)/headers.ok \
		mk/compat32.mk
	@mkdir -p $(@D)
	$(HOST_CC) $(COMPAT32_CFLAGS) -fno-omit-frame-pointer \
		-fno-optimize-sibling-calls \
		$(COMPAT32_LDFLAGS) -o $@ userland/compat/start32.S userland/compat/lies32.S \
		userland/compat/hostile32.c

USER_EXTRA_FILES += bin/hostile32
