#!/usr/bin/env python3
"""The record stream (include/stitch/records.h, docs/RECORDS.md) for the
tools and tests that look at a whole run: the one reader, over the one
decoder of the format (build/bin/stitch --records-json; test 87 checks
that decoder against docs/RECORDS.md).

As a module: parse() gives every record as a dict, read() the view of a
whole run, accounting() the properties every stream satisfies. As a
program, for callers in other languages:

  tools/recstream.py check FILE    the accounting, a line each: "ok - what"
                                   or "not ok - what"; exit 1 if one fails
  tools/recstream.py summary FILE [TYPE...]
                                   read()'s view as JSON, with stop_names
                                   (records as stitch --records-json has
                                   them: addresses as hex strings); with
                                   TYPEs (exit, comm, ...: REC's names in
                                   lower case) only the records of those
                                   types, the other fields of them all

Both exit 2 when the stream cannot be read at all.
"""
import json
import subprocess
import sys
import tempfile

REC = dict(STREAM=1, COMM=2, MMAP=3, SAMPLE=4, DEFERRED=5, EXIT=6, LOST=7,
           STATS=8, END=9, MAP_STACK=10, MAP_COUNTS=11)
CTX_KERNEL = (1 << 64) - 128
CTX_USER = (1 << 64) - 512
CTX_USER_DEFERRED = (1 << 64) - 640
STOPS = []  # the unwind stop reasons by number, as stitch names them (parse)
SAMPLER, TRACER = 0, 1
EVENT_CPU_CLOCK, EVENT_SYSCALL = 0, 1
SAMPLE_USER, SAMPLE_STACK_COPY = 1, 2
MODES = ['none', 'sframe', 'fp', 'fp-deferred', 'stack-copy', 'guess',
         'validate', 'eh-frame', 'validate-eh']
USER_TOP = 0x00007ffffffff000

# stitch's counters that say the stream itself is damaged.
DAMAGE = ('no_stream_header', 'bad_magic', 'bad_version', 'stream_headers', 'truncated',
          'bad_size', 'unknown_type', 'bad_callchain', 'bad_stack_copy', 'bad_string',
          'missing_end', 'end_count_mismatch', 'after_end')


def parse(data, counters=None):
    """The records of a stream as build/bin/stitch reads it (--records-json:
    the one decoder of the format), as dicts with the fields of
    include/stitch/records.h; REC_STREAM first. Empty if no REC_STREAM.
    counters, a dict, receives stitch's counters (junk_bytes, truncated,
    after_end...: what the stream's framing was like)."""
    with tempfile.NamedTemporaryFile(suffix='.bin') as f:
        f.write(data)
        f.flush()
        res = subprocess.run(['build/bin/stitch', '--records-json', '-', f.name],
                             capture_output=True)
    # 3: a damaged stream, read as far as it goes (its counters say how).
    if res.returncode not in (0, 3):
        raise subprocess.CalledProcessError(res.returncode, res.args, res.stdout, res.stderr)
    out = res.stdout
    d = json.loads(out)
    STOPS[:] = d['stop_names']
    if counters is not None:
        counters.update(d['stitch'])
    if not d['stream']:
        return []
    h = d['stream']
    recs = [dict(type=REC['STREAM'], version=h['version'], ncpus=h['ncpus'],
                 tsc_hz=h['tsc_hz'], mode=h['mode'], hz=h['sample_hz'],
                 max_frames=h['max_frames'])]
    return recs + [record(r) for r in d['records']]


def record(j):
    """One record of stitch's JSON: hex strings become numbers."""
    r = dict(j, type=REC[j['type'].upper()])
    for key in ('ip', 'cookie', 'start', 'len', 'pgoff'):
        if key in r:
            r[key] = int(r[key], 16)
    if 'ips' in r:
        r['ips'] = [int(v, 16) for v in r['ips']]
    if r['type'] == REC['SAMPLE']:
        r['copy'] = None
        if 'copy' in j:
            stack = bytes.fromhex(j['copy'])
            r['copy'] = {'regs': tuple(int(v, 16) for v in j['copy_regs']),
                         'size': len(stack), 'bytes': stack}
        split_chain(r)
    elif r['type'] == REC['DEFERRED']:
        r['user'] = r['ips'][1:] if r['ips'][:1] == [CTX_USER] else None
    return r


def split_chain(s):
    """kernel frames, user frames (inline), cookie (deferred) of a sample."""
    s['kernel'], s['user'], s['cookie'] = [], None, None
    part = None
    ips = s['ips']
    i = 0
    while i < len(ips):
        v = ips[i]
        if v == CTX_KERNEL:
            part = s['kernel']
        elif v == CTX_USER:
            s['user'] = []
            part = s['user']
        elif v == CTX_USER_DEFERRED:
            s['cookie'] = ips[i + 1] if i + 1 < len(ips) else 0
            i += 1
            part = None
        elif part is not None:
            part.append(v)
        i += 1


