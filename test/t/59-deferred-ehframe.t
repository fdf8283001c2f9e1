#!/usr/bin/env python3
# Deferred .eh_frame unwinding (profile.mode=eh-frame): the same walk as
# SFrame's, its rules looked up in the .eh_frame sections the loaders
# registered (the kernel's PT_GNU_EH_FRAME, dl.c's for /lib/libdeep.so).
# First boot, eh-frame mode, 1000 Hz, tracer on read,stacktrace_setup,exit,
# fib, chain (depth 48), reader, dlwork, cold under /bin/bsuite:
#   - REC_STREAM says mode eh-frame; every sample's cookie has exactly one
#     REC_DEFERRED of its consumer;
#   - every sample in a workload's own frames has the chain its call
#     structure says (records.py EXPECT, as test 50 checks SFrame's),
#     through the shared object's frames;
#   - after dl_unregister (which drops its .eh_frame too) the object's
#     frames end the unwind;
#   - every program and the shared object registered an .eh_frame section,
#     one removed, none refused or dropped; lookups went to .eh_frame
#     (ehframe_lookups), none to an SFrame section (no FDE index searched,
#     no quick SFrame lookup).
# Then four boots of test 56's suite (reader, dlwork, sfreg), tracer on
# read,write,exit: sframe mode, eh-frame mode, eh-frame mode with
# unwind.rule_cache=0, and that with unwind.fde_index=0 too: the tracer's
# chains per process, in order, are identical in all four (the two
# formats give the same stacks; the .eh_frame index, ehframe/index.c,
# changes no answer: with the cache off every step is a lookup, all
# through the index in the third boot, none in the fourth), and the cache
# is hit in the second, never in the third.
# Last, validate-eh (fib, chain, reader at 1000 Hz): every
# sample's deferred .eh_frame chain against libdw's unwind of the stack
# copy of the same NMI (build/bin/stitch): equal on most, or (as test 33
# allows) libdw's a proper prefix of it, stopped where the copy (the
# whole stack in use, as far as the record has room) holds no word: past
# its end, or below sp; each such sample listed in report.txt with the
# reason stitch found at the read where libdw stopped, the counts of both
# adding up; stitch's verdict line says the same.
# (cold is left out: its 16 KiB frames end every deep copy early, more
# samples than the report lists; dlwork too: after dl_unregister the
# kernel rightly stops at the object's frames, where libdw, which still
# has the mapping, goes on.)
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

SUITE = ('/bin/fib:27,/bin/chain:48:600,/bin/reader:/data/blob:4194304:3,'
         '/bin/dlwork:600,/bin/cold')
SYS_STACKTRACE = 21
MODE_EH_FRAME = 7

if not all(os.path.exists(p) for p in (KERNEL, 'build/esp.img', ROOT + '/bin/dlwork')):
    print('1..0 # SKIP kernel, ESP or userland not built')
    sys.exit(0)

tmp = tempfile.mkdtemp(prefix='stitch-t58-')
recs, console, rc = boot('init=/bin/bsuite init.args=%s profile.mode=eh-frame '
                         'profile.hz=1000 trace.syscalls=read,stacktrace_setup,exit'
                         % SUITE, tmp + '/records.bin')
st = stats(recs)
tap(rc == 0 and 'bsuite: 5 of 5 programs ok' in console and of(recs, 'END') and
    st.get('records_lost') == 0, 'the suite ran, the stream is whole, no record lost')
if not recs:
    diag(console[-3000:])
    done()
    sys.exit(0)
tap(recs[0]['mode'] == MODE_EH_FRAME, 'REC_STREAM: mode eh-frame')

comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
users, nmi, traced = user_samples(recs)
deferred = deferred_index(recs)


def answer(s):
    return answer_of(deferred, s)




every = [s for s in of(recs, 'SAMPLE') if s['cookie'] is not None]
missing = [s for s in every if not answer(s)]
tap(every and not missing, 'every cookie of every sample has exactly one REC_DEFERRED of '
    'its consumer (%d samples, %d missing or duplicated)' % (len(every), len(missing)))

syms = {pid: Symbols(recs, pid) for pid in comm}
by_prog = {}
for s in nmi:
    d = answer(s)
    if d and d['user'] is not None:
        by_prog.setdefault(comm[s['pid']], []).append((s, d, syms[s['pid']].names(d['user'])))
