#!/usr/bin/env bash
# test_degenerate_geometry.sh — geometry that draws nothing new costs one pass,
# not minutes in meshoptimizer: a 265-byte glTF of 999,999 vertices at one
# point (an accessor without a buffer is zeros), and an OBJ of 33,333 copies
# of one triangle. Both cook (exit 0) with a warning that counts what was
# dropped, and `kiln check` passes. (Before, the glTF took 590 s and the OBJ
# 10 s under ASan, in the meshlet builder.)
#
# Environment (set by ctest): KILN (the executable), KILN_TMP (scratch folder).
set -euo pipefail
source "$(dirname "$0")/harness.sh" degenerate_geometry
mkdir -p "$SCRATCH/in"
printf '%s' '{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"mesh":0}],"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"accessors":[{"componentType":5126,"count":999999,"type":"VEC3","min":[0,0,0],"max":[0,0,0]}]}' \
    >"$SCRATCH/in/point.gltf"
{
    printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\n'
    for _ in $(seq 33333); do echo 'f 1 2 3'; done
} >"$SCRATCH/in/copies.obj"

run_in "$SCRATCH" build -i in -o out
check "both cook" all_true 'status_is 0' 'stdout_has "cooked 2 assets"'
check "the glTF's 333,333 triangles on one point are dropped, and said so" \
    stderr_has "point.gltf: warning: mesh '.*': 333333 triangles with two corners on one vertex and 0 repeated triangles dropped"
check "the OBJ keeps one of its 33,333 copies, and says so" \
    stderr_has "copies.obj: warning: mesh '.*': 0 triangles with two corners on one vertex and 33332 repeated triangles dropped"
run_in "$SCRATCH" info --json out/copies.kmesh
check "the OBJ's mesh holds one triangle and its 3 vertices" \
    bash -c "jq -e '.triangles == 1 and .vertices == 3' '$SCRATCH/stdout' >/dev/null"
run_in "$SCRATCH" check -o out
check "kiln check passes" status_is 0
finish "degenerate geometry"
