#!/usr/bin/perl
# Test 30: the user SDK, the programs and the initrd, checked on the host.
#
#  1. build/initrd.cpio is well-formed cpio newc holding /bin/<program> for
#     every program source and the /data files.
#  2. Every program is a static ELF64 x86_64 executable for ring 3: ET_EXEC,
#     no interpreter, no dynamic section, loaded at 0x400000 and below
#     USER_TOP, entry inside its text, one PT_GNU_SFRAME inside a read-only
#     segment, whose header is a valid AMD64 SFrame header.
#  3. The SDK flags took effect: the workloads' own functions and libc's
#     qsort have SFrame FDEs (-Wa,--gsframe, in newlib too), every one of
#     their rows computes the CFA from SP (-fomit-frame-pointer: no frame
#     is set up with rbp), and _start has none (crt0 ends every unwind).
#  4. The expected checksums (workloads compiled natively on the host) are
#     recorded, one per workload, and fib's agrees with the formula.
#  5. Under stitch-usim (the programs on Linux with the Stitch system-call
#     contract, needs root): /bin/demo prints exactly the expected
#     checksums, every in-guest test of /bin/utest passes, and so do
#     /bin/t-thread's checks of the SDK's threads over usim's.
#  6. make APP=prog.c builds prog.c with the same recipe into /app/prog, so
#     any name will do (fib.c too, without touching /bin/fib), with the
#     user's warnings not fatal and APP_CFLAGS added; make run boots
#     init=/app/prog with ARGS as init.args.
use strict;
use warnings;
no warnings 'portable';	# 64-bit addresses
use File::Temp qw(tempdir);
use Test::More;

my $INITRD   = 'build/initrd.cpio';
my $SYMFS    = 'build/userland/root';
my $EXPECTED = 'build/userland/expected-checksums.txt';
my $USIM     = 'build/bin/stitch-usim';
my $USER_TOP = 0x00007ffffffff000;

sub slurp {
	my ($path) = @_;
	open(my $f, '<:raw', $path) or return undef;
	local $/;
	return scalar <$f>;
}

