# ehframe/: the .eh_frame library; tools/ehframe/: the host tool
# build/bin/ehframe; test/ehframe/: its unit test. docs/EHFRAME.md.
#
#   make                  library (host + kernel-flag objects), build/bin/ehframe
#   make test             test/t/28-ehframe-libdw.t (every pc against libdw),
#                         test/t/29-ehframe-malformed.t (unit test, plain and
#                         under ASan+UBSan; the kernel-flag objects stand alone)
#
# Provides for other fragments:
#   EHFRAME_SRCS          the library's sources (compile them with your flags)
#   EHFRAME_KERNEL_OBJS   the same compiled with the kernel's code-model flags
#   EHFRAME_TOOL          build/bin/ehframe
#
# The library returns sframe/'s struct sf_rule, so it includes sframe.h
# (a header of types only: no sframe/ object is linked in).

PACKAGES += libelf-dev libdw-dev gcc-multilib

EHFRAME_DIR  := $(BUILD)/ehframe
EHFRAME_SRCS := $(wildcard ehframe/*.c)
# This file is read before mk/sframe.mk: its variables are not set yet.
EHFRAME_HDRS := $(wildcard ehframe/*.h) sframe/sframe.h sframe/lazy_index.h
EHFRAME_TOOL := $(BIN)/ehframe
EHFRAME_INC  := -iquote ehframe -iquote sframe

# Host objects: as sframe/'s, hosted C11 with -Wconversion (arithmetic on
# untrusted sizes).
EHFRAME_CFLAGS      := $(HOST_CFLAGS) -std=c11 -Wconversion $(EHFRAME_INC)
EHFRAME_TOOL_CFLAGS := $(HOST_CFLAGS) -Wconversion $(EHFRAME_INC)
EHFRAME_HOST_OBJS   := $(EHFRAME_SRCS:ehframe/%.c=$(EHFRAME_DIR)/host/%.o)

# The kernel's code-generation flags (mk/sframe.mk's): test 29 checks that
# these objects need nothing from outside themselves.
EHFRAME_KERNEL_CFLAGS := -std=c11 -O2 $(WARN) -Wconversion -ffreestanding \
	-fno-pic -mcmodel=kernel -mno-red-zone -mgeneral-regs-only \
	-fno-stack-protector -nostdinc -isystem $(shell $(HOST_CC) -print-file-name=include) \
	$(EHFRAME_INC)
EHFRAME_KERNEL_OBJS := $(EHFRAME_SRCS:ehframe/%.c=$(EHFRAME_DIR)/kernel/%.o)

# AddressSanitizer and UBSan (trapping), for the malformed-input cases.
EHFRAME_SAN := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer

$(EHFRAME_DIR)/host/%.o: ehframe/%.c $(EHFRAME_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(EHFRAME_CFLAGS) -c $< -o $@

$(EHFRAME_DIR)/kernel/%.o: ehframe/%.c $(EHFRAME_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(EHFRAME_KERNEL_CFLAGS) -c $< -o $@

# The host tool: libelf finds the sections, libdw is the reference. A
# rule is spelled as `sframe lookup` spells it (tools/sframe/rule_str.c).
EHFRAME_TOOL_SRCS := $(wildcard tools/ehframe/*.c) tools/sframe/rule_str.c
EHFRAME_TOOL_HDRS := $(wildcard tools/ehframe/*.h) tools/sframe/rule_str.h

$(EHFRAME_TOOL): $(EHFRAME_TOOL_SRCS) $(EHFRAME_TOOL_HDRS) $(EHFRAME_HOST_OBJS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(EHFRAME_TOOL_CFLAGS) -iquote tools/ehframe -iquote tools/sframe -o $@ $(EHFRAME_TOOL_SRCS) \
		$(EHFRAME_HOST_OBJS) -ldw -lelf

ALL_TARGETS += $(EHFRAME_TOOL) $(EHFRAME_KERNEL_OBJS)

# The unit test, plain and sanitized (each one compile of all sources).
EHFRAME_TDIR := $(EHFRAME_DIR)/test
EHFRAME_UNIT_SRCS := test/ehframe/unit.c test/ehframe/build.c test/ehframe/ways.c \
	test/ehframe/malformed.c
EHFRAME_UNIT_DEPS := $(EHFRAME_UNIT_SRCS) test/ehframe/build.h $(EHFRAME_SRCS) $(EHFRAME_HDRS)

$(EHFRAME_TDIR)/unit: $(EHFRAME_UNIT_DEPS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(EHFRAME_TOOL_CFLAGS) -iquote test/ehframe -o $@ $(EHFRAME_UNIT_SRCS) \
		$(EHFRAME_SRCS)

$(EHFRAME_TDIR)/unit-san: $(EHFRAME_UNIT_DEPS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(EHFRAME_TOOL_CFLAGS) $(EHFRAME_SAN) -iquote test/ehframe -o $@ \
		$(EHFRAME_UNIT_SRCS) $(EHFRAME_SRCS)

TEST_PREREQS += $(EHFRAME_TDIR)/unit $(EHFRAME_TDIR)/unit-san

# Test 28's own fixture: hand-written CFI of every kind the library runs
# (and one it refuses), linked static with the search table.
$(EHFRAME_TDIR)/cfi: test/ehframe/cfi.S
	@mkdir -p $(dir $@)
	$(HOST_CC) -nostdlib -static -no-pie -Wl,--eh-frame-hdr -Wl,--build-id=none \
		-Wl,-z,noexecstack -o $@ $<

TEST_PREREQS += $(EHFRAME_TDIR)/cfi

# The tool under ASan and UBSan: test 28 runs it beside the plain one.
$(EHFRAME_TDIR)/ehframe-san: $(EHFRAME_TOOL_SRCS) $(EHFRAME_TOOL_HDRS) $(EHFRAME_SRCS) $(EHFRAME_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(EHFRAME_TOOL_CFLAGS) $(EHFRAME_SAN) -iquote tools/ehframe -iquote tools/sframe -o $@ \
		$(EHFRAME_TOOL_SRCS) $(EHFRAME_SRCS) -ldw -lelf

TEST_PREREQS += $(EHFRAME_TDIR)/ehframe-san
