# The user SDK (crt0 + newlib glue), the ring-3 programs and the initrd.
#
#   $(call user_program,ELF,SOURCES)  the one compile+link recipe for every
#                                     program (workloads, tests, APP)
#   $(call sdk_program,SDK,ELF,SOURCES,CFLAGS)  the same for either SDK:
#                                     USER (64-bit) or USER32 (i386)
#   $(INITRD)                         build/initrd.cpio: /bin/* and /data/*
#   make run APP=path/to/prog.c       also puts prog.c into /app/<basename>
#            [APP_CFLAGS=...]         (compiled with APP_CFLAGS added;
#            [APP_ARCH=i386]          a 32-bit program with APP_ARCH=i386);
#                                     RUN_INIT is what `make run` boots
#
# See docs/USERLAND.md.

USER_OUT  := $(BUILD)/userland
USER_ROOT := $(USER_OUT)/root

# Same code generation as newlib (mk/newlib.mk): no frame pointers, SFrame
# on. Headers: the SDK's, the shared ABI, newlib's; never the host's.
# _POSIX_THREADS: the SDK has the POSIX threads (userland/lib/thread.c),
# which newlib's <pthread.h> declares only where its configuration says so
# (not for a bare x86_64-elf).
USER_CFLAGS := -std=gnu11 $(WARN) $(NEWLIB_CFLAGS) $(NEWLIB_ISYSTEM) \
	-Iuserland/include -Iinclude -D_POSIX_THREADS=200809L
# Static, position-dependent: ld's default script links at 0x400000 and puts
# .sframe into a PT_GNU_SFRAME segment. The build id lets host tools match
# samples with the ELF they came from. newlib's memcpy.S, memset.S and
# setjmp.S lack a .note.GNU-stack: say "no executable stack" explicitly.
# gcc asks ld for .eh_frame_hdr (the sorted FDE table, PT_GNU_EH_FRAME)
# only when linking dynamically; static programs get it explicitly, so that
# .eh_frame can be searched like .sframe (docs/EHFRAME.md: its cost).
USER_LDFLAGS := -static -nostdlib -no-pie -Wl,--build-id -Wl,-z,noexecstack \
	-Wl,--eh-frame-hdr
USER_LIBGCC  := $(shell $(HOST_CC) -print-libgcc-file-name)

