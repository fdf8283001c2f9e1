#!/usr/bin/env python3
# The NMI sampler end to end: boots `ktest=sample_busy profile.busy=MS
# profile.hz=HZ` at 1000 and 20000 Hz (kern/profile/sample_test.c spins with
# interrupts disabled in sample_busy_leaf <- sample_busy_mid <-
# sample_busy_top <- ktest_fn_sample_busy_loop) and reads the record stream
# that tools/qemu-run --records wrote, through build/bin/stitch
# --records-json (test/deferred/records.py):
#   - REC_STREAM first (magic, version, hz, mode), REC_END last, its record
#     count right, nothing after it; the kernel's REC_MMAP carries the ELF's
#     build ID and text address;
#   - one software-event sample (SYSCALL, as the tracer makes them) whose
#     chain starts at the return address into its caller, unwound from the
#     current frame without fake registers (LKML, "perf/x86: make perf
#     callchain work without CONFIG_FRAME_POINTER", Apr 2019);
#   - every other sample is a kernel CPU_CLOCK sample with period 1e9/hz whose
#     callchain, symbolized with nm, is exactly the busy-loop chain down to
#     kmain and _start; a few (at most 1% + 5) land around the loop, in
#     the test's start and stop code (the first run of new code is slow
#     under TCG): they must still unwind through the test to kmain;
#   - the rate: the most common gap between samples (5% bins) is 1/hz
#     within 10% (the LAPIC timer is calibrated against the PIT to ~1%),
#     and the count is hz x duration within 5%. The boots use the direct
#     path under -icount, where guest time is instructions retired: with
#     wall-clock timers a busy host delivers NMIs late, in bursts, and
#     merges the ones that pile up (20-100% of the programmed count were
#     measured under load), which made any tight bound a matter of luck;
#   - REC_STATS: samples equals the REC_SAMPLE count, samples +
#     samples_lost + nmi_ignored equals nmi_count, records_lost equals the
#     REC_LOST total, kernel_frames equals the callchain entries,
#     records_drained equals the records before REC_STATS.
# With STITCH_CPUS=N (tools/qemu-run) the test runs on CPU 0 and the other
# CPUs idle: REC_STREAM says N CPUs, the busy-loop checks (chains, gap,
# count, the full ring) hold for CPU 0's samples, and every sample of another
# CPU is its idle loop (... sched_idle_loop, sched_idle_cpu, ap_main, ap_entry), but with
# the HPET (one for the machine, its NMI routed to CPU 0) they have none.
# A third run at 20000 Hz with a 16 KiB ring: the ring fills during the
# loop, the samples that do not fit are dropped, counted (samples_lost,
# records_lost) and reported in REC_LOST; the stream stays well formed.
# That ring keeps only the first samples, taken while the test's start-up
# code runs slowly for the first time, so there the share of samples at the
# loop's edge is not bounded; every chain must still reach kmain.
# Over COM2 (no ivshmem device) OVMF's boot messages come first: the stream
# starts at its REC_STREAM record, after that text.
import collections
import os
import re
import subprocess
import sys
import tempfile

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
sys.path.insert(0, 'test/deferred')
from records import diag, done, parse, tap  # noqa: E402
ELF = 'build/kernel/kernel.elf'

REC_STREAM, REC_MMAP, REC_SAMPLE, REC_LOST, REC_STATS, REC_END = 1, 3, 4, 7, 8, 9
PERF_CONTEXT_KERNEL = (1 << 64) - 128
MMAP_KERNEL = 1
MODE_SFRAME = 1
CPUS = int(os.environ.get('STITCH_CPUS', '1'))  # tools/qemu-run --cpus



