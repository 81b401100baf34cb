#!/usr/bin/env python3
"""key-ab-table.py KEY=VALUE RUNS.jsonl... — a Markdown table comparing a
scheduler key's value against the variant without it, from warpgraph run
--json lines (as scripts/device-bench.sh writes them; each variant may run
several times, e.g. in A B B A order). Per (graph, algorithm, variant): the
mean of the runs' median end-to-end and kernel times for each side, their
ratio, and the validation of every run; then the geometric mean of the
ratios. Example: key-ab-table.py launch=grid ab/*.jsonl"""
import json
import math
import sys

key = sys.argv[1]
cells = {}
for path in sys.argv[2:]:
    for line in open(path):
        if not line.strip():
            continue
        r = json.loads(line)
        spec = r.get("variant_spec", r["scheduler"])
        side = key in spec
        base = spec.replace("," + key, "").replace(":" + key, "")
        cell = cells.setdefault((r["graph_name"], r["algorithm"], base), {True: [], False: []})
        cell[side].append(r)


def mean(rows, field):
    return sum(1e3 * r[field] for r in rows) / len(rows)


print(f"| graph | algorithm | variant | runs | end-to-end ms | with {key} | ratio | kernel ms | with {key} | ratio | validation |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
ratios = {"end_to_end_seconds": [], "kernel_seconds": []}
for (graph, algo, base), sides in cells.items():
    without, with_key = sides[False], sides[True]
    if not without or not with_key or any("error" in r for r in without + with_key):
        print(f"| {graph} | {algo} | {base} | – | a run failed or is missing | | | | | | |")
        continue
    row = f"| {graph} | {algo} | {base} | {len(without)}+{len(with_key)} |"
    for field in ("end_to_end_seconds", "kernel_seconds"):
        a, b = mean(without, field), mean(with_key, field)
        ratios[field].append(b / a)
        row += f" {a:.3f} | {b:.3f} | {b / a:.3f} |"
    ok = all(r["validation"]["ok"] for r in without + with_key)
    print(row + (" PASS |" if ok else " FAIL |"))
for field, rs in ratios.items():
    if rs:
        gm = math.exp(sum(map(math.log, rs)) / len(rs))
        print(f"\n{field}: with {key} ÷ without, geometric mean {gm:.3f} over {len(rs)} cells (min {min(rs):.3f}, max {max(rs):.3f})")
