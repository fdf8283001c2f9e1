#!/usr/bin/env python3
# The deferred unwind with several CPUs (docs/SMP.md), three boots of 4 CPUs:
#   1. four children at once (/bin/bsuite -j: two fib, two chain depth 48),
#      under -icount: the children's samples are on all four CPUs, each
#      child on a CPU of its own, every sample of a child in its own frames
#      has its known chain (records.py EXPECT), every cookie has exactly one
#      REC_DEFERRED (no missing, no duplicate, no orphan), the stream names
#      4 CPUs and every sample's CPU is one of them; the same boot twice
#      writes the same bytes;
#   2. sched.migrate, under -icount: a task whose unwind is due moves to
#      another CPU first, so the NMI's CPU (the sample's cpu, the cookie's
#      CPU bits) differs from the CPU that unwinds (the record's cpu); every
#      cookie answered exactly once, chains still right, the counters
#      (sched_forced_migrations, unwind_cross_cpu) agree with the records;
#   3. the boot of 2 again: byte-identical streams under -icount.
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

CPUS = 4
KIDS = '-j,/bin/fib:29,/bin/fib:29,/bin/chain:48:3000,/bin/chain:48:3000'
COOKIE_CPU = 7  # the cookie's low bits: the CPU that assigned it

if not all(os.path.exists(p) for p in (KERNEL, ROOT + '/bin/bsuite', ROOT + '/bin/chain')):
    print('1..0 # SKIP kernel or userland not built')
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix='stitch-t57-')


def check_answers(recs, what):
    """Every sample's cookie has exactly one record of its consumer, and
    every record a sample; returns {sample index: its record}."""
    deferred = {}
    for d in of(recs, 'DEFERRED'):
        deferred.setdefault((d['tid'], d['cookie'], d['consumer']), []).append(d)
    every = [s for s in of(recs, 'SAMPLE') if s['cookie'] is not None]
    keys = [(s['tid'], s['cookie'], TRACER if s['event'] else SAMPLER) for s in every]
    missing = [k for k in keys if len(deferred.get(k, [])) == 0]
    dup = [k for k in keys if len(deferred.get(k, [])) > 1]
    orphans = [k for k in deferred if k not in set(keys)]
    tap(every and not missing and not dup and not orphans,
        '%s: %d samples with a cookie, each answered exactly once (%d missing, '
        '%d duplicate, %d records nobody asked for)'
        % (what, len(every), len(missing), len(dup), len(orphans)))
    return {id(s): deferred[k][0] for s, k in zip(every, keys) if len(deferred.get(k, [])) == 1}


def check_chains(recs, answers, kids, what):
    comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
    bad, checked = [], 0
    for s in of(recs, 'SAMPLE'):
        if s['pid'] not in kids or id(s) not in answers or answers[id(s)]['user'] is None:
            continue
        names = Symbols(recs, s['pid']).names(answers[id(s)]['user'])
        ok = expected(comm[s['pid']], names)
        if ok is None:
            continue
        checked += 1
        if not ok:
            bad.append(names)
    tap(checked >= 8 and not bad,
        '%s: all %d samples in the children\'s own frames have their known chain'
        % (what, checked))
    for n in bad[:3]:
        diag('  ' + ' <- '.join(n))


def children(recs):
    comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
    return {p for p, n in comm.items() if n in ('fib', 'chain')}


# --- 1. four children at once ----------------------------------------------
AT_ONCE = 'init=/bin/bsuite init.args=%s profile.mode=sframe profile.hz=1000' % KIDS
icount = ['--direct', '--icount', '--cpus', str(CPUS)]
recs, console, rc = boot(AT_ONCE, tmp + '/at-once1.bin', 600, icount)
st = stats(recs)
tap(rc == 0 and 'bsuite: 4 of 4 programs ok' in console,
    'at once: four children ran, the kernel shut down with success')
tap(recs and recs[0]['ncpus'] == CPUS and of(recs, 'END') and st.get('records_lost') == 0,
    'at once: the stream names %d CPUs, is whole, nothing lost' % CPUS)
if not recs:
    diag(console[-3000:])
    done()
    sys.exit(0)
