#!/usr/bin/env bash
# gather-fit.sh — micro random_gather on the GPU and on candidate simulated
# configurations side by side (the L2's lookup rate, the DRAM row model),
# on one 16-core GPU host from the repository root with the binary of
# `make device-build` (WG overrides it):
#
#   OUT=DIR bash scripts/gather-fit.sh
#
# The hardware runs first (every table), then the simulations, eight at
# once with two threads each, at GATHERS gathers per table (default 8M:
# about 31 per thread of the H100's co-resident grid) and the tables in
# SIM_TABLES (KB). Each simulation's table goes to $OUT/sim-N.txt, its
# configuration on the file's first line.
set -u
OUT=${OUT:-/tmp/out}
WG=${WG:-./.device/warpgraph}
GATHERS=${GATHERS:-8388608}
SIM_TABLES=${SIM_TABLES:-4096,65536,262144}
mkdir -p "$OUT"
$WG micro random_gather --target hw --elements "$GATHERS" --repeat 10 --warmup 2 >"$OUT/hw.txt" 2>&1
rows="memory.dram_row_bytes=1024+memory.dram_open_rows=32"
CONFIGS=(
  "h100"
  "h100+memory.l2_lookup_cycles=1.25"
  "h100+memory.l2_lookup_cycles=1.25+$rows+memory.dram_row_miss_bytes=32"
  "h100+memory.l2_lookup_cycles=1.25+$rows+memory.dram_row_miss_bytes=64"
  "h100+memory.l2_lookup_cycles=1.25+$rows+memory.dram_row_miss_bytes=96"
  "h100+memory.l2_lookup_cycles=1.25+$rows+memory.dram_row_miss_bytes=128"
  "h100+memory.l2_lookup_cycles=1.35+$rows+memory.dram_row_miss_bytes=64"
  "h100+$rows+memory.dram_row_miss_bytes=64"
)
i=0
for c in "${CONFIGS[@]}"; do
  i=$((i + 1))
  (echo "config $c"; $WG micro random_gather --target sim --config "$c" --elements "$GATHERS" --tables "$SIM_TABLES" --sim-threads 2 --heartbeat 0 2>&1) >"$OUT/sim-$i.txt" &
done
wait
