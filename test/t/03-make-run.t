#!/usr/bin/perl
# Test 03: what `make run` promises a user, each through a real `make run`
# (its files go to a scratch OUT=).
#   1. A bad MODE, HZ, CPUS, ICOUNT, APP, ARGS or RUN_INIT stops make at
#      once (before building or booting: within seconds, no OUT created),
#      with one line naming the variable and what it takes, and a non-zero
#      status; good values pass the same checks.
#   2. ICOUNT=1: two runs of the same APP (a small program) write
#      byte-identical records.bin (and the run wrote its profile).
#   3. A run that produced no record stream (here QEMU itself fails: a
#      stand-in qemu-system-x86_64 first in PATH) exits non-zero, says so,
#      and leaves the previous run's files in OUT byte for byte.
#   4. MODE=validate ends with "validate: N of N samples agree", N the
#      numbers of report.txt's validate section; MODE=validate-eh likewise
#      (the deferred .eh_frame chain against libdw's).
#   5. MODE=fp on a program built without frame pointers (/bin/fib, the
#      SDK's flags) warns and names the APP_CFLAGS that fix it; on the same
#      program built with those flags (/bin/fib-fp, mk/bench.mk) it does not.
# At the end the tree is rebuilt without APP (make), so that the initrd is
# again what `make` builds.
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use File::Temp qw(tempdir);
use Time::HiRes qw(time);
use Test::More;

my $dir = tempdir('make-run-XXXXXX', TMPDIR => 1, CLEANUP => 1);
delete @ENV{qw(MAKEFLAGS MAKELEVEL MFLAGS MODE HZ CPUS ICOUNT APP APP_CFLAGS ARGS RUN_INIT)};
$ENV{LC_ALL} = 'C';

sub slurp { my ($p) = @_; open(my $f, '<:raw', $p) or return undef; local $/; scalar <$f> }

# make VARS... run: (exit status, output, seconds)
sub make_run {
	my (@vars) = @_;
	my $t = time;
	my $pid = open(my $fh, '-|') // die "fork: $!";
	if (!$pid) {
		open(STDERR, '>&', \*STDOUT);
		exec('make', '--no-print-directory', @vars, 'run') or die "make: $!";
	}
	local $/;
	my $out = <$fh> // '';
	close($fh);
	return ($? >> 8, $out, time - $t);
}

# ---- 1. bad variables ----
my %bad = (
	'MODE=bogus'          => qr/^mk\/run\.mk:\d+: \*\*\* make run: MODE=bogus is no mode: one of sframe fp fp-deferred stack-copy guess validate eh-frame validate-eh none\.  Stop\.$/,
	'HZ=999999'           => qr/^mk\/run\.mk:\d+: \*\*\* make run: HZ=999999 is not a number of samples per second from 100 to 20000\.  Stop\.$/,
	'HZ=1e3'              => qr/make run: HZ=1e3 is not a number/,
	'CPUS=0'              => qr/make run: CPUS=0 is not a number of CPUs from 1 to 8/,
	'CPUS=16'             => qr/make run: CPUS=16 is not a number of CPUs from 1 to 8/,
	'ICOUNT=yes'          => qr/make run: ICOUNT=yes: 1 \(guest time counts instructions\) or 0/,
	'APP=does-not-exist.c' => qr/make run: APP=does-not-exist\.c: no such file/,
	'APP=userland'        => qr/make run: APP=userland is a directory, not a C file/,
	'APP=README.md'       => qr/make run: APP=README\.md is not a C file/,
	'ARGS=a,b'            => qr/make run: ARGS="a,b": no commas/,
	'RUN_INIT=fib'        => qr/make run: RUN_INIT=fib: the path of a program in the initrd/,
);
for my $v (sort keys %bad) {
	my $out_dir = "$dir/never";
	my ($status, $out, $secs) = make_run($v, "OUT=$out_dir");
	my @lines = grep { length } split /\n/, $out;
	ok($status != 0 && @lines == 1 && $lines[0] =~ $bad{$v} && $secs < 20 && !-e $out_dir,
	   sprintf('make run %s: stops with one line and status %d in %.1f s, nothing booted', $v, $status, $secs))
		or diag($out);
}
{
	my @good = ('MODE=validate', 'HZ=20000', 'CPUS=8', 'ICOUNT=1', 'APP=userland/workloads/fib.c',
		    'ARGS=1 2', 'RUN_INIT=/bin/fib');
	my $out = `make --no-print-directory -n @good[0..3] '$good[4]' '$good[5]' run 2>&1`;
	ok($? == 0 && $out =~ /qemu-run --cpus 8 --direct --icount --cmdline "init=\/app\/fib init\.args=1,2 profile\.mode=validate profile\.hz=20000 profile\.summary=on"/,
	   'good values pass the checks (make -n run: the boot they ask for)') or diag($out);
}

