"""make bench-check: are a committed results file's numbers what this tree
boots? bench.py --check RESULTS runs some parts (or, with --sample N, N of
the file's boots chosen by --seed) and hands the numbers here.

Every number the guest decides is compared: the parts' rows (guest
instructions and modelled cycles, samples, bytes) and each boot's own
numbers (its stream's SHA-256 and counts, job.guest_numbers). Wall-clock
fields (results' "wall") are the host's and are left out. When the kernel
and the initrd are those the file names, every number must be equal.
When they are not, the file describes another build: we say so, and by
how much the numbers moved. The exit status is 0 only when every number
compared is equal.
"""
import json
import os
import random
import sys

import guest
import job

# Per-boot fields that say what was booted, not what the guest did.
SPEC_KEYS = ("cmdline", "cpus", "plugin")
SHOWN = 20  # differences listed; the rest counted


class Damaged(Exception):
    pass


def load(path):
    """A results file, or SystemExit saying why it cannot be one."""
    try:
        with open(path) as f:
            r = json.load(f)
        if not isinstance(r, dict) or not isinstance(r.get("sha256"), dict) or "config" not in r:
            raise Damaged("no configuration or no kernel and initrd SHA-256")
    except (OSError, ValueError, Damaged) as e:
        sys.exit(f"bench-check: {path}: not a results file ({e})")
    return r


def leaves(obj, path=""):
    """{path: value} of every number, string and null in obj."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            out.update(leaves(v, f"{path}.{k}" if path else str(k)))
        return out
    if isinstance(obj, list):
        out = {}
        for i, v in enumerate(obj):
            out.update(leaves(v, f"{path}[{i}]"))
        return out
    return {path: obj}


def moved(a, b):
    """b against a in %, or None when that is no number."""
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) \
            or not isinstance(b, (int, float)) or a == 0:
        return None
    return (b - a) / abs(a) * 100


def compare(committed, got):
    """[(path, committed value, this tree's)] where they differ ('absent'
    where one side has no such value)."""
    a, b = leaves(committed), leaves(got)
    return [(p, a.get(p, "absent"), b.get(p, "absent"))
            for p in sorted(set(a) | set(b)) if a.get(p, "absent") != b.get(p, "absent")]


def report(committed_sha, sha, n, diffs):
    """Say what the comparison found; the exit status."""
    same_build = committed_sha == sha
    if not same_build:
        print("bench-check: the committed results describe another build: "
              + ", ".join(f"{k} {committed_sha.get(k, '?')[:12]} there, {sha[k][:12]} here"
                          for k in sorted(sha) if committed_sha.get(k) != sha[k]))
        # Another build's streams and plugin output carry its own build ids
        # and paths: their SHA-256 differ whatever the guest did, so only
        # the numbers count (a checkout elsewhere builds another kernel).
        hashes = [d for d in diffs if d[0].endswith("_sha256")]
        if hashes:
            print(f"bench-check: {len(hashes)} SHA-256 of streams and plugin output differ,"
                  " as another build's do; the numbers are compared")
            diffs = [d for d in diffs if d not in hashes]
            n -= len(hashes)
    if not diffs:
        print(f"bench-check: all {n} numbers equal" + ("" if same_build else
              " (the numbers compared do not depend on what changed)"))
        return 0
    print(f"bench-check: {len(diffs)} of {n} numbers differ"
          + (" although the kernel and the initrd are the committed ones" if same_build else ""))
    pct = [(abs(m), p, m) for p, x, y in diffs for m in [moved(x, y)] if m is not None]
    if pct:
        _, p, m = max(pct)
        mean = sum(a for a, _, _ in pct) / len(pct)
        print(f"bench-check: moved by {mean:.3f} % on average (of {len(pct)} numbers), "
              f"at most {m:+.3f} % ({p})")
    for p, x, y in diffs[:SHOWN]:
        m = moved(x, y)
        print(f"  {p}: {x} committed, {y} here" + (f" ({m:+.3f} %)" if m is not None else ""))
    if len(diffs) > SHOWN:
        print(f"  ... and {len(diffs) - SHOWN} more")
    return 1


def result_key(part):
    """The key of a part's results: its name with "_" for "-" (the
    page's paths are words: sframe-v3's results are sframe_v3)."""
    return part.replace("-", "_")


def part_of(results, part):
    return results.get("curves", {}).get(part) if part in CURVES else results.get(result_key(part))


CURVES = ("depth", "funcs", "kentry", "rate", "cpus")


def parts(committed, results, names, booted):
    """Compare the parts run (results: this run's, rounded as written)
    and the boots they made (booted: their names) with the committed
    file's."""
    got, want = {}, {}
    for p in names:
        if p == "host":
            continue  # host-side unwinders timed on the host: no guest numbers
        if part_of(committed, p) is None:
            print(f"bench-check: the committed results have no part {p}")
            return 1
        got[p], want[p] = part_of(results, p), part_of(committed, p)
    if "kentry" in names:
        got["calibration"] = results.get("calibration")
        want["calibration"] = committed.get("calibration")
    # The boots this run made, beside those of the same name committed.
    boots = [n for n in booted if n in committed.get("boots", {})]
    got["boots"] = {n: results["boots"][n] for n in boots}
    want["boots"] = {n: committed["boots"][n] for n in boots}
    print(f"bench-check: {', '.join(names)}: {len(boots)} boots against {len(want['boots'])} "
          "of the committed file's")
    return report(committed["sha256"], results["sha256"], len(leaves(want)), compare(want, got))


def sample(b, committed, n, seed):
    """Boot n of the committed boots (random.Random(seed), over their
    names sorted) on b's workers and compare each one's guest numbers."""
    names = sorted(committed.get("boots", {}))
    if not names:
        print("bench-check: the committed results list no boots")
        return 1
    chosen = random.Random(seed).sample(names, min(n, len(names)))
    specs = [job.spec(name, **{k: committed["boots"][name][k] for k in SPEC_KEYS})
             for name in chosen]
    b.plan = {s["name"]: s for s in specs}
    b.note(f"bench-check: {len(specs)} of {len(names)} boots (seed {seed}): {', '.join(chosen)}")
    try:
        b.run_plan(specs)
    except guest.GuestError as e:
        b.note(f"bench-check: {e}")
        return 1
    want = {name: {k: v for k, v in committed["boots"][name].items() if k not in SPEC_KEYS}
            for name in chosen}
    got = {name: job.guest_numbers(os.path.join(b.runs, name)) for name in chosen}
    return report(committed["sha256"], b.booted, len(leaves(want)), compare(want, got))
