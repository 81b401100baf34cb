#!/usr/bin/env bash
# rmat18-ranks.sh — cells (an algorithm under a variant) on
# rmat:scale=18+perm=1 on the GPU and in the simulator (h100, full timing),
# for the rank correlation of their times. Run on a GPU host from the
# repository root:
#   OUT=dir bash scripts/rmat18-ranks.sh ./warpgraph SIM_LIMIT_S "ALGO/VARIANT ..."
# writes OUT/hw.jsonl (each cell's --json object, medians of 10 runs after
# 2) and OUT/sim-ALGO-VARIANT.json with .err beside it (the exit status
# last: 124 for a simulation past SIM_LIMIT_S). The simulations run at
# once, the host's CPUs shared among them. The table and Spearman's rho:
# python3 scripts/rmat18-ranks.py OUT.
set -u
WG=${1:?the warpgraph binary}
LIMIT=${2:?the simulation limit in seconds}
CELLS=${3:?cells: ALGO/VARIANT ...}
OUT=${OUT:?set OUT to an output folder}
mkdir -p "$OUT"
date -u; nproc
[ -f /tmp/r18.wgc ] || "$WG" convert --graph rmat:scale=18+perm=1 --out /tmp/r18.wgc >/dev/null || exit 1
: > "$OUT/hw.jsonl"
for cell in $CELLS; do
  "$WG" run --algo "${cell%%/*}" --graph /tmp/r18.wgc --target hw --scheduler "${cell#*/}" --repeat 10 --warmup 2 \
    --json >> "$OUT/hw.jsonl" 2>>"$OUT/hw.err"
done
n=$(echo $CELLS | wc -w)
threads=$(( $(nproc) / n )); [ $threads -lt 1 ] && threads=1
for cell in $CELLS; do
  f="$OUT/sim-${cell//[\/:,=]/_}.json"
  ( timeout "$LIMIT" "$WG" run --algo "${cell%%/*}" --graph /tmp/r18.wgc --target sim --config h100 \
      --scheduler "${cell#*/}" --sim-threads $threads --heartbeat 0 --json > "$f" 2>"$f.err"; echo "exit $?" >> "$f.err" ) &
done
wait
date -u
