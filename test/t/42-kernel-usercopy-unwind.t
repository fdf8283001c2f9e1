#!/usr/bin/perl
# The kernel's own unwinder crosses the user-copy routines: a sample taken
# inside arch_copy_user (a `rep movsb` with the SMAP window open) must show
# the system call that asked for the copy, down to the syscall entry, and
# the user stack below it. usercopy.S describes its leaf frame (CFA = rsp +
# 8) in .sframe for that; without it the kernel chain ended at
# arch_copy_user and the stack read `read;arch_copy_user`.
#
# Boots /bin/reader (reads 1 MiB chunks of /data/blob, so most of its time
# is in copy_to_user) under -icount, unwinds in sframe mode, stitches.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../stitch";
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Test::More;
use Stream;
use Check;

my ($kernel, $root) = ('build/kernel/kernel.elf', 'build/userland/root');
plan skip_all => 'no kernel or userland built' unless -f $kernel && -x "$root/bin/reader";

my $dir = tmpdir();
system("tools/qemu-run --direct --icount --cmdline 'init=/bin/reader init.args=/data/blob,1048576,8 "
       . "profile.mode=sframe profile.hz=2000' --records $dir/records.bin --timeout 120 "
       . ">$dir/console.txt 2>&1");
is($? >> 8, 0, 'the reader ran and the kernel shut down with success');
my $r = run_case(-e "$dir/records.bin" ? read_file("$dir/records.bin") : '',
		 '--symfs', $root, '--kernel', $kernel);
is($r->{status}, 0, 'stitch read the stream');

# Folded stacks, outermost first: "reader;_start;...;read;syscall_entry_[k];...".
my (%bad, $copies);
for my $line (split /\n/, $r->{folded}) {
	my ($stack, $n) = $line =~ /^(\S+) (\d+)$/ or next;
	next unless $stack =~ /;arch_copy_user_\[k\]$/;
	$copies += $n;
	$bad{$stack} += $n
		unless $stack =~ /^reader;_start;.*;read;syscall_entry_\[k\];x86_syscall_\[k\];file_read_\[k\];copy_to_user_\[k\];arch_copy_user_\[k\]$/;
}
cmp_ok($copies // 0, '>=', 20, "samples inside arch_copy_user: " . ($copies // 0));
is(scalar(keys %bad), 0, 'each of them has read -> syscall_entry -> x86_syscall -> file_read -> copy_to_user under it')
	or diag(join("\n", map { "$bad{$_} $_" } sort keys %bad));
done_testing();
