#!/usr/bin/perl
# Test 16: the lockup detector (kern/watchdog.c, docs/SMP.md "The
# watchdog"), as qemu-run reports it.
#
#  1. ktest.lockup (a kernel test that, with that switch only, has the last
#     of 2 CPUs spin with interrupts off, as ktest.fault= raises a fault):
#     the watchdog reports that CPU stuck, prints both CPUs' kernel stacks
#     (each from its own NMI) and the tasks, and ends the run: qemu-run
#     says failure (exit 1), and the test's own failure line (the spin
#     came back) is absent.
#  2. Bad watchdog.* values are a console line each and the default; the
#     boot (profile.mode=none: the watchdog's own NMIs on 2 CPUs, under
#     --parallel) runs its program and shuts down with success.
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Test::More;

plan(skip_all => 'kernel not built') unless -f 'build/kernel/kernel.elf';

sub boot {
	my ($cmdline, @args) = @_;
	my $log = `tools/qemu-run --direct --cpus 2 --timeout 300 @args --cmdline '$cmdline' 2>&1`;
	my $status = $? >> 8;
	$log =~ s/\r//g;
	return ($status, $log);
}

# ---- 1. a CPU spinning with interrupts off ----
my ($status, $log) = boot('ktest=watchdog_lockup ktest.lockup watchdog.irqoff_ms=300', '--icount');
is($status, 1, 'qemu-run reports the run ended with failure (exit 1)');
like($log, qr/^watchdog: cpu 1 stuck with interrupts off for more than 300 ms/m,
     'the watchdog names the stuck CPU and the bound');
for my $cpu (0, 1) {
	like($log, qr/^watchdog: cpu $cpu: pid -?\d+ \(\S*\), kernel mode, interrupts (on|off), ip 0x[0-9a-f]+\nbacktrace .*\n  #0 0x/m,
	     "cpu ${cpu}'s kernel stack is printed");
}
like($log, qr/^watchdog: cpu 1: .*interrupts off/m, 'cpu 1 was seen with interrupts off');
like($log, qr/^watchdog: run queue and tasks at \d+ ms:$/m, 'the tasks are listed');
like($log, qr/^panic: watchdog: cpu 1 locked up$/m, 'the run ends in a panic that says why');
like($log, qr/^stitch: shutdown \(failure\)$/m, 'the kernel shut down with failure');
unlike($log, qr/the watchdog did not end the run/, 'the spinning CPU never came back');
diag(join("\n", (split /\n/, $log)[-30 .. -1])) unless $status == 1;

# ---- 2. bad values: a line and the default, never a panic ----
($status, $log) = boot('init=/bin/fib init.args=24 profile.mode=none watchdog.irqoff_ms=banana '
		       . 'watchdog.runnable_ms=5 watchdog.hz=0', '--parallel');
is($status, 0, 'with bad watchdog.* values the boot still shut down with success');
like($log, qr/^cmdline: watchdog\.irqoff_ms=banana is not an integer in \[10, 3600000\]; using 10000$/m,
     'watchdog.irqoff_ms=banana: a console line, and the default');
like($log, qr/^cmdline: watchdog\.runnable_ms=5 is not an integer in \[10, 3600000\]; using 30000$/m,
     'watchdog.runnable_ms=5 (below the minimum): a console line, and the default');
like($log, qr/^cmdline: watchdog\.hz=0 is not an integer in \[1, 1000\]; using 10$/m,
     'watchdog.hz=0: a console line, and the default');
like($log, qr/^watchdog: interrupts off 10000 ms, runnable 30000 ms; checked in its own NMIs$/m,
     'the watchdog runs with the defaults, on its own NMIs (nothing samples)');
unlike($log, qr/^(panic|watchdog: cpu)/m, 'no panic, no report');
like($log, qr/^fib: n=24 /m, 'the program ran');
done_testing();
