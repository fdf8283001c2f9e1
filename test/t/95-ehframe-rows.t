#!/usr/bin/env python3
# .eh_frame lookups served by rows kept in kernel memory (docs/EHFRAME.md,
# "Rows"): profile.mode=eh-convert (each table converted whole, in chunks,
# at its first lookups) and eh-rowcache (an FDE's rows kept at its first
# miss), and validate-eh with either design (unwind.eh_rows=).
# For each design, two boots under /bin/bsuite at 1000 Hz:
#   - validate-eh (fib, chain of depth 48, reader): every sample's deferred chain against libdw's unwind of
#     the stack copy of the same NMI (build/bin/stitch): equal on 90 % or
#     more, the others libdw's a proper prefix of it, stopped where the
#     copy holds no word (as test 59 allows for eh-frame);
#   - the mode itself with the rule cache off (every step a lookup), on
#     test 59's second suite (reader, dlwork's shared object registered
#     by dl.c, sfreg's tables by system call): the tracer's chains, in
#     order, are the ones an eh-frame boot gives,
#     and the rows answered lookups (ehrows_lookups; eh-convert: every
#     table converted, none fell back; eh-rowcache: hits and fills);
#   - in every boot: every byte taken for rows given back
#     (ehrows_bytes = ehrows_freed), every page back, no table dropped.
# make run accepts both names.
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

if not all(os.path.exists(p) for p in (KERNEL, 'build/bin/stitch', ROOT + '/bin/reader')):
    print('1..0 # SKIP kernel, stitch or userland not built')
    sys.exit(0)

tmp = tempfile.mkdtemp(prefix='stitch-t95-')
SUITE = '/bin/fib:27,/bin/chain:48:600,/bin/reader:/data/blob:4194304:3'
PAGES = re.compile(r'free pages before init (\d+), after init (\d+)')


def run(name, cmdline, suite=SUITE):
    recs, console, rc = boot('init=/bin/bsuite init.args=%s profile.hz=1000 %s'
                             % (suite, cmdline), '%s/%s.bin' % (tmp, name))
    st = stats(recs)
    pages = PAGES.search(console)
    ok = (rc == 0 and of(recs, 'END') and
          'bsuite: %d of %d programs ok' % ((suite.count(',') + 1,) * 2) in console and
          pages and pages.group(1) == pages.group(2) and st.get('ehframe_dropped', -1) == 0 and
          st.get('ehrows_bytes', -1) == st.get('ehrows_freed', -2))
    tap(ok, '%s: the programs ran, no table dropped, every page back, every byte of rows given back '
        '(%d taken)' % (name, st.get('ehrows_bytes', -1)))
    if not ok:
        diag(console[-2000:])
    return recs, st


def chains(recs):
    """The tracer's chains, by process, in order (as test 59 compares)."""
    return [(d['pid'], STOPS[d['stop']], tuple(d['user'] or ()))
            for d in sorted(of(recs, 'DEFERRED'), key=lambda d: (d['pid'], d['time']))
            if d['consumer'] == TRACER]


def validate(name, design):
    recs, st = run(name, 'profile.mode=validate-eh unwind.eh_rows=' + design)
    out = subprocess.run(['build/bin/stitch', '--symfs', ROOT, '--kernel', KERNEL, '-o',
                          tmp + '/' + name, '--stats', tmp + '/%s.json' % name,
                          tmp + '/%s.bin' % name], capture_output=True, text=True)
    js = json.load(open(tmp + '/%s.json' % name))['stitch'] if out.returncode == 0 else {}
    report = open(tmp + '/%s/report.txt' % name).read() if out.returncode == 0 else ''
    n, agree, differ, short, below = (js.get(k, 0) for k in (
        'validate_samples', 'validate_agree', 'validate_disagree', 'validate_copy_short',
        'validate_copy_below'))
    listed = re.findall(r'^  (\w+) pid \d+ tid \d+ time \d+ ns: first difference at frame '
                        r'(\d+)(?: \((.*)\))?\n    eh-frame: (.*)\n    libdw:    (.*)\n',
                        report, re.M)
    excuses = ('the stack copy ended', 'a word below sp, not in the copy')
    prefix = [x for x in listed if x[2] in excuses and x[4] != x[3] and
              x[3].startswith(x[4] + ' <- ')]
    tap(out.returncode == 0 and n >= 100 and agree >= 0.9 * n and agree + differ == n and
        len(prefix) == differ and short + below == differ and st.get('ehrows_lookups', 0) > 0,
        '%s: of %d samples the chain from rows equals libdw\'s on %d; on the other %d '
        'libdw\'s is a proper prefix, stopped where the copy holds no word; %d lookups '
        'from rows' % (name, n, agree, differ, st.get('ehrows_lookups', 0)))
    if out.returncode:
        diag(out.stdout[-2000:] + out.stderr[-2000:])


