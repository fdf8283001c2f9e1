#!/usr/bin/perl
# Test 14: the arch boundary is a rule the build enforces.
#
# kern/ and sframe/ may use arch/x86_64/ only through its interface
# headers (arch/x86_64/include/arch/, written <arch/...>), with no inline
# assembly or x86 instruction of their own (docs/ARCHITECTURE.md). `make
# check-arch` runs tools/check-arch, as every kernel build does: the tree
# passes, and each file below, which breaks the rule in one way, fails it
# with the line that does, while a file that keeps the rule passes.
use strict;
use warnings;
use File::Temp qw(tempdir);
use Test::More;

# make check-arch, on the tree or (with a name) on that file alone.
sub check {
	my ($file) = @_;
	my $srcs = defined $file ? "ARCH_CHECK_SRCS=$file" : '';
	my $out = `make --no-print-directory -s check-arch $srcs 2>&1`;
	return ($? >> 8, $out);
}

my ($rc, $out) = check();
is($rc, 0, 'kern/ and sframe/ keep to the interface') or diag($out);

# The kernel does not link before the check has passed.
my $db = `make --no-print-directory -pn build/kernel/kernel.elf 2>/dev/null`;
like($db, qr{^build/kernel/kernel\.elf:.*build/kernel/arch-check\.ok}m,
     'kernel.elf depends on the check');

my $dir = tempdir(CLEANUP => 1);
mkdir "$dir/kern";
sub file {
	my ($name, $text) = @_;
	open(my $fh, '>', "$dir/kern/$name") or die "$name: $!";
	print $fh $text;
	close $fh;
	return "$dir/kern/$name";
}

my $head = "#include <arch/arch.h>\n#include \"kern/kernel.h\"\n";
my %bad = (
	'private.c' => [ "#include \"arch/x86_64/interrupts/lapic.h\"\n$head",
		qr{private\.c:1: .*arch/x86_64/interrupts/lapic\.h, which is not an interface header},
		'an arch-internal header' ],
	'named.c' => [ "#include \"arch/x86_64/include/arch/arch.h\"\n",
		qr{named\.c:1: #include names arch/x86_64},
		'an interface header by the arch directory\'s name' ],
	'through.c' => [ "#include \"through.h\"\nvoid f(void) {}\n",
		qr{through\.c:1: reaches \(through a header\) arch/x86_64/smp/smp\.h},
		'an arch-internal header through another header' ],
	'rdtsc.c' => [ "${head}uint64_t f(void) { return rdtsc(); }\n",
		qr{rdtsc\.c:3: rdtsc: an x86 instruction},
		'an x86 instruction by name' ],
	'asm.c' => [ "${head}void f(void) { __asm__ volatile(\"cli\"); }\n",
		qr{asm\.c:3: __asm__: inline assembly},
		'inline assembly' ],
	'redeclared.c' => [ "${head}void lapic_timer_stop(void);\nvoid f(void) { lapic_timer_stop(); }\n",
		qr{redeclared\.c:3: lapic_timer_stop: belongs to arch/x86_64's internals.*\n.*redeclared\.c:4: lapic_timer_stop},
		'an arch-internal function declared by hand' ],
	'macro.c' => [ "${head}#define PTE_P (1ull << 0)\nuint64_t f(void) { return PTE_P; }\n",
		qr{macro\.c:3: PTE_P: belongs to arch/x86_64's internals.*\n.*macro\.c:4: PTE_P},
		'a macro of a private header in a chapter folder, written again by hand' ],
	'redeclared.h' => [ "#include \"kern/kernel.h\"\nvoid lapic_timer_stop(void);\n",
		qr{redeclared\.h:2: lapic_timer_stop: belongs to arch/x86_64's internals},
		'an arch-internal function declared again in a portable header' ],
);
file('through.h', "#include \"arch/x86_64/smp/smp.h\"\n");
for my $name (sort keys %bad) {
	my ($text, $want, $what) = @{ $bad{$name} };
	my ($rc, $out) = check(file($name, $text));
	is($rc, 2, "fails: $what") or diag($out);
	like($out, $want, "names the line: $what");
}

# The same things through the interface, and the instruction names in a
# comment and a string, pass.
my $good = file('good.c', $head . <<'EOF2');
/* cli, sti and rdtsc are fine in a comment */
uint64_t f(void)
{
	irqflags_t fl = irq_save();
	uint64_t t = arch_cycles();
	irq_restore(fl);
	(void)"rdtsc";
	return t;
}
EOF2
($rc, $out) = check($good);
is($rc, 0, 'the interface\'s irq_save, arch_cycles pass; comments and strings are not code')
	or diag($out);
done_testing();
