#!/usr/bin/env python3
# exec and the deferred unwinder (docs/PROCESSES.md, "exec"): one boot of
# /bin/execwork (profile.mode=sframe at 2000 Hz, trace.syscalls=exec, under
# -icount), which works in its own frames, then execs /bin/fib in the same
# process. Checked on the records:
#   - the pid's two REC_COMMs: execwork, then fib with COMM_EXEC, the new
#     program's REC_MMAP after it;
#   - the exec's own entry (the tracer's sample of SYS_exec): its deferred
#     stack is the old program's, answered before its address space went,
#     whole (stop end) and named with execwork's symbols down to _start;
#   - every NMI sample before the exec stitches to execwork's frames, every
#     one after it to fib's (each program's symbols for its own time), and
#     no sample goes without its one answer;
#   - build/bin/stitch sees two incarnations of pid 1 (the first ending
#     where the second starts), and perf reads its perf.data as a COMM
#     with the exec flag.
# All of it on 1 CPU and on 4.
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

if not all(os.path.exists(p) for p in (KERNEL, ROOT + '/bin/execwork', ROOT + '/bin/fib')):
    print('1..0 # SKIP kernel or userland not built')
    sys.exit(0)


def run(cpus):
    out = '%s/records%d.bin' % (tmp, cpus)
    recs, console, rc = boot('init=/bin/execwork init.args=100,24,6 profile.mode=sframe '
                             'profile.hz=2000 trace.syscalls=exec', out, 240,
                             ['--direct', '--icount', '--cpus', str(cpus)])
    tap(rc == 0 and 'execwork: rounds=100' in console and 'fib: n=24 rounds=6' in console,
        '%d CPU(s): ' % cpus + 'execwork ran, exec\'d /bin/fib, which ran to its end (status %d)' % rc)

    comms = [c for c in of(recs, 'COMM') if c['name'] in ('execwork', 'fib')]
    pid = comms[0]['pid'] if comms else -1
    tap([(c['pid'], c['name'], c['flags']) for c in comms] ==
        [(pid, 'execwork', 0), (pid, 'fib', 1)],
        '%d CPU(s): ' % cpus + 'REC_COMM: execwork, then fib with COMM_EXEC, one pid (%s)'
        % [(c['pid'], c['name'], c['flags']) for c in comms])
    t_exec = comms[1]['time'] if len(comms) == 2 else 0
    fib_maps = [m for m in of(recs, 'MMAP') if m['pid'] == pid and m['path'] == '/bin/fib']
    tap(len(fib_maps) == 1 and fib_maps[0]['time'] >= t_exec,
        '%d CPU(s): ' % cpus + 'the new program\'s REC_MMAP comes with the exec')

    old, new = Symbols(recs, pid, until=t_exec), Symbols(recs, pid, since=t_exec)
    deferred = deferred_index(recs)
    calls = [s for s in of(recs, 'SAMPLE')
             if s['pid'] == pid and s['event'] == EVENT_SYSCALL and s['aux'] == 31]
    d = answer_of(deferred, calls[0]) if len(calls) == 1 else None
    names = old.names(d['user']) if d else []
    tap(d is not None and STOPS[d['stop']] == 'end' and names[:1] in (['execv'], ['execve']) and
        names[-3:] == ['main', 'stitch_start', '_start'] and '?' not in names,
        '%d CPU(s): ' % cpus + 'the exec\'s entry: the old program\'s stack, whole (%s, stop %s)'
        % (' '.join(names), STOPS[d['stop']] if d else None))

    before, after, unanswered = [], [], 0
    for s in of(recs, 'SAMPLE'):
        if s['pid'] != pid or s['event'] != EVENT_CPU_CLOCK or not s['cookie']:
            continue
        a = answer_of(deferred, s)
        if a is None:
            unanswered += 1
            continue
        if s['time'] < t_exec:
            before.append(old.names(a['user']))
        else:
            after.append(new.names(a['user']))
    own = lambda prog, rows: [n for n in rows if expected(prog, n) is not None]
    tap(len(own('execwork', before)) >= 10 and
        all(expected('execwork', n) for n in own('execwork', before)) and
        not any(n and n[0].startswith('fib') for n in before),
        '%d CPU(s): ' % cpus + 'before the exec: %d samples in execwork\'s frames, each stitched whole by '
        'execwork\'s symbols' % len(own('execwork', before)))
    tap(len(own('fib', after)) >= 5 and all(expected('fib', n) for n in own('fib', after)) and
        not any('execwork_run' in n for n in after),
        '%d CPU(s): ' % cpus + 'after the exec: %d samples in fib\'s frames, each stitched whole by fib\'s '
        'symbols, none of execwork\'s' % len(own('fib', after)))
    tap(unanswered == 0, '%d CPU(s): every sample has its one deferred answer (%d without)'
        % (cpus, unanswered))

    stats_file = '%s/stats%d.json' % (tmp, cpus)
    r = subprocess.run(['build/bin/stitch', '--symfs', ROOT, '--stats', stats_file, out],
                       capture_output=True, text=True)
    procs = json.load(open(stats_file))['processes'] if r.returncode == 0 else []
    lives = [(p['comm'], p['start'], p['exit']) for p in procs if p['pid'] == pid]
    tap(len(lives) == 2 and lives[0][0] == 'execwork' and lives[1][0] == 'fib' and
        lives[0][2] == lives[1][1] == t_exec,
        '%d CPU(s): ' % cpus + 'stitch: two incarnations of pid %d, the first ending at the exec (%s)' % (pid, lives))
    r = subprocess.run(['build/bin/stitch', '--symfs', ROOT, '-o', '%s/out%d' % (tmp, cpus), out],
                       capture_output=True, text=True)
    perf = subprocess.run(['perf', 'script', '-i', '%s/out%d/perf.data' % (tmp, cpus), '--show-task-events'],
                          capture_output=True, text=True).stdout
    tap(r.returncode == 0 and 'PERF_RECORD_COMM exec: fib:%d/%d' % (pid, pid) in perf,
        '%d CPU(s): ' % cpus + 'perf script reads the exec as PERF_RECORD_COMM exec')


tmp = tempfile.mkdtemp(prefix='stitch-t44-')
for cpus in (1, 4):
    run(cpus)
done()
