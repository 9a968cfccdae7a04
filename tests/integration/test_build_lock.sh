#!/usr/bin/env bash
# test_build_lock.sh — two builds into one output folder: they
# both exited 0 with a mixed tree. The second now waits for the first
# (saying so, with the holder's pid from `<output>/.kiln-lock`), and the tree
# equals one clean build's; a lock left by a killed build is taken over.
#
# Environment (set by ctest): KILN (the executable), KILN_TMP (scratch folder).
set -euo pipefail
source "$(dirname "$0")/harness.sh" build_lock
source "$(dirname "$0")/../support/background.sh"
if ! command -v python3 >/dev/null; then
    echo "build lock: skipped: python3 not found (it writes the test image)"
    exit 0
fi
python3 - "$SCRATCH/in" <<'PY'
import os, sys
from png_tool import write_png
root = sys.argv[1]
os.makedirs(root)
size = 64
rgb = bytes((x * 4 + y) & 255 for y in range(size) for x in range(size * 3))
write_png(os.path.join(root, "wall.png"), size, size, rgb, channels=3)
with open(os.path.join(root, "tri.obj"), "w") as f:
    f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
PY

# The reference: one clean build.
run_in "$SCRATCH" build -i in -o clean
check "a clean build" status_is 0

# lock_names PID: the output's lock file names PID.
lock_names() { [ "$(cat "$SCRATCH/out/.kiln-lock" 2>/dev/null)" = "$1" ]; }

# The first build is slowed in its texture stage (a test hook) so that it
# still holds the lock when the second starts; the order is not a timing
# assertion: the second starts once the lock file names the first.
(cd "$SCRATCH" && exec env KILN_TEST_SLOW_STAGE=texture:4 "$KILN" build -i in -o out \
    >"$SCRATCH/first.out" 2>"$SCRATCH/first.err") &
first=$!
wait_up_to 10 lock_names "$first" || true
check "the lock file names the first build's pid" lock_names "$first"
run_in "$SCRATCH" build -i in -o out
set +e
wait "$first"
first_status=$?
set -e
check "the second build waits for the first, naming it" \
    stderr_has "kiln: waiting for another build into 'out' \(process $first\) to finish"
check "both builds succeed" all_true "status_is 0" "[ $first_status -eq 0 ]"
check "the second found everything up to date" stdout_has "cooked 0 assets"
check "the tree equals a clean build's" \
    diff -r -x .kiln-cache -x .kiln-lock "$SCRATCH/clean" "$SCRATCH/out"
run_in "$SCRATCH" check -o out
check "kiln check passes" status_is 0

# A lock file left by a killed build: its process is gone, the lock is taken over.
dead=$(bash -c 'echo $$')
echo "$dead" >"$SCRATCH/out/.kiln-lock"
touch "$SCRATCH/in/tri.obj"
run_in "$SCRATCH" build -i in -o out
check "a stale lock is taken over" all_true "status_is 0" \
    "stderr_has 'taking over the lock of process $dead, which is no longer running'"

# kiln clean takes the lock too: started while a build holds it, it waits for
# that build, then removes everything (a clean under a running build would
# remove what the build had just written).
(cd "$SCRATCH" && exec env KILN_TEST_SLOW_STAGE=texture:4 "$KILN" build -i in -o out --no-cache \
    >"$SCRATCH/third.out" 2>"$SCRATCH/third.err") &
third=$!
wait_up_to 10 lock_names "$third" || true
run_in "$SCRATCH" clean -o out
set +e
wait "$third"
third_status=$?
set -e
check "kiln clean waits for the build holding the lock, naming it" all_true "status_is 0" \
    "[ $third_status -eq 0 ]" \
    "stderr_has \"kiln: waiting for another build into 'out' \\(process $third\\) to finish\""
check "kiln clean removes the lock file, and with it the whole output" \
    all_true "test ! -e '$SCRATCH/out/.kiln-lock'" "test ! -e '$SCRATCH/out'"

finish "build lock"
