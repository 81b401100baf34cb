#!/usr/bin/env bash
# atos-grid-anchors.sh WARPGRAPH — Atos's persistent workers on the GPU at
# several grids (--grid 0 is the scheduler's own, then 528, 264, 132 and 0
# again): grid1000 BFS, SSSP, SSWP, WCC and PageRank under
# atos:local=on,dedup=off and rmat20 SSSP and PageRank under atos:local=on,
# traversals from vertex 0, each the median of 10 whole runs after 2
# warm-ups. Appends "graph algorithm variant grid end-to-end-ms kernel-ms
# validated" lines to $OUT/mesh.txt.
set -u
WG=${1:?warpgraph binary}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
"$WG" convert --graph grid:w=1000,h=1000 --out /tmp/grid1000.wgc >/dev/null || exit 1
"$WG" convert --graph rmat:scale=20+perm=1 --out /tmp/rmat20.wgc >/dev/null || exit 1
run() { # graph algorithm variant grid
  src=""; case $2 in bfs|sssp|sswp) src="--source 0";; esac
  "$WG" run --algo "$2" --graph "/tmp/$1.wgc" --target hw --scheduler "$3" $src --grid "$4" --repeat 10 --warmup 2 --timeout 60s --json 2>/dev/null |
    python3 -c "import sys,json; d=json.load(sys.stdin); print('$1 $2 $3 grid=$4', round(d['end_to_end_seconds']*1e3,4), round(d['kernel_seconds']*1e3,4), d['validation']['ok'])" >> "$OUT/mesh.txt" ||
    echo "$1 $2 $3 grid=$4 FAIL" >> "$OUT/mesh.txt"
}
for G in 0 528 264 132 0; do
  for a in bfs sssp sswp wcc pr; do run grid1000 $a atos:local=on,dedup=off $G; done
  for a in sssp pr; do run rmat20 $a atos:local=on $G; done
done
