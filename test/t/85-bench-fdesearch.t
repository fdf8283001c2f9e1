#!/usr/bin/perl
# make bench's fdesearch part (docs/BENCHMARKS.md, "FDE search, hot and
# cold") on the driver's tiny configuration: /bin/funcs-100000 beside
# /bin/evict on one CPU, the rule cache and the FDE index off, under the
# plugin's cost model; evict's buffer 4 KiB (hot) and 16 MiB (cold). Two
# boots of about 10 s each. The evictor must really evict: the same
# unwinds, the same instructions in them, the same programs' results, and
# yet the cold run's unwinds miss the last-level cache many times more
# often, and the modelled cycles follow.
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use File::Temp qw(tempdir);
use Test::More;

my $dir = tempdir('bench-fdesearch-XXXXXX', TMPDIR => 1, CLEANUP => !$ENV{BENCH_KEEP_TMP});
my @driver = ('python3', 'tools/bench/bench.py', '--config', 'tiny', '--parts', 'fdesearch',
	      '--qemu-run', 'tools/qemu-run', '--stitch', 'build/bin/stitch',
	      '--symfs', 'build/userland/root', '--kernel', 'build/kernel/kernel.elf',
	      '--initrd', 'build/initrd.cpio', '--insnprof', 'build/bin/insnprof.so', '--out', $dir);
my $out = `@driver 2>&1`;
is($?, 0, 'the driver ran the fdesearch part') or diag($out);

sub slurp { my ($p) = @_; open(my $f, '<', $p) or return ''; local $/; scalar <$f> }

# fdesearch.csv: one row per run, by the caches column.
my ($head, @lines) = split /\n/, slurp("$dir/fdesearch.csv");
my @keys = split /,/, $head // '';
my %row;
for (@lines) {
	my %r;
	@r{@keys} = split /,/;
	$row{$r{run}} = \%r;
}
my ($hot, $cold) = @row{qw(hot cold)};
ok($hot && $cold, 'fdesearch.csv has a hot and a cold row') or diag(slurp("$dir/fdesearch.csv"));
$_ //= {} for $hot, $cold;

# Both programs ran to their end, funcs-100000 with the same result.
my %sum;
for my $run (qw(hot cold)) {
	my $con = slurp("$dir/runs/fdesearch-100000-$run/console.txt");
	my ($f) = $con =~ /^funcs: functions=100000 rounds=\d+ checksum=(\w+)\r?$/m;
	my ($kib) = $con =~ /^evict: kib=(\d+) lines=\d+ checksum=\w+\r?$/m;
	ok(defined $f, "$run: funcs-100000 finished");
	is($kib, $run eq 'hot' ? 4 : 16384, "$run: evict finished with its buffer");
	$sum{$run} = $f // '';
}
is($sum{cold}, $sum{hot}, 'funcs-100000 computed the same both times');

# The same schedule: evict does the same work in either buffer.
ok($hot->{unwinds} >= 20, "hot: $hot->{unwinds} unwinds");
is($cold->{unwinds}, $hot->{unwinds}, 'as many unwinds cold as hot');
is($cold->{unwind_insns}, $hot->{unwind_insns}, 'the same instructions per unwind');
is($cold->{frames_per_unwind}, $hot->{frames_per_unwind}, 'the same frames per unwind');

# ... and yet the cold caches: a miss in the LLC for most lines the
# unwind reads (hot: the section's lines are still there).
cmp_ok($cold->{unwind_llc_miss}, '>=', 5 * $hot->{unwind_llc_miss} + 10,
       "LLC misses per unwind: cold $cold->{unwind_llc_miss}, hot $hot->{unwind_llc_miss}");
cmp_ok($cold->{unwind_l1d_miss}, '>', $hot->{unwind_l1d_miss}, 'more L1d misses cold');
cmp_ok($cold->{unwind_cycles}, '>', $hot->{unwind_cycles} + 100 * ($cold->{unwind_llc_miss} - $hot->{unwind_llc_miss}),
       "modelled cycles per unwind: cold $cold->{unwind_cycles}, hot $hot->{unwind_cycles}, "
       . 'more than 100 a further LLC miss');

done_testing();
