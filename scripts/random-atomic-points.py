#!/usr/bin/env python3
"""random-atomic-points.py — score a simulated configuration on the twelve
random-atomic points of results/random-atomic against the H200.

    python3 scripts/random-atomic-points.py PAIRS.json TABLES.json \\
        [HW_PAIRS.json HW_TABLES.json]

PAIRS.json is `warpgraph micro atomic_line_pairs --target sim ... --offsets
0,128,256,512 --json`, TABLES.json `warpgraph micro random_atomic --target
sim ... --tables 1,2,4,8,16,32,64,4096 --json`, both with 1 M atomics on
the co-resident grid. The hardware files default to the H200's
(results/random-atomic/line-pairs/hw-h200-grid.json and
table-steps/hw-h200-grid.json). Prints simulated ÷ measured time for each
point and the mean absolute percentage error over the twelve.
"""
import json
import sys

PAIRS = ["0", "128", "256", "512"]
TABLES = ["1", "2", "4", "8", "16", "32", "64", "4096"]


def costs(path):
    """First column → cost in µs, for a micro's --json table."""
    table = json.load(open(path))[0]
    col = table["columns"].index("cost")
    out = {}
    for row in table["rows"]:
        value, unit = row[col].split()
        if unit != "µs":
            sys.exit(f"{path}: cost {row[col]!r} is not in µs")
        out[row[0]] = float(value)
    return out


def main(args):
    if len(args) not in (2, 4):
        sys.exit(__doc__)
    hw_pairs = args[2] if len(args) == 4 else "results/random-atomic/line-pairs/hw-h200-grid.json"
    hw_tables = args[3] if len(args) == 4 else "results/random-atomic/table-steps/hw-h200-grid.json"
    errors = []
    for label, sim_path, hw_path, keys in (("pairs (offset B)", args[0], hw_pairs, PAIRS),
                                           ("tables (KB)", args[1], hw_tables, TABLES)):
        sim, hw = costs(sim_path), costs(hw_path)
        missing = [k for k in keys if k not in sim or k not in hw]
        if missing:
            sys.exit(f"random-atomic-points: {label} lacks {', '.join(missing)}")
        ratios = [sim[k] / hw[k] for k in keys]
        errors += [abs(r - 1) for r in ratios]
        print(f"{label}: " + ", ".join(f"{k} {r:.2f}" for k, r in zip(keys, ratios)))
    print(f"MAPE over the {len(errors)} points: {100 * sum(errors) / len(errors):.1f}%")


if __name__ == "__main__":
    main(sys.argv[1:])
