#!/usr/bin/python3
"""What the insnprof plugin costs in wall time on the host: one boot of the
benchmark, as the memory part of `bench.py --config tiny` boots it
(/bin/chain 64 1000 at 1000 Hz, mode sframe, under -icount), three ways:
without the plugin, under the plugin with mem=off (instructions per
function only) and under the plugin with its cost model (mem=on, the
default), each --reps times, in turns. Prints the wall time of every boot
and the median of each way, and its ratio to the boot without the plugin.

    python3 tools/bench/plugin-overhead.py [--reps 5]

Run from the top of the tree after `make` (it takes the paths mk/bench.mk
passes bench.py). Wall time depends on the host and its load: a
measurement for docs/BENCHMARKS.md, not a test. The guest's instruction
counts do not: the script also says whether the boots' streams are
byte-identical (the plugin must not change what the guest does).
"""
import argparse
import hashlib
import os
import statistics
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import breakdown  # noqa: E402
import guest  # noqa: E402

PROG = ["/bin/chain", "64", "1000"]
MODE, HZ, FRAMES = "sframe", 1000, 512


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--qemu-run", default="tools/qemu-run")
    ap.add_argument("--kernel", default="build/kernel/kernel.elf")
    ap.add_argument("--insnprof", default="build/bin/insnprof.so")
    args = ap.parse_args()
    tools = guest.Tools(args.qemu_run, None, None, args.kernel)
    line = guest.cmdline([PROG], MODE, HZ, FRAMES)
    tmp = tempfile.mkdtemp(prefix="plugin-overhead-")

    def plugin(mem):
        if mem is None:
            return None
        out = os.path.join(tmp, f"mem-{mem}.insnprof.txt")
        return breakdown.plugin_arg(args.insnprof, args.kernel, out) + f",mem={mem}"

    ways = [("no plugin", None), ("plugin mem=off", "off"), ("plugin mem=on", "on")]
    times = {w: [] for w, _ in ways}
    streams = set()
    print(f"boot: {line}")
    for r in range(args.reps):
        for name, mem in ways:
            rec = os.path.join(tmp, "records.bin")
            t0 = time.monotonic()
            guest.boot(tools, line, rec, os.path.join(tmp, "console.txt"), 600, plugin(mem))
            t = time.monotonic() - t0
            times[name].append(t)
            with open(rec, "rb") as f:
                streams.add(hashlib.sha256(f.read()).hexdigest())
            print(f"rep {r + 1}: {name}: {t:.2f} s", flush=True)
    base = statistics.median(times["no plugin"])
    print(f"\nmedian of {args.reps} (min..max), wall seconds a boot:")
    for name, _ in ways:
        m = statistics.median(times[name])
        print(f"  {name:15} {m:6.2f} s ({min(times[name]):.2f}..{max(times[name]):.2f})  "
              f"x{m / base:.2f}")
    print("streams: " + ("byte-identical in every boot" if len(streams) == 1
                         else f"{len(streams)} different"))
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
