#!/usr/bin/env python3
# Threads (docs/PROCESSES.md, "Threads"; docs/DEFERRED.md, "Threads"), on
# 1 CPU and on 4:
#   1. /bin/t-thread: the SDK's POSIX threads (a mutex-guarded counter of
#      four threads exact, a producer and a consumer through condition
#      variables, timed wait, join values, distinct tids, errno per thread,
#      malloc from four threads, exec from one of four threads, a page
#      unmapped under a thread reading it: its next read faults, the TLB
#      shootdown), every page back after the run;
#   2. /bin/threads sampled under -icount: four threads, each in its own
#      recursion; every sample's REC_DEFERRED answered exactly once per
#      (tid, cookie); each thread has its own REC_COMM under the process's
#      pid; a thread's samples in its recursion stitch to
#        threads_walk_<x>... run stitch_thread_main stitch_thread_start
#      with <x> the thread's own letter (the tid the program printed), the
#      first thread's to ... main stitch_start _start; on 4 CPUs the
#      threads' samples come from more than one CPU;
#      the kernel's own summary (profile.summary=on) names the threads'
#      recursions and run, with no [unknown]: a process's symbols stay
#      until its last thread exits;
#   3. /bin/dlthreads sampled under -icount: three threads in
#      /lib/libdeep.so while a fourth loads, runs in and unloads a second
#      copy 40 times (the registry's ADD, REMOVE and munmap while the
#      others' unwinds walk it): no fault, every (tid, cookie) answered
#      once, every worker's sample in the library stitched whole through
#      it, each section removed during walks freed after them
#      (unwind_removed_in_walk == unwind_deferred_frees), every page back;
#   and the host side of the 4-CPU run: stitch's report.txt counts the
#      process's samples by thread (each tid), and its perf.data names
#      every thread (a PERF_RECORD_COMM per tid: perf script shows the
#      program's name for each, not ":tid");
#   4. a thread-exit storm (t-thread 150: 600 threads starting and ending
#      at once, half detached) sampled at 4 kHz: no fault, every page back
#      (the summary's symbol tables freed with the process).
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

if not all(os.path.exists(p) for p in (KERNEL, ROOT + '/bin/threads', ROOT + '/bin/t-thread')):
    print('1..0 # SKIP kernel or userland not built')
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix='stitch-t35-')
PAGES = re.compile(r'free pages before init (\d+), after init (\d+)')


def pages_back(console):
    m = PAGES.search(console)
    return bool(m) and m.group(1) == m.group(2)


def sdk(cpus):
    recs, console, rc = boot('init=/bin/t-thread', '%s/sdk%d.bin' % (tmp, cpus), 300,
                             ['--direct', '--cpus', str(cpus)])
    oks = re.findall(r'^ok \d+ - (.*)$', console, re.M)
    bad = re.findall(r'^not ok \d+ - (.*)$', console, re.M)
    tap(len(oks) == 9 and not bad and 't-thread: 9 checks, 0 failed' in console,
        '%d CPU(s): t-thread\'s %d checks pass (%s)' % (cpus, len(oks), '; '.join(bad) or 'none failed'))
    tap(pages_back(console), '%d CPU(s): every page back after t-thread' % cpus)


def sampled(cpus):
    recs, console, rc = boot('init=/bin/threads init.args=1500 profile.mode=sframe profile.hz=1000 '
                             'profile.summary=on',
                             '%s/threads%d.bin' % (tmp, cpus), 600,
                             ['--direct', '--icount', '--cpus', str(cpus)])
    tap(rc == 0 and 'threads: ok' in console and of(recs, 'END'),
        '%d CPU(s): the threads\' sums right, the stream whole' % cpus)
    letter = {int(t): x for x, t in re.findall(r'threads: ([a-d]) tid (\d+) pid \d+', console)}
    comm = [(c['pid'], c['tid']) for c in of(recs, 'COMM') if c['name'] == 'threads']
    pid = comm[0][0] if comm else -1
    tap(len(letter) == 4 and all((pid, t) in comm for t in letter) and pid not in letter,
        '%d CPU(s): a REC_COMM for each of the four threads under pid %d' % (cpus, pid))
    deferred = deferred_index(recs)
    every = [s for s in of(recs, 'SAMPLE') if s['pid'] == pid and s['cookie'] is not None]
    keys = [(s['tid'], s['cookie'], TRACER if s['event'] else SAMPLER) for s in every]
    missing = [k for k in keys if len(deferred.get(k, [])) != 1]
    orphans = [k for k in deferred if k[0] in letter and k not in set(keys)]
    tap(every and not missing and not orphans,
        '%d CPU(s): %d samples, each (tid, cookie) answered exactly once (%d not, %d orphans)'
        % (cpus, len(every), len(missing), len(orphans)))
    syms = Symbols(recs, pid)
    per_tid, bad, cpus_seen = {}, [], set()
    for s in every:
        d = answer_of(deferred, s)
        names = syms.names(d['user']) if d and d['user'] is not None else []
        if not names or not names[0].startswith('threads_walk_'):
            continue
        x = names[0][-1]
        if s['tid'] in letter:
            want = r'^(threads_walk_%s )+run stitch_thread_main stitch_thread_start$' % letter[s['tid']]
            cpus_seen.add(s['cpu'])
        else:
            want = r'^(threads_walk_%s )+main stitch_start _start$' % x
        per_tid[s['tid']] = per_tid.get(s['tid'], 0) + 1
        if s['tid'] not in letter and s['tid'] != pid or not re.match(want, ' '.join(names)):
            bad.append((s['tid'], ' '.join(names)))
    tap(not bad and all(per_tid.get(t, 0) >= 5 for t in letter),
        '%d CPU(s): every thread\'s samples stitch to its own recursion (%s)'
        % (cpus, ', '.join('tid %d: %d' % kv for kv in sorted(per_tid.items()))))
    for b in bad[:3]:
        diag('  tid %d: %s' % b)
    summary(console, pid, cpus)
    if cpus > 1:
        host(tmp + '/threads%d.bin' % cpus, pid, letter, per_tid)
        tap(len(cpus_seen) > 1, '%d CPUs: the threads\' samples came from CPUs %s'
            % (cpus, sorted(cpus_seen)))


