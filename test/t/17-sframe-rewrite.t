#!/usr/bin/perl
# Test 17: sframe rewrite, the programs of SFRAME=v2 and v3, and the
# converter against binutils 2.46's own version 3.
#
# 1. Every program and shared object of the initrd whose .sframe ld 2.40
#    wrote (version 1) has a copy of version 2 and one of version 3 in
#    build/sframe/vN/stage (mk/usersframe.mk), unless unconverted.txt
#    names it: the copy's section is of that version, and at every pc
#    from 16 bytes before its first function to 16 after its last the
#    three give the same function, row, rule and unwind step (conv_check,
#    the host library), and in each version 3 copy the accelerated
#    lookups give the reference lookup's answers (reference, as test 18
#    checks the files of the build); nothing but .sframe changed (the memory image
#    without .sframe, objcopy -O binary, is the stage copy's byte for
#    byte); the sizes are what the encodings say: version 3 = version 2
#    + 1 byte a function (a 16-byte index entry and a 5-byte attribute
#    record against a 20-byte FDE), the rows the same bytes. The programs
#    whose section has no room to grow keep version 1 in the copies:
#    their sections alone (sframe convert) are checked the same way.
# 2. rewrite refuses what it cannot do: a relocatable object, a raw
#    section, a section with no room (status 3, no output file).
# 3. The fixture sources of test/sframe/binutils-2.46 assembled here (gcc
#    12 + as 2.40 --gsframe: version 1, objects linked with ld 2.40 at
#    their text), converted to version 3 by sframe convert, dumped as
#    readelf 2.46 dumps (sframe dump --style=2.46): each function's
#    block (size, attributes, every row relative to the function's start)
#    is one of the blocks in readelf 2.46's dump of what binutils 2.46
#    made from the same source; and in the bytes, each function's
#    attribute record (row count, info, info2, block size) and rows (each
#    row's start, info byte and data words, in the widths chosen) are
#    those of one of binutils 2.46's functions of that size, byte for
#    byte. What version 1 cannot carry is counted
#    apart: the flexible (DRAP) function, which as 2.40 leaves without
#    an FDE, and the 8-byte PLT block (.plt.got) ld 2.40 does not
#    describe. Where each function lies and the FRE sub-section's order
#    are not compared: ld 2.46 places FREs in input order, the converter
#    in FDE order (the same rows, other offsets).
use strict;
use warnings;
use File::Temp qw(tempdir);
require './test/sframe/lib.pl';

our ($tests, $failed);
my $p = paths();
my $tool = $p->{SFRAME_TOOL};
my $check = "$p->{SFRAME_DIR}/test/conv_check";
my $dir = tempdir(CLEANUP => 1);
my $root = 'build/userland/root';

# --- 1. the copies --------------------------------------------------------
sub list_of {
	my ($f) = @_;
	open(my $h, '<', $f) or return ();
	local $/;
	return split ' ', <$h>;
}
my %unconverted = map { my $v = $_; ($v => { map { $_ => 1 } list_of("build/sframe/$v/unconverted.txt") }) } qw(v2 v3);
my @names = grep { -f "$root/$_" && (elf_type("$root/$_") == 2 || elf_type("$root/$_") == 3) }
	list_of('build/userland/initrd.list');
my ($files, $pcs, @bad_version, @bad_rules, @bad_image, @bad_size, @missing, @v3);
for my $n (@names) {
	my ($st) = run($tool, 'check', "$root/$n");
	next unless $st =~ /: ok: version 1 at 0x[0-9a-f]+, (\d+) FDEs/;
	my $fdes = $1;
	my %copy;
	for my $v (qw(v2 v3)) {
		next if $unconverted{$v}{$n};
		$copy{$v} = "build/sframe/$v/stage/$n";
		my ($c) = run($tool, 'check', $copy{$v});
		my $want = substr($v, 1);
		push @bad_version, "$v/$n: $c" unless $c =~ /: ok: version $want at/;
	}
	# Both or neither: a section that grows by 3 bytes a function fits
	# where one that grows by 4 does. Where neither fits, the sections
	# alone (sframe convert, blobs at the section's address) are checked.
	if (!$copy{v3}) {
		push @missing, $n;
		for my $v (qw(v2 v3)) {
			$copy{$v} = "$dir/blob.$v";
			system($tool, 'convert', '--to', substr($v, 1), "$root/$n", '-o', $copy{$v}) == 0
				or push @bad_version, "$n: convert --to $v failed";
		}
		my ($res, $status) = run($check, "$root/$n", @copy{qw(v2 v3)});
		push @bad_rules, "$n (sections alone): $res" unless $status == 0 && $res =~ / 0 differences/;
		$pcs += $1 if $res =~ /, (\d+) pcs,/;
		push @bad_size, "$n (sections alone)" unless -s $copy{v3} == (-s $copy{v2}) + $fdes;
		next;
	}
	$files++;
	push @v3, $copy{v3};
	my @all = ("$root/$n", map { $copy{$_} } grep { $copy{$_} } qw(v2 v3));
	my ($res, $status) = run($check, @all);
	if ($status != 0 || $res !~ /, (\d+) pcs, (\d+) with a rule/ || $2 == 0) {
		push @bad_rules, "$n: $res";
	} else {
		$pcs += $1;
	}
	my %img;
	for my $f ("build/userland/initrd/$n", values %copy) {
		my $out = "$dir/img." . scalar(keys %img);
		system('objcopy', '-O', 'binary', '--remove-section=.sframe', $f, $out) == 0
			or push @bad_image, "$f: objcopy failed";
		$img{$f} = -e $out ? slurp($out) : '';
	}
	my $orig = $img{"build/userland/initrd/$n"};
	push @bad_image, $n if grep { $img{$_} ne $orig } values %copy;
	if ($copy{v2}) {
		my ($s2, $s3) = map { section_size($copy{$_}) } qw(v2 v3);
		push @bad_size, "$n: v2 $s2, v3 $s3, $fdes FDEs" unless $s3 - $s2 == $fdes;
	}
}
sub slurp {
	my ($f) = @_;
	open(my $h, '<:raw', $f) or return '';
	local $/;
	return <$h>;
}
sub section_size {
	my ($f) = @_;
	my ($s) = run('readelf', '-SW', $f);
	return $s =~ /\]\s+\.sframe\s+\S+\s+\S+\s+\S+\s+([0-9a-f]+)/ ? hex($1) : -1;
}
diag("$files programs rewritten as v2 and v3; kept as ld wrote them, checked as sections alone: "
     . "@missing; $pcs pcs compared");
