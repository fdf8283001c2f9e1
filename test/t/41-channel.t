#!/usr/bin/env python3
# The record channel (docs/SAMPLING.md, "The drain and the channel").
#
# recextract alone, on shared-memory files made here: a good header gives
# exactly the `written` bytes of the data area; no magic exits 1 and leaves
# OUT alone; a header whose counts exceed the file exits 2.
#
# Boots of /bin/demo at 1000 Hz through tools/qemu-run --records:
#   - ivshmem (the default), OVMF and --direct: the kernel says it uses the
#     shared memory; the file is one well-formed stream from byte 0
#     (REC_STREAM, no firmware text) to its last byte (REC_END, whose count
#     is right, after REC_STATS); samples, the demo's REC_COMM, nothing
#     lost (records_lost 0, no REC_LOST); records_drained = the records
#     before REC_STATS;
#   - a 16 KiB area (--records-size 16K): the area fills, the stream is
#     still well formed and ends REC_STATS, REC_END; records_lost > 0 and
#     equals the REC_LOST total; recextract reports as many records refused
#     (no ring drops at 1000 Hz: every loss is the channel's); the stream
#     fills the data area to within one refused record;
#   - a 4 KiB area, too small for a stream: the kernel falls back to COM2
#     and qemu-run hands over what COM2 carried;
#   - --channel serial (no ivshmem device): the kernel says COM2; the file
#     is OVMF's text then a well-formed stream, nothing lost.
import os
import re
import struct
import subprocess
import sys
import tempfile

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
sys.path.insert(0, 'test/deferred')
from records import diag, done, parse, tap  # noqa: E402

REC_STREAM, REC_COMM, REC_SAMPLE, REC_LOST, REC_STATS, REC_END = 1, 2, 4, 7, 8, 9
SHM_MAGIC = 0x4d53484354495453  # arch/x86_64/channel/ivshmem.h
SHM_HEADER = 64
REC_DEFERRED_FIXED = 56  # sizeof(struct rec_deferred), include/stitch/records.h
CMDLINE = 'init=/bin/demo profile.hz=1000'



def shm_file(path, written, data, data_size=None, magic=SHM_MAGIC, dropped=0):
    """A shared-memory file as the kernel leaves it: header, data, zeros."""
    size = data_size if data_size is not None else 4096 - SHM_HEADER
    hdr = struct.pack('<QIIQQQQ16x', magic, 1, SHM_HEADER, size, written,
                      dropped, 8 * dropped)
    with open(path, 'wb') as f:
        f.write(hdr + data + bytes(4096 - SHM_HEADER - len(data)))


def check_recextract():
    with tempfile.TemporaryDirectory() as tmp:
        shm, out = os.path.join(tmp, 'shm'), os.path.join(tmp, 'out')
        data = bytes(range(256)) * 4

        def run():
            return subprocess.run(['build/bin/recextract', shm, out],
                                  capture_output=True, text=True)
        shm_file(shm, 1000, data)
        p = run()
        got = open(out, 'rb').read() if os.path.exists(out) else None
        tap(p.returncode == 0 and got == data[:1000],
            'recextract: OUT holds exactly the %d written bytes' % 1000)
        open(out, 'wb').write(b'keep')
        shm_file(shm, 1000, data, magic=0)
        p = run()
        tap(p.returncode == 1 and open(out, 'rb').read() == b'keep',
            'recextract: no magic (the kernel did not use it): exit 1, OUT untouched')
        for what, args in (('written beyond the data area', dict(written=4096)),
                           ('data area beyond the file', dict(written=8, data_size=1 << 20)),
                           ('written not whole words', dict(written=7))):
            shm_file(shm, data=data, **args)
            p = run()
            tap(p.returncode == 2, 'recextract: %s: exit 2 (%s)'
                % (what, p.stderr.strip()))


def stream_start(data):
    """Where the stream's REC_STREAM is (after firmware text), or -1."""
    framing = {}
    return framing['junk_bytes'] if parse(data, framing) else -1


def boot(tag, *args):
    with tempfile.TemporaryDirectory() as tmp:
        rec = os.path.join(tmp, 'records.bin')
        p = subprocess.run(['tools/qemu-run', '--timeout', '240', '--records', rec,
                            '--cmdline', CMDLINE] + list(args),
                           capture_output=True, text=True, errors='replace')
        log = p.stdout.replace('\r', '') + p.stderr
        data = open(rec, 'rb').read() if os.path.exists(rec) else b''
    if not tap(p.returncode == 0 and 'demo: 7 of 7 workloads ok' in log,
               '%s: the demo ran, the kernel shut down with success (exit %d)'
               % (tag, p.returncode)):
        diag(log[-2000:])
    return log, data


