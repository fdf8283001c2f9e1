#!/usr/bin/perl
# stitch's stream reader on damaged and unusual streams: every anomaly is
# counted, what is whole is still used, and nothing crashes (the ASan/UBSan
# driver runs the whole tool over every cut and every corrupted byte). A
# damaged stream is said in the summary line, report.txt and on stderr,
# naming what was cut or skipped, and gives exit status 3 (docs/STITCH.md),
# the outputs still written; a usage error is 2.
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

my $d = load_snaps(build_dir() . '/snaps-static.txt');
my ($s0) = @{$d->{snaps}};
my $m = $d->{maps}[0];
my $ks = symbols(kernel_elf());
my @kchain = ($ks->{nmi_handler} + 4, $ks->{do_nmi} + 5);
my @symfs = ('--symfs', symfs());

my @head = (
	rec_mmap(pid => 0, start => $ks->{nmi_handler}, len => 0x100, flags => MMAP_KERNEL,
		 path => '/boot/kernel.elf'),
	rec_comm(time => 1, pid => 2, name => 'capture'),
	rec_mmap(time => 2, pid => 2, start => $m->{start}, len => $m->{end} - $m->{start},
		 pgoff => $m->{pgoff}, path => guest_path($m->{path})),
);
my $sample = rec_sample(time => 3, pid => 2, ips => [PERF_CONTEXT_KERNEL, @kchain,
						      PERF_CONTEXT_USER_DEFERRED, 7]);
my $deferred = rec_deferred(time => 4, pid => 2, cookie => 7,
			    ips => [PERF_CONTEXT_USER, @{$s0->{chain}}]);

sub case { my ($bytes) = @_; run_case($bytes, @symfs) }

# A small stream with every record type, a stack copy and a stitch, for
# the fuzz driver.
my $copy = { regs => $s0->{regs}, stack => substr($s0->{stack}, 0, 96) };
my $small = stream(rec_stream(mode => MODE_VALIDATE), @head,
	rec_sample(time => 3, pid => 2, copy => $copy,
		   ips => [PERF_CONTEXT_KERNEL, @kchain, PERF_CONTEXT_USER_DEFERRED, 7]),
	rec_deferred(time => 4, pid => 2, cookie => 7,
		     ips => [PERF_CONTEXT_USER, @{$s0->{chain}}[0 .. 3]]),
	rec_exit(time => 5, pid => 2), rec_lost(cpu => 1, count => 2),
	rec_stats(['nmi_count', 1]));