USER_CRT0     := $(USER_OUT)/crt0.o
USER_LIB      := $(USER_OUT)/libstitch.a
USER_LIB_SRCS := $(wildcard userland/lib/*.c)
USER_LIB_OBJS := $(patsubst userland/lib/%.c,$(USER_OUT)/lib/%.o,$(USER_LIB_SRCS))
USER_HEADERS  := $(wildcard userland/include/*.h userland/lib/*.h \
	userland/workloads/*.h userland/tests/*.h userland/deferred/*.h) include/stitch/syscall.h \
	include/stitch/elf.h

$(USER_OUT)/lib/%.o: userland/lib/%.c $(USER_HEADERS) $(NEWLIB_STAMP)
	@mkdir -p $(@D)
	$(HOST_CC) $(USER_CFLAGS) -c -o $@ $<

# crt0.S without --gsframe: its CFI is for debuggers only (.debug_frame),
# and gas would turn it into an SFrame entry the unwinders must not find.
user_comma := ,
$(USER_CRT0): userland/crt0.S mk/userland.mk
	@mkdir -p $(@D)
	$(HOST_CC) $(filter-out -Wa$(user_comma)--gsframe,$(USER_CFLAGS)) -c -o $@ $<

$(USER_LIB): $(USER_LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

# What a program of the 64-bit SDK links with: the start code first, the
# glue, then the libraries (sdk_program below).
USER_START  := $(USER_CRT0)
USER_LIBS   := $(NEWLIB_LIBC) $(NEWLIB_LIBM) $(USER_LIBGCC)
USER_NEWLIB := $(NEWLIB_STAMP)

# The 32-bit (i386) SDK: the same sources, compiled with gcc -m32 against
# newlib's i386 build (mk/newlib.mk: no SFrame, .eh_frame only), linked
# at ld's i386 default, 0x08048000, so the whole program lies below 4 GiB
# (docs/USERLAND.md, "32-bit programs"). The glue is userland/lib/ but for
# threads, which the kernel refuses 32-bit programs, and the shared-object
# loader (dl.c reads ELF64 objects). A program that calls one of those
# fails to link, and the linker says why (refused.o below). Signals stay:
# the kernel refuses a 32-bit program its handlers (sigaction: -ENOSYS, at
# run time), not its masks, timers and default actions.
USER32_OUT     := $(USER_OUT)/i386
USER32_CFLAGS  := -std=gnu11 $(WARN) -m32 $(NEWLIB32_CFLAGS) $(NEWLIB32_ISYSTEM) \
	-Iuserland/include -Iinclude
USER32_LDFLAGS := $(USER_LDFLAGS)
USER32_LEFT_OUT := thread dl
USER32_LIB_OBJS := $(patsubst userland/lib/%.c,$(USER32_OUT)/lib/%.o,\
	$(filter-out $(USER32_LEFT_OUT:%=userland/lib/%.c),$(USER_LIB_SRCS)))
USER32_CRT0    := $(USER32_OUT)/crt0.o
USER32_REFUSED := $(USER32_OUT)/refused.o
USER32_LIB     := $(USER32_OUT)/libstitch.a
USER32_START   := $(USER32_CRT0) $(USER32_REFUSED)
# -lgcc: gcc -m32 finds gcc-multilib's libgcc itself (-nostdlib keeps its
# search path), which need not be installed yet when this file is read.
USER32_LIBS    := $(NEWLIB32_LIBC) $(NEWLIB32_LIBM) -lgcc
USER32_NEWLIB  := $(NEWLIB32_STAMP)

$(USER32_OUT)/lib/%.o: userland/lib/%.c $(USER_HEADERS) $(NEWLIB32_STAMP)
	@mkdir -p $(@D)
	$(HOST_CC) $(USER32_CFLAGS) -c -o $@ $<

$(USER32_CRT0): userland/crt0.S mk/userland.mk
	@mkdir -p $(@D)
	$(HOST_CC) $(USER32_CFLAGS) -c -o $@ $<

$(USER32_LIB): $(USER32_LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

# The refusals: for each global symbol that a left-out file defines in the
# 64-bit glue and newlib's i386 libc does not, a .gnu.warning section whose
# text ld prints at every reference to the symbol, just before it reports
# the reference undefined. Every 32-bit program links this object.
USER32_WHY_thread := threads are for 64-bit programs only
USER32_WHY_dl     := shared objects are for 64-bit programs only
$(USER32_OUT)/refused.S: $(USER32_LEFT_OUT:%=$(USER_OUT)/lib/%.o) $(NEWLIB32_STAMP) mk/userland.mk
	@mkdir -p $(@D)
	nm -g --defined-only --format=posix $(NEWLIB32_LIBC) | awk 'NF == 4 { print $$1 }' | \
		sort -u > $@.libc
	printf '\t.section .note.GNU-stack, "", @progbits\n' > $@.tmp
	$(foreach f,$(USER32_LEFT_OUT),nm -g --defined-only --format=posix $(USER_OUT)/lib/$(f).o | \
		awk 'NF == 4 { print $$1 }' | sort -u | comm -23 - $@.libc | \
		awk '{ printf "\t.section .gnu.warning.%s\n\t.string \"%s: %s (32-bit SDK, docs/USERLAND.md)\"\n", \
			$$1, $$1, "$(USER32_WHY_$(f))" }' >> $@.tmp;) true
	rm -f $@.libc
	mv $@.tmp $@

$(USER32_REFUSED): $(USER32_OUT)/refused.S
	$(HOST_CC) $(USER32_CFLAGS) -c -o $@ $<

# $(call sdk_program,SDK,ELF,SOURCES,CFLAGS): one static ring-3 executable
# of SDK (USER or USER32), compiled with CFLAGS. libc needs the glue (write,
# sbrk...) and the glue needs libc (errno), hence the group. The SDK's
# flags are in this file: a change to them relinks every program.
define sdk_program
$(2): $(3) $($(1)_START) $($(1)_LIB) $(USER_HEADERS) $($(1)_NEWLIB) mk/userland.mk
	@mkdir -p $$(@D)
	$(HOST_CC) $(4) $($(1)_LDFLAGS) -o $$@ $($(1)_START) $(3) \
		-Wl,--start-group $($(1)_LIB) $($(1)_LIBS) -Wl,--end-group
endef

# $(call user_program,ELF,SOURCES[,CFLAGS]): a 64-bit program, compiled with
# CFLAGS (default USER_CFLAGS).
user_program = $(call sdk_program,USER,$(1),$(2),$(or $(3),$(USER_CFLAGS)))

# The programs: /bin/<name> in the initrd for each source file.
USER_WORKLOADS := fib chain sort reader piper sigwork threads
USER_SYSTEM    := demo utest
USER_TESTS     := $(basename $(notdir $(wildcard userland/tests/t-*.c)))
# Other fragments add programs (mk/bench.mk, included before this file):
# their names in USER_EXTRA_PROGRAMS, the sources of /bin/<p> in USER_SRCS_<p>
# (and any flags of their own in USER_CFLAGS_<p>).
USER_PROGRAMS  := $(USER_WORKLOADS) $(USER_SYSTEM) $(USER_TESTS) $(USER_EXTRA_PROGRAMS)

$(foreach p,$(USER_WORKLOADS),$(eval $(call user_program,$(USER_ROOT)/bin/$(p),userland/workloads/$(p).c)))
$(foreach p,$(USER_SYSTEM),$(eval $(call user_program,$(USER_ROOT)/bin/$(p),userland/bin/$(p).c)))
$(foreach p,$(USER_TESTS),$(eval $(call user_program,$(USER_ROOT)/bin/$(p),userland/tests/$(p).c)))
$(foreach p,$(USER_EXTRA_PROGRAMS),$(eval $(call user_program,$(USER_ROOT)/bin/$(p),$(USER_SRCS_$(p)),$(USER_CFLAGS) $(USER_CFLAGS_$(p)))))

# 32-bit builds of workloads: /bin/<w>32 with the i386 default (no frame
# pointers), /bin/<w>32-fp with the frame-pointer flags of the 64-bit -fp
# builds (mk/bench.mk), in every function of the program's own.
USER32_WORKLOADS := fib chain sort
USER32_PROGRAMS  := $(USER32_WORKLOADS:%=%32) $(USER32_WORKLOADS:%=%32-fp)
$(foreach w,$(USER32_WORKLOADS),$(eval $(call sdk_program,USER32,$(USER_ROOT)/bin/$(w)32,userland/workloads/$(w).c,$(USER32_CFLAGS))))
$(foreach w,$(USER32_WORKLOADS),$(eval $(call sdk_program,USER32,$(USER_ROOT)/bin/$(w)32-fp,userland/workloads/$(w).c,$(USER32_CFLAGS) $(BENCH_FP_CFLAGS))))
USER_PROGRAMS += $(USER32_PROGRAMS)

# make run APP=path/to/prog.c: one more program, and the one that boots.
# It goes to /app/, a directory of its own, so that any name will do (fib.c
# too). It is the user's code, not the project's: warnings are shown but
# not errors, and APP_CFLAGS (-O0, -DN=3, -fno-omit-frame-pointer...) come
# last, so they win.
# APP_ARCH=i386 (checked in mk/run.mk) builds it with the 32-bit SDK.
USER_APP_SDK := $(if $(filter i386,$(APP_ARCH)),USER32,USER)
ifneq ($(APP),)
USER_APP := app/$(basename $(notdir $(APP)))
USER_APP_CFLAGS := $(filter-out -Werror,$($(USER_APP_SDK)_CFLAGS)) $(APP_CFLAGS)
$(eval $(call sdk_program,$(USER_APP_SDK),$(USER_ROOT)/$(USER_APP),$(APP),$(USER_APP_CFLAGS)))
# Other APP_CFLAGS, another build: the flags are a prerequisite, in a file
# rewritten only when they change.
USER_APP_FLAGS := $(USER_OUT)/app-cflags.txt
VALUE_FILES += USER_APP_FLAGS
USER_APP_FLAGS_TEXT = $(USER_APP_CFLAGS)
$(USER_ROOT)/$(USER_APP): $(USER_APP_FLAGS)
endif

# Data files the workloads and tests read.
USER_BLOB_BYTES := 4194304
$(USER_ROOT)/data/blob: $(BIN)/stitch-mkdata
	@mkdir -p $(@D)
	$(BIN)/stitch-mkdata $@ $(USER_BLOB_BYTES)

$(USER_ROOT)/data/%: userland/data/%
	@mkdir -p $(@D)
	cp $< $@

$(BIN)/stitch-mkdata: userland/host/mkdata.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -o $@ $<

USER_DATA := blob $(notdir $(wildcard userland/data/*))
# $(USER_ROOT) mirrors the initrd with full ELFs: what stitch-usim and
# `stitch --symfs` read. A goal of its own, so make never drops it as an
# intermediate of the initrd's stage.
USER_ROOT_FILES := $(addprefix $(USER_ROOT)/bin/,$(USER_PROGRAMS)) \
	$(addprefix $(USER_ROOT)/data/,$(USER_DATA))
# Other fragments add other files (mk/deferred.mk: a shared object in lib/,
# SFrame blobs in data/): names relative to the root in USER_EXTRA_FILES,
# each built at $(USER_ROOT)/<name> by its fragment.
USER_EXTRA_DIRS := $(filter-out bin data,$(patsubst %/,%,$(sort $(dir $(USER_EXTRA_FILES)))))
USER_ROOT_FILES += $(addprefix $(USER_ROOT)/,$(USER_EXTRA_FILES))

# The initrd's contents, by name relative to its root (the kernel looks up
# "/bin/fib" as "bin/fib"), on one line. The list is rewritten only when it
# changes (the Makefile's VALUE_FILES), so that adding or dropping APP
# rebuilds the initrd and nothing else does.
USER_INITRD_NAMES = bin $(addprefix bin/,$(USER_PROGRAMS)) $(if $(USER_APP),app $(USER_APP)) \
	data $(addprefix data/,$(USER_DATA)) $(USER_EXTRA_DIRS) $(USER_EXTRA_FILES)
USER_INITRD_LIST  := $(USER_OUT)/initrd.list
VALUE_FILES += USER_INITRD_LIST
USER_INITRD_LIST_TEXT = $(USER_INITRD_NAMES)

# The initrd holds the programs without DWARF (the ESP must stay small for
# El Torito); $(USER_SYMFS) keeps the full ELFs, same build id, under the
# guest's paths: that is the directory for `stitch --symfs`.
USER_SYMFS := $(USER_ROOT)
USER_STAGE := $(USER_OUT)/initrd

$(USER_STAGE)/bin/%: $(USER_ROOT)/bin/%
	@mkdir -p $(@D)
	strip --strip-debug -o $@ $<

$(USER_STAGE)/data/%: $(USER_ROOT)/data/%
	@mkdir -p $(@D)
	cp $< $@

$(USER_STAGE)/lib/%: $(USER_ROOT)/lib/%
	@mkdir -p $(@D)
	strip --strip-debug -o $@ $<

$(USER_STAGE)/app/%: $(USER_ROOT)/app/%
	@mkdir -p $(@D)
	strip --strip-debug -o $@ $<

# cpio newc, owned by root, no host inode numbers (--reproducible); cpio
# takes one name a line.
$(INITRD): $(USER_INITRD_LIST) $(addprefix $(USER_STAGE)/,$(filter-out bin data app $(USER_EXTRA_DIRS),$(USER_INITRD_NAMES)))
	cd $(USER_STAGE) && tr ' ' '\n' < $(abspath $(USER_INITRD_LIST)) | \
		cpio -o -H newc -R 0:0 --reproducible --quiet > $(abspath $@)

# Expected checksums: the same workload sources and the same demo, compiled
# natively for the host (userland/host/stitch.h stands in for the SDK) and
# run on the host against the same data files. Sorted: the workloads run
# concurrently and finish in any order. -pthread: threads uses the host's
# POSIX threads (in libc since glibc 2.34, in libpthread before).
USER_HOST      := $(USER_OUT)/host
USER_EXPECTED  := $(USER_OUT)/expected-checksums.txt
USER_HOST_CFLAGS := $(HOST_CFLAGS) -DSTITCH_HOST_BUILD -Iuserland/host -pthread

$(USER_HOST)/bin/%: userland/workloads/%.c userland/workloads/workload.h userland/host/stitch.h
	@mkdir -p $(@D)
	$(HOST_CC) $(USER_HOST_CFLAGS) -o $@ $<

$(USER_HOST)/bin/demo: userland/bin/demo.c userland/host/stitch.h
	@mkdir -p $(@D)
	$(HOST_CC) $(USER_HOST_CFLAGS) -o $@ $<

$(USER_EXPECTED): $(addprefix $(USER_HOST)/bin/,demo $(USER_WORKLOADS)) $(USER_ROOT)/data/blob
	rm -rf $(USER_HOST)/data && ln -s $(abspath $(USER_ROOT)/data) $(USER_HOST)/data
	STITCH_HOST_ROOT=$(abspath $(USER_HOST)) $(USER_HOST)/bin/demo > $@.out
	grep 'checksum=' $@.out | sort > $@
	rm $@.out

.PHONY: userland
userland: $(INITRD) $(USER_ROOT_FILES) $(USER_EXPECTED)

RUN_TARGETS  += $(INITRD) $(USER_ROOT_FILES)
TEST_PREREQS += $(USER_EXPECTED)
