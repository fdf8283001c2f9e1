#!/usr/bin/perl
# stitch --stats FILE: the numbers tools/bench reads (records and bytes per
# type, stack-copy bytes, counters, user parts, truncated stacks, deferred
# records used, process lives and how far their stacks reached), checked
# against streams whose every byte this test knows: test/stitch's standard
# run in each mode, one stream made here with shared cookies, a truncated
# unwind and an orphan, and one whose chains end at _start or not.
use strict;
use warnings;
no warnings 'portable';
use FindBin;
use lib "$FindBin::Bin/../stitch";
BEGIN { chdir "$FindBin::Bin/../.." or die }
use JSON::PP;
use Test::More;
use Stream;
use Scenario;
use Check;

sub stats_of {
	my ($bytes, @args) = @_;
	my $dir = Stream::tmpdir();
	write_file("$dir/records.bin", $bytes);
	my ($st, $out, $err) = run_stitch(@args, '--stats', "$dir/stats.json", "$dir/records.bin");
	is($st, 0, 'stitch --stats exits 0') or diag($err);
	is($out, '', '... and prints no samples');
	return decode_json(read_file("$dir/stats.json"));
}

# Walk the stream as bytes: count and size per type, independently of stitch.
sub walk {
	my ($bytes) = @_;
	my %n;
	for (my $off = 0; $off < length $bytes;) {
		my ($t, $size) = unpack('VV', substr($bytes, $off, 8));
		$n{$t}{count}++;
		$n{$t}{bytes} += $size;
		$off += $size;
	}
	return \%n;
}

my @types = (undef, qw(stream comm mmap sample deferred exit lost stats end));

