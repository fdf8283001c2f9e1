#!/usr/bin/perl
# The accelerated lookups against the reference lookup (sframe/plain.c) at
# every pc within 16 bytes of every function of every program the build
# has (the userland programs and libraries) and of the binutils 2.46
# fixtures, six ways each (test/sframe/reference.c): the same FDE, row and
# rule, or the same error, everywhere.
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Test::More;

my ($dir) = map { /^SFRAME_DIR=(.*)/ ? $1 : () } do {
	open(my $f, '<', 'build/sframe/paths') or die "build/sframe/paths: $!\n"; <$f>
};
my @files = (glob('build/userland/root/bin/*'), glob('build/userland/root/lib/*.so'),
	     glob('test/sframe/binutils-2.46/*.o'),
	     map { "test/sframe/binutils-2.46/$_" } qw(varied-static libfx.so useslib));
my $out = `$dir/test/reference @files 2>&1`;
is($?, 0, 'no lookup differs from the reference') or diag($out);

my ($files, $pcs, $invalid) = (0, 0, 0);
for my $f (@files) {
	my ($n, $bad, $p, $m) = $out =~ /^\Q$f\E: (\d+) sections \((\d+) not valid\), (\d+) pcs .* (\d+) mismatches$/m;
	ok(defined $n && $m == 0, "$f: compared, no mismatch") or next;
	$files++;
	$pcs += $p;
	$invalid += $bad;
}
# Every fixture's functions and nearly every program's sections compared
# (a hostile program's section may be invalid on purpose: not compared).
ok($files >= 60, "$files files");
cmp_ok($invalid, '<=', 3, "$invalid sections not valid, not compared");
cmp_ok($pcs, '>', 1_000_000, "$pcs pcs looked up");
# Past the kernel's old limit of 2 048 FDEs: 100 000 functions, through
# an index built in parts as the kernel builds it.
like($out, qr{^build/userland/root/bin/funcs-100000: 1 sections \(0 not valid\), [1-9]\d* pcs .* 0 mismatches$}m,
     'a table of 100 000 FDEs compared, its index built in parts');
like($out, qr{^test/sframe/binutils-2.46/varied-O2\.o: 1 sections \(0 not valid\), [1-9]\d* pcs}m,
     'a relocatable object\'s functions compared too');
done_testing();
