#!/usr/bin/env bash
# Runs every fuzz target of every package, one at a time, for a bounded time
# each: scripts/fuzz-all.sh [duration [packages...]] (duration defaults to
# 60s and takes any `go test -fuzztime` value; packages default to ./...). Exits non-zero on the first finding (go test then prints the
# failing input and writes it under the package's testdata/fuzz/) or when a
# package fails to build. `make fuzz` calls it.
set -euo pipefail

duration="${1:-60s}"
shift || true
packages=("$@")
[ "${#packages[@]}" -gt 0 ] || packages=(./...)
cd "$(dirname "$0")/.."
go="${GO:-go}"

# `go test -list` prints each package's matching tests, then a line
# "ok <package> <time>"; pair the names with the package that follows them.
if ! listing="$("$go" test -run '^$' -list '^Fuzz' "${packages[@]}" 2>&1)"; then
	printf '%s\n' "$listing" >&2
	echo "fuzz-all: listing the fuzz targets failed" >&2
	exit 1
fi
targets=()
pending=()
while IFS= read -r line; do
	case "$line" in
	Fuzz*)
		pending+=("$line")
		;;
	ok*)
		pkg="$(awk '{print $2}' <<<"$line")"
		for name in "${pending[@]+"${pending[@]}"}"; do
			targets+=("$pkg $name")
		done
		pending=()
		;;
	esac
done <<<"$listing"

if [ "${#targets[@]}" -eq 0 ]; then
	echo "fuzz-all: no fuzz targets found" >&2
	exit 1
fi

echo "fuzz-all: ${#targets[@]} targets, $duration each"
# The targets include FuzzParseSpec (graph specs) and FuzzConfigOverride
# (inline configuration overrides), which parse only, for over 10^6
# executions in 2 minutes on two cores; the summary gives every count.
summary=()
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for target in "${targets[@]}"; do
	read -r pkg name <<<"$target"
	echo "=== $name ($pkg)"
	if ! "$go" test -run '^$' -fuzz "^${name}\$" -fuzztime "$duration" -fuzzminimizetime 5s "$pkg" 2>&1 | tee "$log"; then
		echo "fuzz-all: $name in $pkg found a failure (see above)" >&2
		exit 1
	fi
	# The last progress line holds the count: "fuzz: elapsed: 60s, execs: 123 (2/sec), ...".
	execs="$(grep -o 'execs: [0-9]*' "$log" | tail -1 | awk '{print $2}')"
	summary+=("$(printf '%-22s %-45s %12s executions' "$name" "$pkg" "${execs:-?}")")
done
echo "fuzz-all: no findings; executions in $duration each:"
printf '  %s\n' "${summary[@]}"
