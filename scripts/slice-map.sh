#!/bin/bash
# Maps which 256-byte chunks share an L2 slice, from the rates of
# `warpgraph micro atomic_line_pairs` (a pair of lines on one slice runs at
# about one slice's rate, on two at up to twice it).
#
# Usage: scripts/slice-map.sh WARPGRAPH region|spread N OUT.tsv [micro flags...]
#   region: the pairs between the first lines of every two of the first
#           N chunks, e.g. scripts/slice-map.sh ./warpgraph region 96 map.tsv --target hw
#   spread: from N first lines spread over the first 64 MB (1 KB-aligned),
#           each alone and with the lines 256, 512, 768 and 1,024 bytes on
# OUT.tsv: base_bytes, offset_bytes, G atomics/s, cost (offset 0: the
# first line alone).
set -eu
WG=$1 MODE=$2 N=$3 OUTF=$4
shift 4
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for ((i = 0; i < N; i++)); do
	case $MODE in
	region)
		base=$((i * 256)) offs=0
		for ((d = i + 1; d < N; d++)); do offs="$offs,$(((d - i) * 256))"; done
		;;
	spread) base=$(((i * 1601 % 65536) * 1024)) offs=0,256,512,768,1024 ;;
	*)
		echo "slice-map.sh: mode must be region or spread, got $MODE" >&2
		exit 2
		;;
	esac
	"$WG" micro atomic_line_pairs --warmup 3 --repeat 10 --base "$base" --offsets "$offs" --json "$@" >"$TMP/b$i.json"
	echo "$base" >"$TMP/b$i.base"
done
python3 - "$N" "$OUTF" "$TMP" <<'PY'
import json, sys
n, out, tmp = int(sys.argv[1]), open(sys.argv[2], "w"), sys.argv[3]
out.write("base_bytes\toffset_bytes\tg_atomics_per_s\tcost\n")
for i in range(n):
    base = open(f"{tmp}/b{i}.base").read().strip()
    d = json.load(open(f"{tmp}/b{i}.json"))[0]
    for r in d["rows"]:
        out.write(f"{base}\t{r[0]}\t{r[4]}\t{r[3]}\n")
print("provenance", json.dumps(d["provenance"]))
PY
