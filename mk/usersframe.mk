# The programs with SFrame sections of another version: copies of the
# initrd whose ELF files carry their .sframe re-encoded by
# build/bin/sframe rewrite (docs/SFRAME.md, "Version 3 beside version 2").
# After mk/userland.mk (mk/*.mk in name order): it reads its lists.
#
#   make run SFRAME=v3    boot the copy of version 3 (v2: of version 2;
#                         v1, the default: the programs as ld 2.40 wrote
#                         them); the mode stays sframe
#   make bench SFRAME=v3  every part on that copy
#
#   $(SFRAME_INITRD)      the initrd SFRAME names
#   build/sframe/vN/initrd.cpio  the copies (under build/sframe/, which
#                         test 20 leaves to the SFrame tests: readelf 2.40
#                         reads version 1 only)

SFRAME ?= v1
SFRAME_CHOICES := v1 v2 v3
ifneq ($(filter-out $(SFRAME_CHOICES),$(SFRAME))$(filter-out 1,$(words $(SFRAME))),)
$(error SFRAME=$(SFRAME): one of $(SFRAME_CHOICES) (v1: the programs as ld 2.40 wrote them; v2, v3: their .sframe rewritten in that version))
endif

SFRAME_COPIES := $(SFRAME_DIR)/v2/initrd.cpio $(SFRAME_DIR)/v3/initrd.cpio
SFRAME_INITRD := $(if $(filter v1,$(SFRAME)),$(INITRD),$(SFRAME_DIR)/$(SFRAME)/initrd.cpio)

# The initrd's files, each program and shared object with an .sframe of
# version 1 (ld 2.40's; the signal page's is of version 3 already) rewritten, the others
# as they are; the same names in the same order. The rewrite keeps every
# other section where it is, so it starts from the full ELF of the symbol
# tree, as ld laid it out (room after .sframe up to the next page), and
# strips it after, as the initrd's copy is. A section that would outgrow
# that room (sframe rewrite's status 3: /bin/funcs-N for large N, one
# object of N functions, whose FDEs grow by 4 bytes each while ld left a
# page at most) leaves its file as it was, named in unconverted.txt and
# on the terminal.
$(SFRAME_DIR)/v%/initrd.cpio: $(INITRD) $(SFRAME_TOOL)
	rm -rf $(@D)/stage && mkdir -p $(@D)/stage
	cd $(USER_STAGE) && tr ' ' '\n' < $(abspath $(USER_INITRD_LIST)) | \
		cpio -p -d --quiet $(abspath $(@D)/stage)
	: > $(@D)/unconverted.txt
	cd $(USER_ROOT) && for f in $$(tr ' ' '\n' < $(abspath $(USER_INITRD_LIST))); do \
		readelf -h $$f 2>/dev/null | grep -Eq 'Type: +(EXEC|DYN)' && \
			$(abspath $(SFRAME_TOOL)) check $$f 2>/dev/null | grep -q ': ok: version 1 at' || continue; \
		$(abspath $(SFRAME_TOOL)) rewrite --to $* $$f -o $(abspath $(@D))/full.tmp 2>/dev/null; \
		case $$? in \
		0) strip --strip-debug -o $(abspath $(@D))/stage/$$f $(abspath $(@D))/full.tmp || exit 1 ;; \
		3) echo $$f >> $(abspath $(@D))/unconverted.txt ;; \
		*) $(abspath $(SFRAME_TOOL)) rewrite --to $* $$f -o $(abspath $(@D))/full.tmp; exit 1 ;; \
		esac; \
	done
	rm -f $(@D)/full.tmp
	@[ ! -s $(@D)/unconverted.txt ] || echo "sframe: $@: kept as ld wrote them" \
		"(no room for version $*'s section): $$(tr '\n' ' ' < $(@D)/unconverted.txt)"
	cd $(@D)/stage && tr ' ' '\n' < $(abspath $(USER_INITRD_LIST)) | \
		cpio -o -H newc -R 0:0 --reproducible --quiet > $(abspath $@).tmp
	mv $@.tmp $@

ALL_TARGETS += $(SFRAME_COPIES)
RUN_TARGETS += $(SFRAME_INITRD)

# The firmware boot of make run reads the initrd from the ESP: the copy
# replaces it there (mk/run.mk's recipe); the choice is a prerequisite, in
# a file rewritten only when it changes.
SFRAME_CHOICE := $(BUILD)/sframe-choice.txt
VALUE_FILES += SFRAME_CHOICE
SFRAME_CHOICE_TEXT = $(SFRAME)
$(RUN_ESP): $(SFRAME_INITRD) $(SFRAME_CHOICE)
