# Deferred user unwinding (docs/DEFERRED.md): the ring-3 side of its tests.
# The kernel side lives in kern/ and arch/x86_64/ (mk/kernel.mk builds it).
#
#   /bin/cold, /bin/dlwork, /bin/sfreg,  workloads (userland/deferred/)
#   /bin/regrace                         registrations racing under --parallel (test 60)
#   /bin/sfbad, /bin/sf246
#   /bin/manyrows                        a function of a million rows (test 55), or a million functions (test 91)
#   /bin/ehrows                          .eh_frame too big or slow to convert (test 96)
#   /bin/execwork                        works, then execs /bin/fib (test 44)
#   /bin/sigwork-fp                      the workload sigwork with frame pointers (test 45)
#   /lib/libdeep.so                      the PIC shared object dlwork loads
#                                        with the SDK's loader (userland/lib/dl.c)
#   /data/sfreg.v2.sframe, .v3.sframe    sfreg's .sframe re-encoded as v2
#                                        and v3 (build/bin/sframe convert)
#
# Included before mk/userland.mk (mk/*.mk in name order): programs go to the
# SDK through USER_EXTRA_PROGRAMS / USER_SRCS_<name>, the other files through
# USER_EXTRA_FILES. $(USER_ROOT) is not defined yet here: DEFERRED_ROOT is
# the same directory.

DEFERRED_ROOT := $(BUILD)/userland/root

DEFERRED_PROGRAMS := cold dlwork dlthreads regrace sfreg sfbad sf246 manyrows ehbad ehrows execwork sigwork-fp
USER_EXTRA_PROGRAMS += $(DEFERRED_PROGRAMS)
USER_SRCS_cold   := userland/deferred/cold.c
USER_SRCS_dlwork := userland/deferred/dlwork.c
USER_SRCS_dlthreads := userland/deferred/dlthreads.c
USER_SRCS_regrace := userland/deferred/regrace.c
USER_SRCS_sfreg  := userland/deferred/sfreg.c
USER_SRCS_sfbad  := userland/deferred/sfbad.c
USER_SRCS_ehbad  := userland/deferred/ehbad.c
USER_SRCS_ehrows := userland/deferred/ehrows.c
USER_SRCS_manyrows := userland/deferred/manyrows.c
USER_SRCS_execwork := userland/deferred/execwork.c
# The workload sigwork with frame pointers, for the fp-deferred mode
# (mk/bench.mk's flags).
USER_SRCS_sigwork-fp := userland/workloads/sigwork.c
USER_CFLAGS_sigwork-fp := $(BENCH_FP_CFLAGS)
USER_SRCS_sf246  := userland/deferred/sf246.c $(BUILD)/deferred/sf246-objects.c

# sf246 loads code and SFrame sections that binutils 2.46 made (objects in
# test/sframe/binutils-2.46; ld 2.40 drops their .sframe): stitch-mkobj turns
# each object's .text, .sframe and .rela.sframe into C arrays. No ELF file
# of SFrame version 3 lands under build/ (test 20 dumps them all with
# readelf 2.40).
SF246_OBJECTS := drap:test/sframe/binutils-2.46/flexible-drap-O2.o \
	sigtramp:test/sframe/binutils-2.46/signal-frame.o
$(BUILD)/deferred/sf246-objects.c: $(BIN)/stitch-mkobj $(foreach o,$(SF246_OBJECTS),$(lastword $(subst :, ,$(o))))
	@mkdir -p $(@D)
	( $(foreach o,$(SF246_OBJECTS),$(BIN)/stitch-mkobj $(subst :, ,$(o)) &&) true ) > $@.tmp
	mv $@.tmp $@

$(BIN)/stitch-mkobj: userland/host/mkobj.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -o $@ $< -lelf

# The shared object: the SDK's code generation, position-independent, no
# libc. DT_HASH (sysv) is what the loader reads for its symbol count.
DEFERRED_SO := $(DEFERRED_ROOT)/lib/libdeep.so
$(DEFERRED_SO): userland/deferred/libdeep.c $(NEWLIB_STAMP)
	@mkdir -p $(@D)
	$(HOST_CC) $(filter-out -fno-pie,$(USER_CFLAGS)) -fPIC -shared -nostdlib \
		-Wl,--build-id -Wl,-z,noexecstack -Wl,--hash-style=sysv -o $@ $<

# sfreg registers these for its own text, at the address they are encoded
# for (it maps them there with an mmap hint): SFREG_BLOB_ADDR in sfreg.c.
DEFERRED_BLOB_AT := $(shell sed -n 's/^\#define SFREG_BLOB_ADDR \(0x[0-9a-f]*\)UL.*/\1/p' userland/deferred/sfreg.c)
$(DEFERRED_ROOT)/data/sfreg.v%.sframe: $(DEFERRED_ROOT)/bin/sfreg $(BIN)/sframe
	@mkdir -p $(@D)
	$(BIN)/sframe convert --to $* --at $(DEFERRED_BLOB_AT) $< -o $@

USER_EXTRA_FILES += lib/libdeep.so data/sfreg.v2.sframe data/sfreg.v3.sframe
