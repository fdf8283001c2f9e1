# Reading stitch's and perf's outputs back, for the tests.
package Check;

use strict;
use warnings;
no warnings "portable"; # 64-bit addresses
use Exporter 'import';

use Stream;

our @EXPORT = qw(parse_script parse_perf_script counters_of folded_of stack_names perf_agrees run_case);

# stitch's listing: [{ comm, pid, tid, cpu, time, event, frames => [...] }]
# where a frame is { addr, name, module, file, line } or { missing => cookie }.
sub parse_script {
	my ($text) = @_;
	my (@s, $cur);
	for (split /\n/, $text) {
		if (/^\s*(\S+)\s+(\d+)\/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\d+) (\S+):/) {
			push @s, $cur = { comm => $1, pid => $2, tid => $3, cpu => $4, time => $5,
					  period => $6, event => $7, frames => [] };
		} elsif (/^\t\s*\[user stack missing\] \(cookie (\S+)\)/) {
			push @{$cur->{frames}}, { missing => hex $1, name => '[user stack missing]' };
		} elsif (/^\t\s*([0-9a-f]+) (\S+?)(?:\+0x[0-9a-f]+)? \((\S+)\)(?: (\S+):(\d+))?$/) {
			push @{$cur->{frames}}, { addr => hex $1, name => $2, module => $3,
						  file => $4, line => $5 };
		}
	}
	return \@s;
}

# perf script's default output: [{ comm, pid, time, frames => [{ name, dso }] }]
sub parse_perf_script {
	my ($text) = @_;
	my (@s, $cur);
	for (split /\n/, $text) {
		if (/^\s*(\S+)\s+(\d+)\s+(?:\[\d+\]\s+)?([\d.]+):\s+(\d+)\s+(\S+):/) {
			push @s, $cur = { comm => $1, pid => $2, time => $3, period => $4,
					  event => $5, frames => [] };
		} elsif (/^\t\s*([0-9a-f]+) (\S+?)(?:\+0x([0-9a-f]+))? \((.*)\)$/) {
			push @{$cur->{frames}}, { name => $2, off => defined $3 ? hex $3 : undef, dso => $4 };
		}
	}
	return \@s;
}

sub stack_names { my ($s) = @_; join ';', map { $_->{name} } @{$s->{frames}} }

# Does perf's stack (parse_perf_script) show stitch's (parse_script)? Frame
# for frame the same names, but for one case: a user return address just
# past the end of the calling function (a call to a noreturn function ends
# it). perf names the address: the next function at its first byte
# (+0x0), or [unknown] in the padding between; stitch names the call at
# addr - 1. Never in the kernel: the return address of each entry's call
# into C is a byte of the entry (arch/x86_64/include/arch/trap.h), so its
# frames must agree exactly. Returns (agrees, such frames).
sub perf_agrees {
	my ($p, $s) = @_;
	my @s = grep { !exists $_->{missing} } @{$s->{frames}};
	my @p = @{$p->{frames}};
	return (0, 0) unless @p == @s;
	my $boundary = 0;
	for my $i (0 .. $#p) {
		next if $p[$i]{name} eq $s[$i]{name};
		my $past_end = $p[$i]{name} eq '[unknown]' || (defined $p[$i]{off} && $p[$i]{off} == 0);
		return (0, $boundary) unless $i > 0 && $past_end && $s[$i]{name} ne '[unknown]' &&
			$p[$i]{dso} ne '[kernel.kallsyms]';
		$boundary++;
	}
	return (1, $boundary);
}

# The "== stitch counters ==" and "== run counters ==" sections of report.txt.
sub counters_of {
	my ($report) = @_;
	my (%c, $in);
	for (split /\n/, $report) {
		$in = $1 if /^== (stitch counters|run counters \(REC_STATS\)) ==/;
		$in = undef if /^== deferred/;
		$c{$1} = $2 if $in && /^\s+(\S+)\s+(\d+)/;
	}
	return \%c;
}

# profile.folded as { stack => count }.
sub folded_of {
	my ($text) = @_;
	my %f;
	for (split /\n/, $text) {
		$f{$1} += $2 if /^(.*) (\d+)$/;
	}
	return \%f;
}

# Run stitch over a stream twice: listing to stdout, then with -o. Returns
# { status, script (parsed), text, report, folded, counters, dir, stderr }.
sub run_case {
	my ($bytes, @args) = @_;
	my $dir = tmpdir();
	write_file("$dir/records.bin", $bytes);
	my %r = (dir => $dir);
	(my $st1, $r{text}, my $err1) = run_stitch(@args, "$dir/records.bin");
	(my $st2, $r{summary}, my $err2) = run_stitch(@args, '-o', "$dir/out", "$dir/records.bin");
	$r{status} = $st1 || $st2;
	$r{stderr} = $err1 . $err2;
	$r{script} = parse_script($r{text});
	$r{report} = -e "$dir/out/report.txt" ? read_file("$dir/out/report.txt") : '';
	$r{folded} = -e "$dir/out/profile.folded" ? read_file("$dir/out/profile.folded") : '';
	$r{counters} = counters_of($r{report});
	return \%r;
}

1;
