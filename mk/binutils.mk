# Third-party code and test data from Debian's binutils-source package
# (the binutils 2.40 tarball, the same release as the host's as, readelf,
# objdump and c++filt). Nothing of it is in the repository: the parts used
# are extracted at build time under build/binutils/src/.
#
#   gas/testsuite/gas/cfi-sframe/    gas's own SFrame tests: test 19 assembles
#   libsframe/testsuite/             them with the host `as` and reads them
#                                    with build/bin/sframe (docs/SFRAME.md)
#   zlib/                            /bin/zreal: deflate + inflate (test 33)
#   libiberty/, include/             /bin/dmreal: the C++ demangler, /bin/rxreal:
#                                    regex.c over its ChangeLog (test 33)
#   opcodes/ (the x86 printer),      /bin/disreal: the disassembler behind
#   bfd/bfd-in2.h                    objdump -d (test 33)
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
BU_OPCODES := i386-dis.c i386-dis-evex.h i386-dis-evex-len.h i386-dis-evex-mod.h \
	i386-dis-evex-prefix.h i386-dis-evex-reg.h i386-dis-evex-w.h dis-buf.c dis-init.c \
	disassemble.h sysdep.h opintl.h
BU_PARTS   := gas/testsuite/gas/cfi-sframe libsframe/testsuite zlib libiberty include \
	$(addprefix opcodes/,$(BU_OPCODES)) bfd/bfd-in2.h

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
REAL_PROGRAMS := zreal dmreal rxreal disreal
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

USER_SRCS_rxreal   := userland/real/rxreal.c $(BU_SRC)/libiberty/regex.c
USER_CFLAGS_rxreal := -DHAVE_CONFIG_H -Iuserland/real/libiberty \
	-I$(BU_SRC)/include

# bfd.h is what bfd's configure makes of bfd-in2.h (config.status turns it
# into bfd-in3.h): its five substitutions, with the values configure
# finds for an x86_64 host and target (bfd/configure.ac: a 64-bit word,
# 64-bit file offsets, no plugins), applied with sed.
REAL_BFD_H := $(REAL_DIR)/include/bfd.h
$(REAL_BFD_H): $(BU_STAMP)
	@mkdir -p $(@D)
	sed -e 's/@supports_plugins@/0/' -e 's/@wordsize@/64/' \
		-e 's/@bfd_default_target_size@/64/' -e 's/@bfd_file_ptr@/int64_t/' \
		-e 's/@bfd_ufile_ptr@/uint64_t/' $(BU_SRC)/bfd/bfd-in2.h > $@.tmp
	! grep -n '@[a-z_]*@' $@.tmp
	mv $@.tmp $@

REAL_DIS_SRCS := $(addprefix $(BU_SRC)/opcodes/,i386-dis.c dis-buf.c dis-init.c)
USER_SRCS_disreal   := userland/real/disreal.c $(REAL_DIS_SRCS) $(BU_SRC)/libiberty/safe-ctype.c
USER_CFLAGS_disreal := -DHAVE_CONFIG_H -Iuserland/real/opcodes -I$(REAL_DIR)/include \
	-I$(BU_SRC)/include -I$(BU_SRC)/opcodes
$(REAL_DIS_SRCS): | $(BU_STAMP) ;
$(REAL_ROOT)/bin/disreal $(REAL_ROOT)/bin/disreal-fp: $(REAL_BFD_H)

# make bench's "real" part runs the fp modes on frame-pointer builds, as
# it does the first suite's (mk/bench.mk, BENCH_FP_CFLAGS: zlib's and the
# demangler's functions keep an rbp frame; newlib keeps none).
USER_EXTRA_PROGRAMS += $(addsuffix -fp,$(REAL_PROGRAMS))
$(foreach p,$(REAL_PROGRAMS),$(eval USER_SRCS_$(p)-fp := $(USER_SRCS_$(p))) \
	$(eval USER_CFLAGS_$(p)-fp := $(USER_CFLAGS_$(p)) $(BENCH_FP_CFLAGS)))

# The sources exist once the tarball is extracted.
$(REAL_ZLIB_SRCS) $(REAL_DEM_SRCS) $(BU_SRC)/libiberty/regex.c: | $(BU_STAMP) ;

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

#   rxreal: libiberty's ChangeLog (11 000-odd lines) searched for the
#          POSIX extended regular expressions of tools/real/rx-patterns.txt;
#          the oracle is the host's GNU grep -E in the C locale
#          (tools/real/rxoracle.sh).
USER_EXTRA_FILES += data/real-changelog.txt data/real-rx-patterns.txt

$(REAL_ROOT)/data/real-changelog.txt: $(BU_STAMP)
	@mkdir -p $(@D)
	cp $(BU_SRC)/libiberty/ChangeLog $@

$(REAL_ROOT)/data/real-rx-patterns.txt: tools/real/rx-patterns.txt
	@mkdir -p $(@D)
	cp $< $@

$(REAL_DIR)/rxreal.expected: tools/real/rx-patterns.txt $(REAL_ROOT)/data/real-changelog.txt tools/real/rxoracle.sh
	@mkdir -p $(@D)
	sh tools/real/rxoracle.sh $< $(REAL_ROOT)/data/real-changelog.txt > $@.tmp
	mv $@.tmp $@

#   disreal: the kernel's .text from its start to the first function that
#          starts 16 KiB or more into it, as raw bytes
#          (tools/real/ktext.py); the oracle is the host's objdump -d
#          (binutils 2.40) of the same bytes, its instruction text.
USER_EXTRA_FILES += data/real-ktext.bin

$(REAL_ROOT)/data/real-ktext.bin $(REAL_DIR)/disreal.expected &: $(KERNEL_ELF) tools/real/ktext.py
	@mkdir -p $(REAL_ROOT)/data $(REAL_DIR)
	python3 tools/real/ktext.py $< 16384 $(REAL_ROOT)/data/real-ktext.bin > $(REAL_DIR)/disreal.expected.tmp
	mv $(REAL_DIR)/disreal.expected.tmp $(REAL_DIR)/disreal.expected

REAL_EXPECTED := $(addprefix $(REAL_DIR)/,$(addsuffix .expected,$(REAL_PROGRAMS)))
ALL_TARGETS  += $(REAL_EXPECTED)
TEST_PREREQS += $(REAL_EXPECTED)
