#!/usr/bin/python3
"""One boot of make bench's plan, as bench.py's workers and the lines of
`make bench-plan`'s job file run it (docs/BENCHMARKS.md, "Running the
plan elsewhere").

A boot is a pure function of the kernel, the initrd and its spec: its
name, its kernel command line, its CPUs and whether it runs under the
insnprof plugin ("windows": the kernel's windows and the whole run;
"whole": the whole run only; null: no plugin). Its files go into a
directory of its own: records.bin (the guest's stream), console.txt,
insnprof.txt (under the plugin), stats.json (stitch --stats, the host-side
count) and boot.json (the spec, the images' SHA-256 and the wall time
spent in QEMU and in stitch).

    job.py --spec JSON --sha256 KERNEL,INITRD [--insnprof SO] [--initrd FILE]

run from the top of a built tree (tools/qemu-run boots build/kernel/
kernel.elf and build/initrd.cpio) boots once, after checking that the
images are those the plan was made for, and prints one line of JSON: the
boot's boot.json and its files (gzip, then base64). bench.py --collect
unpacks such lines (unpack) and counts them with stitch itself.
"""
import argparse
import base64
import gzip
import hashlib
import json
import os
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # nothing written next to the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import breakdown  # noqa: E402
import guest  # noqa: E402

KERNEL, INITRD = "build/kernel/kernel.elf", "build/initrd.cpio"
# What a boot leaves that the guest and QEMU made (stats.json is stitch's,
# made again wherever the streams are collected).
GUEST_FILES = ("records.bin", "console.txt", "insnprof.txt")
PLUGIN_KINDS = (None, "windows", "whole")
TIMEOUT = 600


def spec(name, cmdline, cpus, plugin, initrd=None):
    """initrd: the path of another initrd than the plan's (make bench's
    sframe-v3 part: copies with rewritten .sframe), kept with its SHA-256
    (under a key that ends _sha256: bench-check of another build compares
    the numbers, not the hashes)."""
    if plugin not in PLUGIN_KINDS:
        raise ValueError(f"plugin {plugin!r}: not one of {PLUGIN_KINDS}")
    s = {"name": name, "cmdline": cmdline, "cpus": cpus, "plugin": plugin}
    if initrd:
        s.update(initrd=initrd, initrd_sha256=sha256(initrd))
    return s


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def images(kernel=KERNEL, initrd=INITRD):
    """{kernel, initrd}: the SHA-256 of what every boot runs."""
    return {"kernel": sha256(kernel), "initrd": sha256(initrd)}


def check_images(want, kernel=KERNEL, initrd=INITRD):
    got = images(kernel, initrd)
    if got != want:
        raise guest.GuestError("the kernel or the initrd is not the one the plan was made for "
                               f"(SHA-256 {got}, the plan's {want}): a make in the same tree, "
                               "or another build on this host?")


def check_own(s):
    """A spec's own initrd must be the one it was planned with."""
    if s.get("initrd") and sha256(s["initrd"]) != s["initrd_sha256"]:
        raise guest.GuestError(f"{s['initrd']} is not the initrd the plan was made for")


def boot(tools, s, d, want, insnprof=None):
    """Boot spec s into directory d (made empty first); boot.json says
    what ran and how long QEMU took. want: the images' SHA-256, checked
    before and after (a rebuild during the boot would mix two builds)."""
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    check_images(want, tools.kernel, tools.initrd or INITRD)
    plugin = None
    if s["plugin"]:
        if not insnprof:
            raise guest.GuestError(f"{s['name']}: a boot under the plugin needs --insnprof")
        plugin = breakdown.plugin_arg(insnprof, tools.kernel, os.path.join(d, "insnprof.txt"),
                                      windows=s["plugin"] == "windows")
    check_own(s)
    t0 = time.monotonic()
    wall = guest.boot(tools, s["cmdline"], os.path.join(d, "records.bin"),
                      os.path.join(d, "console.txt"), TIMEOUT, plugin, s["cpus"],
                      s.get("initrd"))
    wall["qemu_s"] = round(time.monotonic() - t0, 3)
    check_images(want, tools.kernel, tools.initrd or INITRD)
    check_own(s)
    with open(os.path.join(d, "records.bin"), "rb") as f:
        records = hashlib.sha256(f.read()).hexdigest()
    write_json(os.path.join(d, "boot.json"),
               {"spec": s, "sha256": want, "records_sha256": records, "wall": wall})