def of(recs, name):
    return [r for r in recs if r['type'] == REC[name]]


def user_samples(recs):
    """The samples of the programs (not of bsuite, which only starts them):
    all, the NMIs' (cpu-clock) and the tracer's (syscall)."""
    comm = {c['pid']: c['name'] for c in of(recs, 'COMM')}
    users = [s for s in of(recs, 'SAMPLE') if s['pid'] in comm and comm[s['pid']] != 'bsuite']
    return (users, [s for s in users if s['event'] == EVENT_CPU_CLOCK],
            [s for s in users if s['event'] == EVENT_SYSCALL])


def deferred_index(recs):
    """Every REC_DEFERRED by (tid, cookie, consumer)."""
    deferred = {}
    for d in of(recs, 'DEFERRED'):
        deferred.setdefault((d['tid'], d['cookie'], d['consumer']), []).append(d)
    return deferred


def answer_of(deferred, s):
    """Sample s's answer: the one REC_DEFERRED of its consumer for its
    (tid, cookie), or None when there is none or more than one."""
    r = deferred.get((s['tid'], s['cookie'], TRACER if s['event'] else SAMPLER), [])
    return r[0] if len(r) == 1 else None


def stats(recs):
    st = of(recs, 'STATS')
    return st[-1]['stats'] if st else {}


def read(path):
    """A whole run's stream at path: {records, stitch (stitch's counters),
    stats (the last REC_STATS), lost (the REC_LOST total), end (REC_END's
    count, or None), count (records up to REC_END), error (None, or what
    says the stream is damaged)}."""
    counters = {}
    try:
        with open(path, 'rb') as f:
            recs = parse(f.read(), counters)
    except (OSError, subprocess.CalledProcessError, ValueError) as e:
        return dict(records=[], stitch={}, stats={}, lost=0, end=None, count=0,
                    error='%s: %s' % (path, e))
    ends = [i for i, r in enumerate(recs) if r['type'] == REC['END']]
    count = ends[0] + 1 if ends else len(recs)
    bad = ['%s=%d' % (k, counters[k]) for k in DAMAGE if counters.get(k)]
    return dict(records=recs[:count], stitch=counters, stats=stats(recs[:count]),
                lost=sum(r['count'] for r in of(recs[:count], 'LOST')),
                end=recs[ends[0]]['records'] if ends else None, count=count,
                error=('damaged stream: ' + ' '.join(bad)) if bad else
                None if recs else 'no REC_STREAM')


def stitch_stats(path):
    """stitch's own matching of a stream (build/bin/stitch --stats): every
    sample given the deferred record of its (process, tid, cookie), and its
    counters ("stitch": samples_missing, deferred_duplicate,
    deferred_orphan, the damage counters...). The decoded JSON, or None."""
    res = subprocess.run(['build/bin/stitch', '--stats', '-', '--symfs', 'build/userland/root',
                          '--kernel', 'build/kernel/kernel.elf', path], capture_output=True)
    if res.returncode != 0:
        return None
    try:
        return json.loads(res.stdout)
    except ValueError:
        return None


