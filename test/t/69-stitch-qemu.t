#!/usr/bin/perl
# End to end: boot Stitch in QEMU with /bin/fib under the profiler in
# validate mode, stitch the real record stream, and check it the way the
# synthetic streams are checked. A boot that fails, a stream that is
# missing, or a run where no user unwind was deferred is a failure.
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
is($bad, 0, "... with the same stacks ($boundary return addresses past their function named by their call)");

done_testing();
