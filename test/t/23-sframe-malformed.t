#!/bin/sh
# Test 4: malformed sections return errors, never crash, never read outside
# the section. The program (test/sframe/malformed.c) runs the library built
# with AddressSanitizer and UBSan and prints TAP; a sanitizer report kills
# it, which prove counts as a failure.
dir=$(sed -n 's/^SFRAME_DIR=//p' build/sframe/paths)
exec env ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
	"$dir/test/malformed"
