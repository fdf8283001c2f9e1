#!/bin/sh
# The loader checks what it loads and prints every failure with its EFI
# status on the console instead of jumping: a kernel file that is not ELF,
# a truncated ELF, and a missing initrd.
cd "$(dirname "$0")/../.." || exit 1
echo "1..3"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# boot_expect NAME ESP MESSAGE: boot ESP until MESSAGE shows on the console
# (the loader then returns to the firmware, so there is no exit to wait for).
n=0
boot_expect() {
	n=$((n + 1))
	setsid tools/qemu-run --esp "$2" --timeout 60 >"$tmp/console" 2>&1 &
	pid=$!
	for _ in $(seq 60); do
		grep -aqF "$3" "$tmp/console" && break
		sleep 1
	done
	kill -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	if grep -aqF "$3" "$tmp/console" && ! grep -aq '^Stitch ' "$tmp/console"; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"; sed 's/^/# /' "$tmp/console" | tail -5
	fi
}

broken() { # broken NAME: a copy of the ESP image to damage
	cp build/esp.img "$tmp/$1.img"; echo "$tmp/$1.img"
}

img=$(broken notelf)
printf 'this is not an ELF file\n' >"$tmp/junk"
mcopy -o -i "$img" "$tmp/junk" ::/stitch/kernel.elf
boot_expect "kernel that is not ELF" "$img" \
	"stitch-boot: kernel.elf is not an ELF file: Load Error"

img=$(broken truncated)
head -c 100 build/kernel/kernel.elf >"$tmp/short"
mcopy -o -i "$img" "$tmp/short" ::/stitch/kernel.elf
boot_expect "truncated kernel ELF" "$img" \
	"stitch-boot: kernel.elf program headers out of bounds: Load Error"

img=$(broken noinitrd)
mdel -i "$img" ::/stitch/initrd.cpio
boot_expect "missing initrd" "$img" \
	"stitch-boot: cannot open \\stitch\\initrd.cpio: Not Found"
