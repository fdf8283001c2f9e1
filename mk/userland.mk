# The user SDK (crt0 + newlib glue), the ring-3 programs and the initrd.
#
#   $(call user_program,ELF,SOURCES)  the one compile+link recipe for every
#                                     program (workloads, tests, APP)
#   $(INITRD)                         build/initrd.cpio: /bin/* and /data/*
#   make run APP=path/to/prog.c       also puts prog.c into /bin/<basename>;
#                                     RUN_INIT is what `make run` boots
#
# See docs/USERLAND.md.

USER_OUT  := $(BUILD)/userland
USER_ROOT := $(USER_OUT)/root

# Same code generation as newlib (mk/newlib.mk): no frame pointers, SFrame
# on. Headers: the SDK's, the shared ABI, newlib's; never the host's.
USER_CFLAGS := -std=gnu11 $(WARN) $(NEWLIB_CFLAGS) $(NEWLIB_ISYSTEM) \
	-Iuserland/include -Iinclude
# Static, position-dependent: ld's default script links at 0x400000 and puts
# .sframe into a PT_GNU_SFRAME segment. The build id lets host tools match
# samples with the ELF they came from. newlib's memcpy.S, memset.S and
# setjmp.S lack a .note.GNU-stack: say "no executable stack" explicitly.
USER_LDFLAGS := -static -nostdlib -no-pie -Wl,--build-id -Wl,-z,noexecstack
USER_LIBGCC  := $(shell $(HOST_CC) -print-libgcc-file-name)

USER_CRT0     := $(USER_OUT)/crt0.o
USER_LIB      := $(USER_OUT)/libstitch.a
USER_LIB_SRCS := $(wildcard userland/lib/*.c)
USER_LIB_OBJS := $(patsubst userland/lib/%.c,$(USER_OUT)/lib/%.o,$(USER_LIB_SRCS))
USER_HEADERS  := $(wildcard userland/include/*.h userland/lib/*.h) \
	include/stitch/syscall.h

$(USER_OUT)/lib/%.o: userland/lib/%.c $(USER_HEADERS) $(NEWLIB_STAMP)
	@mkdir -p $(@D)
	$(HOST_CC) $(USER_CFLAGS) -c -o $@ $<

$(USER_CRT0): userland/crt0.S
	@mkdir -p $(@D)
	$(HOST_CC) $(USER_CFLAGS) -c -o $@ $<

$(USER_LIB): $(USER_LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

# $(call user_program,ELF,SOURCES): one static ring-3 executable. libc needs
# the glue (write, sbrk...) and the glue needs libc (errno), hence the group.
define user_program
$(1): $(2) $(USER_CRT0) $(USER_LIB) $(USER_HEADERS) $(NEWLIB_STAMP)
	@mkdir -p $$(@D)
	$(HOST_CC) $(USER_CFLAGS) $(USER_LDFLAGS) -o $$@ $(USER_CRT0) $(2) \
		-Wl,--start-group $(USER_LIB) $(NEWLIB_LIBC) $(NEWLIB_LIBM) \
		$(USER_LIBGCC) -Wl,--end-group
endef
