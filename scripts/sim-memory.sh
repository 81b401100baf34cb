#!/bin/bash
# Peak memory of timing-mode BFS at scale: each graph converted once to
# .wgc, then one `warpgraph run` per graph, alone on the host, under
# /usr/bin/time -f %M and a time limit, validated by warpgraph itself.
#   bash scripts/sim-memory.sh ./warpgraph [variant] [threads] [graph...]
#   variant  scheduler variant (default simdx, the fastest that finished
#            on rmat18 in timing mode: results/sim-scale/README.md)
#   threads  --sim-threads N, or "serial" for the serial engine (default)
#   graph    generator specs (default rmat:scale=22+perm=1)
# Environment: LIMIT (seconds per run, default 3600), OUT (a folder for
# the .wgc files, each run's JSON and cells.tsv, to which every call
# adds its lines; default a temporary one).
# Needs only the binary, bash, GNU time and coreutils; no Go.
#
# One TSV line per cell on stdout (and in OUT/cells.tsv): graph, algo,
# variant, threads, wall s, simulated cycles, peak RSS MB, bytes per edge
# and bytes per simulated thread (both the whole process's peak RSS divided
# by the count), validation (PASS, FAIL, or the exit status of a run that
# did not finish). Simulated threads are the run's resident threads: the
# largest number of CTAs resident at once in any launch
# (counters.max_resident_ctas) times the threads per CTA (--block). Under
# simdx and atos, whose launches are grids of --grid 132 CTAs, that is the
# grid's 132 x 256 threads; bsp sizes its grids to the frontier.
set -u
WG=${1:?usage: sim-memory.sh ./warpgraph [variant] [threads] [graph...]}
VARIANT=${2:-simdx}
THREADS=${3:-serial}
shift $(( $# < 3 ? $# : 3 ))
GRAPHS=("$@")
[ ${#GRAPHS[@]} -eq 0 ] && GRAPHS=("rmat:scale=22+perm=1")
LIMIT=${LIMIT:-3600}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
echo "# $(date -u), $(nproc) CPUs, $("$WG" --version 2>&1 | head -1), out $OUT" >&2
th=""; [ "$THREADS" != "serial" ] && th="--sim-threads $THREADS"
header='graph\talgo\tvariant\tthreads\twall_s\tcycles\tpeak_rss_mb\tbytes_per_edge\tbytes_per_thread\tvalidation\n'
printf "$header"
[ -f "$OUT/cells.tsv" ] || printf "$header" > "$OUT/cells.tsv"
for spec in "${GRAPHS[@]}"; do
  name=$(echo "$spec" | tr -c 'A-Za-z0-9=_.\n-' '_')
  wgc="$OUT/$name.wgc"
  [ -f "$wgc" ] || "$WG" convert --graph "$spec" --out "$wgc" >&2 || exit 1
  json="$OUT/$name-bfs-$VARIANT-$THREADS.json"
  t0=$(date +%s%N)
  timeout "$LIMIT" /usr/bin/time -f "rss_kb %M" -o "$OUT/time.txt" "$WG" run --algo bfs \
    --scheduler "$VARIANT" --graph "$wgc" --target sim --config h100 --grid 132 \
    --json --heartbeat 0 --timeout "${LIMIT}s" $th > "$json" 2> "$OUT/run.err"
  rc=$?
  t1=$(date +%s%N)
  num() { grep -o "\"$1\": *[0-9]*" "$json" | grep -o '[0-9]*$'; }
  cycles=$(num cycles | head -1)
  edges=$(num edges | head -1)
  block=$(num block | head -1)
  ctas=$(num max_resident_ctas | sort -n | tail -1)
  rss_kb=$(grep -o 'rss_kb [0-9]*' "$OUT/time.txt" | grep -o '[0-9]*$')
  ok=$(grep -A1 '"validation"' "$json" | tail -1 | grep -o 'true\|false')
  case "$rc/$ok" in
    0/true) valid=PASS ;;
    */false) valid=FAIL ;;
    *) valid="exit $rc"; [ "$rc" = 124 ] && valid="past ${LIMIT}s" ;;
  esac
  per() { [ -n "$rss_kb" ] && [ -n "$1" ] && [ "$1" -gt 0 ] && echo $(( rss_kb * 1024 / $1 )); }
  threads_sim=""; [ -n "$ctas" ] && [ -n "$block" ] && threads_sim=$(( ctas * block ))
  printf '%s\tbfs\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$spec" "$VARIANT" "$THREADS" \
    "$(printf '%d.%02d' $(( (t1 - t0) / 1000000000 )) $(( (t1 - t0) / 10000000 % 100 )))" "${cycles:--}" \
    "$([ -n "$rss_kb" ] && echo $(( rss_kb / 1024 )))" "$(per "$edges")" "$(per "$threads_sim")" \
    "$valid" | tee -a "$OUT/cells.tsv"
done
