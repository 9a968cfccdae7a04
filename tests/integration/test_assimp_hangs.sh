#!/usr/bin/env bash
# test_assimp_hangs.sh — the inputs on which assimp itself loops forever
# (tests/fuzz/regressions/assimp-hangs/) or crashes
# (tests/fuzz/regressions/assimp-crashes/) cooked through kiln's isolated
# importer: each is refused by kiln's pre-check before assimp sees it
# (src/cook/import/assimp_precheck.c: "F:LINE: error: bad PLY header: ..." or
# "AC3D ..."), not by the 1 s import.timeout (a kiln.yml rule: "took longer
# than 1 s ... stopped") or assimp's crash, and the rest of the tree cooks,
# a subdivided AC3D surface among it, and one whose subdivision the pre-check
# lowers (tests/fuzz/regressions/assimp/ac3d-subdiv-40.ac).
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
cp "$HANGS"/*.ply "$HANGS"/*.ac "$SRC/hangs/"
cp "$CRASHES"/*.ply "$CRASHES"/*.ac "$SRC/crashes/"
cp "$KILN_REPO/tests/fuzz/seeds/assimp/triangle-ascii.ply" "$SRC/good.ply"
cp "$KILN_REPO/tests/fuzz/seeds/assimp/quad-subdiv-2.ac" "$SRC/subdivided.ac"
cp "$KILN_REPO/tests/fuzz/seeds/assimp/triangle.dae" "$SRC/scene.dae"
cp "$KILN_REPO/tests/fuzz/regressions/assimp/ac3d-subdiv-40.ac" "$SRC/lowered.ac"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$SRC/tri.obj"
# 1 s for the hanging files (a rule: per asset); the good ones keep the
# default, so a loaded machine cannot make them time out.
printf 'rules:\n  - match: "hangs/*"\n    import.timeout: 1\n' >"$SCRATCH/kiln.yml"
count=$(find "$SRC/hangs" -type f | wc -l)
crash_count=$(find "$SRC/crashes" -type f | wc -l)

start=$SECONDS
run_in "$SCRATCH" build -i assets -o out -j2
took=$((SECONDS - start))

# Each file of FOLDER failed at once with the pre-check's message at a line,
# and nothing was written for it.
every_one_refused() {
    local file name
    for file in "$SRC/$1"/*; do
        name=$(basename "$file")
        stderr_has "^assets/$1/$name:[0-9]+: error: (bad PLY header:|AC3D) " || return 1
        ! stderr_has "^assets/$1/$name: error: assimp (took longer|crashed|failed)" || return 1
        [ ! -e "$SCRATCH/out/$1/${name%.*}.kmesh" ] || return 1
    done
}
check "the build fails (exit 1)" status_is 1
check "there are inputs to cook ($count)" test "$count" -ge 1
check "each input assimp hangs on is refused before assimp runs, nothing written for it" \
    every_one_refused hangs
check "there are crashing inputs ($crash_count)" test "$crash_count" -ge 1
check "each input assimp crashes on is refused before assimp runs, nothing written for it" \
    every_one_refused crashes
check "the rest of the tree cooks" \
    all_true '[ -s "$SCRATCH/out/good.kmesh" ]' '[ -s "$SCRATCH/out/scene.kmesh" ]' \
    '[ -s "$SCRATCH/out/tri.kmesh" ]' '[ -s "$SCRATCH/out/subdivided.kmesh" ]' \
    '[ -s "$SCRATCH/out/lowered.kmesh" ]' \
    'stdout_has "cooked 5 assets.*; $((count + crash_count)) failed"'
# subdiv 40 of a triangle (3 x 4^39 faces, minutes in assimp) cooks lowered
# to the most levels within 2^16 faces: 3 x 4^7 = 49152.
check "an AC3D subdivision past the bound cooks lowered, with a warning" \
    stderr_has "^assets/lowered.ac:7: warning: AC3D subdiv 40: .* subdivided 8 times instead \\(49152 faces\\)"

# Refused at once: far below the 1 s time limit each would cost, even on a
# loaded machine.
check "the build took less than 60 s ($took s)" test "$took" -lt 60

finish assimp-hangs
