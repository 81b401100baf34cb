#!/usr/bin/env python3
"""transfer-table.py — how a simulator configuration's error carries from
one GPU to another on the same cells.

    python3 scripts/transfer-table.py SIM_A HW_A SIM_B HW_B [NAME_A NAME_B]

Each argument is a sweep's data.csv (simhw or simhw-scale rows). A cell is
(graph, algorithm, variant); only cells valid in all four files count. For
each GPU it prints the kernel-time MAPE and geometric mean of sim ÷ hw,
overall and by scheduler family (the variant's name before ':'), then, over
the cells, Pearson's r of log(sim ÷ hw) on A against B (does the model miss
the same cells on both GPUs?) and the geometric mean of hw_B ÷ hw_A and
sim_B ÷ sim_A (does the model move from A to B as the hardware does?).
"""
import csv
import math
import sys
from collections import defaultdict


def load(path):
    out = {}
    for r in csv.DictReader(open(path)):
        if r["status"] == "ok" and r.get("kernel_us"):
            out[(r["graph"], r["algorithm"], r["variant"])] = float(r["kernel_us"])
    return out


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def pearson(xs, ys):
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sx = math.sqrt(sum((x - mx) ** 2 for x in xs))
    sy = math.sqrt(sum((y - my) ** 2 for y in ys))
    return sxy / (sx * sy) if sx and sy else float("nan")


def main(args):
    if len(args) not in (4, 6):
        sys.exit(__doc__)
    sim_a, hw_a, sim_b, hw_b = (load(p) for p in args[:4])
    name_a, name_b = args[4:6] if len(args) == 6 else ("A", "B")
    cells = sorted(set(sim_a) & set(hw_a) & set(sim_b) & set(hw_b))
    if not cells:
        sys.exit("transfer-table: no cell is valid in all four files")
    groups = defaultdict(list)
    for c in cells:
        groups["all"].append(c)
        groups[c[2].split(":")[0]].append(c)
    print(f"| cells | n | {name_a}: MAPE | {name_a}: sim ÷ hw | {name_b}: MAPE | {name_b}: sim ÷ hw | hw {name_b} ÷ {name_a} | sim {name_b} ÷ {name_a} |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for g in ["all"] + sorted(k for k in groups if k != "all"):
        cs = groups[g]
        ra = [sim_a[c] / hw_a[c] for c in cs]
        rb = [sim_b[c] / hw_b[c] for c in cs]
        print(f"| {g} | {len(cs)} | {100 * sum(abs(r - 1) for r in ra) / len(ra):.0f}% | {gmean(ra):.3f} "
              f"| {100 * sum(abs(r - 1) for r in rb) / len(rb):.0f}% | {gmean(rb):.3f} "
              f"| {gmean([hw_b[c] / hw_a[c] for c in cs]):.3f} | {gmean([sim_b[c] / sim_a[c] for c in cs]):.3f} |")
    la = [math.log(sim_a[c] / hw_a[c]) for c in cells]
    lb = [math.log(sim_b[c] / hw_b[c]) for c in cells]
    print(f"\nOver the {len(cells)} cells: Pearson r of log(sim ÷ hw) on {name_a} against {name_b}: {pearson(la, lb):.3f}.")


if __name__ == "__main__":
    main(sys.argv[1:])
