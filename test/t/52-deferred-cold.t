#!/usr/bin/env python3
# Pages that were never touched: /bin/cold in validate mode (sframe deferred
# plus a stack copy in the NMI, in the same sample), one boot, with
# sframe.validate (the full validation at first use reads every page of the
# section; a lookup alone reads only the pages on its path).
#   - cold never reads its own .sframe, and the pages of it that share
#     nothing with data the program uses were never mapped when the first
#     sample came: the deferred unwind faulted them in (unwind_page_faults
#     counts at least those pages, nothing else runs) and still unwound
#     every sample completely, by name;
#   - the NMI can read only present pages: its stack copy of a sample in
#     cold_leaf stops at a page boundary, at the first page of cold_big's
#     16 KiB array that the program never wrote (stack_copy_truncated), so
#     the copy does not hold the return address into cold_run that the
#     deferred unwind found further up: unwinding the copy on the host
#     cannot get there.
# A return address itself always lies on a present page (the call wrote
# it): what an NMI cannot read is the unwind data and the untouched parts
# of frames in between (docs/DEFERRED.md).
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

COLD = ROOT + '/bin/cold'
if not all(os.path.exists(p) for p in (KERNEL, 'build/esp.img', COLD)):
    print('1..0 # SKIP kernel, ESP or userland not built')
    sys.exit(0)


def cold_sframe_pages():
    """Pages of cold's .sframe that no section the program may touch shares
    (everything allocated but the unwind tables and notes)."""
    secs = []
    for line in subprocess.run(['readelf', '-SW', COLD], capture_output=True,
                               text=True).stdout.splitlines():
        f = line.replace('[ ', '[').split()
        if len(f) > 7 and f[0].startswith('[') and 'A' in f[7]:
            secs.append((f[1], int(f[3], 16), int(f[5], 16)))
    lo, size = [(a, s) for n, a, s in secs if n == '.sframe'][0]
    pages = set(range(lo >> 12, (lo + size - 1 >> 12) + 1))
    for name, a, s in secs:
        if name not in ('.sframe', '.eh_frame', '.eh_frame_hdr') and \
                not name.startswith('.note') and s:
            pages -= set(range(a >> 12, (a + s - 1 >> 12) + 1))
    return len(pages)


tmp = tempfile.mkdtemp(prefix='stitch-t52-')
recs, console, rc = boot('init=/bin/cold init.args=800 profile.mode=validate '
                         'profile.hz=1000 sframe.validate', tmp + '/records.bin')
st = stats(recs)
tap(rc == 0 and 'cold: rounds=800' in console and of(recs, 'END') and
    recs[0]['mode'] == MODES.index('validate'),
    'cold ran in validate mode, the stream is whole')
comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
pid = [p for p in comm if comm[p] == 'cold'][0] if 'cold' in comm.values() else -1
syms = Symbols(recs, pid)
deferred = {(d['tid'], d['cookie']): d for d in of(recs, 'DEFERRED')
            if d['consumer'] == SAMPLER}
rows = []
for s in of(recs, 'SAMPLE'):
    d = deferred.get((s['tid'], s['cookie'])) if s['pid'] == pid else None
    if d and d['user']:
        rows.append((s, d, syms.names(d['user'])))
mine = [(s, d, n) for s, d, n in rows if expected('cold', n) is not None]
tap(len(mine) >= 5 and all(expected('cold', n) and STOPS[d['stop']] == 'end'
                           for s, d, n in mine),
    'sframe (deferred): all %d samples in cold\'s frames unwound completely, by name'
    % len(mine))
pages = cold_sframe_pages()
tap(pages >= 3 and st.get('unwind_page_faults', 0) >= pages,
    'the unwinder faulted in cold\'s .sframe: %d of its pages share nothing the '
    'program touches; unwind_page_faults %d' % (pages, st.get('unwind_page_faults', -1)))

leaf = [(s, d, n) for s, d, n in mine if n[0] == 'cold_leaf' and s['copy']]
short = 0
for s, d, n in leaf:
    sp, size = s['copy']['regs'][7], s['copy']['size']  # REC_REG_SP
    into_run = d['user'][n.index('cold_run')]
    short += size < 8192 and (sp + size) % 4096 == 0 and \
        struct.pack('<Q', into_run) not in s['copy']['bytes']
tap(leaf and short == len(leaf) and st.get('stack_copy_truncated', 0) >= len(leaf),
    'stack copy (NMI): all %d copies in cold_leaf stop at a page boundary short of '
    '8 KiB, without the return address into cold_run (stack_copy_truncated %d)'
    % (len(leaf), st.get('stack_copy_truncated', -1)))
diag('stats: ' + ' '.join('%s=%d' % kv for kv in sorted(st.items())))
done()