sub check_records {
	my ($s, $bytes, $what) = @_;
	my $n = walk($bytes);
	my (%want, %got, $total);
	for my $t (1 .. 9) {
		$want{$types[$t]} = [$n->{$t}{count} // 0, $n->{$t}{bytes} // 0];
		$got{$types[$t]} = [@{$s->{records}{$types[$t]}}{qw(count bytes)}];
		$total += $n->{$t}{bytes} // 0;
	}
	is_deeply(\%got, \%want, "$what: records and bytes per type as in the stream");
	is($s->{bytes_total}, $total, "$what: bytes_total $total = the stream's length");
	is($total, length $bytes, '... every byte');
}

# The standard run: 2 processes x 5 snapshots x 3 samples (one user-mode
# NMI with its own cookie, two NMIs in one system call sharing one), plus
# one idle sample.
my $run = build_run(mode => MODE_SFRAME);
my $s = stats_of($run->{bytes}, '--symfs', symfs());
check_records($s, $run->{bytes}, 'sframe');
is_deeply($s->{stream}, { mode => 'sframe', ncpus => 2, tsc_hz => 1e9, sample_hz => 1000,
			  max_frames => 64, ended => JSON::PP::true }, 'sframe: stream parameters');
is_deeply($s->{user_parts}, { none => 1, inline => 0, deferred => 30, stack_copy => 0, missing => 0 },
	  'sframe: 30 samples stitched from deferred records, the idle one has no user part');
is($s->{deferred_used}, 20, 'sframe: 20 deferred records served them (1.5 samples per unwind)');
is($s->{samples_truncated}, 0, 'sframe: no truncated stack');
# load_snaps reads with $_: keep it out of map and for.
sub all_snaps { my @s; for my $k ('static', 'dyn') { push @s, @{load_snaps(build_dir() . "/snaps-$k.txt")->{snaps}} } @s }
my $frames = 0;
$frames += 3 * @{$_->{chain}} for all_snaps();
is($s->{user_frames}, $frames, "sframe: user_frames = the true chains' frames ($frames)");
is($s->{kernel_frames}, 10 * (4 + 2) + 2, 'sframe: kernel_frames = the kernel chains (syscall 4, nmi 2, idle 2)');
is($s->{kernel}{nmi_count}, 31, 'sframe: REC_STATS counters by name');
is($s->{stitch}{samples_stitched}, 30, "sframe: stitch's own counters");
my %procs = map { $_->{comm} => $_ } @{$s->{processes}};
is_deeply([map { [@{$procs{$_}}{qw(pid samples)}] } qw(idle capture capture-dyn)], [[0, 1], [2, 15], [3, 15]],
	  'sframe: per process: pid and samples');
ok($procs{capture}{start} < $procs{capture}{exit} && $procs{capture}{exit} < $procs{'capture-dyn'}{start},
   'sframe: process lives in stream time, one after the other');
is($procs{idle}{exit}, undef, 'sframe: a process that never exited has exit null');

$run = build_run(mode => MODE_STACK_COPY);
$s = stats_of($run->{bytes}, '--symfs', symfs());
check_records($s, $run->{bytes}, 'stack-copy');
my $copy = 0;
for my $snap (all_snaps()) {
	$copy += 3 * (19 * 8 + length(Stream::pad8($snap->{stack})));
}
is($s->{bytes_stack_copy}, $copy, "stack-copy: bytes_stack_copy = registers, size and padded stacks ($copy)");
is($s->{user_parts}{stack_copy}, 30, 'stack-copy: 30 user parts from the copies');

$run = build_run(mode => MODE_FP);
$s = stats_of($run->{bytes}, '--symfs', symfs());
is($s->{user_parts}{inline}, 30, 'fp: 30 user parts inline in the samples');
is($s->{records}{deferred}{count}, 0, 'fp: no deferred records');

# Shared cookies, a truncated unwind and an orphan.
my @ips = (0x401000, 0x401100);
my $bytes = stream(
	rec_stream(mode => MODE_SFRAME),
	rec_comm(time => 10, pid => 7, name => 'w'),
	(map { rec_sample(time => 11 + $_, pid => 7, ips => [PERF_CONTEXT_KERNEL, 0xffffffff80001000,
							      PERF_CONTEXT_USER_DEFERRED, 5]) } 0 .. 2),
	rec_deferred(time => 15, pid => 7, cookie => 5, stop => 1, ips => [PERF_CONTEXT_USER, @ips]),
	rec_sample(time => 16, pid => 7, flags => SAMPLE_USER, ips => [PERF_CONTEXT_USER_DEFERRED, 6]),
	rec_deferred(time => 17, pid => 7, cookie => 6, ips => [PERF_CONTEXT_USER, @ips]),
	rec_deferred(time => 18, pid => 7, cookie => 9, stop => 2, ips => [PERF_CONTEXT_USER]),
	rec_exit(time => 20, pid => 7));
$s = stats_of($bytes);
check_records($s, $bytes, 'made here');
is_deeply($s->{deferred_stop}, { end => 1, 'max-frames' => 1, fault => 1, 'no-info' => 0, 'bad-sframe' => 0,
				 'bad-frame' => 0, 'task-exited' => 0, 'signal-frame' => 0,
				 budget => 0, killed => 0, unknown => 0 },
	  'made here: deferred records by stop reason');
is($s->{samples_truncated}, 3, 'made here: the 3 samples of the max-frames unwind are truncated');
is($s->{deferred_used}, 2, 'made here: 2 deferred records served the 4 samples, the orphan none');
is($s->{user_frames}, 8, 'made here: 4 samples x 2 user frames');
is_deeply($s->{processes}, [{ pid => 7, comm => 'w', start => 10, exit => 20, samples => 4, user_frames => 8,
				user_samples => 4, at_start => 0, has_main => 0, validated => 0, agree => 0 }],
	  'made here: the process life; without symbols no stack ends at _start or has main');

# How far each process's stacks reached (make bench's compat part):
# inline chains in a program whose symbols nm gives. Ends at _start and
# has main; has main but ends in main; has _start inside but ends
# elsewhere; a kernel-only sample, no user part.
my $sym = symbols(symfs() . '/bin/capture-static');
my ($start, $main, $other) = map { $sym->{$_} // die "no $_" } qw(_start main register_tm_clones);
$bytes = stream(
	rec_stream(mode => MODE_FP),
	rec_comm(time => 10, pid => 8, name => 'r'),
	rec_mmap(time => 11, pid => 8, start => 0x401000, len => 0x96000, pgoff => 0x1000,
		 path => '/bin/capture-static'),
	rec_sample(time => 12, pid => 8, flags => SAMPLE_USER, ips => [PERF_CONTEXT_USER, $main + 8, $start + 0x20]),
	rec_sample(time => 13, pid => 8, flags => SAMPLE_USER, ips => [PERF_CONTEXT_USER, $other + 4, $main + 8]),
	rec_sample(time => 14, pid => 8, flags => SAMPLE_USER, ips => [PERF_CONTEXT_USER, $other + 4, $start + 0x20,
									$other + 4]),
	rec_sample(time => 15, pid => 8, ips => [PERF_CONTEXT_KERNEL, 0xffffffff80001000]),
	rec_exit(time => 20, pid => 8));
$s = stats_of($bytes, '--symfs', symfs());
is_deeply([@{$s->{processes}[0]}{qw(samples user_samples at_start has_main)}], [4, 3, 1, 2],
	  'reach: 3 samples with a user stack, 1 ends at _start, 2 have main');

# validate: each process's compared and equal samples add up to stitch's.
$run = build_run(mode => MODE_VALIDATE);
$s = stats_of($run->{bytes}, '--symfs', symfs());
my %sum;
for my $p (@{$s->{processes}}) { $sum{$_} += $p->{$_} for qw(validated agree user_samples) }
is($sum{validated}, $s->{stitch}{validate_samples}, "validate: per process, $sum{validated} compared in all");
is($sum{agree}, $s->{stitch}{validate_agree}, "validate: per process, $sum{agree} equal in all");
is($sum{validated}, $sum{user_samples}, 'validate: every sample with a user stack was compared');

done_testing();
