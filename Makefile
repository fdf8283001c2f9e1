# Stitch: the one entry point.
#
#   make            build everything into build/
#   make run        build, boot in QEMU (OVMF, TCG), run the demo, print the profile
#   make test       every test: host unit tests, kernel tests in QEMU, boot tests
#   make iso        build/stitch.iso, bootable as CD-ROM and as USB stick
#   make clean
#   make help       every target and variable
#
# Each part of the tree has its own fragment in mk/ that adds to the
# variables below; this file only holds what they share.

BUILD   := build
BIN     := $(BUILD)/bin
OUT     := out

# The artefacts the fragments exchange (each is built by the fragment named).
KERNEL_ELF := $(BUILD)/kernel/kernel.elf   # mk/kernel.mk
LOADER_EFI := $(BUILD)/boot/BOOTX64.EFI    # mk/boot.mk
INITRD     := $(BUILD)/initrd.cpio         # mk/userland.mk
ESP_IMG    := $(BUILD)/esp.img             # mk/iso.mk
ISO        := $(BUILD)/stitch.iso          # mk/iso.mk

# The architecture the kernel is built for: its code is arch/$(ARCH)/, and
# kern/ and sframe/ see only its interface headers, arch/$(ARCH)/include/arch/
# (reached as <arch/...>); `make` checks that rule (mk/kernel.mk).
ARCH := x86_64
ARCH_DIR := arch/$(ARCH)
ARCH_INCLUDE := -I$(ARCH_DIR)/include

# Debian packages each fragment needs (installed before any build);
# perl (prove) and python3 run the tests.
PACKAGES := make gcc binutils perl cpio python3

# What `make` builds, and what `make test` needs built before it runs test/t/.
ALL_TARGETS  :=
TEST_PREREQS :=

# Warnings are errors everywhere in the project's own code.
WARN := -Wall -Wextra -Werror

# Host programs (tools/, tests): hosted C11 with debug info.
HOST_CC     := gcc
HOST_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Iinclude

.DEFAULT_GOAL := all

# newlib.mk first: others name $(NEWLIB_STAMP) as a prerequisite, which make
# expands as it reads the rule (binutils.mk and deferred.mk come before it
# in the alphabet, and got an empty prerequisite: libm.a was stripped
# before newlib was built).
include mk/newlib.mk
include $(filter-out mk/newlib.mk,$(sort $(wildcard mk/*.mk)))

# Install missing packages before anything is built (not for clean/help).
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
DEPS_STATUS := $(shell tools/install-deps $(sort $(PACKAGES)) >&2; echo $$?)
ifneq ($(DEPS_STATUS),0)
$(error missing Debian packages, see the message above)
endif
endif

.PHONY: all test clean help
# The test programs and fixtures are part of everything: any test file can
# then run alone after `make` (prove test/t/NN-*.t).
all: $(ALL_TARGETS) $(TEST_PREREQS)

# Every test is an executable in test/t/ that speaks TAP; prove runs them all.
test: all
	prove -v test/t/

clean:
	rm -rf $(BUILD) $(OUT)

# Every target and variable a user sets (test 01 keeps it complete).
help:
	@cat mk/help.txt
