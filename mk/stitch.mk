# tools/stitch/: the host-side stitcher and report writer, build/bin/stitch;
# test/stitch/: its test programs, stream generator and fuzz driver;
# test/t/6*-stitch*.t. docs/STITCH.md (usage), docs/RECORDS.md (the stream).
#
#   make                  build/bin/stitch
#   make test             the stitch tests (streams built from real ELF files)
#
# Provides for other fragments:
#   STITCH_TOOL           build/bin/stitch
#   stitch_run            `$(call stitch_run,OUTDIR)`: the command make run uses

# linux-perf reads the perf.data we write (tests); chromium renders flame.svg.
PACKAGES += libelf-dev libdw-dev linux-perf
STITCH_TEST_PACKAGES := chromium
PACKAGES += $(STITCH_TEST_PACKAGES)

STITCH_DIR  := $(BUILD)/stitch
STITCH_TOOL := $(BIN)/stitch
STITCH_SRCS := $(wildcard tools/stitch/*.c)
STITCH_HDRS := $(wildcard tools/stitch/*.h) include/stitch/records.h
STITCH_OBJS := $(STITCH_SRCS:tools/stitch/%.c=$(STITCH_DIR)/%.o)
# Everything but main(): the fuzz driver links these too.
STITCH_LIB_OBJS := $(filter-out $(STITCH_DIR)/main.o,$(STITCH_OBJS))
STITCH_LIBS := -ldw -lelf

STITCH_CFLAGS := $(HOST_CFLAGS) -iquote tools/stitch

$(STITCH_DIR)/%.o: tools/stitch/%.c $(STITCH_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(STITCH_CFLAGS) -c $< -o $@

$(STITCH_TOOL): $(STITCH_OBJS)
	@mkdir -p $(dir $@)
	$(HOST_CC) -o $@ $^ $(STITCH_LIBS)

ALL_TARGETS += $(STITCH_TOOL)
TEST_PREREQS += $(STITCH_TOOL)
