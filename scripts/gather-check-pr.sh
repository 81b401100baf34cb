#!/usr/bin/env bash
# gather-check-pr.sh — a check the gather fit did not see: PageRank's pulls
# on rmat18 (each a gather of every in-edge's carry from a 1 MB array in
# L2) on the GPU and simulated with the shipped h100 and with
# memory.l2_lookup_cycles=1.25, on one 16-core GPU host from the
# repository root with the binary of `make device-build` (WG overrides it):
#
#   OUT=DIR bash scripts/gather-check-pr.sh
#
# Each run's JSON (per-iteration rows kept) is appended to $OUT/runs.jsonl
# with "graph_name" and "config" added; the two simulations run at once
# with 8 threads each. CONFIGS (two, space-separated) replaces the two
# simulated configurations.
set -u
OUT=${OUT:-/tmp/out}
WG=${WG:-./.device/warpgraph}
V=${V:-atos:local=on}
mkdir -p "$OUT"
[ -f /tmp/rmat18.wgc ] || $WG convert --graph rmat:scale=18+perm=1 --out /tmp/rmat18.wgc >/dev/null || exit 1
tag() { python3 -c "import json,sys; d=json.load(sys.stdin); d['graph_name']='rmat18'; d['config']='$1'; print(json.dumps(d))"; }
$WG run --algo pr --graph /tmp/rmat18.wgc --target hw --scheduler "$V" --repeat 10 --warmup 2 --json 2>>"$OUT/err.txt" | tag hw >>"$OUT/runs.jsonl"
for c in ${CONFIGS:-h100 h100+memory.l2_lookup_cycles=1.25}; do
  ($WG run --algo pr --graph /tmp/rmat18.wgc --target sim --config "$c" --scheduler "$V" --sim-threads 8 --heartbeat 0 --json 2>>"$OUT/err.txt" | tag "$c" >"$OUT/sim-$c.json") &
done
wait
cat "$OUT"/sim-*.json >>"$OUT/runs.jsonl" && rm -f "$OUT"/sim-*.json
