#!/bin/sh
# rxoracle.sh PATTERNS TEXT: the oracle of /bin/rxreal (mk/binutils.mk).
# Prints what rxreal must print for the same two files: for pattern P (one
# POSIX extended regular expression a line of PATTERNS), the lines of TEXT
# the host's GNU grep matches, as rxP:LINE:TEXT, then the count line.
# LC_ALL=C: bytes, not the host's locale, as libiberty's regex reads them.
set -e
LC_ALL=C
export LC_ALL
total=$(wc -l < "$2")
p=0
while IFS= read -r pat; do
	p=$((p + 1))
	grep -E -n -e "$pat" "$2" | sed "s/^/rx$p:/" || true
	echo "rxreal: pattern $p: $(grep -E -c -e "$pat" "$2" || true) of $total lines match"
done < "$1"
