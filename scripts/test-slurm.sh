#!/usr/bin/env bash
# make test-slurm: the Slurm integration test of warpgraph sweep.
#
# It installs Slurm and MUNGE if they are missing (Debian: apt-get), starts
# munged, slurmctld and slurmd in the foreground with a one-node
# configuration under a temporary folder, submits a 4-task job array of a
# small simulator sweep (warpgraph sweep --slurm, sbatch --wait), merges the
# shards (warpgraph sweep merge), and checks that the merged data.csv equals
# the one of the same sweep run without Slurm: the same rows in the same
# order (by point key, in sweep order), every simulated statistic exactly,
# with only the host's columns (wall time, machine, date) cut off.
#
# Without CI=true it skips (exit 0) where Slurm cannot be installed or
# started; with CI=true that is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
SWEEP=(atomics --target sim --config tiny --param reps=8)
SHARDS=4

skip_or_fail() {
  if [ "${CI:-}" = "true" ]; then
    echo "test-slurm: FAIL: $*" >&2
    exit 1
  fi
  echo "test-slurm: SKIP: $* (set CI=true to make this a failure)" >&2
  exit 0
}

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
  else
    skip_or_fail "Slurm needs root (to install it and to run slurmd), and sudo is not available"
  fi
fi

# --- install -----------------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  command -v apt-get >/dev/null || skip_or_fail "Slurm is not installed and there is no apt-get to install it"
  echo "test-slurm: installing slurmctld slurmd slurm-client munge"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq || skip_or_fail "apt-get update failed"
  $SUDO apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null ||
    skip_or_fail "apt-get install slurmctld slurmd slurm-client munge failed"
fi

WORK=$(mktemp -d /tmp/warpgraph-slurm.XXXXXX)
PIDS=()
cleanup() {
  local status=$?
  for pid in "${PIDS[@]}"; do
    $SUDO kill "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  if [ "$status" -ne 0 ]; then
    for log in "$WORK"/*.log "$WORK"/*.out; do
      [ -f "$log" ] && { echo "--- $log (last 20 lines)"; tail -20 "$log"; } >&2
    done
    echo "test-slurm: kept $WORK for a look" >&2
  else
    rm -rf "$WORK"
  fi
  exit "$status"
}
trap cleanup EXIT

# --- the binary the jobs run ------------------------------------------------
echo "test-slurm: building warpgraph"
$GO build -o "$WORK/warpgraph" ./cmd/warpgraph
BIN=$WORK/warpgraph

# --- MUNGE (authentication between the Slurm daemons and clients) ------------
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  $SUDO mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
  if [ ! -s /etc/munge/munge.key ]; then
    $SUDO dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  $SUDO chown munge:munge /etc/munge /etc/munge/munge.key /run/munge /var/lib/munge /var/log/munge
  $SUDO chmod 0700 /etc/munge /var/lib/munge /var/log/munge
  $SUDO chmod 0755 /run/munge
  $SUDO chmod 0400 /etc/munge/munge.key
  $SUDO runuser -u munge -- munged --foreground >"$WORK/munged.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 50); do
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
    sleep 0.2
  done
  munge -n 2>/dev/null | unmunge >/dev/null 2>&1 || skip_or_fail "munged did not start (see $WORK/munged.log)"
fi

# --- a one-node cluster ------------------------------------------------------
HOST=$(hostname -s)
mkdir -p "$WORK/state" "$WORK/spool"
export SLURM_CONF=$WORK/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=warpgraph-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
$SUDO env SLURM_CONF="$SLURM_CONF" slurmctld -D -c >"$WORK/slurmctld.out" 2>&1 &
PIDS+=($!)
$SUDO env SLURM_CONF="$SLURM_CONF" slurmd -D >"$WORK/slurmd.out" 2>&1 &
PIDS+=($!)
state=""
for _ in $(seq 150); do
  state=$(sinfo -h -N -o %T 2>/dev/null | head -1 || true)
  [ "$state" = "idle" ] && break
  sleep 0.2
done
[ "$state" = "idle" ] || skip_or_fail "the one-node Slurm did not come up (node state '${state:-none}'; logs in $WORK)"
echo "test-slurm: $(sbatch --version): slurmctld and slurmd up, node $HOST idle with $(nproc) CPUs"

# --- the sweep, without and with Slurm --------------------------------------
echo "test-slurm: warpgraph sweep ${SWEEP[*]} (unsharded)"
"$BIN" sweep "${SWEEP[@]}" --out "$WORK/whole" >"$WORK/whole.out" 2>&1 || { cat "$WORK/whole.out" >&2; exit 1; }

"$BIN" sweep "${SWEEP[@]}" --slurm --shards "$SHARDS" --out "$WORK/slurm"
echo "test-slurm: sbatch --wait $WORK/slurm/sweep.sbatch"
start=$(date +%s)
sbatch --wait "$WORK/slurm/sweep.sbatch" || {
  cat "$WORK"/slurm/slurm-*.out >&2 || true
  echo "test-slurm: FAIL: the job array failed" >&2
  exit 1
}
echo "test-slurm: the $SHARDS-task array finished in $(($(date +%s) - start)) s"
outs=$(ls "$WORK"/slurm/slurm-*_*.out | wc -l)
[ "$outs" -eq "$SHARDS" ] || { echo "test-slurm: FAIL: $outs task logs, want $SHARDS" >&2; exit 1; }

shopt -s nullglob
shards=("$WORK"/slurm/shard-*-of-$SHARDS)
[ "${#shards[@]}" -eq "$SHARDS" ] || { echo "test-slurm: FAIL: ${#shards[@]} shard folders, want $SHARDS" >&2; exit 1; }
"$BIN" sweep merge "${shards[@]}" --out "$WORK/slurm"

# --- compare -----------------------------------------------------------------
# The last three columns are wall_seconds, machine and date (no commas in
# them); everything before them must match exactly.
stable() { sed -E 's/(,[^,]*){3}$//' "$1"; }
header=$(head -1 "$WORK/whole/data.csv")
case "$header" in
  *,wall_seconds,machine,date) ;;
  *) echo "test-slurm: FAIL: data.csv does not end in wall_seconds,machine,date: $header" >&2; exit 1 ;;
esac
rows=$(($(wc -l <"$WORK/whole/data.csv") - 1))
if ! diff <(stable "$WORK/whole/data.csv") <(stable "$WORK/slurm/data.csv") >"$WORK/diff.txt"; then
  echo "test-slurm: FAIL: the merged CSV differs from the unsharded run's:" >&2
  head -40 "$WORK/diff.txt" >&2
  exit 1
fi
if tail -n +2 "$WORK/slurm/data.csv" | grep -v -q ',ok,'; then
  echo "test-slurm: FAIL: a point failed or did not validate" >&2
  exit 1
fi
echo "test-slurm: PASS: $rows points from $SHARDS Slurm array tasks, merged, equal the unsharded run (all but wall time, machine and date, in the same order)"
