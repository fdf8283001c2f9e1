#!/usr/bin/perl
# The cost model's cache simulator (tools/insnprof/cachesim.c) against one
# nobody here wrote: Valgrind's cachegrind. build/bin/cachepat makes, on
# the host, the patterns that tell caches apart (sweeps that fit each level
# and one larger than all, sets overfilled by one line, stores then loads,
# a scrambled walk). cachegrind runs it with I1, D1 and LL set to the
# model's geometry; Valgrind's lackey traces the same run's every fetch,
# load and store, and build/bin/cachesim-trace sends that trace through
# the model's hierarchy, counted as cachegrind counts. Both model the same
# policy (LRU, write-allocate, a miss filled into every level it missed,
# no prefetch), so every count must be equal: once with the model's L2 as
# cachegrind's LL (the level the L1 misses go to), once with the LLC's
# geometry in that place. docs/BENCHMARKS.md ("The caches against
# cachegrind") says where the two differ and why.
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use File::Temp qw(tempdir);
use Test::More;

-x $_ or BAIL_OUT("$_ is missing: run make") for 'build/bin/cachepat', 'build/bin/cachesim-trace';
`which valgrind` =~ /valgrind/ or BAIL_OUT('valgrind is not installed: make test installs it');

my $dir = tempdir('oracle-cachegrind-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my $l1 = '32768,8,64'; # L1I and L1D: tools/insnprof/cachesim.h
my @events = qw(Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw);
# Both runs get the same environment: the program's start-up reads it and
# its size moves the stack.
my $env = 'env -i PATH=/usr/bin:/bin';

sub slurp { my ($p) = @_; open(my $f, '<', $p) or return ''; local $/; scalar <$f> }
sub summary { my ($text) = @_; my ($s) = $text =~ /^summary: ([\d ]+?)\s*$/m; [split ' ', $s // ''] }

for (['L2', '262144,4,64', ''], ['LLC', '8388608,16,64', '--llc-as-l2']) {
	my ($level, $ll, $flag) = @$_;
	my $cg = "$dir/cachegrind.$level.out";
	system("$env valgrind -q --tool=cachegrind --cache-sim=yes --I1=$l1 --D1=$l1 --LL=$ll "
	       . "--cachegrind-out-file=$cg build/bin/cachepat 2>$dir/cg.err");
	is($?, 0, "$level: cachegrind runs the program") or diag(slurp("$dir/cg.err"));
	my $c = slurp($cg);
	my @desc = $c =~ /^desc: (\S+) cache:\s+(\d+) B, (\d+) B, (\d+)-way associative$/mg;
	my ($lsize, $lways) = split /,/, $ll;
	is("@desc", "I1 32768 64 8 D1 32768 64 8 LL $lsize 64 $lways",
	   "$level: cachegrind simulated the model's L1s and its $level ($lsize bytes, $lways ways) as LL");
	like($c, qr/^events: @events\s*$/m, "$level: cachegrind's events");

	my $out = `bash -c 'set -o pipefail; $env valgrind --tool=lackey --trace-mem=yes --log-fd=3 build/bin/cachepat 3>&1 >/dev/null 2>$dir/lk.err | build/bin/cachesim-trace $flag'`;
	is($?, 0, "$level: lackey's trace of the same run through the model") or diag(slurp("$dir/lk.err"));
	my ($want, $got) = (summary($c), summary($out));
	my %w = map { $events[$_] => $want->[$_] } 0 .. $#events;
	ok(($w{Ir} // 0) > 1_000_000 && ($w{D1mr} // 0) > 400_000 && ($w{DLmr} // 0) > 100_000,
	   "$level: cachegrind counted $w{Ir} fetches, $w{D1mr} D1 and $w{DLmr} LL read misses");
	is($got->[0], $want->[0], "$level: the trace has every instruction cachegrind counted");
	is_deeply({ map { $events[$_] => $got->[$_] } 0 .. $#events }, \%w,
		  "$level: the model's misses at each level, fetches, loads and stores, are cachegrind's")
		or diag("cachegrind: @$want\nthe model:  @$got");

	# The model counts a miss a line, cachegrind an access: they part on an
	# access that crosses a line and misses both (instructions only here:
	# cachepat's data accesses are aligned).
	my ($li, $ld, $l2) = $out =~ /^lines: (\d+) (\d+) (\d+)$/m;
	ok(defined $li && $li >= $w{I1mr} && $li - $w{I1mr} < 20,
	   "$level: the model's L1I misses a line, $li, against $w{I1mr} fetches that missed");
	is($ld, $w{D1mr} + $w{D1mw}, "$level: L1D: one line an access");
}

done_testing();
