# newlib 3.3.0 for ring-3 programs, built from Debian's newlib-source
# tarball with the host gcc (an x86_64-elf target needs no cross compiler:
# the instruction set is the host's, only the libc differs); and built a
# second time for 32-bit (i386) programs, with gcc -m32 (gcc-multilib has
# the 32-bit libgcc), from the same tarball.
#
# Provides, for the 64-bit build (NEWLIB32_* the same for the i386 one):
#   NEWLIB_LIBC     the installed libc.a   (make $(NEWLIB_LIBC) builds it)
#   NEWLIB_LIBM     the installed libm.a
#   NEWLIB_INCLUDE  its include directory
#   NEWLIB_CFLAGS   the code-generation flags newlib is built with; user
#                   programs use the same ones (mk/userland.mk)
#   NEWLIB_ISYSTEM  -nostdinc plus the include path for newlib + gcc's own
#                   freestanding headers, so no glibc header can leak in
#   NEWLIB_STAMP    the build's stamp, a prerequisite of what uses it
#
# Each tree is extracted, configured and built under its own directory
# (build/newlib/, build/newlib-i386/); the install step writes a stamp so
# that newlib is never rebuilt needlessly, not even when this file changes:
# after changing a build's flags here, rm -rf its directory.

RUN_PACKAGES += newlib-source gcc-multilib

NEWLIB_TARBALL := /usr/src/newlib/newlib-3.3.0.tar.xz
# gcc's own header directory (stddef.h, stdarg.h, limits.h, intrinsics):
# the same one serves -m32 (its headers test __i386__ themselves).
NEWLIB_GCC_INCLUDE := $(shell $(HOST_CC) -print-file-name=include)

# No frame pointers, SFrame on, unwind tables everywhere, position-dependent
# code (programs are linked at 0x400000). Stack protector and CET are off
# explicitly because they would pull in glibc-only symbols and notes.
# Threads (docs/USERLAND.md): __DYNAMIC_REENT__ makes newlib find its
# per-thread state (errno, strtok's, ...) through __getreent(), which the
# SDK answers per thread (userland/lib/thread.c); user programs see the
# same _REENT. Retargetable locking has newlib call the SDK's locks around
# malloc, stdio and atexit; the standard streams are global, as POSIX's.
NEWLIB_DIR    := $(BUILD)/newlib
NEWLIB_TARGET := x86_64-elf
NEWLIB_CC     := $(HOST_CC)
NEWLIB_BINUTILS := AS_FOR_TARGET=as LD_FOR_TARGET=ld
NEWLIB_CFLAGS := -O2 -g -Wa,--gsframe -fomit-frame-pointer \
	-fasynchronous-unwind-tables -fno-pie -fno-stack-protector \
	-fcf-protection=none -D__DYNAMIC_REENT__

# The i386 build: the same code generation but for two things. No SFrame:
# binutils defines no SFrame ABI for i386 (gas refuses --gsframe there), so
# .eh_frame alone describes these programs. No __DYNAMIC_REENT__: 32-bit
# programs have no threads (docs/USERLAND.md, "32-bit programs"), newlib's
# one global _REENT serves them, and its own no-op retargetable locks (the
# SDK's are thread.c's, which the 32-bit SDK leaves out). -m32 goes into the
# compiler itself, so that every compile, assembly and link newlib's
# build makes is a 32-bit one. -U__linux__: the host's gcc says Linux,
# which newlib's sys/config.h takes for its i386 Linux port (a per-thread
# _REENT, 64-bit file offsets through stdio64, which an elf target does not
# build); programs compile with these flags too, so they agree with libc.
NEWLIB32_DIR    := $(BUILD)/newlib-i386
NEWLIB32_TARGET := i686-elf
NEWLIB32_CC     := $(HOST_CC) -m32
NEWLIB32_BINUTILS := AS_FOR_TARGET="as --32" LD_FOR_TARGET="ld -m elf_i386"
NEWLIB32_CFLAGS := -O2 -g -fomit-frame-pointer \
	-fasynchronous-unwind-tables -fno-pie -fno-stack-protector \
	-fcf-protection=none -U__linux__
