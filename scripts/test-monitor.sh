#!/usr/bin/env bash
# make test-monitor: the integration test of `warpgraph run --monitor`,
# akita's web monitor of a simulation, in a real headless browser.
#
# It installs Debian's chromium if it is missing (apt-get, root), starts a
# timing simulation that lasts long enough to watch (BFS on rmat scale 14
# on the simulated h100, about 20 s here) with --monitor --monitor-hold,
# and while it runs:
#   - checks akita's JSON API with curl: the component list names the
#     h100's 132 SMs and the memory system, the engine's time advances, a
#     progress bar names the BFS launch in progress;
#   - pauses the simulation through the API (the page's pause button), so
#     that the browser looks at it mid-run however fast the machine is;
#   - loads the page in `chromium --headless --no-sandbox` (root needs
#     --no-sandbox) with a virtual time budget, so the page's scripts fetch
#     and render, and checks the rendered DOM: akita's page, the component
#     tree (GPU), the paused engine time in the time label, and the
#     launch's progress bar;
#   - continues the simulation, waits for the run to end and validate,
#     checks that --monitor-hold keeps the page up, interrupts the process
#     (Ctrl-C) and checks that it exits with the run's status, 0;
#   - runs the same simulation without --monitor, on the serial engine the
#     monitor runs on (and says so): the cycles must match.
#
# Without CI=true it skips (exit 0) where chromium cannot be installed;
# with CI=true that is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
RUN=(run --algo bfs --graph rmat:scale=14 --target sim --config h100 --heartbeat 0)

fail() {
  echo "test-monitor: FAIL: $*" >&2
  exit 1
}

skip_or_fail() {
  if [ "${CI:-}" = "true" ]; then
    fail "$*"
  fi
  echo "test-monitor: SKIP: $* (set CI=true to make this a failure)" >&2
  exit 0
}

# --- install -----------------------------------------------------------------
browser() {
  command -v chromium || command -v chromium-browser || true
}
if [ -z "$(browser)" ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      SUDO="sudo -n"
    else
      skip_or_fail "chromium is not installed, and installing it needs root or sudo"
    fi
  fi
  command -v apt-get >/dev/null || skip_or_fail "chromium is not installed and there is no apt-get to install it"
  echo "test-monitor: installing chromium (about 80 MB)"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq || skip_or_fail "apt-get update failed"
  $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null ||
    skip_or_fail "apt-get install chromium failed"
fi
CHROMIUM=$(browser)
[ -n "$CHROMIUM" ] || skip_or_fail "chromium is still missing after apt-get install"
command -v curl >/dev/null || skip_or_fail "curl is missing"
echo "test-monitor: $("$CHROMIUM" --version 2>/dev/null | head -1)"

WORK=$(mktemp -d /tmp/warpgraph-monitor.XXXXXX)
PID=""
cleanup() {
  local status=$?
  if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
    kill "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
  fi
  if [ "$status" -ne 0 ]; then
    for log in "$WORK"/run.err "$WORK"/run.out "$WORK"/chromium.err; do
      [ -f "$log" ] && { echo "--- $log (last 20 lines)"; tail -20 "$log"; } >&2
    done
    echo "test-monitor: kept $WORK for a look" >&2
  else
    rm -rf "$WORK"
  fi
  exit "$status"
}
trap cleanup EXIT

echo "test-monitor: building warpgraph"
$GO build -o "$WORK/warpgraph" ./cmd/warpgraph

# --- the simulation ------------------------------------------------------------
echo "test-monitor: warpgraph ${RUN[*]} --monitor --monitor-hold"
start=$(date +%s)
# Job control on for the launch: a background job of a script otherwise
# starts with SIGINT ignored, and warpgraph then leaves it ignored, as
# nohup expects; a terminal's Ctrl-C is what this test sends.
set -m
"$WORK/warpgraph" "${RUN[@]}" --monitor --monitor-hold >"$WORK/run.out" 2>"$WORK/run.err" &
PID=$!
set +m

# wait_for DESCRIPTION SECONDS COMMAND...: polls COMMAND every 0.2 s.
wait_for() {
  local what=$1 seconds=$2
  shift 2
  for _ in $(seq $((seconds * 5))); do
    "$@" && return 0
    kill -0 "$PID" 2>/dev/null || fail "warpgraph exited while waiting for $what"
    sleep 0.2
  done
  fail "no $what after ${seconds}s"
}

wait_for "monitor URL on stderr" 60 grep -q '^monitor: http://' "$WORK/run.err"
URL=$(sed -n 's|^monitor: \(http://127\.0\.0\.1:[0-9]*\)$|\1|p' "$WORK/run.err" | head -1)
[ -n "$URL" ] || fail "stderr has no 'monitor: http://127.0.0.1:PORT' line: $(head -3 "$WORK/run.err")"
echo "test-monitor: the monitor serves $URL"

api() { curl -fsS --max-time 10 "$URL$1"; }
now() { api /api/now | sed -n 's/.*"now":\([0-9.]*\).*/\1/p'; }

api / | grep -q '<title>Akita Monitoring Tool</title>' || fail "$URL/ is not akita's monitor page"

# The BFS is running once a launch's progress bar is up.
has_bfs_bar() { api /api/progress 2>/dev/null | grep -q '"name":"launch [0-9]*: bfs_'; }
wait_for "BFS launch on /api/progress" 120 has_bfs_bar

components=$(api /api/list_components)
for name in 'GPU.SM[0]' 'GPU.SM[131]' 'GPU.Mem.L2[0]' 'GPU.Mem.DRAM[0]' 'GPU.Mem.Atomic[0]'; do
  grep -qF "\"$name\"" <<<"$components" || fail "/api/list_components lacks $name"
done
sms=$(grep -o '"GPU\.SM\[[0-9]*\]"' <<<"$components" | wc -l)
[ "$sms" -eq 132 ] || fail "/api/list_components names $sms SMs, want the h100's 132"

t1=$(now)
sleep 1
t2=$(now)
awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(b > a) }' || fail "the engine's time does not advance while the BFS runs ($t1, then $t2)"
echo "test-monitor: API: $sms SMs and the memory system listed; simulated time $t1 s, then $t2 s a second later"

