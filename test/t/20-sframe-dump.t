#!/usr/bin/perl
# Test 1: `sframe dump` prints exactly what `readelf --sframe` (binutils
# 2.40) prints: for newlib's libc.a (every member), for every ELF file and
# archive under build/, for a dynamically linked program and shared object
# (PLT stubs), and for hand-made version 1 sections that exercise
# corners real code does not (flags, AArch64 key B and signed RA, fixed FP,
# 2- and 4-byte FRE addresses and offsets).
use strict;
use warnings;
use File::Temp qw(tempdir);
require './test/sframe/lib.pl';

our ($tests, $failed);
my $p = paths();
my $tool = $p->{SFRAME_TOOL};

# Where two dumps of many files first differ: the "File:" block and line.
sub first_difference {
	my ($mine, $theirs) = @_;
	my @a = split /\n/, $mine, -1;
	my @b = split /\n/, $theirs, -1;
	my $file = '(first file)';
	for my $i (0 .. ($#a > $#b ? $#a : $#b)) {
		$file = $b[$i] if defined $b[$i] && $b[$i] =~ /^File: /;
		my ($x, $y) = ($a[$i] // '<eof>', $b[$i] // '<eof>');
		return "$file, line " . ($i + 1) . ":\n  sframe:  $x\n  readelf: $y" if $x ne $y;
	}
	return 'no difference';
}

sub same_as_readelf {
	my ($name, @files) = @_;
	my ($mine) = run($tool, 'dump', @files);
	my ($theirs) = run('readelf', '--sframe', @files);
	my $sections = () = $theirs =~ /^Contents of the SFrame section/mg;
	ok($sections > 0 && $mine eq $theirs, "$name: identical to readelf --sframe ($sections sections)")
		or diag(first_difference($mine, $theirs));
}

# 1. newlib's libc.a, built with -Wa,--gsframe by mk/newlib.mk.
my $libc = $p->{NEWLIB_LIBC};
ok(-f $libc, "newlib libc.a exists ($libc)") or diag('make $(NEWLIB_LIBC) first');
same_as_readelf('libc.a', $libc) if -f $libc;
my ($members) = run('ar', 't', $libc);
my ($with) = run('readelf', '--sframe', $libc);
my $nmembers = () = $members =~ /\n/g;
my $nsframe = () = $with =~ /^Contents of the SFrame section/mg;
diag("libc.a: $nmembers members, $nsframe with .sframe");
ok($nsframe > 400, "libc.a has many SFrame sections ($nsframe)");

# 2. Every ELF file and archive the project has built so far.
my @elves = build_elves();
diag(scalar(@elves) . " ELF files and archives under build/");
same_as_readelf('every ELF under build/', @elves) if @elves;

# 3. A dynamically linked program and a shared object: PLT (PCMASK) FDEs.
same_as_readelf('dynamic executable and shared object',
		map { "$p->{SFRAME_DIR}/test/$_" } qw(sample libsample.so));

# 4. Hand-made sections placed in an ELF file with objcopy.
my $dir = tempdir(CLEANUP => 1);
my $gen = "$p->{SFRAME_DIR}/test/vectors";
my ($list, $st) = run($gen, 'valid', $dir);
ok($st == 0 && $list ne '', 'generate hand-made valid sections');
my $host = "$dir/host.o";
open(my $c, '>', "$dir/host.c") or die;
print $c "int host;\n";
close $c;
system('gcc', '-c', "$dir/host.c", '-o', $host) == 0 or die "gcc failed\n";
for my $blob (split /\n/, $list) {
	(my $elf = $blob) =~ s/\.sframe$/.o/;
	system('objcopy', '--add-section', ".sframe=$blob", $host, $elf) == 0
		or die "objcopy failed on $blob\n";
	my ($base) = $blob =~ m{([^/]+)\.sframe$};
	same_as_readelf("hand-made $base", $elf);
}

done();
