"""From one run's numbers (stitch --stats) to the benchmark's metrics.

Every metric is a ratio of two things the stream carries: the kernel's
REC_STATS counters (TSC cycles in the NMI handler and in deferred unwinds,
frames unwound, samples lost), the records stitch read (bytes per type),
how stitch gave each sample its user part, and the process lives (REC_COMM
to REC_EXIT, in TSC cycles). Nothing is estimated: a metric that a run
cannot give is None, and the tables print "-".
"""

# What each mode must put in the stream for its numbers to mean anything.
DEFERRED_MODES = ("sframe", "fp-deferred", "guess", "validate", "eh-frame", "validate-eh")
VALIDATE_MODES = ("validate", "validate-eh")


def mode_status(mode, s):
    """'ok', or one plain sentence saying why this run's mode did not work."""
    got = s["stream"]["mode"]
    if got != mode:
        return f"the kernel ran mode {got}, not {mode} (mode unknown to this kernel?)"
    st, parts = s["stitch"], s["user_parts"]
    samples = st["samples"]
    if mode == "none":
        return "ok" if samples == 0 else f"mode none took {samples} samples"
    if samples == 0:
        return "no samples in the stream"
    if mode in DEFERRED_MODES and st["deferred"] == 0:
        return "no deferred user callchains in the stream (not implemented by this kernel)"
    if mode in ("stack-copy",) + VALIDATE_MODES and st["stack_copies"] == 0:
        return "no stack copies in the stream (not implemented by this kernel)"
    if mode in VALIDATE_MODES and st["validate_samples"] == 0:
        return "no sample carries both a deferred chain and a stack copy"
    if mode == "fp" and parts["inline"] <= st["samples_ip_only"]:
        return "no user callchain in the samples (not implemented by this kernel)"
    return "ok"


def ratio(a, b):
    return a / b if b else None


def workload_cycles(s, names):
    """TSC cycles of each workload: from its first REC_COMM to its last
    REC_EXIT (piper is two processes of one name). None if it never ended."""
    out = {}
    for name in names:
        lives = [p for p in s["processes"] if p["comm"] == name]
        if not lives or any(p["exit"] is None for p in lives):
            out[name] = None
        else:
            out[name] = max(p["exit"] for p in lives) - min(p["start"] for p in lives)
    return out


def total(cycles):
    vals = list(cycles.values())
    return None if not vals or None in vals else sum(vals)


def run_metrics(mode, s, names, base_cycles):
    """The metrics of one run; base_cycles: the workloads' cycles in mode none."""
    k, st, rec = s["kernel"], s["stitch"], s["records"]
    cycles = workload_cycles(s, names)
    work, base = total(cycles), total(base_cycles) if base_cycles else None
    samples = st["samples"]
    user_samples = samples - s["user_parts"]["none"]
    m = {
        "mode": mode,
        "status": mode_status(mode, s),
        "hz": s["stream"]["sample_hz"],
        "workload_cycles": work,
        "slowdown_pct": (work / base - 1) * 100 if work and base else None,
        "samples": samples,
        "nmi_cycles_per_sample": ratio(k.get("nmi_cycles_total", 0), k.get("nmi_count", 0)),
        # The NMIs that interrupted ring 3 alone: those in the kernel also
        # unwind the kernel stack (docs/BENCHMARKS.md).
        "nmi_cycles_per_user_sample": ratio(k.get("nmi_user_cycles_total", 0),
                                            k.get("nmi_user_count", 0)),
        "unwind_cycles_per_sample": ratio(k.get("unwind_cycles_total", 0), st["samples_deferred"]),
        "unwind_cycles_per_frame": ratio(k.get("unwind_cycles_total", 0), k.get("frames_unwound", 0)),
        # The costliest unwind apart: the first in a process also validates
        # the SFrame section and faults its pages in (docs/BENCHMARKS.md).
        "unwind_cycles_max": k.get("unwind_cycles_max") if k.get("unwinds_run") else None,
        "unwind_cycles_steady": ratio(k.get("unwind_cycles_total", 0) - k.get("unwind_cycles_max", 0),
                                      k.get("unwinds_run", 0) - 1) if k.get("unwinds_run", 0) > 1 else None,
        "bytes_per_sample": ratio(rec["sample"]["bytes"] + rec["deferred"]["bytes"], samples),
        "user_frames_per_sample": ratio(s["user_frames"], user_samples),
        "samples_per_unwind": ratio(st["samples_stitched"], s["deferred_used"]),
        "samples_lost": k.get("samples_lost"),
        "records_lost": k.get("records_lost"),
        "truncated": truncated(mode, s),
        "truncated_pct": ratio(100 * (truncated(mode, s) or 0), user_samples)
        if truncated(mode, s) is not None else None,
        "accuracy_pct": ratio(100 * st["validate_agree"], st["validate_samples"]),
    }
    m["workload_slowdown_pct"] = {
        name: (c / base_cycles[name] - 1) * 100 if c and base_cycles and base_cycles.get(name) else None
        for name, c in cycles.items()}
    if m["status"] != "ok":
        # A mode that does not do its job has no cost worth a number.
        keep = ("mode", "status", "hz", "samples")
        m = {key: (v if key in keep else None) for key, v in m.items()}
    m["workloads"] = cycles
    return m


