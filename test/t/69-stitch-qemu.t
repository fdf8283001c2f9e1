#!/usr/bin/perl
# End to end: boot Stitch in QEMU with /bin/fib under the profiler in
# validate mode, stitch the real record stream, and check it the way the
# synthetic streams are checked. A boot that fails, a stream that is
# missing, or a run where no user unwind was deferred is a failure. Then
# /bin/reader, which spends most of its time in read(), under -icount:
# perf and stitch name every kernel frame alike, the entries' return
# addresses (the last kernel frame of a system call or a trap) included.
use strict;
use warnings;
no warnings 'portable';
use FindBin;
use lib "$FindBin::Bin/../stitch";
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Test::More;
use Cwd 'abs_path';
use Stream;
use Check;

my ($kernel, $root) = ('build/kernel/kernel.elf', 'build/userland/root');
plan skip_all => 'no kernel, ESP or userland built' unless -f $kernel && -f 'build/esp.img' && -d $root;

my $dir = tmpdir();
system("tools/qemu-run --cmdline 'init=/bin/fib init.args=28 profile.mode=validate profile.hz=1000' "
       . "--records $dir/records.bin --timeout 90 >$dir/console.txt 2>&1");
my $status = $? >> 8;
is($status, 0, 'the profiled boot shut down with success (qemu-run exit status)')
	or diag(`tail -n 30 $dir/console.txt`);
ok(-s "$dir/records.bin", '... and wrote a record stream');
my $r = run_case(-e "$dir/records.bin" ? read_file("$dir/records.bin") : '',
		 '--symfs', $root, '--kernel', $kernel);
my @user = grep { $_->{pid} != 0 } @{$r->{script}};

my $c = $r->{counters};
is($r->{status}, 0, "stitch read the real stream: ${\ scalar @{$r->{script}}} samples");
is_deeply({ map { $_ => $c->{$_} } qw(truncated bad_size unknown_type bad_callchain bad_stack_copy missing_end) },
	  { map { $_ => 0 } qw(truncated bad_size unknown_type bad_callchain bad_stack_copy missing_end) },
	  '... whole and well formed');
ok(($c->{samples_deferred} // 0) > 0, "... ${\ ($c->{samples_deferred} // 0)} samples with a deferred user stack");
cmp_ok($c->{samples_missing}, '<=', $c->{lost}, "... none missing its deferred record unless records were lost ($c->{lost})");
cmp_ok($c->{deferred_orphan}, '<=', $c->{lost}, '... no orphan deferred record unless records were lost');
ok(grep({ $_->{name} eq 'fib_recursive' } map { @{$_->{frames}} } @user), '... /bin/fib\'s fib_recursive on the user stacks');
ok($c->{validate_samples} > 0, "validate: $c->{validate_samples} samples compared");
my ($share) = $r->{report} =~ /(agree on \d+ of \d+ samples \([\d.]+%\), differ on \d+)/;
ok($share, "... report.txt: " . ($share // "no agreement line"));
my @sections = $r->{report} =~ /^== (\S+) \(pid \d+\): (\d+) samples/mg;
my @counts = @sections[grep { $_ % 2 } 0 .. $#sections];
ok(@counts > 1 && !grep({ $counts[$_] < $counts[$_ + 1] } 0 .. $#counts - 1),
   "... report.txt: processes busiest first (@sections)");

# perf script's samples of run $r, each compared with stitch's (perf_agrees);
# returns perf's samples.
sub perf_same {
	my ($r) = @_;
	my $out = `perf script -i $r->{dir}/out/perf.data --symfs $root --vmlinux ${\ abs_path($kernel)} 2>&1`;
	my @p = @{parse_perf_script($out)};
	is(scalar @p, scalar @{$r->{script}}, 'perf script shows every sample');
	my ($bad, $boundary) = (0, 0);
	for my $i (0 .. $#p) {
		my ($ok, $n) = perf_agrees($p[$i], $r->{script}[$i]);
		$boundary += $n;
		next if $ok;
		diag("perf:   " . stack_names($p[$i]) . "\nstitch: " . stack_names($r->{script}[$i])) if $bad++ < 5;
	}
	is($bad, 0, "... with the same stacks ($boundary user return addresses past their function named by their call)");
	return \@p;
}
perf_same($r);

system("tools/qemu-run --direct --icount --cmdline 'init=/bin/reader profile.mode=sframe profile.hz=10000' "
       . "--records $dir/reader.bin --timeout 120 >$dir/reader-console.txt 2>&1");
$r = run_case(-e "$dir/reader.bin" ? read_file("$dir/reader.bin") : '', '--symfs', $root, '--kernel', $kernel);
is($r->{status}, 0, "/bin/reader: stitch read the stream: ${\ scalar @{$r->{script}}} samples");
my $p = perf_same($r);
# The entries' return addresses: the outermost kernel frame of a system
# call, and a fault's trap frame crossed inside one (copy_to_user).
my ($syscalls, $traps) = (0, 0);
for my $s (@$p) {
	my @k = grep { $_->{dso} eq '[kernel.kallsyms]' } @{$s->{frames}};
	$syscalls++ if @k && $k[-1]{name} eq 'syscall_entry';
	$traps += grep { $_->{name} eq 'trap_entry' } @k[0 .. $#k - 1];
}
ok($syscalls >= 10 && $traps >= 1,
   "... $syscalls kernel chains end at syscall_entry, $traps cross a trap at trap_entry: " .
   'the return addresses of the entries\' calls, named alike in both views');

done_testing();
