#!/usr/bin/env python3
# Registrations racing each other under multi-threaded TCG (tools/qemu-run
# --parallel: four vCPUs on host threads at once): /bin/regrace takes its
# own .eh_frame registration away, then four threads race to register it
# again for the program's text while two threads recurse in that text,
# sampled at 4 kHz in profile.mode=eh-frame (docs/DEFERRED.md, "Threads").
# Two boots; each must show:
#   - the program's own check: no two contenders ever held the text at
#     once (the registry's overlap check and insert are one step), the
#     workers' sums right; the boot ends with success, no fault, every
#     page back;
#   - no table damaged: ehframe_dropped 0 and no unwind stopped bad-sframe
#     (a table published before its segment was set, or set through
#     another registration, reads wrong at its first use and is dropped);
#   - the registry's counts: ehframe_registered = wins + 2 (the loader's
#     for the program and its signal page), ehframe_removed = wins + 1
#     (the program's own removal), ehframe_refused = the other attempts;
#   - no lost unwind: every sample answered exactly once, and every
#     worker sample whose unwind reached the thread's start is whole
#     through the recursion.
# Whether the race shows depends on the host's timing, not the answers:
# the checks hold on any run of a correct registry.
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

if not all(os.path.exists(p) for p in (KERNEL, ROOT + '/bin/regrace')):
    print('1..0 # SKIP kernel or userland not built')
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix='stitch-t49-')
CONTESTS, CONTENDERS, DEPTH = 400, 4, 12
PAGES = re.compile(r'free pages before init (\d+), after init (\d+)')
WHOLE = re.compile(r'^((regrace_leaf )?(regrace_down )+)?regrace_work stitch_thread_main '
                   r'stitch_thread_start$')


def run(n):
    recs, console, rc = boot('init=/bin/regrace init.args=%d,%d profile.mode=eh-frame '
                             'profile.hz=4000' % (CONTESTS, DEPTH), '%s/r%d.bin' % (tmp, n), 300,
                             ['--direct', '--parallel', '--cpus', '4'])
    m = re.search(r'regrace: contests=\d+ wins=(\d+) overlaps=(\d+) (\w+)', console)
    pages = PAGES.search(console)
    tap(rc == 0 and m and m.group(3) == 'ok' and of(recs, 'END') and
        not re.search(r'\) killed: |panic', console) and pages and
        pages.group(1) == pages.group(2),
        'boot %d: %s; success, no fault, every page back'
        % (n, m.group(0) if m else 'regrace printed no verdict'))
    if not m:
        return
    wins = int(m.group(1))
    st = stats(recs)
    tap(st.get('ehframe_dropped', -1) == 0 and st.get('unwind_stop_bad_sframe', -1) == 0,
        'boot %d: no table damaged (ehframe_dropped %d, by header %d; unwind_stop_bad_sframe %d)'
        % (n, st.get('ehframe_dropped', -1), st.get('ehframe_bad_header', -1),
           st.get('unwind_stop_bad_sframe', -1)))
    got = (st.get('ehframe_registered'), st.get('ehframe_removed'), st.get('ehframe_refused'))
    want = (wins + 2, wins + 1, CONTENDERS * CONTESTS - wins)
    tap(got == want, 'boot %d: registered, removed, refused %s (want %s for %d wins)'
        % (n, got, want, wins))
    pid = next((c['pid'] for c in of(recs, 'COMM') if c['name'] == 'regrace'), -1)
    every, missing, chains = answered_chains(recs, pid)
    whole, bad = 0, []
    for names in chains:
        if not names.endswith(' stitch_thread_start') or 'regrace_work' not in names:
            continue
        if WHOLE.match(names):
            whole += 1
        else:
            bad.append(names)
    tap(every and not missing and whole >= 10 and not bad,
        'boot %d: %d samples, %d unanswered; %d worker unwinds whole through the recursion, '
        '%d broken' % (n, every, missing, whole, len(bad)))
    for b in bad[:3]:
        diag('  ' + b)


for boot_no in (1, 2):
    run(boot_no)
done()
