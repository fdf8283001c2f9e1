#!/usr/bin/perl
# Test 01: the help texts are complete.
#
# `make help` names every target and every variable a user sets, every
# mode `make run` takes (RUN_MODES, mk/run.mk) and every directory
# check-arch holds to the arch interface (ARCH_CHECK_SRCS, mk/kernel.mk);
# `tools/qemu-run --help` names every option the script accepts.
#
# Targets: every name declared .PHONY in Makefile and mk/*.mk (fuzz-%
# targets are named by their pattern, fuzz-NAME). Variables: every one
# assigned with ?= (a default the command line overrides), and every one
# read but never assigned anywhere (so only the command line sets it).
use strict;
use warnings;
use Test::More;

my @files = ('Makefile', glob('mk/*.mk'));
my $text = '';
for my $f (@files) {
	open(my $fh, '<', $f) or die "$f: $!";
	local $/;
	$text .= <$fh>;
}

my %targets;
for my $line ($text =~ /^\.PHONY:(.*)$/mg) {
	for my $t (split ' ', $line) {
		$t = 'fuzz-NAME' if $t =~ /^\$\(FUZZ_NAMES/;
		$targets{$t} = 1 unless $t eq 'FORCE';
	}
}

my (%assigned, %defaults, %read);
$assigned{$1} = 1 while $text =~ /^\s*(?:export\s+|override\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(?:\?|:|\+|::)?=/mg;
$defaults{$1} = 1 while $text =~ /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\?=/mg;
# Variables set by $(eval ...) templates, foreach loops and make itself.
$assigned{$1} = 1 while $text =~ /\$\(foreach\s+([A-Za-z_]\w*),/g;
$assigned{$1} = 1 while $text =~ /^\s*(?:\$\(eval\s+)?([A-Z_][A-Z0-9_]*)_\$\(/mg;
my %make_own = map { $_ => 1 } qw(MAKE MAKECMDGOALS MAKEFLAGS CURDIR SHELL
	MAKEFILE_LIST CC LD AS AR);
# Read where make reads, not in comments ("$(N) is the file").
my $code = $text =~ s/^\s*#.*$//mgr;
$read{$1} = 1 while $code =~ /\$[({]([A-Z][A-Z0-9_]*)[)}]/g;
my @user_only = grep { !$assigned{$_} && !$make_own{$_} } sort keys %read;

my $help = `make --no-print-directory help 2>&1`;
is($?, 0, 'make help exits 0');
ok(scalar(keys %targets) >= 10, 'found the .PHONY targets (' . join(' ', sort keys %targets) . ')');
for my $t (sort keys %targets) {
	like($help, qr/^\s+\Q$t\E\b/m, "make help lists the target $t");
}
ok(scalar(keys %defaults) >= 5, 'found the ?= variables');
for my $v (sort(keys %defaults), @user_only) {
	like($help, qr/\b\Q$v\E=/, "make help lists the variable $v");
}

# The text of one entry of make help: its first line and the indented
# lines under it.
sub help_entry {
	my ($name) = @_;
	my ($entry) = $help =~ /^(  \Q$name\E.*\n(?: {8,}.*\n)*)/m;
	return $entry // '';
}
my ($modes) = $text =~ /^RUN_MODES\s*:=\s*(.*)$/m;
my @modes = split ' ', $modes // '';
my $mode_help = help_entry('MODE=');
ok(@modes >= 5, "found make run's modes (@modes)");
for my $m (@modes) {
	like($mode_help, qr/(?<![\w-])\Q$m\E(?![\w-])/, "make help's MODE= lists the mode $m");
}
my ($srcs) = $text =~ /^ARCH_CHECK_SRCS\s*:=\s*\$\(wildcard((?:[^)\\]|\\\n)*)\)/m;
my %dirs = map { m{^(\w+)/} ? ($1 => 1) : () } split ' ', ($srcs // '') =~ s/\\\n/ /gr;
my $arch_help = help_entry('check-arch');
ok(keys %dirs >= 2, 'found the directories check-arch checks (' . join(' ', sort keys %dirs) . ')');
for my $d (sort keys %dirs) {
	like($arch_help, qr/\b\Q$d\E\//, "make help's check-arch names $d/");
}

# qemu-run: the options are the patterns of its argument loop.
open(my $q, '<', 'tools/qemu-run') or die "tools/qemu-run: $!";
my @opts = map { /^\t(--[a-z-]+)\)/ ? $1 : () } <$q>;
my $qhelp = `tools/qemu-run --help 2>&1`;
is($?, 0, 'qemu-run --help exits 0');
ok(@opts >= 10, "found qemu-run's options (@opts)");
for my $o (@opts) {
	like($qhelp, qr/\[\Q$o\E\b/, "qemu-run --help shows $o in its synopsis");
}
done_testing();
