#!/usr/bin/perl
# Test 31: the ring-3 programs in the guest, on the real kernel.
#
#  1. Boot with init=/bin/utest: every line of its TAP becomes one test
#     here (system calls checked inside the guest, bad pointers, faults,
#     the spawn limit, two processes interleaved under the tick); the plan
#     must be complete and the machine must shut down with success.
#  2. Every process that t-fault provokes is reported killed by the kernel
#     with its pid, program and status 128 + signal (docs/USERLAND.md),
#     then its user stack: frame #0 is the faulting rip, and where the
#     fault was in t-fault's own code, tools/symbolise-kills names the
#     frames down to main, stitch_start and _start. A kill by kill() gets
#     its user stack too (abort(): kill(), _kill_r, abort, 12 abort_deep
#     frames, main, stitch_start, _start; t-proc's kill of a child).
#  3. No leak: the free page count after every process has exited equals
#     the count before init started.
#  4. Boot with init=/bin/demo: all workloads run at once and print the
#     checksums that their native host build printed.
use strict;
use warnings;
use File::Temp qw(tempdir);
use Test::More;

my $KERNEL   = 'build/kernel/kernel.elf';
my $EXPECTED = 'build/userland/expected-checksums.txt';

my $dir = tempdir(CLEANUP => 1);

# Boot with a command line; (console lines without CRs, qemu-run status).
# @opts: more qemu-run options.
sub boot {
	my ($cmdline, $timeout, @opts) = @_;
	my $log = "$dir/console.txt";
	unlink $log;
	# The console also goes to qemu-run's stdout: keep it out of our TAP.
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		open(STDOUT, '>', '/dev/null');
		exec('tools/qemu-run', @opts, '--cmdline', $cmdline, '--timeout', $timeout,
			'--serial', $log) or die "tools/qemu-run: $!";
	}
	waitpid($pid, 0);
	my $status = $? >> 8;
	open(my $f, '<', $log) or return ([], $status);
	my @lines = map { s/\r//gr } <$f>;
	chomp @lines;
	return (\@lines, $status);
}

# ---- 1. /bin/utest ----

# Under -icount: t-signal and t-time measure timers and sleeps against
# the guest's clock, which a loaded host would otherwise stretch.
my ($lines, $status) = boot('init=/bin/utest', 900, '--icount');
my ($plan) = map { /^1\.\.(\d+)$/ ? $1 : () } @$lines;
ok(defined $plan && $plan >= 20, 'utest announced its plan (' . ($plan // 'none') . ')')
	or diag(join("\n", @$lines[-40 .. -1]));
my %seen;
for (@$lines) {
	next unless /^(not )?ok (\d+) - (.*)$/;
	$seen{$2} = 1;
	ok(!$1, "guest: $3");
}
is(scalar(keys %seen), $plan // -1, 'every planned in-guest test reported');
is($status, 0, 'init=/bin/utest: the machine shut down with success');

# ---- 2. the kernel's kill reports ----

my $console = join("\n", @$lines);
for (@$lines) {
	next unless /^# t-fault: (\S+): pid (\d+) status \S+ \(want signal (\d+)\)/;
	my ($mode, $pid, $sig) = ($1, $2, $3);
	my $status = 128 + $sig;
	like($console, qr{pid $pid \(/bin/t-fault\) killed: .*status $status\b},
		"kernel reports pid $pid ($mode) killed with status $status");
}

# The user stacks, symbolised on the host from the full ELF files.
my @sym = `tools/symbolise-kills build/userland/root $dir/console.txt`;
is($? >> 8, 0, 'symbolise-kills found every file the kill reports name');
my (%rip, %stack, %stop, $who);
for (@sym) {
	if (/^stitch: pid (\d+) \(\/bin\/t-fault\) killed: .* rip=0x([0-9a-f]+)/) {
		$rip{$1} = hex $2;
	} elsif (/^stitch: pid (\d+) user stack \(\d+ frames, stop (\w+)\):/) {
		($who, $stop{$1}) = ($1, $2);
	} elsif ($who && /^  #(\d+) 0x([0-9a-f]+)(?: in (\S+))?/) {
		push @{$stack{$who}}, [hex $2, $3 // '?'];
	}
}
my @in_text = grep { $stack{$_} && $stack{$_}[0][1] !~ /^\?/ } sort keys %rip;
is(scalar(grep { !$stack{$_} } keys %rip), 0, 'every t-fault kill report comes with a user stack');
is(scalar(grep { $stack{$_} && $stack{$_}[0][0] != $rip{$_} } keys %rip), 0,
   '... whose frame #0 is the rip the kill reports');
cmp_ok(scalar(@in_text), '>=', 8, 'at least 8 of them fault inside t-fault\'s code');
for my $pid (grep { $stop{$_} eq 'end' } @in_text) {
	my @names = map { $_->[1] } @{$stack{$pid}};
	is_deeply([@names[-3 .. -1]], [qw(main stitch_start _start)],
		  "pid $pid: the stack from $names[0] ends in main, stitch_start, _start")
		or diag("@names");
}

# Every kill, by a fault or by kill() (t-proc kills a child, t-fault's
# abort() kills itself), is followed by its user stack.
my @kills = $console =~ /^stitch: pid (\d+) \(\S+\) killed: .*\n(?!stitch: pid \1 user stack )/mg;
is(scalar(@kills), 0, 'every kill report is followed by its user stack')
	or diag("pids without one: @kills");
ok($console =~ /^stitch: pid \d+ \(\/bin\/t-proc\) killed: kill\(9\) by pid \d+ .*\nstitch: pid \d+ user stack /m,
   '... a kill() by another process too');
# abort(): SIGABRT by a kill() of itself, 12 frames of abort_deep deep; the
# kill does not cut the report's unwind (it ends the profiler's).
my ($abort) = grep { $stack{$_} && grep { $_->[1] eq 'abort' } @{$stack{$_}} } sort keys %rip;
my @anames = $abort ? map { $_->[1] } @{$stack{$abort}} : ();
# (Frame #0 is the system call in kill(), whose innermost inlined
# function addr2line names first.)
is_deeply([@anames[1 .. $#anames]],
	  [qw(_kill_r abort), ('abort_deep') x 12, qw(main stitch_start _start)],
	  't-fault abort: killed with its whole user stack, kill() to _start (stop ' . ($abort ? $stop{$abort} : '?') . ')')
	or diag("@anames");
is($abort ? $stop{$abort} : '', 'end', '... the unwind reached its end');

# ---- 3. no leak ----

my ($before, $after) = $console =~ /free pages before init (\d+), after init (\d+)/;
ok(defined $before, 'the kernel reports free pages before and after init')
	or diag('no line "free pages before init N, after init M"');
is($after, $before, 'every page is free again after all processes exited') if defined $before;

# ---- 4. /bin/demo ----

($lines, $status) = boot('init=/bin/demo', 600);
is($status, 0, 'init=/bin/demo: every workload exited 0');
my $got = join('', map { "$_\n" } sort grep { /^\w+: .*checksum=/ } @$lines);
my $want = do { local $/; open(my $f, '<', $EXPECTED) or die "$EXPECTED: $!"; <$f> };
is($got, $want, 'the workloads print the checksums of their native host build');

done_testing();
