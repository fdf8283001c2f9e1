#!/usr/bin/perl
# Test 03: what `make run` promises a user, each through a real `make run`
# (its files go to a scratch OUT=).
#   1. A bad MODE, HZ, CPUS, ICOUNT, IDLE, APP, ARGS, RUN_INIT or DEMO stops
#      make at once (before building or booting: within seconds, no OUT
#      created), with one line naming the variable and what it takes, and a
#      non-zero status; good values pass the same checks. DEMO=real boots
#      /bin/bsuite with the real workloads as bench.py's REAL_SUITE lists
#      them (tools/bench/real-suite.txt), the -fp builds in mode fp (make -n);
#      one real ICOUNT=1 run of it (a few seconds) profiles both programs.
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
#   6. tools/strip-ansi drops the escape sequences OVMF sends (CSI, OSC,
#      two-byte ones, a cut one) and nothing else.
#   7. After the tree is rebuilt without APP (make, so that the initrd is
#      again what `make` builds), a run through the firmware (OVMF, the
#      ESP): out/console.txt has the firmware's and the kernel's lines and
#      no escape sequence (build/run/console.txt keeps them); a second
#      `make -n run` with the same variables makes nothing again (no
#      initrd, ESP, ISO or run ESP); with another HZ only the run's ESP.
#   8. The gdb command make qemu-gdb prints (and docs/DEBUGGING.md shows)
#      starts gdb without auto-load's safe-path warning, .gdbinit read and
#      stitch-user working; without its -iex the warning is there.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../make";
BEGIN { chdir "$FindBin::Bin/../.." or die }
use MakeRun;
use File::Temp qw(tempdir);
use Test::More;

my $dir = tempdir('make-run-XXXXXX', TMPDIR => 1, CLEANUP => 1);

