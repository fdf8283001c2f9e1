#!/usr/bin/perl
# The in-kernel unit tests: boots with `ktest` and turns the kernel's KTAP
# report into TAP, one line per kernel test. Fails if the VM's exit status
# is not success, or if a test announced by "1..N" is missing or failed.
# STITCH_ESP=IMG boots another ESP image (default build/esp.img);
# KTEST_CMDLINE replaces the command line (default "ktest"), e.g. "ktest=vm".
# QEMU_RUN_ARGS adds tools/qemu-run options, e.g. "--direct --icount"
# (test/t/07-boot-direct.t runs this test that way). Without --icount the
# guest runs on the host's wall clock, where a loaded host delivers timer
# ticks late: the tests that hold rates against the clock are then skipped
# (ktest.timing=off, kern/lib/ktest.h) and run under --icount by test 07.
# A kernel test may skip only where the table below says this boot cannot
# run it (and another test boots it the way it needs); any other skip
# fails, and so does one of those tests running where it should skip.
use strict;
use warnings;
use FindBin;

chdir "$FindBin::Bin/../.." or die "chdir: $!";
my @esp = $ENV{STITCH_ESP} ? ('--esp', $ENV{STITCH_ESP}) : ();
my @extra = split ' ', $ENV{QEMU_RUN_ARGS} // '';
my $cmdline = $ENV{KTEST_CMDLINE} // 'ktest';
$cmdline .= ' ktest.timing=off' unless grep { $_ eq '--icount' } @extra;
my ($direct, $icount) = map { my $o = $_; scalar grep { $_ eq $o } @extra } qw(--direct --icount);
my ($cpus) = "@extra" =~ /--cpus[ =](\d+)/;
$cpus //= $ENV{STITCH_CPUS} || 1;
my $has = sub { scalar $cmdline =~ /(?:^| )\Q$_[0]\E/ };
my $smp = [$cpus == 1, 'one CPU (boot with --cpus N)']; # test 13
my $timing = [$has->('ktest.timing=off'), 'ktest.timing=off: rates against a wall clock under emulation']; # test 07
# Each kernel test that may skip: [whether this boot cannot run it, its reason].
my %may_skip = (
	(map { $_ => $smp } qw(smp_every_cpu_online smp_nmi_on_own_ist_stack smp_timer_nmi_every_cpu
			     smp_irq_work_wait_other_cpu unwind_deferred_nmi_on_other_cpu
			     unwind_deferred_exit_with_work_on_other_cpu)),
	(map { $_ => $timing } qw(pit_tick_rate lapic_timer_periodic lapic_timer_calibration)),
	boot_pvh_page_tables => [!$direct, 'not booted through PVH'], # test 07
	watchdog_lockup_reported => [!$has->('ktest.lockup'), 'no ktest.lockup on the command line'], # test 16
	sample_busy_loop => [!$has->('profile.busy='), 'no profile.busy= on the command line'], # test 40
	trap_fault_injection => [!$has->('ktest.fault='), 'no ktest.fault= on the command line'], # test 11
	unwind_deferred_sampler_and_tracer => [scalar $cmdline =~ /(?:^| )profile\.mode=(?!sframe\b)/,
					       'profile.mode is not sframe'],
);

my @log = `tools/qemu-run @esp @extra --timeout 300 --cmdline '$cmdline' 2>&1`;
my $status = $? >> 8;
s/\r?\n\z// for @log;

my ($n, $planned, $header, @seen) = (0, undef, 0);
sub tap { my ($ok, $name) = @_; $n++; print $ok ? "ok $n - $name\n" : "not ok $n - $name\n"; $ok ? 1 : 0 }

for (@log) {
	if (/^KTAP version 1$/) { $header = 1 }
	elsif ($header && !defined $planned && /^1\.\.(\d+)$/) { $planned = $1 }
	elsif (defined $planned && /^(not ok|ok) (\d+) (\S+)(?: # SKIP (.*))?$/) {
		my ($ok, $num, $name, $skip) = ($1 eq 'ok', $2, $3, $4);
		my ($cannot, $why) = @{$may_skip{$name} // [0, '']};
		push @seen, $num;
		$n++;
		if (defined $skip && !($cannot && $skip eq $why)) {
			print "not ok $n - kernel: $name skipped where it should run ($skip)\n";
		} elsif (!defined $skip && $cannot) {
			print "not ok $n - kernel: $name ran where it should skip ($why)\n";
		} else {
			print $ok ? 'ok' : 'not ok', " $n - kernel: $name",
			      defined $skip ? " # SKIP $skip" : '', "\n";
		}
	}
	elsif (defined $planned && /^# /) { print "$_\n" }
}

my $good = tap($header, 'the kernel printed a KTAP header');
$good &= tap(defined $planned && $planned > 0, 'the kernel announced its tests (1..N, N > 0)');
my $in_order = defined $planned && "@seen" eq join(' ', 1 .. $planned);
$good &= tap($in_order, 'every announced kernel test reported, in order (' .
	     scalar(@seen) . ' of ' . ($planned // '?') . ')');
$good &= tap($status == 0, "the VM shut down with success (qemu-run exit $status)");
unless ($good) {
	my $from = @log > 60 ? @log - 60 : 0;
	print "# the console's last lines:\n", map { "#   $_\n" } @log[$from .. $#log];
}
print "1..$n\n";
