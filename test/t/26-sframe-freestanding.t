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
my @objs = glob("$p->{SFRAME_DIR}/kernel/*.o");
my $dir = tempdir(CLEANUP => 1);
ok(@objs >= 5 && system('ld', '-r', '-o', "$dir/all.o", @objs) == 0,
   'kernel-flag objects link together (' . scalar(@objs) . ' objects)');
my ($undef) = run('nm', '-u', "$dir/all.o");
my @outside = grep { !/^(memcpy|memset|memmove|memcmp)$/ } map { /U (\S+)/ ? $1 : () }
	split /\n/, $undef;
ok(!@outside, 'no undefined symbols beyond memcpy/memset/memmove/memcmp') or diag(@outside);
my ($sizes) = run('size', '-A', "$dir/all.o");
my @state = grep { /^\.(data|bss)\S*\s+(\d+)/ && $2 > 0 } split /\n/, $sizes;
ok(!@state, 'no .data or .bss: no global state') or diag(@state);
# In code, -mcmodel=kernel addresses symbols with sign-extended 32-bit
# relocations; a 64-bit absolute or GOT relocation in .text would mean the
# flags did not apply. (Data, e.g. a jump table, may hold 64-bit pointers.)
my ($relocs) = run('readelf', '-r', "$dir/all.o");
my ($sec, @bad) = ('');
for (split /\n/, $relocs) {
	$sec = $1 if /^Relocation section '([^']+)'/;
	push @bad, "$sec: $_" if $sec =~ /^\.rela\.text/ && /R_X86_64_(64|PC64|GOT\w*)\s/;
}
ok($relocs =~ /R_X86_64_32S/ && !@bad, 'code in the kernel code model (32S relocations, no 64-bit or GOT)')
	or diag(@bad);

done();
