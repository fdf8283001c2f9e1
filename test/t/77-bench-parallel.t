#!/usr/bin/perl
# make bench boots its plan side by side (--jobs, BENCH_JOBS): each boot is
# a pure function of the kernel, the initrd and its command line, so the
# results must not depend on how many boots run at once. The tiny
# configuration (/bin/chain 8 300, modes none and sframe) with one worker
# and with two: results.json identical but for its wall-clock fields
# ("wall"), which must be there (each boot's time in QEMU and in stitch),
# the tables and every stream byte-identical, each boot in a directory
# of its own.
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Digest::SHA;
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;
use lib "$FindBin::Bin/../bench";
use BenchRun qw(@DRIVER slurp build_id);

my $dir = tempdir('bench-par-XXXXXX', TMPDIR => 1, CLEANUP => !$ENV{BENCH_KEEP_TMP});
my @driver = (@DRIVER, '--config', 'tiny', '--parts', 'modes');
my $before = build_id();

my %out;
for my $jobs (1, 2) {
	$out{$jobs} = `@driver --jobs $jobs --out $dir/j$jobs 2>&1`;
	is($?, 0, "$jobs worker(s): the driver exits 0") or diag($out{$jobs});
}
like($out{2}, qr/^  \[2\/2 \d+:\d\d, left ~0:00\] suite-\S+: \d+ samples, QEMU [\d.]+ s, stitch [\d.]+ s$/m,
     'the progress line: done/planned, elapsed, time left, and where the boot\'s time went');

my %r = map { $_ => decode_json(slurp("$dir/j$_/results.json") // '{}') } 1, 2;
for my $jobs (1, 2) {
	my $w = $r{$jobs}{wall} // {};
	is($w->{jobs}, $jobs, "$jobs worker(s): results.json says how many");
	my @b = sort keys %{$w->{boots} // {}};
	is("@b", 'suite-none suite-sframe', "$jobs worker(s): a wall time for each boot");
	ok(!grep({ !($w->{boots}{$_}{qemu_s} > 0 && defined $w->{boots}{$_}{stitch_s}) } @b),
	   "$jobs worker(s): each boot's seconds in QEMU and in stitch");
}

SKIP: {
	skip 'the kernel or the initrd was rebuilt during the test: run it again', 6
		if build_id() ne $before;
	my $canon = JSON::PP->new->canonical;
	my ($a, $b) = map { my %x = %{$r{$_}}; delete $x{wall}; $canon->encode(\%x) } 1, 2;
	ok(length $a > 1000 && $a eq $b, 'results.json: identical with one worker and two, wall-clock fields apart')
		or diag(`diff $dir/j1/results.json $dir/j2/results.json`);
	for my $f ('results.csv', 'tables.md') {
		my ($x, $y) = (slurp("$dir/j1/$f"), slurp("$dir/j2/$f"));
		ok(defined $x && length $x && $x eq ($y // ''), "$f: identical");
	}
	for my $n ('suite-none', 'suite-sframe') {
		my ($x, $y) = (slurp("$dir/j1/runs/$n/records.bin"), slurp("$dir/j2/runs/$n/records.bin"));
		ok(defined $x && length $x && $x eq ($y // ''), "$n: its own directory, the same stream ("
		   . length($x // '') . ' bytes)');
	}
	is(Digest::SHA->new(256)->add(slurp("$dir/j2/runs/suite-sframe/records.bin") // '')->hexdigest,
	   $r{2}{boots}{'suite-sframe'}{records_sha256}, 'results.json names each boot\'s stream by its SHA-256');
}

# Real numbers, not two empty runs that agree.
my %row = map { $_->{mode} => $_ } @{$r{2}{modes}{rows} // []};
ok(($row{sframe}{samples} // 0) >= 10 && ($row{sframe}{unwind_cycles_per_sample} // 0) > 0,
   "sframe: $row{sframe}{samples} samples, deferred unwinds that cost cycles");

# A boot that fails stops the run, its exit status says so, and no
# results.json is written (here QEMU "fails" at once: qemu-run is false).
my @failing = map { $_ eq 'tools/qemu-run' ? '/bin/false' : $_ } @driver;
my $bad = `@failing --jobs 2 --out $dir/fail 2>&1`;
isnt($?, 0, 'a failed boot: the driver exits non-zero');
like($bad, qr/guest failed \(qemu-run exit 1\)/, '... saying which boot failed and how');
ok(!-e "$dir/fail/results.json", '... and writes no results.json');
my $zero = `@driver --jobs 0 --out $dir/j0 2>&1`;
isnt($?, 0, '--jobs 0: refused');

# How many side by side without --jobs: BENCH_JOBS, else N of a `make -jN`
# that runs the driver (GNU make puts -jN in MAKEFLAGS), else the cores.
sub jobs_default {
	my ($env) = @_;
	local %ENV = %ENV;
	delete @ENV{qw(BENCH_JOBS MAKEFLAGS)};
	%ENV = (%ENV, %$env);
	my $n = `python3 -c 'import sys; sys.dont_write_bytecode = True; sys.path.insert(0, "tools/bench"); import bench; print(bench.jobs_default())'`;
	chomp $n;
	return $n;
}
chomp(my $cores = `nproc`);
is(jobs_default({}), $cores, "no BENCH_JOBS, no make -jN: the $cores cores");
is(jobs_default({MAKEFLAGS => ' -j3 --jobserver-auth=3,4'}), 3, 'make -j3: 3');
is(jobs_default({MAKEFLAGS => ' -j --jobserver-auth=3,4'}), $cores, 'make -j without N: the cores');
is(jobs_default({MAKEFLAGS => ' -j3', BENCH_JOBS => 5}), 5, 'BENCH_JOBS=5 before make\'s -j3');

done_testing();
