#!/bin/sh
# The library's answers on hand-made sections of known meaning: lookups,
# rules (default, AArch64, flexible, outermost, signal) and unwind steps on
# a fake stack, including each way a step ends (test/sframe/unit.c).
dir=$(sed -n 's/^SFRAME_DIR=//p' build/sframe/paths)
exec "$dir/test/unit"
