#!/usr/bin/env python3
"""Turn one benchmark run's measurements into the Markdown report (Scripts/benchmark).

  report.py RUN_DIR

Reads RUN_DIR/times.tsv (scenario, run, seconds, peak RSS KiB, files[, CPU seconds]), RUN_DIR/meta.txt
(key=value lines) and RUN_DIR/changed-one-*.txt, and prints Markdown on stdout.
"""

import os
import statistics
import sys

ORDER = [
    "taskpress cold build",
    "cold build: reading the databases",
    "cold build: staging photos, pages, data",
    "cold build: commit",
    "taskpress rebuild, nothing changed",
    "taskpress rebuild, one to-do changed",
    "taskpress rebuild, every page changed",
    "every page changed: staging",
    "every page changed: commit",
    "floor",
    "Hugo export (Python)",
    "Hugo build",
]
FILES_MEANING = {
    "taskpress rebuild, nothing changed": "changed",
    "taskpress rebuild, one to-do changed": "changed",
}


def load(run):
    samples = {}
    scale = {}
    with open(os.path.join(run, "times.tsv"), encoding="utf-8") as f:
        for line in f:
            scenario, _, seconds, rss, files, *rest = line.rstrip("\n").split("\t")
            cpu = float(rest[0]) if rest and rest[0] else None
            if scenario.startswith("scale: "):
                scale.setdefault(scenario[len("scale: "):], []).append(
                    (float(seconds), int(rss), cpu, int(files) if files else None))
                continue
            samples.setdefault(scenario, []).append(
                (float(seconds), int(rss) if rss else None, int(files) if files else None))
    meta = {}
    with open(os.path.join(run, "meta.txt"), encoding="utf-8") as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            meta[key] = value
    return samples, meta, scale


