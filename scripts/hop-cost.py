#!/usr/bin/env python3
"""Cost per hop from hop-cost.sh's runs: for each (algorithm, variant),
the least-squares slope of kernel and end-to-end time against the path's
length, with the times per length."""
import json
import sys
from collections import defaultdict


def slope(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else float("nan")


def main(path):
    cells = defaultdict(list)
    for line in open(path):
        r = json.loads(line)
        if not r["validation"]["ok"]:
            sys.exit(f"{r['algorithm']} {r['scheduler']} {r['graph']}: not validated")
        n = r["vertices"]
        cells[(r["algorithm"], r["scheduler"])].append((n, r["kernel_seconds"] * 1e6, r["end_to_end_seconds"] * 1e6))
    print("| algorithm | variant | kernel µs per hop | end-to-end µs per hop | kernel µs by length |")
    print("|---|---|---:|---:|---|")
    for (algo, variant), rows in sorted(cells.items()):
        rows.sort()
        xs = [n - 1 for n, _, _ in rows]
        k = slope(xs, [r[1] for r in rows]) if len(rows) > 1 else float("nan")
        e = slope(xs, [r[2] for r in rows]) if len(rows) > 1 else float("nan")
        by = ", ".join(f"{n}: {kt:,.1f}" for n, kt, _ in rows)
        print(f"| {algo} | `{variant}` | {k:.3f} | {e:.3f} | {by} |")


if __name__ == "__main__":
    main(sys.argv[1])