# stdout and exit status of a command (list form, stderr kept apart).
sub run {
	my ($stdin, @cmd) = @_;
	my $pid = open(my $p, '-|') // die "fork: $!";
	if ($pid == 0) {
		open(STDIN, '<', $stdin // '/dev/null');
		open(STDERR, '>', '/dev/null');
		exec(@cmd) or die "$cmd[0]: $!";
	}
	local $/;
	my $out = <$p> // '';
	close($p);
	return ($out, $? >> 8);
}

# ---- 1. the initrd ----

# cpio newc: "070701", 13 hex fields, name, pad to 4; data, pad to 4.
sub parse_newc {
	my ($img) = @_;
	my (%files, $off);
	$off = 0;
	while (1) {
		return (undef, "truncated header at $off") if $off + 110 > length $img;
		my $hdr = substr($img, $off, 110);
		return (undef, "bad magic at $off") unless substr($hdr, 0, 6) eq '070701';
		my @f = map { hex substr($hdr, 6 + 8 * $_, 8) } 0 .. 12;
		my ($mode, $size, $namesize) = @f[1, 6, 11];
		my $name = substr($img, $off + 110, $namesize - 1);
		$off += 110 + $namesize;
		$off = ($off + 3) & ~3;
		last if $name eq 'TRAILER!!!';
		$files{$name} = { mode => $mode, data => substr($img, $off, $size) };
		$off += $size;
		$off = ($off + 3) & ~3;
	}
	return (\%files, undef);
}

my @workloads = sort map { m{/(\w+)\.c$} } glob('userland/workloads/*.c');
my @system    = sort map { m{/(\w+)\.c$} } glob('userland/bin/*.c');
my @tests     = sort map { m{/(t-[\w-]+)\.c$} } glob('userland/tests/t-*.c');
my @programs  = (@workloads, @system, @tests);

my $img = slurp($INITRD);
ok(defined $img, "$INITRD exists") or BAIL_OUT('make the initrd first');
my ($files, $err) = parse_newc($img);
ok($files, 'initrd parses as cpio newc') or diag($err);
$files //= {};
my @missing = grep { !exists $files->{"bin/$_"} } @programs;
ok(!@missing && @programs >= 10, scalar(@programs) . ' programs, each in bin/')
	or diag("missing: @missing");
ok(($files->{bin}{mode} // 0) & 040000, 'bin is a directory entry');
is(length($files->{'data/blob'}{data} // ''), 4194304, 'data/blob holds 4 MiB');
is($files->{'data/hello.txt'}{data}, slurp('userland/data/hello.txt'),
	'data/hello.txt is userland/data/hello.txt');

# ---- 2. every program is a static ring-3 ELF64 with PT_GNU_SFRAME ----

sub check_elf {
	my ($name, $elf) = @_;
	my @why;
	return ('not ELF64 little-endian') unless substr($elf, 0, 6) eq "\x7fELF\x02\x01";
	my ($type, $machine, $version, $entry, $phoff) = unpack('v v V Q< Q<', substr($elf, 16, 28));
	my ($phentsize, $phnum) = unpack('v v', substr($elf, 54, 4));
	push @why, "e_type $type, not ET_EXEC" unless $type == 2;
	push @why, "e_machine $machine, not x86_64" unless $machine == 62;
	my ($lo, $sframe, @loads);
	for my $i (0 .. $phnum - 1) {
		my ($pt, $fl, $off, $va, $pa, $fsz, $msz) =
			unpack('V V Q< Q< Q< Q< Q<', substr($elf, $phoff + $i * $phentsize, 48));
		push @why, 'has PT_INTERP' if $pt == 3;
		push @why, 'has PT_DYNAMIC' if $pt == 2;
		if ($pt == 1) {
			push @loads, [$fl, $va, $msz];
			$lo = $va if !defined $lo || $va < $lo;
			push @why, sprintf('PT_LOAD %#x+%#x leaves the user range', $va, $msz)
				if $va + $msz > $USER_TOP;
		}
		if ($pt == 0x6474e554) {
			push @why, 'two PT_GNU_SFRAME' if $sframe;
			$sframe = [$off, $va, $fsz];
		}
	}
	push @why, sprintf('lowest PT_LOAD at %#x, not 0x400000', $lo // 0)
		unless ($lo // 0) == 0x400000;
	my ($text) = grep { $_->[0] & 1 && $entry >= $_->[1] && $entry < $_->[1] + $_->[2] } @loads;
	push @why, sprintf('entry %#x not in an executable PT_LOAD', $entry) unless $text;
	return (@why, 'no PT_GNU_SFRAME') unless $sframe;
	my ($soff, $sva, $ssz) = @$sframe;
	my ($ro) = grep { $sva >= $_->[1] && $sva + $ssz <= $_->[1] + $_->[2] } @loads;
	push @why, 'PT_GNU_SFRAME not inside a PT_LOAD' unless $ro;
	push @why, 'PT_GNU_SFRAME in a writable or executable segment'
		if $ro && ($ro->[0] & 3);
	my ($magic, $ver, $flags, $abi, $fp, $ra, $aux, $nfde) =
		unpack('v C C C c c C V', substr($elf, $soff, 12));
	push @why, sprintf('SFrame magic %#x', $magic) unless $magic == 0xdee2;
	push @why, "SFrame version $ver" unless $ver == 1 || $ver == 2;
	push @why, "SFrame ABI $abi, not AMD64 (3)" unless $abi == 3;
	push @why, "SFrame RA offset $ra, not -8" unless $ra == -8;
	push @why, 'SFrame FDEs not sorted' unless $flags & 1;
	push @why, 'SFrame has no FDEs' unless $nfde > 0;
	return @why;
}

for my $p (@programs) {
	my $elf = $files->{"bin/$p"}{data} // '';
	my @why = check_elf($p, $elf);
	ok(!@why, "/bin/$p: static ELF64 for ring 3 with a valid PT_GNU_SFRAME")
		or diag(join("\n", @why));
}

# The initrd copies lack DWARF only: same build id as the --symfs copies.
sub build_id {
	my ($out) = run(undef, 'readelf', '-n', @_);
	return $out =~ /Build ID: (\w+)/ ? $1 : '';
}
my $dir = tempdir(CLEANUP => 1);
my @differ;
for my $p (@programs) {
	open(my $f, '>:raw', "$dir/$p") or die;
	print $f $files->{"bin/$p"}{data} // '';
	close($f);
	my $id = build_id("$dir/$p");
	push @differ, $p if $id eq '' || $id ne build_id("$SYMFS/bin/$p");
}
ok(!@differ, "initrd programs match $SYMFS/bin by build id") or diag("differ: @differ");

# ---- 3. the SDK flags: SFrame everywhere, no frame pointers ----

# FDE start address => [rows' CFA column], from objdump's SFrame dump.
sub sframe_rows {
	my ($elf) = @_;
	my ($out) = run(undef, 'objdump', '--sframe', $elf);
	my (%rows, $cur);
	for (split /\n/, $out) {
		if (/func idx \[\d+\]: pc = (0x[0-9a-f]+)/) { $cur = hex $1; $rows{$cur} = []; }
		elsif (defined $cur && /^\s+[0-9a-f]{16}\s+(\S+)/) { push @{$rows{$cur}}, $1; }
	}
	return \%rows;
}

sub symbols {
	my ($elf) = @_;
	my ($out) = run(undef, 'nm', $elf);
	my %sym;
	while ($out =~ /^([0-9a-f]+) [tTwW] (\S+)$/mg) {
		$sym{$2} = hex $1;
	}
	return \%sym;
}

my %own = (
	fib    => [qw(fib_recursive fib_rounds main)],
	chain  => [qw(chain_leaf chain_1 chain_2 chain_128 chain_255 chain_256 chain_run main)],
	sort   => [qw(compare_keys sort_rounds qsort main)],
	reader => [qw(read_file reader_rounds read main)],
	piper  => [qw(piper_produce piper_consume write read main)],
);
for my $w (sort keys %own) {
	my $elf = "$SYMFS/bin/$w";
	my ($rows, $sym) = (sframe_rows($elf), symbols($elf));
	my (@nofde, @fp);
	for my $fn (@{$own{$w}}) {
		my $r = defined $sym->{$fn} ? $rows->{$sym->{$fn}} : undef;
		push @nofde, $fn unless $r && @$r;
		push @fp, $fn if $r && grep { !/^sp[+-]/ } @$r;
	}
	ok(!@nofde, "$w: SFrame FDEs for @{$own{$w}}") or diag("no FDE: @nofde");
	ok(!@fp, "$w: every CFA is SP-based (no frame pointer)") or diag("FP-based: @fp");
	ok(defined $sym->{_start} && !$rows->{$sym->{_start}},
		"$w: _start has no FDE (the bottom of every unwind)");
}
my ($chain_syms) = symbols("$SYMFS/bin/chain");
is(scalar(grep { /^chain_\d+$/ } keys %$chain_syms), 256, 'chain: 256 distinct chain_N functions');

# ---- 4. the expected checksums ----

my %demo_args;	# workload => the arguments /bin/demo gives it
for (split /\n/, slurp('userland/bin/demo.c')) {
	$demo_args{$1} = $2 if /\{\s*"\/bin\/(\w+)",\s*(.*?),?\s*NULL\s*\}/;
}
my $expected = slurp($EXPECTED) // '';
my %sum = map { /^(\w+): (.*checksum=\S+)$/ ? ($1, $2) : () } split /\n/, $expected;
is_deeply([sort keys %sum], [sort keys %demo_args],
	"$EXPECTED: one checksum line per workload that /bin/demo runs");
ok(scalar(keys %sum) >= 7 && $sum{threads},
	'at least 7 workloads, threads among them (' . join(' ', sort keys %sum) . ')');

sub fib { my ($n) = @_; my ($a, $b) = (0, 1); ($a, $b) = ($b, $a + $b) for 1 .. $n; return $a; }
my ($n, $rounds, $result, $check) =
	($sum{fib} // '') =~ /n=(\d+) rounds=(\d+) result=(\d+) checksum=(\d+)/;
ok(defined $n && $result == fib($n) && $check == $rounds * fib($n),
	'fib checksum agrees with the formula') or diag("fib line: " . ($sum{fib} // 'none'));

# ---- 5. run under stitch-usim ----

SKIP: {
	skip('stitch-usim needs root (chroot, ptrace of setuid-free children)', 4) if $> != 0;
	my ($out, $status) = run(undef, 'timeout', '120', $USIM, $SYMFS, '/bin/demo');
	my $got = join('', map { "$_\n" } sort grep { /checksum=/ } split /\n/, $out);
	is($status, 0, 'usim: /bin/demo exits 0') or diag($out);
	is($got, $expected, 'usim: /bin/demo prints the host-native checksums');

	($out, $status) = run(undef, 'timeout', '300', $USIM, $SYMFS, '/bin/utest');
	my ($plan) = $out =~ /^1\.\.(\d+)$/m;
	my @results = $out =~ /^((?:not )?ok \d+ - .*)$/mg;
	ok($status == 0 && $plan && @results == $plan && !grep({ /^not / } @results),
		"usim: /bin/utest, all " . ($plan // '?') . ' in-guest tests pass')
		or diag($out);
	note($_) for @results;

	($out, $status) = run(undef, 'timeout', '120', $USIM, $SYMFS, '/bin/t-thread');
	ok($status == 0 && $out =~ /^t-thread: 9 checks, 0 failed$/m && $out !~ /^not ok/m,
		'usim: /bin/t-thread, the SDK\'s threads over the emulated ones: all 9 checks pass')
		or diag($out);
}

# ---- 6. make APP=prog.c ----

my $app_dir = tempdir(CLEANUP => 1);
open(my $f, '>', "$app_dir/hello_app.c") or die;
# An unused variable: a warning, which must not stop the user's build.
print $f "#include <stdio.h>\nint main(int argc, char **argv)\n{\n\tint unused;\n"
	. "\tprintf(\"hello from %s, argc %d, %s\\n\", argv[0], argc, GREETING);\n\treturn 3;\n}\n";
close($f);
my @app = ("APP=$app_dir/hello_app.c", 'APP_CFLAGS=-DGREETING=\"howdy\"');
my ($mk, $mk_status) = run(undef, 'make', '-s', @app, "$SYMFS/app/hello_app");
my @why = check_elf('hello_app', slurp("$SYMFS/app/hello_app") // '');
ok($mk_status == 0 && !@why, 'make APP=hello_app.c builds a static ring-3 ELF with SFrame, '
	. 'despite a warning, with APP_CFLAGS') or diag($mk, @why);
like(slurp("$SYMFS/app/hello_app") // '', qr/howdy/, '... whose -D from APP_CFLAGS is compiled in');
my ($dry) = run(undef, 'make', '-n', @app, 'ARGS=a b', 'run');
like($dry, qr{init=/app/hello_app init\.args=a,b\b}, 'make run APP=hello_app.c ARGS="a b" boots '
	. 'init=/app/hello_app init.args=a,b');
SKIP: {
	skip('stitch-usim needs root', 1) if $> != 0;
	my ($out, $status) = run(undef, 'timeout', '30', $USIM, $SYMFS, '/app/hello_app');
	ok($out eq "hello from /app/hello_app, argc 1, howdy\n" && $status == 1,
		'usim: the APP program runs (argv[0], argc; exit 3 means failure to usim)')
		or diag("status $status, output: $out");
}
unlink("$SYMFS/app/hello_app");

# An APP named like a system program goes to /app/ and leaves /bin/ alone.
mkdir("$app_dir/same") or die;
open($f, '>', "$app_dir/same/fib.c") or die;
print $f "int main(void) { return 0; }\n";
close($f);
my $bin_fib = slurp("$SYMFS/bin/fib");
($mk, $mk_status) = run(undef, 'make', '-s', "APP=$app_dir/same/fib.c", "$SYMFS/app/fib");
ok($mk_status == 0 && -s "$SYMFS/app/fib", 'make APP=fib.c is not refused: it builds /app/fib')
	or diag($mk);
ok(defined $bin_fib && slurp("$SYMFS/bin/fib") eq $bin_fib, '... and /bin/fib is untouched');
unlink("$SYMFS/app/fib");

done_testing();
