#!/usr/bin/perl
# docs/BENCHMARKS.md is one run's page: tools/bench/output.py writes every
# table and every number of its text from docs/bench/results.json through
# the template docs/bench/BENCHMARKS.md.in, and each curve's plot data and
# gnuplot script into docs/bench/. The committed page and plot data must
# be what the committed results give; a results file changed in one
# number must give another page (and another plot), a page changed in one
# digit must be caught, and a results file without a number the text
# quotes must be refused, not quoted as something else; a part the
# committed results lack (compat) must appear once results hold it. No
# boot: the results are the committed ones.
use strict;
use warnings;
use FindBin;
BEGIN { chdir "$FindBin::Bin/../.." or die }
use File::Copy qw(copy);
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

my $dir = tempdir('bench-page-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my %file = (results => 'docs/bench/results.json', template => 'docs/bench/BENCHMARKS.md.in',
	    page => 'docs/BENCHMARKS.md', plots => 'docs/bench');

sub slurp { my ($p) = @_; open(my $f, '<:raw', $p) or return undef; local $/; scalar <$f> }
sub spew { my ($p, $t) = @_; open(my $f, '>:raw', $p) or die "$p: $!"; print $f $t; close $f }

# output.py with the committed files but those of %over; its exit status
# and what it printed.
sub page {
	my (%over) = @_;
	my %f = (%file, %over);
	my @cmd = ('python3', 'tools/bench/output.py', map({ ("--$_", $f{$_}) } qw(results template page plots)),
		   @{$f{args} // ['--check']});
	my $out = `@cmd 2>&1`;
	return ($? >> 8, $out);
}

my $r = decode_json(slurp($file{results}) // '{}');
like($r->{commit} // '', qr/^[0-9a-f]{40}(-dirty)?$/, "the results name their commit ($r->{commit})");
like($r->{sha256}{$_} // '', qr/^[0-9a-f]{64}$/, "the results hold the ${_}'s SHA-256") for qw(kernel initrd);
my $committed = slurp($file{page}) // '';
for my $what ($r->{commit}, $r->{sha256}{kernel}, $r->{sha256}{initrd}) {
	ok(index($committed, $what) >= 0, "the page names $what");
}
my @curves = sort keys %{$r->{curves} // {}};
ok(@curves >= 5, "the results hold the curves (@curves)");

my ($rc, $out) = page();
is($rc, 0, 'the committed page and plot data are what the committed results give') or diag($out);

# Written afresh into a directory of its own: byte for byte the committed files.
($rc, $out) = page(page => "$dir/page.md", plots => $dir, args => ['--no-draw']);
is($rc, 0, 'output.py writes the page') or diag($out);
is(slurp("$dir/page.md"), $committed, 'the page it writes is the committed one');
for my $c (@curves) {
	for my $ext ('csv', 'gp') {
		my $got = slurp("$dir/$c.$ext");
		ok(defined $got && $got eq (slurp("$file{plots}/$c.$ext") // ''),
		   "$c.$ext: the committed plot " . ($ext eq 'csv' ? 'data' : 'script'));
	}
}

# output.py --check on the committed results changed by the Python
# statement $change on r (written by Python's json, as bench.py writes
# them, so that every number keeps its type) into $dir/$file.
sub with_change {
	my ($file, $change) = @_;
	system('python3', '-c', 'import json, sys; r = json.load(open(sys.argv[1])); exec(sys.argv[3]); '
	       . 'json.dump(r, open(sys.argv[2], "w"))', $file{results}, "$dir/$file", $change) == 0
		or BAIL_OUT("cannot write $dir/$file");
	return page(results => "$dir/$file");
}

# The results read and written back unchanged still give the page: what
# follows fails for the change it makes, not for the rewriting.
($rc, $out) = with_change('same.json', 'pass');
is($rc, 0, 'the same results, written again, give the same page') or diag($out);

# One number of the mode table changed.
my ($sf) = grep { $_->{mode} eq 'sframe' } @{$r->{modes}{rows}};
($rc, $out) = with_change('modes.json', '[x for x in r["modes"]["rows"] if x["mode"] == "sframe"][0]'
			  . '["unwind_cycles_per_sample"] += 1000');
is($rc, 1, 'a results file with another sframe unwind cost gives another page');
like($out, qr/docs\/BENCHMARKS\.md/, 'the page is named as not what the results give');
like($out, qr/\Q${\ sprintf('%.0f', $sf->{unwind_cycles_per_sample} + 1000)}\E/,
     'the diff shows the changed number');

# One point of a curve changed: its plot data differ too.
($rc, $out) = with_change('depth.json', 'r["curves"]["depth"][-1]["profiler_cycles_per_sample"] += 7');
is($rc, 1, 'a changed point of the depth curve is caught');
like($out, qr/docs\/bench\/depth\.csv/, 'its plot data are named');

# The committed page changed in one digit of a table.
(my $tampered = $committed) =~ s/(\n\| sframe \| )(\d)/$1 . ($2 == 9 ? 1 : $2 + 1)/e
	or BAIL_OUT('no sframe row in the page');
spew("$dir/tampered.md", $tampered);
($rc, $out) = page(page => "$dir/tampered.md");
is($rc, 1, 'a page changed in one digit is not what the results give');

# A number the text quotes, gone from the results: refused, with its path.
($rc, $out) = with_change('gone.json', 'del r["modes"]["fp_build_cost_pct"]');
is($rc, 2, 'results without a number the text quotes are refused');
like($out, qr/modes\.fp_build_cost_pct/, 'the error names the missing number');

# A part the committed results lack (make bench BENCH_PARTS=compat): its
# section is left out of the page above; with the part it is written, its
# table and the numbers its text quotes from the rows; a row it quotes,
# gone, is refused.
my $compat = 'sys.path.insert(0, "tools/bench"); import output; '
	. 'row = lambda b, m: dict({k: 7 for k in output.COMPAT_KEYS}, build=b, mode=m, status="ok", '
	. 'start_pct=(12.34 if (b, m) == ("i386", "eh-frame") else 7)); '
	. 'r["compat"] = {"hz": 1000, "suite": ["/bin/fib32 28 8"], "rows": [row(b, m) for b in ("i386", "i386-fp") '
	. 'for m in ("fp", "fp-deferred", "eh-frame", "stack-copy", "validate", "validate-eh")], '
	. '"mixed": {"mode": "validate-eh", "programs": ["/bin/chain 64 1000", "/bin/chain32 64 1000"], '
	. '"rows": [dict(row("", "validate-eh"), program=p) for p in ("/bin/chain 64 1000", "/bin/chain32 64 1000")]}}';
($rc, $out) = with_change('compat.json', $compat);
is($rc, 1, 'results with a compat part give another page');
($rc, $out) = page(results => "$dir/compat.json", page => "$dir/compat.md", plots => $dir, args => ['--no-draw']);
is($rc, 0, '... which output.py writes') or diag($out);
my $cp = slurp("$dir/compat.md") // '';
like($cp, qr/\n## 32-bit programs: frame pointers, \.eh_frame and libdw\n/, '... with the compat section');
like($cp, qr/\n\| i386 \| eh-frame \| 7 \| 12\.34 \|/, '... its table, a row per build and mode');
like($cp, qr/end at `_start` in\s+12\.34 %, and/, '... and its text quotes the eh-frame row');
like($cp, qr/\n\| \/bin\/chain32 64 1000 \| validate-eh \|/, '... and the 64-bit and 32-bit boot, per program');
($rc, $out) = with_change('compat-gone.json', $compat . '; r["compat"]["rows"] = [x for x in r["compat"]["rows"] '
			  . 'if (x["build"], x["mode"]) != ("i386", "validate-eh")]');
is($rc, 2, 'a compat part without a row its text quotes is refused');
like($out, qr/compat\.rows\[build=i386&mode=validate-eh\]/, '... naming the row');

done_testing();
