#!/usr/bin/perl
# Stitching: samples ending in USER_DEFERRED get the user callchain of the
# deferred record with the same (tid, cookie) of the same process
# incarnation; everything that does not line up is counted.
use strict;
use warnings;
no warnings 'portable';
use FindBin;
use lib "$FindBin::Bin/../stitch";
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Test::More;
use Stream;
use Scenario;
use Check;

my $d = load_snaps(build_dir() . '/snaps-static.txt');
my ($sort, $fib) = @{$d->{snaps}}[0, 1];
my $m = $d->{maps}[0];
my $ks = symbols(kernel_elf());
my @nmi = ($ks->{nmi_handler} + 4, $ks->{do_nmi} + 5);
my @sys = ($ks->{copy_to_user} + 4, $ks->{sys_write} + 5);

my @kernel = (rec_mmap(pid => 0, start => $ks->{nmi_handler}, len => 0x100,
		       flags => MMAP_KERNEL, path => '/boot/kernel.elf'));
sub proc {
	my ($pid, $name, $t) = @_;
	return (rec_comm(time => $t, pid => $pid, name => $name),
		rec_mmap(time => $t, pid => $pid, start => $m->{start},
			 len => $m->{end} - $m->{start}, pgoff => $m->{pgoff},
			 path => guest_path($m->{path})));
}
sub ksample {
	my ($t, $pid, $cookie, @k) = @_;
	rec_sample(time => $t, pid => $pid, ips => [PERF_CONTEXT_KERNEL, @k,
						    PERF_CONTEXT_USER_DEFERRED, $cookie]);
}
sub usample {
	my ($t, $pid, $cookie, $snap) = @_;
	rec_sample(time => $t, pid => $pid, flags => SAMPLE_USER, ip => $snap->{chain}[0],
		   ips => [PERF_CONTEXT_USER_DEFERRED, $cookie]);
}
sub deferred {
	my ($t, $pid, $cookie, $snap, %x) = @_;
	rec_deferred(time => $t, pid => $pid, cookie => $cookie,
		     ips => [PERF_CONTEXT_USER, @{$snap->{chain}}], %x);
}
sub addrs { my ($s) = @_; [map { $_->{addr} // 'missing' } @{$s->{frames}}] }
sub case { run_case(stream(rec_stream(), @kernel, @_), '--symfs', symfs()) }

# Five samples in one kernel entry share one cookie and one deferred record.
my $r = case(proc(2, 'capture', 1), (map { ksample(10 + $_, 2, 0x100000001, @nmi) } 0 .. 4),
	     deferred(20, 2, 0x100000001, $sort));
is($r->{counters}{samples_stitched}, 5, 'five samples sharing a cookie: all stitched');
is($r->{counters}{deferred}, 1, '... from one deferred record');
is_deeply([map { addrs($_) } @{$r->{script}}], [map { [@nmi, @{$sort->{chain}}] } 0 .. 4],
	  '... each gets its kernel frames, then exactly the deferred user frames');

# The deferred record may come first (another CPU's buffer drained earlier).
$r = case(proc(2, 'capture', 1), deferred(5, 2, 9, $sort), ksample(10, 2, 9, @sys));
is($r->{counters}{samples_stitched}, 1, 'deferred record before its sample in the stream: stitched');

# A deferred record that never arrived.
$r = case(proc(2, 'capture', 1), ksample(10, 2, 7, @sys), usample(11, 2, 8, $fib),
	  deferred(12, 2, 8, $fib));
is($r->{counters}{samples_missing}, 1, 'sample whose deferred record never came: counted');
is_deeply(addrs($r->{script}[0]), [@sys, 'missing'], '... keeps its kernel frames, user part marked missing');
like($r->{text}, qr/\[user stack missing\] \(cookie 0x7\)/, '... the listing names the lost cookie');
like($r->{folded}, qr/^capture;\[user stack missing\];sys_write_\[k\];copy_to_user_\[k\] 1$/m,
     '... the folded stack has the marker between process and kernel frames');
is_deeply(addrs($r->{script}[1]), $fib->{chain}, '... the other sample is untouched');

# Two deferred records for one (tid, cookie): the first stands.
$r = case(proc(2, 'capture', 1), usample(10, 2, 5, $sort), deferred(11, 2, 5, $sort),
	  deferred(12, 2, 5, $fib));
is($r->{counters}{deferred_duplicate}, 1, 'duplicate deferred record: counted');
is_deeply(addrs($r->{script}[0]), $sort->{chain}, '... the sample keeps the first one\'s chain');
is($r->{counters}{deferred_orphan}, 0, '... and the duplicate is not also an orphan');

# The sampler and the tracer asked in one entry: one unwind, a record each
# (consumer 0 and 1), neither a duplicate.
$r = case(proc(2, 'capture', 1), usample(10, 2, 5, $sort), deferred(11, 2, 5, $sort),
	  deferred(12, 2, 5, $sort, consumer => 1));
is($r->{counters}{deferred_duplicate}, 0, 'records of two consumers for one cookie: no duplicate');
is_deeply(addrs($r->{script}[0]), $sort->{chain}, '... the sample is stitched');
is($r->{counters}{deferred_orphan}, 0, '... and the second record is no orphan');

# A deferred record no sample asked for.
$r = case(proc(2, 'capture', 1), usample(10, 2, 5, $sort), deferred(11, 2, 5, $sort),
	  deferred(12, 2, 6, $fib));
is($r->{counters}{deferred_orphan}, 1, 'orphan deferred record: counted');

# Same cookie, different thread: no match across tids.
$r = case(proc(2, 'capture', 1), proc(3, 'other', 1), usample(10, 2, 5, $sort),
	  deferred(11, 3, 5, $fib));
is($r->{counters}{samples_missing}, 1, 'cookie matched only within the same tid');
is($r->{counters}{deferred_orphan}, 1, '... the other thread\'s record stays an orphan');

# A pid reused after exit, and the same cookie value in both lives (a
# per-task counter would do that): each life only sees its own records.
$r = case(proc(5, 'first', 1), usample(10, 5, 1, $sort), rec_exit(time => 12, pid => 5),
	  proc(5, 'second', 20), usample(21, 5, 1, $fib), deferred(22, 5, 1, $fib));
is($r->{counters}{samples_stitched}, 1, 'tid reused after exit: the new life\'s sample stitched');
is($r->{counters}{samples_missing}, 1, '... the old life\'s sample does not take the new life\'s chain');
is_deeply([map { $_->{comm} } @{$r->{script}}], ['first', 'second'], '... and each keeps its own name');
is_deeply(addrs($r->{script}[1]), $fib->{chain}, '... the new life gets its own chain');
$r = case(proc(5, 'first', 1), usample(10, 5, 1, $sort), deferred(11, 5, 1, $sort),
	  rec_exit(time => 12, pid => 5), proc(5, 'second', 20), usample(21, 5, 1, $fib));
is_deeply([@{$r->{counters}}{qw(samples_stitched samples_missing deferred_duplicate)}], [1, 1, 0],
	  '... and the old life\'s record is no duplicate of, nor used for, the new life');

# An NMI in user mode whose deferred record is lost still knows its ip.
$r = case(proc(2, 'capture', 1), usample(10, 2, 7, $fib));
is_deeply(addrs($r->{script}[0]), [$fib->{chain}[0], 'missing'], 'user-mode sample, record lost: the ip, then the marker');

# Samples without any callchain: the ip stands for the stack, as in perf.
$r = case(proc(2, 'capture', 1), rec_sample(time => 10, pid => 2, flags => SAMPLE_USER, ip => $fib->{chain}[0]),
	  rec_sample(time => 11, pid => 2, ip => $nmi[0]));
is_deeply([map { addrs($_) } @{$r->{script}}], [[$fib->{chain}[0]], [$nmi[0]]],
	  'samples with no callchain: their ip, user or kernel by the sample\'s flags');
is_deeply([map { $_->{frames}[0]{name} } @{$r->{script}}], ['fib', 'nmi_handler'], '... symbolized as such');
is($r->{counters}{samples_ip_only}, 2, '... and counted');

# Samples of pid 0 that no REC_COMM named belong to the kernel itself.
$r = case(rec_sample(time => 10, pid => 0, ips => [PERF_CONTEXT_KERNEL, @nmi]));
is($r->{script}[0]{comm}, 'kernel', 'pid 0 without a REC_COMM is named "kernel"');
$r = case(rec_sample(time => 10, pid => 9, ips => [PERF_CONTEXT_KERNEL, @nmi]));
is($r->{script}[0]{comm}, ':9', 'another pid without a REC_COMM is named ":<pid>", as perf does');

# A deferred record stamped after its task's REC_EXIT (task-exited unwind).
$r = case(proc(5, 'late', 1), usample(10, 5, 1, $sort), rec_exit(time => 12, pid => 5),
	  deferred(13, 5, 1, $sort, stop => 6));
is($r->{counters}{samples_stitched}, 1, 'deferred record after the task\'s exit: still its own');

# Damaged deferred information.
$r = case(proc(2, 'capture', 1), usample(10, 2, 0, $sort), deferred(11, 2, 0, $sort));
is($r->{counters}{cookie_zero}, 2, 'cookie 0 (never valid) counted in sample and record');
is($r->{counters}{samples_missing}, 1, '... and never matched');
$r = case(proc(2, 'capture', 1), rec_sample(time => 10, pid => 2, ips => [PERF_CONTEXT_USER_DEFERRED]));
is($r->{counters}{bad_callchain}, 1, 'USER_DEFERRED without a cookie: a bad callchain');
is($r->{counters}{samples_missing}, 1, '... and a missing user stack');
$r = case(proc(2, 'capture', 1),
	  rec_sample(time => 10, pid => 2, ips => [PERF_CONTEXT_USER_DEFERRED, 3, PERF_CONTEXT_KERNEL, @nmi]),
	  deferred(11, 2, 3, $sort));
is($r->{counters}{bad_callchain}, 1, 'entries after the cookie: a bad callchain, counted');
is($r->{counters}{samples_stitched}, 1, '... the cookie still honoured');
$r = case(proc(2, 'capture', 1), usample(10, 2, 4, $sort),
	  deferred(11, 2, 4, $sort, stop => 3, ips => [PERF_CONTEXT_USER, @{$sort->{chain}}[0, 1]]));
is($r->{counters}{deferred_incomplete}, 1, 'deferred unwind that stopped early (no-info): counted');
is(scalar @{$r->{script}[0]{frames}}, 2, '... its partial chain still used');
like($r->{report}, qr/^\s+no-info\s+1$/m, '... and the report counts stops by reason');

# Modes without deferral: the user part comes with the sample.
$r = run_case(stream(rec_stream(mode => MODE_FP), @kernel, proc(2, 'capture', 1),
		     rec_sample(time => 10, pid => 2, ips => [PERF_CONTEXT_KERNEL, @nmi,
							      PERF_CONTEXT_USER, @{$sort->{chain}}])),
	      '--symfs', symfs());
is_deeply(addrs($r->{script}[0]), [@nmi, @{$sort->{chain}}], 'fp mode: inline user chain kept as is');
is($r->{counters}{samples_deferred}, 0, '... nothing to stitch');

done_testing();