# --- pause, and look with the browser ------------------------------------------
api /api/pause >/dev/null
sleep 0.5
paused=$(now)
sleep 1
[ "$(now)" = "$paused" ] || fail "the engine's time moved while paused"
[ ! -s "$WORK/run.out" ] || fail "the run ended before the test could pause it: use a longer run"
bar=$(api /api/progress | grep -o '"name":"launch [0-9]*: bfs_[^"]*"' | head -1 | cut -d'"' -f4)
echo "test-monitor: paused at simulated time $paused s in \"$bar\"; loading the page in headless chromium"

"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
  --user-data-dir="$WORK/profile" --virtual-time-budget=5000 --dump-dom "$URL/" \
  >"$WORK/dom.html" 2>"$WORK/chromium.err" || fail "chromium --dump-dom failed"

dom=$WORK/dom.html
grep -q '<title>Akita Monitoring Tool</title>' "$dom" || fail "the DOM is not akita's page"
# The page shows /api/now's number as JavaScript prints it.
label=$(sed -n 's|.*<label id="now-label"[^>]*>\([^<]*\)</label>.*|\1|p' "$dom" | head -1)
awk -v a="$label" -v b="$paused" 'BEGIN { d = a - b; exit !(a > 0 && d * d < 1e-24) }' ||
  fail "the time label shows '$label', not the paused simulated time $paused"
grep -q '<span>GPU</span>' "$dom" || fail "the component tree does not show GPU"
grep -qF "<label>$bar</label>" "$dom" || fail "the progress bars do not show \"$bar\""
grep -q 'id="mem-usage">[0-9]' "$dom" || fail "the resource monitor shows no memory use"
echo "test-monitor: browser: akita's page rendered the component tree (GPU), the time label $label and the progress bar \"$bar\""

# --- continue, the end of the run, --monitor-hold, Ctrl-C ----------------------
api /api/continue >/dev/null
wait_for "end of the run (--monitor-hold notice)" 600 grep -q '^monitor: the run has ended' "$WORK/run.err"
grep -q '^validation .*PASS' "$WORK/run.out" || fail "the run did not validate: $(grep validation "$WORK/run.out")"
cycles=$(awk '$1 == "cycles" { print $2 }' "$WORK/run.out")
api / | grep -q 'Akita Monitoring Tool' || fail "--monitor-hold: the page is gone after the run"
kill -INT "$PID"
status=0
wait "$PID" || status=$?
PID=""
[ "$status" -eq 0 ] || fail "warpgraph exited with status $status after Ctrl-C, want the run's 0"
took=$(($(date +%s) - start))

# --- the same run unwatched ----------------------------------------------------
echo "test-monitor: the same run without --monitor, on the serial engine"
grep -q 'runs on the serial timing engine' "$WORK/run.err" || fail "stderr does not say the monitored run is on the serial engine: $(head -3 "$WORK/run.err")"
"$WORK/warpgraph" "${RUN[@]}" --sim-engine serial >"$WORK/plain.out" 2>&1 || fail "the unwatched run failed: $(tail -3 "$WORK/plain.out")"
plain=$(awk '$1 == "cycles" { print $2 }' "$WORK/plain.out")
[ -n "$cycles" ] && [ "$cycles" = "$plain" ] || fail "watched (and paused) the run took $cycles cycles, unwatched $plain"
echo "test-monitor: PASS: the watched run validated in $took s with the same $cycles cycles as the unwatched one, the page stayed up under --monitor-hold, and Ctrl-C ended it with status 0"
