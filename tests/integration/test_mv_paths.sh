#!/usr/bin/env bash
# `kiln mv` keeps every path working: a moved OBJ still finds its .mtl (its
# cooked material keeps its bytes), a moved .mtl its textures and the OBJ
# naming it the .mtl, a moved level its includes, a moved included level its
# includers; a .gltf its .bin and images, and the .gltf the moved .bin. Each
# rewritten file differs from the original only in the path text. --dry-run
# changes nothing; a path that cannot be rewritten refuses the move, naming
# it, before anything moves. The glTF part uses the shared corpus
# (KILN_CORPUS) and is skipped, said, without it.
set -euo pipefail
source "$(dirname "$0")/harness.sh" mv_paths

T="$SCRATCH/project"
mkdir -p "$T"
cp -r "$KILN_REPO/examples/assets" "$T/assets"
cp "$KILN_REPO/examples/kiln.yml" "$T/kiln.yml"
A="$T/assets"
ORIGINAL="$SCRATCH/original"
# same_info A B: `kiln info` says the same of two cooked files but for their
# names, sizes and sources (a texture a model reads is cooked beside the
# model, so the material's texture ref follows the model: bytes differ).
info_of() {
    "$KILN" info "$1" | sed -e 1d -e '/^  source: /d' -e 's/[0-9]* bytes, //'
}
same_info() { diff <(info_of "$1") <(info_of "$2"); }
cp -r "$A" "$ORIGINAL"

run_in "$T" build
check "the examples cook" status_is 0
cp "$T/runtime/props/crate.kmat" "$SCRATCH/crate.kmat"

# --dry-run: prints the move and each rewrite, changes nothing.
run_in "$T" mv -n assets/props/crate.obj assets/level/crate.obj
check "--dry-run prints the move and every rewrite" \
    all_true 'status_is 0' \
    'stdout_has "^kiln: would move assets/props/crate.obj to assets/level/crate.obj"' \
    'stdout_has "^kiln: would rewrite assets/level/crate.obj:2: mtllib: crate.mtl -> ../props/crate.mtl$"' \
    'stdout_has "^kiln: would rewrite assets/levels/props.level:6: asset: props/crate.obj -> level/crate.obj$"'
check "--dry-run changes nothing" diff -r "$ORIGINAL" "$A"

# An OBJ to another folder: its mtllib now climbs back to the .mtl.
run_in "$T" mv assets/props/crate.obj assets/level/crate.obj
check "the moved OBJ differs only in its mtllib path" \
    all_true 'status_is 0' \
    "diff <(sed 's#^mtllib ../props/crate.mtl\$#mtllib crate.mtl#' '$A/level/crate.obj') '$ORIGINAL/props/crate.obj'" \
    "diff <(sed 's#asset: level/crate.obj#asset: props/crate.obj#' '$A/levels/props.level') '$ORIGINAL/levels/props.level'"
run_in "$T" build
check "after the move its materials still resolve: the same materials, textured" \
    all_true 'status_is 0' 'stderr_lacks "crate.mtl"' \
    'grep -q "textured slots: base_color 1" <(info_of "$T/runtime/level/crate.kmat")' \
    "same_info '$T/runtime/level/crate.kmat' '$SCRATCH/crate.kmat'"

# The .mtl itself: its map_Kd follows, and the OBJ naming it.
mkdir -p "$A/materials"
run_in "$T" mv assets/props/crate.mtl assets/materials/crate.mtl
check "a moved .mtl keeps its texture, and its OBJ the .mtl" \
    all_true 'status_is 0' 'grep -qx "map_Kd ../props/crate.png" "$A/materials/crate.mtl"' \
    'grep -qx "mtllib ../materials/crate.mtl" "$A/level/crate.obj"' \
    "diff <(sed 's#^map_Kd ../props/crate.png\$#map_Kd crate.png#' '$A/materials/crate.mtl') '$ORIGINAL/props/crate.mtl'" \
    '[ ! -e "$A/materials/crate.mtl.kiln.yml" ]'
run_in "$T" build
check "after moving the .mtl the materials are unchanged" \
    all_true 'status_is 0' "same_info '$T/runtime/level/crate.kmat' '$SCRATCH/crate.kmat'"

# An included level moves: its includer follows. Then the includer moves.
mkdir -p "$A/shared"
run_in "$T" mv assets/levels/props.level assets/shared/props.level
check "moving an included level rewrites its includer's include:" \
    all_true 'status_is 0' \
    'stdout_has "^kiln: assets/levels/yard.level:4: include: props.level -> ../shared/props.level$"' \
    "diff <(sed 's#include: \\[../shared/props.level\\]#include: [props.level]#' '$A/levels/yard.level') \
        <(sed 's#asset: props/sign.obj#asset: props/sign.obj#' '$ORIGINAL/levels/yard.level')"
