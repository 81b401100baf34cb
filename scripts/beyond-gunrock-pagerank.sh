#!/usr/bin/env bash
# beyond-gunrock-pagerank.sh — what bounds PageRank's pulls on one GPU: the
# random-gather rate (micro random_gather) beside PageRank on rmat20 with
# random ids (rmat:scale=20+perm=1, the issue's file) and the same graph in
# hub order (+degsort), and on grid1000. Run on the GPU host from the
# repository root with the binary of `make device-build` (WG overrides it):
#
#   OUT=DIR bash scripts/beyond-gunrock-pagerank.sh
#
# Each PageRank run keeps its per-iteration rows (each pull's kernel time);
# every run is validated against the CPU reference by warpgraph itself.
set -u
OUT=${OUT:-/tmp/out}
WG=${WG:-./.device/warpgraph}
mkdir -p "$OUT"
$WG micro random_gather --target hw --repeat 10 --warmup 2 | tee "$OUT/gather-hw.txt"
declare -A GRAPHS=([rmat20]="rmat:scale=20+perm=1" [rmat20deg]="rmat:scale=20+perm=1+degsort" [grid1000]="grid:w=1000,h=1000")
for name in rmat20 rmat20deg grid1000; do
  [ -f /tmp/$name.wgc ] || $WG convert --graph "${GRAPHS[$name]}" --out /tmp/$name.wgc >/dev/null || exit 1
done
# graph variant [flags...]
CELLS=(
  "rmat20 atos:local=on"
  "rmat20 atos:local=on --block=512"
  "rmat20 simdx"
  "rmat20deg atos:local=on"
  "rmat20deg atos:local=on --block=512"
  "rmat20deg simdx"
  "grid1000 atos:local=on,dedup=off"
  "grid1000 atos:local=on,dedup=off --block=512"
)
for cell in "${CELLS[@]}"; do
  read -r name variant flags <<<"$cell"
  $WG run --algo pr --graph /tmp/$name.wgc --target hw --scheduler "$variant" ${flags:-} \
    --repeat 10 --warmup 2 --timeout 120s --json 2>>"$OUT/err.txt" |
    python3 -c "import json,sys; d=json.load(sys.stdin); d['graph_name']='$name'; d['flags']='${flags:-}'; print(json.dumps(d))" >>"$OUT/pr.jsonl"
done
python3 scripts/runs-table.py "$OUT/pr.jsonl"