ok($files >= 40 && !@bad_version, 'every copy carries the version it was rewritten to') or diag(@bad_version);
ok($pcs > 1000000 && !@bad_rules, 'v1, v2 and v3 give the same FDE, row, rule and step at every pc')
	or diag(@bad_rules);
my ($ref, $ref_status) = run("$p->{SFRAME_DIR}/test/reference", @v3);
my $ref_pcs = 0;
$ref_pcs += $1 while $ref =~ /, (\d+) pcs \(\d+ with a rule\), 0 mismatches$/mg;
ok(@v3 && $ref_status == 0 && ($ref =~ tr/\n//) == @v3 && $ref_pcs > 1000000,
   "the v3 copies: the accelerated lookups give the reference's answers ($ref_pcs pcs)")
	or diag($ref);
ok(!@bad_image, 'nothing but .sframe differs in the rewritten copies') or diag(@bad_image);
ok(!@bad_size, 'version 3 is version 2 plus one byte a function') or diag(@bad_size);
ok(!grep({ !m{^bin/(funcs|spread)-} } @missing),
   'only the generated one-object programs lack the room (' . join(' ', @missing) . ')');

# --- 2. what rewrite refuses ----------------------------------------------
my $obj = (grep { elf_type($_) == 1 } build_elves())[0];
my (undef, $st) = run($tool, 'rewrite', '--to', '3', $obj, '-o', "$dir/obj");
ok($st == 1 && !-e "$dir/obj", "rewrite refuses a relocatable object ($obj)");
system($tool, 'convert', '--to', '2', "$root/bin/fib", '-o', "$dir/blob") == 0 or die;
(undef, $st) = run($tool, 'rewrite', '--to', '3', "$dir/blob", '-o', "$dir/blob3");
ok($st == 1 && !-e "$dir/blob3", 'rewrite refuses a raw section');
(undef, $st) = run($tool, 'rewrite', '--to', '3', "$root/bin/funcs-100000", '-o', "$dir/big");
ok($st == 3 && !-e "$dir/big", 'a section without room: status 3, no output');

# --- 3. against binutils 2.46 ---------------------------------------------
my $fx = 'test/sframe/binutils-2.46';
# name => [how gcc made it there (README.md), FDEs version 1 cannot carry]
my %fixture = (
	'simple-O2.o' => [[qw(-O2 -c simple.c)], 0],
	'realign-O0.o' => [[qw(-O0 -fomit-frame-pointer -c realign.c)], 0],
	'realign-O2.o' => [[qw(-O2 -fomit-frame-pointer -c realign.c)], 0],
	'flexible-drap-O2.o' => [[qw(-O2 -fomit-frame-pointer -mstackrealign -c drap.c)], 1],
	'signal-frame.o' => [[qw(-c sigtramp.S)], 0],
	'varied-O0.o' => [[qw(-O0 -fomit-frame-pointer -c varied.c)], 0],
	'varied-O2.o' => [[qw(-O2 -fomit-frame-pointer -c varied.c)], 0],
	'varied-Os.o' => [[qw(-Os -fomit-frame-pointer -c varied.c)], 0],
	'varied-O2-fp.o' => [[qw(-O2 -fno-omit-frame-pointer -c varied.c)], 0],
	'varied-static' => [[qw(-O2 -fomit-frame-pointer -static varied.c)], 0],
	'libfx.so' => [[qw(-O2 -fPIC -shared -fomit-frame-pointer lib.c)], 1],
	'useslib' => [[qw(-O2 -fomit-frame-pointer useslib.c), "-L$dir", '-lfx'], 1],
);

# A version 3 section's functions, each as its size and the bytes of its
# attribute record and rows (the spec's layout: a 28-byte header, the
# auxiliary header, 16-byte index entries, the FRE sub-section), sorted.
sub records {
	my ($b) = @_;
	my ($magic, $ver, $aux, $nfde, $fdeoff, $freoff) =
		(unpack('vC', $b), unpack('x7CV x8 VV', $b));
	return () unless $magic == 0xdee2 && $ver == 3;
	my ($fdes, $fres) = (28 + $aux + $fdeoff, 28 + $aux + $freoff);
	my @r;
	for my $i (0 .. $nfde - 1) {
		my (undef, $size, $off) = unpack('q<VV', substr($b, $fdes + 16 * $i, 16));
		my $at = $fres + $off;
		my ($n, $info) = unpack('vC', substr($b, $at, 3));
		my ($p, $asz) = ($at + 5, (1, 2, 4, 0)[$info & 3]);
		for (1 .. $n) {
			my $fi = ord(substr($b, $p + $asz, 1));
			$p += $asz + 1 + (($fi >> 1) & 0xf) * (1 << (($fi >> 5) & 3));
		}
		push @r, "$size " . unpack('H*', substr($b, $at, $p - $at));
	}
	return sort @r;
}

# How many of @$a are in @$b (as many times).
sub common {
	my ($a, $b) = @_;
	my %left;
	$left{$_}++ for @$b;
	return scalar grep { $left{$_} && $left{$_}-- } @$a;
}

# A dump's function blocks, each with its pc taken out (rows relative to
# it), sorted.
sub blocks {
	my ($text) = @_;
	my (@b, $pc);
	for (split /\n/, $text) {
		if (/^\s+func idx \[\d+\]: pc = (0x[0-9a-f]+), (size = .*)$/) {
			$pc = hex($1);
			push @b, "$2\n";
		} elsif (@b && /^\s+([0-9a-f]{16})\s+(.*?)\s*$/) {
			$b[-1] .= sprintf("+%x %s\n", hex($1) - $pc, $2 =~ s/\s+/ /gr);
		} elsif (@b && /STARTPC/) {
			$b[-1] .= join(' ', split ' ') . "\n";
		}
	}
	return sort @b;
}

my ($fdes_equal, $fdes_246, $bytes_equal) = (0, 0, 0);
for my $name (sort { ($a eq 'useslib') <=> ($b eq 'useslib') } keys %fixture) {
	my ($how, $v1_cannot) = @{ $fixture{$name} };
	my @src = map { m{^[\w-]+\.[cS]$} ? "$fx/$_" : $_ } @$how;
	my $made = "$dir/$name";
	my ($out, $st) = run('gcc', '-Wa,--gsframe', @src, '-o', $made);
	my $linked = $made;
	if ($st == 0 && $name =~ /\.o$/) {
		$linked = "$made.x";
		(undef, $st) = run('ld', '-e', '0', '--unresolved-symbols=ignore-all', $made, '-o', $linked);
	}
	my ($c) = run($tool, 'check', $linked);
	my ($addr) = $c =~ /: ok: version 1 at (0x[0-9a-f]+),/;
	unless ($st == 0 && $addr) {
		ok(0, "$name: assembled here as version 1");
		next;
	}
	# gas 2.40 cannot mark a signal trampoline: the converter does (--signal).
	my @sig;
	if ($name =~ /^signal/) {
		my ($d) = run($tool, 'dump', $linked);
		@sig = ('--signal', $1) if $d =~ /pc = (0x[0-9a-f]+)/;
	}
	(undef, $st) = run($tool, 'convert', '--to', '3', @sig, $linked, '-o', "$made.v3");
	my ($ours) = run($tool, 'dump', '--style=2.46', '--vaddr', $addr, "$made.v3");
	my @ours = blocks($ours);
	my @theirs = blocks(slurp("$fx/$name.readelf.txt"));
	my $equal = common(\@ours, \@theirs);
	system('objcopy', '-O', 'binary', '--only-section=.sframe', "$fx/$name", "$made.246") == 0
		or die "objcopy $fx/$name\n";
	my @raw_ours = records(slurp("$made.v3"));
	my $bytes = common(\@raw_ours, [records(slurp("$made.246"))]);
	$fdes_equal += $equal;
	$bytes_equal += $bytes;
	$fdes_246 += @theirs;
	ok($st == 0 && $equal == @ours && $bytes == @ours && @raw_ours == @ours &&
	   @theirs - $equal == $v1_cannot,
	   "$name: all " . scalar(@ours) . " functions as binutils 2.46 wrote them, dumped and "
	   . "in the bytes" . ($v1_cannot ? ", and the $v1_cannot version 1 cannot carry" : ''))
		or diag("ours:\n$ours");
}
diag("$fdes_equal of binutils 2.46's $fdes_246 functions equal in the dump, "
     . "$bytes_equal in the bytes of their attribute records and rows");

done();