# ---- 1. bad variables ----
my %bad = (
	'MODE=bogus'          => qr/^mk\/run\.mk:\d+: \*\*\* make run: MODE=bogus is no mode: one of sframe fp fp-deferred stack-copy guess validate eh-frame eh-rowcache eh-convert validate-eh none\.  Stop\.$/,
	'HZ=999999'           => qr/^mk\/run\.mk:\d+: \*\*\* make run: HZ=999999 is not a number of samples per second from 100 to 20000\.  Stop\.$/,
	'HZ=1e3'              => qr/make run: HZ=1e3 is not a number/,
	'CPUS=0'              => qr/make run: CPUS=0 is not a number of CPUs from 1 to 8/,
	'CPUS=16'             => qr/make run: CPUS=16 is not a number of CPUs from 1 to 8/,
	'ICOUNT=yes'          => qr/make run: ICOUNT=yes: 1 \(guest time counts instructions\) or 0/,
	'IDLE=yes'            => qr/make run: IDLE=yes: 1 \(the idle samples stay in the profile\) or 0/,
	'APP=does-not-exist.c' => qr/make run: APP=does-not-exist\.c: no such file/,
	'APP=userland'        => qr/make run: APP=userland is a directory, not a C file/,
	'APP=README.md'       => qr/make run: APP=README\.md is not a C file/,
	'ARGS=a,b'            => qr/make run: ARGS="a,b": no commas/,
	'RUN_INIT=fib'        => qr/make run: RUN_INIT=fib: the path of a program in the initrd/,
	'DEMO=bogus'          => qr/^mk\/run\.mk:\d+: \*\*\* make run: DEMO=bogus: demo \(\/bin\/demo\) or real \(the real workloads, as make bench runs them\)\.  Stop\.$/,
	'CONSUMER=bogus'      => qr/^mk\/run\.mk:\d+: \*\*\* make run: CONSUMER=bogus: one of stream map both\.  Stop\.$/,
	'CONSUMER=map MODE=fp' => qr/make run: CONSUMER=map counts deferred user stacks: MODE=fp has none/,
	'DEMO=real ARGS=1'    => qr/make run: DEMO=real boots \/bin\/bsuite with the real workloads' arguments: no APP, ARGS or RUN_INIT with it/,
);
for my $v (sort keys %bad) {
	my $out_dir = "$dir/never";
	my ($status, $out, $secs) = make_run(split(' ', $v), "OUT=$out_dir");
	my @lines = grep { length } split /\n/, $out;
	ok($status != 0 && @lines == 1 && $lines[0] =~ $bad{$v} && $secs < 20 && !-e $out_dir,
	   sprintf('make run %s: stops with one line and status %d in %.1f s, nothing booted', $v, $status, $secs))
		or diag($out);
}
{
	my @good = ('MODE=validate', 'HZ=20000', 'CPUS=8', 'ICOUNT=1', 'APP=userland/workloads/fib.c',
		    'ARGS=1 2', 'RUN_INIT=/bin/fib');
	my $out = `make --no-print-directory -n @good[0..3] '$good[4]' '$good[5]' run 2>&1`;
	ok($? == 0 && $out =~ /qemu-run --cpus 8 --direct --icount --initrd build\/initrd\.cpio\s+--cmdline "init=\/app\/fib init\.args=1,2 profile\.mode=validate profile\.hz=20000 profile\.summary=on"/,
	   'good values pass the checks (make -n run: the boot they ask for)') or diag($out);
	$out = `make --no-print-directory -n CONSUMER=both run 2>&1`;
	ok($? == 0 && $out =~ /booting with: [^"]* profile\.hz=1000 profile\.consumer=both"/,
	   'CONSUMER=both: profile.consumer=both on the command line') or diag($out);
	$out = `make --no-print-directory -n IDLE=1 run 2>&1`;
	ok($? == 0 && $out =~ /stitch --symfs \S+ --kernel \S+ +--idle -o /, 'IDLE=1: stitch is given --idle') or diag($out);
	$out = `make --no-print-directory -n run 2>&1`;
	ok($? == 0 && $out =~ /stitch --symfs / && $out !~ /--idle/, '... and not without it') or diag($out);
	# DEMO=real: bench.py's REAL_SUITE, the same file read.
	my $suite = `python3 -c 'import sys; sys.argv = ["bench"]; sys.path.insert(0, "tools/bench"); import bench; print(",".join(":".join(p) for p in bench.REAL_SUITE))'`;
	chomp $suite;
	$out = `make --no-print-directory -n ICOUNT=1 DEMO=real run 2>&1`;
	ok($? == 0 && $suite =~ /^\/bin\/zreal.*,\/bin\/dmreal.*,\/bin\/rxreal.*,\/bin\/disreal/
	   && $out =~ /--cmdline "init=\/bin\/bsuite init\.args=\Q$suite\E profile\.mode=sframe /,
	   "DEMO=real boots /bin/bsuite with the bench's real suite ($suite)") or diag($out);
	(my $fp = $suite) =~ s/(^|,)([^:,]+)/$1$2-fp/g;
	$out = `make --no-print-directory -n ICOUNT=1 DEMO=real MODE=fp run 2>&1`;
	ok($? == 0 && $out =~ /--cmdline "init=\/bin\/bsuite init\.args=\Q$fp\E profile\.mode=fp /,
	   "... in mode fp their frame-pointer builds ($fp)") or diag($out);
}
{
	my ($status, $out) = make_run('ICOUNT=1', 'DEMO=real', "OUT=$dir/real");
	my $report = slurp("$dir/real/report.txt") // '';
	ok($status == 0 && $out =~ /^make run: booting directly under QEMU -icount with: init=\/bin\/bsuite init\.args=\/bin\/zreal,\/bin\/dmreal:.*,\/bin\/rxreal:.*,\/bin\/disreal:/m
	   && !grep({ $report !~ /^== $_ \(pid \d+\): [1-9]\d* samples/m } qw(zreal dmreal rxreal disreal)),
	   'make run ICOUNT=1 DEMO=real passes, and its profile has samples of each real workload') or diag($out);
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

# ---- 6. tools/strip-ansi ----
{
	my $in = "\e[2J\e[01;01H\e[=3hBdsDxe: loading\r\n\e[0;1;31mred\e[0m \e]0;title\a"
		. "x \e(By \e7z\e8\n\xc3\xa9 tail\e[1";
	my $pid = open(my $fh, '-|') // die "fork: $!";
	if (!$pid) {
		open(my $w, '|-', 'tools/strip-ansi') or die;
		binmode $w;
		print $w $in;
		close($w);
		exit($? >> 8);
	}
	binmode $fh;
	local $/;
	my $got = <$fh>;
	close($fh);
	is($got, "BdsDxe: loading\r\nred x y z\n\xc3\xa9 tail", 'tools/strip-ansi drops every escape sequence and nothing else');
}

# The initrd without /app/fib again.
system('make -s >/dev/null 2>&1');
is($?, 0, 'make rebuilds the tree without APP');

# ---- 7. through the firmware: console.txt, nothing made twice ----
{
	my @fw = ('RUN_INIT=/bin/fib', 'ARGS=25', "OUT=$dir/fw");
	my ($status, $out) = make_run(@fw);
	ok($status == 0 && $out =~ /^make run: booting with: init=\/bin\/fib init\.args=25 /m,
	   'make run through OVMF and the ESP passes') or diag($out);
	my $con = slurp("$dir/fw/console.txt") // '';
	ok($con =~ /^BdsDxe: loading/m && $con =~ /^Stitch kernel/m && $con !~ /\e/,
	   'out/console.txt: the firmware\'s and the kernel\'s lines, no escape sequence');
	like(slurp('build/run/console.txt') // '', qr/\e\[/, '... the raw console, escapes and all, stays in build/run/console.txt');
	my $made = qr/^.*(?:cpio -o|mkfs\.fat|xorriso|mcopy|run-esp\.img\.tmp).*$/m;
	my $again = `make --no-print-directory -n @fw run 2>&1`;
	ok($? == 0 && $again =~ /qemu-run --cpus 1 --esp build\/run-esp\.img/ && $again !~ $made,
	   'a second make -n run: nothing to make again, the same run ESP booted')
		or diag($again =~ $made ? "would run: $&" : $again);
	my $hz = `make --no-print-directory -n @fw HZ=500 run 2>&1`;
	my @lines = $hz =~ /$made/g;
	ok($? == 0 && @lines && !grep({ !/run-esp\.img\.tmp/ } @lines),
	   'another HZ: only the run ESP is made again (a new command line), not the initrd, ESP or ISO')
		or diag($hz);
	`make --no-print-directory -n @fw run 2>&1`; # build/run-cmdline.txt as it was
}

# ---- 8. make qemu-gdb's gdb command ----
SKIP: {
	skip 'gdb is not installed (Debian package gdb)', 3 unless `which gdb 2>/dev/null`;
	my $n = `make --no-print-directory -n qemu-gdb 2>&1`;
	my ($cmd) = $n =~ /In another terminal: (gdb .*'target remote :1234')/;
	open(my $d, '<', 'docs/DEBUGGING.md') or die "docs/DEBUGGING.md: $!";
	my ($doc) = map { /^    (gdb .*)$/ ? $1 : () } <$d>;
	ok(defined $cmd && defined $doc && $cmd eq $doc, 'make qemu-gdb prints the gdb command docs/DEBUGGING.md shows')
		or diag("printed: " . ($cmd // $n) . "\ndocs: " . ($doc // 'none'));
	$cmd //= '';
	(my $local = $cmd) =~ s/ -ex 'target remote :1234'$/ -batch -ex 'info line kmain'/;
	my $home = tempdir('home-XXXXXX', DIR => $dir);
	my $got = `HOME=$home timeout 60 $local 2>&1`;
	ok($got =~ /^add symbol table from file "build\/userland\/root\/bin\/demo"/m && $got =~ /^Line \d+ of "kern\/main\.c"/m
	   && $got !~ /auto-load/, '... which starts gdb with .gdbinit read, stitch-user done, no auto-load warning')
		or diag($got);
	(my $bare = $local) =~ s/-iex '[^']*' //;
	like(`HOME=$home timeout 60 $bare 2>&1`, qr/auto-loading has been declined by your `auto-load safe-path'/,
	     '... (without its -iex, gdb warns)');
}

done_testing();