def accounting(r, s):
    """The accounting every stream must satisfy, whatever ran (tests 58 and
    83, tools/stress): r from read(), s from stitch_stats(). A list of
    (ok, what), one per property: the stream is whole; every NMI and every
    lost record is counted; what the counters say was written and the
    stream lacks is within the counted losses; every unwind has its stop
    reason; stitch finds no anomaly; every sample's cookie is answered by
    exactly one deferred record and every deferred record by a sample, but
    for what the counted losses explain (none when nothing was lost)."""
    c = []
    c.append((not r['error'] and r['end'] is not None and r['end'] == r['count'] - 1,
              'the record stream is whole: %d records, REC_END last' % r['count']
              + (' (%s)' % r['error'] if r['error'] else '')))
    st = r['stats']

    def v(name):
        return st.get(name, 0)
    samples = len(of(r['records'], 'SAMPLE'))
    deferred = [d for d in of(r['records'], 'DEFERRED') if d['consumer'] == SAMPLER]
    nmis = st.get('nmi_count', -1)
    c.append((v('samples') + v('samples_lost') + v('nmi_ignored') == nmis,
              'every NMI counted: nmi_count %d = samples %d + samples_lost %d + nmi_ignored %d'
              % (nmis, v('samples'), v('samples_lost'), v('nmi_ignored'))))
    c.append((st.get('records_lost', -1) == r['lost'],
              'records_lost %s = the REC_LOST total (%d)' % (st.get('records_lost', '?'), r['lost'])))
    c.append((v('records_lost') >= v('samples_lost'),
              'every sample dropped (%d) is among the records lost' % v('samples_lost')))
    gone = (v('samples') - samples) + (v('deferred_records') - len(deferred))
    c.append((v('samples') >= samples and v('deferred_records') >= len(deferred)
              and gone <= v('records_lost') - v('samples_lost'),
              'written but not in the stream (%d samples and deferred records) is within '
              'the counted losses' % gone))
    by_reason, short = 0, []
    for i, stop in enumerate(STOPS):
        name = 'unwind_stop_' + stop.replace('-', '_')
        n = sum(1 for d in deferred if d['stop'] == i)
        by_reason += v(name)
        if n > st.get(name, -1):
            short.append('%s %s < %d' % (name, st.get(name), n))
    c.append((not short, 'each unwind_stop_* counter covers its unwinds in the stream'
              + (' (%s)' % ' '.join(short) if short else '')))
    c.append((by_reason == v('unwinds_run') + v('unwind_stop_task_exited'),
              'every unwind has its stop reason: %d = unwinds_run %d + task-exited %d'
              % (by_reason, v('unwinds_run'), v('unwind_stop_task_exited'))))
    c.append((v('deferred_requests') - v('requests_coalesced') == v('entries_with_samples'),
              'requests not coalesced (%d - %d) = kernel entries with samples (%d)'
              % (v('deferred_requests'), v('requests_coalesced'), v('entries_with_samples'))))
    k = s and s.get('stitch')
    c.append((bool(k), 'stitch --stats read the stream'))
    if not k:
        return c
    anomalies = ['%s=%d' % (a, k[a]) for a in DAMAGE + ('deferred_duplicate', 'cookie_zero',
                                                         'build_id_mismatch', 'missing_files')
                 if k.get(a, 0) != 0]
    c.append((not anomalies, 'stitch found no anomaly in the stream'
              + (' (%s)' % ' '.join(anomalies) if anomalies else '')))
    lost = v('records_lost')
    miss, orphan, dup = (k.get(a, -1) for a in ('samples_missing', 'deferred_orphan',
                                                 'deferred_duplicate'))
    c.append((dup == 0 and (miss <= lost and orphan <= lost if lost else miss == 0 and orphan == 0),
              'every cookie answered exactly once: %s samples asked, %d never answered, %d '
              'deferred records nobody asked for, %d answered twice (%d records lost)'
              % (k.get('samples_deferred'), miss, orphan, dup, lost)))
    return c


HEX_KEYS = ('ip', 'cookie', 'start', 'len', 'pgoff')  # an address or cookie
# A list of them: a chain's `user` is addresses, a map count's `user`
# (enum map_user, a number, not a list) is not.
CHAIN_KEYS = ('ips', 'kernel', 'user', 'regs')
TYPE_NAMES = {n: name.lower() for name, n in REC.items()}


def as_json(v, key=None):
    """read()'s view for JSON, as stitch writes its own: a record's type
    by name, addresses, cookies and registers as hex strings (JSON readers
    keep only 53 bits of a number), bytes as one hex string."""
    if isinstance(v, dict):
        return {k: TYPE_NAMES[x] if k == 'type' else as_json(x, k) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        if key in CHAIN_KEYS:
            return ['0x%x' % x for x in v]
        return [as_json(x, key) for x in v]
    if isinstance(v, bytes):
        return v.hex()
    if key in HEX_KEYS and isinstance(v, int):
        return '0x%x' % v
    return v


def main(argv):
    types = argv[3:]
    if (len(argv) < 3 or argv[1] not in ('check', 'summary') or
            (argv[1] == 'check' and types) or
            any(t != t.lower() or t.upper() not in REC for t in types)):
        sys.stderr.write('usage: tools/recstream.py check FILE | summary FILE [TYPE...] '
                         '(TYPE: %s)\n' % ' '.join(k.lower() for k in REC))
        return 2
    r = read(argv[2])
    if not r['records']:
        sys.stderr.write('tools/recstream.py: %s\n' % r['error'])
        return 2
    if argv[1] == 'summary':
        # A big stream's records as JSON take far longer to write and read
        # than the run's counts: a caller names the types it looks at.
        if types:
            keep = {REC[t.upper()] for t in types}
            r = dict(r, records=[x for x in r['records'] if x['type'] in keep])
        json.dump(as_json(dict(r, stop_names=STOPS)), sys.stdout)
        sys.stdout.write('\n')
        return 0
    checks = accounting(r, stitch_stats(argv[2]))
    for ok, what in checks:
        print('%s - %s' % ('ok' if ok else 'not ok', what))
    return 0 if all(ok for ok, _ in checks) else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
