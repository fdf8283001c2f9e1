"""Writing what the benchmark measured: the mode table (printed, CSV),
each curve's CSV and PNG plot (gnuplot), results.json with it all, and
docs/BENCHMARKS.md from one results.json (page, below).

Numbers are written with fixed precision so that two runs of the same
configuration give byte-identical files (test/t/72-bench-determinism.t).

    output.py --results R --template T --page P --plots D [--check] [--no-draw]

writes the page P from the template T, every table and every number of its
prose from R, and each curve's plot data, gnuplot script and PNG into D;
--check writes nothing and exits 1 if P or D's plot data and scripts are
not what R gives (test/t/70-bench-page.t).
"""
import argparse
import csv
import difflib
import io
import json
import os
import re
import subprocess
import sys

# The mode table: (key in the metrics, column title, format).
COLUMNS = [
    ("mode", "mode", "{}"),
    ("slowdown_pct", "slowdown %", "{:.2f}"),
    ("nmi_cycles_per_sample", "NMI cyc/sample", "{:.0f}"),
    ("nmi_cycles_per_user_sample", "NMI cyc/user sample", "{:.0f}"),
    ("unwind_cycles_per_sample", "unwind cyc/sample", "{:.0f}"),
    ("unwind_cycles_per_frame", "unwind cyc/frame", "{:.0f}"),
    # Under the plugin (tools/bench/breakdown.py, model_columns).
    ("nmi_modelled_per_sample", "NMI modelled/sample", "{:.0f}"),
    ("unwind_modelled_per_sample", "unwind modelled/sample", "{:.0f}"),
    ("unwind_modelled_per_frame", "unwind modelled/frame", "{:.0f}"),
    ("unwind_cycles_max", "max unwind cyc", "{}"),
    ("bytes_per_sample", "bytes/sample", "{:.1f}"),
    ("user_frames_per_sample", "user frames/sample", "{:.2f}"),
    ("samples_per_unwind", "samples/unwind", "{:.2f}"),
    ("samples", "samples", "{}"),
    ("samples_lost", "lost", "{}"),
    ("truncated_pct", "truncated %", "{:.2f}"),
    ("accuracy_pct", "accuracy %", "{:.2f}"),
    # Under the plugin: the whole run's instructions and modelled cycles
    # against mode none's.
    ("plugin_slowdown_pct", "whole run +% (insns)", "{:.2f}"),
    ("modelled_slowdown_pct", "whole run +% (modelled)", "{:.2f}"),
]


def fmt(v, f="{}"):
    if v is None:
        return "-"
    return f.format(v)


def csv_value(v):
    """Floats with 6 decimals (repeatable text), None as an empty cell."""
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6f}"
    return v


