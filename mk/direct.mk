# The direct boot path for benchmarks: tools/qemu-run --direct boots
# $(KERNEL_ELF) with QEMU -kernel (PVH entry, arch/x86_64/boot/pvh.S) and
# $(INITRD), under SeaBIOS and QEMU's pvh.bin instead of OVMF.
# docs/BOOT.md, "Direct boot (PVH)"; test/t/07-boot-direct.t.

RUN_PACKAGES += qemu-system-x86 seabios
TEST_PREREQS += $(KERNEL_ELF) $(INITRD)