# Test 59's second suite: a shared object registered by dl.c (dlwork) and
# tables registered by system call (sfreg) beside the executables'.
SUITE2 = '/bin/reader:/data/blob:65536:2,/bin/dlwork:200,/bin/sfreg:-'
TRACE = ' trace.syscalls=read,write,exit unwind.rule_cache=0'
base, _ = run('eh-frame', 'profile.mode=eh-frame' + TRACE, SUITE2)
want = chains(base)
for mode, design in (('eh-convert', 'convert'), ('eh-rowcache', 'rowcache')):
    validate('validate-' + design, design)
    recs, st = run(mode, 'profile.mode=' + mode + TRACE, SUITE2)
    got = chains(recs)
    rows = st.get('ehrows_lookups', 0)
    look = st.get('ehframe_lookups', 0)
    if mode == 'eh-convert':
        own = (st.get('ehrows_converted', 0) >= 3 and st.get('ehrows_fallback', -1) == 0 and
               st.get('ehrows_rows', 0) > 0 and rows >= 0.9 * look)
        what = '%d tables converted (%d rows), none fell back' % (
            st.get('ehrows_converted', 0), st.get('ehrows_rows', 0))
    else:
        own = (st.get('ehrows_cache_hits', 0) > st.get('ehrows_cache_fills', 0) > 0 and
               rows > 0.9 * look)
        what = '%d row-cache hits, %d FDEs kept, %d evicted, %d not kept' % (
            st.get('ehrows_cache_hits', 0), st.get('ehrows_cache_fills', 0),
            st.get('ehrows_evicted', 0), st.get('ehrows_uncached', 0))
    tap(len(want) > 100 and got == want and own,
        '%s, rule cache off: the tracer\'s %d chains are eh-frame\'s, in order; '
        '%d of %d lookups answered from rows; %s' % (mode, len(got), rows, look, what))

# A table of more FDEs than eh-convert's budget of rows (65 536):
# /bin/funcs-100000's falls back at its first lookup, before any chunk
# is spent on it (converting it as far as the budget would take tens of
# millions of cycles, at a chunk a walk); the walks still end at _start.
recs, st = run('convert-big', 'profile.mode=eh-convert unwind.rule_cache=0',
               '/bin/funcs-100000:300')
tap(st.get('ehrows_fallback', -1) == 1 and 0 <= st.get('ehrows_cycles', -1) < 10000000 and
    st.get('unwind_stop_end', 0) > 0 and st.get('ehrows_bytes', -1) == st.get('ehrows_freed', -2),
    'eh-convert, /bin/funcs-100000: its table fell back at once (%d fallbacks, %d cycles '
    'of conversion); %d walks ended at the outermost frame'
    % (st.get('ehrows_fallback', -1), st.get('ehrows_cycles', 0), st.get('unwind_stop_end', 0)))

# make run takes both names (and checks them before building anything).
for mode in ('eh-convert', 'eh-rowcache'):
    r = subprocess.run(['make', '-n', 'run', 'MODE=' + mode], capture_output=True, text=True)
    tap(r.returncode == 0 and 'profile.mode=' + mode in r.stdout,
        'make run MODE=%s: accepted, passed to the kernel' % mode)
done()
