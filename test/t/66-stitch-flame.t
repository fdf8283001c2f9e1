#!/usr/bin/perl
# flame.svg in headless Chromium: it parses as XML, renders to a screenshot
# with the graph on it, shows name and share on hover and zooms on click.
use strict;
use warnings;
no warnings 'portable';
use FindBin;
use lib "$FindBin::Bin/../stitch";
BEGIN { chdir "$FindBin::Bin/../.." or die }
use Test::More;
use Compress::Zlib;
use Stream;
use Scenario;
use Check;

my ($chromium) = grep { -x } map { "$_/chromium" } split /:/, $ENV{PATH};
plan skip_all => 'chromium is not installed (Debian package chromium)' unless $chromium;

my $r = run_case(build_run()->{bytes}, '--symfs', symfs());
my $svg = "$r->{dir}/out/flame.svg";
my $text = read_file($svg);

sub chromium {
	my ($dir, @args) = @_;
	my @flags = qw(--headless --no-sandbox --disable-gpu --disable-background-networking
		       --no-first-run --disable-component-update --disable-sync);
	my $profile = tmpdir();
	return `timeout 120 $chromium @flags --user-data-dir=$profile @args 2>/dev/null`;
}

# The graph's own numbers: one <g> per tree node, the root spanning the 30
# samples of the two programs (the run's 31 less pid 0's idle one, which
# stitch leaves out without --idle).
my @frames = $text =~ /<g data-x="\d+" data-w="(\d+)" data-d="\d+" data-n="[^"]*"><title>[^<]* \((\d+) samples, [\d.]+%\)<\/title>/g;
ok(@frames > 40, 'every frame has its sample count and share in a <title>');
like($text, qr/<g data-x="0" data-w="30" data-d="0" data-n="all"><title>all \(30 samples, 100.00%\)<\/title>/,
     'the root frame spans the 30 samples that are not idle');
like($text, qr/>Stitch profile: 30 samples \(1 idle left out\)</, '... and the title says one idle sample was left out');
unlike($text, qr/(?:src|href)=["']?(?:https?:|\/\/)/, 'self-contained: no external references');

# Rendered: a PNG, exactly the SVG's size, whose pixels are not all background.
my ($w, $h) = $text =~ /<svg [^>]*width="(\d+)" height="(\d+)"/;
my $png = "$r->{dir}/flame.png";
chromium($r->{dir}, "--window-size=$w,$h", "--screenshot=$png", "file://$svg");
ok(-s $png, 'headless Chromium wrote a screenshot');
my %colours = png_colours($png);
ok(keys %colours >= 10, 'the screenshot is not blank: ' . scalar(keys %colours) . ' distinct colours');
my ($bg) = sort { $colours{$b} <=> $colours{$a} } keys %colours;
my $inked = 0;
$inked += $colours{$_} for grep { $_ ne $bg } keys %colours;
# The frames alone cover 30 samples x 9 levels or so of 15-pixel rows.
ok($inked > $w * 15 * 7, "... $inked of its ${\ ($w * $h)} pixels drawn over the background");

# The command docs/STITCH.md gives to render the graph without a screen
# runs as it is (as root too: chromium then wants --no-sandbox), from the
# directory holding out/, with a HOME of its own (chromium's profile).
{
	open(my $doc, '<', 'docs/STITCH.md') or die "docs/STITCH.md: $!";
	my ($cmd) = map { /^\s+(chromium --headless .*)$/ ? $1 : () } <$doc>;
	ok(defined $cmd && $cmd =~ /--no-sandbox/ && $cmd =~ /--screenshot=out\/flame\.png/,
	   'docs/STITCH.md gives a chromium command with --no-sandbox that writes out/flame.png')
		or diag($cmd // 'no such command');
	my $home = tmpdir();
	unlink "$r->{dir}/out/flame.png";
	system('sh', '-c', "cd '$r->{dir}' && HOME='$home' timeout 120 $cmd >/dev/null 2>&1");
	my %c = -s "$r->{dir}/out/flame.png" ? png_colours("$r->{dir}/out/flame.png") : ();
	ok(keys %c >= 10, '... which renders the graph (' . scalar(keys %c) . ' colours)');
}

# Interaction: hover the first "checksum" frame, then click it.
(my $probe = $text) =~ s{</svg>}{<script><![CDATA[
window.addEventListener('load', function () {
  var gs = document.querySelectorAll('#frames g'), t = null;
  for (var i = 0; i < gs.length && !t; i++)
    if (gs[i].getAttribute('data-n') === 'checksum') t = gs[i];
  t.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
  var hover = document.getElementById('details').textContent;
  t.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  var shown = Array.prototype.filter.call(gs, function (g) { return g.style.display !== 'none'; });
  document.documentElement.setAttribute('data-probe', [hover, t.querySelector('rect').getAttribute('width'),
    shown.length, document.getElementById('unzoom').style.display].join('|'));
});
]]></script></svg>};
write_file("$r->{dir}/probe.svg", $probe);
my $dom = chromium($r->{dir}, '--dump-dom', "file://$r->{dir}/probe.svg");
unlike($dom, qr/parsererror/, 'the SVG parses as XML');
my ($hover, $width, $shown, $unzoom) = $dom =~ /data-probe="([^|]*)\|([^|]*)\|([^|]*)\|([^"]*)"/;
is($hover, 'checksum (3 samples, 10.00%)', 'hover shows the name and its share (of the 30)');
cmp_ok($width, '>', 1100, 'click zooms the frame to the full width');
is($shown, 12, '... leaving only its 5 ancestors, itself and its 6 descendants');
is($unzoom, '', '... and offers "Reset zoom"');

# Search: the frames whose names match are painted, and the share of all
# samples under them is shown, nested matches (fib in fib) counted once.
# What it must say, from profile.folded: samples with a matching frame.
my $term = '^(fib|checksum)$';
my ($hit, $all) = (0, 0);
my $folded = folded_of($r->{folded});
for my $stack (keys %$folded) {
	$all += $folded->{$stack};
	$hit += $folded->{$stack} if grep { /$term/ } split /;/, $stack;
}
(my $sprobe = $text) =~ s{</svg>}{<script><![CDATA[
window.addEventListener('load', function () {
  var got = search('$term'), painted = 0, plain = 0;
  document.querySelectorAll('#frames g').forEach(function (g) {
    var m = /$term/.test(g.getAttribute('data-n')), f = g.querySelector('rect').getAttribute('fill');
    if (m && f === 'rgb(230,0,230)') painted++;
    if (!m && f !== 'rgb(230,0,230)') plain++;
  });
  var matched = document.getElementById('matched').textContent,
      button = document.getElementById('search').textContent;
  search(null);
  var after = document.getElementById('matched').textContent.trim(),
      repainted = document.querySelectorAll('#frames rect[fill="rgb(230,0,230)"]').length;
  document.documentElement.setAttribute('data-probe',
    [got, matched, button, painted, plain, after, repainted].join('|'));
});
]]></script></svg>};
write_file("$r->{dir}/search.svg", $sprobe);
$dom = chromium($r->{dir}, '--dump-dom', "file://$r->{dir}/search.svg");
my ($got, $matched, $button, $painted, $plain, $after, $repainted) =
	$dom =~ /data-probe="([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|([^"]*)"/;
