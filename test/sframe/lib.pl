# Shared by test/t/2*-sframe*.t: TAP helpers and the paths make wrote.
use strict;
use warnings;

our $tests = 0;
our $failed = 0;

sub ok {
	my ($cond, $name) = @_;
	$tests++;
	print(($cond ? "ok" : "not ok") . " $tests - $name\n");
	$failed++ unless $cond;
	return $cond;
}

sub diag { print map { "# $_\n" } map { split /\n/ } @_; }

sub done { print "1..$tests\n"; exit($failed ? 1 : 0); }

# KEY=VALUE lines from build/sframe/paths.
sub paths {
	my %p;
	open(my $f, '<', 'build/sframe/paths') or die "build/sframe/paths: $! (run make test)\n";
	while (<$f>) { chomp; $p{$1} = $2 if /^(\w+)=(.*)$/; }
	return \%p;
}

# stdout of a command given as a list (no shell), and its exit status;
# stderr is dropped (readelf warns about every file without .sframe).
sub run {
	my @cmd = @_;
	my $pid = open(my $p, '-|') // die "fork: $!\n";
	if ($pid == 0) {
		open(STDERR, '>', '/dev/null');
		exec(@cmd) or die "$cmd[0]: $!\n";
	}
	local $/;
	my $out = <$p> // '';
	close($p);
	return ($out, $? >> 8);
}

# Every ELF file or archive under build/, except this part's own outputs and
# the fuzzers' corpora (build/fuzz: inputs test 81 generates, malformed on
# purpose, not files the project built).
sub build_elves {
	my @found;
	my @dirs = ('build');
	while (my $d = shift @dirs) {
		opendir(my $h, $d) or next;
		for my $e (sort readdir $h) {
			next if $e eq '.' || $e eq '..';
			my $p = "$d/$e";
			next if -l $p;
			if (-d $p) { push @dirs, $p unless $p eq 'build/sframe' || $p eq 'build/fuzz'; next; }
			next unless -f $p;
			# The signal page: SFrame version 3, which readelf 2.40
			# cannot read (test 59 checks its section).
			next if $e eq 'sigpage' || $p =~ m{^build/sigpage/};
			# The damaged copies of /bin/compat32 the loader must refuse
			# (userland/compat/mkhostile.py): malformed on purpose, and
			# readelf 2.40 prints nothing for the file after a truncated one.
			next if $p =~ m{/data/compat32-[a-z]+$};
			open(my $f, '<:raw', $p) or next;
			my $m = '';
			read($f, $m, 8);
			push @found, $p if $m =~ /^\x7fELF/ || $m eq "!<arch>\n";
		}
	}
	return @found;
}


# e_type of an ELF file (1 relocatable, 2 executable, 3 shared), else 0.
sub elf_type {
	my ($path) = @_;
	open(my $f, '<:raw', $path) or return 0;
	my $h = '';
	read($f, $h, 18);
	return 0 unless length($h) == 18 && substr($h, 0, 4) eq "\x7fELF";
	return unpack('v', substr($h, 16, 2));
}

# A library as the kernel compiles it (its kernel-flag objects): it needs
# no symbol from outside itself but what GCC may call in any freestanding
# program (memcpy, memset, memmove, memcmp), has no global state (no .data
# or .bss), and its code is in the kernel code model. Four checks, named
# after what, e.g. "sframe/".
sub check_freestanding {
	my ($what, $dir, @objs) = @_;
	ok(@objs >= 5 && system('ld', '-r', '-o', "$dir/all.o", @objs) == 0,
	   "$what: kernel-flag objects link together (" . scalar(@objs) . ' objects)');
	my ($undef) = run('nm', '-u', "$dir/all.o");
	my @outside = grep { !/^(memcpy|memset|memmove|memcmp)$/ } map { /U (\S+)/ ? $1 : () }
		split /\n/, $undef;
	ok(!@outside, "$what: no undefined symbols beyond memcpy/memset/memmove/memcmp") or diag(@outside);
	my ($sizes) = run('size', '-A', "$dir/all.o");
	my @state = grep { /^\.(data|bss)\S*\s+(\d+)/ && $2 > 0 } split /\n/, $sizes;
	ok(!@state, "$what: no .data or .bss: no global state") or diag(@state);
	# In code, -mcmodel=kernel addresses symbols with sign-extended 32-bit
	# relocations; a 64-bit absolute or GOT relocation in .text would mean
	# the flags did not apply. (Data, e.g. a jump table, may hold 64-bit
	# pointers.)
	my ($relocs) = run('readelf', '-r', "$dir/all.o");
	my ($sec, @bad) = ('');
	for (split /\n/, $relocs) {
		$sec = $1 if /^Relocation section '([^']+)'/;
		push @bad, "$sec: $_" if $sec =~ /^\.rela\.text/ && /R_X86_64_(64|PC64|GOT\w*)\s/;
	}
	ok($relocs =~ /R_X86_64_32S/ && !@bad,
	   "$what: code in the kernel code model (32S relocations, no 64-bit or GOT)") or diag(@bad);
}

1;