class Symbols:
    """Function symbols of the kernel ELF: address -> name."""

    def __init__(self, elf):
        out = subprocess.run(['nm', '-nS', elf], capture_output=True,
                             text=True, check=True).stdout
        self.syms = []  # (start, end or None, name), sorted
        for line in out.splitlines():
            f = line.split()
            if len(f) == 4 and f[2] in 'tT':
                start = int(f[0], 16)
                self.syms.append((start, start + int(f[1], 16), f[3]))
            elif len(f) == 3 and f[1] in 'tT':
                start = int(f[0], 16)
                # Two names at one address: keep the one that is no
                # linker-script marker (_start, not __text_start).
                if self.syms and self.syms[-1][0] == start and f[2].startswith('__'):
                    continue
                if self.syms and self.syms[-1][0] == start:
                    self.syms.pop()
                self.syms.append((start, None, f[2]))
        self.addr = {name: start for start, _, name in self.syms}

    def name(self, addr):
        lo, hi = 0, len(self.syms)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.syms[mid][0] <= addr:
                lo = mid + 1
            else:
                hi = mid
        if lo == 0:
            return None
        start, end, name = self.syms[lo - 1]
        if end is not None and addr >= end:
            return None
        return name


def build_id(elf):
    out = subprocess.run(['readelf', '-n', elf], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        if 'Build ID:' in line:
            return bytes.fromhex(line.split()[-1])
    return None


def records(data):
    """The bytes before the stream (firmware text) or None if there is no
    stream, the records as build/bin/stitch reads them, and its counters."""
    counters = {}
    recs = parse(data, counters)
    return (counters['junk_bytes'] if recs else None), recs, counters


def chain_names(sym, ips):
    """Symbolize a kernel chain: ips[0] is the interrupted pc, the others
    return addresses (looked up at addr - 1, inside the call)."""
    return [sym.name(a if i == 0 else a - 1) for i, a in enumerate(ips)]


BUSY = ['sample_busy_leaf', 'sample_busy_mid', 'sample_busy_top',
        'ktest_fn_sample_busy_loop']


def check_run(hz, ms, sym, bid, ring_kib=None, source=None):
    cmdline = 'ktest=sample_busy profile.busy=%d profile.hz=%d' % (ms, hz)
    if ring_kib:
        cmdline += ' profile.ring=%d' % ring_kib
    if source:
        cmdline += ' profile.source=%s' % source
    with tempfile.TemporaryDirectory() as tmp:
        rec = os.path.join(tmp, 'records.bin')
        # --direct --icount: guest time is instructions, so the NMI rate
        # and the samples do not depend on how busy the host is.
        p = subprocess.run(['tools/qemu-run', '--direct', '--icount', '--timeout', '180',
                            '--records', rec, '--cmdline', cmdline],
                           capture_output=True, text=True, errors='replace')
        log = p.stdout.replace('\r', '') + p.stderr
        data = open(rec, 'rb').read() if os.path.exists(rec) else b''
    tag = '%d Hz%s%s:' % (hz, ', %d KiB ring' % ring_kib if ring_kib else '',
                          ', %s' % source if source else '')
    ok = tap(p.returncode == 0 and '\nok 1 sample_busy_loop' in log,
             tag + ' the kernel test ran and passed (qemu-run exit %d)' % p.returncode)
    if not ok:
        diag(log[-3000:])
    # Which clock raised the NMIs: the default under QEMU is the LAPIC
    # timer; profile.source=ioapic is the HPET through the IOAPIC.
    want = {None: 'NMIs from the LAPIC timer (', 'ioapic': 'NMIs from the HPET timer '}
    tap(want[source] in log, tag + ' the boot line names the source: %s'
        % (re.findall(r'NMIs from the [^\n]*', log) or ['none'])[0])
    skipped, recs, framing = records(data)
    if not tap(skipped is not None and len(recs) > 2,
               tag + ' the record file holds a stream (%d bytes of firmware text before it)'
               % (skipped or 0)):
        return
    types = [r['type'] for r in recs]

    # Stream header and end (stitch checked the magic: no bad_magic).
    head = recs[0]
    tsc_hz = head['tsc_hz']
    tap(types[0] == REC_STREAM and not framing['bad_magic'] and head['version'] == 1
        and head['ncpus'] == CPUS and head['mode'] == MODE_SFRAME and head['hz'] == hz
        and head['max_frames'] == 128 and tsc_hz > 0,
        tag + ' REC_STREAM first: magic, version 1, %d cpu, mode sframe, %d Hz' % (CPUS, hz))
    end_count = recs[-1]['records'] if types[-1] == REC_END else -1
    tap(types[-1] == REC_END and types.count(REC_END) == 1 and not framing['after_end']
        and not framing['truncated'] and not framing['bad_size'] and end_count == len(recs) - 1,
        tag + ' REC_END last, counting the %d records before it' % (len(recs) - 1))

    # The kernel mapping.
    kmap = None
    for m in recs:
        if m['type'] == REC_MMAP and m['flags'] & MMAP_KERNEL:
            kmap = (m['start'], m['len'], bytes.fromhex(m['build_id']), m['path'])
    tap(kmap is not None and kmap[0] == sym.addr['_start'] and kmap[2] == bid,
        tag + ' REC_MMAP of the kernel: text at _start, the ELF\'s build ID')

    # The software event: one SYSCALL sample, its chain starting in its
    # caller (the return address into sample_busy_software), no fake regs.
    allsamples = [r for r in recs if r['type'] == REC_SAMPLE]
    sw = [s for s in allsamples if s['event'] == 1]
    samples = [s for s in allsamples if s['event'] != 1 and s['cpu'] == 0]
    idle = [s for s in allsamples if s['event'] != 1 and s['cpu'] != 0]
    idle_bad = [n for n in (chain_names(sym, s['ips'][1:]) for s in idle)
                if n[-2:] != ['ap_main', 'ap_entry']]
    if CPUS > 1 and source == 'ioapic':
        # One HPET, its NMI routed to the boot CPU: nobody else samples.
        tap(not idle, tag + ' the %d other CPUs: no samples (%d)' % (CPUS - 1, len(idle)))
    elif CPUS > 1:
        tap(idle and not idle_bad and {s['cpu'] for s in idle} == set(range(1, CPUS)),
            tag + ' the %d other CPUs: %d samples, all in their idle loop'
            % (CPUS - 1, len(idle)))
        for n in idle_bad[:3]:
            diag('not idle: %s' % ' <- '.join(map(str, n)))
    swn = [sym.name(a - 1) for a in sw[0]['ips'][1:]] if len(sw) == 1 else []
    tap(len(sw) == 1 and sw[0]['aux'] == 0x5a17 and sw[0]['period'] == 1
        and sw[0]['ips'][0] == PERF_CONTEXT_KERNEL and sw[0]['ip'] == sw[0]['ips'][1]
        and swn[:2] == ['sample_busy_software', 'ktest_fn_sample_busy_loop']
        and swn[-2:] == ['kmain', '_start'],
        tag + ' one software-event sample, chain from its caller: %s' % ' <- '.join(map(str, swn)))

    # Samples and their callchains.
    period = 1000000000 // hz
    tap(samples and all(s['event'] == 0 and s['flags'] == 0 and s['period'] == period
                        and len(s['ips']) >= 2 and s['ips'][0] == PERF_CONTEXT_KERNEL
                        and s['ips'][1] == s['ip'] for s in samples),
        tag + ' %d samples: kernel CPU_CLOCK, period %d ns, ips = KERNEL, ip, ...'
        % (len(samples), period))
    busy, edge, bad = 0, 0, []
    for s in samples:
        names = chain_names(sym, s['ips'][1:])
        tail_ok = len(names) >= 2 and names[-2:] == ['kmain', '_start'] and None not in names
        if names[:4] == BUSY and tail_ok:
            busy += 1
        elif tail_ok and 'ktest_fn_sample_busy_loop' in names:
            edge += 1
            diag('at the loop\'s edge: %s' % ' <- '.join(names))
        else:
            bad.append(names)
    edge_ok = ring_kib or edge <= 5 + len(samples) // 100
    tap(not bad and busy > 0 and edge_ok,
        tag + ' every callchain is %s ... kmain, _start (%d), or the test\'s own'
        ' code around the loop (%d)' % (' <- '.join(BUSY), busy, edge))
    for names in bad[:5]:
        diag('unexpected chain: %s' % names)
    times = sorted(s['time'] for s in samples)
    gaps = [(b - a) / tsc_hz * 1e9 / period for a, b in zip(times, times[1:])]
    bins = collections.Counter(round(g * 20) for g in gaps if g >= 0.5)
    mode = bins.most_common(1)[0][0] / 20 if bins else 0
    expected = hz * ms / 1000
    tap(0.9 <= mode <= 1.1,
        tag + ' the most common gap between samples is %.2f periods of %d ns' % (mode, period))
    if not ring_kib:
        tap(0.95 * expected <= len(samples) <= 1.05 * expected,
            tag + ' %d samples for %d expected (%d Hz x %d ms): %.0f%%'
            % (len(samples), expected, hz, ms, 100.0 * len(samples) / expected))

    # Counters.
    st = [r for r in recs if r['type'] == REC_STATS]
    if not tap(len(st) == 1 and types[-2] == REC_STATS, tag + ' REC_STATS just before REC_END'):
        return
    stats = st[0]['stats']
    lost = sum(r['count'] for r in recs if r['type'] == REC_LOST)
    frames = sum(len(s['ips']) - 1 for s in samples + idle)
    diag('stats: ' + ' '.join('%s=%d' % kv for kv in stats.items()))
    tap(stats.get('samples') == len(samples) + len(idle),
        tag + ' stats: samples = REC_SAMPLE records')
    tap(stats.get('samples', 0) + stats.get('samples_lost', 0) + stats.get('nmi_ignored', 0)
        == stats.get('nmi_count', -1), tag + ' stats: samples + samples_lost + nmi_ignored = nmi_count')
    tap(stats.get('records_lost') == lost, tag + ' stats: records_lost = REC_LOST total (%d)' % lost)
    if ring_kib:
        # Nothing drains during the loop: the ring keeps the first samples
        # that fit, every later one is dropped and counted, none silently.
        kept = sum(56 + 8 * len(s['ips']) for s in samples)  # CPU 0's ring
        tap(stats.get('samples_lost', 0) > 0 and lost == stats['samples_lost']
            and ring_kib * 1024 - 200 < kept <= ring_kib * 1024,
            tag + ' a full ring drops samples and counts them: %d kept, %d lost, REC_LOST says %d'
            % (len(samples), stats.get('samples_lost', 0), lost))
    frames += sum(len(s['ips']) - 1 for s in sw)
    tap(stats.get('kernel_frames') == frames, tag + ' stats: kernel_frames = callchain entries')
    tap(stats.get('records_drained') == len(recs) - 2,
        tag + ' stats: records_drained = records before REC_STATS')
    tap(0 < stats.get('nmi_cycles_max', 0) <= stats.get('nmi_cycles_total', 0),
        tag + ' stats: NMI handler cycles, max %d, mean %d'
        % (stats.get('nmi_cycles_max', 0),
           stats.get('nmi_cycles_total', 0) // max(1, stats.get('nmi_count', 1))))
    names = ['nmi_count', 'samples', 'deferred_requests', 'unwinds_run', 'requests_coalesced',
             'frames_unwound', 'unwind_page_faults', 'sframe_registered', 'sframe_dropped',
             'records_lost', 'nmi_cycles_total', 'nmi_cycles_max', 'unwind_cycles_total',
             'unwind_cycles_max'] + ['unwind_stop_' + r for r in
                                     ('end', 'max_frames', 'fault', 'no_info', 'bad_sframe',
                                      'bad_frame', 'task_exited')]
    missing = [x for x in names if x not in stats]
    tap(not missing, tag + ' REC_STATS names every counter of docs/SAMPLING.md' +
        (' (missing %s)' % missing if missing else ''))


def main():
    sym = Symbols(ELF)
    bid = build_id(ELF)
    for hz, ms in ((1000, 1000), (20000, 500)):
        check_run(hz, ms, sym, bid)
    check_run(20000, 300, sym, bid, ring_kib=16)
    # The HPET through an IOAPIC NMI entry: what real machines without a
    # usable PMU use, held to the same checks.
    check_run(1000, 1000, sym, bid, source='ioapic')
    done()


main()
