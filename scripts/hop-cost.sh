#!/usr/bin/env bash
# hop-cost.sh — the cost of one dependent hop of a traversal: BFS and SSSP
# from vertex 0 of paths of several lengths (grid:w=L,h=1: each level one
# vertex, each hop waiting on the last), under each variant, on the GPU or
# in the simulator. The slope of time against length is the variant's cost
# per hop, the floor of a high-diameter graph's run (grid1000: 1,998 hops).
#
#   OUT=DIR [TARGET=hw|sim] [LENGTHS="1000 2000 4000 8000"] [VARIANTS="..."] \
#     bash scripts/hop-cost.sh
#   python3 scripts/hop-cost.py DIR/runs.jsonl
#
# hw runs `warpgraph run --target hw --repeat 10 --warmup 2`, sim `--target
# sim --config h100 --sim-threads 1`; every run validated by warpgraph.
set -u
OUT=${OUT:?set OUT to an output folder}
WG=${WG:-./.device/warpgraph}
TARGET=${TARGET:-hw}
LENGTHS=${LENGTHS:-1000 2000 4000 8000}
VARIANTS=${VARIANTS:-atos:local=on,dedup=off atos:local=off,dedup=off atos bsp simdx:fusion=all,barrier=counter,local=cta}
mkdir -p "$OUT"
date -u; "$WG" --version
case "$TARGET" in
  hw) FLAGS="--target hw --repeat 10 --warmup 2 --timeout 120s"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader ;;
  sim) FLAGS="--target sim --config h100 --sim-threads 1 --timeout 30m" ;;
  *) echo "TARGET is hw or sim" >&2; exit 2 ;;
esac
: > "$OUT/runs.jsonl"
for algo in bfs sssp; do
  for v in $VARIANTS; do
    for n in $LENGTHS; do
      if "$WG" run --algo "$algo" --graph "grid:w=$n,h=1" --source 0 --scheduler "$v" $FLAGS --heartbeat 0 --json > "$OUT/run.json" 2> "$OUT/run.err"; then
        python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":")))' "$OUT/run.json" >> "$OUT/runs.jsonl"
      else
        echo "$algo $v $n: $(tail -1 "$OUT/run.err")" | tee -a "$OUT/failed.txt"
      fi
    done
  done
done
rm -f "$OUT/run.json" "$OUT/run.err"
date -u
