#!/usr/bin/env bash
# test_assimp_hangs.sh — the inputs on which assimp itself loops forever
# (tests/fuzz/regressions/assimp-hangs/) cooked through kiln's isolated
# importer with a 1 s import.timeout (a kiln.yml rule): each fails with "took longer than 1 s
# ... stopped" and the rest of the tree cooks. Likewise the inputs on which
# it crashes (tests/fuzz/regressions/assimp-crashes/): each fails with
# "assimp crashed reading F (signal N, SIGx)" (under ASan, a SEGV: "its
# process exited with status 1").
#
# Environment (set by ctest): KILN (the executable), KILN_REPO (the
# repository), KILN_TMP (scratch folder).
# Prints one line per check and a final "assimp-hangs: N passed, M failed".
set -euo pipefail

source "$(dirname "$0")/harness.sh" assimp-hangs

HANGS="${KILN_REPO:?set KILN_REPO to the repository}/tests/fuzz/regressions/assimp-hangs"
CRASHES="$KILN_REPO/tests/fuzz/regressions/assimp-crashes"
SRC="$SCRATCH/assets"
mkdir -p "$SRC/hangs" "$SRC/crashes"
cp "$HANGS"/*.ply "$SRC/hangs/"
cp "$CRASHES"/*.ply "$SRC/crashes/"
cp "$KILN_REPO/tests/fuzz/seeds/assimp/triangle-ascii.ply" "$SRC/good.ply"
cp "$KILN_REPO/tests/fuzz/seeds/assimp/triangle.dae" "$SRC/scene.dae"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$SRC/tri.obj"
# 1 s for the hanging files (a rule: per asset); the good ones keep the
# default, so a loaded machine cannot make them time out.
printf 'rules:\n  - match: "hangs/*"\n    import.timeout: 1\n' >"$SCRATCH/kiln.yml"
count=$(find "$SRC/hangs" -name '*.ply' | wc -l)
crash_count=$(find "$SRC/crashes" -name '*.ply' | wc -l)

start=$SECONDS
run_in "$SCRATCH" build -i assets -o out -j2
took=$((SECONDS - start))

every_hang_stopped() {
    local file name
    for file in "$SRC"/hangs/*.ply; do
        name=$(basename "$file")
        stderr_has "^hangs/$name: error: assimp took longer than 1 s reading $name; stopped" ||
            return 1
        [ ! -e "$SCRATCH/out/hangs/${name%.ply}.kmesh" ] || return 1
    done
}
every_crash_failed() {
    local file name
    for file in "$SRC"/crashes/*.ply; do
        name=$(basename "$file")
        # A signal; under AddressSanitizer (the test builds) a SEGV is
        # caught by ASan, which reports it and exits with status 1.
        stderr_has "^crashes/$name: error: assimp (crashed reading $name \(signal [0-9]+, SIG[A-Z]+\)|failed reading $name: its process exited with status 1)" ||
            return 1
        [ ! -e "$SCRATCH/out/crashes/${name%.ply}.kmesh" ] || return 1
    done
}
check "the build fails (exit 1)" status_is 1
check "there are inputs to cook ($count)" test "$count" -ge 1
check "each input assimp hangs on fails with the 1 s time limit, nothing written for it" \
    every_hang_stopped
check "there are crashing inputs ($crash_count)" test "$crash_count" -ge 1
check "each input assimp crashes on fails with assimp's signal, nothing written for it" \
    every_crash_failed
check "the rest of the tree cooks" \
    all_true '[ -s "$SCRATCH/out/good.kmesh" ]' '[ -s "$SCRATCH/out/scene.kmesh" ]' \
    '[ -s "$SCRATCH/out/tri.kmesh" ]' 'stdout_has "cooked 3 assets.*; $((count + crash_count)) failed"'
# Two jobs, each hang stopped after 1 s: far below 60 s even on a loaded machine.
check "the hangs cost about their time limit each ($took s)" test "$took" -lt 60

finish assimp-hangs
