# Stitch: the one entry point.
#
#   make            build everything into build/
#   make run        build what a run needs, boot in QEMU (OVMF, TCG), run the
#                   demo, print the profile
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

# Debian packages each fragment needs, installed before any build:
# RUN_PACKAGES for what `make run` builds and runs (perl generates sources,
# python3 runs tools/qemu-run and its helpers); PACKAGES adds what only
# `make`, `make test` and the other targets use, BENCH_PACKAGES what only
# `make bench` and its other targets (the page, the plan, the check) use. A
# fragment adds to the list its parts belong to.
RUN_PACKAGES := make gcc binutils perl cpio python3
PACKAGES     :=
BENCH_PACKAGES :=

# What `make run` builds (the kernel, the loader, the ESP, the initrd with
# its full ELFs, the host tools a run uses); what `make` builds besides;
# what `make test` needs built before it runs test/t/.
RUN_TARGETS  :=
ALL_TARGETS  :=
TEST_PREREQS :=

# Warnings are errors everywhere in the project's own code.
WARN := -Wall -Wextra -Werror

# Host programs (tools/, tests): hosted C11 with debug info.
HOST_CC     := gcc
HOST_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Iinclude

.DEFAULT_GOAL := all

# One line a step ("  CC      build/kernel/kern/main.o"), as Linux's make
# prints; V=1 echoes every command instead, as make does by itself. The
# quiet form runs each recipe line through tools/quiet-shell, which also
# prints a failing command whole. make -s stays silent either way; make -n
# prints every command either way.
V ?= 0
ifneq ($(V),1)
.SILENT:
ifeq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
SHELL = $(CURDIR)/tools/quiet-shell $@
endif
endif

# newlib first: the other fragments name its files (the SDK's libraries,
# the stamp of its install) in their rules' prerequisites, which make
# expands as it reads them.
include mk/newlib.mk
include $(filter-out mk/newlib.mk,$(wildcard mk/*.mk))

# Files that hold a make variable's value (the kernel command line, the
# initrd's list, an APP's flags) so that a rule can depend on the value:
# each is rewritten only when the value changes, and what depends on it is
# rebuilt then and only then. They are written here, once every fragment
# has set its variables, not where a fragment is read: a fragment read
# before the one that sets a variable would write its default (make run
# APP=prog.c would boot the demo). Not by a rule that always
# runs either: make -n and make -q would then always claim the initrd, the
# ESP and the ISO are to be made again.
# A fragment adds the name of a variable to VALUE_FILES: that variable is
# the file's path, the same name with _TEXT appended its one line of text
# (a recursive variable, expanded here).
shell_quote = '$(subst ','\'',$(1))'
# (The temporary file is the shell's own: two makes may read the tree at once.)
write_value_file = $(shell mkdir -p $(dir $(1)); t=$(1).$$$$; printf '%s\n' $(call shell_quote,$(2)) > $$t; \
	cmp -s $$t $(1) && rm -f $$t || mv -f $$t $(1))
$(foreach n,$(VALUE_FILES),$(call write_value_file,$($(n)),$(strip $($(n)_TEXT))))
# A fragment's checks of what the user gave that need every fragment's
# variables (is RUN_INIT in the initrd?): names of variables whose
# expansion stops make with $(error ...) when the check fails.
$(foreach c,$(LATE_CHECKS),$($(c)))

# Install missing packages before anything is built (not for clean/help):
# for the goals of RUN_GOALS alone only RUN_PACKAGES, so that a first
# `make run` installs what it needs and no more; `make test` and `make
# bench` (and its bench-plan, bench-collect, bench-check) install the rest
# when they first run.
RUN_GOALS := run qemu-gdb stitch-report
DEPS := $(RUN_PACKAGES) $(if $(filter-out $(RUN_GOALS),$(or $(MAKECMDGOALS),all)),$(PACKAGES)) \
	$(if $(filter bench bench-page bench-publish bench-plan bench-collect bench-check,$(MAKECMDGOALS)),$(BENCH_PACKAGES))
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
DEPS_STATUS := $(shell tools/install-deps $(sort $(DEPS)) >&2; echo $$?)
ifneq ($(DEPS_STATUS),0)
$(error missing Debian packages, see the message above)
endif
endif

.PHONY: all test clean help
# The test programs and fixtures are part of everything: any test file can
# then run alone after `make` (prove test/t/NN-*.t).
all: $(RUN_TARGETS) $(ALL_TARGETS) $(TEST_PREREQS)

# What make run and make qemu-gdb (mk/run.mk) build first; named here, as
# make reads a rule's prerequisites where it reads the rule, and mk/run.mk
# comes before the fragments that add to RUN_TARGETS after it.
run qemu-gdb: $(RUN_TARGETS)

# Every test is an executable in test/t/ that speaks TAP; prove runs them
# all (through tools/test-skips: then every skip, checked against
# test/skips), J at a time (default: one a core; J=1 for one at a time). Each test
# works in its own temporary directories and boots its own QEMU, so any
# two can run side by side, except TEST_ALONE: they rebuild the tree's
# initrd (make run APP=...), which the others boot. prove runs every test
# not named in a par rule one at a time once the others are done.
J ?= $(shell nproc)
TEST_ALONE := test/t/03-make-run.t test/t/04-make-run-boots.t test/t/37-userland-i386-boot.t
TEST_FILES := $(sort $(wildcard test/t/*.t))
ifneq ($(filter test,$(MAKECMDGOALS)),)
ifeq ($(call run_uint,$(J),1,64),)
$(error make test: J=$(J) is not a number of tests at a time from 1 to 64)
endif
endif
test: all
	tools/test-skips -v -j$(J) $(addprefix --rules=par=,$(filter-out $(TEST_ALONE),$(TEST_FILES))) $(TEST_FILES)

clean:
	rm -rf $(BUILD) $(OUT)

# Every target and variable a user sets (test 01 keeps it complete).
help:
	@cat mk/help.txt
