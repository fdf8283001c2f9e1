#!/usr/bin/env python3
# A valid SFrame section that is expensive costs only its own process: one
# boot of /bin/manyrows (profile.mode=sframe, 1000 Hz, under -icount). Its
# child spins at the end of a function of a million rows (built and
# registered at run time, userland/deferred/manyrows.c), so every lookup for
# a sample there must scan all of them; the parent sleeps 20 times 10 ms
# meanwhile, then kills the child.
#   - each unwind of a sample in that loop stops with the new stop reason
#     budget (the unwind's allowance of FDE probes and FRE rows ran out),
#     counted in unwind_stop_budget; the section is valid, so it is not
#     dropped;
#   - the parent's sleeps take what they take without the spinner (within
#     2 ms: the unwinds are bounded, and the unwind loop lets the scheduler
#     in between steps); without the budget one unwind here reads a
#     million rows and each sleep waits for it;
#   - kill lands: the child's wait status is SIGKILL.
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'deferred'))
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from records import *  # noqa: E402

SLEEP_MS = 10
if not all(os.path.exists(p) for p in (KERNEL, 'build/esp.img', ROOT + '/bin/manyrows')):
    print('1..0 # SKIP kernel, ESP or userland not built')
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix='stitch-t55-')
recs, console, rc = boot('init=/bin/manyrows profile.mode=sframe profile.hz=1000',
                         tmp + '/records.bin')
st = stats(recs)
al = re.search(r'manyrows: alone sleeps=(\d+) max_ms=([\d.]+) mean_ms=([\d.]+)', console)
sl = re.search(r'manyrows: spinning sleeps=(\d+) max_ms=([\d.]+) mean_ms=([\d.]+)', console)
ki = re.search(r'manyrows: spinner pid (\d+) status (\d+)', console)
tap(rc == 0 and al and sl and ki, 'manyrows ran, slept, killed its child; the kernel shut down')
if not (al and sl and ki):
    diag(console[-3000:])
    done()
    sys.exit(0)
child, status = int(ki.group(1)), int(ki.group(2))
tap(status & 0x7f == 9, 'kill lands: the spinner\'s wait status is SIGKILL (%d)' % status)

code = re.search(r'manyrows: code at (0x[0-9a-f]+) size (\d+)', console)
lo = int(code.group(1), 16) if code else 0
hi = lo + int(code.group(2)) if code else 0
loop = [d for d in of(recs, 'DEFERRED')
        if d['pid'] == child and d['user'] and hi - 4 <= d['user'][0] < hi]
why = sorted({STOPS[d['stop']] for d in loop})
tap(len(loop) >= 20 and why == ['budget'],
    '%d unwinds of samples in the loop, all stopped with: %s' % (len(loop), ' '.join(why)))
tap(st.get('unwind_stop_budget', 0) >= len(loop) and st.get('sframe_dropped') == 0,
    'unwind_stop_budget %d counts them; the valid section is not dropped (sframe_dropped %d)'
    % (st.get('unwind_stop_budget', -1), st.get('sframe_dropped', -1)))
amx, mx, mean = float(al.group(2)), float(sl.group(2)), float(sl.group(3))
tap(int(sl.group(1)) == 20 and mx <= amx + 2,
    'the other process keeps running: its 20 sleeps of %d ms took at most %.3f ms '
    '(mean %.3f) next to the spinner, %.3f alone' % (SLEEP_MS, mx, mean, amx))
done()
