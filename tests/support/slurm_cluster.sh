# slurm_cluster.sh — a private one-node Slurm cluster for tests, sourced as
# `source tests/support/slurm_cluster.sh`.
#
#   slurm_cluster_available      0, or non-zero with the reason on stdout
#   slurm_cluster_start DIR      munged, slurmctld and slurmd, all in DIR;
#                                exports SLURM_CONF=DIR/slurm.conf
#   slurm_cluster_stop DIR       cancels the jobs, stops the daemons (safe
#                                twice, safe from a trap)
#   slurm_wait_job JOBID SECS    waits until a job (array) has left the queue,
#                                prints one line per task, 0 when all completed
#   slurm_cluster_pids DIR       the processes of DIR's cluster still running
#
# Everything lives in DIR: its own munge key and socket, slurm.conf (and the
# plugstack.conf and cgroup.conf Slurm looks for next to it), state, spool,
# pid files and logs. /etc/slurm, /etc/munge, /run/munge and the system's
# munge and slurm services are neither read for configuration nor written:
# munged gets every path on its command line, the daemons get `-f
# DIR/slurm.conf`, the clients SLURM_CONF, and AuthInfo=socket= points
# auth/munge and cred/munge at DIR's munged. The ports are free loopback
# ports of the moment (SlurmctldHost=<hostname -s>(127.0.0.1), the node's
# NodeAddr=127.0.0.1; slurmctld and slurmd still bind every address, which
# Slurm offers no setting against).
#
# It needs root: slurmd starts the jobs as their user, munged and the daemons
# run as root (SlurmUser=root). Tested with Slurm 22.05 and munge 0.5.15
# (Debian 12). No cgroups (proctrack/linuxproc, task/none), no accounting
# (sacct does not work: slurm_wait_job reads `scontrol show job`, and
# jobcomp/filetxt keeps a line per finished job in DIR/log/jobcomp.txt).

_SLURM_SBIN_PATH=/usr/sbin:/sbin:/usr/bin:/bin

# _slurm_bin NAME: the path of a Slurm or munge executable (the daemons are in
# /usr/sbin, which a non-login PATH may lack).
_slurm_bin() {
    PATH="$PATH:$_SLURM_SBIN_PATH" command -v "$1"
}

# _slurm_alive PID: the process exists and is not a zombie (this container's
# init reaps the daemons' remains only now and then, and kill -0 succeeds on
# a zombie).
_slurm_alive() {
    local stat
    [ -n "$1" ] && stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [ "${stat%% *}" != Z ]
}

_slurm_pidfile_pid() {
    local pid=""
    [ -s "$1" ] && read -r pid <"$1" 2>/dev/null
    case $pid in '' | *[!0-9]*) return 1 ;; esac
    echo "$pid"
}

# _slurm_free_port: a loopback port nobody listens on right now.
_slurm_free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

slurm_cluster_available() {
    local bin missing=""
    if [ "$EUID" -ne 0 ]; then
        echo "not root (munged, slurmctld and slurmd run as root, slurmd starts jobs as their user)"
        return 1
    fi
    for bin in munged slurmctld slurmd slurmstepd sbatch squeue scontrol sinfo scancel python3; do
        _slurm_bin "$bin" >/dev/null || missing="$missing $bin"
    done
    if [ -n "$missing" ]; then
        echo "missing:$missing (Debian: apt-get install munge slurmctld slurmd slurm-client)"
        return 1
    fi
    if [ -z "$(hostname -s 2>/dev/null)" ]; then
        echo "no host name (hostname -s is empty)"
        return 1
    fi
    return 0
}

