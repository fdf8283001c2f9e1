#!/usr/bin/env python3
# .eh_frame sections built against the kernel's rows (/bin/ehrows,
# userland/deferred/ehrows.c), one boot in eh-convert and one in
# eh-rowcache, the rule cache off (every sample looks its rule up): a
# million rows in 16 384 FDEs, a program of 50 000 remember/restore pairs,
# the million section registered and removed 40 times, and converted by
# two threads' walks while the main thread removes it. Asserts, per boot:
#   - the program ran to its end, the kernel shut down with success, every
#     page back, no table dropped (the sections are valid, only big);
#   - every byte taken for rows given back (ehrows_bytes = ehrows_freed);
#   - eh-convert: the conversions ran in chunks (ehrows_chunks: hundreds),
#     none longer than 4M cycles (ehrows_chunk_cycles_max; a chunk is at
#     most 5 FDE budgets of CFA instructions, about 0.8M cycles each on
#     average here: a bound that a conversion run whole, 16 384 FDEs,
#     breaks many times over); the million section fell back at its
#     budget of rows (ehrows_fallback), the remember FDE was left to the
#     interpreter (ehrows_interpreted), and the only table converted whole
#     is the remember one (its one row says "interpret");
#   - eh-rowcache: the FDEs of 64 rows and the remember one were not kept
#     (ehrows_uncached), so nothing was answered from rows.
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

if not all(os.path.exists(p) for p in (KERNEL, ROOT + '/bin/ehrows')):
    print('1..0 # SKIP kernel or userland not built')
    sys.exit(0)

tmp = tempfile.mkdtemp(prefix='stitch-t96-')
PAGES = re.compile(r'free pages before init (\d+), after init (\d+)')
CASES = ('million', 'remember', 'churn', 'race')

for mode in ('eh-convert', 'eh-rowcache'):
    recs, console, rc = boot('init=/bin/ehrows profile.mode=%s profile.hz=1000 '
                             'unwind.rule_cache=0' % mode, '%s/%s.bin' % (tmp, mode), 400)
    st = stats(recs)
    pages = PAGES.search(console)
    tap(rc == 0 and 'ehrows: ok' in console and 'shutdown (success)' in console and
        all('ehrows: %s registered' % c in console for c in CASES) and of(recs, 'END') and
        pages and pages.group(1) == pages.group(2) and st.get('ehframe_dropped', -1) == 0,
        '%s: the four cases registered and ran to the end; success, every page back, '
        'no table dropped' % mode)
    if 'ehrows: ok' not in console:
        diag(console[-3000:])
    tap(st.get('ehrows_bytes', -1) == st.get('ehrows_freed', -2) > 0,
        '%s: every byte of rows given back (%d)' % (mode, st.get('ehrows_bytes', -1)))
    if mode == 'eh-convert':
        tap(st.get('ehrows_chunks', 0) >= 100 and
            0 < st.get('ehrows_chunk_cycles_max', 0) < 4000000 and
            st.get('ehrows_fallback', 0) >= 1 and st.get('ehrows_interpreted', 0) >= 1 and
            st.get('ehrows_converted', 0) == 1 and st.get('ehrows_rows', 0) == 1,
            'eh-convert: %d chunks, the longest %d cycles; the million section fell back '
            '(%d), the remember FDE left to the interpreter (%d)'
            % (st.get('ehrows_chunks', 0), st.get('ehrows_chunk_cycles_max', 0),
               st.get('ehrows_fallback', 0), st.get('ehrows_interpreted', 0)))
    else:
        tap(st.get('ehrows_uncached', 0) > 100 and st.get('ehrows_cache_fills', -1) == 0 and
            st.get('ehrows_lookups', -1) == 0,
            'eh-rowcache: %d FDEs too big to keep, none kept' % st.get('ehrows_uncached', 0))
done()
