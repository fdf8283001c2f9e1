#!/usr/bin/env python3
# Deferred unwinds through SFrame sections that GNU binutils 2.46 wrote:
# one boot of /bin/sf246 (its comment says what it loads and runs), NMI
# samples at 10 kHz, the tracer on times(). The expected rules come from
# the fixtures' readelf 2.46 dump (test/sframe/binutils-2.46), not from
# Stitch's decoder:
#   - drap() is a flexible FDE. At every sampled pc up to its `leave` the
#     unwind is whole: drap, sf246_run, main, stitch_start, _start, stop
#     end; at least 10 of them where the row bases the CFA on r10 (the DRAP
#     register: the kernel passes the interrupted frame's registers) and 10
#     where it loads the CFA from fp-8. After the `leave`, gcc's CFI (and
#     so the section) still says rbp is saved at [rbp], which now reads
#     through the caller's rbp: whole or a fault, never anything else;
#   - fake_sigreturn is a signal-frame FDE: the unwind at its times()
#     syscall is the leaf alone with stop signal-frame, counted in
#     unwind_stop_signal_frame; the hlt after it kills the child (SIGSEGV),
#     and a sample of that last entry, if one came, gets the same unwind
#     (taken in task_exit, at the same pc);
#   - both sections registered, none dropped.
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

FIX = 'test/sframe/binutils-2.46/'
if not all(os.path.exists(p) for p in (KERNEL, 'build/esp.img', ROOT + '/bin/sf246')):
    print('1..0 # SKIP kernel, ESP or userland not built')
    sys.exit(0)


def rows(dump, func):
    """(start, CFA, FP) of func idx [func]'s rows in a readelf 2.46 dump."""
    out, cur = [], None
    for line in open(dump).read().splitlines():
        m = re.match(r'    func idx \[(\d+)\]', line)
        if m:
            cur = int(m.group(1))
        m = re.match(r'    ([0-9a-f]{16})  (\S+)\s+(\S+)', line)
        if m and cur == func:
            out.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return out


def row_at(rs, off):
    return [r for r in rs if r[0] <= off][-1]


drap_rows = rows(FIX + 'flexible-drap-O2.o.readelf.txt', 0)
leave = [int(l.split(':')[0], 16) for l in subprocess.run(
    ['objdump', '-d', FIX + 'flexible-drap-O2.o'], capture_output=True,
    text=True).stdout.splitlines() if re.search(r'\sleave', l)][0]

tmp = tempfile.mkdtemp(prefix='stitch-t54-')
recs, console, rc = boot('init=/bin/sf246 init.args=2000000 profile.mode=sframe '
                         'profile.hz=10000 trace.syscalls=times', tmp + '/records.bin')
st = stats(recs)
m = re.search(r'sf246: drap=0x([0-9a-f]+)\+(\d+) sigtramp=0x([0-9a-f]+)\+(\d+)', console)
tap(rc == 0 and m and 'sf246: ok' in console,
    'sf246 loaded both objects, ran drap, and its child died of the hlt')
if not m:
    diag(console[-2000:])
    done()
    sys.exit(0)
drap, drap_len, sig, sig_len = (int(m.group(1), 16), int(m.group(2)),
                                int(m.group(3), 16), int(m.group(4)))
tap(re.search(r'killed: general protection rip=0x%x .*status 139' % (sig + 7), console),
    'the child was killed at the hlt after the trampoline\'s syscall (SIGSEGV)')

pid = [c['pid'] for c in of(recs, 'COMM') if c['name'] == 'sf246']
syms = Symbols(recs, pid[0]) if pid else None
WHOLE = ['sf246_run', 'main', 'stitch_start', '_start']
whole, by_r10, loaded, after_leave, bad = 0, 0, 0, 0, []
for d in of(recs, 'DEFERRED'):
    u = d['user'] or []
    if not u or not drap <= u[0] < drap + drap_len:
        continue
    off = u[0] - drap
    start, cfa, fp = row_at(drap_rows, off)
    is_whole = STOPS[d['stop']] == 'end' and syms.names(u)[1:] == WHOLE
    if off > leave:
        ok = is_whole or (STOPS[d['stop']] == 'fault' and len(u) == 1)
        after_leave += ok
    else:
        ok = is_whole
        whole += ok
        by_r10 += ok and cfa.startswith('r10')
        loaded += ok and cfa.startswith('(')
    if not ok:
        bad.append('drap+0x%x (row 0x%x %s %s): %s %s' % (off, start, cfa, fp, STOPS[d['stop']],
                                                     syms.names(u)))
tap(not bad and whole > 0, 'drap (flexible FDE): all %d unwinds from pcs up to its leave '
    'are whole' % whole)
for b in bad[:8]:
    diag(b)
tap(by_r10 >= 10 and loaded >= 10,
    'drap: %d of them with the CFA in r10 (the interrupted frame\'s register), %d with '
    'the CFA loaded from fp-8' % (by_r10, loaded))
tap(not bad and after_leave > 0,
    'drap: %d unwinds after its leave, where rbp is the caller\'s: whole or a fault'
    % after_leave)

sigs = [d for d in of(recs, 'DEFERRED') if d['user'] and sig <= d['user'][0] < sig + sig_len]
tap(len([d for d in sigs if d['consumer'] == TRACER]) == 1 and
    all(d['user'] == [sig + 7] and STOPS[d['stop']] == 'signal-frame' for d in sigs),
    'fake_sigreturn (signal-frame FDE): the unwind at its times() call is the leaf '
    'alone, stop signal-frame, and so is any of its last entry (%s)'
    % [(STOPS[d['stop']], [hex(a) for a in d['user']]) for d in sigs])
# One unwind per entry, whichever consumers asked.
n_sig = len({(d['tid'], d['cookie']) for d in of(recs, 'DEFERRED')
             if STOPS[d['stop']] == 'signal-frame'})
tap(st.get('unwind_stop_signal_frame') == n_sig >= 1 and
    n_sig == len({(d['tid'], d['cookie']) for d in sigs}),
    'unwind_stop_signal_frame %s counts them (%d entries)'
    % (st.get('unwind_stop_signal_frame'), n_sig))
tap(st.get('sframe_registered') == 6 and st.get('sframe_dropped') == 0,
    'sframe_registered %s (two programs and their signal pages, drap, fake_sigreturn), sframe_dropped %s'
    % (st.get('sframe_registered'), st.get('sframe_dropped')))
done()
