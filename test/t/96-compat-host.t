#!/usr/bin/perl
# The host tools and 32-bit (i386) programs: stitch-usim refuses one by
# name, as the first program, with exit status 2 and no trace started
# (docs/USERLAND.md). The program is built here with gcc -m32.
use strict;
use warnings;
use File::Temp qw(tempdir);
require './test/sframe/lib.pl';

our ($tests, $failed);
my $tmp = tempdir(CLEANUP => 1);
mkdir "$tmp/bin" or die $!;
my $out = `gcc -m32 -O2 -nostdlib -static -fno-pie -o $tmp/bin/frames32 test/ehframe/i386/frames.c 2>&1`;
ok($? == 0, 'gcc -m32 builds an i386 program') or diag($out);

# (frames.c never exits: a usim that ran it would be stopped here.)
$out = `timeout 30 build/bin/stitch-usim $tmp /bin/frames32 2>&1`;
my $status = $? >> 8;
ok($status == 2 && $out =~ m{/bin/frames32: a 32-bit \(i386\) program: stitch-usim runs x86-64 programs only},
   "stitch-usim refuses the i386 program by name (exit status $status)") or diag($out);

done();
