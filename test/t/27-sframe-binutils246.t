#!/usr/bin/perl
# SFrame version 3 as GNU binutils 2.46.0 writes it (test/sframe/binutils-2.46,
# its README says how each file was made):
#   - for every function of every file and every pc in it, `sframe lookup`
#     gives the row and the rule readelf 2.46's dump gives for that pc: the
#     function's start and size, the row's start, the CFA (base register,
#     offset, loaded or not), the FP and RA rules, the signal and flexible
#     attributes. Relocatable objects are looked up FDE by FDE (their
#     functions start at offsets in different sections, which overlap);
#     linked files also by search, which must find the same FDE, and the
#     bytes just outside each function must find no other;
#   - `sframe dump --style=2.46` is byte-identical to readelf 2.46's dump;
#   - every section passes the library's full validation (`sframe check`);
#   - a relocation `sframe` cannot apply is an error, not a silent guess.
use strict;
use warnings;
use File::Temp qw(tempdir);
require './test/sframe/lib.pl';

our ($tests, $failed);
my $p = paths();
my $tool = $p->{SFRAME_TOOL};
my $dir = 'test/sframe/binutils-2.46';
my @files = qw(simple-O2.o realign-O0.o realign-O2.o flexible-drap-O2.o
	       signal-frame.o varied-O0.o varied-O2.o varied-Os.o varied-O2-fp.o
	       varied-static libfx.so useslib);
my $PLT_ENTRY = 16; # AMD64 PLT entries: the block a [m] FDE's rows repeat in

sub slurp { my ($f) = @_; open(my $h, '<', $f) or die "$f: $!\n"; local $/; return <$h>; }

# readelf 2.46's register names (AMD64) as DWARF numbers, lookup's spelling.
sub reg { my ($r) = @_; return $r eq 'sp' ? 'r7' : $r eq 'fp' ? 'r6' : $r; }

# One column of a dump row as the rule `sframe lookup` prints. fixed_ra is
# the header's "CFA fixed RA offset": where "f" (fixed) and "U" (padding:
# the fixed slot applies) put the RA.
sub cfa_rule {
	my ($t) = @_;
	return "[" . reg($1) . "$2]" if $t =~ /^\((\w+)([+-]\d+)\)$/;
	return reg($1) . $2 if $t =~ /^(\w+)([+-]\d+)$/;
	die "CFA column '$t'\n";
}
sub where_rule {
	my ($t, $fixed_ra) = @_;
	return 'same' if $t eq 'u';
	return "[cfa$fixed_ra]" if $t eq 'f' || $t eq 'U';
	return "[cfa$1]" if $t =~ /^c([+-]\d+)$/;
	return "[" . reg($1) . "$2]" if $t =~ /^\((\w+)([+-]\d+)\)$/;
	return reg($1) . $2 if $t =~ /^(\w+)([+-]\d+)$/;
	die "column '$t'\n";
}

