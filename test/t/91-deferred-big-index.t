#!/usr/bin/env python3
# The FDE index of a big table (kern/unwind/table.h, unwind_index_start):
# /bin/funcs-10000 (10 000 FDEs, past the 2 048 a fixed-size index once
# stopped at) booted under -icount in modes validate (SFrame) and
# validate-eh (.eh_frame) with the rule cache off, so that every frame is
# a lookup, each sample's deferred chain held against libdw's unwind of
# the stack copy the same NMI took (tools/stitch):
#   - the index is built lazily (sframe/lazy_index.h): its top level, a
#     start every 64 FDEs, in one chunk a table at first use
#     (unwind_index_chunks), with an entry per FDE in 32 or 36 bytes and
#     14 a block (unwind_index_bytes / unwind_index_entries); lookups
#     go through it (fde_index_lookups, ehframe_index_lookups) and fill
#     the blocks they land in, each once: fewer fills than blocks, and
#     than the lookups (unwind_index_fills);
#   - the chains equal libdw's (90 % or more; the others only where the
#     copy ends or holds no word below sp, counted by stitch);
#   - over a budget (unwind.index_kib=64, a table's; then
#     unwind.index_process_kib=64, a process's): no index for funcs-10000,
#     counted (unwind_index_over_budget), its lookups search the table in
#     user memory, and the chains still equal libdw's;
#   - hostile: /bin/manyrows fdes, a section of a million FDEs registered
#     at run time (its index would take 32 MB, over the default 4 MiB):
#     no index, counted, the section searched and kept (not dropped), the
#     spinner's unwinds whole (stop end), the other process's sleeps as
#     long as alone.
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

PROG = '/bin/funcs-10000:1000'
if not all(os.path.exists(p) for p in (KERNEL, 'build/esp.img', ROOT + '/bin/funcs-10000',
                                       ROOT + '/bin/manyrows')):
    print('1..0 # SKIP kernel, ESP, /bin/funcs-10000 or /bin/manyrows not built')
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix='stitch-t91-')


def run(name, mode, extra=''):
    """One boot: its kernel counters, and stitch's validate counts."""
    recs, console, rc = boot('init=/bin/bsuite init.args=%s profile.mode=%s profile.hz=1000 '
                             'unwind.rule_cache=0 %s' % (PROG, mode, extra),
                             '%s/%s.bin' % (tmp, name))
    out = subprocess.run(['build/bin/stitch', '--symfs', ROOT, '--kernel', KERNEL,
                          '-o', '%s/%s' % (tmp, name), '--stats', '%s/%s.json' % (tmp, name),
                          '%s/%s.bin' % (tmp, name)], capture_output=True, text=True)
    js = json.load(open('%s/%s.json' % (tmp, name)))['stitch'] if out.returncode == 0 else {}
    ran = rc == 0 and 'bsuite: 1 of 1 programs ok' in console and of(recs, 'END')
    if not ran or out.returncode:
        diag(console[-1500:] + out.stdout[-1000:] + out.stderr[-1000:])
    return ran and out.returncode == 0, stats(recs), js


def agree(js):
    """(the chains equal libdw's, a line saying how many)."""
    n, same, differ, short, below = (js.get(k, 0) for k in (
        'validate_samples', 'validate_agree', 'validate_disagree', 'validate_copy_short',
        'validate_copy_below'))
    return (n >= 20 and same >= 0.9 * n and same + differ == n and short + below == differ,
            '%d of %d samples equal libdw\'s chain, %d where the copy ends' % (same, n, differ))


for mode, indexed, lookups in (('validate', 'sframe_indexed', 'fde_index_lookups'),
                               ('validate-eh', 'ehframe_indexed', 'ehframe_index_lookups')):
    ok, st, js = run(mode, mode)
    fine, what = agree(js)
    entries, size = st.get('unwind_index_entries', 0), st.get('unwind_index_bytes', 0)
    # 32 bytes an SFrame FDE, 36 an .eh_frame one, 14 a block of 64, and
    # a header a table (.eh_frame's keeps 4 CIEs); a chunk a table.
    fills, chunks = st.get('unwind_index_fills', 0), st.get('unwind_index_chunks', 0)
    tap(ok and st.get(indexed) >= 1 and entries >= 10000 and
        32 * entries <= size < 36.25 * entries + 2 * 1024 and
        1 <= chunks <= st.get(indexed) and 1 <= fills <= (entries + 63) // 64 + chunks and
        fills < st.get(lookups, 0) and st.get('unwind_index_over_budget') == 0,
        '%s: the index built (%s=%d) in %d chunks, %d bytes for %d FDEs, %d lookups through it, '
        '%d blocks filled' % (mode, indexed, st.get(indexed, -1), chunks, size, entries,
                              st.get(lookups, -1), fills))
    tap(ok and fine, '%s, rule cache off: %s' % (mode, what))

for name, extra in (('table', 'unwind.index_kib=64'), ('process', 'unwind.index_process_kib=64')):
    for mode, lookups in (('validate', 'fde_index_lookups'), ('validate-eh', 'ehframe_index_lookups')):
        ok, st, js = run('%s-%s' % (name, mode), mode, extra)
        fine, what = agree(js)
        # bsuite's own table fits the budget; funcs-10000's (320 KB) not.
        tap(ok and st.get('unwind_index_over_budget', 0) >= 1 and
            st.get('unwind_index_entries', 0) < 10000 and
            st.get('frames_unwound', 0) > st.get(lookups, 0) and fine,
            '%s, over the %s budget (%s): no index, counted (%d), %d of %d frames looked up '
            'through one; %s' % (mode, name, extra, st.get('unwind_index_over_budget', -1),
                                 st.get(lookups, -1), st.get('frames_unwound', -1), what))

recs, console, rc = boot('init=/bin/manyrows init.args=fdes profile.mode=sframe profile.hz=1000',
                         tmp + '/manyrows.bin')
st = stats(recs)
al = re.search(r'manyrows: alone sleeps=20 max_ms=([\d.]+)', console)
sl = re.search(r'manyrows: spinning sleeps=20 max_ms=([\d.]+)', console)
code = re.search(r'manyrows: code at (0x[0-9a-f]+) size (\d+)', console)
hi = int(code.group(1), 16) + int(code.group(2)) if code else 0
loop = [d for d in of(recs, 'DEFERRED') if d['user'] and hi - 5 <= d['user'][0] < hi]
why = sorted({STOPS[d['stop']] for d in loop})
tap(rc == 0 and al and sl and len(loop) >= 20 and why == ['end'] and
    all(len(d['user']) >= 3 for d in loop) and st.get('unwind_index_over_budget', 0) >= 1 and
    st.get('sframe_dropped') == 0 and float(sl.group(1)) <= float(al.group(1)) + 2,
    'a million FDEs: no index (unwind_index_over_budget %d), %d unwinds in the spinner\'s '
    'function, all stopped with: %s; the section kept (sframe_dropped %d); sleeps %s ms '
    'next to it, %s alone' % (st.get('unwind_index_over_budget', -1), len(loop), ' '.join(why),
                              st.get('sframe_dropped', -1), sl and sl.group(1),
                              al and al.group(1)))
done()
