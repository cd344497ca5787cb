#!/usr/bin/env bash
# scripts/slurm/fleet.sh against a real Slurm, not a mock: a one-node cluster (Debian's
# slurmctld, slurmd and munge, with cons_tres) whose node is in two partitions, started in this
# test's own directory and stopped on exit, pass or fail. Fleets of the tiny test model on the
# CPU: both partitions measured and reported; one job cancelled while pending still leaves a
# report of the other, listing it as not measured; a requested GPU that is unusable here is
# listed with the doctor's verdict; an interrupted target is continued by --resume.
# Exit 77 (skip) only where Slurm cannot be started: not root, or the packages are missing.
set -euo pipefail
bin="$(realpath "$1")"
src="$LAYERBENCH_SOURCE_DIR"
fleet="$src/scripts/slurm/fleet.sh"
tiny="$src/tests/data/models/tiny.json"
source "$src/tests/cli/lib/helpers.bash"

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "not root: slurmd starts jobs as their users, which needs root"
for tool in munged slurmctld slurmd sbatch squeue scontrol scancel sinfo; do
  command -v "$tool" >/dev/null ||
    skip "$tool not found (scripts/setup.sh installs munge, slurmctld, slurmd and slurm-client)"
done

work="$(mktemp -d /tmp/layerbench-slurm.XXXXXX)"
daemons=()
stop_daemons() {
  local rc=$?
  # Jobs first: their slurmstepd processes outlive slurmd.
  if [ -n "$(squeue -h -o %i 2>/dev/null)" ]; then
    scancel --full $(squeue -h -o %i) 2>/dev/null || true
    for _ in $(seq 30); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.5; done
  fi
  for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${daemons[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "$rc" -eq 0 ]; then
    rm -rf "$work"
  else
    echo "test directory kept: $work" >&2
    tail -n 20 "$work"/*.log "$work"/fleet-*/logs/*.out 2>/dev/null >&2 || true
  fi
}
trap stop_daemons EXIT

# Two free TCP ports for slurmctld and slurmd, so a machine's own Slurm is not disturbed.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')

host="$(hostname -s)"
mkdir -p "$work/munge" "$work/state" "$work/spool"
chmod 755 "$work/munge"  # munged wants its socket's folder searchable by all
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$work/munge/munge.key"
export SLURM_CONF="$work/slurm.conf"
# The node as slurmd sees the hardware (CPUs, sockets, cores, memory), reached on loopback.
node_line="$(slurmd -C | head -n 1) NodeAddr=127.0.0.1 State=UNKNOWN"
node="${node_line%% *}"; node="${node#NodeName=}"
cat > "$SLURM_CONF" <<EOF
ClusterName=layerbench-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
MessageTimeout=5
ReturnToService=2
KillWait=5
MinJobAge=600
$node_line
PartitionName=alpha Nodes=$node Default=YES MaxTime=INFINITE State=UP
PartitionName=beta Nodes=$node MaxTime=INFINITE State=UP
EOF

munged --foreground --force --socket="$work/munge/munge.socket" \
  --key-file="$work/munge/munge.key" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munge/munge.seed" 2>>"$work/munged.log" &
daemons+=($!)
for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$work/munge/munge.socket" ] || fail "munged did not start (see $work/munged.log)"
slurmctld -D -c -f "$SLURM_CONF" 2>>"$work/slurmctld.log" &
daemons+=($!)
slurmd -D -f "$SLURM_CONF" 2>>"$work/slurmd.log" &
daemons+=($!)
deadline=$((SECONDS + 30))
until sinfo -h -n "$node" -o %t 2>/dev/null | grep -q idle; do
  for pid in "${daemons[@]}"; do
    kill -0 "$pid" 2>/dev/null || fail "a Slurm daemon exited (logs: $work/*.log)"
  done
  [ "$SECONDS" -lt "$deadline" ] || fail "the node did not come up idle in 30 s"
  sleep 0.5
done
echo "cluster up: node $node in partitions alpha and beta"

tiny_run=(--device cpu --model-file "$tiny" --model tiny --batch 1 --precision fp32 --pass fwd
          --max-time-per-point 0.05 --cpu-roofs skip)
# fleet.sh's printed job ids: "<target>: job <id> ..." and "report: job <id> ...".
job_of() { sed -n "s/^$1: job \([0-9]*\).*/\1/p" "$2"; }

# The unit of the fleet's time limit: the dry-run's plan estimate, printed in the job script.
expect_rc 0 "fleet dry run" "$fleet" --binary "$bin" --targets "partition=alpha;partition=beta" \
  --out "$work/fleet-dry" --dry-run -- "${tiny_run[@]}"
grep -q "^#SBATCH --exclusive" "$work/out" || fail "dry run: jobs are not exclusive"
grep -q "^#SBATCH --dependency=afterany:" "$work/out" || fail "dry run: no afterany report job"
[ ! -e "$work/fleet-dry" ] || fail "dry run created its --out directory"

started=$SECONDS
# A: both partitions measured and reported.
expect_rc 0 "fleet A" "$fleet" --binary "$bin" --targets "partition=alpha;partition=beta" \
  --out "$work/fleet-a" -- "${tiny_run[@]}"
cp "$work/out" "$work/submit-a"
# B: the beta job cancelled while it waits for the node (exclusive jobs queue one at a time).
expect_rc 0 "fleet B" "$fleet" --binary "$bin" --targets "partition=alpha;partition=beta" \
  --out "$work/fleet-b" -- "${tiny_run[@]}"
cp "$work/out" "$work/submit-b"
scancel "$(job_of partition=beta "$work/submit-b")"
# C: a GPU asked for where none is usable: the doctor's verdict is what the report shows.
gpu_here=0
"$bin" doctor >/dev/null 2>&1 && gpu_here=1
if [ "$gpu_here" -eq 0 ]; then
  expect_rc 0 "fleet C" "$fleet" --binary "$bin" --targets "partition=alpha" \
    --out "$work/fleet-c" -- --device gpu --model-file "$tiny" --model tiny --batch 1
  cp "$work/out" "$work/submit-c"
fi
# D: a longer target, cancelled while running (SIGTERM: the run saves an interrupted file).
long_run=(--device cpu --model-file "$tiny" --model tiny --batch 1,2,4,8 --precision fp32
          --pass train --max-time-per-point 0.05 --rounds 1 --cpu-roofs skip)
expect_rc 0 "fleet D" "$fleet" --binary "$bin" --targets "partition=beta" --out "$work/fleet-d" \
  -- "${long_run[@]}"
cp "$work/out" "$work/submit-d"

# wait_for_jobs SECONDS JOB...: until Slurm has none of them pending or running.
wait_for_jobs() {
  local limit=$1; shift
  local ids; ids="$(IFS=,; echo "$*")"
  local deadline=$((SECONDS + limit))
  while [ -n "$(squeue -h -j "$ids" -o %i 2>/dev/null)" ]; do
    [ "$SECONDS" -lt "$deadline" ] || fail "jobs $ids still queued after ${limit}s: $(squeue -h)"
    sleep 1
  done
}

job_d="$(job_of partition=beta "$work/submit-d")"
results_d="$work/fleet-d/results/beta-$node-$job_d.json"
for _ in $(seq 1200); do  # bounded: 120 s
  [ -e "$results_d.journal" ] && [ "$(wc -l < "$results_d.journal")" -ge 3 ] && break
  sleep 0.1
done
[ -e "$results_d.journal" ] || fail "fleet D: no results journal appeared in 120 s"
scancel "$job_d"

all_reports=("$(job_of report "$work/submit-a")" "$(job_of report "$work/submit-b")"
             "$(job_of report "$work/submit-d")")
[ "$gpu_here" -eq 1 ] || all_reports+=("$(job_of report "$work/submit-c")")
wait_for_jobs 180 "${all_reports[@]}"
echo "fleets A-D and their reports done in $((SECONDS - started)) s"

# A: two results files named <target>-<node>-<job>.json, with their provenance.
for part in alpha beta; do
  job="$(job_of "partition=$part" "$work/submit-a")"
  f="$work/fleet-a/results/$part-$node-$job.json"
  [ -e "$f" ] || fail "fleet A: no $f ($(ls "$work/fleet-a/results"))"
  [ -e "$work/fleet-a/results/$part-$node-$job.doctor.json" ] || fail "fleet A: no doctor verdict of $part"
  [ "$(json "$f" "d['status']")" = complete ] || fail "fleet A: $f not complete"
  want="{'name': 'slurm', 'job_id': '$job', 'node': '$node', 'partition': '$part', 'target': 'partition=$part'}"
  got="$(json "$f" "{k: d['context']['scheduler'][k] for k in ('name', 'job_id', 'node', 'partition', 'target')}")"
  [ "$got" = "$want" ] || fail "fleet A: provenance of $f is $got, wanted $want"
  grep -q "(partition $part, node $node)" "$work/fleet-a/report/index.html" ||
    fail "fleet A: report does not label the $part target"
done
[ "$(json "$work/fleet-a/report/not-measured.json" "len(d['targets'])")" = 0 ] ||
  fail "fleet A: something listed as not measured"

# B: a report of alpha; beta listed as not measured, cancelled.
[ "$(ls "$work/fleet-b/results" | grep -c '^alpha-.*[0-9]\.json$')" = 1 ] || fail "fleet B: alpha not measured"
! ls "$work/fleet-b/results" | grep -q '^beta-' || fail "fleet B: the cancelled job left files"
grep -q "(partition alpha, node $node)" "$work/fleet-b/report/index.html" ||
  fail "fleet B: no report of alpha"
[ "$(json "$work/fleet-b/report/not-measured.json" "[(t['target'], 'CANCELLED' in t['reason']) for t in d['targets']]")" \
  = "[('partition=beta', True)]" ] || fail "fleet B: beta not listed as cancelled: $(cat "$work/fleet-b/report/not-measured.json")"
grep -q "Not measured" "$work/fleet-b/report/index.html" || fail "fleet B: no 'Not measured' section"
grep -q "partition=beta" "$work/fleet-b/report/index.html" || fail "fleet B: beta not in the report"

# C: the doctor's verdict of the node, in its results directory and in the report.
if [ "$gpu_here" -eq 0 ]; then
  ls "$work"/fleet-c/results/*.doctor.json >/dev/null || fail "fleet C: no doctor verdict file"
  [ "$(json "$work/fleet-c/report/not-measured.json" "d['targets'][0]['reason'].startswith('No usable GPU')")" = True ] ||
    fail "fleet C: not listed with the doctor's verdict: $(cat "$work/fleet-c/report/not-measured.json")"
  grep -q "No usable GPU" "$work/fleet-c/report/index.html" || fail "fleet C: verdict not in the report"
fi

# D: cancelled mid-run, then --resume continues the same file to completion.
status_d="$(json "$results_d" "d['status']")"
[ "$status_d" != complete ] || fail "fleet D: the cancelled run is complete (cancelled too late?)"
measured_d="$(json "$results_d" "len(d['points'])")"
expect_rc 0 "fleet D resumed" "$fleet" --binary "$bin" --targets "partition=beta" \
  --out "$work/fleet-d" --resume -- "${long_run[@]}"
cp "$work/out" "$work/resubmit-d"
wait_for_jobs 120 "$(job_of report "$work/resubmit-d")"
[ "$(json "$results_d" "d['status']")" = complete ] || fail "fleet D: --resume did not complete $results_d"
[ "$(ls "$work/fleet-d/results" | grep -c '[0-9]\.json$')" = 1 ] ||
  fail "fleet D: --resume started another file: $(ls "$work/fleet-d/results")"
[ "$(json "$results_d" "len(d['points'])")" -gt "$measured_d" ] || fail "fleet D: no points added"
expect_rc 0 "fleet D complete" "$fleet" --binary "$bin" --targets "partition=beta" \
  --out "$work/fleet-d" --resume --dry-run -- "${long_run[@]}"
grep -q "complete in .*not submitted again" "$work/out" || fail "fleet D: a complete target was submitted again"
echo "slurm fleet test passed in $((SECONDS - started)) s of jobs (status at cancel: $status_d, $measured_d points)"
