#!/usr/bin/perl
# The host tools and the SFrame library under AddressSanitizer and UBSan
# (built by mk/fuzz.mk into build/san/): each runs on the inputs of its own
# tests and must give exactly the plain build's answers, with no sanitizer
# report (ASan and UBSan abort, LeakSanitizer fails the exit status).
# Already sanitized elsewhere: the library on malformed sections (test 23)
# and in the fuzzer (test 24), stitch's reader on damaged streams (test 60).
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use File::Temp qw(tempdir);
use Test::More;

my $san = 'build/san';
my $plain = 'build/bin/sframe';
my $tmp = tempdir(CLEANUP => 1);
$ENV{UBSAN_OPTIONS} = 'print_stacktrace=1';

# stdout and exit status of a command (a list, no shell); stderr kept apart.
sub run {
	my @cmd = @_;
	my $out = `@{[map { "'$_'" } @cmd]} 2>$tmp/stderr`;
	return ($out, $? >> 8, do { local (@ARGV, $/) = "$tmp/stderr"; <> // '' });
}

# --- the library's unit test ------------------------------------------------
my ($out, $st, $err) = run("$san/sframe-unit");
my $n = () = $out =~ /^ok \d+/mg;
ok($st == 0 && $out !~ /^not ok/m && $n >= 20, "sframe unit test: $n checks pass under ASan+UBSan")
	or diag($out =~ /^not ok.*$/mg, $err);

# --- libsframe agreement, every pc -------------------------------------------
my @linked = (map({ "build/sframe/test/$_" } qw(sample libsample.so libc-whole.elf)),
	      'build/kernel/kernel.elf');
($out, $st, $err) = run("$san/vs_libsframe", @linked);
my ($ref) = run('build/sframe/test/vs_libsframe', @linked);
my ($pcs) = 0;
$pcs += $1 while $out =~ /(\d+) pcs/g;
ok($st == 0 && $out eq $ref && $pcs > 400000,
   "vs_libsframe: $pcs pcs agree with libsframe, same report as the plain build")
	or diag($err);

# --- the tool: dump, check, lookup, convert ----------------------------------
my @files = (@linked, glob('build/userland/root/bin/*'));
my (@differ, @failed);
for my $f (@files) {
	for my $cmd (['dump', $f], ['check', $f]) {
		my ($a, $sa, $ea) = run("$san/sframe", @$cmd);
		my ($b, $sb) = run($plain, @$cmd);
		push @failed, "@$cmd: $ea" if $sa != $sb || $ea =~ /Sanitizer|runtime error/;
		push @differ, "@$cmd" if $a ne $b;
	}
}
ok(!@failed, 'sframe dump and check: no sanitizer report, same status (' . @files . ' files)')
	or diag(@failed);
ok(!@differ, 'sframe dump and check: output identical to the plain build') or diag(@differ);

# Every 97th pc of the kernel's text, and the conversions of the kernel's
# section: the blobs must be byte for byte the plain build's.
my ($k) = grep { /kernel\.elf$/ } @linked;
my ($chk) = run($plain, 'check', $k);
my ($kaddr) = $chk =~ /at (0x[0-9a-f]+)/;
my @pcs = map { sprintf '0x%x', 0xffffffff80001000 + 97 * $_ } 0 .. 400;
my ($la, $sla, $ela) = run("$san/sframe", 'lookup', $k, @pcs);
my ($lb, $slb) = run($plain, 'lookup', $k, @pcs);
ok($sla == $slb && $la eq $lb && $la =~ /fde/ && $ela !~ /Sanitizer|runtime error/,
   'sframe lookup: 401 kernel pcs, same answers and status') or diag($ela);

my @conv = ([qw(--to 2), $k], [qw(--to 3 --no-pcrel), $k], [qw(--to 3), $k]);
my @bad;
for my $i (0 .. $#conv) {
	my @c = @{$conv[$i]};
	my (undef, $sa, $ea) = run("$san/sframe", 'convert', @c, '-o', "$tmp/san.$i");
	my (undef, $sb) = run($plain, 'convert', @c, '-o', "$tmp/plain.$i");
	push @bad, "@c: $ea" if $sa || $sb || system('cmp', '-s', "$tmp/san.$i", "$tmp/plain.$i");
}
ok(!@bad, 'sframe convert to v2 and v3: same bytes as the plain build') or diag(@bad);

# The conversion checker of test 22 on those blobs (every pc, every version).
(my $v1, $st, $err) = run("$san/sframe", 'convert', '--to', '1', '--vaddr', $kaddr,
			  "$tmp/san.2", '-o', "$tmp/san.v1");
($out, $st, $err) = run("$san/conv_check", $k, "$tmp/san.0", "$tmp/san.1", "$tmp/san.2",
			"$tmp/san.v1");
ok($st == 0 && $out =~ /(\d+) pcs/, "conv_check: the kernel's $1 pcs agree in v1/v2/v3")
	or diag($out, $err);

# --- stitch: its own tests, run with the sanitized binary ----------------------
for my $t (qw(61-stitch-stitch 62-stitch-symbols 63-stitch-stackcopy 64-stitch-perf
	      65-stitch-outputs 67-stitch-golden 68-stitch-userland)) {
	# Read its TAP here: a skip there is a check not run, not a pass.
	my $res = `STITCH=$san/stitch $^X test/t/$t.t 2>&1`;
	my $st = $? >> 8;
	my ($plan) = $res =~ /^1\.\.(\d+)/m;
	my $oks = () = $res =~ /^ok \d+/mg;
	my @skips = $res =~ /^(?:ok \d+|1\.\.0).*# skip\b(.*)$/mgi;
	ok($st == 0 && $plan && $oks == $plan && !@skips,
	   "stitch under ASan+UBSan passes test $t, all of its " . ($plan // '?') . ' checks run')
		or diag(join "\n", "exit $st", (map { "skipped:$_" } @skips),
			grep { /not ok|Sanitizer|runtime error|Failed/ } split /\n/, $res);
}
done_testing();
