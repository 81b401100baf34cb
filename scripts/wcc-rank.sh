#!/usr/bin/env bash
# wcc-rank.sh — WCC variants on rmat:scale=18+perm=1 on the GPU and in the
# simulator (h100, full timing, the window engine), for the rank
# correlation of their times. Run on a GPU host from the repository root:
#   OUT=dir bash scripts/wcc-rank.sh ./warpgraph [SIM_LIMIT_S]
# writes OUT/hw.jsonl and OUT/sim-*.json (each run's --json).
set -u
WG=${1:-./warpgraph}
LIMIT=${2:-240}
OUT=${OUT:?set OUT to an output folder}
VARIANTS="afforest afforest:skip=off afforest:sample=1 afforest:sample=3 hq:layout=naive,local=off bsp"
mkdir -p "$OUT"
date -u; nproc
"$WG" convert --graph rmat:scale=18+perm=1 --out /tmp/r18.wgc >/dev/null || exit 1
: > "$OUT/hw.jsonl"
for v in $VARIANTS; do
  "$WG" run --algo wcc --graph /tmp/r18.wgc --target hw --scheduler "$v" --repeat 10 --warmup 2 --json >> "$OUT/hw.jsonl" 2>>"$OUT/hw.err"
done
# The simulations at once, the CPUs shared among them.
n=$(echo $VARIANTS | wc -w)
threads=$(( $(nproc) / n )); [ $threads -lt 1 ] && threads=1
for v in $VARIANTS; do
  f="$OUT/sim-${v//[:,=]/_}.json"
  ( timeout "$LIMIT" "$WG" run --algo wcc --graph /tmp/r18.wgc --target sim --config h100 --scheduler "$v" \
      --sim-threads $threads --heartbeat 0 --json > "$f" 2>"$f.err"; echo "exit $?" >> "$f.err" ) &
done
wait
