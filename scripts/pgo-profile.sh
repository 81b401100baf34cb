#!/usr/bin/env bash
# pgo-profile.sh — write cmd/warpgraph/default.pgo, the CPU profile that
# `go build` uses for profile-guided optimisation of the command-line
# binary: one run of each engine path the simulator spends its time in,
# on generated graphs, merged into one profile.
#
#   bash scripts/pgo-profile.sh [GO]
#
# The runs (about five minutes on one core each, one after another):
#   timing, one thread:   PageRank under simdx on rmat:scale=16+perm=1,
#                         BFS under atos:local=on,dedup=off on grid:w=256,h=256
#   timing, two threads:  WCC under bsp on rmat:scale=16+perm=1
#   functional:           PageRank under wseg on rmat:scale=17+perm=1
#   sampled, two threads: SSWP under atos on rmat:scale=16+perm=1
# Every run is validated; a failed one stops the script.
set -eu
GO=${1:-go}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$GO" build -o "$dir/warpgraph" ./cmd/warpgraph
run() {
  local name=$1
  shift
  echo "pgo-profile: $name" >&2
  "$dir/warpgraph" run --target sim --config h100 --heartbeat 0 --cpu-profile "$dir/$name.prof" "$@" >"$dir/$name.out"
}
run pr-simdx --algo pr --scheduler simdx --graph rmat:scale=16+perm=1 --sim-threads 1
run bfs-atos --algo bfs --scheduler atos:local=on,dedup=off --graph grid:w=256,h=256 --sim-threads 1
run wcc-bsp --algo wcc --scheduler bsp --graph rmat:scale=16+perm=1 --sim-threads 2
run pr-functional --algo pr --scheduler wseg --graph rmat:scale=17+perm=1 --sim-mode functional --sim-threads 1
run sswp-sampled --algo sswp --scheduler atos --graph rmat:scale=16+perm=1 --sim-mode sampled --sample-inside=8 --sim-threads 2
"$GO" tool pprof -proto "$dir"/*.prof >cmd/warpgraph/default.pgo
echo "pgo-profile: wrote cmd/warpgraph/default.pgo" >&2