{
	my $dir = tmpdir();
	write_file("$dir/small.bin", $small);
	# Output files on tmpfs when there is one: thousands of runs write them.
	my $out = -d '/dev/shm' && -w '/dev/shm' ? File::Temp::tempdir('stitch-fuzz-XXXXXX',
		DIR => '/dev/shm', CLEANUP => 1) : "$dir/out";
	my $fuzz = build_dir() . '/fuzz-stream';
	my $res = `$fuzz $dir/small.bin @{[symfs()]} @{[kernel_elf()]} $out 2>&1`;
	is($?, 0, 'fuzz driver (ASan, UBSan) ran the tool over every cut and corrupted byte')
		or diag($res =~ s/^/# /mgr);
	my $len = length $small;
	like($res, qr/^prefixes $len uncounted 0$/m, "each of the $len cut streams counted as damaged");
	like($res, qr/^corrupted-0xff $len$/m, "$len streams with one byte set to 0xff: no crash");
	like($res, qr/^corrupted-0 $len$/m, "$len streams with one byte set to 0: no crash");
}

my $r = case(stream(rec_stream(), @head, $sample, $deferred));
is($r->{status}, 0, 'a good stream: exit 0');
unlike($r->{summary} . $r->{report} . $r->{stderr}, qr/damaged/i, '... and no warning');
is_deeply([map { $r->{counters}{$_} } qw(truncated bad_size unknown_type missing_end samples samples_stitched)],
	  [0, 0, 0, 0, 1, 1], 'a good stream: no anomaly, the sample stitched');

$r = case(stream(rec_stream(), @head, rec_raw(42, 'future record'), rec_raw(0, ''),
		 $sample, $deferred));
is($r->{counters}{unknown_type}, 2, 'unknown record types (42 and 0) counted');
like($r->{summary}, qr/WARNING: damaged stream \(2 record\(s\) of unknown type skipped\)/,
     '... named as skipped in the summary line; exit ' . $r->{status});
is($r->{status}, 3, '... exit status 3');
is($r->{counters}{samples_stitched}, 1, '... skipped by their size: the records after them are read');

# A size that is not a multiple of 8 loses the way to the next record.
my $bad = pack('VV', 4, 13) . "\0" x 8;
$r = case(stream(rec_stream(), @head, $bad, $sample));
is($r->{counters}{bad_size}, 1, 'record size not a multiple of 8: counted');
is($r->{counters}{samples}, 0, '... and reading stops there');
is($r->{counters}{missing_end}, 1, '... so REC_END is missing too');

# A known type too short for its fixed part: skipped by size.
$r = case(stream(rec_stream(), @head, rec_raw(4, 'x' x 8), $sample, $deferred));
is($r->{counters}{bad_size}, 1, 'REC_SAMPLE shorter than its fixed part: counted');
is($r->{counters}{samples}, 1, '... skipped, the next sample read');

# nr promising more entries than the record holds.
my $lying = rec_sample(time => 3, pid => 2, ips => [PERF_CONTEXT_KERNEL, @kchain]);
substr($lying, 52, 4) = pack('V', 1000);
$r = case(stream(rec_stream(), @head, $lying, $sample, $deferred));
is($r->{counters}{bad_callchain}, 1, 'callchain nr beyond the record: counted');
is($r->{counters}{samples}, 1, '... that sample dropped, the next one kept');

# A stack copy claiming more bytes than follow.
my $big = rec_sample(time => 3, pid => 2, ips => [PERF_CONTEXT_USER, $s0->{chain}[0]],
		     copy => { regs => $s0->{regs}, stack => 'x' x 16 });
substr($big, 56 + 16 + 8 * 18, 8) = pack('Q<', 1 << 20);
$r = case(stream(rec_stream(mode => MODE_STACK_COPY), @head, $big));
is($r->{counters}{bad_stack_copy}, 1, 'stack copy larger than its record: counted');
is($r->{counters}{samples}, 1, '... the sample kept without it');
is($r->{counters}{stack_copies}, 0, '... and not unwound');

# Cut inside the last record; then no REC_END at all.
my $full = stream(rec_stream(), @head, $sample, $deferred);
$r = case(substr($full, 0, length($full) - 5));
is($r->{counters}{truncated}, 1, 'stream cut inside a record: counted');
is($r->{counters}{missing_end}, 1, '... and REC_END missing');
is($r->{counters}{samples}, 1, '... the whole records before the cut still read');
is($r->{status}, 3, '... exit status 3: a damaged stream');
like($r->{summary}, qr/^stitch: 1 samples, .*; WARNING: damaged stream \(1 record\(s\) cut short, no REC_END\), what could be read was used; wrote /m,
     '... the summary line names what was cut');
like($r->{report}, qr/^# WARNING: damaged stream \(1 record\(s\) cut short, no REC_END\)/m,
     '... and so does report.txt, written all the same');
like($r->{stderr}, qr/^stitch: warning: damaged stream \S+ \(1 record\(s\) cut short, no REC_END\)/m,
     '... and stderr, also without -o');
ok(-s "$r->{dir}/out/perf.data" && -s "$r->{dir}/out/profile.folded", '... every output written');
$r = case(join '', rec_stream(), @head, $sample, $deferred);
is_deeply([@{$r->{counters}}{qw(truncated missing_end samples_stitched)}], [0, 1, 1],
	  'no REC_END: counted as missing, everything else used');

$r = case(join '', rec_stream(), @head, $sample, rec_end(records => 3), $deferred);
is($r->{counters}{end_count_mismatch}, 1, 'REC_END counting other than what was read: counted');
is($r->{counters}{after_end}, 1, 'a record after REC_END: counted');
is($r->{counters}{samples_missing}, 1, '... and ignored (its deferred chain is not used)');

# The serial line that carries the stream also carries the firmware's text.
my $junk = "\e[2J\e[01;01HBdsDxe: loading Boot0001 \"UEFI Non-Block Boot Device\"\r\n";
$r = case($junk . stream(rec_stream(), @head, $sample, $deferred));
is($r->{counters}{junk_bytes}, length $junk, 'bytes before REC_STREAM (firmware text) skipped and counted');
is_deeply([@{$r->{counters}}{qw(no_stream_header samples_stitched)}], [0, 1], '... the stream after them read whole');

$r = case(stream(rec_stream(magic => 0x1234), @head, $sample));
is($r->{counters}{bad_magic}, 1, 'wrong magic: counted');
is($r->{counters}{records}, 1, '... nothing after it trusted');
$r = case(stream(rec_stream(version => 99), @head, $sample));
is($r->{counters}{bad_version}, 1, 'unknown version: counted, nothing after it trusted');
$r = case(stream(@head, $sample));
is($r->{counters}{no_stream_header}, 1, 'no REC_STREAM first: counted');
is($r->{counters}{samples}, 1, '... the records still read');
$r = case('');
is_deeply([@{$r->{counters}}{qw(no_stream_header missing_end)}], [1, 1], 'empty file: counted');
is($r->{status}, 3, '... a damaged stream (exit 3), all outputs still written');
ok(-e "$r->{dir}/out/report.txt" && -e "$r->{dir}/out/perf.data", '... report.txt and perf.data exist');
my ($usage) = run_stitch('--no-such-option', "$r->{dir}/records.bin");
is($usage, 2, 'a bad command line: exit 2, not 3');

$r = case(stream(rec_stream(), rec_comm(pid => 2, name => 'a-name-of-sixteen'), $head[2],
		 $sample, $deferred));
is($r->{counters}{bad_string}, 1, 'a comm without its NUL: counted');
is($r->{script}[0]{comm}, 'a-name-of-sixte', '... and cut to fit the 16-byte field');

$r = case(stream(rec_stream(), @head, rec_lost(cpu => 0, count => 3), rec_lost(cpu => 1, count => 4),
		 $sample, $deferred));
is($r->{counters}{lost}, 7, 'REC_LOST counts summed');
like($r->{report}, qr/7 records lost/, '... and reported in the summary line');

my $stats = rec_stats(['nmi_count', 42], ['deferred_unwinds', 5]);
substr($stats, 8, 4) = pack('V', 1000);  # claims 1000 counters
$r = case(stream(rec_stream(), @head, $sample, $deferred, $stats));
is($r->{counters}{bad_size}, 1, 'REC_STATS count beyond its record: counted');
is($r->{counters}{nmi_count}, 42, '... the counters that fit are reported');

done_testing();