# newlib's i386 string functions (memcpy, strlen...) are assembly without
# CFI: no FDE would describe a sample in them. Its C versions of the same,
# which its build compiles anyway (then overrides by member name), replace
# them in libc.a after the install: every function in a 32-bit program then
# has its FDE but setjmp/longjmp, which have no C version.
NEWLIB32_MACHINE := $(NEWLIB32_DIR)/obj/$(NEWLIB32_TARGET)/newlib/libc
NEWLIB32_AFTER = cd $(NEWLIB32_MACHINE) && for o in machine/i386/lib_a-*.o; do \
	[ ! -e string/$${o\#\#*/} ] || echo string/$${o\#\#*/}; done | \
	xargs ar r $(abspath $(NEWLIB32_LIBC))

# $(call newlib_build,P): the build whose variables start with P (P_DIR,
# P_TARGET, P_CC, P_BINUTILS, P_CFLAGS above; P_AFTER, if any, runs after
# the install): defines P_LIBC, P_LIBM,
# P_INCLUDE, P_ISYSTEM and P_STAMP, and the one recipe that makes them.
# Target tools are the host's; --target only selects newlib's configuration
# (x86_64-elf, i686-elf: no OS syscalls, plain names such as
# write/sbrk/_exit).
define newlib_build
$(1)_SRC     := $$($(1)_DIR)/src
$(1)_OBJ     := $$($(1)_DIR)/obj
$(1)_PREFIX  := $$($(1)_DIR)/install
$(1)_SYSROOT := $$($(1)_PREFIX)/$$($(1)_TARGET)
$(1)_INCLUDE := $$($(1)_SYSROOT)/include
$(1)_LIBC    := $$($(1)_SYSROOT)/lib/libc.a
$(1)_LIBM    := $$($(1)_SYSROOT)/lib/libm.a
$(1)_STAMP   := $$($(1)_DIR)/installed.stamp
$(1)_ISYSTEM := -nostdinc -isystem $$($(1)_INCLUDE) -isystem $$(NEWLIB_GCC_INCLUDE)

$(1)_TOOLS := \
	CC_FOR_TARGET="$$($(1)_CC) -nostdinc -isystem $$(NEWLIB_GCC_INCLUDE)" \
	$$($(1)_BINUTILS) AR_FOR_TARGET=ar RANLIB_FOR_TARGET=ranlib \
	NM_FOR_TARGET=nm OBJDUMP_FOR_TARGET=objdump \
	READELF_FOR_TARGET=readelf STRIP_FOR_TARGET=strip \
	OBJCOPY_FOR_TARGET=objcopy

$(1)_CONFIG := --target=$$($(1)_TARGET) \
	--prefix=$$(abspath $$($(1)_PREFIX)) \
	--disable-multilib --disable-nls \
	--disable-newlib-supplied-syscalls \
	--enable-newlib-retargetable-locking \
	--enable-newlib-global-stdio-streams \
	--enable-newlib-io-c99-formats \
	--enable-newlib-io-long-long

$$($(1)_LIBC) $$($(1)_LIBM) $$($(1)_INCLUDE): $$($(1)_STAMP)

# One recipe, one stamp: extraction, configuration, build and install are
# only worth redoing together (a half-built tree is removed first).
$$($(1)_STAMP): $$(NEWLIB_TARBALL)
	@echo "newlib: building Debian's newlib 3.3.0 for $$($(1)_TARGET), once: a few minutes on two cores, quiet (its logs: $$($(1)_OBJ)/*.log)"
	rm -rf $$($(1)_SRC) $$($(1)_OBJ) $$($(1)_PREFIX)
	mkdir -p $$($(1)_SRC) $$($(1)_OBJ)
	tar -xJf $$(NEWLIB_TARBALL) -C $$($(1)_SRC) --strip-components=1
	cd $$($(1)_OBJ) && $$(abspath $$($(1)_SRC))/configure $$($(1)_CONFIG) \
		$$($(1)_TOOLS) CFLAGS_FOR_TARGET="$$($(1)_CFLAGS)" \
		> configure.log 2>&1 || { tail -30 configure.log; exit 1; }
	$$(MAKE) -C $$($(1)_OBJ) all-target-newlib > $$($(1)_OBJ)/build.log 2>&1 \
		|| { tail -40 $$($(1)_OBJ)/build.log; exit 1; }
	$$(MAKE) -C $$($(1)_OBJ) install-target-newlib > $$($(1)_OBJ)/install.log 2>&1 \
		|| { tail -20 $$($(1)_OBJ)/install.log; exit 1; }
	$$($(1)_AFTER)
	touch $$@
endef

$(eval $(call newlib_build,NEWLIB))
$(eval $(call newlib_build,NEWLIB32))

.PHONY: newlib
newlib: $(NEWLIB_STAMP) $(NEWLIB32_STAMP)

RUN_TARGETS += $(NEWLIB_STAMP) $(NEWLIB32_STAMP)
