#!/usr/bin/perl
# Test 83: load. LOAD_PROCS processes (32) of four kinds (userland/hostile/
# h-load.c: recursion, system calls, a pipe, memory churn) at 20 kHz
# sampling for LOAD_SECONDS of guest time, in one direct boot under
# -icount (guest time = instructions), so how much the rings drop depends on
# the guest alone, not on how busy the host is.
#
# `make test` runs 8 s with 16 KiB rings (LOAD_RING), small enough that
# the sampler must drop records, so that the accounting of losses is
# exercised; `make load` runs the long load, 60 s with the default 2 MiB rings.
#
# Checks: every process exited 0; no page leaked; the stream is whole;
# every loss is counted (samples_lost, records_lost = REC_LOST total; what
# the counters say was written and the stream lacks is at most what was
# lost); each unwind is counted by its stop reason; stitch reads the whole
# stream without an anomaly, names every process, and every sample that
# misses its user stack is explained by a counted loss.
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use File::Temp qw(tempdir);
use Test::More;
use JSON::XS;

my $procs = $ENV{LOAD_PROCS} // 32;
my $secs = $ENV{LOAD_SECONDS} // 8;
my $ring = $ENV{LOAD_RING} // 16;
my $hz = 20000;
my $dir = tempdir(CLEANUP => 1);

plan(skip_all => 'build/userland/root/bin/h-load is not built')
	unless -x 'build/userland/root/bin/h-load';

my $cmdline = "init=/bin/h-load init.args=$procs,$secs profile.mode=sframe "
	    . "profile.hz=$hz profile.ring=$ring";
my $t0 = time;
my $pid = fork() // die "fork: $!";
if ($pid == 0) {
	open(STDOUT, '>', '/dev/null');
	exec('tools/qemu-run', '--direct', '--icount', '--cmdline', $cmdline, '--timeout', 60 + 10 * $secs,
	     '--serial', "$dir/console.txt", '--records', "$dir/records.bin")
		or die "tools/qemu-run: $!";
}
waitpid($pid, 0);
my $status = $? >> 8;
my $wall = time - $t0;
my $console = do { local (@ARGV, $/) = "$dir/console.txt"; <> // '' };
$console =~ s/\r//g;

# ---- the guest ----
is($status, 0, "the machine shut down with success ($wall s wall)");
my ($started, $ok, $guest) = $console =~ /^# load: (\d+) processes started, (\d+) exited 0, ([\d.]+) s/m;
is($ok // -1, $procs, "$procs processes ran " . ($guest // '?') . " s of guest time and exited 0");
my ($before, $after) = $console =~ /free pages before init (\d+), after init (\d+)/;
ok(defined $after && $before == $after, 'free pages after all exited equal those before: '
   . ($before // '?') . ' / ' . ($after // '?'));

# ---- the stream and the counters (tools/recstream.py: the accounting every stream satisfies) ----
my @checks = map { /^(not )?ok - (.*)$/ ? [!$1, $2] : () } `tools/recstream.py check $dir/records.bin`;
ok(@checks >= 10, 'tools/recstream.py checked the stream\'s accounting');
ok($_->[0], $_->[1]) for @checks;
my $r = eval { decode_json(`tools/recstream.py summary $dir/records.bin exit`) } // { records => [] };
my $st = $r->{stats} // {};
my %exits = map { $_->{pid} => $_->{status} } grep { $_->{type} eq 'exit' } @{$r->{records}};
ok($st->{records_lost} > 0, "with $ring KiB rings at $hz Hz records were lost and counted "
   . "($st->{records_lost})") if $ring <= 64;
is(scalar(keys %exits), $procs + 1, "REC_EXIT for every process ($procs + init)");
ok(!grep({ $_ != 0 } values %exits), 'every REC_EXIT says exit status 0');

# ---- stitch ----
my $summary = `build/bin/stitch --symfs build/userland/root --kernel build/kernel/kernel.elf -o $dir/out $dir/records.bin 2>&1`;
is($?, 0, 'stitch processed the stream') or diag($summary);
my $report = do { local (@ARGV, $/) = "$dir/out/report.txt"; <> // '' };
my $named = () = $report =~ /^== h-load \(pid \d+\)/mg;
ok($named >= $procs, "report.txt has a section for each process ($named)");
diag(sprintf "load: %d processes, %s s guest, %d s wall, %d NMIs (%.0f/s), %d samples lost, "
     . "%d records lost, %d deferred records", $procs, $guest // '?', $wall, $st->{nmi_count},
     $st->{nmi_count} / ($guest || 1), $st->{samples_lost}, $st->{records_lost},
     $st->{deferred_records});
done_testing();