def scale_table(scale, meta):
    """The scale workloads beside the reference workload of the same binary and run."""
    out = ["", "## Scale workloads", "",
           f"- {meta.get('scale', '')}",
           "- each cold build's median over the runs; ratios to the reference workload (L) "
           "built by the same binary in the same run, in pairs alternating which goes first",
           "",
           "| cold build | runs | median s | median CPU s (user+sys) | peak RSS MB (max) | files |"
           " wall / L | CPU / L | RSS / L |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    def stats(rows):
        return (statistics.median(r[0] for r in rows), statistics.median(r[2] for r in rows),
                max(r[1] for r in rows) / 1024, rows[0][3])
    for label in sorted(scale, key=lambda name: (name.endswith("baseline"), not name.startswith("L"), name)):
        wall, cpu, rss, files = stats(scale[label])
        base = "L" + (", baseline" if label.endswith(", baseline") else "")
        if label.startswith("L") or base not in scale:
            ratios = " |  | "
        else:
            lw, lc, lr, _ = stats(scale[base])
            ratios = f"**{wall / lw:.2f}** | {cpu / lc:.2f} | {rss / lr:.2f}"
        out.append(f"| {label} | {len(scale[label])} | {wall:.2f} | {cpu:.2f} | {rss:.0f} | "
                   f"{files if files is not None else 'n/a'} | {ratios} |")
    for size in ("1m", "10m"):
        if size in scale and f"{size}, baseline" in scale:
            this, base = stats(scale[size]), stats(scale[f"{size}, baseline"])
            out.append("")
            out.append(f"- {size}, this build / baseline: wall {this[0] / base[0]:.2f}, CPU "
                       f"{this[1] / base[1]:.2f}, peak RSS {this[2] / base[2]:.2f} "
                       f"({this[2]:.0f} MB against {base[2]:.0f} MB)")
    return out


def pages_table(run, samples):
    """--pages: what a rebuild renders and writes at 20,000 to-dos, medians of the runs."""
    path = os.path.join(run, "pages.tsv")
    if not os.path.exists(path):
        return []
    rows = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            scenario, _, rendered, written = line.rstrip("\n").split("\t")
            rows.setdefault(scenario, []).append((int(rendered), int(written)))
    targets = {
        "one-row text edit": "at most 20 rendered, 15 written",
        "one to-do completed": "at most 150 written",
        "night's edits, same date": "",
        "night's edits, new date": "at most 25 written more, 1.5x the time of the same date",
        "night's edits, same date, due dates": "",
        "night's edits, new date, due dates": "(to-dos turning overdue change too)",
    }
    out = ["", "## Pages that show only what they depend on (20,000 to-dos)", "",
           "| rebuild | runs | median s | pages rendered | files written | target |",
           "|---|---:|---:|---:|---:|---|"]
    for scenario in targets:
        if scenario not in rows:
            continue
        rendered = statistics.median(r for r, _ in rows[scenario])
        written = statistics.median(w for _, w in rows[scenario])
        secs = median(f"pages: {scenario}", samples)
        out.append(f"| {scenario} | {len(rows[scenario])} | {secs:.3f} | {rendered:.0f} | "
                   f"{written:.0f} | {targets[scenario]} |")
    out.append("")
    for suffix in ("", ", due dates"):
        same, new = "night's edits, same date" + suffix, "night's edits, new date" + suffix
        if same in rows and new in rows:
            more = (statistics.median(w for _, w in rows[new])
                    - statistics.median(w for _, w in rows[same]))
            time_ratio = ratio(median(f"pages: {new}", samples), median(f"pages: {same}", samples))
            out.append(f"- a new date{suffix and ' (due dates mapped)'}: {more:.0f} files written "
                       f"more than the same edits on the same date, in **{time_ratio}x** the time")
    return out


def median(scenario, samples):
    rows = samples.get(scenario)
    return statistics.median(s for s, _, _ in rows) if rows else None


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "n/a"


def main():
    run = sys.argv[1]
    samples, meta, scale = load(run)
    out = []
    out.append("# taskpress benchmark")
    out.append("")
    out.append(f"- machine: {meta.get('nproc')} cores, {meta.get('cpu')}, {meta.get('memory')}, "
               f"{meta.get('kernel')}, file system {meta.get('filesystem')}")
    for key in ("swift", "taskpress", "baseline", "hugo", "python", "cc"):
        if key == "baseline" and key not in meta:
            continue
        out.append(f"- {key}: {meta.get(key)}")
    out.append(f"- workload: {meta.get('workload')}")
    out.append(f"- runs per scenario: {meta.get('runs')} (median, min-max); {meta.get('date')}")
    if not samples:  # --scale-only, or taskpress was not measured
        print("\n".join(out + (scale_table(scale, meta) if scale else [])))
        return
    out.append("")
    out.append("| scenario | median s | min-max s | peak RSS MB (max) | files written |")
    out.append("|---|---:|---:|---:|---:|")
    for scenario in ORDER + sorted(set(samples) - set(ORDER)):
        rows = samples.get(scenario)
        if not rows:
            continue
        secs = [s for s, _, _ in rows]
        rss = [r for _, r, _ in rows if r is not None]
        files = [n for _, _, n in rows if n is not None]
        rss_text = f"{max(rss) / 1024:.0f}" if rss else "n/a"
        if scenario == "floor":
            rss_text = "n/a (holds the tree)"
        if files:
            lo, hi = min(files), max(files)
            files_text = f"{lo}" if lo == hi else f"{lo}-{hi}"
            if scenario in FILES_MEANING:
                files_text += f" {FILES_MEANING[scenario]}"
        else:
            files_text = "n/a"
        out.append(f"| {scenario} | {statistics.median(secs):.3f} | "
                   f"{min(secs):.3f}-{max(secs):.3f} | {rss_text} | {files_text} |")
    out.append("")
    noisy = [f"{name} ({max(s for s, _, _ in rows) / min(s for s, _, _ in rows):.1f}x)"
             for name, rows in samples.items()
             if len(rows) >= 3 and min(s for s, _, _ in rows) > 0
             and max(s for s, _, _ in rows) > 1.5 * min(s for s, _, _ in rows)]
    if noisy:
        out.append(f"- noisy: slowest/fastest run differ by more than 1.5x for {', '.join(noisy)}; "
                   "something else was using the disk or CPUs (another build, a large delete)."
                   " Rerun on a quiet machine before drawing conclusions.")

    cold = median("taskpress cold build", samples)
    floor = median("floor", samples)
    hugo = median("Hugo build", samples)
    export = median("Hugo export (Python)", samples)
    nothing = median("taskpress rebuild, nothing changed", samples)
    out.append(f"- taskpress cold / floor: **{ratio(cold, floor)}** (target: at most 1.5)")
    out.append(f"- Hugo build / taskpress cold: **{ratio(hugo, cold)}**; "
               f"(Hugo export + build) / taskpress cold: {ratio((export or 0) + (hugo or 0) if hugo else None, cold)}")
    out.append(f"- rebuild with nothing changed / cold build: {ratio(nothing, cold)}")
    if cold is None and floor and hugo:
        out.append(f"- Hugo build / floor: {ratio(hugo, floor)} (taskpress not measured)")
    out.append(f"- floor: writes the files of {meta.get('floor_source') or 'nothing (no tree)'}; "
               f"checked: {meta.get('floor_verified')}")
    photos = median("photos: taskpress photo phase", samples)
    photo_floor = median("photos: libvips floor", samples)
    if photos is not None and photo_floor:
        out.append(f"- photos: taskpress's photo phase / the libvips floor (Scripts/bench/photo_floor.c): "
                   f"**{ratio(photos, photo_floor)}** ({photos:.3f} s against {photo_floor:.3f} s; "
                   "target: at most 1.15)")
    if meta.get("memory_state"):
        out.append(f"- memory: {meta.get('memory_state')}")
    for scenario in ("cold build", "nothing changed", "one to-do changed"):
        base = median(f"paired: {scenario} (baseline)", samples)
        this = median(f"paired: {scenario} (this build)", samples)
        if base and this:
            out.append(f"- paired, {scenario}: this build / baseline = **{this / base:.3f}** "
                       f"({this:.3f} s against {base:.3f} s, medians of runs alternating which "
                       "binary goes first)")
    first = os.path.join(run, "changed-one-1.txt")
    if os.path.exists(first):
        with open(first, encoding="utf-8") as f:
            lines = [line.rstrip("\n").replace("\t", " ") for line in f]
        shown = ", ".join(f"`{line}`" for line in lines[:8])
        more = f" and {len(lines) - 8} more" if len(lines) > 8 else ""
        out.append(f"- one to-do changed (pk {meta.get('change_pk')}): {len(lines)} files: "
                   f"{shown or 'none'}{more}")
    none = [os.path.join(run, n) for n in sorted(os.listdir(run)) if n.startswith("changed-none-")]
    touched = sum(1 for p in none for _ in open(p, encoding="utf-8"))
    if none:
        out.append(f"- nothing changed: {touched} files written over {len(none)} rebuilds "
                   f"(expected 0)")
    title = median("rewrite: --title rebuild, to-dos only", samples)
    title_cold = median("rewrite: cold build, to-dos only", samples)
    if title and title_cold:
        out.append(f"- `--title` rebuild / cold build into a new folder (to-dos only): "
                   f"**{ratio(title, title_cold)}** ({title:.3f} s against {title_cold:.3f} s; "
                   "target: at most 1.2)")
    if meta.get("rewrite_trash"):
        out.append(f"- {meta.get('rewrite_trash')}")
    if meta.get("rewrite_fs"):
        out.append(f"- {meta.get('rewrite_fs')}")
    out += pages_table(run, samples)
    if scale:
        out += scale_table(scale, meta)
    print("\n".join(out))


if __name__ == "__main__":
    main()
