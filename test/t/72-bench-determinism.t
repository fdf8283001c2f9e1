#!/usr/bin/perl
# make bench's promise: under QEMU -icount the numbers repeat exactly. The
# benchmark driver runs its smallest configuration (tiny: /bin/chain 8 300
# at 1000 Hz, modes none and sframe; four boots) twice into two directories;
# both runs must write byte-identical streams and results.csv, and the same
# results.json but for its wall-clock fields, and the numbers must be real
# ones (samples taken, deferred unwinds that cost cycles, a slowdown), so
# that two empty runs cannot pass. A third run
# under the plugin changes none of those numbers and adds the modelled ones.
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Digest::SHA;
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

my $dir = tempdir('bench-det-XXXXXX', TMPDIR => 1, CLEANUP => !$ENV{BENCH_KEEP_TMP});
my @driver = ('python3', 'tools/bench/bench.py', '--config', 'tiny', '--parts', 'modes',
	      '--qemu-run', 'tools/qemu-run', '--stitch', 'build/bin/stitch',
	      '--symfs', 'build/userland/root', '--kernel', 'build/kernel/kernel.elf',
	      '--initrd', 'build/initrd.cpio');

sub slurp { my ($p) = @_; open(my $f, '<:raw', $p) or return undef; local $/; scalar <$f> }

# What the guest boots; a rebuild between the two runs (another make in
# the same tree) would change the streams, not the determinism.
sub build_id { join ' ', map { Digest::SHA->new(256)->addfile($_)->hexdigest } @_ }
my @boot = ('build/kernel/kernel.elf', 'build/initrd.cpio');
my $before = build_id(@boot);
for my $run ('a', 'b') {
	my $out = `@driver --out $dir/$run 2>&1`;
	is($?, 0, "run $run: the driver exits 0") or diag($out);
}
my $rebuilt = build_id(@boot) ne $before;

# results.json with its "wall" (each boot's wall time: the host's, not
# the guest's) left out; other files as they are.
sub without_wall {
	my ($f, $text) = @_;
	return $text unless $f eq 'results.json' && defined $text;
	my $r = decode_json($text);
	delete $r->{wall};
	JSON::PP->new->canonical->encode($r);
}

my @streams = map { s{.*/runs/}{}r } glob("$dir/a/runs/*/records.bin");
is(scalar @streams, 2, 'two boots per run (none, sframe)');
SKIP: {
	skip 'the kernel or the initrd was rebuilt between the runs: run the test again', 6 if $rebuilt;
	for my $f ('results.csv', 'results.json') {
		my ($a, $b) = map { without_wall($f, slurp("$dir/$_/$f")) } 'a', 'b';
		ok(defined $a && length $a, "$f written");
		ok(defined $a && defined $b && $a eq $b, "$f: identical in both runs" .
		   ($f eq 'results.json' ? ' (its wall-clock fields apart)' : ''))
			or diag(`diff $dir/a/$f $dir/b/$f`);
	}
	for my $s (@streams) {
		my ($a, $b) = (slurp("$dir/a/runs/$s"), slurp("$dir/b/runs/$s"));
		ok(defined $b && $a eq $b, "$s: the guest wrote the same " . length($a) . " bytes both times");
	}
}

my $r = decode_json(slurp("$dir/a/results.json") // '{}');
my %row = map { $_->{mode} => $_ } @{$r->{modes}{rows} // []};
my ($none, $sf) = ($row{none} // {}, $row{sframe} // {});
ok(($none->{workloads}{chain} // 0) > 1_000_000, "none: chain ran $none->{workloads}{chain} cycles")
	or diag(explain($none));
is($sf->{status}, 'ok', 'sframe: the mode works');
ok(($sf->{samples} // 0) >= 10, "sframe: $sf->{samples} samples");
ok(($sf->{unwind_cycles_per_sample} // 0) > 0, 'sframe: deferred unwinds cost cycles');
ok(($sf->{user_frames_per_sample} // 0) >= 11, 'sframe: user stacks of chain 8 (11 frames and more)');
ok(($sf->{slowdown_pct} // 0) > 0, "sframe: slowdown $sf->{slowdown_pct}% against none");

# The same configuration under the plugin (--insnprof, as make bench runs
# it): the guest does the same, so every number of the kernel's and the
# workloads' own counts is what it was without the plugin; beside them the
# modelled columns (breakdown.model_columns), which charge misses on top
# of the instructions of the same windows.
SKIP: {
	skip 'build/bin/insnprof.so not built', 6 unless -e 'build/bin/insnprof.so';
	my $out = `@driver --insnprof build/bin/insnprof.so --out $dir/p 2>&1`;
	is($?, 0, 'under the plugin: the driver exits 0') or diag($out);
	my $p = decode_json(slurp("$dir/p/results.json") // '{}');
	my %prow = map { $_->{mode} => $_ } @{$p->{modes}{rows} // []};
	my $psf = $prow{sframe} // {};
	my @same = grep { !/modelled|plugin_slowdown|cmdline/ } sort keys %$sf;
	my @differ = grep { JSON::PP->new->canonical->encode([$sf->{$_}]) ne
			    JSON::PP->new->canonical->encode([$psf->{$_}]) } @same;
	skip 'the kernel or the initrd was rebuilt between the runs: run the test again', 5 if $rebuilt;
	is("@differ", '', 'under the plugin: the sframe row\'s ' . scalar(@same) .
	   ' instruction-count columns are what they were without it');
	ok(!defined $sf->{nmi_modelled_per_sample}, 'without the plugin: no modelled column');
	ok(($psf->{nmi_modelled_per_sample} // 0) >= $psf->{nmi_cycles_per_sample} &&
	   ($psf->{unwind_modelled_per_sample} // 0) >= $psf->{unwind_cycles_per_sample},
	   "modelled cycles a sample at least the instructions: NMI " .
	   "$psf->{nmi_modelled_per_sample} >= $psf->{nmi_cycles_per_sample}, unwind " .
	   "$psf->{unwind_modelled_per_sample} >= $psf->{unwind_cycles_per_sample}");
	# results.json keeps 6 decimals (tools/bench/output.py): three values
	# rounded each, so the sum may be off by up to 1.5e-6.
	ok(abs(($psf->{profiler_modelled_per_sample} // 0) - $psf->{nmi_modelled_per_sample} -
	       $psf->{unwind_modelled_per_sample}) < 2e-6, '... their sum is the profiler\'s');
	ok(($psf->{modelled_slowdown_pct} // 0) > 0 && ($psf->{plugin_slowdown_pct} // 0) > 0,
	   "whole run against none: +$psf->{plugin_slowdown_pct}% instructions, " .
	   "+$psf->{modelled_slowdown_pct}% modelled");
}

done_testing();
