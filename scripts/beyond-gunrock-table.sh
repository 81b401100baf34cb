#!/usr/bin/env bash
# beyond-gunrock-table.sh — the speed issue's final table on one GPU: the
# best committed variant of each (graph, algorithm) cell, run on the GPU
# host from the repository root with the binary of `make device-build`
# (WG overrides it):
#
#   OUT=DIR bash scripts/beyond-gunrock-table.sh
#
# It converts rmat:scale=20+perm=1, grid:w=1000,h=1000 and
# rmat:scale=22+perm=1 once to .wgc in /tmp, runs each cell with --repeat
# 10 --warmup 2 (--source 0 for traversals; the cell's own flags, e.g.
# --block 512) and appends each run's JSON, per-iteration rows dropped,
# with "graph_name" and "flags" added, to $OUT/table.jsonl; every run is
# validated against the CPU reference by warpgraph itself. The table is
# `python3 scripts/runs-table.py $OUT/table.jsonl`.
set -u
OUT=${OUT:-/tmp/out}
WG=${WG:-./.device/warpgraph}
TIMEOUT=${TIMEOUT:-120s}
mkdir -p "$OUT"
declare -A GRAPHS=([rmat20]="rmat:scale=20+perm=1" [grid1000]="grid:w=1000,h=1000" [rmat22]="rmat:scale=22+perm=1")
for name in rmat20 grid1000 rmat22; do
  [ -f /tmp/$name.wgc ] || $WG convert --graph "${GRAPHS[$name]}" --out /tmp/$name.wgc >/dev/null || exit 1
done
# graph algorithm variant [flags...]
CELLS=(
  "rmat20 bfs simdx:fusion=all,local=cta"
  "rmat20 sssp simdx"
  "rmat20 pr atos:local=on"
  "rmat20 wcc afforest"
  "rmat20 color atos:local=on,dedup=off"
  "rmat20 coreness simdx:fusion=all,filter=atomic,barrier=coop"
  "rmat20 bp simdx:medium=64,large=1024"
  "grid1000 bfs atos:fetch=8,local=on,dedup=off"
  "grid1000 sssp atos:fetch=8,local=on,dedup=off"
  "grid1000 pr atos:local=on,dedup=off"
  "grid1000 wcc afforest"
  "grid1000 color atos:local=on"
  "grid1000 coreness atos:fetch=8,local=on,dedup=off --block 512"
  "rmat22 bfs simdx:fusion=all"
)
for cell in "${CELLS[@]}"; do
  read -r name algo variant flags <<<"$cell"
  src=""
  case $algo in bfs | sssp | sswp) src="--source 0" ;; esac
  line=$($WG run --algo "$algo" --graph /tmp/$name.wgc --target hw --scheduler "$variant" $src ${flags:-} \
    --repeat 10 --warmup 2 --timeout "$TIMEOUT" --json 2>"$OUT/err.txt")
  status=$?
  if [ -z "$line" ]; then
    msg=$(tr '\n' ' ' <"$OUT/err.txt" | cut -c1-300)
    printf '{"graph_name":"%s","algorithm":"%s","scheduler":"%s","flags":"%s","exit":%d,"error":"%s"}\n' \
      "$name" "$algo" "$variant" "${flags:-}" $status "${msg//\"/\'}" >>"$OUT/table.jsonl"
    continue
  fi
  echo "$line" | python3 -c "import json,sys; d=json.load(sys.stdin); d.pop('per_iteration',None); d['graph_name']='$name'; d['flags']='${flags:-}'; d['exit']=$status; print(json.dumps(d))" >>"$OUT/table.jsonl"
done
python3 scripts/runs-table.py "$OUT/table.jsonl"
