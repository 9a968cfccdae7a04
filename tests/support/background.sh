# background.sh — what the test scripts that run kiln (or kiln-view) in the
# background share: sourced (`source tests/support/background.sh`), bounded
# polls and stops, so that no test hangs on a process that does not answer
# and none asserts a duration.
#
#   wait_for COMMAND...           polls COMMAND every 0.1 s until it
#                                 succeeds; 1 after 120 s
#   wait_up_to SECONDS COMMAND... the same, SECONDS at most
#   exited PID                    PID has ended (gone, or a zombie the shell
#                                 has not reaped yet)
#   stop_process PID SIGNAL [SECONDS]
#                                 sends SIGNAL to PID, a child of this shell
#                                 (0 sends none: PID is to end by itself),
#                                 waits SECONDS (120) for it to end, else
#                                 kills it (SIGKILL), saying so, and returns 1;
#                                 reaps it: its exit status in $stopped_status
#   stop_watch [SIGNAL [SECONDS]] stops $watch_pid (SIGTERM by default) when
#                                 set and empties it; a watch still running
#                                 after SECONDS (120) ends the test (exit 1):
#                                 it held the output lock and its socket, so
#                                 nothing after it could be trusted

wait_up_to() {
    local limit=$(($1 * 10))
    shift
    for _ in $(seq 1 "$limit"); do
        if "$@"; then return 0; fi
        sleep 0.1
    done
    return 1
}

wait_for() { wait_up_to 120 "$@"; }

exited() {
    ! kill -0 "$1" 2>/dev/null || [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" = Z ]
}

stopped_status=0
stop_process() {
    local pid=$1 signal=$2 seconds=${3:-120} ended=0
    kill -"$signal" "$pid" 2>/dev/null || true
    if ! wait_up_to "$seconds" exited "$pid"; then
        if [ "$signal" = 0 ]; then signal=nothing; else signal=SIG$signal; fi
        echo "FAIL: process $pid still running $seconds s after $signal: killed"
        kill -KILL "$pid" 2>/dev/null || true
        ended=1
    fi
    if wait "$pid" 2>/dev/null; then stopped_status=0; else stopped_status=$?; fi
    return "$ended"
}

watch_pid=""
stop_watch() {
    [ -n "$watch_pid" ] || return 0
    local pid=$watch_pid
    watch_pid=""
    stop_process "$pid" "${1:-TERM}" "${2:-120}" || exit 1
}
