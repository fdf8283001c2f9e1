#!/usr/bin/perl
# Test 04: `make run` boots exactly the command line it prints, on every
# path, and profiles the program asked for. For each run: the kernel's own
# `command line:` line in the console equals the line make printed
# ("make run: booting ... with: ..."), and report.txt has a process of that
# program whose `main` (the program's own, in its own object) is on the
# stacks. The paths: the firmware boot (OVMF reads the command line from
# the run's ESP), ICOUNT=1 (QEMU passes it), APP= with and without ARGS=
# and MODE=, two APP= runs in a row with different programs and modes,
# RUN_INIT=, DEMO=real, and the plain demo. qemu-gdb passes its command
# line to QEMU as the run's ICOUNT=1 path does, with no file between:
# make -n shows what it boots. RUN_INIT naming no program of the initrd
# stops make before anything is built and leaves OUT as it was.
# The runs rebuild the tree's initrd with each APP: this test runs alone.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../make";
BEGIN { chdir "$FindBin::Bin/../.." or die }
use MakeRun;
use File::Temp qw(tempdir);
use Test::More;

my $dir = tempdir('make-run-boots-XXXXXX', TMPDIR => 1, CLEANUP => 1);

# Is the profile in $out_dir of $name, loaded from $object: a process of
# report.txt with that name and user functions from that object, and a
# stack of it through main (profile.folded: the process's name first).
sub profile_is_of {
	my ($out_dir, $name, $object) = @_;
	my ($section) = (slurp("$out_dir/report.txt") // '')
		=~ /^== \Q$name\E \(pid \d+\): [1-9]\d* samples.*?\n(.*?)(?=^== |\z)/ms;
	return defined $section && $section =~ /^\s+[\d.]+%\s+[\d.]+%\s+\[\.\]\s+\S+\s+\Q$object\E\s/m
		&& (slurp("$out_dir/profile.folded") // '') =~ /^\Q$name\E;(?:[^;\n]*;)*main;/m;
}

# One run: it passes, the kernel read the command line make printed, which
# is $want, and the profile has $name's main (in $object).
sub boots_what_it_prints {
	my ($label, $want, $name, $object, @vars) = @_;
	my $out_dir = "$dir/" . scalar(my @x = glob("$dir/*"));
	my ($status, $out) = make_run(@vars, "OUT=$out_dir");
	my ($printed) = $out =~ /^make run: booting(?: directly under QEMU -icount)? with: (.*)$/m;
	my ($booted) = (slurp("$out_dir/console.txt") // '') =~ /^command line: (.*?)\r?$/m;
	$printed //= '(none)';
	$booted //= '(none)';
	ok($status == 0 && $printed eq $booted && index($printed, $want) == 0,
	   "$label: boots what it prints ($booted)") or diag("printed: $printed\nbooted:  $booted\n", $out);
	ok(profile_is_of($out_dir, $name, $object), "$label: the profile is of $name (${object}'s functions, main on its stacks)");
}

my $fib = 'userland/workloads/fib.c';
my $chain = 'userland/workloads/chain.c';
boots_what_it_prints('APP= through the firmware', 'init=/app/fib init.args=27 profile.mode=sframe ',
	'fib', '/app/fib', "APP=$fib", 'ARGS=27');
boots_what_it_prints('the next APP=, another program and mode', 'init=/app/chain profile.mode=eh-frame ',
	'chain', '/app/chain', "APP=$chain", 'MODE=eh-frame');
boots_what_it_prints('APP= MODE= CPUS=2', 'init=/app/fib init.args=26 profile.mode=stack-copy ',
	'fib', '/app/fib', "APP=$fib", 'ARGS=26', 'MODE=stack-copy', 'CPUS=2');
boots_what_it_prints('ICOUNT=1 APP=', 'init=/app/chain profile.mode=sframe ',
	'chain', '/app/chain', 'ICOUNT=1', "APP=$chain");
boots_what_it_prints('RUN_INIT=', 'init=/bin/fib init.args=25 profile.mode=sframe ',
	'fib', '/bin/fib', 'RUN_INIT=/bin/fib', 'ARGS=25');
boots_what_it_prints('DEMO=real', 'init=/bin/bsuite init.args=/bin/zreal,',
	'zreal', '/bin/zreal', 'DEMO=real');
boots_what_it_prints('the demo', 'init=/bin/demo profile.mode=sframe profile.hz=1000',
	'fib', '/bin/fib', ());

# qemu-gdb: the command line goes to QEMU as it is expanded in the recipe.
{
	my $n = `make --no-print-directory -n APP=$fib ARGS=3 MODE=fp qemu-gdb 2>&1`;
	ok($? == 0 && $n =~ /qemu-run --cpus 1 --cmdline "init=\/app\/fib init\.args=3 profile\.mode=fp profile\.hz=1000" --gdb/
	   && $n =~ /stitch-user \/app\/fib/, 'make qemu-gdb APP=: QEMU is given the APP\'s command line, gdb its symbols')
		or diag($n);
}

# RUN_INIT of a program the initrd does not have.
{
	my $kept = "$dir/0";
	my %before = map { $_ => slurp("$kept/$_") } qw(records.bin report.txt console.txt);
	my ($status, $out) = make_run('RUN_INIT=/bin/nope', "OUT=$kept");
	my @lines = grep { length } split /\n/, $out;
	ok($status != 0 && @lines == 1 && $lines[0] =~ /make run: RUN_INIT=\/bin\/nope is not in the initrd/,
	   'RUN_INIT=/bin/nope: one line, make stops') or diag($out);
	ok(!grep({ (slurp("$kept/$_") // '') ne ($before{$_} // 'x') } keys %before),
	   '... and OUT keeps the last run\'s files, byte for byte');
}

# The initrd without /app/ again, as `make` builds it.
system('make -s >/dev/null 2>&1');
is($?, 0, 'make rebuilds the tree without APP');

done_testing();
