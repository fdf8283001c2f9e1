#!/usr/bin/env python3
# Damaged .eh_frame sections (/bin/ehbad, userland/deferred/ehbad.c), one
# boot in eh-frame mode with unwind.rule_cache=0 (every sample looks its
# rule up): a CIE pointer outside the section, an augmentation length past
# the end, remember_state nine deep and never restored, an advance past
# the function, a table out of order, a good section rewritten between
# samples, a CIE of 100 000 nops, a header of version 2. Asserts:
#   - the program ran to its end and the kernel shut down with success
#     (nothing stalled or crashed); the stream is whole;
#   - each damaged section was dropped exactly once, counted by reason:
#     ehframe_bad_cie 2 (CIE pointer, augmentation length),
#     ehframe_bad_program 2 (remember_state, advance), ehframe_bad_table 2
#     (out of order, rewritten), nothing else; ehframe_dropped 6; the
#     unwind that found each ended bad-sframe (6);
#   - the nops cost more than unwind.budget: those unwinds ended budget,
#     the section was kept;
#   - version 2 was refused at registration (ehframe_refused 1), the seven
#     others and the loader's registered (8);
#   - the six with a sorted table were indexed (ehframe_indexed 6) and all
#     their lookups went through the index, which hid none of the damage.
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

if not all(os.path.exists(p) for p in (KERNEL, 'build/esp.img', ROOT + '/bin/ehbad')):
    print('1..0 # SKIP kernel, ESP or userland not built')
    sys.exit(0)

tmp = tempfile.mkdtemp(prefix='stitch-t59-')
recs, console, rc = boot('init=/bin/ehbad profile.mode=eh-frame profile.hz=1000 '
                         'unwind.rule_cache=0', tmp + '/records.bin')
st = stats(recs)
cases = ['cie-pointer', 'aug-length', 'remember', 'advance', 'unsorted', 'rewritten', 'budget']
tap(rc == 0 and 'ehbad: ok' in console and 'shutdown (success)' in console and
    all('ehbad: %s registered' % c in console for c in cases) and of(recs, 'END'),
    'ehbad registered its seven sections and ran to its end; the kernel shut down with '
    'success; the stream is whole')
if rc != 0 or not recs:
    diag(console[-3000:])
want = {'ehframe_bad_cie': 2, 'ehframe_bad_program': 2, 'ehframe_bad_table': 2,
        'ehframe_bad_fault': 0, 'ehframe_bad_header': 0, 'ehframe_bad_fde': 0,
        'ehframe_dropped': 6, 'unwind_stop_bad_sframe': 6}
got = {k: st.get(k, -1) for k in want}
tap(got == want, 'each damaged section dropped once, by reason: %s'
    % ' '.join('%s=%d' % kv for kv in sorted(got.items())))
tap(st.get('unwind_stop_budget', 0) >= 1 and st.get('ehframe_removed') == 2,
    'the CIE of 100 000 nops: %d unwinds ended budget, the section was kept (removed by '
    'the program: %d removals with the loader\'s)'
    % (st.get('unwind_stop_budget', -1), st.get('ehframe_removed', -1)))
tap('ehbad: version refused' in console and st.get('ehframe_refused') == 1 and
    st.get('ehframe_registered') == 9,
    'version 2 refused at registration (ehframe_refused %d), 9 registered (8, the signal page)'
    % st.get('ehframe_refused', -1))
# The index (unwind.fde_index, on by default) hides no damage: all seven
# sections got one at their first use (the lazily filled index reads only
# the top level then, so 'unsorted' is indexed too), every lookup went
# through it, and each was still dropped for what is wrong with it (the
# checks above: 'unsorted' among them, found by the lookup that reads the
# entries out of order).
tap(st.get('ehframe_indexed') == 7 and
    st.get('ehframe_index_lookups') == st.get('ehframe_lookups', 0),
    'the index: %d sections indexed, %d of %d lookups through it'
    % (st.get('ehframe_indexed', -1), st.get('ehframe_index_lookups', -1),
       st.get('ehframe_lookups', -1)))
done()