remove_time = {s['pid']: s['time'] for s in traced
               if s['aux'] == SYS_STACKTRACE and comm[s['pid']] == 'dlwork'}
for prog in ('fib', 'chain', 'reader', 'cold', 'dlwork'):
    rows = by_prog.get(prog, [])
    if prog == 'dlwork':
        rows = [r for r in rows if r[0]['time'] < remove_time.get(r[0]['pid'], 0)]
    checked = [(s, n) for s, d, n in rows if expected(prog, n) is not None]
    bad = [(s, n) for s, n in checked if not expected(prog, n)]
    tap(len(checked) >= 3 and not bad,
        '%s: all %d samples in its own frames have the chain its call structure says '
        '(from .eh_frame)' % (prog, len(checked)))
    for s, n in bad[:3]:
        diag('  %s' % ' <- '.join(n))

after = [(s, d, n) for s, d, n in by_prog.get('dlwork', [])
         if s['time'] > remove_time.get(s['pid'], 1 << 64) and
         n and re.fullmatch(r'deep_\w+|dlwork_callback', n[0])]
cut = [n for s, d, n in after if 'deep_run' not in n and STOPS[d['stop']] != 'end']
tap(after and len(cut) == len(after),
    'dlwork after dl_unregister: all %d unwinds stop at the shared object\'s first frame'
    % len(after))
tap(st.get('ehframe_registered') == 2 * len(comm) + 1 and st.get('ehframe_removed') == 1 and
    st.get('ehframe_refused') == 0 and st.get('ehframe_dropped') == 0,
    'ehframe_registered %d (one per process and its signal page, the shared object), removed %d, refused %d, '
    'dropped %d' % (st.get('ehframe_registered', -1), st.get('ehframe_removed', -1),
                    st.get('ehframe_refused', -1), st.get('ehframe_dropped', -1)))
tap(st.get('ehframe_lookups', 0) > 0 and st.get('rule_cache_hits', 0) > 0 and
    st.get('fde_index_lookups') == 0 and st.get('quick_lookups') == 0 and
    st.get('sframe_indexed') == 0,
    'the rules came from .eh_frame (%d lookups, %d cache hits), no SFrame section was read'
    % (st.get('ehframe_lookups', -1), st.get('rule_cache_hits', -1)))

# The same stacks from both formats, and from .eh_frame with and without
# its index.
SUITE2 = '/bin/reader:/data/blob:65536:2,/bin/dlwork:200,/bin/sfreg:-'


def run(mode, cache, index=1):
    t = tempfile.mkdtemp(prefix='stitch-t58-')
    r, con, code = boot('init=/bin/bsuite init.args=%s profile.mode=%s profile.hz=1000 '
                        'trace.syscalls=read,write,exit unwind.rule_cache=%d unwind.fde_index=%d'
                        % (SUITE2, mode, cache, index), t + '/records.bin')
    cm = {c['pid']: c['name'] for c in of(r, 'COMM')}
    chains = [(d['pid'], cm.get(d['pid']), STOPS[d['stop']], tuple(d['user'] or ()))
              for d in sorted(of(r, 'DEFERRED'), key=lambda d: (d['pid'], d['time']))
              if d['consumer'] == TRACER]
    return code, con, stats(r), chains


rs, cs, ss, sf = run('sframe', 1)
re1, ce1, se1, eh = run('eh-frame', 1)
re0, ce0, se0, eh0 = run('eh-frame', 0)
rx0, cx0, sx0, ehx0 = run('eh-frame', 0, 0)
tap(rs == re1 == re0 == rx0 == 0 and
    all('bsuite: 3 of 3 programs ok' in c for c in (cs, ce1, ce0, cx0)),
    'the four boots ran the three programs')
whole = all(s in ('end', 'task-exited') for _, _, s, _ in sf + eh + eh0 + ehx0)
tap(len(sf) > 100 and sf == eh == eh0 and whole,
    '%d tracer chains from SFrame, %d from .eh_frame, %d from .eh_frame without the cache: '
    'identical, in order, whole' % (len(sf), len(eh), len(eh0)))
for x, y in ((sf, eh), (eh, eh0), (eh0, ehx0)):
    if x != y:
        for a, b in zip(x, y):
            if a != b:
                diag('  %s\n  %s' % (a, b))
                break