def table(rows, columns=COLUMNS):
    """The rows as an aligned text table, then one line per mode that did
    not work saying why (its numbers are left out, never made up)."""
    head = [title for _, title, _ in columns]
    body = [[fmt(r.get(key), f) for key, _, f in columns] for r in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    line = lambda cells: "  ".join(c.rjust(w) if i else c.ljust(w)
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    out = [line(head), line(["-" * w for w in widths])] + [line(b) for b in body]
    for r in rows:
        if r.get("status", "ok") != "ok":
            out.append(f"{r['mode']}: {r['status']}")
    return "\n".join(out) + "\n"


def number(text):
    """A CSV cell read back: an int, a float, or the text."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def csv_text(rows, keys):
    f = io.StringIO()
    w = csv.writer(f, lineterminator="\n")
    w.writerow(keys)
    for r in rows:
        w.writerow([csv_value(r.get(k)) for k in keys])
    return f.getvalue()


def write_csv(path, rows, keys):
    with open(path, "w", newline="") as f:
        f.write(csv_text(rows, keys))


def rounded(obj):
    """obj with floats rounded the way the CSV files write them."""
    if isinstance(obj, float):
        return round(obj, 6)
    if isinstance(obj, dict):
        return {k: rounded(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [rounded(v) for v in obj]
    return obj


# A curve's rows (bench.py, Bench.curve): one per (point, mode).
CURVE_KEYS = ["curve", "x", "mode", "status", "hz", "workload_cycles", "slowdown_pct",
              "samples", "nmi_cycles_per_sample", "nmi_cycles_per_user_sample",
              "unwind_cycles_per_sample",
              "unwind_cycles_per_frame", "unwind_cycles_max", "unwind_cycles_steady",
              "profiler_cycles_per_sample", "bytes_per_sample",
              "user_frames_per_sample", "samples_per_unwind", "samples_lost",
              "truncated_pct", "accuracy_pct",
              # under the plugin (breakdown.model_columns)
              "nmi_modelled_per_sample", "unwind_modelled_per_sample",
              "unwind_modelled_per_frame", "profiler_modelled_per_sample",
              "plugin_slowdown_pct", "modelled_slowdown_pct"]
MODE_KEYS = [k for k in CURVE_KEYS if k not in ("curve", "x")]
# The modes in the order every table and plot shows them.
MODE_ORDER = ["none", "fp", "fp-deferred", "sframe", "stack-copy", "guess", "validate",
              "eh-frame", "validate-eh"]

# Each curve's plot: title ({hz}: the curve's sample rate) and x label.
CURVE_PLOTS = {
    "depth": ("cost against user stack depth (/bin/chain)",
              "chain depth (user frames = depth + 3)"),
    "funcs": ("cost against functions in the binary (/bin/funcs-N)",
              "generated functions N (SFrame FDEs = N + newlib's)"),
    "kentry": ("cost against NMIs per kernel entry (/bin/kentry, {hz} Hz)",
               "sampling periods per read() (target NMIs per kernel entry)"),
    "rate": ("workload slowdown against sample rate (/bin/chain 32)",
             "samples per second (Hz)"),
    "cpus": ("cost against CPUs (N x /bin/chain 32 at once)",
             "CPUs (QEMU -smp, one /bin/chain each)"),
}


def curve_series(name, rows):
    """The plot's y label and lines: [(ykey, label, modes)], each mode
    that has a value to draw (no sampling has none)."""
    ylabel = "guest cycles per sample (NMI handler + deferred unwind)"
    series = [("profiler_cycles_per_sample", "")]
    if name == "funcs":
        series.append(("unwind_cycles_steady", ", per unwind but the costliest"))
    if name == "rate":
        ylabel, series = "workload slowdown against no sampling (%)", [("slowdown_pct", "")]
    return ylabel, [(key, label, [m for m in MODE_ORDER if m != "none" and
                                  any(r["mode"] == m and r.get(key) for r in rows)])
                    for key, label in series]


def plot_script(name, rows):
    """The gnuplot script that draws NAME.png from NAME.csv, both in the
    script's directory (gnuplot runs there): for each line of
    curve_series, ykey against x, one line per mode; both axes
    logarithmic (the curves span 1..256, 10..100000, 1..64 and
    100..20000)."""
    title, xlabel = CURVE_PLOTS[name]
    ylabel, series = curve_series(name, rows)
    xcol = CURVE_KEYS.index("x") + 1
    mcol = CURVE_KEYS.index("mode") + 1
    lines = [
        'set terminal pngcairo size 900,560 font "DejaVu Sans,10"',
        f'set output "{name}.png"',
        'set datafile separator ","',
        f'set title "{title.format(hz=rows[0]["hz"] if rows else "")}"',
        f'set xlabel "{xlabel}"',
        f'set ylabel "{ylabel}"',
        "set logscale xy",
        "set key top left box opaque",
        "set grid",
    ]
    plots = [
        f'"{name}.csv" using {xcol}:(strcol({mcol}) eq "{m}" && strcol({col}) ne "" ? '
        f'${col} : NaN) with linespoints title "{m}{label}"'
        for ykey, label, modes in series for col in [CURVE_KEYS.index(ykey) + 1] for m in modes
    ]
    lines.append("plot " + ", \\\n     ".join(plots))
    return "\n".join(lines) + "\n"


def curve_files(name, rows):
    """{file name: text}: a curve's plot data (NAME.csv) and script (NAME.gp)."""
    return {f"{name}.csv": csv_text(rows, CURVE_KEYS), f"{name}.gp": plot_script(name, rows)}


def write_curve(out, name, rows, draw=True):
    """A curve's CSV and gnuplot script into out, and with draw its PNG."""
    for fname, text in curve_files(name, rows).items():
        with open(os.path.join(out, fname), "w") as f:
            f.write(text)
    if draw:
        subprocess.run(["gnuplot", f"{name}.gp"], cwd=out, check=True)


def markdown(rows, columns=COLUMNS):
    """The rows as a Markdown table (docs/BENCHMARKS.md pastes these)."""
    out = ["| " + " | ".join(title for _, title, _ in columns) + " |",
           "|" + "|".join(" --- " if i == 0 else " ---: " for i in range(len(columns))) + "|"]
    for r in rows:
        out.append("| " + " | ".join(fmt(r.get(k), f) for k, _, f in columns) + " |")
    return "\n".join(out) + "\n"


def pivot(rows, key, f, xtitle):
    """A curve as a Markdown table: one row per x, one column per mode."""
    modes = [m for m in dict.fromkeys(r["mode"] for r in rows) if m != "none"]
    xs = sorted({r["x"] for r in rows})
    cell = {(r["x"], r["mode"]): r.get(key) for r in rows}
    out = ["| " + xtitle + " | " + " | ".join(modes) + " |",
           "| ---: |" + " ---: |" * len(modes)]
    for x in xs:
        out.append(f"| {x} | " + " | ".join(fmt(cell.get((x, m)), f) for m in modes) + " |")
    return "\n".join(out) + "\n"


def per_workload(rows):
    """Each workload's slowdown in each mode, as a Markdown table."""
    modes = [r for r in rows if r["mode"] != "none"]
    names = list(rows[0]["workloads"]) if rows else []
    out = ["| workload | " + " | ".join(r["mode"] for r in modes) + " |",
           "| --- |" + " ---: |" * len(modes)]
    for n in names:
        out.append(f"| {n} | " + " | ".join(
            fmt((r.get("workload_slowdown_pct") or {}).get(n), "{:.2f}") for r in modes) + " |")
    return "\n".join(out) + "\n"


# The cache part: one row per run (metrics.cache_metrics).
CACHE_COLUMNS = [
    ("run", "run", "{}"),
    ("program", "program", "{}"),
    ("unwind_cycles_per_frame", "unwind cyc/frame", "{:.0f}"),
    # Under the plugin (tools/bench/breakdown.py, model_columns).
    ("nmi_modelled_per_sample", "NMI modelled/sample", "{:.0f}"),
    ("unwind_modelled_per_sample", "unwind modelled/sample", "{:.0f}"),
    ("unwind_modelled_per_frame", "unwind modelled/frame", "{:.0f}"),
    ("unwind_cycles_per_frame_steady", "the costliest left out", "{:.0f}"),
    ("plugin_insns_per_frame", "plugin: insns/frame, no page faults", "{:.0f}"),
    ("modelled_per_frame", "modelled/frame, no page faults", "{:.0f}"),
    ("unwind_cycles_max", "max unwind cyc", "{}"),
    ("frames_per_unwind", "frames/unwind", "{:.2f}"),
    ("unwind_cycles_per_sample", "unwind cyc/sample", "{:.0f}"),
    ("nmi_cycles_per_sample", "NMI cyc/sample", "{:.0f}"),
    ("nmi_cycles_per_user_sample", "NMI cyc/user sample", "{:.0f}"),
    ("rule_cache_hits", "cache hits", "{}"),
    ("rule_cache_misses", "cache misses", "{}"),
    ("slowdown_pct", "slowdown %", "{:.2f}"),
    ("samples", "samples", "{}"),
]
CACHE_KEYS = [key for key, _, _ in CACHE_COLUMNS] + ["status"]

# The funcs part's FDE index table (metrics.index_metrics).
INDEX_COLUMNS = [
    ("funcs", "N", "{}"), ("mode", "mode", "{}"), ("cache", "rule cache", "{}"),
    ("per_frame", "insns/frame", "{:.0f}"),
    ("per_frame_no_build", "insns/frame, build out", "{:.0f}"),
    ("x_chain64", "x chain 64, cache off", "{:.2f}"),
    ("build_cycles", "build insns", "{}"), ("build_chunks", "chunks", "{}"),
    ("index_fills", "blocks filled", "{}"),
    ("index_bytes", "index bytes", "{}"), ("bytes_per_fde", "bytes/FDE", "{:.1f}"),
    ("over_budget", "over budget", "{}"), ("indexed_pct", "lookups indexed %", "{:.1f}"),
]
INDEX_KEYS = [key for key, _, _ in INDEX_COLUMNS] + ["frames", "index_fdes", "indexed_lookups"]

# The breakdown (tools/bench/breakdown.py): one table per mode and window,
# and per mode one of what a sample costs in all (its entries are samples).
PER_SAMPLE = "sample (whole run minus mode none)"
BREAKDOWN_KEYS = ["mode", "window", "function", "insns", "per_entry", "per_frame", "pct",
                  "entries", "kernel_count", "cycles", "cycles_per_entry"]
BREAKDOWN_COLUMNS = [
    ("function", "function", "{}"),
    ("insns", "instructions", "{}"),
    ("per_entry", "per entry", "{:.1f}"),
    ("per_frame", "per frame", "{:.1f}"),
    ("pct", "%", "{:.1f}"),
    ("cycles", "modelled", "{}"),
    ("cycles_per_entry", "modelled per entry", "{:.1f}"),
]

# The memory part (breakdown.memory_row): per depth and mode, what a
# sample costs in instructions and in the plugin's modelled cycles.
MEMORY_COLUMNS = [
    ("program", "program", "{}"),
    ("depth", "depth", "{}"),
    ("mode", "mode", "{}"),
    ("stack_copy", "copy bytes", "{}"),
    ("samples", "samples", "{}"),
    ("nmi_insns", "NMI insns/sample", "{:.0f}"),
    ("nmi_cycles", "NMI modelled/sample", "{:.0f}"),
    ("unwind_insns", "unwind insns/sample", "{:.0f}"),
    ("unwind_cycles", "unwind modelled/sample", "{:.0f}"),
    ("sample_insns", "in all: insns/sample", "{:.0f}"),
    ("sample_cycles", "in all: modelled/sample", "{:.0f}"),
    ("cycles_per_insn", "modelled/insns", "{:.2f}"),
    ("sample_bytes", "bytes accessed/sample", "{:.0f}"),
    ("sample_rep_bytes", "rep bytes/sample", "{:.0f}"),
    ("sample_l1d_miss", "L1D load misses/sample", "{:.1f}"),
    ("sample_llc_miss", "LLC misses/sample (loads, fetches)", "{:.1f}"),
    ("sample_st_llc_miss", "store misses to memory/sample", "{:.1f}"),
    ("sample_cycles_stores", "in all: modelled/sample, stores charged too", "{:.0f}"),
]
MEMORY_KEYS = [key for key, _, _ in MEMORY_COLUMNS] + ["frames_per_unwind", "nmi_llc_miss",
                                                      "unwind_llc_miss"]

# A deferred unwind's own cost, per unwind (breakdown.unwind_row).
UNWIND_COLUMNS = [
    ("samples", "samples", "{}"),
    ("unwinds", "unwinds", "{}"),
    ("frames_per_unwind", "frames/unwind", "{:.1f}"),
    ("unwind_insns", "insns/unwind", "{:.0f}"),
    ("unwind_cycles", "modelled/unwind", "{:.0f}"),
    ("cycles_per_insn", "modelled/insns", "{:.2f}"),
    ("fault_cycles", "page faults in it: modelled/unwind", "{:.0f}"),
    ("unwind_loads", "loads/unwind", "{:.0f}"),
    ("unwind_l1d_miss", "L1d misses/unwind", "{:.1f}"),
    ("unwind_l2_miss", "L2 misses/unwind", "{:.1f}"),
    ("unwind_llc_miss", "LLC misses/unwind", "{:.1f}"),
]
UNWIND_KEYS = ["llc_miss", "fault_insns"]
FDESEARCH_COLUMNS = [("funcs", "N", "{}"), ("run", "caches", "{}")] + UNWIND_COLUMNS
FDESEARCH_KEYS = [key for key, _, _ in FDESEARCH_COLUMNS] + ["evict_kib"] + UNWIND_KEYS
RULECACHE_COLUMNS = [("callers", "K", "{}"), ("cache", "rule cache", "{}")] + UNWIND_COLUMNS + [
    ("rule_cache_hits", "cache hits", "{}"), ("rule_cache_misses", "cache misses", "{}")]
RULECACHE_KEYS = [key for key, _, _ in RULECACHE_COLUMNS] + UNWIND_KEYS

# The sframe-v3 part: per suite and SFrame version, a deferred unwind's
# cost per frame under the plugin and the suite's sections in bytes; and
# each program's sections.
SFRAMEV_COLUMNS = [
    ("suite", "suite", "{}"),
    ("sframe", ".sframe", "{}"),
    ("samples", "samples", "{}"),
    ("frames_per_unwind", "frames/unwind", "{:.1f}"),
    ("insns_per_frame", "insns/frame", "{:.1f}"),
    ("cycles_per_frame", "modelled/frame", "{:.1f}"),
    ("fault_cycles", "page faults in it: modelled/unwind", "{:.0f}"),
    ("sframe_bytes", ".sframe bytes", "{:,}"),
    ("eh_bytes", ".eh_frame + hdr bytes", "{:,}"),
]
SFRAMEV_KEYS = [key for key, _, _ in SFRAMEV_COLUMNS] + ["unwinds"]
SFRAMEV_SIZE_COLUMNS = [
    ("suite", "suite", "{}"),
    ("program", "program", "{}"),
    ("sframe_v1", ".sframe v1", "{:,}"),
    ("sframe_v2", ".sframe v2", "{:,}"),
    ("sframe_v3", ".sframe v3", "{:,}"),
    ("eh_bytes", ".eh_frame + hdr", "{:,}"),
]
SFRAMEV_SIZE_KEYS = [key for key, _, _ in SFRAMEV_SIZE_COLUMNS]
# The tables part: the table designs on the two suites (bench.py tables).
TABLES_COLUMNS = [
    ("suite", "suite", "{}"),
    ("design", "design", "{}"),
    ("unwind_insns_per_frame", "insns/frame", "{:.0f}"),
    ("unwind_modelled_per_frame", "modelled/frame", "{:.0f}"),
    ("unwind_insns_per_miss", "insns/miss (cache off)", "{:.0f}"),
    ("unwind_modelled_per_miss", "modelled/miss (cache off)", "{:.0f}"),
    ("first_unwind_insns", "first unwind insns", "{:.0f}"),
    ("rows_answered_pct", "lookups from rows % (cache off)", "{:.1f}"),
    ("bytes_per_table", "kernel bytes/table", "{:.0f}"),
    ("bytes_per_fde", "kernel bytes/FDE", "{:.1f}"),
    ("convert_insns_per_table", "conversion insns/table", "{:.0f}"),
    ("convert_insns_per_fde", "conversion insns/FDE", "{:.0f}"),
    ("file_bytes", "table bytes in the files", "{}"),
    ("register_exec_insns", "insns/registration at exec", "{:.0f}"),
    ("register_exec_modelled", "modelled/registration at exec", "{:.0f}"),
    ("register_dlopen_insns", "insns/registration at dlopen", "{:.0f}"),
    ("register_dlopen_modelled", "modelled/registration at dlopen", "{:.0f}"),
]
TABLES_KEYS = [key for key, _, _ in TABLES_COLUMNS] + [
    "status", "samples", "user_frames_per_sample", "fallbacks", "fallbacks_nocache", "evicted"]
# The same designs on the funcs curve's programs (/bin/funcs-N): the
# columns that change with the table's size (registration does not).
TABLES_FUNCS_COLUMNS = [("funcs", "funcs", "{}")] + [
    c for c in TABLES_COLUMNS if c[0] not in ("suite",) and not c[0].startswith("register_")] + [
    ("fallbacks", "tables over budget", "{}"), ("fallbacks_nocache", "... cache off", "{}")]
TABLES_FUNCS_KEYS = [key for key, _, _ in TABLES_FUNCS_COLUMNS] + [
    "status", "samples", "user_frames_per_sample", "evicted"]

# The stackmap part: the stream against the map (metrics.stackmap_metrics).
STACKMAP_COLUMNS = [
    ("programs", "programs", "{}"),
    ("hz", "Hz", "{}"),
    ("consumer", "consumer", "{}"),
    ("samples", "samples", "{}"),
    ("bytes", "bytes to the channel", "{}"),
    ("bytes_per_sample", "bytes/sample", "{:.1f}"),
    ("insns_per_sample", "guest insns/sample", "{:.0f}"),
    ("modelled_per_sample", "modelled cycles/sample", "{:.0f}"),
    ("slowdown_pct", "slowdown %", "{:.2f}"),
    ("samples_lost", "samples lost", "{}"),
    ("records_lost", "records lost", "{}"),
    ("map_stacks", "stacks written", "{}"),
]
STACKMAP_KEYS = [key for key, _, _ in STACKMAP_COLUMNS] + ["map_bytes", "map_user_unanswered"]

# The compat part (bench.py, Bench.compat): per build and mode of the
# i386 programs, how far their user stacks reached and what it cost.
COMPAT_COLUMNS = [
    ("build", "build", "{}"),
    ("mode", "mode", "{}"),
    ("samples", "samples", "{}"),
    ("start_pct", "ends at _start %", "{:.2f}"),
    ("main_pct", "has main %", "{:.2f}"),
    ("libdw_pct", "equal to libdw %", "{:.2f}"),
    ("user_frames_per_sample", "user frames/sample", "{:.2f}"),
    ("nmi_cycles_per_user_sample", "NMI insns/user sample", "{:.0f}"),
    ("nmi_modelled_per_sample", "NMI modelled/sample", "{:.0f}"),
    ("unwind_cycles_per_sample", "unwind insns/sample", "{:.0f}"),
    ("unwind_cycles_per_frame", "unwind insns/frame", "{:.0f}"),
    ("unwind_modelled_per_frame", "unwind modelled/frame", "{:.0f}"),
    ("truncated_pct", "truncated %", "{:.2f}"),
]
COMPAT_KEYS = [key for key, _, _ in COMPAT_COLUMNS] + [
    "status", "user_samples", "at_start", "has_main", "validated", "agree",
    "nmi_cycles_per_sample", "unwind_modelled_per_sample", "unwinds_run", "unwind_stop_end",
    "unwind_stop_no_info", "unwind_stop_bad_frame", "ehframe_unsupported", "unwind_compat_no_sframe"]
# The boot of a 64-bit and a 32-bit program at once: per program.
COMPAT_MIXED_COLUMNS = [("program", "program", "{}"), ("mode", "mode", "{}")] + [
    c for c in COMPAT_COLUMNS if c[0] in ("samples", "start_pct", "main_pct", "libdw_pct")]


def breakdown_groups(rows):
    """(caption, rows) per mode and window, in the order they came."""
    groups = {}
    for r in rows:
        groups.setdefault((r["mode"], r["window"]), []).append(r)
    for (mode, window), g in groups.items():
        total = g[-1]
        kernel = (f"; the kernel's TSC count: {total['kernel_count']}"
                  if total["kernel_count"] is not None else "")
        unit = "samples" if window == PER_SAMPLE else "entries"
        modelled = (f", {total['cycles']} modelled cycles" if total.get("cycles") is not None
                    else "")
        yield (f"{mode}, {window}: {total['entries']} {unit}, "
               f"{total['insns']} instructions{modelled}{kernel}"), g


def breakdown_text(rows):
    return "\n".join(caption + "\n" + table(g, BREAKDOWN_COLUMNS)
                     for caption, g in breakdown_groups(rows))


def breakdown_markdown(rows):
    return "\n".join(f"*{caption}*\n\n" + markdown(g, BREAKDOWN_COLUMNS)
                     for caption, g in breakdown_groups(rows))


# --- every table of the run --------------------------------------------------
# What the page and tables.md show of each curve: (metric, format, caption).
PER_SAMPLE_INSNS = ("profiler_cycles_per_sample", "{:.0f}",
                    "guest cycles per sample (NMI + deferred unwind)")
PER_SAMPLE_MODELLED = ("profiler_modelled_per_sample", "{:.0f}",
                       "modelled cycles per sample (NMI + deferred unwind)")
STEADY = ("unwind_cycles_steady", "{:.0f}", "cycles per deferred unwind, the costliest left out")
CURVE_TABLES = {
    "depth": [PER_SAMPLE_INSNS, PER_SAMPLE_MODELLED,
              ("unwind_cycles_per_frame", "{:.0f}", "deferred unwind cycles per frame"),
              ("unwind_modelled_per_frame", "{:.0f}", "deferred unwind modelled cycles per frame")],
    "funcs": [PER_SAMPLE_INSNS, PER_SAMPLE_MODELLED, STEADY,
              ("unwind_cycles_max", "{}", "the costliest deferred unwind (cycles)")],
    "kentry": [("samples_per_unwind", "{:.2f}", "samples per deferred unwind (measured)"),
               ("unwind_cycles_per_sample", "{:.0f}", "deferred unwind cycles per sample"),
               ("unwind_modelled_per_sample", "{:.0f}", "deferred unwind modelled cycles per sample"),
               ("bytes_per_sample", "{:.1f}", "stream bytes per sample"),
               PER_SAMPLE_INSNS, PER_SAMPLE_MODELLED],
    "rate": [("slowdown_pct", "{:.2f}", "workload slowdown against no sampling (%)"),
             ("plugin_slowdown_pct", "{:.2f}", "whole run slowdown in instructions (%)"),
             ("modelled_slowdown_pct", "{:.2f}", "whole run slowdown in modelled cycles (%)"),
             ("samples_lost", "{}", "samples lost")],
    # The plugin counts one vCPU: the modelled columns have 1 CPU only.
    "cpus": [("nmi_cycles_per_sample", "{:.0f}", "NMI handler cycles per sample"),
             ("nmi_modelled_per_sample", "{:.0f}", "NMI handler modelled cycles per sample (1 CPU only)"),
             ("unwind_cycles_per_sample", "{:.0f}", "deferred unwind cycles per sample"),
             ("unwind_modelled_per_sample", "{:.0f}", "deferred unwind modelled cycles per sample (1 CPU only)"),
             STEADY, PER_SAMPLE_INSNS],
}

# The two formats side by side along a curve (the page's "SFrame against
# .eh_frame"): per mode of EH_MODES, these columns.
EH_MODES = ["eh-frame", "sframe"]
EH_COLUMNS = [("unwind_cycles_per_frame", "{:.0f}", "per frame"),
              ("unwind_cycles_max", "{}", "costliest unwind"),
              ("unwind_cycles_steady", "{:.0f}", "steady per unwind")]


def side_by_side(rows, modes, columns, xtitle):
    """A curve as a Markdown table: one row per x, for each column each
    mode of modes."""
    xs = sorted({r["x"] for r in rows})
    cell = {(r["x"], r["mode"]): r for r in rows}
    cols = [(m, key, f, f"{m} {title}") for key, f, title in columns for m in modes]
    out = ["| " + xtitle + " | " + " | ".join(c[3] for c in cols) + " |",
           "| ---: |" + " ---: |" * len(cols)]
    for x in xs:
        out.append(f"| {x} | " + " | ".join(fmt((cell.get((x, m)) or {}).get(key), f)
                                           for m, key, f, _ in cols) + " |")
    return "\n".join(out) + "\n"


# The host-side comparison: bench-unwind's CSV, as results.json keeps it.
HOST_COLUMNS = [("unwinder", "unwinder", "{}"), ("snapshots", "snapshots", "{}"),
                ("frames_per_snapshot", "frames per snapshot", "{:.2f}"),
                ("agree_with_libdw_pct", "chains equal to libdw's %", "{:.2f}"),
                ("frames_per_second", "frames per second", "{:.0f}")]


def part(results, name):
    """results[name], or the error a template that asks for a part the
    run left out gets."""
    if name not in results:
        raise PageError(f"the results have no part '{name}'")
    return results[name]


def curve(results, name):
    rows = part(results, "curves").get(name)
    if rows is None:
        raise PageError(f"the results have no curve '{name}'")
    return rows


def breakdown_group(results, mode, window):
    """The breakdown's table of one mode and window ('sample': the
    per-sample one), with its caption."""
    window = PER_SAMPLE if window == "sample" else window
    for caption, g in breakdown_groups(part(results, "breakdown")):
        if (g[0]["mode"], g[0]["window"]) == (mode, window):
            return f"*{caption}*\n\n" + markdown(g, BREAKDOWN_COLUMNS)
    raise PageError(f"the breakdown has no table of mode {mode}, window {window}")


def mode_table(rows):
    """A mode table, then why each mode that did not work has no numbers."""
    return mode_table_of(rows, COLUMNS)


def mode_table_of(rows, columns):
    return markdown(rows, columns) + "".join(f"\n{r['mode']}: {r['status']}\n" for r in rows
                                             if r["status"] != "ok")


def curve_table(results, name, key):
    for k, f, caption in CURVE_TABLES[name]:
        if k == key:
            return f"*{caption}*\n\n" + pivot(curve(results, name), key, f, name)
    raise PageError(f"the {name} curve has no table of {key}")


# The run's identity (run_table): what results.json must say of it.
RUN_FIELDS = [("commit", "commit"), ("config", "configuration"),
              ("sha256.kernel", "kernel SHA-256"), ("sha256.initrd", "initrd SHA-256"),
              ("qemu", "QEMU"), ("guest_clock", "guest clock")]


def run_table(results):
    """What the run was: the commit, the configuration, what it booted."""
    return "| run | |\n| --- | --- |\n" + "".join(
        f"| {title} | `{lookup(results, path)}` |\n" for path, title in RUN_FIELDS)


# The wall-time table: where each part's boots spent their time (the
# phases of tools/bench/guest.py's PHASES, then stitch), summed over its
# boots, and the seconds its tables took; the host's numbers, not the guest's.
WALL_COLUMNS = [("part", "part", "{}"), ("boots", "boots", "{}"),
                ("plugin_boots", "under the plugin", "{}"),
                ("start_s", "QEMU's start s", "{:.1f}"), ("boot_s", "kernel boot s", "{:.1f}"),
                ("workload_s", "workload s", "{:.1f}"), ("end_s", "end s", "{:.1f}"),
                ("stitch_s", "stitch s", "{:.1f}"), ("tables_s", "tables s", "{:.1f}")]


def wall_table(results):
    parts = results["wall"]["parts"]
    return markdown([{"part": p, **parts[p]} for p in parts], WALL_COLUMNS)


# {{table NAME ARG...}}: each table a page may hold, from the results.
TABLES = {
    "run": run_table,
    "wall": wall_table,
    "modes": lambda r: mode_table(part(r, "modes")["rows"]),
    "modes-workloads": lambda r: per_workload(part(r, "modes")["rows"]),
    "real": lambda r: mode_table(part(r, "real")["rows"]),
    "real-workloads": lambda r: per_workload(part(r, "real")["rows"]),
    "cache": lambda r: markdown(part(r, "cache"), CACHE_COLUMNS),
    "funcs-index": lambda r: markdown(part(r, "funcs_index")["rows"], INDEX_COLUMNS),
    "breakdown": breakdown_group,
    "memory": lambda r: markdown(part(r, "memory")["rows"], MEMORY_COLUMNS),
    "fdesearch": lambda r: markdown(part(r, "fdesearch")["rows"], FDESEARCH_COLUMNS),
    "rulecache": lambda r: markdown(part(r, "rulecache")["rows"], RULECACHE_COLUMNS),
    "tables": lambda r: markdown(part(r, "tables")["rows"], TABLES_COLUMNS),
    "tables-funcs": lambda r: markdown(part(r, "tables")["funcs"], TABLES_FUNCS_COLUMNS),
    "stackmap": lambda r: markdown(part(r, "stackmap")["rows"], STACKMAP_COLUMNS),
    "sframe-v3": lambda r: markdown(part(r, "sframe_v3")["rows"], SFRAMEV_COLUMNS),
    "sframe-v3-sizes": lambda r: markdown(part(r, "sframe_v3")["programs"], SFRAMEV_SIZE_COLUMNS),
    "curve": curve_table,
    "eh-curve": lambda r, name: side_by_side(
        curve(r, name), EH_MODES,
        EH_COLUMNS + ([("slowdown_pct", "{:.2f}", "slowdown %")] if name == "rate" else []), name),
    "host": lambda r: markdown(part(r, "host"), HOST_COLUMNS),
    "compat": lambda r: mode_table_of(part(r, "compat")["rows"], COMPAT_COLUMNS),
    "compat-mixed": lambda r: markdown(part(r, "compat")["mixed"]["rows"], COMPAT_MIXED_COLUMNS),
}


def write_tables(out, results):
    """tables.md: every table of the run in Markdown, as the page shows them."""
    text = []
    if "cache" in results:
        text += ["## cache: the deferred unwind with the rule cache on and off\n",
                 TABLES["cache"](results)]
    if "breakdown" in results:
        text += ["## breakdown: guest instructions per kernel function (insnprof)\n",
                 breakdown_markdown(results["breakdown"])]
    if "funcs_index" in results:
        text += [f"## funcs: the FDE index, the rule cache on and off "
                 f"({results['funcs_index']['what']})\n", TABLES["funcs-index"](results)]
    if "memory" in results:
        m = results["memory"]
        text += [f"## memory: what a sample costs, instructions and modelled cycles "
                 f"({m['program']}, {m['hz']} Hz)\n", TABLES["memory"](results)]
    if "fdesearch" in results:
        text += [f"## fdesearch: a deferred unwind's FDE searches, hot and cold "
                 f"({results['fdesearch']['what']})\n", TABLES["fdesearch"](results)]
    if "rulecache" in results:
        text += [f"## rulecache: the rule cache on and off against the pcs it must hold "
                 f"({results['rulecache']['what']})\n", TABLES["rulecache"](results)]
    if "tables" in results:
        text += [f"## tables: .eh_frame interpreted, its rows cached or converted, and SFrame "
                 f"({results['tables']['hz']} Hz)\n", TABLES["tables"](results),
                 f"## tables, the funcs curve ({results['tables']['funcs_what']})\n",
                 TABLES["tables-funcs"](results)]
    if "stackmap" in results:
        text += [f"## stackmap: the record stream against the stack map "
                 f"({results['stackmap']['what']})\n", TABLES["stackmap"](results)]
    if "sframe_v3" in results:
        text += [f"## sframe-v3: .sframe of version 1, 2 and 3, per frame and in bytes "
                 f"({results['sframe_v3']['hz']} Hz, sframe mode)\n", TABLES["sframe-v3"](results),
                 "## sframe-v3: each program's sections in bytes\n",
                 TABLES["sframe-v3-sizes"](results)]
    for name in ("modes", "real"):
        if name in results:
            m = results[name]
            text += [f"## {name} ({m['hz']} Hz; suite: {', '.join(m['suite'])})\n",
                     TABLES[name](results)]
            text += [f"## {name}: slowdown % of each workload\n", TABLES[name + "-workloads"](results)]
    for name, rows in results.get("curves", {}).items():
        for key, f, caption in CURVE_TABLES[name]:
            text += [f"## {name}: {caption}\n", pivot(rows, key, f, name)]
    if "compat" in results:
        c = results["compat"]
        text += [f"## compat: the i386 programs per build and mode ({c['hz']} Hz; "
                 f"{', '.join(c['suite'])})\n", TABLES["compat"](results),
                 f"## compat: a 64-bit and a 32-bit program at once ({c['mixed']['mode']})\n",
                 TABLES["compat-mixed"](results)]
    if "host" in results:
        text += ["## host: four unwinders on the same stack copies\n", TABLES["host"](results)]
    with open(os.path.join(out, "tables.md"), "w") as f:
        f.write("\n".join(text))


# --- the page: a template whose every number comes from results.json -------
# A line "{{table NAME ARG...}}" becomes that table (TABLES). The lines
# between "{{if PATH}}" and "{{end}}" are kept if the results hold PATH
# (a part or a row that a smaller configuration leaves out), else dropped;
# an error inside a block that is kept is an error. "{{EXPR}}" or
# "{{EXPR|SPEC}}" anywhere else becomes EXPR's value, formatted by the
# Python format SPEC (its "," groups thousands with a space, as the page's
# prose writes them; default: "," for an integer, ",.2f" otherwise). EXPR
# is arithmetic (+ - * / and parentheses, spaces around + and -) on
# numbers, min(...), max(...), atmost(VALUE, LIMIT) ("yes" or "no") and
# paths into results.json: ".key" into an
# object, "[N]" into a list, "[key=value&key=value]" the rows of a list
# whose fields are those values (one row, or several inside min and max),
# e.g. modes.rows[mode=sframe].unwind_cycles_per_sample or
# max(curves.kentry[mode=sframe].nmi_cycles_per_sample). A path that
# leads to nothing, or to a null, is an error: prose quotes no number the
# results do not hold.
class PageError(Exception):
    pass


PATH = r"[A-Za-z_]\w*(?:\.\w+|\[[^\]]*\])*"
TOKEN = re.compile(rf"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<path>{PATH})|(?P<op>[-+*/(),]))")
STEP = re.compile(r"\.(\w+)|\[([^\]]*)\]")


def lookup(results, path):
    """The value a path names: a number, or a list of them (several rows)."""
    head = re.match(r"\w+", path).group(0)
    vals, many = [results], False
    for key, sel in [(head, None)] + STEP.findall(path[len(head):]):
        got = []
        for v in vals:
            if key:
                if not isinstance(v, dict) or key not in v:
                    raise PageError(f"{path}: no '{key}' in the results")
                got.append(v[key])
            elif sel.isdigit():
                if not isinstance(v, list) or int(sel) >= len(v):
                    raise PageError(f"{path}: no element [{sel}]")
                got.append(v[int(sel)])
            else:
                want = dict(kv.split("=", 1) for kv in sel.split("&"))
                rows = [r for r in (v if isinstance(v, list) else [])
                        if all(str(r.get(k)) == x for k, x in want.items())]
                if not rows:
                    raise PageError(f"{path}: no row has {sel}")
                got += rows
                many = many or len(rows) > 1
        vals = got
    for v in vals:
        if v is None:
            raise PageError(f"{path}: null in the results")
    return vals if many else vals[0]


def evaluate(results, expr):
    """EXPR's value (the grammar above), by recursive descent."""
    tokens, pos = [], 0
    while pos < len(expr.rstrip()):
        m = TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise PageError(f"{{{{{expr}}}}}: cannot read '{expr[pos:]}'")
        tokens.append((m.lastgroup, m.group(m.lastgroup)))
        pos = m.end()
    tokens.append(("end", None))
    i = 0

    def take(want=None):
        nonlocal i
        kind, text = tokens[i]
        if want and text != want:
            raise PageError(f"{{{{{expr}}}}}: '{want}' expected, not '{text}'")
        i += 1
        return kind, text

    def number(v):
        if isinstance(v, list) or isinstance(v, bool) or not isinstance(v, (int, float)):
            raise PageError(f"{{{{{expr}}}}}: {v!r} is not one number")
        return v

    def factor():
        kind, text = take()
        if kind == "num":
            return float(text) if "." in text else int(text)
        if text == "(":
            v = sum_()
            take(")")
            return v
        if kind == "path" and text in ("min", "max", "atmost") and tokens[i][1] == "(":
            take("(")
            args = [sum_(many=True)]
            while tokens[i][1] == ",":
                take(",")
                args.append(sum_(many=True))
            take(")")
            flat = [number(x) for a in args for x in (a if isinstance(a, list) else [a])]
            if text == "atmost":
                if len(args) != 2:
                    raise PageError(f"{{{{{expr}}}}}: atmost(value, limit)")
                return "yes" if flat[0] <= flat[1] else "no"
            return (min if text == "min" else max)(flat)
        if kind == "path":
            return lookup(results, text)
        raise PageError(f"{{{{{expr}}}}}: unexpected '{text}'")

    def term(many=False):
        v = factor()
        while tokens[i][1] in ("*", "/"):
            op = take()[1]
            a, b = number(v), number(factor())
            if op == "/" and b == 0:
                raise PageError(f"{{{{{expr}}}}}: division by zero")
            v = a * b if op == "*" else a / b
        return v if many else number(v)

    def sum_(many=False):
        v = term(many)
        while tokens[i][1] in ("+", "-"):
            op = take()[1]
            a, b = number(v), term()
            v = a + b if op == "+" else a - b
        return v

    v = sum_(many=True)
    if tokens[i][0] != "end":
        raise PageError(f"{{{{{expr}}}}}: unexpected '{tokens[i][1]}'")
    return v


def expand(results, field):
    """One {{...}} of the prose: EXPR or EXPR|SPEC, as text (a list of
    texts: joined by commas)."""
    expr, _, spec = field.partition("|")
    # A path alone may name a text; arithmetic is on numbers.
    v = lookup(results, expr.strip()) if re.fullmatch(PATH, expr.strip()) else \
        evaluate(results, expr)
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        v = ", ".join(v)
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise PageError(f"{{{{{field}}}}}: {v!r} is not one number or text (min, max?)")
    if isinstance(v, str):
        if spec:
            raise PageError(f"{{{{{field}}}}}: a format for a text")
        return v
    try:
        return format(v, spec or ("," if isinstance(v, int) else ",.2f")).replace(",", " ")
    except ValueError as e:
        raise PageError(f"{{{{{field}}}}}: {e}")


def holds(results, path):
    try:
        lookup(results, path)
        return True
    except PageError:
        return False


def page(results, template):
    """The page's text: the template with its tables and values filled in."""
    out, keep = [], []
    for n, line in enumerate(template.splitlines(keepends=True), 1):
        try:
            m = re.fullmatch(r"\{\{(table|if) ([^}]*)\}\}\n?", line)
            if re.fullmatch(r"\{\{end\}\}\n?", line):
                if not keep:
                    raise PageError("{{end}} without {{if}}")
                keep.pop()
            elif m and m.group(1) == "if":
                keep.append(holds(results, m.group(2).strip()))
            elif not all(keep):
                continue
            elif m:
                name, *args = m.group(2).split()
                if name not in TABLES:
                    raise PageError(f"no table '{name}'")
                out.append(TABLES[name](results, *args))
            else:
                out.append(re.sub(r"\{\{(.*?)\}\}", lambda f: expand(results, f.group(1)), line))
        except (PageError, TypeError) as e:
            raise PageError(f"line {n}: {e}")
    if keep:
        raise PageError("{{if}} without {{end}}")
    return "".join(out)


def differ(path, want):
    """A short diff of the file at path against want (None: the same)."""
    try:
        with open(path) as f:
            got = f.read()
    except OSError as e:
        return f"{path}: {e.strerror}\n"
    if got == want:
        return None
    diff = list(difflib.unified_diff(got.splitlines(True), want.splitlines(True),
                                     path, "from the results", n=0))
    return "".join(diff[:40]) + ("...\n" if len(diff) > 40 else "")


def main():
    ap = argparse.ArgumentParser(description="docs/BENCHMARKS.md and its plots from results.json")
    ap.add_argument("--results", required=True)
    ap.add_argument("--template", required=True)
    ap.add_argument("--page", required=True)
    ap.add_argument("--plots", required=True, help="the directory of the plots and their data")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if the page or the plot data differ")
    ap.add_argument("--no-draw", action="store_true", help="write the plot data, not the PNGs")
    args = ap.parse_args()
    try:
        with open(args.results) as f:
            results = json.load(f)
        with open(args.template) as f:
            text = page(results, f.read())
    except (OSError, ValueError, PageError) as e:
        print(f"output.py: {e}", file=sys.stderr)
        return 2
    curves = results.get("curves", {})
    if args.check:
        files = {args.page: text}
        for name, rows in curves.items():
            files.update({os.path.join(args.plots, n): t for n, t in curve_files(name, rows).items()})
        bad = [d for d in (differ(p, t) for p, t in files.items()) if d]
        sys.stderr.write("".join(bad))
        if bad:
            print(f"output.py: {len(bad)} file(s) are not what {args.results} gives: "
                  f"make bench-page writes them", file=sys.stderr)
        return 1 if bad else 0
    with open(args.page, "w") as f:
        f.write(text)
    for name, rows in curves.items():
        write_curve(args.plots, name, rows, draw=not args.no_draw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
