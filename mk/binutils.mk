# Third-party code and test data from Debian's binutils-source package
# (the binutils 2.40 tarball, the same release as the host's as, readelf,
# objdump and c++filt). Nothing of it is in the repository: the parts used
# are extracted at build time under build/binutils/src/.
#
#   gas/testsuite/gas/cfi-sframe/    gas's own SFrame tests: test 19 assembles
#   libsframe/testsuite/             them with the host `as` and reads them
#                                    with build/bin/sframe (docs/SFRAME.md)
#   zlib/                            /bin/zreal: deflate + inflate (test 33)
#   libiberty/, include/             /bin/dmreal: the C++ demangler (test 33)
#
# The real workloads (docs/USERLAND.md, "Real workloads") are programs of
# the SDK like any other: this file comes before mk/userland.mk (mk/*.mk in
# name order) and hands them over through USER_EXTRA_PROGRAMS and
# USER_EXTRA_FILES. Their inputs are packaged files, copied into the initrd
# at build time; their expected outputs (the oracles) are computed on the
# host at build time, with python3's zlib and binutils' c++filt.

RUN_PACKAGES += binutils-source libstdc++6

BU_TARBALL := /usr/src/binutils/binutils-2.40.tar.xz
BU_DIR     := $(BUILD)/binutils
BU_SRC     := $(BU_DIR)/src
BU_STAMP   := $(BU_DIR)/extracted.stamp
BU_PARTS   := gas/testsuite/gas/cfi-sframe libsframe/testsuite zlib libiberty include

# Only the parts named (the whole tree is 250 MB); extracted again when
# the tarball or this list changes. --touch: the files are as new as the
# extraction, so nothing built from them looks out of date afterwards.
$(BU_STAMP): $(BU_TARBALL) mk/binutils.mk
	rm -rf $(BU_SRC)
	mkdir -p $(BU_SRC)
	tar -xJf $(BU_TARBALL) -C $(BU_SRC) --strip-components=1 --touch \
		$(addprefix binutils-2.40/,$(BU_PARTS))
	touch $@

.PHONY: binutils-src
binutils-src: $(BU_STAMP)
ALL_TARGETS  += $(BU_STAMP)
TEST_PREREQS += $(BU_STAMP)

# --- The real workloads (userland/real/) ------------------------------------
# Compiled with the SDK's flags (SFrame, asynchronous unwind tables, no
# frame pointers, newlib's headers only, -Wall -Wextra -Werror: the files
# used compile without a warning), as every program is; userland/real/
# supplies the small configuration headers they expect
# from their own configure scripts (userland/real/libiberty/config.h says
# why; zlib needs none: its zconf.h suits newlib as it is).
REAL_ROOT := $(BUILD)/userland/root
REAL_DIR  := $(BUILD)/real
REAL_PROGRAMS := zreal dmreal
USER_EXTRA_PROGRAMS += $(REAL_PROGRAMS)

REAL_ZLIB_SRCS := $(addprefix $(BU_SRC)/zlib/,adler32.c crc32.c deflate.c \
	inffast.c inflate.c inftrees.c trees.c zutil.c)
USER_SRCS_zreal   := userland/real/zreal.c $(REAL_ZLIB_SRCS)
USER_CFLAGS_zreal := -I$(BU_SRC)/zlib

REAL_DEM_SRCS := $(addprefix $(BU_SRC)/libiberty/,cplus-dem.c cp-demangle.c \
	rust-demangle.c d-demangle.c safe-ctype.c xmalloc.c xstrdup.c xexit.c)
USER_SRCS_dmreal   := userland/real/dmreal.c $(REAL_DEM_SRCS)
USER_CFLAGS_dmreal := -DHAVE_CONFIG_H -Iuserland/real/libiberty \
	-I$(BU_SRC)/include

# make bench's "real" part runs the fp modes on frame-pointer builds, as
# it does the first suite's (mk/bench.mk, BENCH_FP_CFLAGS: zlib's and the
# demangler's functions keep an rbp frame; newlib keeps none).
USER_EXTRA_PROGRAMS += zreal-fp dmreal-fp
USER_SRCS_zreal-fp   := $(USER_SRCS_zreal)
USER_SRCS_dmreal-fp  := $(USER_SRCS_dmreal)
USER_CFLAGS_zreal-fp  := $(USER_CFLAGS_zreal) $(BENCH_FP_CFLAGS)
USER_CFLAGS_dmreal-fp := $(USER_CFLAGS_dmreal) $(BENCH_FP_CFLAGS)

# The sources exist once the tarball is extracted.
$(REAL_ZLIB_SRCS) $(REAL_DEM_SRCS): | $(BU_STAMP) ;

# Inputs (/data/real-*) and oracles (build/real/*.expected).
#   zreal: newlib's libm.a, a real file of 1-2 MB that make builds anyway
#          (stripped of DWARF, so that the initrd stays small): deflated
#          and inflated in the guest; libm.z is the host's (python3 zlib,
#          level 9) compression of it, which the guest inflates too.
#   dmreal: the mangled names (_Z...) of the dynamic symbols of Debian's
#          libstdc++.so.6 (nm -D), demangled by c++filt for the oracle.
REAL_LIBSTDCXX := /usr/lib/x86_64-linux-gnu/libstdc++.so.6
USER_EXTRA_FILES += data/real-libm.bin data/real-libm.z data/real-cxxsyms.txt

$(REAL_ROOT)/data/real-libm.bin: $(NEWLIB_STAMP)
	@mkdir -p $(@D)
	strip --strip-debug -o $@ $(NEWLIB_LIBM)

$(REAL_ROOT)/data/real-libm.z $(REAL_DIR)/zreal.expected &: $(REAL_ROOT)/data/real-libm.bin tools/real/zoracle.py
	@mkdir -p $(@D) $(REAL_DIR)
	python3 tools/real/zoracle.py $< /data/real-libm.bin \
		$(REAL_ROOT)/data/real-libm.z /data/real-libm.z \
		> $(REAL_DIR)/zreal.expected.tmp
	mv $(REAL_DIR)/zreal.expected.tmp $(REAL_DIR)/zreal.expected

$(REAL_ROOT)/data/real-cxxsyms.txt: $(REAL_LIBSTDCXX) mk/binutils.mk
	@mkdir -p $(@D)
	nm -D --defined-only --without-symbol-versions $< | awk '$$3 ~ /^_Z/ { print $$3 }' \
		| LC_ALL=C sort -u > $@.tmp
	mv $@.tmp $@

$(REAL_DIR)/dmreal.expected: $(REAL_ROOT)/data/real-cxxsyms.txt
	@mkdir -p $(@D)
	c++filt < $< > $@.tmp
	mv $@.tmp $@

REAL_EXPECTED := $(REAL_DIR)/zreal.expected $(REAL_DIR)/dmreal.expected
ALL_TARGETS  += $(REAL_EXPECTED)
TEST_PREREQS += $(REAL_EXPECTED)