run_in "$T" mv assets/levels/yard.level assets/yard.level
check "a moved level keeps its includes" \
    all_true 'status_is 0' 'grep -q "^include: \[shared/props.level\]" "$A/yard.level"'
run_in "$T" check -o runtime
check "kiln check passes after the moves" status_is 0
run_in "$T" build
check "the moved levels cook, with the included entities" \
    all_true 'status_is 0' '[ -f "$T/runtime/yard.kscene" ]'
run_in "$T" info runtime/yard.kscene
check "the moved level's scene holds the included crate" \
    all_true 'status_is 0' 'stdout_has "crate"'

# Shaders: a moved header is followed by the stages including it next to
# themselves; one found through shader.include_dirs is named, not rewritten.
# A moved shader folder keeps its includes.
mkdir -p "$A/glsl" "$A/materials"
printf '#version 450\n#include "common/lighting.glsl"\nlayout(local_size_x = 1) in;\nvoid main() {}\n' \
    >"$A/shaders/post/dirs.comp"
run_in "$T" mv assets/shaders/common/lighting.glsl assets/glsl/lighting.glsl
check "a moved header is followed by the stages including it" \
    all_true 'status_is 0' \
    'grep -qx "#include \"../../glsl/lighting.glsl\"" "$A/shaders/lit.shader/vertex.vert"' \
    "diff <(sed 's#../../glsl/lighting.glsl#../common/lighting.glsl#' '$A/shaders/lit.shader/fragment.frag') '$ORIGINAL/shaders/lit.shader/fragment.frag'" \
    "stderr_has \"^assets/shaders/post/dirs.comp:2: warning: #include 'common/lighting.glsl' may find shaders/common/lighting.glsl through shader.include_dirs; not rewritten\"" \
    'grep -q "^#include \"common/lighting.glsl\"" "$A/shaders/post/dirs.comp"'
rm "$A/shaders/post/dirs.comp"
run_in "$T" mv assets/shaders/lit.shader assets/materials/lit.shader
check "a moved shader folder keeps its includes" \
    all_true 'status_is 0' \
    'grep -qx "#include \"../../glsl/lighting.glsl\"" "$A/materials/lit.shader/fragment.frag"'
run_in "$T" build
check "the shaders cook after the moves" \
    all_true 'status_is 0' '[ -f "$T/runtime/materials/lit.kshader" ]' 'stderr_lacks "lighting"'

# A standalone material: its textures follow it; a setting naming it is
# named, not rewritten. A source whose kiln.yml rules resolve otherwise at
# its new path is named with the setting.
cat >"$A/materials/oak.mat" <<'MAT'
name: oak
textures:
  base_color: ../props/crate.png   # relative to this file
  normal: {image: "../props/bumps.n.png", wrap: repeat}
MAT
printf 'material.replace: {wood: materials/oak.mat}\n' >"$A/level/crate.obj.kiln.yml"
mkdir -p "$A/materials/wood"
run_in "$T" mv assets/materials/oak.mat assets/materials/wood/oak.mat
check "a moved .mat keeps its textures; a sidecar naming it is named" \
    all_true 'status_is 0' \
    'grep -qx "  base_color: ../../props/crate.png   # relative to this file" "$A/materials/wood/oak.mat"' \
    'grep -qx "  normal: {image: \"../../props/bumps.n.png\", wrap: repeat}" "$A/materials/wood/oak.mat"' \
    "stderr_has \"^assets/level/crate.obj.kiln.yml:1: warning: names 'materials/oak.mat', which moves to 'materials/wood/oak.mat'; kiln mv does not rewrite settings\""
sed -i 's#materials/oak.mat#materials/wood/oak.mat#' "$A/level/crate.obj.kiln.yml"
run_in "$T" build
check "the moved .mat cooks and replaces the crate's wood" \
    all_true 'status_is 0' '[ -f "$T/runtime/materials/wood/oak.kmat" ]' 'stderr_lacks "oak"'
run_in "$T" mv -n assets/shaders/skinned.vert assets/shaders/post/skinned.vert
check "a source its rules would resolve otherwise at NEW is named with the setting" \
    all_true 'status_is 0' \
    'stderr_has "^assets/shaders/post/skinned.vert: warning: kiln.yml resolves shader.variants to .* at shaders/post/skinned.vert \(it was .*SKINNED=1.*\)"'

# Refusals, before anything moves.
printf 'newmtl out\nmap_Kd ../../outside.png\n' >"$A/props/out.mtl"
printf 'mtllib out.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$A/props/out.obj"
cp -r "$A" "$SCRATCH/before_refusal"
run_in "$T" mv assets/props/out.mtl assets/materials/out.mtl
check "a path leaving the input folder refuses the move, naming it" \
    all_true 'status_is 1' \
    "stderr_has \"^assets/props/out.mtl:2: error: map_Kd '../../outside.png' path '../../outside.png' leaves the input folder\"" \
    'stderr_has "nothing moved: 1 path would break"' "diff -r '$SCRATCH/before_refusal' '$A'"
