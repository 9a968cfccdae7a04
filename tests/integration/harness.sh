# harness.sh — what the integration tests that drive kiln and check its output
# share: sourced as `source "$(dirname "$0")/harness.sh" NAME`.
#
# Makes an empty scratch folder $SCRATCH (KILN_TMP/NAME), runs kiln there
# (run_in), and prints one line per check (check), with the exit status and
# both outputs of the last run when it fails (check_output: the checking
# command's own output instead); `finish LABEL` prints the summary and is the
# script's exit status.
: "${KILN:?set KILN to the kiln executable}"
# The scripts' Python finds tests/support's modules (png_tool.write_png).
PYTHONPATH="$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
SCRATCH="${KILN_TMP:-${TMPDIR:-/tmp}}/$1"
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH"

passed=0
failed=0
status=0

pass() {
    passed=$((passed + 1))
    echo "ok:   $1"
}

fail() {
    failed=$((failed + 1))
    echo "FAIL: $1"
    echo "  exit status: $status"
    echo "  stdout:"; sed 's/^/    | /' "$SCRATCH/stdout" 2>/dev/null || true
    echo "  stderr:"; sed 's/^/    | /' "$SCRATCH/stderr" 2>/dev/null || true
}

# check NAME COMMAND...: passes when COMMAND succeeds.
check() {
    local name=$1
    shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}

# check_output NAME COMMAND...: check for a COMMAND that is not a kiln run:
# its own output is kept aside, and its first 20 lines shown when it fails.
check_output() {
    local name=$1
    shift
    if "$@" >"$SCRATCH/check.out" 2>&1; then
        pass "$name"
    else
        failed=$((failed + 1))
        echo "FAIL: $name"
        head -20 "$SCRATCH/check.out" | sed 's/^/    | /'
    fi
}

# run_in DIR ARGS...: runs kiln in DIR (with the VAR=VALUE words of $RUN_ENV
# in its environment); sets $status, fills the stdout/stderr files.
RUN_ENV=""
run_in() {
    local dir=$1
    shift
    set +e
    # shellcheck disable=SC2086 # RUN_ENV is a list of words
    (cd "$dir" && env $RUN_ENV "$KILN" "$@") >"$SCRATCH/stdout" 2>"$SCRATCH/stderr" </dev/null
    status=$?
    set -e
}

status_is() { [ "$status" -eq "$1" ]; }
stdout_has() { grep -qE -- "$1" "$SCRATCH/stdout"; }
stderr_has() { grep -qE -- "$1" "$SCRATCH/stderr"; }
stderr_lacks() { ! grep -qE -- "$1" "$SCRATCH/stderr"; }
stdout_lacks() { ! grep -qE -- "$1" "$SCRATCH/stdout"; }
all_true() { local c; for c in "$@"; do eval "$c" || return 1; done; }

finish() {
    echo "$1: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
