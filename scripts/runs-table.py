#!/usr/bin/env python3
"""runs-table.py RUNS.jsonl [KEY...] — a Markdown table of warpgraph run
--json lines (as scripts/device-bench.sh writes them): graph, algorithm,
scheduler, median end-to-end and kernel time, iterations, launches,
validation, and the named result keys (e.g. overwork colours). Where the
lines carry the run's extra flags (a "flags" field: --block, --delta, ...),
a flags column shows them, the source left out."""
import json
import sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
keys = sys.argv[2:]
flagged = any("flags" in r for r in rows)


def flags(r):
    if not flagged:
        return ""
    f = " ".join(r.get("flags", "").replace("--source 0", "").split())
    return f" {f or '-'} |"


print("| graph | algorithm | scheduler |" + (" flags |" if flagged else "") + " end-to-end ms | kernel ms | iterations | launches | validation |" + "".join(f" {k} |" for k in keys))
print("|---|---|---|" + ("---|" if flagged else "") + "---:|---:|---:|---:|---|" + "---:|" * len(keys))
for r in rows:
    if "error" in r:
        print(f"| {r['graph_name']} | {r['algorithm']} | {r['scheduler']} |{flags(r)} exit {r['exit']}: {r['error'][:80]} | | | | |" + " |" * len(keys))
        continue
    res = r.get("results", {})
    extra = "".join(f" {res[k]:.4g} |" if k in res else " - |" for k in keys)
    ok = "PASS" if r["validation"]["ok"] else "FAIL"
    print(f"| {r['graph_name']} | {r['algorithm']} | {r['scheduler']} |{flags(r)} {1e3 * r['end_to_end_seconds']:.3f} | {1e3 * r['kernel_seconds']:.3f} | {r.get('iterations', 0)} | {r.get('launches', 0)} | {ok} |{extra}")
