#!/usr/bin/env bash
# test_slurm_cluster.sh — the Slurm harness (tests/support/slurm_cluster.sh)
# runs a real one-node cluster: a 4-task job array sees its shard as
# "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" (what `kiln build --shard`
# will be given) and can run $KILN; a task that exits 3 is reported FAILED
# 3:0; examples/slurm/cook-shards.sbatch, with a stand-in for kiln, passes
# each task its shard and exits with kiln's status; after the stop (or, when
# the shell that started a cluster is killed, after its watchdog's) no
# process of the cluster is left, and no system file of slurm or munge
# changed. Skipped (exit 0) where the cluster cannot run: not root, or
# munge/slurmctld/slurmd/slurm-client missing. About 30 s.
#
# Environment (set by ctest): KILN (the executable), KILN_REPO (the sources),
# KILN_TMP (scratch folder).
set -euo pipefail
# Run inside a Slurm job, the test would hand that job's settings to sbatch.
unset "${!SLURM_@}" "${!SBATCH_@}" "${!SQUEUE_@}" "${!SINFO_@}" "${!SCANCEL_@}"
: "${KILN_REPO:?set KILN_REPO to the kiln sources}"
here=$(cd "$(dirname "$0")" && pwd)
source "$here/harness.sh" test_slurm_cluster
source "$here/../support/slurm_cluster.sh"
source "$here/../support/background.sh"

if ! reason=$(slurm_cluster_available); then
    echo "test_slurm_cluster: skipped: $reason"
    exit 0
fi

