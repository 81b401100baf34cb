#!/usr/bin/env python3
"""runs-table.py RUNS.jsonl [KEY...] — a Markdown table of warpgraph run
--json lines (as scripts/device-bench.sh writes them): graph, algorithm,
scheduler, median end-to-end and kernel time, iterations, launches,
validation, and the named result keys (e.g. overwork colours)."""
import json
import sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
keys = sys.argv[2:]
print("| graph | algorithm | scheduler | end-to-end ms | kernel ms | iterations | launches | validation |" + "".join(f" {k} |" for k in keys))
print("|---|---|---|---:|---:|---:|---:|---|" + "---:|" * len(keys))
for r in rows:
    if "error" in r:
        print(f"| {r['graph_name']} | {r['algorithm']} | {r['scheduler']} | exit {r['exit']}: {r['error'][:80]} | | | | |" + " |" * len(keys))
        continue
    res = r.get("results", {})
    extra = "".join(f" {res[k]:.4g} |" if k in res else " - |" for k in keys)
    ok = "PASS" if r["validation"]["ok"] else "FAIL"
    print(f"| {r['graph_name']} | {r['algorithm']} | {r['scheduler']} | {1e3 * r['end_to_end_seconds']:.3f} | {1e3 * r['kernel_seconds']:.3f} | {r.get('iterations', 0)} | {r.get('launches', 0)} | {ok} |{extra}")
