#!/usr/bin/perl
# The .eh_frame library against elfutils' libdw: `ehframe check` compares
# the rule at every pc an FDE covers (CFA, return address, rbp, signal
# flag) and must agree everywhere for every user program the build makes
# (static, with the .eh_frame_hdr the SDK now links in), the shared object
# in the guest's lib/, the SFrame tests' linked inputs and checked-in
# fixtures, and a hand-written CFI fixture (test/ehframe/cfi.S); the only
# pcs allowed to differ are those whose rule is a DWARF expression, which
# the library refuses by name. The rows the library computes once
# (eh_rows_add, eh_rows_of_pc: what the kernel's eh-convert and
# eh-rowcache modes keep) answer as the interpreter at every pc. Through the table's index (eh_index_build)
# every program's lookups give the same answers and budget as without it
# (`ehframe check` looks each pc up both ways). Then the same rule struct from both
# formats: `ehframe lookup` and `sframe lookup` agree at every pc of each
# program's .text. Then what the tool says of damaged input, and the tool
# under ASan and UBSan.
use strict;
use warnings;
use File::Temp qw(tempdir);
require './test/sframe/lib.pl';

our ($tests, $failed);
my $eh = 'build/bin/ehframe';
my $tmp = tempdir(CLEANUP => 1);

# One `ehframe check` line: its counts, and those refused per reason.
sub counts {
	my ($line) = @_;
	my %c;
	@c{qw(table fdes pcs agree differ none)} =
		$line =~ /: (?:i386 )?(table|no \.eh_frame_hdr), (\d+) FDEs, (\d+) pcs: (\d+) agree, (\d+) differ, (\d+) libdw-no-answer/
		or return undef;
	$c{refused}{$2} += $1 while $line =~ /, (\d+) ours-\w+ \(([^)]+)\)/g;
	@c{qw(index_same index_differ rows_same rows_differ rows_kept rows_libdw)} =
		$line =~ /; index: (\d+) same, (\d+) differ; rows: (\d+) same, (\d+) differ, (\d+) from rows, (\d+) libdw-agree$/;
	return \%c;
}

sub check {
	my ($file) = @_;
	my ($out, $status) = run($eh, 'check', $file);
	my ($line) = grep { /^\Q$file\E: (i386 )?(table|no)/ } split /\n/, $out;
	return ($line ? counts($line) : undef, $status, $out);
}

# --- every user program: 100 % agreement, through the search table --------
my @progs = grep { -f $_ } glob('build/userland/root/bin/*');
my ($pcs, $bad, $indexed, $rowed) = (0, 0, 0, 0);
my (@bad, @xbad, @rbad);
for my $p (@progs) {
	my ($c, $status, $out) = check($p);
	my $good = $c && $status == 0 && $c->{table} eq 'table' && $c->{pcs} > 1000 &&
		$c->{agree} == $c->{pcs} && !$c->{refused};
	push @bad, $out unless $good;
	# Through the index (eh_index_build): every pc, and the pc before and
	# past each function, the same answer and budget left as without it.
	push @xbad, $out unless $c && defined $c->{index_differ} && $c->{index_differ} == 0 &&
		$c->{index_same} == $c->{pcs} + 2 * $c->{fdes};
	# The rows (eh_rows_add: the table converted whole, and each entry
	# alone, as the kernel's eh-convert and eh-rowcache keep them): the
	# interpreter's answer at every pc and the pcs around each function,
	# every one from the rows themselves, and libdw's rule at every pc.
	push @rbad, $out unless $c && defined $c->{rows_differ} && $c->{rows_differ} == 0 &&
		$c->{rows_same} == $c->{pcs} + 2 * $c->{fdes} &&
		$c->{rows_kept} == $c->{rows_same} && $c->{rows_libdw} == $c->{agree};
	$pcs += $c->{pcs} if $c;
	$indexed += $c->{index_same} // 0;
	$rowed += $c->{rows_same} // 0;
}
ok(@progs >= 20 && !@bad, scalar(@progs) . " user programs: every one has .eh_frame_hdr, " .
   "and all $pcs pcs agree with libdw") or diag(@bad);