# _slurm_logs DIR: the tails of the logs, for a start that failed.
_slurm_logs() {
    local log
    for log in "$1"/log/*; do
        [ -s "$log" ] || continue
        echo "--- $log (tail)"
        tail -n 25 "$log"
    done
}

# _slurm_start_failed DIR WHAT: says so with the logs' tails, and stops what
# did start.
_slurm_start_failed() {
    echo "slurm_cluster_start: $2"
    _slurm_logs "$1"
    slurm_cluster_stop "$1"
    return 1
}

# _slurm_wait_for SECS COMMAND...: polls COMMAND every 0.2 s for SECS seconds.
_slurm_wait_for() {
    local end=$((SECONDS + $1))
    shift
    while ! "$@"; do
        [ "$SECONDS" -lt "$end" ] || return 1
        sleep 0.2
    done
}

_slurm_node_idle() {
    local state
    state=$(timeout 10 "$(_slurm_bin sinfo)" -h -N -o '%T' 2>/dev/null) || return 1
    [ "$state" = idle ]
}

# _slurm_watchdog DIR PID: waits (without a child process: read -t on a pipe
# nobody writes) until PID is gone, then stops DIR's cluster, unless
# slurm_cluster_stop came first and removed run/watchdog.pid.
_slurm_watchdog() {
    local fd
    exec {fd}<> <(:)
    while _slurm_alive "$2"; do
        read -r -t 2 -u "$fd" _ 2>/dev/null
    done
    [ -f "$1/run/watchdog.pid" ] || return 0
    rm -f "$1/run/watchdog.pid"
    echo "$(date '+%F %T') process $2 is gone: stopping the cluster"
    slurm_cluster_stop "$1"
}

slurm_cluster_start() {
    local dir=${1:?slurm_cluster_start DIR}
    local host hw mem_kb mem_mb ctld_port slurmd_port bin pid
    local munged slurmctld slurmd scontrol
    if ! slurm_cluster_available >/dev/null; then
        echo "slurm_cluster_start: $(slurm_cluster_available)"
        return 1
    fi
    munged=$(_slurm_bin munged)
    slurmctld=$(_slurm_bin slurmctld)
    slurmd=$(_slurm_bin slurmd)
    mkdir -p "$dir" && dir=$(cd "$dir" && pwd -P) || return 1
    # Unix socket paths hold 107 bytes: munged's, and slurmd's per step in
    # its spool (<spool>/<node>_<job>.<step>).
    if [ ${#dir} -gt 70 ]; then
        echo "slurm_cluster_start: $dir is too long a path for the Unix sockets in it (at most 70 bytes)"
        return 1
    fi
    if [ -e "$dir/slurm.conf" ]; then
        slurm_cluster_stop "$dir" >/dev/null 2>&1
    fi
    rm -rf "${dir:?}/munge" "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
    mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" "$dir/run" || return 1
    # munged wants the socket's folders searchable by all (--force makes
    # that a warning for DIR's ancestors: a build folder under /root or a
    # mktemp -d folder is 0700; every client here is root), the key
    # unreadable by others.
    chmod 0755 "$dir/munge"
    if bin=$(_slurm_bin mungekey); then
        "$bin" --create --keyfile="$dir/munge/munge.key" >/dev/null || return 1
    else
        dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none || return 1
    fi
    chmod 0400 "$dir/munge/munge.key"

    host=$(hostname -s)
    # The node as slurmd sees it (CPUs, sockets, cores, threads), so that
    # slurmctld does not log the difference; RealMemory a little below what
    # is available.
    hw=$(SLURM_CONF="$dir/slurm.conf" "$slurmd" -C 2>/dev/null | head -n 1 |
        tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')
    case $hw in *CPUs=*) ;; *) hw="CPUs=$(nproc) " ;; esac
    mem_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
    mem_mb=$((mem_kb * 9 / 10 / 1024))
    [ "$mem_mb" -ge 100 ] || mem_mb=100
    ctld_port=$(_slurm_free_port) && slurmd_port=$(_slurm_free_port) || return 1
    while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(_slurm_free_port) || return 1; done

    # Slurm reads plugstack.conf and cgroup.conf next to slurm.conf: an empty
    # plugstack (no SPANK plugin from /etc/slurm/plugstack.conf.d), and no
    # cgroup plugin is loaded with proctrack/linuxproc and task/none, but a
    # cgroup.conf here keeps slurmd from ever reading the system's.
    : >"$dir/plugstack.conf"
    cat >"$dir/cgroup.conf" <<EOF
# Written by tests/support/slurm_cluster.sh; nothing here uses cgroups.
ConstrainCores=no
ConstrainRAMSpace=no
ConstrainDevices=no
EOF
    cat >"$dir/slurm.conf" <<EOF
# Written by tests/support/slurm_cluster.sh: a private one-node cluster.
ClusterName=kilntest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
PlugStackConfig=$dir/plugstack.conf
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=300
KillWait=5
NodeName=$host NodeHostname=$host NodeAddr=127.0.0.1 ${hw}RealMemory=$mem_mb State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF="$dir/slurm.conf"

    # A watchdog stops the cluster when the shell that started it is gone
    # without stopping it (a test killed by ctest's timeout runs no trap).
    _slurm_watchdog "$dir" "$$" </dev/null >>"$dir/log/watchdog.log" 2>&1 &
    echo "$!" >"$dir/run/watchdog.pid"

    "$munged" --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
        --seed-file="$dir/munge/munged.seed" </dev/null >>"$dir/log/munged.out" 2>&1 || {
        _slurm_start_failed "$dir" "munged did not start"
        return 1
    }
    "$slurmctld" -f "$dir/slurm.conf" </dev/null >>"$dir/log/slurmctld.out" 2>&1 || {
        _slurm_start_failed "$dir" "slurmctld did not start"
        return 1
    }
    scontrol=$(_slurm_bin scontrol)
    if ! _slurm_wait_for 30 timeout 5 "$scontrol" ping >/dev/null 2>&1; then
        _slurm_start_failed "$dir" "slurmctld does not answer (scontrol ping)"
        return 1
    fi
    "$slurmd" -f "$dir/slurm.conf" -N "$host" </dev/null >>"$dir/log/slurmd.out" 2>&1 || {
        _slurm_start_failed "$dir" "slurmd did not start"
        return 1
    }
    if ! _slurm_wait_for 60 _slurm_node_idle; then
        _slurm_start_failed "$dir" "node $host is not idle after 60 s: $(sinfo -h -N -o '%T %E' 2>&1)"
        return 1
    fi
    for pid in munged slurmctld slurmd; do
        _slurm_pidfile_pid "$dir/run/$pid.pid" >/dev/null || {
            _slurm_start_failed "$dir" "no pid in $dir/run/$pid.pid"
            return 1
        }
    done
    return 0
}

# slurm_cluster_pids DIR: the pids of DIR's cluster still running: its
# daemons (DIR on their command line), slurmstepd and the jobs' processes
# (SLURM_CONF=DIR/slurm.conf in their environment, beside SLURM_JOB_ID for
# the jobs); neither the caller nor its ancestors.
slurm_cluster_pids() {
    local dir=${1:?slurm_cluster_pids DIR} proc pid cmd env comm skip=" " p stat
    dir=$(cd "$dir" 2>/dev/null && pwd -P) || return 0
    p=$BASHPID
    while [ -n "$p" ] && [ "$p" -gt 1 ]; do
        skip="$skip$p "
        stat=$(cat "/proc/$p/stat" 2>/dev/null) || break
        stat=${stat##*) }
        stat=${stat#* }
        p=${stat%% *}
    done
    for proc in /proc/[0-9]*; do
        pid=${proc#/proc/}
        case $skip in *" $pid "*) continue ;; esac
        _slurm_alive "$pid" || continue
        cmd=$(tr '\0' ' ' 2>/dev/null <"$proc/cmdline") || continue
        if [[ $cmd == *"$dir/"* ]]; then
            echo "$pid"
            continue
        fi
        env=$(tr '\0' '\n' 2>/dev/null <"$proc/environ") || continue
        grep -qxF "SLURM_CONF=$dir/slurm.conf" <<<"$env" || continue
        comm=$(cat 2>/dev/null <"$proc/comm")
        if [ "$comm" = slurmstepd ] || grep -q '^SLURM_JOB_ID=' <<<"$env"; then
            echo "$pid"
        fi
    done
}

_slurm_dead() { ! _slurm_alive "$1"; }
_slurm_queue_empty() {
    [ -z "$(SLURM_CONF="$1/slurm.conf" timeout 5 "$(_slurm_bin squeue)" -h -o %A 2>/dev/null)" ]
}
_slurm_none_left() { [ -z "$(slurm_cluster_pids "$1")" ]; }

# _slurm_stop_daemon PIDFILE SECS: TERM, up to SECS seconds, then KILL.
_slurm_stop_daemon() {
    local pid
    pid=$(_slurm_pidfile_pid "$1") || return 0
    if _slurm_alive "$pid"; then
        kill -TERM "$pid" 2>/dev/null
        if ! _slurm_wait_for "$2" _slurm_dead "$pid"; then
            echo "slurm_cluster_stop: $1 ($pid) still running after ${2} s: killed"
            kill -KILL "$pid" 2>/dev/null
            _slurm_wait_for 5 _slurm_dead "$pid"
        fi
    fi
    rm -f "$1"
}

slurm_cluster_stop() {
    local dir=${1:?slurm_cluster_stop DIR} jobs pid left
    dir=$(cd "$dir" 2>/dev/null && pwd -P) || return 0
    [ -f "$dir/slurm.conf" ] || return 0
    local ctld
    ctld=$(_slurm_pidfile_pid "$dir/run/slurmctld.pid") || ctld=""
    if _slurm_alive "$ctld"; then
        jobs=$(SLURM_CONF="$dir/slurm.conf" timeout 10 "$(_slurm_bin squeue)" -h -o '%A' 2>/dev/null)
        if [ -n "$jobs" ]; then
            # shellcheck disable=SC2086 # a list of job ids
            SLURM_CONF="$dir/slurm.conf" timeout 10 "$(_slurm_bin scancel)" $jobs 2>/dev/null
            _slurm_wait_for 15 _slurm_queue_empty "$dir"
        fi
    fi
    # The watchdog first (unless this is the watchdog: it removed its pid
    # file); it sleeps in bash itself, so TERM ends it at once.
    local watchdog
    if watchdog=$(_slurm_pidfile_pid "$dir/run/watchdog.pid"); then
        rm -f "$dir/run/watchdog.pid"
        if [ "$watchdog" != "$BASHPID" ] && _slurm_alive "$watchdog"; then
            kill -TERM "$watchdog" 2>/dev/null
        fi
    fi
    _slurm_stop_daemon "$dir/run/slurmd.pid" 15
    _slurm_stop_daemon "$dir/run/slurmctld.pid" 15
    _slurm_stop_daemon "$dir/run/munged.pid" 10
    # Whatever is left (a slurmstepd or a job's process that outlived slurmd).
    left=$(slurm_cluster_pids "$dir")
    if [ -n "$left" ]; then
        echo "slurm_cluster_stop: killing what is left:" "$left"
        for pid in $left; do kill -KILL "$pid" 2>/dev/null; done
        _slurm_wait_for 5 _slurm_none_left "$dir"
    fi
    return 0
}

# slurm_wait_job JOBID SECS: waits until job JOBID (all of an array's tasks)
# has left the queue, then prints one line per task from `scontrol show job`
# (slurmctld keeps finished jobs for MinJobAge=300 s):
#   JOBID_TASK STATE EXITCODE        e.g. 42_3 FAILED 3:0
# Returns 0 when every task COMPLETED, 1 when one did not, 124 on timeout
# (after printing the tasks' states of the moment).
slurm_wait_job() {
    local job=${1:?slurm_wait_job JOBID SECS} secs=${2:?slurm_wait_job JOBID SECS}
    local end=$((SECONDS + secs)) out rc=0 timed_out=0 words word id task state code
    while :; do
        if out=$(timeout 10 "$(_slurm_bin squeue)" -h -r -j "$job" -o '%T' 2>&1); then
            [ -n "$out" ] || break
        elif [[ $out == *"Invalid job id"* ]]; then
            break
        fi
        if [ "$SECONDS" -ge "$end" ]; then timed_out=1; break; fi
        sleep 0.5
    done
    # scontrol forgets a job MinJobAge (300 s) after it ended; jobcomp/filetxt
    # keeps its line (same words).
    if ! out=$(timeout 10 "$(_slurm_bin scontrol)" -o show job "$job" 2>&1); then
        local comp=${SLURM_CONF%/*}/log/jobcomp.txt
        if [ -f "$comp" ] && grep -qE "(^| )(Array)?JobId=$job " "$comp"; then
            out=$(grep -E "(^| )(Array)?JobId=$job " "$comp")
        else
            echo "slurm_wait_job: $out"
            return 1
        fi
    fi
    while read -r -a words; do
        [ "${#words[@]}" -gt 0 ] || continue
        id="" task="" state="" code=""
        for word in "${words[@]}"; do
            case $word in
                JobId=*) id=${word#JobId=} ;;
                ArrayJobId=*) id=${word#ArrayJobId=} ;;
                ArrayTaskId=*) task=${word#ArrayTaskId=} ;;
                JobState=*) state=${word#JobState=} ;;
                ExitCode=*) code=${word#ExitCode=} ;;
            esac
        done
        echo "${id}${task:+_$task} $state $code"
    done <<<"$out" | sort -t _ -k 2n
    # The states again, outside the pipeline's subshell.
    grep -qE 'JobState=' <<<"$out" || rc=1
    ! grep -E -o 'JobState=[A-Z_]+' <<<"$out" | grep -qv 'JobState=COMPLETED$' || rc=1
    [ "$timed_out" -eq 0 ] || return 124
    return "$rc"
}