# The cluster's folder holds Unix sockets, whose paths are short: a deep
# build folder gets one in /tmp instead (removed at the end).
CLUSTER=$SCRATCH/cluster
own_tmp=""
if [ ${#CLUSTER} -gt 70 ]; then
    own_tmp=$(mktemp -d /tmp/kiln-slurm.XXXXXX)
    CLUSTER=$own_tmp
    echo "note: $SCRATCH is too deep for the cluster's sockets; the cluster is in $CLUSTER"
fi
cleanup() {
    slurm_cluster_stop "$CLUSTER" >/dev/null 2>&1 || true
    if [ -n "$own_tmp" ]; then rm -rf "$own_tmp"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# What the system's slurm and munge own, to see that none of it changes.
system_paths="/etc/slurm /etc/munge /run/munge /var/run/munge /var/log/munge /var/lib/munge
/var/log/slurm /var/lib/slurm /var/spool/slurmd /var/spool/slurmctld /var/spool/slurm /run/slurm"
system_state() {
    local p
    for p in $system_paths; do
        if [ -e "$p" ]; then find "$p" -printf '%p %m %u %s %T@\n' 2>/dev/null; else echo "$p absent"; fi
    done | sort
}
system_state >"$SCRATCH/system.before"

t0=$(now)
if slurm_cluster_start "$CLUSTER" >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"; then status=0; else status=$?; fi
t1=$(now)
check "the cluster starts (node idle)" status_is 0
if [ "$status" -ne 0 ]; then
    finish "test_slurm_cluster"
    exit 1
fi
echo "time: start $(took "$t0" "$t1") s"
check "the clients use the private slurm.conf" test "$SLURM_CONF" = "$(cd "$CLUSTER" && pwd -P)/slurm.conf"
check "one partition, one node" test "$(sinfo -h -o '%P %D %T')" = "test* 1 idle"

# The shards: each task writes what kiln will get as --shard, and runs $KILN.
mkdir -p "$SCRATCH/out"
cat >"$SCRATCH/shard.sbatch" <<'EOF'
#!/bin/bash
out=$OUT/task.$SLURM_ARRAY_TASK_ID
echo "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" >"$out.shard"
"$KILN" --version >"$out.version" 2>&1
echo $? >"$out.version.status"
EOF
t0=$(now)
job=$(cd "$SCRATCH" && OUT=$SCRATCH/out sbatch --parsable --array=0-3 --job-name=shards \
    --output="$SCRATCH/out/slurm-%A_%a.out" "$SCRATCH/shard.sbatch" 2>"$SCRATCH/stderr") || true
check "the array is submitted" test -n "$job"
if slurm_wait_job "$job" 45 >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"; then status=0; else status=$?; fi
t1=$(now)
echo "time: 4-task array $(took "$t0" "$t1") s"
sed 's/^/  | /' "$SCRATCH/stdout"
check "the array's 4 tasks completed" status_is 0
check "slurm_wait_job reports the 4 tasks" \
    test "$(cat "$SCRATCH/stdout")" = "$(printf '%s_%s COMPLETED 0:0\n' "$job" 0 "$job" 1 "$job" 2 "$job" 3)"
kiln_version=$("$KILN" --version 2>&1) || true
shards_ok() {
    local i
    for i in 0 1 2 3; do
        [ "$(cat "$SCRATCH/out/task.$i.shard")" = "$i/4" ] || return 1
    done
    [ "$(cat "$SCRATCH/out"/task.*.shard | wc -l)" -eq 4 ]
}
kiln_ran() {
    local i
    for i in 0 1 2 3; do
        [ "$(cat "$SCRATCH/out/task.$i.version.status")" = 0 ] || return 1
        [ "$(cat "$SCRATCH/out/task.$i.version")" = "$kiln_version" ] || return 1
    done
}
check "each task got its shard, 0/4 .. 3/4" shards_ok
check "each task ran \$KILN --version" kiln_ran
logs=("$SCRATCH/out/slurm-${job}"_*.out)
check "each task had its output file" test "${#logs[@]}" -eq 4

# A task that fails: sbatch --wait returns its status, slurm_wait_job says
# FAILED with its exit code.
cat >"$SCRATCH/fail.sbatch" <<'EOF'
#!/bin/bash
[ "$SLURM_ARRAY_TASK_ID" = 1 ] && exit 3
exit 0
EOF
t0=$(now)
if (cd "$SCRATCH" && sbatch --wait --array=0-1 --job-name=fails --output=/dev/null \
    "$SCRATCH/fail.sbatch") >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"; then status=0; else status=$?; fi
t1=$(now)
echo "time: sbatch --wait of a 2-task array $(took "$t0" "$t1") s"
check "sbatch --wait fails with the failed task" status_is 3
fail_job=$(sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' "$SCRATCH/stdout")
if slurm_wait_job "$fail_job" 20 >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"; then status=0; else status=$?; fi
sed 's/^/  | /' "$SCRATCH/stdout"
check "slurm_wait_job returns 1 for it" status_is 1
check "the task that exited 3 is FAILED 3:0, the other COMPLETED" \
    test "$(cat "$SCRATCH/stdout")" = "$(printf '%s\n' "${fail_job}_0 COMPLETED 0:0" "${fail_job}_1 FAILED 3:0")"

# The example script (examples/slurm/cook-shards.sbatch), with a stand-in
# for kiln until kiln has --shard and --remote-cache: the stand-in records
# its folder and arguments and fails shard 2 (exit 1).
mkdir -p "$SCRATCH/project" "$SCRATCH/stub"
cat >"$SCRATCH/stub/kiln" <<'EOF'
#!/bin/bash
{ pwd; printf '%s\n' "$@"; } >"$STUB_OUT/args.$SLURM_ARRAY_TASK_ID"
[ "$SLURM_ARRAY_TASK_ID" != 2 ]
EOF
chmod +x "$SCRATCH/stub/kiln"
t0=$(now)
example_job=$(cd "$SCRATCH" && KILN="$SCRATCH/stub/kiln" KILN_PROJECT="$SCRATCH/project" \
    KILN_REMOTE_CACHE="https://user:secret@cache.example.com/kiln" STUB_OUT="$SCRATCH/stub" \
    sbatch --parsable --cpus-per-task=1 --mem=100M --output="$SCRATCH/stub/kiln-cook-%A_%a.out" \
    "$KILN_REPO/examples/slurm/cook-shards.sbatch" --preset ship 2>"$SCRATCH/stderr") || true
check "the example script is submitted as it is (--array=0-3)" test -n "$example_job"
if slurm_wait_job "$example_job" 45 >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"; then status=0; else status=$?; fi
t1=$(now)
echo "time: the example's array $(took "$t0" "$t1") s"
sed 's/^/  | /' "$SCRATCH/stdout"
check "the example's tasks exit with kiln's status (shard 2 FAILED 1:0)" \
    test "$(cut -d ' ' -f 2,3 "$SCRATCH/stdout" | tr '\n' ' ')" = \
    "COMPLETED 0:0 COMPLETED 0:0 FAILED 1:0 COMPLETED 0:0 "
example_args_ok() {
    local i args
    for i in 0 1 2 3; do
        args=$(tr '\n' ' ' <"$SCRATCH/stub/args.$i")
        [[ $args == "$SCRATCH/project build --shard $i/4 --remote-cache https://user:secret@cache.example.com/kiln -o /"*" -j 1 --memory-limit 80M --preset ship " ]] || {
            echo "task $i: $args"
            return 1
        }
    done
}
check "the example runs kiln build --shard I/4 --remote-cache URL in the project" example_args_ok
example_log_ok() {
    grep -q "shard 1/4 of $SCRATCH/project on .* -> https://cache.example.com/kiln$" \
        "$SCRATCH/stub/kiln-cook-${example_job}_1.out" &&
        ! grep -q secret "$SCRATCH"/stub/kiln-cook-*.out
}
check "the example's log names the cache without its password" example_log_ok

# A job still running when the cluster stops is cancelled, and its
# processes do not outlive the cluster.
printf '#!/bin/bash\nsleep 300\n' >"$SCRATCH/long.sbatch"
long_job=$(cd "$SCRATCH" && sbatch --parsable --output=/dev/null "$SCRATCH/long.sbatch" 2>"$SCRATCH/stderr") || true
long_running() { [ "$(squeue -h -j "$long_job" -o %T 2>/dev/null)" = RUNNING ]; }
wait_up_to 10 long_running || true
check "a long job runs" long_running

daemons=$(cat "$CLUSTER"/run/*.pid)
t0=$(now)
if slurm_cluster_stop "$CLUSTER" >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"; then status=0; else status=$?; fi
t1=$(now)
echo "time: stop $(took "$t0" "$t1") s"
check "the cluster stops" status_is 0
none_left() { [ -z "$(slurm_cluster_pids "$CLUSTER")" ]; }
daemons_gone() {
    local pid
    for pid in $daemons; do ! _slurm_alive "$pid" || return 1; done
}
check "no daemon of the cluster is left" daemons_gone
check "no process of the cluster is left (nor the long job's sleep)" none_left
if slurm_cluster_stop "$CLUSTER" >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"; then status=0; else status=$?; fi
check "a second stop does nothing" all_true 'status_is 0' "[ ! -s $SCRATCH/stdout ]"

# A shell that started a cluster and was killed (as ctest kills a test that
# timed out, with no trap run) leaves no cluster behind: the watchdog stops it.
t0=$(now)
rm -f "$SCRATCH/started.pids"
(bash -c 'source "$1"; slurm_cluster_start "$2" && cat "$2"/run/*.pid >"$3" && kill -KILL $$' _ \
    "$here/../support/slurm_cluster.sh" "$CLUSTER" "$SCRATCH/started.pids" \
    >"$SCRATCH/stdout" 2>"$SCRATCH/stderr" || true) 2>/dev/null
daemons=$(cat "$SCRATCH/started.pids" 2>/dev/null) || true
check "a second cluster starts in the folder (munged, slurmctld, slurmd, watchdog)" \
    test "$(wc -w <<<"$daemons")" -eq 4
wait_up_to 10 all_true daemons_gone none_left || true
t1=$(now)
echo "time: start, kill -9 of its shell, stopped by the watchdog $(took "$t0" "$t1") s"
check "its shell killed, the watchdog stops it" all_true daemons_gone none_left
check "the watchdog said so" grep -q "is gone: stopping the cluster" "$CLUSTER/log/watchdog.log"

system_state >"$SCRATCH/system.after"
check "no system file of slurm or munge changed" diff "$SCRATCH/system.before" "$SCRATCH/system.after"

finish "test_slurm_cluster"
