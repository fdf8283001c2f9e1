#!/usr/bin/env python3
# The rule cache and the sections' FDE index save work and change no
# answer: the same programs booted three times under -icount, with
# unwind.rule_cache=1 (the default), unwind.rule_cache=0, and
# unwind.rule_cache=0 unwind.fde_index=0, profile.mode=sframe at 1000 Hz, the system-call
# tracer on read, write and exit (reader, dlwork through its shared object,
# sfreg with its own registration: programs whose system calls do not
# depend on timing). Where an NMI lands depends on how long the unwinds
# take, but the user stack at the k-th traced system call of a process
# does not: the tracer's deferred records, in order, must hold the
# same chains in all boots, whole (stop end, or task-exited for exit).
#   - identical tracer chains, as many of them, in all boots;
#   - with the cache the rule cache is hit (rule_cache_hits > 0), without
#     it never (rule_cache_hits = rule_cache_misses = 0);
#   - with the index the lookups go through it (sframe_indexed and
#     fde_index_lookups > 0) and most are answered in one pass through an
#     FDE it kept (quick_lookups), without it never.
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

SUITE = '/bin/reader:/data/blob:65536:2,/bin/dlwork:200,/bin/sfreg:-'
if not all(os.path.exists(p) for p in (KERNEL, 'build/esp.img', ROOT + '/bin/dlwork')):
    print('1..0 # SKIP kernel, ESP or userland not built')
    sys.exit(0)


def run(cache, index=1):
    tmp = tempfile.mkdtemp(prefix='stitch-t56-')
    recs, console, rc = boot('init=/bin/bsuite init.args=%s profile.mode=sframe '
                             'profile.hz=1000 trace.syscalls=read,write,exit '
                             'unwind.rule_cache=%d unwind.fde_index=%d' % (SUITE, cache, index),
                             tmp + '/records.bin')
    comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
    # By process, in time order: the programs run one after the other, but
    # their lives may overlap with bsuite's own system calls.
    chains = [(d['pid'], comm.get(d['pid']), STOPS[d['stop']], tuple(d['user'] or ()))
              for d in sorted(of(recs, 'DEFERRED'), key=lambda d: (d['pid'], d['time']))
              if d['consumer'] == TRACER]
    return rc, console, stats(recs), chains


rc1, con1, st1, on = run(1)
rc0, con0, st0, off = run(0)
rcn, conn, stn, bare = run(0, 0)
tap(rc1 == 0 and rc0 == 0 and rcn == 0 and
    all('bsuite: 3 of 3 programs ok' in c for c in (con1, con0, conn)),
    'the three boots ran the three programs')
whole = all(s in ('end', 'task-exited') for _, _, s, _ in on + off + bare)
tap(len(on) > 100 and on == off == bare and whole,
    '%d tracer chains with the cache, %d without, %d without the index either: '
    'identical, in order, whole' % (len(on), len(off), len(bare)))
for x, y in ((on, off), (off, bare)):
    if x != y:
        for a, b in zip(x, y):
            if a != b:
                diag('first difference: %s / %s' % (a, b))
                break
tap(st1.get('rule_cache_hits', 0) > 0 and st0.get('rule_cache_hits') == 0 and
    st0.get('rule_cache_misses') == 0,
    'rule_cache_hits %d with the cache (misses %d), %d without'
    % (st1.get('rule_cache_hits', -1), st1.get('rule_cache_misses', -1),
       st0.get('rule_cache_hits', -1)))
tap(st0.get('sframe_indexed', 0) > 0 and st0.get('fde_index_lookups', 0) > 0 and
    stn.get('sframe_indexed') == 0 and stn.get('fde_index_lookups') == 0,
    'sframe_indexed %d, fde_index_lookups %d with the index; %d, %d without'
    % (st0.get('sframe_indexed', -1), st0.get('fde_index_lookups', -1),
       stn.get('sframe_indexed', -1), stn.get('fde_index_lookups', -1)))
tap(2 * st0.get('quick_lookups', 0) > st0.get('fde_index_lookups', 0) > 0 and
    stn.get('quick_lookups') == 0,
    'quick_lookups %d of %d lookups through the index; %d without it'
    % (st0.get('quick_lookups', -1), st0.get('fde_index_lookups', -1),
       stn.get('quick_lookups', -1)))
done()