# Functions of a dump: start, size, attributes, PLT flag, rows.
sub parse_dump {
	my ($text) = @_;
	my ($fixed_ra) = $text =~ /^    CFA fixed RA offset: (-?\d+)$/m;
	my (@funcs, $f);
	for (split /\n/, $text) {
		if (/^    func idx \[(\d+)\]: pc = 0x([0-9a-f]+), size = (\d+) bytes(?:, attr = "(\w+)")?$/) {
			$f = { idx => $1, start => hex $2, size => $3, attr => $4 // '', rows => [] };
			push @funcs, $f;
		} elsif (/^    STARTPC(\[m\])?/) {
			$f->{mask} = defined $1;
		} elsif (/^    ([0-9a-f]{16})  RA undefined$/) {
			push @{$f->{rows}}, { pc => hex $1, undefined => 1 };
		} elsif (/^    ([0-9a-f]{16})  (\S+)\s+(\S+)\s+(\S+?)(\[s\])?\s*$/) {
			push @{$f->{rows}}, { pc => hex $1, cfa => cfa_rule($2),
					      fp => where_rule($3, $fixed_ra),
					      ra => where_rule($4, $fixed_ra) };
		}
	}
	return @funcs;
}

# What lookup must print for pc in f, per the dump: the last row whose start
# is not above the pc's offset (in the PLT entry, for [m] FDEs).
sub expected {
	my ($f, $pc) = @_;
	my $key = $f->{mask} ? ($pc - $f->{start}) % $PLT_ENTRY : $pc;
	my ($row) = grep { $_->{pc} <= $key } reverse @{$f->{rows}};
	return sprintf('0x%x: no FRE before pc', $pc) unless $row;
	my $rel = $f->{mask} ? $row->{pc} : $row->{pc} - $f->{start};
	my $rule = $row->{undefined} ? 'cfa=r7+0 ra=undefined fp=same'
		: "cfa=$row->{cfa} ra=$row->{ra} fp=$row->{fp}";
	return sprintf('0x%x: fde %d [0x%x,+%d) fre +0x%x %s%s', $pc, $f->{idx},
		       $f->{start}, $f->{size}, $rel, $rule,
		       $f->{attr} ? " attr=$f->{attr}" : '');
}

sub first_difference {
	my @a = split /\n/, $_[0], -1;
	my @b = split /\n/, $_[1], -1;
	for my $i (0 .. ($#a > $#b ? $#a : $#b)) {
		my ($x, $y) = ($a[$i] // '<eof>', $b[$i] // '<eof>');
		return "line " . ($i + 1) . ":\n  sframe:  $x\n  readelf: $y" if $x ne $y;
	}
	return 'no difference';
}

# Compares lookup's lines with the expected ones: counts and first misses.
sub compare {
	my ($name, $got, @want) = @_;
	my @got = split /\n/, $got;
	my @bad = grep { ($got[$_] // '<none>') ne $want[$_] } 0 .. $#want;
	ok(@want && !@bad && @got == @want, "$name: " . scalar(@want) . " pcs as readelf 2.46 says")
		or diag(map { "  want: $want[$_]\n  got:  " . ($got[$_] // '<none>') } @bad[0 .. ($#bad < 4 ? $#bad : 4)]);
}

my (%kinds, $pcs);
for my $file (@files) {
	my $path = "$dir/$file";
	my $dump = slurp("$path.readelf.txt");
	my @funcs = parse_dump($dump);
	my $linked = $file !~ /\.o$/;
	my (@all, @want_all, @per_fde_got, @per_fde_want);
	for my $f (@funcs) {
		$kinds{$f->{attr}}++ if $f->{attr};
		$kinds{plt}++ if $f->{mask};
		my @pc = map { $f->{start} + $_ } 0 .. $f->{size} - 1;
		my ($got) = run($tool, 'lookup', '--fde', $f->{idx}, $path, map { sprintf '0x%x', $_ } @pc);
		push @per_fde_got, split /\n/, $got;
		push @per_fde_want, map { expected($f, $_) } @pc;
		push @all, @pc;
	}
	$pcs += @all;
	compare("$file: every function, FDE by FDE", join("\n", @per_fde_got), @per_fde_want);
	if ($linked) {
		# By search: the same answers, and the byte before each function
		# and the one after it are in no function or in a neighbour.
		my ($got) = run($tool, 'lookup', $path, map { sprintf '0x%x', $_ } @all);
		compare("$file: every pc found by search", $got, @per_fde_want);
		my %in = map { $_ => 1 } @all;
		my @out = grep { !$in{$_} } map { ($_->{start} - 1, $_->{start} + $_->{size}) } @funcs;
		my ($none) = run($tool, 'lookup', $path, map { sprintf '0x%x', $_ } @out);
		my $missing = () = $none =~ /: no FDE for pc$/mg;
		ok(@out && $missing == @out, "$file: the " . scalar(@out) . " bytes next to functions are in none");
	}
	my ($mine, $status) = run($tool, 'dump', '--style=2.46', $path);
	ok($status == 0 && $mine eq $dump, "$file: sframe dump --style=2.46 is byte-identical to readelf 2.46")
		or diag(first_difference($mine, $dump));
}
diag("$pcs pcs compared");
my ($checked, $cst) = run($tool, 'check', map { "$dir/$_" } @files);
my $valid = () = $checked =~ /: ok: version 3 at /g;
ok($cst == 0 && $valid == @files, "sframe check: all $valid sections validate (relocated objects too)")
	or diag($checked);
ok($kinds{F} && $kinds{S} && $kinds{plt}, 'the fixtures hold flexible, signal and PLT FDEs');

# The lookup of the flexible FDE is exactly the DRAP sequence: r10, then a
# load through fp-8 (in the realigned body), r10 again, sp.
my ($drap) = run($tool, 'lookup', "$dir/flexible-drap-O2.o", qw(0x5 0x29 0x53 0x54 0x5e));
is_lines($drap, 'flexible FDE rows by hand',
	 '0x5: fde 0 [0x0,+113) fre +0x5 cfa=r10+0 ra=[cfa-8] fp=same attr=F',
	 '0x29: fde 0 [0x0,+113) fre +0x29 cfa=[r6-8] ra=[cfa-8] fp=[r6+0] attr=F',
	 '0x53: fde 0 [0x0,+113) fre +0x29 cfa=[r6-8] ra=[cfa-8] fp=[r6+0] attr=F',
	 '0x54: fde 0 [0x0,+113) fre +0x54 cfa=r10+0 ra=[cfa-8] fp=[r6+0] attr=F',
	 '0x5e: fde 0 [0x0,+113) fre +0x5e cfa=r7+8 ra=[cfa-8] fp=[r6+0] attr=F');

sub is_lines {
	my ($got, $name, @want) = @_;
	ok($got eq join('', map { "$_\n" } @want), $name) or diag("got:\n$got");
}

# Relocations: without them (readelf 2.40's view) every start is the raw
# PC-relative field; a relocation type that cannot be applied is refused.
my ($raw) = run($tool, 'dump', "$dir/flexible-drap-O2.o");
ok($raw =~ /func idx \[0\]: pc = 0x1c,/ && $raw =~ /func idx \[1\]: pc = 0x2c,/,
   'dump (2.40 style) leaves the start fields unrelocated, as readelf 2.40 does');
my $tmp = tempdir(CLEANUP => 1);
my $bad = "$tmp/bad-reloc.o";
system('cp', "$dir/flexible-drap-O2.o", $bad) == 0 or die;
# Byte 8 of the first .rela.sframe entry is its type: R_X86_64_PC64 (24)
# becomes R_X86_64_GOTPCREL (9), which needs a GOT.
my ($rela) = `readelf -S -W $bad` =~ /\.rela\.sframe\s+RELA\s+\S+\s+([0-9a-f]+)/;
open(my $h, '+<:raw', $bad) or die;
seek($h, hex($rela) + 8, 0); print $h "\x09"; close($h);
my ($out, $st) = run($tool, 'lookup', $bad, '0x0');
my $err = `$tool lookup $bad 0x0 2>&1 >/dev/null`;
ok($st != 0 && $out eq '' && $err =~ /\.rela\.sframe: entry 0: relocation type 9 not supported/,
   'an unsupported relocation: error, status 1, no answer') or diag("status $st, out '$out', err '$err'");
done();
