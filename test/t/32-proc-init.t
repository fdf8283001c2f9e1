#!/usr/bin/perl
# Test 32: the first process, as the kernel sees it (docs/PROCESSES.md).
#
#  1. init= names a missing file, then a file that is no ELF: the kernel
#     says why it cannot start it (-ENOENT, -ENOEXEC) and shuts down with
#     failure instead of hanging.
#  2. init.args=a,b reaches init as argv[1], argv[2]; init's exit status is
#     reported and decides the verdict.
#  3. init itself killed by a fault: the kill report names pid 1, the
#     kernel survives, reaps it, frees every page, and fails the boot.
#  4. init exits 0 leaving processes behind that never end by themselves
#     (t-proc orphan-*): a CPU-bound orphan, a tree of 15 of them, one
#     blocked for ever in a pipe read; and 120 short-lived orphans, more
#     than the process table holds, while a CPU-bound process runs. The
#     kernel kills each remaining one ("init exited", SIGKILL), reaps
#     them all, frees every page and shuts down with success.
use strict;
use warnings;
use File::Temp qw(tempdir);
use Test::More;

my $dir = tempdir(CLEANUP => 1);

# Boots with a command line; returns (console text without CRs, qemu-run status).
sub boot {
	my ($cmdline, @opts) = @_;
	my $log = "$dir/console.txt";
	unlink $log;
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		open(STDOUT, '>', '/dev/null'); # the console copy: not our TAP
		exec('tools/qemu-run', '--cmdline', $cmdline, '--timeout', 120,
			'--serial', $log, @opts) or die "tools/qemu-run: $!";
	}
	waitpid($pid, 0);
	my $status = $? >> 8;
	open(my $f, '<', $log) or return ('', $status);
	local $/;
	return ((<$f> // '') =~ s/\r//gr, $status);
}

sub leak_free {
	my ($console, $what) = @_;
	my ($before, $after) = $console =~ /free pages before init (\d+), after init (\d+)/;
	ok(defined $before && $before == $after,
	   "$what: free pages before and after init are equal (" .
	   ($before // '?') . ', ' . ($after // '?') . ')');
}

# ---- 1. init that cannot start ----

my ($console, $status) = boot('init=/bin/no-such');
like($console, qr{stitch: cannot start init /bin/no-such: error 2\b},
     'a missing init is reported with ENOENT');
is($status, 1, 'a missing init: the machine shuts down with failure');

($console, $status) = boot('init=/data/hello.txt');
like($console, qr{stitch: cannot start init /data/hello\.txt: error 8\b},
     'an init that is no ELF is reported with ENOEXEC');
is($status, 1, 'a non-ELF init: the machine shuts down with failure');

# ---- 2. arguments and exit status ----

($console, $status) = boot('init=/bin/t-proc init.args=child-exit,42');
like($console, qr{stitch: init \(pid 1\) exited with status 42\b},
     'init.args reach init (t-proc child-exit 42 exits 42)');
is($status, 1, 'init exiting 42: the machine shuts down with failure');
leak_free($console, 'init exiting 42');

# ---- 3. init killed by a fault ----

($console, $status) = boot('init=/bin/t-fault init.args=child,null-write');
like($console,
     qr{stitch: pid 1 \(/bin/t-fault\) killed: page fault rip=0x[0-9a-f]+ addr=0x0 status 139\b},
     'the kernel reports init killed by its NULL write');
like($console, qr{stitch: init \(pid 1\) exited with status 139\b},
     'the killed init is reaped with status 128 + SIGSEGV');
is($status, 1, 'a killed init: the machine shuts down with failure');
leak_free($console, 'a killed init');

# ---- 4. orphans that never end by themselves ----

for my $case (['orphan-spin', 1], ['orphan-tree', 15], ['orphan-pipe', 1],
	      ['orphan-zombies', 1]) {
	my ($mode, $n) = @$case;
	($console, $status) = boot("init=/bin/t-proc init.args=$mode", '--direct');
	is($status, 0, "$mode: the machine shuts down with success");
	like($console, qr{stitch: init \(pid 1\) exited with status 0\b},
	     "$mode: init's exit status 0 is reported");
	my @pids = $console =~ /^t-proc: orphan pid (\d+)\r?$/mg;
	my @killed = grep { $console =~ m{^stitch: pid $_ \(/bin/t-proc\) killed: init exited rip=\S+ addr=\S+ status 137\b}m } @pids;
	is(scalar(@pids), $n, "$mode: $n processes left behind");
	is(scalar(@killed), $n, "$mode: each killed when init exited (SIGKILL)");
	leak_free($console, $mode);
}

done_testing();