# ---- 2. ICOUNT=1 repeats ----
my @app = ('ICOUNT=1', 'APP=userland/workloads/fib.c', 'ARGS=27');
my ($sa, $outa) = make_run(@app, "OUT=$dir/a");
my ($sb, $outb) = make_run(@app, "OUT=$dir/b");
my ($ra, $rb) = (slurp("$dir/a/records.bin"), slurp("$dir/b/records.bin"));
ok($sa == 0 && $sb == 0 && defined $ra && length $ra > 1000 && -s "$dir/a/report.txt",
   'ICOUNT=1: both runs pass and write their profile (' . length($ra // '') . ' bytes of stream)')
	or diag($outa, $outb);
like($outa, qr/^make run: booting directly under QEMU -icount with: init=\/app\/fib init\.args=27 /m,
     'ICOUNT=1 boots directly under -icount');
ok(defined $ra && defined $rb && $ra eq $rb, 'ICOUNT=1: the two runs wrote byte-identical records.bin');
my ($samples) = ($outa =~ /^stitch: (\d+) samples, (\d+) stitched/m);
ok(($samples // 0) > 0, 'the stream has samples (' . ($samples // 0) . ')');

# ---- 3. a run without a stream keeps the last one ----
{
	my %before = map { $_ => slurp("$dir/a/$_") } qw(records.bin console.txt report.txt perf.data);
	mkdir "$dir/fakebin" or die;
	open(my $f, '>', "$dir/fakebin/qemu-system-x86_64") or die;
	print $f "#!/bin/sh\necho 'qemu-system-x86_64: a stand-in that fails' >&2\nexit 1\n";
	close($f);
	chmod 0755, "$dir/fakebin/qemu-system-x86_64";
	local $ENV{PATH} = "$dir/fakebin:$ENV{PATH}";
	my ($status, $out) = make_run(@app, "OUT=$dir/a");
	ok($status != 0, "a run whose QEMU fails exits non-zero ($status)") or diag($out);
	like($out, qr/^make run: no record stream from this run: \Q$dir\E\/a\/ keeps the last run's files;/m,
	     'it says there was no stream and that OUT keeps the last run');
	my @changed = grep { !defined $before{$_} || (slurp("$dir/a/$_") // '') ne $before{$_} } sort keys %before;
	ok(!@changed, 'records.bin, console.txt, report.txt, perf.data are the last run\'s, byte for byte')
		or diag("changed: @changed");
}

# ---- 4. MODE=validate and MODE=validate-eh say their verdict ----
for my $mode ('validate', 'validate-eh') {
	my ($status, $out) = make_run('ICOUNT=1', 'RUN_INIT=/bin/fib', 'ARGS=30', "MODE=$mode", "OUT=$dir/$mode");
	my ($agree, $of) = $out =~ /^\Q$mode\E: (\d+) of (\d+) samples agree \(/m;
	my ($ragree, $rof) = (slurp("$dir/$mode/report.txt") // '') =~ /^  agree on (\d+) of (\d+) samples/m;
	ok($status == 0 && defined $agree && $of > 0 && $agree == $of,
	   "MODE=$mode ends with \"$mode: " . ($agree // '?') . ' of ' . ($of // '?') . ' samples agree"')
		or diag($out);
	ok(defined $ragree && $ragree == ($agree // -1) && $rof == ($of // -1), '... the numbers of report.txt');
}

# ---- 5. MODE=fp without frame pointers ----
my $hint = 'APP_CFLAGS="-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"';
for my $prog ('fib', 'fib-fp') {
	my ($status, $out) = make_run('ICOUNT=1', "RUN_INIT=/bin/$prog", 'ARGS=30', 'MODE=fp', "OUT=$dir/fp-$prog");
	my @warn = $out =~ /^(stitch: warning: \d+ of \d+ user stacks have one frame in mode fp: .*)$/mg;
	if ($prog eq 'fib') {
		ok($status == 0 && @warn == 1 && $warn[0] =~ /\Q$hint\E/,
		   "MODE=fp, /bin/fib without frame pointers: one warning naming $hint") or diag($out);
	} else {
		my ($deep) = (slurp("$dir/fp-$prog/profile.folded") // '') =~ /^(fib-fp.*;fib_rounds;fib_recursive;fib_recursive\S*) \d+$/m;
		ok($status == 0 && !@warn && $deep, 'MODE=fp, /bin/fib-fp built with those flags: no warning, whole stacks')
			or diag($out);
	}
}

# The initrd without /app/fib again.
system('make -s >/dev/null 2>&1');
is($?, 0, 'make rebuilds the tree without APP');

done_testing();
