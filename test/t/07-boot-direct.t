#!/usr/bin/perl
# The direct boot path (tools/qemu-run --direct: QEMU -kernel with the PVH
# entry of arch/x86_64/boot/pvh.S, no UEFI firmware) runs the same kernel file:
#   - kernel.elf: each PT_LOAD's load address (p_paddr) is its link address
#     minus one 2 MiB-aligned offset, and the Xen PHYS32_ENTRY note holds
#     pvh_start32's load address;
#   - a plain boot: the banner names kernel.elf's build ID, the command line
#     is the one given, the memory map reserves exactly the kernel image and
#     the initrd (two regions), no firmware memory, success;
#   - every kernel test passes (test/t/10-kernel-unit.t, QEMU_RUN_ARGS)
#     booted --direct and --direct --icount (what benchmarks use), the
#     boot page-table test really ran (it skips on the UEFI path), and
#     under --icount the clock-rate tests ran rather than skipped;
#   - with 6 GiB (RAM above 4 GiB on q35) the hand-off tests pass too.
use strict;
use warnings;
no warnings 'portable'; # 64-bit kernel addresses
use FindBin;

chdir "$FindBin::Bin/../.." or die "chdir: $!";
my $elf = 'build/kernel/kernel.elf';
my $initrd = 'build/initrd.cpio';

my $n = 0;
sub tap { my ($ok, $name) = @_; $n++; print $ok ? "ok $n - $name\n" : "not ok $n - $name\n"; $ok ? 1 : 0 }
sub diag { print map { "# $_\n" } @_ }

# --- the ELF file --------------------------------------------------------

my @loads = map { /^\s*LOAD\s+\S+\s+(0x\S+)\s+(0x\S+)\s+\S+\s+(0x\S+)/ ? [map { hex } $1, $2, $3] : () }
	`readelf -lW $elf`;
my %delta = map { ($_->[0] - $_->[1]) => 1 } @loads;
my ($offset) = keys %delta;
tap(@loads >= 3 && keys %delta == 1 && $offset % (2 << 20) == 0,
    'every PT_LOAD is loaded at its link address minus one 2 MiB-aligned offset')
	or diag(map { sprintf 'vaddr 0x%x paddr 0x%x', @$_ } @loads);
my $load_base = @loads ? $loads[0][1] : 0;
tap($load_base >= (1 << 20) && $load_base < (4 << 30), sprintf 'the image loads at 0x%x, above 1 MiB, below 4 GiB', $load_base);

my ($entry_vaddr) = map { /^([0-9a-f]+) T pvh_start32$/ ? hex $1 : () } `nm $elf`;
my $notes = `readelf -nW $elf`;
my ($note) = $notes =~ /^\s+Xen\s+0x00000008\s+Unknown note type: \(0x00000012\)\s+description data: ((?:[0-9a-f]{2} ){8})/m;
my $note_val = defined $note ? unpack('Q<', pack('H*', $note =~ s/ //gr)) : -1;
tap(defined $entry_vaddr && $note_val == $entry_vaddr - $offset,
    sprintf 'the Xen note (type 18) holds pvh_start32 at its load address (0x%x)', $note_val);
my ($build_id) = $notes =~ /Build ID: ([0-9a-f]+)/;

# --- a plain boot ----------------------------------------------------------

my $cmdline = 'direct boot test=07';
my $log = `tools/qemu-run --direct --timeout 120 --cmdline '$cmdline' 2>&1`;
my $status = $? >> 8;
$log =~ s/\r//g;
tap($status == 0, "a plain --direct boot shuts down with success (qemu-run exit $status)");
tap(defined $build_id && $log =~ /^Stitch kernel \(x86_64\), build \Q$build_id\E$/m,
    "the banner names kernel.elf's build ID");
tap($log =~ /^command line: \Q$cmdline\E$/m, 'the kernel got the command line given to -append');

my $kernel_size = 0;
for (@loads) { my $end = $_->[0] + $_->[2]; $kernel_size = $end if $end > $kernel_size }
$kernel_size = (($kernel_size + 4095 & ~4095) - $loads[0][0]) if @loads;
my $initrd_size = -s $initrd;
my $stitch = $kernel_size + (($initrd_size + 4095) & ~4095);
my $want = sprintf '%d.%02d MiB in 2 regions', int($stitch * 100 / (1 << 20)) / 100, int($stitch * 100 / (1 << 20)) % 100;
my ($got) = $log =~ /^\s+stitch \(kernel, initrd\)\s+(.*)$/m;
tap(defined $got && $got eq $want,
    "the memory map reserves the kernel image and the initrd exactly ($want)")
	or diag('memory map line: ' . ($got // 'missing'));
tap($log =~ /^\s+usable\s+\d+/m && $log !~ /uefi runtime|stitch-boot:/,
    'usable RAM, and no UEFI loader or runtime memory in sight');

# --- every kernel test, through test 10 ----------------------------------

sub kernel_tests {
	my ($args) = @_;
	my @out = `QEMU_RUN_ARGS='$args' $^X test/t/10-kernel-unit.t 2>&1`;
	my $ok = !($? >> 8) && !grep { /^not ok/ } @out;
	my $tests = grep { /^ok \d+ - kernel: / } @out;
	my $pvh = grep { /^ok \d+ - kernel: boot_pvh_page_tables$/ } @out;
	# Under icount the clock-rate tests run (not skipped): guest time is
	# instructions, whatever the host's load (kern/lib/ktest.h).
	my $timed = grep { /^ok \d+ - kernel: (pit_tick_rate|lapic_timer_periodic|lapic_timer_calibration)$/ } @out;
	my $want_timed = $args =~ /--icount/ ? 3 : 0;
	tap($ok && $tests > 0 && $pvh && $timed == $want_timed,
	    "every kernel test passes booted $args ($tests tests, $timed clock-rate tests run)")
		or diag(map { s/\n//r } grep { /^(not ok|# )/ || /boot_pvh|timing/ } @out);
}
kernel_tests('--direct');
kernel_tests('--direct --icount');

# --- RAM above 4 GiB -------------------------------------------------------

$log = `tools/qemu-run --direct --mem 6G --timeout 120 --cmdline ktest=boot 2>&1`;
$status = $? >> 8;
$log =~ s/\r//g;
my ($usable) = $log =~ /^\s+usable\s+(\d+)\./m;
my @failed = $log =~ /^(not ok .*)$/mg;
tap($status == 0 && !@failed && $log =~ /^ok \d+ boot_pvh_page_tables$/m && ($usable // 0) > 5 * 1024,
    'with 6 GiB: the boot tests pass and ' . ($usable // '?') . ' MiB are usable')
	or diag("qemu-run exit $status", @failed);

print "1..$n\n";
