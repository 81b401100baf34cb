#!/usr/bin/env python3
"""beyond-gunrock-compare.py H100.jsonl H200.jsonl — the speed issue's
final table from two runs of scripts/beyond-gunrock-table.sh (the same
cells in the same order on two GPUs): each cell's variant, Gunrock
essentials' time and the target (from the issue's table), both GPUs' end
to end and kernel medians, their ratio, and whether the target is met."""
import json
import sys

NAMES = {"bfs": "BFS", "sssp": "SSSP", "pr": "PageRank", "wcc": "WCC", "color": "colouring",
         "coreness": "coreness", "bp": "BP"}
# Gunrock essentials on the same generator parameters, ms end to end.
GUNROCK = {("rmat20", "bfs"): "6.39", ("rmat20", "sssp"): "9.97", ("rmat20", "pr"): "7.86",
           ("rmat20", "color"): "19,811", ("rmat20", "coreness"): "932", ("grid1000", "bfs"): "491",
           ("grid1000", "sssp"): "194", ("grid1000", "pr"): "0.822", ("grid1000", "color"): "1.61",
           ("grid1000", "coreness"): "129"}
TARGET = {("rmat20", "bfs"): 0.25, ("rmat20", "sssp"): 1.0, ("rmat20", "pr"): 1.5, ("rmat20", "wcc"): 0.5,
          ("rmat20", "color"): 30, ("rmat20", "coreness"): 30, ("rmat20", "bp"): 10, ("grid1000", "bfs"): 2.0,
          ("grid1000", "sssp"): 3.0, ("grid1000", "pr"): 0.25, ("grid1000", "color"): 0.5,
          ("grid1000", "coreness"): 2, ("rmat22", "bfs"): 0.8}


def rows(path):
    return [json.loads(l) for l in open(path) if l.strip()]


def colours(r):
    return r.get("results", {}).get("colours")


print("| graph | algorithm | variant | Gunrock essentials ms | target ms | H100 ms (kernel) | H200 ms (kernel) | H100 ÷ H200 | target reached |")
print("|---|---|---|---:|---:|---:|---:|---:|---|")
for a, b in zip(rows(sys.argv[1]), rows(sys.argv[2])):
    key = (a["graph_name"], a["algorithm"])
    assert key == (b["graph_name"], b["algorithm"]), "the two files list different cells"
    if "error" in a or "error" in b:
        print(f"| {key[0]} | {NAMES[key[1]]} | `{a['scheduler']}` | failed: {a.get('error') or b.get('error')} |||||")
        continue
    e1, e2 = 1e3 * a["end_to_end_seconds"], 1e3 * b["end_to_end_seconds"]
    target = TARGET.get(key)
    if target is None:
        reached = "–"
    elif e1 <= target and e2 <= target:
        reached = "yes, both"
    elif e2 <= target:
        reached = "H200 only"
    else:
        reached = "no"
    algo = NAMES[key[1]]
    if colours(a) is not None:
        algo += f" ({colours(a):.0f} / {colours(b):.0f} colours)"
    variant = a["scheduler"] + (f" {a['flags']}" if a.get("flags") else "")
    print(f"| {key[0]} | {algo} | `{variant}` | {GUNROCK.get(key, '–')} | {'–' if target is None else f'≤ {target:g}'} "
          f"| {e1:.3f} ({1e3 * a['kernel_seconds']:.3f}) | {e2:.3f} ({1e3 * b['kernel_seconds']:.3f}) | {e1 / e2:.2f} | {reached} |")
