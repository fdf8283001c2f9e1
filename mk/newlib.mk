# newlib 3.3.0 for ring-3 programs, built once from Debian's newlib-source
# tarball with the host gcc (an x86_64-elf target needs no cross compiler:
# the instruction set is the host's, only the libc differs).
#
# Provides:
#   NEWLIB_LIBC     the installed libc.a   (make $(NEWLIB_LIBC) builds it)
#   NEWLIB_LIBM     the installed libm.a
#   NEWLIB_INCLUDE  its include directory
#   NEWLIB_CFLAGS   the code-generation flags newlib is built with; user
#                   programs use the same ones (mk/userland.mk)
#   NEWLIB_ISYSTEM  -nostdinc plus the include path for newlib + gcc's own
#                   freestanding headers, so no glibc header can leak in
#
# The tree is extracted, configured and built under build/newlib/; the
# install step writes a stamp so that newlib is never rebuilt needlessly
# (after changing the flags here: rm -rf build/newlib).

RUN_PACKAGES += newlib-source

NEWLIB_TARBALL := /usr/src/newlib/newlib-3.3.0.tar.xz
NEWLIB_DIR     := $(BUILD)/newlib
NEWLIB_SRC     := $(NEWLIB_DIR)/src
NEWLIB_OBJ     := $(NEWLIB_DIR)/obj
NEWLIB_PREFIX  := $(NEWLIB_DIR)/install
NEWLIB_TARGET  := x86_64-elf
NEWLIB_SYSROOT := $(NEWLIB_PREFIX)/$(NEWLIB_TARGET)
NEWLIB_INCLUDE := $(NEWLIB_SYSROOT)/include
NEWLIB_LIBC    := $(NEWLIB_SYSROOT)/lib/libc.a
NEWLIB_LIBM    := $(NEWLIB_SYSROOT)/lib/libm.a
NEWLIB_STAMP   := $(NEWLIB_DIR)/installed.stamp

# No frame pointers, SFrame on, unwind tables everywhere, position-dependent
# code (programs are linked at 0x400000). Stack protector and CET are off
# explicitly because they would pull in glibc-only symbols and notes.
# Threads (docs/USERLAND.md): __DYNAMIC_REENT__ makes newlib find its
# per-thread state (errno, strtok's, ...) through __getreent(), which the
# SDK answers per thread (userland/lib/thread.c); user programs see the
# same _REENT. Retargetable locking has newlib call the SDK's locks around
# malloc, stdio and atexit; the standard streams are global, as POSIX's.
NEWLIB_CFLAGS := -O2 -g -Wa,--gsframe -fomit-frame-pointer \
	-fasynchronous-unwind-tables -fno-pie -fno-stack-protector \
	-fcf-protection=none -D__DYNAMIC_REENT__

# gcc's own header directory (stddef.h, stdarg.h, limits.h, intrinsics).
NEWLIB_GCC_INCLUDE := $(shell $(HOST_CC) -print-file-name=include)
NEWLIB_ISYSTEM := -nostdinc -isystem $(NEWLIB_INCLUDE) \
	-isystem $(NEWLIB_GCC_INCLUDE)

# Target tools are the host's; --target only selects newlib's configuration
# (x86_64-elf: no OS syscalls, plain names such as write/sbrk/_exit).
NEWLIB_TOOLS := \
	CC_FOR_TARGET="$(HOST_CC) -nostdinc -isystem $(NEWLIB_GCC_INCLUDE)" \
	AS_FOR_TARGET=as AR_FOR_TARGET=ar RANLIB_FOR_TARGET=ranlib \
	LD_FOR_TARGET=ld NM_FOR_TARGET=nm OBJDUMP_FOR_TARGET=objdump \
	READELF_FOR_TARGET=readelf STRIP_FOR_TARGET=strip \
	OBJCOPY_FOR_TARGET=objcopy

NEWLIB_CONFIG := --target=$(NEWLIB_TARGET) \
	--prefix=$(abspath $(NEWLIB_PREFIX)) \
	--disable-multilib --disable-nls \
	--disable-newlib-supplied-syscalls \
	--enable-newlib-retargetable-locking \
	--enable-newlib-global-stdio-streams \
	--enable-newlib-io-c99-formats \
	--enable-newlib-io-long-long

$(NEWLIB_LIBC) $(NEWLIB_LIBM) $(NEWLIB_INCLUDE): $(NEWLIB_STAMP)

# One recipe, one stamp: extraction, configuration, build and install are
# only worth redoing together (a half-built tree is removed first).
$(NEWLIB_STAMP): $(NEWLIB_TARBALL) mk/newlib.mk
	@echo "newlib: building Debian's newlib 3.3.0 for the user programs, once (quiet; its logs in $(NEWLIB_OBJ)/*.log)"
	rm -rf $(NEWLIB_SRC) $(NEWLIB_OBJ) $(NEWLIB_PREFIX)
	mkdir -p $(NEWLIB_SRC) $(NEWLIB_OBJ)
	tar -xJf $(NEWLIB_TARBALL) -C $(NEWLIB_SRC) --strip-components=1
	cd $(NEWLIB_OBJ) && $(abspath $(NEWLIB_SRC))/configure $(NEWLIB_CONFIG) \
		$(NEWLIB_TOOLS) CFLAGS_FOR_TARGET="$(NEWLIB_CFLAGS)" \
		> configure.log 2>&1 || { tail -30 configure.log; exit 1; }
	$(MAKE) -C $(NEWLIB_OBJ) all-target-newlib > $(NEWLIB_OBJ)/build.log 2>&1 \
		|| { tail -40 $(NEWLIB_OBJ)/build.log; exit 1; }
	$(MAKE) -C $(NEWLIB_OBJ) install-target-newlib > $(NEWLIB_OBJ)/install.log 2>&1 \
		|| { tail -20 $(NEWLIB_OBJ)/install.log; exit 1; }
	touch $@

.PHONY: newlib
newlib: $(NEWLIB_STAMP)

RUN_TARGETS += $(NEWLIB_STAMP)
