#!/usr/bin/env bash
# test_resume_build.sh — a killed build keeps its finished work:
# each asset's cache record goes to <output>/.kiln-journal as it finishes, so
# after kill -9 the next build cooks only what was not finished, and its
# output equals a clean build's byte for byte.
#
# Environment (set by ctest): KILN (the executable), KILN_TMP (scratch folder).
set -euo pipefail
source "$(dirname "$0")/harness.sh" resume_build
if ! command -v python3 >/dev/null; then
    echo "resume build: skipped: python3 not found (it writes the test images)"
    exit 0
fi
# Five models and three textures, each slowed by a second (a test hook) so
# the kill lands mid-build, once three assets have finished.
python3 - "$SCRATCH/in" <<'PY'
import os, sys
from png_tool import write_png
root = sys.argv[1]
os.makedirs(root)
for t in range(3):
    size = 32
    rgb = bytes((x * (t + 3) + y) & 255 for y in range(size) for x in range(size * 3))
    write_png(os.path.join(root, "tex%d.png" % t), size, size, rgb, channels=3)
for m in range(5):
    with open(os.path.join(root, "m%d.obj" % m), "w") as f:
        f.write("v 0 0 0\nv 1 0 %d\nv 0 1 0\nf 1 2 3\n" % m)
PY
total=8

run_in "$SCRATCH" build -i in -o clean
check "a clean build" status_is 0

(cd "$SCRATCH" && exec env KILN_TEST_SLOW_STAGE=texture:1 "$KILN" build -j1 -i in -o out \
    >"$SCRATCH/killed.out" 2>"$SCRATCH/killed.err") &
victim=$!
entries() { grep -c '^journal ' "$SCRATCH/out/.kiln-journal" 2>/dev/null || true; }
for _ in $(seq 1 600); do
    [ "$(entries)" -ge 3 ] && break
    sleep 0.05
done
kill -9 "$victim" 2>/dev/null || true
wait "$victim" 2>/dev/null || true
finished=$(entries)
check "the killed build journaled its finished assets (got $finished)" [ "$finished" -ge 3 ]
check "and had not finished them all" [ "$finished" -lt "$total" ]
check "it left no cache file" test ! -e "$SCRATCH/out/.kiln-cache"

run_in "$SCRATCH" build -v -i in -o out
check "the next build succeeds" status_is 0
check "it says it resumes" stdout_has "resuming an interrupted build: $finished assets it finished kept"
check "it cooks only what was not finished" stdout_has "cooked $((total - finished)) assets"
check "the tree equals a clean build's" \
    diff -r -x .kiln-cache -x .kiln-lock "$SCRATCH/clean" "$SCRATCH/out"
check "the cache equals a clean build's" cmp "$SCRATCH/clean/.kiln-cache" "$SCRATCH/out/.kiln-cache"
check "the journal is gone once the cache is saved" test ! -e "$SCRATCH/out/.kiln-journal"
run_in "$SCRATCH" check -o out
check "kiln check passes" status_is 0
run_in "$SCRATCH" build -i in -o out
check "a third build has nothing to do" all_true "status_is 0" "stdout_has 'cooked 0 assets'"

# A torn last entry (a kill in the middle of its write) is ignored.
run_in "$SCRATCH" build -i in -o torn
printf 'journal 999\nkiln-cache 2\nencoder' >>"$SCRATCH/torn/.kiln-journal"
rm "$SCRATCH/torn/.kiln-cache"
run_in "$SCRATCH" build -i in -o torn
check "a torn journal entry is ignored" all_true "status_is 0" "stdout_has 'cooked $total assets'"

finish "resume build"
