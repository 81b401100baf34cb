#!/usr/bin/env bash
# engine-ab.sh — two warpgraph binaries on rmat18 PageRank in full timing,
# one run at a time in the order given, each alone on the host with 16
# threads, so that a change to the simulator's engine is timed against
# the binary before it on the same host in the same batch:
#
#   bash scripts/engine-ab.sh OLD NEW "simdx:old simdx:new atos:new atos:old ..."
#
# Each run is `warpgraph run --algo pr --scheduler S --graph rmat18.wgc
# --target sim --config h100 --grid 132 --sim-threads 16 --json`
# (rmat:scale=18+perm=1, converted once to $G, default /tmp/rmat18.wgc).
# One TSV line per run on stdout: the binary's file name, the scheduler,
# wall seconds, simulated cycles and whether the result validated (the
# two binaries' cycles must agree where the engine change keeps every
# figure).
set -u
OLD=${1:?usage: engine-ab.sh OLD NEW RUNS}
NEW=${2:?new binary}
RUNS=${3:?runs, e.g. "simdx:old simdx:new"}
G=${G:-/tmp/rmat18.wgc}
[ -f "$G" ] || "$OLD" convert --graph rmat:scale=18+perm=1 --out "$G" >/dev/null || exit 1
printf 'binary\tscheduler\twall_s\tcycles\tvalid\n'
for run in $RUNS; do
  s=${run%%:*}
  case ${run#*:} in old) b=$OLD ;; new) b=$NEW ;; *) echo "engine-ab.sh: $run: old or new" >&2; exit 2 ;; esac
  out=$(mktemp)
  start=$(date +%s.%N)
  "$b" run --algo pr --scheduler "$s" --graph "$G" --target sim --config h100 --grid 132 \
    --sim-threads 16 --heartbeat 0 --json >"$out" 2>"$out.err"
  end=$(date +%s.%N)
  python3 - "$out" "$(basename "$b")" "$s" "$start" "$end" <<'PY'
import json, sys
path, name, sched, start, end = sys.argv[1:]
d = json.load(open(path))
print("\t".join([name, sched, "%.1f" % (float(end) - float(start)), str(d["cycles"]), str(d["validation"]["ok"])]))
PY
  rm -f "$out" "$out.err"
done
