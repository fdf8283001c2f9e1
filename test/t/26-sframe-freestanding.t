#!/usr/bin/perl
# The library as the kernel compiles it (-ffreestanding -mcmodel=kernel
# -mno-red-zone -mgeneral-regs-only, build/sframe/kernel/): it needs no
# symbol from outside itself but what GCC may call in any freestanding
# program (memcpy, memset, memmove, memcmp), and it has no global state
# (no .data or .bss).
use strict;
use warnings;
use File::Temp qw(tempdir);
require './test/sframe/lib.pl';

our ($tests, $failed);
my $p = paths();
my $dir = tempdir(CLEANUP => 1);
# The objects of today's sources (an object of a source since removed may
# linger in the build directory).
check_freestanding('sframe/', $dir,
		   map { m{^sframe/(.*)\.c$}; "$p->{SFRAME_DIR}/kernel/$1.o" } glob('sframe/*.c'));

done();
