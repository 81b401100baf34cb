#!/usr/bin/env bash
# atos-launch-scale.sh OLD NEW — Atos's warp workers on rmat18 and grid512
# on the GPU with two warpgraph binaries in the order OLD NEW OLD: BFS and
# SSSP from vertex 0, WCC and PageRank, each the median of 10 whole runs
# after 2 warm-ups. Appends "binary graph algorithm variant end-to-end-ms
# kernel-ms validated" lines to $OUT/scale.txt.
set -u
OLD=${1:?old binary}
NEW=${2:?new binary}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
"$NEW" convert --graph rmat:scale=18+perm=1 --out /tmp/rmat18.wgc >/dev/null || exit 1
"$NEW" convert --graph grid:w=512,h=512 --out /tmp/grid512.wgc >/dev/null || exit 1
for b in old new old; do
  bin=$OLD; [ $b = new ] && bin=$NEW
  for g in rmat18 grid512; do
    for v in atos:worker=warp,fetch=128 atos:worker=warp; do
      for a in bfs sssp wcc pr; do
        src=""; [ $a = bfs ] || [ $a = sssp ] && src="--source 0"
        "$bin" run --algo $a --graph /tmp/$g.wgc --target hw --scheduler $v $src --repeat 10 --warmup 2 --timeout 60s --json 2>/dev/null |
          python3 -c "import sys,json; d=json.load(sys.stdin); print('$b $g $a $v', d['end_to_end_seconds']*1e3, d['kernel_seconds']*1e3, d['validation']['ok'])" >> "$OUT/scale.txt" ||
          echo "$b $g $a $v FAIL" >> "$OUT/scale.txt"
      done
    done
  done
done
