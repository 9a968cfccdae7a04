#!/usr/bin/env bash
# Texture arrays and standalone materials through the CLI, on corpus images
# and the example crate: a *.array/ folder of corpus PNGs and one of *.env
# cubemaps cook to array textures (kiln info shows the layers, kiln check
# passes); materials/oak.mat cooks to a one-row table and replaces the
# crate's "wood" through material.replace (the crate's .kmat names it,
# kiln check resolves it). Bad inputs: a layer of another size and a .mat
# with a typo fail their asset naming file (and line) while the rest cooks.
set -euo pipefail
source "$(dirname "$0")/harness.sh" arrays_materials
KILN_CORPUS=${KILN_CORPUS:-}
KILN_REPO=${KILN_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
PNGS="$KILN_CORPUS/images/pngsuite"
if [ -z "$KILN_CORPUS" ] || [ ! -f "$PNGS/basn6a08.png" ] || ! command -v python3 >/dev/null; then
    echo "test_arrays_materials: skipped: corpus or python3 not found"
    exit 0
fi

T="$SCRATCH/project"
IN="$T/in"
mkdir -p "$IN/tex/tiles.array" "$IN/sky.array" "$IN/props" "$IN/materials/tex"
cp "$PNGS/basn6a08.png" "$IN/tex/tiles.array/01.png"
cp "$PNGS/basn2c16.png" "$IN/tex/tiles.array/02.png"
cp "$PNGS/basn3p08.png" "$IN/tex/tiles.array/03.png"
cp "$KILN_REPO/examples/assets/props/crate.obj" "$KILN_REPO/examples/assets/props/crate.mtl" \
    "$KILN_REPO/examples/assets/props/crate.png" "$IN/props/"
cp "$PNGS/basn2c16.png" "$IN/materials/tex/oak.n.png"
# Two cubemaps of 4x4 one-colour faces.
python3 - "$IN/sky.array" <<'PY'
import os, sys
from png_tool import write_png
def png(path, rgb):
    write_png(path, 4, 4, bytes(rgb) * 16, channels=3)
for layer, name in enumerate(["dawn.env", "dusk.env"]):
    os.makedirs(os.path.join(sys.argv[1], name))
    for face, stem in enumerate(["px", "nx", "py", "ny", "pz", "nz"]):
        png(os.path.join(sys.argv[1], name, stem + ".png"), (40 * face, 100 * layer, 200))
PY
cat >"$IN/materials/oak.mat" <<'MAT'
name: Oak planks
base_color: [0.9, 0.8, 0.7, 1]
metallic: 0
roughness: 0.75
flags: [no_cast_shadows]
textures:
  base_color: ../props/crate.png
  normal: {image: tex/oak.n.png, wrap: clamp_to_edge}
MAT
cat >"$T/kiln.yml" <<'YML'
default:
  texture.quality: draft
rules:
  - match: "props/*.obj"
    material.replace: {wood: materials/oak.mat}
YML

run_in "$T" build -q -i in -o out --config kiln.yml
check "the project cooks" status_is 0
check "one array texture per folder, the material and the crate" all_true \
    "[ -f '$T/out/tex/tiles.ktx2' ]" "[ -f '$T/out/sky.ktx2' ]" \
    "[ -f '$T/out/materials/oak.kmat' ]" "[ -f '$T/out/materials/oak/crate.ktx2' ]" \
    "[ -f '$T/out/props/crate.kmat' ]"
# The crate's wood used crate.png alone: the crate no longer cooks it.
check "the replaced material's image is not cooked by the model" \
    test ! -e "$T/out/props/crate/crate.ktx2"
run_in "$T" info out/tex/tiles.ktx2
check "kiln info shows the layers" stdout_has "32x32 array of 3 layers, 6 mips"
run_in "$T" info out/sky.ktx2
check "a cubemap array" stdout_has "4x4 cubemap array of 2 layers, 3 mips"
run_in "$T" info --json out/tex/tiles.ktx2
check "layers in --json" stdout_has '"layers":3'
run_in "$T" info out/materials/oak.kmat
check "the material's row" all_true "stdout_has 'names: Oak planks'" \
    "stdout_has 'shadows: cast 0, receive 1'"
run_in "$T" info out/props/crate.kmat
check "the crate's wood row took it, keeping its name" all_true \
    "stdout_has 'names: wood, metal'" "stdout_has 'shadows: cast 1, receive 2'" \
    "stdout_has 'from standalone materials \\(material.replace\\): wood$'"
run_in "$T" info --json out/props/crate.kmat
check "standalone rows in --json" stdout_has '"standalone_rows":1'
run_in "$T" check -o out
check "kiln check passes on arrays and materials" all_true "status_is 0" \
    "stdout_has '0 problems'"

# A layer of another size, and a .mat with a typo: those two fail, naming
# what is wrong; the rest is up to date.
cp "$PNGS/s01n3p01.png" "$IN/tex/tiles.array/04.png"
printf 'name: bad\nroughnes: 1\n' >"$IN/materials/bad.mat"
run_in "$T" build -i in -o out --config kiln.yml
check "the odd layer and the typo fail, naming file, line and sizes" all_true \
    "status_is 1" \
    "stderr_has 'tex/tiles.array/04.png: error: layer is 1x1 but the first layer \\(01.png\\) is 32x32'" \
    "stderr_has 'materials/bad.mat:2: error: unknown key .roughnes.'" \
    "stdout_has '2 failed'"
finish test_arrays_materials
