#!/bin/bash
# The window engine at 16 threads against its one thread and the serial
# engine: each cell alone on the host, one after the other, timing mode on
# h100 with 132 CTAs, validated by warpgraph itself.
#   OUT=dir bash scripts/sim-threads-scale.sh ./warpgraph
# writes OUT/cells.tsv (wall ms, cycles, validation, peak RSS, exit status)
# and OUT/cells-json.tar.gz (each run's --json).
set -u
WG=${1:-./warpgraph}
OUT=${OUT:?set OUT to an output folder}
mkdir -p "$OUT"
date -u; nproc; lscpu | grep "Model name"
"$WG" convert --graph rmat:scale=16+perm=1 --out /tmp/r16.wgc >/dev/null
"$WG" convert --graph rmat:scale=18+perm=1 --out /tmp/r18.wgc >/dev/null
echo -e "graph\talgo\tvariant\tengine\twall_ms\tcycles\tvalid\trss_kb\trc" > "$OUT/cells.tsv"
cell() { # threads graph algo variant timeout_s ("serial": no --sim-threads)
  local th=""; [ "$1" != "serial" ] && th="--sim-threads $1"
  local json="$OUT/$2-$3-$4-$1.json"
  local t0=$(date +%s%N)
  timeout "$5" /usr/bin/time -f "rss_kb %M" "$WG" run --algo "$3" --scheduler "$4" --graph "/tmp/$2.wgc" \
    --target sim --config h100 --grid 132 --json --heartbeat 0 $th > "$json" 2> /tmp/sim-threads-scale.err
  local rc=$?
  local t1=$(date +%s%N)
  local cyc=$(grep -o '"cycles": *[0-9]*' "$json" | head -1 | grep -o '[0-9]*$')
  local ok=$(grep -A1 '"validation"' "$json" | tail -1 | grep -o 'true\|false')
  local rss=$(grep -o 'rss_kb [0-9]*' /tmp/sim-threads-scale.err | grep -o '[0-9]*$')
  echo -e "$2\t$3\t$4\t$1\t$(( (t1 - t0) / 1000000 ))\t$cyc\t$ok\t$rss\t$rc" | tee -a "$OUT/cells.tsv"
}
cell 16 r18 pr atos 150
cell 16 r18 pr simdx 150
cell 16 r16 bfs atos 60
cell 1 r16 bfs atos 90
cell serial r16 bfs atos 90
cell 16 r18 wcc bsp 120
cell 16 r18 bfs atos 60
(cd "$OUT" && tar czf cells-json.tar.gz *.json && rm ./*.json)
