#!/usr/bin/env bash
# simhw-scale-picks.sh — the cells of `sweep simhw-scale` to simulate,
# picked from its hardware half as the cross-check-at-scale issue asks:
# at 2^18 vertices (rmat18, grid512, er18, regular18) every algorithm
# under bsp and the three fastest variants (by kernel time) of each
# scheduler family (the variant's name before ':'); at 2^20 (rmat20,
# grid1000, er20, regular20) bsp and each family's fastest. Only
# validated points count.
#
#   bash scripts/simhw-scale-picks.sh results/simhw-scale/hw/data.csv > picks.tsv
#
# One TSV line per picked cell: graph, algorithm, variant, kernel µs,
# rank in its family; then, as comments, one `warpgraph sweep simhw-scale
# --target sim --points ...` filter per (graph, algorithm).
set -eu
python3 - "${1:?usage: simhw-scale-picks.sh HW_DATA_CSV}" <<'PY'
import csv, sys
from collections import defaultdict
large = {"rmat20", "grid1000", "er20", "regular20"}
groups = defaultdict(lambda: defaultdict(list))
for r in csv.DictReader(open(sys.argv[1])):
    if r["status"] != "ok" or not r["kernel_us"]:
        continue
    family = r["variant"].split(":")[0]
    groups[(r["graph"], r["algorithm"])][family].append((float(r["kernel_us"]), r["variant"]))
print("graph\talgorithm\tvariant\tkernel_us\trank_in_family")
filters = []
for (graph, algo) in sorted(groups):
    keep = 1 if graph in large else 3
    picked = []
    for family, cells in sorted(groups[(graph, algo)].items()):
        cells.sort()
        n = len(cells) if family == "bsp" else keep
        for rank, (us, variant) in enumerate(cells[:n], 1):
            picked.append(variant)
            print(f"{graph}\t{algo}\t{variant}\t{us:.3f}\t{rank}")
    filters.append(f"# --points 'graph={graph};algorithm={algo};variant=" + "|".join(picked) + "'")
print("\n".join(filters))
PY