def check_stream(tag, data, start, lossless=True):
    """The checks every stream must pass; returns (records, stats). The
    records as build/bin/stitch reads them; its counters say how the bytes
    were framed."""
    framing = {}
    recs = parse(data, framing)
    types = [r['type'] for r in recs]
    tap(len(recs) > 3 and types[0] == REC_STREAM and framing['junk_bytes'] == start
        and not framing['bad_magic'], '%s: REC_STREAM at byte %d' % (tag, start))
    count = recs[-1]['records'] if types[-1:] == [REC_END] else -1
    end = recs[-1]['offset'] + recs[-1]['size'] if len(recs) > 1 else -1
    tap(end == len(data) and not framing.get('truncated', 1) and not framing.get('after_end', 1)
        and types[-1] == REC_END and count == len(recs) - 1
        and types[-2] == REC_STATS and types.count(REC_END) == 1,
        '%s: whole records to the last byte (%d), REC_STATS, REC_END counting %d records'
        % (tag, len(data), len(recs) - 1))
    stats = recs[-2]['stats'] if types[-2:] == [REC_STATS, REC_END] else {}
    lost = sum(r['count'] for r in recs if r['type'] == REC_LOST)
    tap(stats.get('records_lost') == lost and stats.get('records_drained') == len(recs) - 2,
        '%s: records_lost = REC_LOST total (%d), records_drained = records before REC_STATS'
        % (tag, lost))
    if lossless:
        tap(lost == 0 and stats.get('samples', 0) > 100
            and types.count(REC_SAMPLE) >= stats['samples']
            and any(r['type'] == REC_COMM and 'demo' in r['name'] for r in recs),
            '%s: nothing lost, %d samples, the demo\'s REC_COMM'
            % (tag, stats.get('samples', 0)))
    return recs, stats


def main():
    check_recextract()

    for tag, args in (('ivshmem', []), ('ivshmem, --direct', ['--direct'])):
        log, data = boot(tag, *args)
        tap(re.search(r'channel: records to ivshmem shared memory at 0x[0-9a-f]+, 262144 KiB',
                      log) is not None, tag + ': the kernel says it uses a 256 MiB shared memory')
        check_stream(tag, data, 0)

    tag = 'ivshmem, 16 KiB'
    log, data = boot(tag, '--records-size', '16K')
    recs, stats = check_stream(tag, data, 0, lossless=False)
    m = re.search(r'recextract: the shared memory was full: (\d+) records', log)
    refused = int(m.group(1)) if m else -1
    lost = stats.get('records_lost', 0)
    tap(lost > 0 and refused == lost and stats.get('samples_lost', -1) == 0,
        '%s: the full area refused %d records, records_lost %d' % (tag, refused, lost))
    # Ordinary records stop short of the reserve by less than the one
    # refused, and the end fills the reserve exactly. Which record the full
    # area refused depends on where the wall-clock samples landed; the
    # largest the kernel writes is a REC_DEFERRED of PERF_CONTEXT_USER and
    # max_frames addresses (the demo's 128-deep chain reaches it).
    largest = REC_DEFERRED_FIXED + 8 * (1 + recs[0]['max_frames'])
    tap(16384 - SHM_HEADER - largest < len(data) <= 16384 - SHM_HEADER,
        '%s: the stream fills the area (%d bytes of %d, short by less than '
        'the largest record, %d bytes)' % (tag, len(data), 16384 - SHM_HEADER, largest))

    tag = 'ivshmem, 4 KiB'
    log, data = boot(tag, '--records-size', '4K')
    start = stream_start(data)
    tap('cannot hold a stream' in log and 'channel: records to COM2' in log and start > 0,
        '%s: too small: COM2 instead, what it carried after %d bytes of firmware text'
        % (tag, start))
    check_stream(tag, data, max(start, 0))

    tag = 'COM2'
    log, data = boot(tag, '--channel', 'serial')
    start = stream_start(data)
    tap('channel: records to COM2' in log and 'ivshmem' not in log and start > 0,
        '%s: no ivshmem device: the kernel says COM2; %d bytes of firmware text first'
        % (tag, start))
    check_stream(tag, data, max(start, 0))
    done()


main()
