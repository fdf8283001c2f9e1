#!/usr/bin/env python3
# Deferred SFrame unwinding end to end, one boot (profile.mode=sframe,
# 1000 Hz, trace.syscalls=read,stacktrace_setup,exit) running, one after the
# other under /bin/bsuite: fib, chain (depth 48), reader (4 MiB reads),
# dlwork (/lib/libdeep.so through the user-space loader), sfreg three times
# (its own .sframe as the loader's v1, then re-encoded v2 and v3,
# registered by itself), cold (untouched .sframe and stack pages).
# The stream (read by test/deferred/records.py, named with nm) must show:
#   - every sample of a process carries PERF_CONTEXT_USER_DEFERRED and a
#     cookie, and exactly one REC_DEFERRED of its consumer answers it (no
#     missing, no duplicate, no orphan); period 0;
#   - every sample whose user leaf is one of a workload's own frames has
#     the deferred chain the workload's call structure says, by name
#     (records.py EXPECT), for every workload, through the shared object's
#     frames, and the same for the v1, v2 and v3 sections;
#   - one long system call, one cookie: NMI samples inside one read() share
#     the cookie of the tracer's sample of that read(), and one unwind
#     serves both consumers (identical chains, unwind_reused counted);
#   - deferred records of the sampler = entries_with_samples, which the
#     kernel counts from the entries the sampler marked, not from records;
#   - after dl_unregister the shared object's frames have no SFrame: the
#     unwinds stop there (fallback to rbp, which holds no frame pointer);
#   - exit() is traced and never returns: each of its requests is answered
#     by the unwind the kernel finishes while the address space is still
#     there: the real user stack of the call, from the system-call stub
#     down to _start; no unwind ends task-exited;
#   - the counters add up (requests, coalesced, unwinds, reused, records).
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

SUITE = ('/bin/fib:27,/bin/chain:48:600,/bin/reader:/data/blob:4194304:3,'
         '/bin/dlwork:600,/bin/sfreg:-,/bin/sfreg:/data/sfreg.v2.sframe,'
         '/bin/sfreg:/data/sfreg.v3.sframe,/bin/cold')
SYS_READ, SYS_EXIT, SYS_STACKTRACE = 3, 1, 21

if not all(os.path.exists(p) for p in (KERNEL, 'build/esp.img', ROOT + '/bin/dlwork')):
    print('1..0 # SKIP kernel, ESP or userland not built')
    sys.exit(0)

tmp = tempfile.mkdtemp(prefix='stitch-t50-')
recs, console, rc = boot('init=/bin/bsuite init.args=%s profile.mode=sframe '
                         'profile.hz=1000 trace.syscalls=read,stacktrace_setup,exit'
                         % SUITE, tmp + '/records.bin')
st = stats(recs)
tap(rc == 0 and 'bsuite: 8 of 8 programs ok' in console,
    'the suite ran and the kernel shut down with success')
tap(of(recs, 'END') and st.get('records_lost') == 0 and not of(recs, 'LOST'),
    'the stream is whole (REC_END), no record lost')
if not recs:
    diag(console[-3000:])
    done()
    sys.exit(0)
tap(recs[0]['mode'] == 1 and recs[0]['max_frames'] == 128,
    'REC_STREAM: mode sframe, deferred buffer bound 128 frames')

comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
users, nmi, traced = user_samples(recs)
deferred = deferred_index(recs)


def answer(s):
    return answer_of(deferred, s)




# A task in task_exit refuses requests once it has settled its last unwind
# (before its address space goes): those samples carry no user part.
gone = [s for s in nmi if s['cookie'] is None and
        'task_exit' in Symbols(recs, s['pid']).names(s['kernel'])]
tap(nmi and all(s['cookie'] for s in nmi if s not in gone) and
    all(s['cookie'] for s in traced),
    '%d NMI samples and %d traced calls of the workloads, each with a cookie '
    '(but %d in task_exit after its last unwind)'
    % (len(nmi), len(traced), len(gone)))
every = [s for s in of(recs, 'SAMPLE') if s['cookie'] is not None]
missing = [s for s in every if not answer(s)]
tap(not missing, 'every cookie of every sample has exactly one REC_DEFERRED of its '
    'consumer (%d samples, %d missing or duplicated)' % (len(every), len(missing)))
asked = {(s['tid'], s['cookie'], TRACER if s['event'] else SAMPLER) for s in every}
orphans = [k for k in deferred if k not in asked]
tap(not orphans and all(d['period'] == 0 for d in of(recs, 'DEFERRED')),
    'no deferred record without a sample that asked for it; all have period 0')

# Chains by name.
syms = {pid: Symbols(recs, pid) for pid in comm}
by_prog = {}
for s in nmi:
    d = answer(s)
    if not d or d['user'] is None:
        continue
    by_prog.setdefault(comm[s['pid']], []).append((s, d, syms[s['pid']].names(d['user'])))

remove_time = {s['pid']: s['time'] for s in traced
               if s['aux'] == SYS_STACKTRACE and comm[s['pid']] == 'dlwork'}
