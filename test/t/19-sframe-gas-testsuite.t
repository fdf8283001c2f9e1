#!/usr/bin/perl
# binutils' own SFrame tests through our reader (host only). Inputs from
# the binutils 2.40 tarball of Debian's binutils-source, extracted by
# mk/binutils.mk under build/binutils/src/:
#
# 1. gas/testsuite/gas/cfi-sframe/: every .s that cfi-sframe.exp runs on an
#    x86_64 target (its blocks' istarget conditions), assembled by the host
#    `as` with the flags the exp file and the .d file give (ASFLAGS --64 in
#    the x86_64 block, the .d's "#as:" line). For each: gas prints nothing
#    and succeeds; `sframe check` accepts the object; `sframe dump` prints
#    exactly what `readelf --sframe` prints; and the dump matches the .d
#    file's expected lines under run_dump_test's rules (blank lines ignored,
#    "#..." skips to the next match, "#pass" ends, each line an anchored
#    regular expression), which the host's own objdump --sframe output must
#    match as well (that proves the matcher, not our reader). The .s files
#    the exp file runs on other targets only, those not named in it and
#    those whose .d expects errors or warnings are skipped, counted and
#    listed with the reason. `sframe check` accepts the FDE of size 0 that
#    gas emits for an empty .cfi_startproc/.cfi_endproc region (common-1,
#    -2, -3), as libsframe and readelf do, and `sframe lookup` finds no
#    function at its address (it covers no pc, docs/SFRAME.md).
# 2. libsframe/testsuite/libsframe.decode/: DATA1 and DATA2 (raw sections
#    that gas made on x86_64) are accepted by `sframe check`, dumped as
#    readelf dumps them (placed in an ELF file with objcopy), and have the
#    FDE and FRE counts that frecnt-1.c and frecnt-2.c assert; DATA-BE
#    (big-endian, AArch64, be-flipping.c) is refused with the endianness
#    error (docs/SFRAME.md: little-endian only), not misread.
use strict;
use warnings;
use File::Temp qw(tempdir);
require './test/sframe/lib.pl';

our ($tests, $failed);
my $p = paths();
my $tool = $p->{SFRAME_TOOL};
my $src = 'build/binutils/src';
my $gasdir = "$src/gas/testsuite/gas/cfi-sframe";
my $decdir = "$src/libsframe/testsuite/libsframe.decode";
my $dir = tempdir(CLEANUP => 1);

unless (ok(-f "$gasdir/cfi-sframe.exp" && -f "$decdir/DATA1",
	   "the binutils 2.40 testsuite is extracted ($src)")) {
	diag('make build/binutils/extracted.stamp first');
	done();
}

sub slurp { my ($f) = @_; open(my $h, '<', $f) or die "$f: $!\n"; local $/; return <$h>; }

# stdout and stderr of a command given as a list, and its exit status.
sub run_all {
	my @cmd = @_;
	my $pid = open(my $h, '-|') // die "fork: $!\n";
	if ($pid == 0) {
		open(STDERR, '>&', \*STDOUT);
		exec(@cmd) or die "$cmd[0]: $!\n";
	}
	local $/;
	my $out = <$h> // '';
	close($h);
	return ($out, $? >> 8);
}

# run_dump_test's regexp_diff (binutils-common.exp), for the directives
# the cfi-sframe .d files use: blank lines on either side are ignored,
# "#..." skips output lines until the next expected line matches, "#pass"
# ends with success, other lines starting with '#' are option lines or
# comments, every other line is a regular expression anchored at both ends.
# Returns '' on a match, else what failed.
sub regexp_diff {
	my ($output, $expect) = @_;
	my @a = grep { length } split /\n/, $output;
	my @b = grep { length } split /\n/, $expect;
	my ($i, $j) = (0, 0);
	while (1) {
		# The next expected line, handling directives.
		my $skip = 0;
		while ($j < @b && $b[$j] =~ /^#/) {
			return '' if $b[$j] eq '#pass';
			$skip = 1 if $b[$j] eq '#...';
			$j++;
		}
		if ($j >= @b) {
			return '' if $skip;
			return $i >= @a ? '' : "extra output from \"$a[$i]\"";
		}
		my $re = $b[$j];
		if ($skip) {
			$i++ while $i < @a && $a[$i] !~ /^(?:$re)$/;
		}
		return "no output line left for /^$re\$/" if $i >= @a;
		return "\"$a[$i]\" does not match /^$re\$/" if $a[$i] !~ /^(?:$re)$/;
		$i++;
		$j++;
	}
}

# 1. gas/testsuite/gas/cfi-sframe.
# Which tests cfi-sframe.exp runs under which condition, and with which
# extra ASFLAGS.
my (%cond, %asflags);
{
	my ($c, $flags) = ('', '');
	(my $exp = slurp("$gasdir/cfi-sframe.exp")) =~ s/\\\n\s*/ /g;   # continued lines
	for (split /\n/, $exp) {
		if (/^if\s*\{(.*)\}\s*then/) { ($c, $flags) = ($1, ''); next; }
		$flags = $1 if /set ASFLAGS "\$ASFLAGS ([^"]*)"/;
		$flags = '' if /set ASFLAGS "\$old_ASFLAGS"/;
		if (/run_dump_test "([^"]+)"/) { $cond{$1} = $c; $asflags{$1} = $flags; }
		($c, $flags) = ('', '') if /^\}/;
	}
}