run_in "$T" mv assets/props/out.mtl "assets/materials/out lib.txt"
check "a name an OBJ's mtllib cannot hold refuses the move" \
    all_true 'status_is 1' "stderr_has \"^assets/props/out.obj:1: error: a mtllib statement cannot name '../materials/out lib.txt'\"" \
    "diff -r '$SCRATCH/before_refusal' '$A'"
rm "$A/props/out.mtl" "$A/props/out.obj"

# A .glb's JSON is not rewritten: moving the .bin it names is refused.
printf 'x' >"$A/props/data.bin"
python3 - "$A/props/ext.glb" <<'PY'
import struct, sys
json = b'{"asset":{"version":"2.0"},"buffers":[{"uri":"data.bin","byteLength":1}]}'
json += b" " * (-len(json) % 4)
with open(sys.argv[1], "wb") as out:
    out.write(struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(json)))
    out.write(struct.pack("<I4s", len(json), b"JSON") + json)
PY
cp -r "$A" "$SCRATCH/before_glb"
run_in "$T" mv assets/props/data.bin assets/bin.bin
check "a path in a .glb refuses the move" \
    all_true 'status_is 1' \
    "stderr_has \"^assets/props/ext.glb:1: error: buffers\\[0\\].uri 'data.bin' would have to become '../bin.bin', which kiln mv cannot write there \\(a .glb's JSON chunk\\)\"" \
    "diff -r '$SCRATCH/before_glb' '$A'"
rm "$A/props/data.bin" "$A/props/ext.glb"

CORPUS="${KILN_CORPUS:-}"
if [ -z "$CORPUS" ] || [ ! -d "$CORPUS/gltf/BoxTextured/glTF" ]; then
    echo "gltf: skipped: shared corpus not found at ${CORPUS:-<unset>} (set KILN_CORPUS)"
    finish test_mv_paths
    exit $?
fi
mkdir -p "$A/box" "$A/models" "$A/bin" "$A/uni"
cp "$CORPUS"/gltf/BoxTextured/glTF/* "$A/box/"
cp "$CORPUS"/gltf/Unicode*Test/glTF/* "$A/uni/"
cp "$A/box/BoxTextured.gltf" "$SCRATCH/box.gltf"
run_in "$T" build
check "the corpus glTFs cook" status_is 0
cp "$T/runtime/box/BoxTextured.kmesh" "$SCRATCH/box.kmesh"
cp "$T/runtime/box/BoxTextured.kmat" "$SCRATCH/box.kmat"

run_in "$T" mv assets/box/BoxTextured.gltf assets/models/box.gltf
check "a moved .gltf's uris follow, and only their text changes" \
    all_true 'status_is 0' \
    'stdout_has "^kiln: assets/models/box.gltf:[0-9]+: images\[0\].uri: \"CesiumLogoFlat.png\" -> \"../box/CesiumLogoFlat.png\"$"' \
    'stdout_has "buffers\[0\].uri: \"BoxTextured0.bin\" -> \"../box/BoxTextured0.bin\"$"' \
    "diff <(sed 's#\"../box/#\"#' '$A/models/box.gltf') '$SCRATCH/box.gltf'"
run_in "$T" mv assets/box/BoxTextured0.bin assets/bin/box.bin
check "a moved .bin is followed by the .gltf naming it" \
    all_true 'status_is 0' 'grep -q "\"uri\": \"../bin/box.bin\"" "$A/models/box.gltf"' \
    '[ ! -e "$A/bin/box.bin.kiln.yml" ]'
run_in "$T" build
check "the moved glTF cooks to the same mesh" \
    all_true 'status_is 0' "same_info '$T/runtime/models/box.kmesh' '$SCRATCH/box.kmesh'" \
    "same_info '$T/runtime/models/box.kmat' '$SCRATCH/box.kmat'"

cp "$A/uni/"*.gltf "$SCRATCH/uni.gltf"
run_in "$T" mv "$(cd "$T" && ls assets/uni/*.png)" "assets/uni/tex #1.png"
check "a moved image's new name is percent-encoded where it must be" \
    all_true 'status_is 0' 'grep -q "\"uri\": \"tex%20%231.png\"" "$A"/uni/*.gltf' \
    "diff <(sed 's#\"tex%20%231.png\"#\"Unicode❤♻Texture.png\"#' \"\$(ls '$A'/uni/*.gltf)\") '$SCRATCH/uni.gltf'"
run_in "$T" build
check "the glTF cooks with its moved, renamed texture" \
    all_true 'status_is 0' 'stderr_lacks "tex"'

finish test_mv_paths
