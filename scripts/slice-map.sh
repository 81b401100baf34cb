#!/bin/bash
# Maps which 256-byte chunks of a table share an L2 slice, from the rates
# of `warpgraph micro atomic_line_pairs` between the first lines of every
# pair of the first CHUNKS chunks (a pair on one slice runs at about one
# slice's rate, on two at up to twice it).
#
# Usage: scripts/slice-map.sh WARPGRAPH CHUNKS OUT.tsv [micro flags...]
#   e.g. scripts/slice-map.sh ./warpgraph 128 map.tsv --target hw
# OUT.tsv: base_bytes, offset_bytes, G atomics/s, cost (offset 0: the
# base line alone).
set -eu
WG=$1 N=$2 OUTF=$3
shift 3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for ((c = 0; c < N; c++)); do
	offs=0
	for ((d = c + 1; d < N; d++)); do offs="$offs,$(((d - c) * 256))"; done
	"$WG" micro atomic_line_pairs --warmup 3 --repeat 10 --base $((c * 256)) --offsets "$offs" --json "$@" >"$TMP/b$c.json"
done
python3 - "$N" "$OUTF" "$TMP" <<'PY'
import json, sys
n, out, tmp = int(sys.argv[1]), open(sys.argv[2], "w"), sys.argv[3]
out.write("base_bytes\toffset_bytes\tg_atomics_per_s\tcost\n")
for c in range(n):
    d = json.load(open(f"{tmp}/b{c}.json"))[0]
    for r in d["rows"]:
        out.write(f"{c * 256}\t{r[0]}\t{r[4]}\t{r[3]}\n")
print("provenance", json.dumps(d["provenance"]))
PY