sfreg_pids = sorted(p for p in comm if comm[p] == 'sfreg')
for prog in ('fib', 'chain', 'reader', 'cold', 'dlwork', 'sfreg'):
    for pid in sorted(p for p in comm if comm[p] == prog):
        rows = [(s, d, n) for s, d, n in by_prog.get(prog, []) if s['pid'] == pid]
        if prog == 'dlwork':  # phase 1: before stacktrace_setup(REMOVE)
            rows = [r for r in rows if r[0]['time'] < remove_time.get(pid, 0)]
        checked = [(s, n) for s, d, n in rows if expected(prog, n) is not None]
        bad = [(s, n) for s, n in checked if not expected(prog, n)]
        what = prog
        if prog == 'sfreg':
            what = 'sfreg with a v%d section' % (sfreg_pids.index(pid) + 1)
        tap(len(checked) >= 3 and not bad,
            '%s: all %d samples in its own frames have the chain its call '
            'structure says' % (what, len(checked)))
        for s, n in bad[:3]:
            diag('  %s' % ' <- '.join(n))

# One long system call, one cookie, shared by the tracer.
reads = [s for s in traced if s['aux'] == SYS_READ and comm[s['pid']] == 'reader']
shared = 0
for t in reads:
    # In the kernel between the call's entry (the tracer's sample) and
    # its return (the deferred record, written on the way out).
    inside = [s for s in nmi if s['tid'] == t['tid'] and s['kernel'] and answer(t)
              and t['time'] < s['time'] < answer(t)['time']]
    if len(inside) >= 2 and all(s['cookie'] == t['cookie'] for s in inside):
        shared += 1
tap(shared >= 1, '%d read() calls had 2+ NMI samples inside, all with the cookie '
    'of the tracer\'s sample of that call' % shared)
both = [k for k in deferred if k[2] == SAMPLER and (k[0], k[1], TRACER) in deferred
        and STOPS[deferred[k][0]['stop']] != 'task-exited']
same = [k for k in both if deferred[k][0]['ips'] == deferred[(k[0], k[1], TRACER)][0]['ips']]
tap(both and len(same) == len(both) and st.get('unwind_reused', 0) >= len(both),
    '%d cookies asked by both consumers: one unwind each, the same chain in both '
    'records (unwind_reused %d)' % (len(both), st.get('unwind_reused', 0)))

# Records, entries, counters.
sampler_recs = [d for d in of(recs, 'DEFERRED') if d['consumer'] == SAMPLER]
tap(len(sampler_recs) == st.get('entries_with_samples'),
    'sampler deferred records (%d) = kernel entries that had samples (%d)'
    % (len(sampler_recs), st.get('entries_with_samples', -1)))
multi = {}
for s in every:
    k = (s['tid'], s['cookie'], s['event'])
    multi[k] = multi.get(k, 0) + 1
tap(max(multi.values()) >= 2 and
    st.get('requests_coalesced', 0) == sum(n - 1 for n in multi.values()),
    'samples of one entry share its cookie: requests_coalesced (%d) = requests '
    'beyond the first of each consumer for each cookie' % st.get('requests_coalesced', -1))
exited = [d for d in of(recs, 'DEFERRED') if STOPS[d['stop']] == 'task-exited']
exits = [s for s in traced if s['aux'] == SYS_EXIT]
def exit_chain(s):
    d = answer(s)
    if not d or not d['user'] or STOPS[d['stop']] != 'end':
        return None
    return syms[s['pid']].names(d['user'])


chains = [exit_chain(s) for s in exits]
whole = [n for n in chains if n and n[-1] == '_start' and 'exit' in n]
tap(exits and len(whole) == len(exits),
    'exit() (traced, never returns): all %d requests answered with the user stack of '
    'the call, down to _start through exit (%d whole)' % (len(exits), len(whole)))
for s in [s for s, n in zip(exits, chains) if n not in whole][:3]:
    d = answer(s)
    diag('  %s: %s' % (STOPS[d['stop']] if d else 'no record',
                       ' <- '.join(syms[s['pid']].names(d['user'] or [])) if d else ''))
tap(not exited and st.get('unwind_stop_task_exited') == 0,
    'no unwind ended task-exited (unwind_stop_task_exited %d): every task still had '
    'its user stack' % st.get('unwind_stop_task_exited', -1))
records = len(of(recs, 'DEFERRED'))
tap(st.get('deferred_records') == records and
    st.get('unwinds_run', 0) + st.get('unwind_reused', 0) + len(exited) == records,
    'deferred_records (%d) = records; unwinds_run %d + unwind_reused %d + %d task '
    'exited = records' % (st.get('deferred_records', -1), st.get('unwinds_run', -1),
                          st.get('unwind_reused', -1), len(exited)))
tap(st.get('deferred_requests') == len(every),
    'deferred_requests (%d) = samples that carry a cookie (%d)'
    % (st.get('deferred_requests', -1), len(every)))

# The shared object without its registration.
after = [(s, d, n) for s, d, n in by_prog.get('dlwork', [])
         if s['time'] > remove_time.get(s['pid'], 1 << 64) and
         n and re.fullmatch(r'deep_\w+|dlwork_callback', n[0])]
cut = [n for s, d, n in after if 'deep_run' not in n and STOPS[d['stop']] != 'end']
tap(after and len(cut) == len(after) and st.get('unwind_fp_fallback', 0) >= len(after),
    'dlwork after dl_unregister: all %d unwinds stop at the shared object\'s first '
    'frame (unwind_fp_fallback %d)' % (len(after), st.get('unwind_fp_fallback', -1)))
tap(st.get('sframe_registered') == 2 * len(comm) + 1 + 2 and st.get('sframe_removed') == 3
    and st.get('sframe_dropped') == 0,
    'sframe_registered %d (one per process and its signal page, the shared object, v2, v3), removed %d, '
    'dropped %d' % (st.get('sframe_registered', -1), st.get('sframe_removed', -1),
                    st.get('sframe_dropped', -1)))
diag('stats: ' + ' '.join('%s=%d' % kv for kv in sorted(st.items())))
done()
