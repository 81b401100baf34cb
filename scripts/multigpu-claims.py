#!/usr/bin/env python3
"""multigpu-claims.py — the multi-GPU sweep beside the warp-segmentation
source's claims (communication efficiency of Medusa's ALL 9-15% and
Totem's maximal subset 11-18%, vertex refinement far above and fastest,
warp segmentation 1.21-2.90x over VWC per program).

    python3 scripts/multigpu-claims.py WSEG_DATA.csv [VWC8_DATA.csv]

WSEG_DATA is a `sweep multigpu` data.csv (mapping wseg); VWC8_DATA the same
sweep with `--param mapping=vwc8`. Prints, per configuration (device), the
range and median of each exchange method's communication efficiency on
more than one GPU, how often each of the four exchange methods is the
fastest, and VWC-8's end-to-end and kernel time over warp segmentation's
for the points both hold (same configuration, graph, algorithm, GPUs and
method).
"""
import csv
import statistics
import sys
from collections import defaultdict

EXCHANGES = ["all", "ms", "vr-offline", "vr-online"]


def load(path):
    return [r for r in csv.DictReader(open(path)) if r["status"] == "ok"]


def where(r):
    """The simulated configuration, or on hardware the GPUs (the first
    sweeps' rows name no device)."""
    return r["config"] or r.get("device") or "hardware"


def spread(xs):
    return f"{min(xs):.3g}-{max(xs):.3g} (median {statistics.median(xs):.3g}, {len(xs)} points)"


def main(wseg_path, vwc_path=None):
    rows = load(wseg_path)
    eff = defaultdict(list)
    cells = defaultdict(dict)
    for r in rows:
        if int(r["gpus"]) < 2 or r["method"] not in EXCHANGES:
            continue
        if r["communication_efficiency"]:
            eff[(where(r), r["method"])].append(100 * float(r["communication_efficiency"]))
        cells[(where(r), r["graph"], r["algorithm"], r["gpus"])][r["method"]] = float(r["end_to_end_us"])
    print("communication efficiency (%), two GPUs or more:")
    for (dev, m), xs in sorted(eff.items()):
        print(f"  {dev} {m}: {spread(xs)}")
    wins = defaultdict(lambda: defaultdict(int))
    for (dev, *_), times in cells.items():
        if len(times) == len(EXCHANGES):
            wins[dev][min(times, key=times.get)] += 1
    print("fastest of the four exchange methods (cells):")
    for dev, w in sorted(wins.items()):
        print(f"  {dev}: " + ", ".join(f"{m} {w[m]}" for m in EXCHANGES) + f" of {sum(w.values())}")
    if not vwc_path:
        return
    key = lambda r: (where(r), r["graph"], r["algorithm"], r["gpus"], r["method"])
    wseg = {key(r): r for r in rows}
    e2e, kern = defaultdict(list), defaultdict(list)
    for r in load(vwc_path):
        w = wseg.get(key(r))
        if w is None:
            continue
        e2e[r["algorithm"]].append(float(r["end_to_end_us"]) / float(w["end_to_end_us"]))
        if r["kernel_us"] and w["kernel_us"]:
            kern[r["algorithm"]].append(float(r["kernel_us"]) / float(w["kernel_us"]))
    print("VWC-8 over warp segmentation (x; above 1: warp segmentation faster):")
    for a in sorted(e2e):
        print(f"  {a}: end to end {spread(e2e[a])}; kernels {spread(kern[a])}")
    every = [x for xs in kern.values() for x in xs]
    print(f"  every point's kernels: {spread(every)}")


if __name__ == "__main__":
    main(*sys.argv[1:])