ok(@progs >= 20 && !@xbad, "... and the table's index changes no answer: $indexed lookups " .
   "through it give the same rule or error and leave the same budget") or diag(@xbad);
ok(@progs >= 20 && !@rbad, "... and their rows, converted whole or one FDE at a time, answer " .
   "as the interpreter at all $rowed pcs, and as libdw wherever it does") or diag(@rbad);

# --- fixtures: all agree but the pcs of expression rules -------------------
my $expr = 'CFA, RA or rbp given by a DWARF expression';
my @fixtures = ('build/ehframe/test/cfi', glob('build/userland/root/lib/*.so'),
	map({ "build/sframe/test/$_" } qw(sample libsample.so libc-whole.elf)),
	map({ "test/sframe/binutils-2.46/$_" } qw(libfx.so useslib varied-static)));
for my $f (@fixtures) {
	my ($c, $status, $out) = check($f);
	my $refused = $c ? $c->{refused}{$expr} // 0 : 0;
	my @other = $c ? grep { $_ ne $expr } keys %{$c->{refused}} : ();
	ok($c && $status == 0 && $c->{pcs} > 0 && $c->{differ} == 0 && !@other &&
	   $c->{agree} + $refused == $c->{pcs} &&
	   (!defined $c->{rows_differ} || ($c->{rows_differ} == 0 &&
	    $c->{rows_kept} == $c->{pcs} + 2 * $c->{fdes})),
	   "$f: " . ($c ? "$c->{agree} of $c->{pcs} pcs agree, $refused refused (expression)" : 'no report'))
		or diag($out);
}
my ($c) = check('build/ehframe/test/cfi');
ok($c && $c->{fdes} == 10 && $c->{pcs} > 70000 && !$c->{refused} && $c->{agree} == $c->{pcs},
   'cfi.S: its 10 FDEs checked, the pc under a CFA expression (breg7 8; deref) followed, as libdw does');

# --- the same struct sf_rule from SFrame and from .eh_frame ---------------
# `sframe lookup` and `ehframe lookup` print rules the same way; at every pc
# of .text (no FDE included) the rule parts must be equal.
sub text_range {
	my ($f) = @_;
	my ($out) = run('readelf', '-SW', $f);
	my ($addr, $size) = $out =~ /\s\.text\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)/;
	return (hex($addr), hex($size));
}

