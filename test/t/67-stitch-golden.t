#!/usr/bin/perl
# Golden outputs: stitch's listing for the standard run in every mode, the
# --no-stitch listing (markers and cookies), a stream full of anomalies,
# and report.txt. Addresses, offsets, mapping sizes and stack pointers are
# masked (they move with the compiler and the environment; the static
# capture program holds the host's libc.a); names, modules, source lines,
# cookies, counts and order are compared exactly. No golden file may hold
# anything of the host it was written on: the capture programs' stacks end
# in their own code (test/stitch/capture-main.c), and the last test here
# checks the files for host library paths and addresses.
#
# After an intended change: STITCH_GOLDEN_UPDATE=1 prove test/t/67-stitch-golden.t
use strict;
use warnings;
no warnings 'portable';
use FindBin;
use lib "$FindBin::Bin/../stitch";
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Test::More;
use Stream;
use Scenario;
use Check;

my $golden = 'test/stitch/golden';

sub mask {
	my ($text) = @_;
	$text =~ s/^(\t\s*)[0-9a-f]+ /${1}ADDR /mg;
	$text =~ s/MMAP \[0x[0-9a-f]+\(0x[0-9a-f]+\) @ (0x[0-9a-f]+|0)\]/MMAP [ADDR(LEN) @ PGOFF]/g;
	$text =~ s/\+0x[0-9a-f]+ /+OFF /g;
	$text =~ s/stack copy: \d+ bytes from sp 0x[0-9a-f]+, ip 0x[0-9a-f]+/stack copy: N bytes from sp SP, ip IP/g;
	$text =~ s/^# Stitch profile of .*$/# Stitch profile of RECORDS/m;
	return $text;
}

sub check {
	my ($name, $text) = @_;
	my $path = "$golden/$name";
	$text = mask($text);
	if ($ENV{STITCH_GOLDEN_UPDATE}) {
		write_file($path, $text);
		pass("$name updated");
		return;
	}
	my $want = -e $path ? read_file($path) : '';
	ok($text eq $want, "$name matches $path") and return;
	my $dir = tmpdir();
	write_file("$dir/got", $text);
	diag(`diff -u $path $dir/got | head -40`);
}

my %modes = (sframe => MODE_SFRAME, fp => MODE_FP, 'stack-copy' => MODE_STACK_COPY,
	     validate => MODE_VALIDATE);
for my $mode (sort keys %modes) {
	my $r = run_case(build_run(mode => $modes{$mode})->{bytes}, '--symfs', symfs());
	check("$mode.txt", $r->{text});
	check("$mode.report.txt", $r->{report}) if $mode eq 'sframe' || $mode eq 'validate';
}

my $dir = tmpdir();
write_file("$dir/sframe.bin", build_run()->{bytes});
my (undef, $raw) = run_stitch('--symfs', symfs(), '--no-stitch', "$dir/sframe.bin");
check('sframe.no-stitch.txt', $raw);

# Anomalies: a lost deferred record, a duplicate, an orphan, a reused pid,
# an unknown record, dropped records, and a cut at the end.
my $d = load_snaps(build_dir() . '/snaps-static.txt');
my ($a, $b) = @{$d->{snaps}}[0, 4];
my $m = $d->{maps}[0];
my $ks = symbols(kernel_elf());
my @map = (start => $m->{start}, len => $m->{end} - $m->{start}, pgoff => $m->{pgoff},
	   path => guest_path($m->{path}));
my $bytes = join '', rec_stream(ncpus => 2),
	rec_mmap(pid => 0, start => $ks->{nmi_handler}, len => 0x100, flags => MMAP_KERNEL,
		 path => '/boot/kernel.elf'),
	rec_comm(time => 1, pid => 4, name => 'first'), rec_mmap(time => 1, pid => 4, @map),
	rec_sample(time => 10, pid => 4, ips => [PERF_CONTEXT_KERNEL, $ks->{nmi_handler} + 4,
						 PERF_CONTEXT_USER_DEFERRED, 0x200000001]),
	rec_sample(time => 11, pid => 4, flags => SAMPLE_USER, ip => $a->{chain}[0],
		   ips => [PERF_CONTEXT_USER_DEFERRED, 0x200000002]),
	rec_deferred(time => 12, pid => 4, cookie => 0x200000002, ips => [PERF_CONTEXT_USER, @{$a->{chain}}]),
	rec_deferred(time => 13, pid => 4, cookie => 0x200000002, ips => [PERF_CONTEXT_USER, @{$b->{chain}}]),
	rec_deferred(time => 14, pid => 4, cookie => 0x200000009, stop => 2,
		     ips => [PERF_CONTEXT_USER, $b->{chain}[0]]),
	rec_exit(time => 15, pid => 4, status => 0),
	rec_raw(77, 'from a newer kernel'),
	rec_comm(time => 20, pid => 4, name => 'second'), rec_mmap(time => 20, pid => 4, @map),
	rec_sample(time => 21, pid => 4, cpu => 1, flags => SAMPLE_USER, ip => $b->{chain}[0],
		   ips => [PERF_CONTEXT_USER_DEFERRED, 0x200000002]),
	rec_deferred(time => 22, pid => 4, cpu => 1, cookie => 0x200000002, ips => [PERF_CONTEXT_USER, @{$b->{chain}}]),
	rec_lost(cpu => 1, count => 5),
	rec_stats(['nmi_count', 3], ['deferred_unwinds', 4]);
$bytes .= substr(rec_exit(time => 30, pid => 4), 0, 20);
my $r = run_case($bytes, '--symfs', symfs());
check('anomalies.txt', $r->{text});
check('anomalies.report.txt', $r->{report});
write_file("$dir/anomalies.bin", $bytes);
(undef, $raw) = run_stitch('--symfs', symfs(), '--no-stitch', "$dir/anomalies.bin");
check('anomalies.no-stitch.txt', $raw);

# Nothing of the machine that wrote the golden files: no host library, no
# absolute path, no unmasked user-space address.
my @host;
for my $path (glob "$golden/*") {
	my $text = read_file($path);
	push @host, "$path: $1" while $text =~ m{(/usr/\S*|/lib64/\S*|\S*\.so\.\d\S*|ld-linux\S*|0x7ff[0-9a-f]{9}|/work/\S*|/home/\S*|/tmp/\S*)}g;
}
is_deeply(\@host, [], 'the golden files hold no host library, host path or host address');

done_testing();
