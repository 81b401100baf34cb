#!/usr/bin/env python3
"""rmat18-ranks.py OUT — the table of scripts/rmat18-ranks.sh's cells:
each cell's H100 kernel and end-to-end medians beside its simulated
kernel time, cycles and the simulation's wall time (or its limit), and,
per algorithm, Spearman's rho between the hardware's and the simulator's
kernel times over the cells both finished."""
import glob
import json
import os
import sys

out = sys.argv[1]
hw = {}
text, at, decoder = open(os.path.join(out, "hw.jsonl")).read(), 0, json.JSONDecoder()
while text[at:].strip():  # one --json object per cell, each over several lines
    at += len(text[at:]) - len(text[at:].lstrip())
    r, at = decoder.raw_decode(text, at)
    hw[(r["algorithm"], r["scheduler"])] = r
sim = {}
for path in sorted(glob.glob(os.path.join(out, "sim-*.json"))):
    try:
        r = json.load(open(path))
        sim[(r["algorithm"], r["scheduler"])] = r
    except (json.JSONDecodeError, KeyError):
        pass  # past the limit: its .err ends with the exit status


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va and vb else float("nan")


print("| algorithm | variant | H100 kernel ms (end to end) | simulated kernel ms | simulated cycles | simulation wall s |")
print("|---|---|---:|---:|---:|---:|")
pairs = {}
for key, h in hw.items():
    s = sim.get(key)
    hwcol = f"{1e3 * h['kernel_seconds']:.3f} ({1e3 * h['end_to_end_seconds']:.3f})"
    if s is not None:
        print(f"| {key[0]} | {key[1]} | {hwcol} | {1e3 * s['kernel_seconds']:.3f} | {s.get('cycles', 0):,} | {s['host_seconds']:.1f} |")
        pairs.setdefault(key[0], []).append((h["kernel_seconds"], s["kernel_seconds"]))
    else:
        print(f"| {key[0]} | {key[1]} | {hwcol} | not finished | – | past the limit |")
for algo, p in pairs.items():
    if len(p) >= 2:
        print(f"\n{algo}: Spearman's rho {spearman([x for x, _ in p], [y for _, y in p]):.2f} over {len(p)} cells")
