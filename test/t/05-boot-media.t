#!/bin/sh
# The boot media: build/stitch.iso has a real GPT with the ESP as an EFI
# System partition and an empty FAT data partition labelled STITCHDATA,
# and boots as a CD-ROM and as a USB stick; booted as a stick the loader
# finds the data partition and reserves RAM for the records, as a CD it
# does not (El Torito shows it the ESP only).
cd "$(dirname "$0")/../.." || exit 1
echo "1..8"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

n=0
check() { # check NAME COMMAND...: one TAP line for the command's status
	name=$1; shift; n=$((n + 1))
	if "$@"; then echo "ok $n - $name"; else echo "not ok $n - $name"; fi
}

fdisk -l build/stitch.iso >"$tmp/fdisk" 2>&1
check "iso has a GPT partition table" grep -q 'Disklabel type: gpt' "$tmp/fdisk"
check "iso partition 2 is an EFI System partition" \
	grep -Eq '^build/stitch.iso2 .*EFI System' "$tmp/fdisk"
data=$(awk '$1 == "build/stitch.iso3" { print $2 * 512 }' "$tmp/fdisk")
check "iso partition 3 is an empty FAT volume labelled STITCHDATA" sh -c \
	"mlabel -s -i build/stitch.iso@@${data:-0} :: | grep -q 'is STITCHDATA' &&
	 mdir -i build/stitch.iso@@${data:-0} ::/ | grep -q 'No files'"

# Each medium must reach the kernel (its banner) and end with success.
for medium in cdrom usb; do
	tools/qemu-run --boot "$medium" --timeout 120 >"$tmp/$medium" 2>&1
	status=$?
	check "boots as $medium (exit $status)" [ "$status" -eq 0 ]
	check "$medium boot reached the kernel banner" \
		grep -aq '^Stitch ' "$tmp/$medium"
done
check "as a stick the loader keeps records for STITCHDATA, as a CD it cannot" sh -c \
	"grep -aq 'stitch-boot: records will be kept in RAM at' '$tmp/usb' &&
	 ! grep -aq 'records will be kept' '$tmp/cdrom'"
[ -n "$(grep -a '^Stitch ' "$tmp/cdrom")" ] || sed 's/^/# /' "$tmp/cdrom" | tail -20
