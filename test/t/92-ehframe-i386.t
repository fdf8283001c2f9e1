#!/usr/bin/perl
# The .eh_frame library on i386 programs (EH_ABI_I386: 4-byte pointers,
# ebp 5, the return address in column 8, data alignment -4) against
# elfutils' libdw, which picks its i386 backend from the ELF32 file:
# `ehframe check` compares the rule at every pc an FDE covers. The
# programs are built here with gcc -m32: a static glibc program (its
# hand-written assembly, its signal trampolines and thousands of
# functions) and test/ehframe/i386/frames.c at -O0, -O2, with and without
# frame pointers. Every pc agrees, those of a realigned stack (a DRAP
# register, the CFA and ebp by DWARF expressions) too. Then what the tool
# says of an ELF file of another machine.
use strict;
use warnings;
use File::Temp qw(tempdir);
require './test/sframe/lib.pl';

our ($tests, $failed);
my $eh = 'build/bin/ehframe';
my $tmp = tempdir(CLEANUP => 1);
my $expr = 'CFA, RA or rbp given by a DWARF expression';

# gcc -m32 into $tmp/$name; the command's output when it fails.
sub cc32 {
	my ($name, @args) = @_;
	my $out = `gcc -m32 -Wl,--eh-frame-hdr -o $tmp/$name @args 2>&1`;
	return $? == 0 ? undef : $out;
}

# `ehframe check` of one file: its counts, the refusals by reason.
sub check {
	my ($file) = @_;
	my ($out, $status) = run($eh, 'check', $file);
	my %c = (out => $out, status => $status);
	@c{qw(fdes pcs agree differ none)} =
		$out =~ /: i386 table, (\d+) FDEs, (\d+) pcs: (\d+) agree, (\d+) differ, (\d+) libdw-no-answer/
		or return \%c;
	$c{refused}{$2} += $1 while $out =~ /, (\d+) ours-\w+ \(([^)]+)\)/g;
	($c{index_differ}) = $out =~ /; index: \d+ same, (\d+) differ(?:;|$)/m;
	return \%c;
}

# Every pc agrees, or is refused as an expression; nothing else.
sub agrees {
	my ($c, $min_pcs) = @_;
	my $refused = $c->{refused}{$expr} // 0;
	my @other = grep { $_ ne $expr } keys %{$c->{refused} // {}};
	return defined $c->{pcs} && $c->{status} == 0 && $c->{pcs} >= $min_pcs &&
	       $c->{differ} == 0 && $c->{none} == 0 && !@other &&
	       $c->{agree} + $refused == $c->{pcs} && $c->{index_differ} == 0;
}

# --- a static glibc program: thousands of functions, hand-written CFI --------
my $err = cc32('libc32', '-O2', '-static', 'test/ehframe/i386/main.c');
ok(!$err, 'gcc -m32 -static links a glibc program') or diag($err);
my $c = check("$tmp/libc32");
ok(agrees($c, 100000), "static i386 glibc program: $c->{agree} of " . ($c->{pcs} // '?') .
   " pcs agree with libdw, " . ($c->{refused}{$expr} // 0) . " refused (expression)")
	or diag($c->{out});
ok(!%{$c->{refused} // {}}, '... none refused: the realigned stacks\' CFA and ebp expressions (breg; deref) followed');

# --- frames.c, four ways ------------------------------------------------------
my %ways = ('O0' => ['-O0'], 'O2' => ['-O2'], 'O2-fp' => ['-O2', '-fno-omit-frame-pointer'],
	    'Os' => ['-Os', '-fasynchronous-unwind-tables']);
for my $w (sort keys %ways) {
	$err = cc32("frames-$w", @{$ways{$w}}, '-nostdlib', '-static', '-fno-pie',
		    'test/ehframe/i386/frames.c');
	$c = $err ? {} : check("$tmp/frames-$w");
	ok(!$err && agrees($c, 100) && $c->{fdes} >= 7,
	   "frames.c -$w: $c->{agree} of " . ($c->{pcs} // '?') . " pcs agree, " .
	   ($c->{refused}{$expr} // 0) . " refused (expression), " . ($c->{fdes} // 0) . " FDEs")
		or diag($err // $c->{out});
}

# --- another machine's ELF file: refused with its reason ----------------------
open(my $in, '<:raw', "$tmp/frames-O2") or die $!;
my $elf = do { local $/; <$in> };
close $in;
substr($elf, 18, 2) = pack('v', 40); # e_machine: EM_ARM
open(my $outf, '>:raw', "$tmp/arm") or die $!;
print $outf $elf;
close $outf;
my $msg = `$eh check $tmp/arm 2>&1`;
ok($? != 0 && $msg =~ /not an x86-64 or i386 ELF file/,
   'an ELF32 file of another machine: exit status not 0, and why') or diag($msg);

done();
