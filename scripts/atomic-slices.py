#!/usr/bin/env python3
"""atomic-slices.py — read the atomic-occupancy sweep's hardware half as
ops on the busiest L2 slice.

    python3 scripts/atomic-slices.py results/atomic-occupancy/hw/data.csv

At synchronisation degree d >= 32 each warp's 32 lanes hit one word, and
CTA b's words (1024/d of them, 4 bytes each) sit at b × 4096/d bytes, so
the CTAs' words fill 128-byte lines one after another: a line holds
max(1, 32d/1024) CTAs' words and every lane operation of those CTAs. If a
slice's atomic unit serves its lines' operations one after another at a
fixed cost, the launch lasts (operations on the busiest slice) × cost.
Taking the cost from the degree's largest CTA count whose words all share
one line (at degree 32 that is one CTA, whose single SM may itself be the
limit), the table prints how many lines' operations the busiest slice must
have served for each measured time: 1 where a line is alone on its slice,
about 2 where a 256-byte chunk's two lines share one, more where chunks
collide on a slice.
"""
import csv
import sys


def main(path):
    hw = {}
    for r in csv.DictReader(open(path)):
        if r["status"] == "ok":
            hw[(int(r["ctas"]), int(r["degree"]))] = float(r["global_us"])
    ctas = sorted({c for c, _ in hw})
    print("| degree | CTAs sharing a line | ns per operation (one line) | " +
          " | ".join(f"{c} CTAs" for c in ctas) + " |")
    print("|---|---:|---:|" + "---:|" * len(ctas))
    for d in sorted({d for _, d in hw}):
        if d < 32:
            continue
        per_line = max(1, 32 * d // 1024)  # CTAs whose words share a line
        ops_per_cta = 1024 * 32  # threads × reps
        # the one-line point: the largest CTA count whose words fit one line
        ref = max(c for c in ctas if c <= per_line)
        ns = hw[(ref, d)] * 1e3 / (ref * ops_per_cta)
        cells = []
        for c in ctas:
            ops_per_line = min(c, per_line) * ops_per_cta
            lines = hw[(c, d)] * 1e3 / ns / ops_per_line
            cells.append(f"{lines:.1f}")
        print(f"| {d} | {per_line} | {ns:.3f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "results/atomic-occupancy/hw/data.csv")
