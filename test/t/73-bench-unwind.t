#!/usr/bin/perl
# build/bin/bench-unwind, the host-side comparison: on the same stack
# copies, libunwind (our accessors and the search table made from
# .eh_frame) and our SFrame walk must give exactly libdw's chains, and the
# report must say how many frames each gave and how fast.
#  1. The stitch tests' snapshots (host glibc programs, one of them with its
#     work in a shared object mapped at a bias): libunwind = libdw on all.
#  2. A real stack-copy run of /bin/chain in the guest (-icount, direct
#     boot): SFrame = libunwind = libdw, 11 frames deep and more; the frame-
#     pointer walk stops at once (the programs have no frame pointers).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../stitch";
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Test::More;
use Stream;
use Scenario;

my $tool = 'build/bin/bench-unwind';
my $dir = Stream::tmpdir();

# name => { snapshots, frames_per_snapshot, agree_with_libdw_pct, frames_per_second }
sub run_tool {
	my ($records, @args) = @_;
	my $out = `$tool --seconds 0.05 --csv $dir/out.csv @args $records 2>&1`;
	is($?, 0, "bench-unwind exits 0 on $records") or diag($out);
	my %r;
	open(my $f, '<', "$dir/out.csv") or return \%r;
	my @head = split /,/, scalar <$f> =~ s/\n//r;
	while (<$f>) {
		chomp;
		my %row;
		@row{@head} = split /,/;
		$r{$row{unwinder}} = \%row;
	}
	return \%r;
}

my $run = build_run(mode => MODE_STACK_COPY);
write_file("$dir/capture.bin", $run->{bytes});
my $r = run_tool("$dir/capture.bin", '--symfs', symfs());
is_deeply([sort keys %$r], [qw(fp libdw libunwind sframe)], 'four unwinders reported');
is($r->{libdw}{snapshots}, 30, 'the 30 stack copies of the standard run');
my $depth = 0;
$depth += @{$_->{user}} for grep { @{$_->{user}} } @{$run->{expect}};
is($r->{libdw}{frames_per_snapshot}, sprintf('%.2f', $depth / 30), 'libdw: the true chains\' frames');
is($r->{libunwind}{agree_with_libdw_pct}, '100.00', 'libunwind gives libdw\'s chain for every snapshot (static and through libwork.so)');
ok($r->{$_}{frames_per_second} > 0, "$_: frames per second measured") for qw(libdw libunwind sframe fp);

# No stack copies: said plainly.
my $none = build_run(mode => MODE_SFRAME);
write_file("$dir/none.bin", $none->{bytes});
my $msg = `$tool --symfs @{[symfs()]} $dir/none.bin 2>&1`;
isnt($? >> 8, 0, 'a stream without stack copies is refused');
like($msg, qr/no stack copies/, '... saying so');

SKIP: {
	skip 'no kernel or initrd built', 6 unless -e 'build/kernel/kernel.elf' && -e 'build/initrd.cpio';
	my $rec = "$dir/chain.bin";
	my $con = `tools/qemu-run --direct --icount --cmdline "init=/bin/chain init.args=8,1500 profile.mode=stack-copy profile.hz=1000" --records $rec 2>&1`;
	is($?, 0, 'guest: /bin/chain 8 in stack-copy mode') or diag($con);
	$r = run_tool($rec, '--symfs', 'build/userland/root');
	ok($r->{libdw}{snapshots} >= 20, "$r->{libdw}{snapshots} stack copies from the guest");
	ok($r->{libdw}{frames_per_snapshot} >= 11, "libdw: $r->{libdw}{frames_per_snapshot} frames per copy");
	is($r->{sframe}{agree_with_libdw_pct}, '100.00', 'our SFrame walk gives libdw\'s chain for every copy');
	is($r->{libunwind}{agree_with_libdw_pct}, '100.00', 'libunwind too');
	ok($r->{fp}{frames_per_snapshot} < 2, 'the frame-pointer walk stops at once: no frame pointers in these programs');
}

done_testing();