def summary(console, pid, cpus):
    """The kernel's own summary names the threads' functions from the
    process's symbols, which stay loaded until its last thread exits: the
    main thread's walks after the joins, and each thread's after another
    has left, are named too, not [unknown]."""
    m = re.search(r'^  pid %d threads: \d+ samples with a user stack\n'
                  r'    self: +(.*)\n    total: +(.*)$' % pid, console, re.M)
    self_ = re.findall(r'(\S+) \d+%', m.group(1)) if m else []
    total = re.findall(r'(\S+) \d+%', m.group(2)) if m else []
    walks = [f for f in self_ if re.match(r'threads_walk_[a-d]$', f)]
    tap(m and '[unknown]' not in self_ + total and len(walks) >= 3 and
        set(self_) <= set(walks + ['[kernel]']) and 'stitch_thread_start' in total,
        '%d CPU(s): the kernel\'s summary names the threads\' functions (self: %s; total: %s)'
        % (cpus, ' '.join(self_) or '-', ' '.join(total) or '-'))


def host(records, pid, letter, per_tid):
    out = tmp + '/stitch-out'
    rc = subprocess.run(['build/bin/stitch', '--symfs', ROOT, '--kernel', KERNEL, '-o', out,
                         records], capture_output=True, text=True).returncode
    report = open(out + '/report.txt').read() if rc == 0 else ''
    rows = dict(re.findall(r'^ +(\d+) +(\d+) +[\d.]+%', report.split('By thread:')[-1].split('By self:')[0],
                           re.M)) if 'By thread:' in report else {}
    tap(rc == 0 and all(int(rows.get(str(t), -1)) >= per_tid.get(t, 0) > 0 for t in letter)
        and str(pid) in rows,
        'stitch: report.txt counts the samples of each of the %d threads (%s)'
        % (len(rows), ', '.join('%s: %s' % kv for kv in sorted(rows.items()))))
    perf = subprocess.run(['perf', 'script', '-i', out + '/perf.data', '-F', 'comm,tid'],
                          capture_output=True, text=True)
    named = set(re.findall(r'^\s*threads\s+(\d+)\s*$', perf.stdout, re.M))
    tap(perf.returncode == 0 and all(str(t) in named for t in letter),
        'perf.data: perf script names each thread of pid %d "threads" (tids %s)'
        % (pid, ' '.join(sorted(named))))


def dl_churn(cpus):
    recs, console, rc = boot('init=/bin/dlthreads init.args=600,40 profile.mode=sframe '
                             'profile.hz=2000', '%s/dl%d.bin' % (tmp, cpus), 600,
                             ['--direct', '--icount', '--cpus', str(cpus)])
    tap(rc == 0 and 'dlthreads: reopens=40 ok' in console and of(recs, 'END') and
        not re.search(r'\) killed: |panic', console) and pages_back(console),
        '%d CPU(s): dlthreads: 40 reopens beside three threads in the library, no fault, '
        'every page back' % cpus)
    pid = next((c['pid'] for c in of(recs, 'COMM') if c['name'] == 'dlthreads'), -1)
    every, missing, chains = answered_chains(recs, pid)
    worker, bad = 0, []
    for names in chains:
        if not names.endswith('dlthreads_worker stitch_thread_main stitch_thread_start'):
            continue
        worker += 1
        # A sample lands in deep_run's own loop too, between its calls.
        if not re.match(r'^((deep_leaf |deep_twist )*deep_mid )?deep_run dlthreads_worker ', names):
            bad.append(names)
    tap(every and not missing and worker >= 20 and not bad,
        '%d CPU(s): %d samples answered once each; the workers\' %d whole through the library'
        % (cpus, every, worker))
    for b in bad[:3]:
        diag('  ' + b)
    st = stats(recs)
    tap(st.get('sframe_removed', 0) >= 40 and
        st.get('unwind_removed_in_walk', -1) == st.get('unwind_deferred_frees', -2),
        '%d CPU(s): %d sections removed, %d during walks, %d freed after them'
        % (cpus, st.get('sframe_removed', 0), st.get('unwind_removed_in_walk', -1),
           st.get('unwind_deferred_frees', -1)))


def storm(cpus):
    recs, console, rc = boot('init=/bin/t-thread init.args=150 profile.mode=sframe profile.hz=4000 '
                             'profile.summary=on',
                             '%s/storm%d.bin' % (tmp, cpus), 300, ['--direct', '--cpus', str(cpus)])
    tap('ok 1 - storm' in console and not re.search(r'\) killed: |panic', console)
        and rc == 0 and pages_back(console),
        '%d CPU(s): a sampled thread-exit storm: every thread joined, no fault, every page back'
        % cpus)


for n in (1, 4):
    sdk(n)
    sampled(n)
    dl_churn(n)
    storm(n)
done()
