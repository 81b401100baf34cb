#!/bin/bash
# sssp-delta-bench.sh — SSSP's delta-stepping on the GPU: every (graph,
# variant, delta) cell `warpgraph run --algo sssp --target hw --delta D
# --source 0 --repeat 10 --warmup 2 --json`, one JSON line each in
# $OUT/runs.jsonl (per-iteration rows dropped, graph_name and delta added),
# a summary line each on stdout. Run from the repository root on the GPU
# host with the binary of `make device-build`:
#   OUT=dir [WG=./.device/warpgraph] [VARIANTS="..."] [DELTAS="0 32 ..."] \
#     bash scripts/sssp-delta-bench.sh
set -u
WG=${WG:-./.device/warpgraph}
OUT=${OUT:?set OUT to an output folder}
VARIANTS=${VARIANTS:-"simdx:fusion=all,local=cta simdx:fusion=all,filter=atomic,barrier=coop simdx:filter=atomic"}
DELTAS=${DELTAS:-"0 32 128 512 2048"}
mkdir -p "$OUT"
declare -A GRAPHS=([rmat20]="rmat:scale=20+perm=1" [grid1000]="grid:w=1000,h=1000")
for name in rmat20 grid1000; do
  [ -f /tmp/$name.wgc ] || $WG convert --graph "${GRAPHS[$name]}" --out /tmp/$name.wgc >/dev/null || exit 1
  for v in $VARIANTS; do
    for d in $DELTAS; do
      line=$($WG run --algo sssp --graph /tmp/$name.wgc --target hw --scheduler "$v" --delta $d --source 0 \
        --repeat 10 --warmup 2 --timeout 60s --json 2>>"$OUT/err.txt")
      echo "$line" | python3 -c "import json,sys; d=json.load(sys.stdin); d.pop('per_iteration',None); d['graph_name']='$name'; d['delta']=$d; print(json.dumps(d))" >> "$OUT/runs.jsonl" ||
        echo "{\"graph_name\":\"$name\",\"scheduler\":\"$v\",\"delta\":$d,\"error\":\"failed\"}" >> "$OUT/runs.jsonl"
      tail -1 "$OUT/runs.jsonl" | python3 -c "import json,sys; r=json.load(sys.stdin); print(r['graph_name'], r['scheduler'], r['delta'], round(r.get('end_to_end_seconds',0)*1e3,3), r.get('iterations'), r.get('validation',{}).get('ok'))"
    done
  done
done
