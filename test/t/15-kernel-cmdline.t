#!/usr/bin/perl
# Test 15: a bad value on the kernel command line never stops the kernel.
# Each boot is direct and under -icount (tools/qemu-run --direct --icount),
# runs /bin/fib, and must end with the kernel's success verdict, print
# one console line per bad value naming it and its fall-back (the one
# docs/SAMPLING.md promises), and behave as the fall-back says:
#   1. profile.mode=bogus: the mode is none (no sampling, the stream still
#      written with mode none and 0 Hz); with a bad profile.ring as well
#      (the settings after the mode used to be left unset: a panic in
#      record_init);
#   2. every number and switch bad at once (profile.hz, .frames, .ring,
#      .summary, .stack_copy, unwind.budget, .rule_cache, .fde_index,
#      sframe.validate, profile.source, sched.migrate): each gets its line
#      and its default; sampling runs in the mode given at 1000 Hz;
#      2b. a good profile.stack_copy (/bin/chain, stack-copy mode): the
#      copies are that long;
#   3. profile.ring larger than the RAM: the default ring instead, and
#      samples are still taken;
#   4. more init.args than init takes: a line, and init runs with the
#      first 31;
#   5. more than 64 words: a line, the first 64 hold.
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use File::Temp qw(tempdir);
use Test::More;

my $dir = tempdir('cmdline-XXXXXX', TMPDIR => 1, CLEANUP => 1);

sub slurp { my ($p) = @_; open(my $f, '<:raw', $p) or return ''; local $/; scalar <$f> }

# Boots with `init=/bin/fib ARGS...`; returns (exit status, console, stream).
sub boot {
	my ($cmdline) = @_;
	unlink "$dir/records.bin";
	my $log = `tools/qemu-run --direct --icount --timeout 120 --records $dir/records.bin --cmdline '$cmdline' 2>&1`;
	my $status = $? >> 8;
	$log =~ s/\r//g;
	return ($status, $log, slurp("$dir/records.bin"));
}

# The REC_STREAM header at byte 0: (mode, sample_hz), or () if none.
sub stream_mode {
	my ($s) = @_;
	return () if length($s) < 48;
	my ($type, $size, $magic, $version, $ncpus, $tsc, $mode, $hz) = unpack('V V a8 V V Q< V V', $s);
	return () unless $type == 1 && $magic eq 'STITCHRS';
	return ($mode, $hz);
}

# How many console lines match re.
sub lines { my ($log, $re) = @_; scalar(() = $log =~ /^$re$/mg) }

sub counter { my ($log, $name) = @_; $log =~ /\b\Q$name\E=(\d+)/ ? $1 : -1 }

sub no_panic {
	my ($status, $log, $what) = @_;
	ok($status == 0 && $log =~ /^stitch: shutdown \(success\)$/m && $log !~ /panic/,
	   "$what: no panic, the kernel's verdict is success (qemu-run exit $status)")
		or diag(join "\n", grep { /panic|profile|cmdline|shutdown/ } split /\n/, $log);
}

# ---- 1. a bad mode ----
for my $extra ('', ' profile.ring=3') {
	my ($status, $log, $stream) = boot("init=/bin/fib profile.mode=bogus$extra");
	my $what = "profile.mode=bogus$extra";
	no_panic($status, $log, $what);
	is(lines($log, qr/profile: unknown profile\.mode=bogus \(none sframe fp fp-deferred stack-copy guess validate eh-frame eh-rowcache eh-convert validate-eh\); using none/),
	   1, "$what: one line names the bad mode, the good ones and the fall-back");
	is(lines($log, qr/profile: mode none: no sampling; records still written/), 1,
	   "$what: the kernel runs in mode none");
	is(counter($log, 'nmi_count'), 0, "$what: no sampling NMI");
	is_deeply([stream_mode($stream)], [0, 0], "$what: the stream is written, mode none at 0 Hz");
	is(lines($log, qr/fib: n=24 rounds=1 result=46368 checksum=46368/), 1, "$what: init ran");
	if ($extra) {
		is(lines($log, qr/cmdline: profile\.ring=3 is not an integer in \[4, 1048576\]; using 2048/), 1,
		   "$what: one line for the bad ring size too");
	}
}