tap(se1.get('rule_cache_hits', 0) > 0 and se0.get('rule_cache_hits') == 0 and
    se0.get('ehframe_lookups', 0) > se1.get('ehframe_lookups', 0),
    'eh-frame: the rule cache hit %d times with it on, %d with unwind.rule_cache=0 '
    '(lookups %d against %d)' % (se1.get('rule_cache_hits', -1), se0.get('rule_cache_hits', -1),
                                 se0.get('ehframe_lookups', -1), se1.get('ehframe_lookups', -1)))
# The index (ehframe/index.c) changes no answer: without the rule cache
# every step is a lookup, through the index in one boot and through the
# search table alone in the other, and the chains are the same.
tap(ehx0 == eh0 and se0.get('ehframe_indexed', 0) >= 3 and
    se0.get('ehframe_index_lookups') == se0.get('ehframe_lookups') and
    sx0.get('ehframe_indexed') == 0 and sx0.get('ehframe_index_lookups') == 0 and
    sx0.get('ehframe_lookups', 0) > 100,
    'eh-frame without the rule cache: %d chains through the index (%d sections indexed, all '
    '%d lookups through it), %d with unwind.fde_index=0 (%d lookups, none indexed): identical'
    % (len(eh0), se0.get('ehframe_indexed', -1), se0.get('ehframe_lookups', -1), len(ehx0),
       sx0.get('ehframe_lookups', -1)))

# validate-eh: each sample's deferred .eh_frame chain against libdw's
# unwind of the stack copy the same NMI took (tools/stitch), on the
# suite of the first boot.
SUITE3 = '/bin/fib:27,/bin/chain:48:600,/bin/reader:/data/blob:4194304:3'
recs, console, rc = boot('init=/bin/bsuite init.args=%s profile.mode=validate-eh '
                         'profile.hz=1000' % SUITE3, tmp + '/validate-eh.bin')
vst = stats(recs)
tap(rc == 0 and 'bsuite: 3 of 3 programs ok' in console and of(recs, 'END') and
    recs[0]['mode'] == MODES.index('validate-eh') and vst.get('ehframe_lookups', 0) > 0 and
    vst.get('fde_index_lookups') == 0,
    'validate-eh: the programs ran, the stream is whole and says mode validate-eh, the '
    'deferred rules came from .eh_frame')
out = subprocess.run(['build/bin/stitch', '--symfs', ROOT, '--kernel', KERNEL, '-o', tmp + '/v',
                      '--stats', tmp + '/v.json', tmp + '/validate-eh.bin'],
                     capture_output=True, text=True)
js = json.load(open(tmp + '/v.json'))['stitch'] if out.returncode == 0 else {}
report = open(tmp + '/v/report.txt').read() if out.returncode == 0 else ''
n, agree, differ, short, below = (js.get(k, 0) for k in (
    'validate_samples', 'validate_agree', 'validate_disagree', 'validate_copy_short',
    'validate_copy_below'))
listed = re.findall(r'^  (\w+) pid \d+ tid \d+ time \d+ ns: first difference at frame (\d+)'
                    r'(?: \((.*)\))?\n    eh-frame: (.*)\n    libdw:    (.*)\n', report, re.M)
EXCUSES = ('the stack copy ended', 'a word below sp, not in the copy')
prefix = [x for x in listed if x[2] in EXCUSES and x[4] != x[3] and x[3].startswith(x[4] + ' <- ')]
verdict = re.search(r'^validate-eh: (\d+) of (\d+) samples agree \(the deferred \.eh_frame',
                    out.stdout, re.M)
tap(out.returncode == 0 and n >= 100 and agree >= 0.9 * n and agree + differ == n
    and len(listed) == differ and len(prefix) == differ and short + below == differ and verdict and
    int(verdict.group(1)) == agree and int(verdict.group(2)) == n and
    '== validate-eh: the deferred .eh_frame chain and libdw\'s' in report,
    'validate-eh: of %d samples, the .eh_frame chain equals libdw\'s on %d (90%% or more); on '
    'the other %d libdw\'s chain is a proper prefix of it, stopped where the copy holds no word '
    '(%d past its end, %d below sp)' % (n, agree, differ, short, below))
for x in listed:
    if x not in prefix:
        diag('  %s: (%s)\n  eh-frame %s\n  libdw    %s' % (x[0], x[2], x[3], x[4]))
if out.returncode:
    diag(out.stdout[-2000:] + out.stderr[-2000:])
diag('stats: ' + ' '.join('%s=%d' % kv for kv in sorted(st.items()) if 'ehframe' in kv[0]))
done()