def truncated(mode, s):
    """Samples whose user stack is known to be cut short: the deferred
    record stopped before the outermost frame, or libdw could not unwind
    the copy past its first frame. None where the mode cannot tell (fp:
    the walk in the NMI records no stop reason)."""
    if mode in DEFERRED_MODES:
        return s["samples_truncated"]
    if mode == "stack-copy":
        return s["stitch"]["stack_unwind_failed"]
    return None


def index_metrics(k):
    """A run's lookups and FDE index (kern/unwind/table.h), from the
    kernel counters k: instructions a frame, all and with the index's
    build (its chunks, page faults included) left out; the build; the
    blocks the lookups filled (their cost is the lookups'); the index's
    kernel memory, in all and a FDE; the lookups through it."""
    frames, total = k.get("frames_unwound", 0), k.get("unwind_cycles_total", 0)
    build = k.get("unwind_index_cycles", 0)
    lookups = k.get("fde_index_lookups", 0) + k.get("ehframe_index_lookups", 0)
    finds = k.get("rule_cache_misses", 0) if k.get("rule_cache_hits") else frames
    return {
        "frames": frames,
        "per_frame": ratio(total, frames),
        "per_frame_no_build": ratio(total - build, frames),
        "build_cycles": build,
        "build_chunks": k.get("unwind_index_chunks", 0),
        "index_fills": k.get("unwind_index_fills", 0),
        "index_bytes": k.get("unwind_index_bytes", 0),
        "index_fdes": k.get("unwind_index_entries", 0),
        "bytes_per_fde": ratio(k.get("unwind_index_bytes", 0), k.get("unwind_index_entries", 0)),
        "over_budget": k.get("unwind_index_over_budget", 0),
        "indexed_lookups": lookups,
        "indexed_pct": ratio(100 * lookups, finds) if finds else None,
    }


def cache_metrics(r, k):
    """The cache part's row: the run's metrics r and kernel counters k.
    "steady" leaves the costliest unwind out (the program's first: its
    page faults) and divides by the mean frames of an unwind."""
    frames = ratio(k.get("frames_unwound", 0), k.get("unwinds_run", 0))
    steady = r["unwind_cycles_steady"]
    return {
        "status": r["status"],
        "slowdown_pct": r["slowdown_pct"],
        "samples": r["samples"],
        "nmi_cycles_per_sample": r["nmi_cycles_per_sample"],
        "nmi_cycles_per_user_sample": r["nmi_cycles_per_user_sample"],
        "unwind_cycles_per_sample": r["unwind_cycles_per_sample"],
        "frames_per_unwind": frames,
        "unwind_cycles_per_frame": r["unwind_cycles_per_frame"],
        "unwind_cycles_per_frame_steady": ratio(steady, frames) if steady is not None else None,
        "unwind_cycles_max": r["unwind_cycles_max"],
        "rule_cache_hits": k.get("rule_cache_hits"),
        "rule_cache_misses": k.get("rule_cache_misses"),
    }


# The stack map's drops (kern/lib/stats.h): samples a full table refused.
MAP_DROPPED = ("map_dropped_kstacks", "map_dropped_ustacks", "map_dropped_keys",
               "map_dropped_pending")


def stackmap_metrics(s, names, base_cycles):
    """One boot of the stackmap part: its consumer's samples, the bytes
    the channel carried (every record: the process records too), the
    workloads' extra cycles (instructions under -icount) a sample, and
    what was lost: the stream's samples and records a full ring dropped,
    the map's samples a full table dropped, and the map's keys owed an
    answer at the end."""
    k = s["kernel"]
    samples = k.get("map_samples", 0) or k.get("samples", 0)
    extra = total(workload_cycles(s, names))
    base = total(base_cycles)
    return {
        "samples": samples,
        "bytes": k.get("bytes_drained"),
        "bytes_per_sample": ratio(k.get("bytes_drained", 0), samples),
        "map_bytes": k.get("map_bytes"),
        "insns_per_sample": ratio(extra - base, samples) if extra and base else None,
        "slowdown_pct": (extra / base - 1) * 100 if extra and base else None,
        "samples_lost": k.get("samples_lost", 0) + sum(k.get(d, 0) for d in MAP_DROPPED),
        "records_lost": k.get("records_lost"),
        "map_user_unanswered": k.get("map_user_unanswered"),
        "map_stacks": s["records"].get("map_stack", {}).get("count", 0),
    }