my @named = $text =~ /data-n="([^"]*)"/g;
ok($hit > 0 && $hit < $all, "search $term: $hit of $all samples have a matching frame");
is($got, $hit, '... the search counts exactly those samples');
is($matched, sprintf('Matched: %.2f%%', 100 * $hit / $all), '... and shows their share, as flamegraph.pl does');
is($painted, scalar(grep { /$term/ } @named), '... every matching frame is painted');
is($plain, scalar(grep { !/$term/ } @named), '... and no other');
is($button, 'Reset search', '... the button offers to reset');
is("$after|$repainted", '|0', 'reset: the share is gone and every frame has its colour back');

done_testing();

# The colours of a PNG's pixels (8-bit RGB or RGBA, non-interlaced).
sub png_colours {
	my ($path) = @_;
	my $data = read_file($path);
	my ($w, $h, $depth, $type, $idat) = (0, 0, 0, 0, '');
	my $pos = 8;
	while ($pos < length $data) {
		my ($len, $kind) = unpack('Na4', substr($data, $pos, 8));
		my $body = substr($data, $pos + 8, $len);
		($w, $h, $depth, $type) = unpack('NNCC', $body) if $kind eq 'IHDR';
		$idat .= $body if $kind eq 'IDAT';
		$pos += 12 + $len;
	}
	return () unless $depth == 8 && ($type == 2 || $type == 6);
	my $bpp = $type == 6 ? 4 : 3;
	my $raw = uncompress($idat) // return ();
	my $stride = $w * $bpp;
	my (@prev, %seen) = ((0) x $stride);
	for my $y (0 .. $h - 1) {
		my $filter = ord substr($raw, $y * ($stride + 1), 1);
		my @cur = unpack('C*', substr($raw, $y * ($stride + 1) + 1, $stride));
		for my $i (0 .. $#cur) {
			my $a = $i >= $bpp ? $cur[$i - $bpp] : 0;
			my $b = $prev[$i];
			my $c = $i >= $bpp ? $prev[$i - $bpp] : 0;
			my $p = $filter == 1 ? $a : $filter == 2 ? $b : $filter == 3 ? ($a + $b) >> 1
			      : $filter == 4 ? paeth($a, $b, $c) : 0;
			$cur[$i] = ($cur[$i] + $p) & 255;
		}
		for (my $i = 0; $i < $stride; $i += $bpp) {
			$seen{join ',', @cur[$i .. $i + 2]}++;
		}
		@prev = @cur;
	}
	return %seen;
}

sub paeth {
	my ($a, $b, $c) = @_;
	my $p = $a + $b - $c;
	my ($pa, $pb, $pc) = (abs($p - $a), abs($p - $b), abs($p - $c));
	return $pa <= $pb && $pa <= $pc ? $a : $pb <= $pc ? $b : $c;
}
