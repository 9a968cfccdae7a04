#!/usr/bin/env bash
# test_meshless.sh — sources without meshes: a glTF of nodes and a clip cooks
# to a .kscene and a .kanim (no .kmesh, no .kmat), one of a camera alone to a
# .kscene with the camera (its unused material makes no .kmat, so the scene
# names no material table), and one with nothing in it writes nothing, with a
# warning saying so.
#
# Environment (set by ctest): KILN, KILN_TMP. Helpers: harness.sh.
set -euo pipefail

source "$(dirname "$0")/harness.sh" meshless

run() { run_in "$SCRATCH" "$@"; } # every path below is absolute

IN="$SCRATCH/in"
OUT="$SCRATCH/out"
mkdir -p "$IN"
python3 - "$IN" <<'PY'
import base64, json, struct, sys
folder = sys.argv[1]
# One translation clip on node 1: times 0, 1; translations (0,0,0) -> (1,2,3).
data = struct.pack("<2f", 0.0, 1.0) + struct.pack("<6f", 0, 0, 0, 1, 2, 3)
clip = {
    "asset": {"version": "2.0"},
    "scene": 0,
    "scenes": [{"nodes": [0]}],
    "nodes": [{"name": "root", "children": [1]}, {"name": "mover"}],
    "buffers": [{"byteLength": len(data),
                 "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}],
    "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 8},
                    {"buffer": 0, "byteOffset": 8, "byteLength": 24}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR",
                   "min": [0.0], "max": [1.0]},
                  {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3"}],
    "animations": [{"name": "slide",
                    "samplers": [{"input": 0, "output": 1, "interpolation": "LINEAR"}],
                    "channels": [{"sampler": 0, "target": {"node": 1, "path": "translation"}}]}],
}
json.dump(clip, open(f"{folder}/clip.gltf", "w"))
camera = {
    "asset": {"version": "2.0"},
    "scene": 0,
    "scenes": [{"nodes": [0]}],
    "nodes": [{"name": "eye", "camera": 0, "translation": [0, 1, 5]}],
    "cameras": [{"type": "perspective",
                 "perspective": {"yfov": 0.8, "znear": 0.1, "zfar": 100.0}}],
    "materials": [{"name": "unused"}],
}
json.dump(camera, open(f"{folder}/camera.gltf", "w"))
empty = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
         "nodes": [{"name": "alone"}]}
json.dump(empty, open(f"{folder}/empty.gltf", "w"))
PY

run build -i "$IN" -o "$OUT"
check "a glTF of nodes and a clip cooks to a .kscene and a .kanim, no mesh or material" \
    all_true 'status_is 0' '[ -s "$OUT/clip.kscene" ]' '[ -s "$OUT/clip.kanim" ]' \
    '[ ! -e "$OUT/clip.kmesh" ]' '[ ! -e "$OUT/clip.kmat" ]' \
    'stderr_lacks "clip.gltf: warning"'
check "a glTF of a camera alone cooks to a .kscene" \
    all_true '[ -s "$OUT/camera.kscene" ]' '[ ! -e "$OUT/camera.kanim" ]' \
    '[ ! -e "$OUT/camera.kmesh" ]'
check "a glTF with nothing to cook writes nothing, with a warning naming it" \
    all_true 'stderr_has "empty.gltf: warning: nothing to cook: .*nothing written"' \
    '[ -z "$(ls "$OUT" | grep "^empty\.")" ]'
check "the manifest lists the scenes and the clip" \
    all_true 'grep -qa "clip.kscene" "$OUT/assets.kman"' 'grep -qa "clip.kanim" "$OUT/assets.kman"' \
    'grep -qa "camera.kscene" "$OUT/assets.kman"'

run check -o "$OUT"
check "kiln check accepts the mesh-less scenes and the clip" all_true 'status_is 0'

run info --json "$OUT/clip.kanim"
check "info --json of the .kanim shows the clip and its channel" \
    all_true 'status_is 0' 'stdout_has "\"name\": ?\"slide\""' 'stdout_has "\"channels\": ?1"'

run info "$OUT/camera.kscene"
check "info of the camera's .kscene counts the camera" \
    all_true 'status_is 0' 'stdout_has "camera"'
run info --json "$OUT/camera.kscene"
check "info --json of the camera's .kscene has one camera" \
    all_true 'status_is 0' 'stdout_has "\"cameras\": ?1"'

finish meshless