kids = children(recs)
samples = of(recs, 'SAMPLE')
tap(all(0 <= s['cpu'] < CPUS for s in samples) and
    {s['cpu'] for s in samples if s['pid'] in kids} == set(range(CPUS)),
    'at once: the children\'s samples are on all %d CPUs (%s)'
    % (CPUS, sorted({(s['pid'], s['cpu']) for s in samples if s['pid'] in kids})))
# A CPU of its own for each: the wake-up IPIs reached the idle CPUs in time
# for them to take the children, and none was left without its turn.
kid_cpus = {p: {s['cpu'] for s in samples if s['pid'] == p} for p in kids}
tap(len(kids) == 4 and all(len(c) == 1 for c in kid_cpus.values()) and
    len(set().union(*kid_cpus.values())) == CPUS,
    'at once: each of the 4 children has samples, all on a CPU of its own (%s)'
    % sorted((p, sorted(c)) for p, c in kid_cpus.items()))
answers = check_answers(recs, 'at once')
check_chains(recs, answers, kids, 'at once')
_, _, rc2 = boot(AT_ONCE, tmp + '/at-once2.bin', 600, icount)
a = open(tmp + '/at-once1.bin', 'rb').read()
b = open(tmp + '/at-once2.bin', 'rb').read()
tap(rc2 == 0 and a == b and len(a) > 0,
    'at once: two -icount boots wrote byte-identical streams (%d bytes)' % len(a))

# --- 2. forced migration, under -icount --------------------------------------
MIGRATE = ('init=/bin/bsuite init.args=-j,/bin/fib:27,/bin/chain:48:600 '
           'profile.mode=sframe profile.hz=1000 sched.migrate')
recs, console, rc = boot(MIGRATE, tmp + '/migrate1.bin', 600, icount)
st = stats(recs)
tap(rc == 0 and 'bsuite: 2 of 2 programs ok' in console and of(recs, 'END'),
    'migrate: the programs ran, the stream is whole')
answers = check_answers(recs, 'migrate')
nmi = [s for s in of(recs, 'SAMPLE') if s['event'] == EVENT_CPU_CLOCK and id(s) in answers]
moved = [s for s in nmi if answers[id(s)]['cpu'] != s['cpu']]
tap(nmi and all(s['cookie'] & COOKIE_CPU == s['cpu'] for s in nmi if
                s is min((x for x in nmi if x['cookie'] == s['cookie']), key=lambda x: x['time'])),
    'migrate: each cookie carries the CPU of its first NMI')
tap(len(moved) >= 10,
    'migrate: %d of %d NMI samples were answered on another CPU than the NMI\'s'
    % (len(moved), len(nmi)))
cross = {(d['tid'], d['cookie']) for d in of(recs, 'DEFERRED')
         if d['cpu'] != d['cookie'] & COOKIE_CPU}
tap(st.get('unwind_cross_cpu') == len(cross) and st.get('sched_forced_migrations', 0) >= len(cross),
    'migrate: unwind_cross_cpu (%d) = records written on another CPU than their '
    'cookie\'s (%d); sched_forced_migrations %d'
    % (st.get('unwind_cross_cpu', -1), len(cross), st.get('sched_forced_migrations', -1)))
check_chains(recs, answers, children(recs), 'migrate')
tap(st.get('deferred_records') == len(of(recs, 'DEFERRED')) and
    st.get('deferred_requests') == len([s for s in of(recs, 'SAMPLE') if s['cookie'] is not None]),
    'migrate: deferred_records and deferred_requests agree with the stream')

# --- 3. the same boot again: the same bytes -----------------------------------
_, _, rc2 = boot(MIGRATE, tmp + '/migrate2.bin', 600, icount)
a = open(tmp + '/migrate1.bin', 'rb').read()
b = open(tmp + '/migrate2.bin', 'rb').read()
tap(rc2 == 0 and a == b and len(a) > 0,
    'two -icount boots with %d CPUs wrote byte-identical streams (%d bytes)' % (CPUS, len(a)))
diag('stats: ' + ' '.join('%s=%d' % kv for kv in sorted(st.items()) if kv[1]))
done()
