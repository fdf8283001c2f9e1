#!/usr/bin/perl
# Test 2: for every FDE and FRE, and for every pc in the text of linked
# files, the library finds the same FDE, FRE and rule as binutils' own
# libsframe (2.40, binutils-dev). Inputs: newlib's libc.a member by member,
# libc.a linked whole into one executable (so that its code has final,
# distinct addresses), a dynamically linked program and shared object
# (PLT stubs), and every ELF file and archive under build/.
use strict;
use warnings;
require './test/sframe/lib.pl';

our ($tests, $failed);
my $p = paths();
my $cmp = "$p->{SFRAME_DIR}/test/vs_libsframe";

sub agree {
	my ($name, $min_pcs, @files) = @_;
	my ($out, $status) = run($cmp, @files);
	my ($fdes, $fres, $pcs, $found, $plt, $wrong) = (0, 0, 0, 0, 0, 0);
	while ($out =~ /: (\d+) FDEs, (\d+) FREs, (\d+) pcs \((\d+) with a rule, (\d+) in PLTs, (\d+) of them/g) {
		$fdes += $1; $fres += $2; $pcs += $3; $found += $4; $plt += $5; $wrong += $6;
	}
	ok($status == 0 && $fdes > 0 && $pcs >= $min_pcs,
	   "$name: $fdes FDEs, $fres FREs, $pcs pcs agree with libsframe")
		or diag(grep { /MISMATCH/ } split /\n/, $out);
	diag("$name: $found pcs with a rule; $plt PLT pcs checked against the "
	     . "spec's PCMASK rule ($wrong of them wrong in libsframe 2.40's sframe_find_fre)")
		if $pcs;
}

agree('libc.a, every member decoded', 0, $p->{NEWLIB_LIBC});
agree('libc.a linked whole, every pc', 100000, "$p->{SFRAME_DIR}/test/libc-whole.elf");
agree('dynamic executable and shared object (PLTs)', 1000,
      map { "$p->{SFRAME_DIR}/test/$_" } qw(sample libsample.so));
my @elves = build_elves();
agree('every ELF under build/', 0, @elves);

done();