# The rule parts of `lookup`'s lines for pcs, the FDE's offset or index
# and the row's or FRE's start taken out (the formats number them apart).
sub rules {
	my ($tool, $f, @pcs) = @_;
	my ($out) = run($tool, 'lookup', $f, @pcs);
	$out =~ s/ (fre|row) \+0x[0-9a-f]+//g;
	$out =~ s/ fde \S+ \[/ [/g;
	return $out;
}

# A chunk of pcs at a time; the lines compared one by one only where the
# two outputs are not equal as a whole.
my ($same, $all) = (0, 0);
my @differ;
for my $p (grep { !/funcs-1000+$/ } @progs) {
	my ($a, $n) = text_range($p);
	for (my $lo = $a; $lo < $a + $n; $lo += 20000) {
		my $hi = $lo + 20000 < $a + $n ? $lo + 20000 : $a + $n;
		my @pcs = map { sprintf '0x%x', $_ } $lo .. $hi - 1;
		my $s = rules('build/bin/sframe', $p, @pcs);
		my $e = rules($eh, $p, @pcs);
		my $lines = ($s =~ tr/\n//);
		$all += $lines;
		if ($s eq $e) {
			$same += $lines;
			next;
		}
		my @s = split /\n/, $s;
		my @e = split /\n/, $e;
		push @differ, "$p: " . scalar(@s) . ' vs ' . scalar(@e) . ' lines' if @s != @e;
		for my $i (0 .. $#s) {
			if (defined $e[$i] && $s[$i] eq $e[$i]) { $same++ } elsif (@differ < 10) { push @differ, "$s[$i] | " . ($e[$i] // '') }
		}
	}
}
ok($all > 500000 && $same == $all, "sframe and ehframe lookups: the same rule at $same of $all pcs")
	or diag(@differ);

# --- lookup's words, and damaged input --------------------------------------
my $fib = 'build/userland/root/bin/fib';
my ($nm) = run('nm', $fib);
my ($main) = $nm =~ /^([0-9a-f]+) T main$/m;
$main = sprintf '%x', hex($main);
my ($out, $status) = run($eh, 'lookup', $fib, "0x$main", '0x10');
ok($status == 1 && $out =~ /^0x$main: fde 0x[0-9a-f]+ \[0x$main,\+\d+\) row \+0x0 cfa=r7\+8 ra=\[cfa-8\] fp=same$/m &&
   $out =~ /^0x10: no FDE for pc$/m, 'lookup: the entry of main, and a pc without FDE (status 1)') or diag($out);
($out, $status) = run($eh, 'check', 'build/kernel/kernel.elf');
ok($status == 1, 'check: a file without .eh_frame fails');

# A copy of fib with two entries of its search table swapped.
sub section_at {
	my ($f, $name) = @_;
	my ($o) = run('readelf', '-SW', $f);
	my ($off, $size) = $o =~ /\s\Q$name\E\s+PROGBITS\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)/;
	return (hex($off), hex($size));
}
my ($hoff, $hsize) = section_at($fib, '.eh_frame_hdr');
open(my $in, '<:raw', $fib) or die "$fib: $!";
my $bytes = do { local $/; <$in> };
my $copy = $bytes;
my ($e1, $e2) = ($hoff + 12 + 8 * 3, $hoff + 12 + 8 * 100);
my $t = substr($copy, $e1, 8);
substr($copy, $e1, 8) = substr($copy, $e2, 8);
substr($copy, $e2, 8) = $t;
open(my $o, '>:raw', "$tmp/unsorted") or die; print $o $copy; close $o;
($out, $status) = run($eh, 'check', "$tmp/unsorted");
ok($status == 1 && $out =~ /DAMAGED: \.eh_frame_hdr: search table not sorted/,
   'check: a search table out of order is damage') or diag($out);

# A copy whose first FDE's CIE pointer reaches before the section.
my ($foff) = section_at($fib, '.eh_frame');
my $cie_len = unpack('V', substr($bytes, $foff, 4));
$copy = $bytes;
substr($copy, $foff + 4 + $cie_len + 4, 4) = pack('V', 0x7fffffff);
open($o, '>:raw', "$tmp/ciebad") or die; print $o $copy; close $o;
($out, $status) = run($eh, 'check', "$tmp/ciebad");
ok($status == 1 && $out =~ /CIE pointer outside \.eh_frame/, 'check: a CIE pointer outside the section is damage')
	or diag($out);

# --- the tool under ASan and UBSan: the same words, no report --------------
my @san_in = ($fib, 'build/ehframe/test/cfi', 'build/sframe/test/sample', "$tmp/unsorted", "$tmp/ciebad");
my @san_bad;
for my $f (@san_in) {
	my $err = "$tmp/san.err";
	my $a = `build/ehframe/test/ehframe-san check '$f' 2>'$err'`;
	my $sa = $? >> 8;
	my $e = do { local (@ARGV, $/) = $err; <> // '' };
	my ($b, $sb) = run($eh, 'check', $f);
	push @san_bad, "$f: status $sa vs $sb; $e" if $a ne $b || $sa != $sb || $e =~ /Sanitizer|runtime error/;
}
ok(!@san_bad, 'check under ASan+UBSan: same output and status on ' . scalar(@san_in) .
   ' files (two damaged), no report') or diag(@san_bad);

done();
