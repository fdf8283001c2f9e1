#!/usr/bin/perl
# Test 58: the SMP workloads under multi-threaded TCG (tools/qemu-run
# --parallel), where the 4 vCPUs run at once on host threads, as on
# hardware, and races can show; the short form of `make stress`
# (tools/stress, docs/SMP.md "Parallel runs"):
#
#   - the eight programs at once (/bin/bsuite -j, profile.hz=10000), six
#     boots, three of them with sched.migrate;
#   - the hostile suite once with sched.migrate;
#   - the load (32 processes, 4 s, 20 kHz, 16 KiB rings) twice, once with
#     sched.migrate.
#
# Each boot must end with success, its programs all ok, no panic or
# watchdog report, no page leaked, and its record stream's accounting
# whole (tools/recstream.py check: every NMI and lost record
# counted, every cookie answered exactly once). Speed is not checked: the
# host may be busy (tools/stress lists slow boots, this test does not fail
# on them).
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Test::More;

plan(skip_all => 'kernel or userland not built')
	unless -f 'build/kernel/kernel.elf' && -x 'build/userland/root/bin/bsuite'
	    && -x 'build/userland/root/bin/h-load' && -x 'build/bin/stitch';

my $keep = $ENV{STRESS_KEEP} // 'out/stress-t58';
for my $run (['bsuite', 'both', 6], ['hostile', 'on', 1], ['load', 'both', 2]) {
	my ($kind, $migrate, $boots) = @$run;
	my @out = `tools/stress --cpus 4 --kinds $kind --migrate $migrate --boots $boots --keep $keep 2>&1`;
	my $status = $? >> 8;
	my @boots = grep { /^stress: boot \d+ / } @out;
	is(scalar @boots, $boots, "$kind: $boots boots ran") or diag(join '', @out);
	for (@boots) {
		my ($what, $verdict) = /^stress: boot \d+ (\S+)\s+[\d.]+ s (.*)$/;
		is($verdict, 'ok', "$kind: $what: success, programs ok, no page leaked, stream whole, "
		   . 'every cookie answered once');
	}
	is($status, 0, "$kind: tools/stress exit status 0") or diag(join '', grep { /FAIL|\|/ } @out);
	diag(join '', grep { /^stress: (\S+\/4|kind)/ } @out);
}
done_testing();