my (@run, @skipped);
for my $s (sort glob("$gasdir/*.s")) {
	my ($name) = $s =~ m{([^/]+)\.s$};
	my $d = "$gasdir/$name.d";
	if (!exists $cond{$name}) { push @skipped, "$name: not run by cfi-sframe.exp"; next; }
	if ($cond{$name} !~ /istarget "x86_64-\*-\*"/) {
		my @t = $cond{$name} =~ /istarget "([^"]+)"/g;
		push @skipped, "$name: cfi-sframe.exp runs it only on " . join(' ', @t);
		next;
	}
	if (!-f $d) { push @skipped, "$name: no .d file"; next; }
	my $dtext = slurp($d);
	if ($dtext =~ /^#(error|warning|error_output|warning_output)\b/m) {
		push @skipped, "$name: its .d expects gas to report an $1";
		next;
	}
	if ($dtext =~ /^#notarget:.*x86_64/m) { push @skipped, "$name: #notarget x86_64"; next; }
	push @run, [$name, $s, $dtext];
}

for my $t (@run) {
	my ($name, $s, $dtext) = @$t;
	my ($asline) = $dtext =~ /^#as:(.*)$/m;
	my @flags = (split(' ', $asflags{$name}), split(' ', $asline // ''));
	my $obj = "$dir/$name.o";
	my ($err, $st) = run_all('as', @flags, '-o', $obj, $s);
	next unless ok($st == 0 && $err eq '' && -f $obj,
		       "$name: as " . join(' ', @flags, $s =~ m{([^/]+)$}) . " assembles it without a message");
	my ($chk, $cst) = run_all($tool, 'check', $obj);
	my ($mine) = run($tool, 'dump', $obj);
	my ($theirs) = run('readelf', '--sframe', $obj);
	ok($cst == 0, "$name: sframe check accepts it") or diag($chk);
	if ($theirs =~ /func idx \[0\]: pc = 0x0, size = 0 bytes/) {
		# gas 2.40 gives an empty .cfi_startproc/.cfi_endproc region an
		# FDE of size 0 (one row at 0): it covers no pc, not even its
		# start.
		my ($look) = run($tool, 'lookup', $obj, '0x0');
		ok($look =~ /no FDE for pc/, "$name: its FDE of size 0 covers no pc: "
		   . "sframe lookup finds no function at 0") or diag($look);
	}
	my ($fdes, $fres) = $theirs =~ /Num FDEs: (\d+)\s+Num FREs: (\d+)/;
	ok(defined $fdes && $mine eq $theirs,
	   "$name: sframe dump identical to readelf --sframe (" .
	   ($fdes // '?') . ' FDEs, ' . ($fres // '?') . ' FREs)')
		or diag("sframe:\n$mine\nreadelf:\n$theirs");
	my ($objdump) = run('objdump', '--sframe=.sframe', $obj);
	my $why = regexp_diff($objdump, $dtext);
	ok($why eq '', "$name: objdump --sframe matches the .d file (the matcher's check)")
		or diag($why);
	$why = regexp_diff($mine, $dtext);
	ok($why eq '', "$name: sframe dump matches the .d file's expected lines") or diag($why);
}
ok(@run >= 10, scalar(@run) . ' gas tests run on x86_64, ' . scalar(@skipped) . ' skipped');
diag("skipped: $_") for @skipped;

# 2. libsframe/testsuite/libsframe.decode.
my $host = "$dir/host.o";
open(my $c, '>', "$dir/host.c") or die;
print $c "int host;\n";
close $c;
system('gcc', '-c', "$dir/host.c", '-o', $host) == 0 or die "gcc failed\n";

for my $case (['DATA1', 'frecnt-1.c'], ['DATA2', 'frecnt-2.c']) {
	my ($data, $csrc) = @$case;
	my $blob = "$decdir/$data";
	my $ctext = slurp("$decdir/$csrc");
	my ($want_fdes) = $ctext =~ /fde_cnt == (\d+)/;
	my ($want_fres) = $ctext =~ /nfres == (\d+)/;
	my ($chk, $cst) = run_all($tool, 'check', $blob);
	ok($cst == 0, "$data: sframe check accepts it") or diag($chk);
	my $elf = "$dir/$data.o";
	system('objcopy', '--add-section', ".sframe=$blob", $host, $elf) == 0
		or die "objcopy failed on $blob\n";
	my ($mine) = run($tool, 'dump', $elf);
	my ($theirs) = run('readelf', '--sframe', $elf);
	ok($theirs =~ /Num FDEs/ && $mine eq $theirs,
	   "$data: sframe dump identical to readelf --sframe")
		or diag("sframe:\n$mine\nreadelf:\n$theirs");
	# Rows per function in our dump (the lines after each STARTPC header).
	my @rows;
	for (split /\n/, $mine) {
		push @rows, 0 if /^\s+STARTPC/;
		$rows[-1]++ if @rows && /^\s+[0-9a-f]{16}\s/;
	}
	ok(defined $want_fdes && defined $want_fres && @rows == $want_fdes &&
	   !grep({ $_ != $want_fres } @rows),
	   "$data: $want_fdes FDEs of $want_fres FREs each, as $csrc asserts (dump: " .
	   scalar(@rows) . " FDEs, FREs " . join('/', @rows) . ')');
}
{
	my ($chk, $cst) = run_all($tool, 'check', "$decdir/DATA-BE");
	ok($cst != 0 && scalar($chk =~ /other byte order/),
	   'DATA-BE (big-endian, be-flipping.c): refused with the endianness error, not misread')
		or diag($chk);
}
diag('not run: libsframe.encode/encode-1.c (a C program of libsframe\'s encoder API, no data)');

done();
