#!/usr/bin/env python3
# SFrame registration and sections that go wrong: one boot of /bin/sfbad
# (profile.mode=sframe, trace.syscalls=stacktrace_setup, sframe.validate:
# the opt-in full validation when a section is first opened, since the
# corrupt section's fault, one FRE too many in the header's count, is one
# that only a walk over every FDE sees; its comment says what it
# registers). The program checks the system call's answers itself
# (EEXIST for an overlapping text range, ENOEXEC for what is not SFrame,
# EINVAL for a zero length and for removing what is not there); here:
#   - the corrupt section (its header passes the ADD check) is validated at
#     its first use, fails, is dropped: exactly one unwind stops
#     bad-sframe, in that phase; the later ones fall back to rbp and stop at
#     the leaf;
#   - the loader's section registered again: every unwind whole, by name;
#   - the section unmapped after its ADD: its first read faults, it is
#     dropped: exactly one unwind stops fault, in that phase;
#   - the counters: sframe_dropped counts the five refusals and drops,
#     sframe_registered the four registrations and the signal page's, sframe_removed the two
#     removals, unwind_stop_bad_sframe and unwind_stop_fault one each.
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

if not all(os.path.exists(p) for p in (KERNEL, 'build/esp.img', ROOT + '/bin/sfbad')):
    print('1..0 # SKIP kernel, ESP or userland not built')
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix='stitch-t53-')
recs, console, rc = boot('init=/bin/sfbad init.args=200 profile.mode=sframe '
                         'profile.hz=1000 trace.syscalls=stacktrace_setup sframe.validate',
                         tmp + '/records.bin')
st = stats(recs)
tap(rc == 0 and 'sfbad: ok' in console,
    'sfbad: every stacktrace_setup call returned what it should')
for line in console.splitlines():
    if line.startswith('sfbad:') and 'ok' not in line:
        diag(line)

comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
pid = [p for p in comm if comm[p] == 'sfbad'][0] if 'sfbad' in comm.values() else -1
syms = Symbols(recs, pid)
calls = sorted(s['time'] for s in of(recs, 'SAMPLE')
               if s['pid'] == pid and s['event'] == EVENT_SYSCALL and s['aux'] == 21)
tap(len(calls) == 10, 'the tracer saw the 10 stacktrace_setup calls (%d)' % len(calls))
deferred = {(d['tid'], d['cookie'], d['consumer']): d for d in of(recs, 'DEFERRED')}
# Unwinds (records of either consumer, one per cookie) by phase; a phase
# starts with the ADD's own entry, whose return is the section's first use.
phases = {'corrupt': (5, 6), 'good': (7, 8), 'unmapped': (9, None)}
rows = {p: [] for p in phases}
seen = set()
for s in sorted(of(recs, 'SAMPLE'), key=lambda s: s['time']):
    if s['pid'] != pid or not s['cookie'] or (s['tid'], s['cookie']) in seen:
        continue
    d = deferred.get((s['tid'], s['cookie'], TRACER if s['event'] else SAMPLER))
    if not d:
        continue
    seen.add((s['tid'], s['cookie']))
    for p, (a, b) in phases.items():
        if len(calls) == 10 and calls[a] <= s['time'] and (b is None or s['time'] < calls[b]):
            rows[p].append((STOPS[d['stop']], syms.names(d['user'] or [])))


def stops(p, what):
    return [n for w, n in rows[p] if w == what]


leafs = lambda p: [(w, n) for w, n in rows[p] if n and n[0] == 'sfbad_leaf']
tap(len(stops('corrupt', 'bad-sframe')) == 1 and
    all('main' not in n for w, n in leafs('corrupt')) and leafs('corrupt'),
    'corrupt section: one unwind stops bad-sframe (validation at first use), the %d '
    'in sfbad_leaf after it stop at the leaf' % len(leafs('corrupt')))
tap(leafs('good') and all(w == 'end' and expected('sfbad', n) for w, n in leafs('good')),
    'the loader\'s section again: all %d unwinds in sfbad_leaf whole, by name'
    % len(leafs('good')))
tap(len(stops('unmapped', 'fault')) == 1 and leafs('unmapped') and
    all('main' not in n for w, n in leafs('unmapped')),
    'unmapped section: one unwind stops fault (its first read), the %d in '
    'sfbad_leaf stop at the leaf' % len(leafs('unmapped')))
tap(st.get('sframe_dropped') == 5 and st.get('sframe_registered') == 5 and
    st.get('sframe_removed') == 2,
    'sframe_dropped %d (ENOEXEC, EEXIST, EINVAL, bad, faulted), registered %d (four, the signal page), '
    'removed %d' % (st.get('sframe_dropped', -1), st.get('sframe_registered', -1),
                    st.get('sframe_removed', -1)))
tap(st.get('unwind_stop_bad_sframe') == 1 and st.get('unwind_stop_fault') == 1,
    'unwind_stop_bad_sframe %d, unwind_stop_fault %d'
    % (st.get('unwind_stop_bad_sframe', -1), st.get('unwind_stop_fault', -1)))
done()