def count(tools, d):
    """stitch --stats on d's stream (stats.json); its wall time into boot.json."""
    t0 = time.monotonic()
    guest.count(tools, os.path.join(d, "records.bin"), os.path.join(d, "stats.json"))
    b = read_json(os.path.join(d, "boot.json"))
    b["wall"]["stitch_s"] = round(time.monotonic() - t0, 3)
    write_json(os.path.join(d, "boot.json"), b)
    return b


def done(d, s, want):
    """boot.json of d if d holds boot s of these images, counted; else None."""
    try:
        b = read_json(os.path.join(d, "boot.json"))
    except (OSError, ValueError):
        return None
    ok = (b.get("spec") == s and b.get("sha256") == want and "stitch_s" in b.get("wall", {})
          and os.path.exists(os.path.join(d, "stats.json")))
    return b if ok else None


def guest_numbers(d):
    """What the guest of the boot in d did, in numbers that repeat exactly
    under -icount: its stream's SHA-256 (and the plugin's counts'), the
    samples, the stream's bytes, the kernel's cycles in the NMI handler
    and in deferred unwinds, the frames unwound, and the cycles from the
    first program's start to the last one's exit."""
    s, b = read_json(os.path.join(d, "stats.json")), read_json(os.path.join(d, "boot.json"))
    k, procs = s["kernel"], s["processes"]
    out = {"records_sha256": b["records_sha256"], "samples": s["stitch"]["samples"],
           "stream_bytes": s["bytes_total"],
           **{key: k.get(key, 0) for key in ("nmi_cycles_total", "unwind_cycles_total",
                                             "frames_unwound")},
           "programs_cycles": (max(p["exit"] for p in procs) - min(p["start"] for p in procs)
                               if procs and None not in [p["exit"] for p in procs] else None)}
    if os.path.exists(os.path.join(d, "insnprof.txt")):
        out["insnprof_sha256"] = sha256(os.path.join(d, "insnprof.txt"))
    return out


def pack(d):
    """One line: boot.json and the guest's files of directory d."""
    files = {}
    for f in GUEST_FILES:
        p = os.path.join(d, f)
        if os.path.exists(p):
            with open(p, "rb") as fh:
                files[f] = base64.b64encode(gzip.compress(fh.read(), mtime=0)).decode()
    return json.dumps({"boot": read_json(os.path.join(d, "boot.json")), "files": files},
                      sort_keys=True)


def unpack(line, runs):
    """Write one line of pack() into runs/NAME/; its boot.json. A line
    that is not one (a job's error text, a cut stream) raises ValueError."""
    try:
        j = json.loads(line)
        b, files = j["boot"], j["files"]
        name = b["spec"]["name"]
        if "records.bin" not in files or not name or "/" in name or name.startswith("."):
            raise KeyError("records.bin")
        blobs = {f: gzip.decompress(base64.b64decode(files[f], validate=True)) for f in files
                 if f in GUEST_FILES}
    except (ValueError, KeyError, TypeError, OSError, EOFError) as e:
        raise ValueError(f"not a boot's line ({type(e).__name__}: {e})") from None
    if hashlib.sha256(blobs["records.bin"]).hexdigest() != b.get("records_sha256"):
        raise ValueError(f"{name}: its stream is not the one the boot wrote (SHA-256 differs)")
    d = os.path.join(runs, name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    for f, data in blobs.items():
        with open(os.path.join(d, f), "wb") as fh:
            fh.write(data)
    b["wall"].pop("stitch_s", None)  # counted again here
    write_json(os.path.join(d, "boot.json"), b)
    return b


def read_json(path):
    with open(path) as f:
        return json.load(f)


def write_json(path, obj):
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", required=True, help="the boot, as JSON (bench.py --plan writes it)")
    ap.add_argument("--sha256", required=True, help="KERNEL,INITRD: the images' SHA-256")
    ap.add_argument("--insnprof", help="build/bin/insnprof.so, for boots under the plugin")
    ap.add_argument("--initrd", default=INITRD, help="the plan's initrd (default build/initrd.cpio)")
    args = ap.parse_args()
    k, _, i = args.sha256.partition(",")
    tools = guest.Tools("tools/qemu-run", None, None, KERNEL, args.initrd)
    with tempfile.TemporaryDirectory(prefix="bench-job-") as d:
        try:
            boot(tools, json.loads(args.spec), d, {"kernel": k, "initrd": i}, args.insnprof)
        except guest.GuestError as e:
            print(f"job: {e}", file=sys.stderr)
            return 1
        print(pack(d))
    return 0


if __name__ == "__main__":
    sys.exit(main())
