# The signal page (docs/PROCESSES.md, "Signals"): /lib/sigpage, the
# trampoline a signal handler returns to, which the kernel maps into every
# process at STITCH_SIGPAGE_ADDR (include/stitch/signal.h).
#
#   $(SIGPAGE)   build/userland/root/lib/sigpage: an ELF executable of one
#                segment, its .eh_frame (a signal frame, 'S') and its
#                .sframe as SFrame version 3 with the signal mark
#
# gas 2.40 writes SFrame version 1, which cannot mark a signal trampoline:
# the section gas and ld made is rewritten in place as version 3, its FDE
# for the trampoline marked (`sframe convert --signal`). .sframe is the
# segment's last section (userland/sigpage/sigpage.ld), so objcopy can let
# it grow. Included before mk/userland.mk, like mk/deferred.mk.

SIGPAGE := $(BUILD)/userland/root/lib/sigpage

$(BUILD)/sigpage/sigreturn.o: userland/sigpage/sigreturn.S include/stitch/signal.h include/stitch/syscall.h
	@mkdir -p $(@D)
	$(HOST_CC) -c -Wa,--gsframe -Iinclude -o $@ $<

$(BUILD)/sigpage/sigpage.v1: $(BUILD)/sigpage/sigreturn.o userland/sigpage/sigpage.ld
	ld -static -nostdlib --eh-frame-hdr --build-id -T userland/sigpage/sigpage.ld -o $@ $<

$(SIGPAGE): $(BUILD)/sigpage/sigpage.v1 $(BIN)/sframe
	@mkdir -p $(@D)
	$(BIN)/sframe convert --to 3 --signal 0x$$(nm $< | sed -n 's/ T __stitch_sigreturn$$//p') \
		$< -o $(BUILD)/sigpage/sframe.v3
	objcopy --update-section .sframe=$(BUILD)/sigpage/sframe.v3 $< $@

USER_EXTRA_FILES += lib/sigpage
