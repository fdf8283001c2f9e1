#!/usr/bin/perl
# Test 3: version 1 -> 2 -> 3 conversions (build/bin/sframe convert) keep
# the rule at every pc. For each linked file with SFrame: v1 -> v2 (PC-
# relative starts and section-relative ones), v2 -> v3 (both), v3 -> v1.
# Every pc must look up to the same function, row and rule, and unwind one
# step to the same caller, in all six encodings; the v3 -> v1 round trip
# must dump exactly as readelf dumps the original; the v2 and v3 dumps may
# differ from the v1 dump only in the Version and Flags lines.
use strict;
use warnings;
use File::Temp qw(tempdir);
require './test/sframe/lib.pl';

our ($tests, $failed);
my $p = paths();
my $tool = $p->{SFRAME_TOOL};
my $check = "$p->{SFRAME_DIR}/test/conv_check";
my $dir = tempdir(CLEANUP => 1);

# Linked files: the samples, libc linked whole, and what build/ holds.
# Every pc is checked in the first group (all of libc's code, the PLTs and
# the kernel); the userland programs are newlib plus a little, so for them
# the conversions and dumps are checked but not every pc again (time).
my @every_pc = (map({ "$p->{SFRAME_DIR}/test/$_" } qw(sample libsample.so libc-whole.elf)),
		'build/kernel/kernel.elf');
my %every_pc = map { $_ => 1 } @every_pc;
my @files = (@every_pc, grep { !$every_pc{$_} && (elf_type($_) == 2 || elf_type($_) == 3) }
			      build_elves());
my (@fail_convert, @fail_rules, @fail_roundtrip, @fail_dump);
my ($sections, $pcs, $ruled) = (0, 0, 0);

for my $f (@files) {
	my ($st) = run($tool, 'check', $f);
	next unless $st =~ /: ok: version 1 at (0x[0-9a-f]+),/;
	my $addr = $1;
	$sections++;
	my %out = map { $_ => "$dir/s.$_" } qw(v2 v2n v3 v3n v1);
	my @steps = ([qw(--to 2), $f, '-o', $out{v2}],
		     [qw(--to 2 --no-pcrel), $f, '-o', $out{v2n}],
		     [qw(--to 3 --vaddr), $addr, $out{v2}, '-o', $out{v3}],
		     [qw(--to 3 --no-pcrel --vaddr), $addr, $out{v2n}, '-o', $out{v3n}],
		     [qw(--to 1 --vaddr), $addr, $out{v3}, '-o', $out{v1}]);
	if (grep { system($tool, 'convert', @$_) != 0 } @steps) {
		push @fail_convert, $f;
		next;
	}
	if ($every_pc{$f}) {
		my ($res, $status) = run($check, $f, @out{qw(v2 v2n v3 v3n v1)});
		if ($status != 0 || $res !~ /(\d+) pcs, (\d+) with a rule/) {
			push @fail_rules, "$f: $res";
		} else {
			$pcs += $1;
			$ruled += $2;
		}
	}
	my ($orig) = run('readelf', '--sframe', $f);
	my ($back) = run($tool, 'dump', '--vaddr', $addr, $out{v1});
	push @fail_roundtrip, $f if $back ne $orig || $orig eq '';
	my ($v1) = run($tool, 'dump', $f);
	for my $v (qw(v2 v2n v3 v3n)) {
		my ($d) = run($tool, 'dump', '--vaddr', $addr, $out{$v});
		my $n = $v =~ /(\d)/ ? $1 : 0;
		(my $want = $v1) =~ s/SFRAME_VERSION_1/SFRAME_VERSION_$n/;
		s/^    Flags: .*$//m for ($want, $d);
		push @fail_dump, "$f ($v)" if $d ne $want;
	}
}

diag("$sections linked files; every pc of " . join(' ', @every_pc)
     . ": $pcs pcs, $ruled with a rule");
ok($sections >= 3 && !@fail_convert, "convert v1->v2->v3->v1 succeeds ($sections files)")
	or diag(@fail_convert);
ok($pcs > 100000 && !@fail_rules, "same FDE, FRE, rule and unwind step at every pc in all versions")
	or diag(@fail_rules);
ok(!@fail_roundtrip, 'v3 -> v1 round trip dumps exactly as readelf dumps the original')
	or diag(@fail_roundtrip);
ok(!@fail_dump, 'v2/v3 dumps equal the v1 dump but for the version and flags')
	or diag(@fail_dump);

# Relocatable objects are refused: their start addresses are relocations.
my $obj = (grep { elf_type($_) == 1 } build_elves())[0];
if ($obj) {
	my ($out, $st) = run($tool, 'convert', '--to', '2', $obj, '-o', "$dir/obj.v2");
	ok($st != 0 && !-e "$dir/obj.v2", 'convert refuses a relocatable object');
}

done();
