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
use strict;
use warnings;
use FindBin;

chdir "$FindBin::Bin/../.." or die "chdir: $!";
my @esp = $ENV{STITCH_ESP} ? ('--esp', $ENV{STITCH_ESP}) : ();
my @extra = split ' ', $ENV{QEMU_RUN_ARGS} // '';
my $cmdline = $ENV{KTEST_CMDLINE} // 'ktest';
$cmdline .= ' ktest.timing=off' unless grep { $_ eq '--icount' } @extra;
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
		push @seen, $num;
		$n++;
		print $ok ? 'ok' : 'not ok', " $n - kernel: $name",
		      defined $skip ? " # SKIP $skip" : '', "\n";
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
