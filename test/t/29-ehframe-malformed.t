#!/usr/bin/perl
# The .eh_frame library on hand-built sections (test/ehframe/unit.c): the
# rules of known programs, each malformation's own error, every byte of a
# valid pair of sections changed and every truncation, read both from an
# exact-size heap copy and through a reader that counts any request
# outside the section; once plainly and once under ASan and UBSan (which
# abort on any read past the copy or undefined behaviour). Then the
# library as the kernel will compile it (build/ehframe/kernel/): it needs
# no symbol from outside itself but memcpy/memset/memmove/memcmp, has no
# global state, and its code is in the kernel code model.
use strict;
use warnings;
use File::Temp qw(tempdir);
require './test/sframe/lib.pl';

our ($tests, $failed);
my $dir = tempdir(CLEANUP => 1);

for my $bin (qw(unit unit-san)) {
	my ($out, $status) = run("build/ehframe/test/$bin");
	my $n = () = $out =~ /^ok \d+/mg;
	my @not = $out =~ /^(not ok.*)$/mg;
	my ($plan) = $out =~ /^1\.\.(\d+)$/m;
	ok($status == 0 && !@not && $n >= 100 && $plan && $plan == $n,
	   "$bin: $n checks pass" . ($bin eq 'unit-san' ? ' under ASan+UBSan' : '')) or diag(@not);
	if ($bin eq 'unit') {
		my @named = grep { /CIE pointer outside|augmentation length past the CIE|remember_state \d+ deep: r|advance_loc past|out of order|truncated ULEB|^DW_CFA_def_cfa_expression: / } $out =~ /^ok \d+ - (.*)$/mg;
		ok(@named == 7, 'the seven named malformations are among them') or diag(@named);
	}
}

check_freestanding('ehframe/', $dir, glob('build/ehframe/kernel/*.o'));

# Only the three freestanding headers, its own, and from sframe/ the two
# both libraries share: sframe.h for struct sf_rule, lazy_index.h for the
# lazily filled FDE index.
my @includes;
for my $f (glob('ehframe/*.[ch]')) {
	open(my $h, '<', $f) or die "$f: $!";
	while (<$h>) {
		push @includes, "$f: $1" if /^\s*#\s*include\s+([<"][^>"]+[>"])/ &&
			$1 !~ /^<(stdint|stddef|stdbool)\.h>$|^"(ehframe|internal|sframe|lazy_index)\.h"$/;
	}
}
ok(!@includes, 'ehframe/ includes only <stdint.h>, <stddef.h>, <stdbool.h>, its own headers and ' .
   "sframe/'s sframe.h and lazy_index.h")
	or diag(@includes);

done();