# ---- 2. every other setting bad at once ----
{
	my %bad = (
		'profile.hz=abc'          => qr/cmdline: profile\.hz=abc is not an integer in \[100, 20000\]; using 1000/,
		'profile.frames=0'        => qr/cmdline: profile\.frames=0 is not an integer in \[1, 4096\]; using 128/,
		'profile.ring=3000'       => qr/profile: profile\.ring=3000 is no power of two; using 2048/,
		'profile.summary=maybe'   => qr/cmdline: profile\.summary=maybe is neither on nor off; using off/,
		'unwind.budget=x'         => qr/cmdline: unwind\.budget=x is not an integer in \[1, 4294967295\]; using 65536/,
		'unwind.rule_cache=7'     => qr/cmdline: unwind\.rule_cache=7 is not an integer in \[0, 1\]; using 1/,
		'unwind.fde_index=-1'     => qr/cmdline: unwind\.fde_index=-1 is not an integer in \[0, 1\]; using 1/,
		'profile.stack_copy=99999' => qr/cmdline: profile\.stack_copy=99999 is not an integer in \[8, 16384\]; using 8192/,
		'sframe.validate=perhaps' => qr/cmdline: sframe\.validate=perhaps is neither on nor off; using off/,
		'profile.source=bogus'    => qr/profile: profile\.source=bogus refused: unknown \(auto, pmu, lapic or ioapic\); choosing/,
		'sched.migrate=sometimes' => qr/cmdline: sched\.migrate=sometimes is neither on nor off; using off/,
	);
	my $cmd = join ' ', 'init=/bin/fib', 'init.args=27', 'profile.mode=fp', sort keys %bad;
	my ($status, $log, $stream) = boot($cmd);
	no_panic($status, $log, 'every setting bad');
	for my $k (sort keys %bad) {
		is(lines($log, $bad{$k}), 1, "$k: one line with its fall-back");
	}
	like($log, qr/^profile: mode fp, 1000 Hz, NMIs from the /m, 'sampling runs in mode fp at the default 1000 Hz');
	is_deeply([stream_mode($stream)], [2, 1000], 'the stream says mode fp, 1000 Hz');
	ok(counter($log, 'samples') > 0, 'samples were taken (' . counter($log, 'samples') . ')');
	unlike($log, qr/profile summary:/, 'profile.summary fell back to off (no screen on a direct boot)');
}

# ---- 2b. profile.stack_copy bounds each stack copy ----
# /bin/chain 64 uses more than 256 bytes of stack: its copies are cut
# there. stitch --stats: bytes_stack_copy over stack_copies is a copy's
# size with its header (struct rec_stack_copy: the registers and the
# size, the same in every copy).
my %per_copy;
for my $bytes (256, 8192) {
	my ($status, $log) = boot("init=/bin/chain init.args=64,300 profile.mode=stack-copy "
				  . "profile.stack_copy=$bytes");
	no_panic($status, $log, "profile.stack_copy=$bytes");
	system('build/bin/stitch', '--symfs', 'build/userland/root', '--kernel',
	       'build/kernel/kernel.elf', '--stats', "$dir/stats.json", "$dir/records.bin");
	my $st = slurp("$dir/stats.json");
	my ($copies) = $st =~ /"stack_copies":\s*(\d+)/;
	my ($copied) = $st =~ /"bytes_stack_copy":\s*(\d+)/;
	ok($copies && $copied, "profile.stack_copy=$bytes: stack copies in the stream") or next;
	$per_copy{$bytes} = $copied / $copies;
}
my $head = ($per_copy{256} // 0) - 256;
ok($per_copy{256} && $per_copy{256} == int($per_copy{256}) && $head > 0 && $head <= 8 * 33,
   "profile.stack_copy=256: every copy 256 bytes of stack and a header of $head");
cmp_ok(($per_copy{8192} // 0) - $head, '>', 1024,
       'the default copies the stack in use, more than 1 KiB of it');

# ---- 3. a ring larger than the RAM ----
{
	my ($status, $log, $stream) = boot('init=/bin/fib init.args=27 profile.ring=1048576');
	no_panic($status, $log, 'profile.ring=1048576 (1 GiB per CPU, 1 GiB of RAM)');
	is(lines($log, qr/profile: no memory for profile\.ring=1048576 \(KiB\) on each of 1 CPU\(s\); using 2048/), 1,
	   'one line: no memory for that ring, the default instead');
	is_deeply([stream_mode($stream)], [1, 1000], 'the stream is written, mode sframe');
	ok(counter($log, 'samples') > 0 && counter($log, 'records_lost') == 0,
	   'samples were taken and no record lost (' . counter($log, 'samples') . ' samples)');
	my ($before, $after) = $log =~ /^stitch: free pages before init (\d+), after init (\d+)$/m;
	my (undef, $plain) = boot('init=/bin/fib init.args=27');
	my ($pbefore) = $plain =~ /^stitch: free pages before init (\d+),/m;
	is($before, $pbefore, 'the failed attempt gave its pages back: as many free pages as with the default ring');
}

# ---- 4. too many init.args ----
{
	my $args = join ',', 30, 1, 3 .. 40;
	my ($status, $log) = boot("init=/bin/fib init.args=$args");
	no_panic($status, $log, '40 init.args');
	is(lines($log, qr/stitch: init\.args holds more than 31 arguments; using the first 31/), 1,
	   'one line: more than 31 arguments, the first 31 used');
	like($log, qr/^fib: n=30 rounds=1 /m, 'init got its first arguments');
}

# ---- 5. more words than the kernel keeps ----
{
	my @words = ('init=/bin/fib', 'init.args=25', map { "w$_" } 3 .. 70);
	my ($status, $log) = boot(join ' ', @words);
	no_panic($status, $log, '70 words');
	is(lines($log, qr/cmdline: more than 64 words; ignoring w65 and the rest/), 1,
	   'one line: more than 64 words, the rest (from the 65th) ignored');
	like($log, qr/^fib: n=25 rounds=1 /m, 'the first words still hold');
}

done_testing();
