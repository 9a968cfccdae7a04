#!/usr/bin/env bash
# test_cli.sh — drives the kiln executable end to end on small OBJ trees.
#
# Environment (set by ctest): KILN (the executable), KILN_TMP (scratch folder).
# Prints one line per check and a final "cli: N passed, M failed".
set -euo pipefail

source "$(dirname "$0")/harness.sh" cli

# ---------------------------------------------------------------------------
# Source trees
# ---------------------------------------------------------------------------

write_cube() { # a closed cube of quads with one material from an .mtl
    mkdir -p "$(dirname "$1")"
    cat >"$1" <<'EOF'
# unit cube
mtllib cube.mtl
o cube
v -1 -1 -1
v  1 -1 -1
v  1  1 -1
v -1  1 -1
v -1 -1  1
v  1 -1  1
v  1  1  1
v -1  1  1
vt 0 0
vt 1 0
vt 1 1
vt 0 1
usemtl red
f 1/1 4/4 3/3 2/2
f 5/1 6/2 7/3 8/4
f 1/1 2/2 6/3 5/4
f 2/1 3/2 7/3 6/4
f 3/1 4/2 8/3 7/4
f 4/1 1/2 5/3 8/4
EOF
    cat >"$(dirname "$1")/cube.mtl" <<'EOF'
newmtl red
Kd 0.8 0.1 0.1
EOF
}

write_quad() { # one quad with normals, no material
    mkdir -p "$(dirname "$1")"
    cat >"$1" <<'EOF'
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
vn 0 0 1
f 1//1 2//1 3//1 4//1
EOF
}

write_broken() { # face index 0 on line 5 (OBJ indices start at 1)
    mkdir -p "$(dirname "$1")"
    cat >"$1" <<'EOF'
v 0 0 0
v 1 0 0
v 0 1 0
# the next face is invalid
f 1 2 0
EOF
}

# A tree that cooks cleanly: two models, an .mtl they use, and a readme.
make_good_tree() {
    local root=$1
    rm -rf "$root"
    write_cube "$root/assets/models/cube.obj"
    write_quad "$root/assets/props/Quad.OBJ"
    mkdir -p "$root/assets/docs"
    echo "not an asset" >"$root/assets/docs/readme.txt"
}

# The good tree plus a broken model.
make_mixed_tree() {
    make_good_tree "$1"
    write_broken "$1/assets/models/broken.obj"
}

# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

run_in "$SCRATCH" --version
check "--version prints the version and encoder" \
    all_true 'status_is 0' 'stdout_has "^kiln 0\.1\.0 \(encoder [0-9]+\)$"'

run_in "$SCRATCH" help
check "help lists every command" \
    all_true 'status_is 0' 'stdout_has "build"' 'stdout_has "info"' 'stdout_has "check"' \
    'stdout_has "init"' 'stdout_has "^  clean "'

run_in "$SCRATCH" build --help
check "build --help lists every option" \
    all_true 'status_is 0' 'stdout_has "--input"' 'stdout_has "--output"' 'stdout_has "--jobs"' \
    'stdout_has "--verify"' 'stdout_has "--quiet"' 'stdout_has "--verbose"' 'stdout_has "--help"'

run_in "$SCRATCH" build --help
check "build --help lists --dry-run" all_true 'status_is 0' 'stdout_has "-n, --dry-run"'

run_in "$SCRATCH" clean --help
check "clean --help lists every option" \
    all_true 'status_is 0' 'stdout_has "Usage: kiln clean"' 'stdout_has "--output"' \
    'stdout_has "--dry-run"' 'stdout_has "--config"' 'stdout_has "--preset"' 'stdout_has "--quiet"' \
    'stdout_has "--verbose"'

run_in "$SCRATCH" clean -q -v
check "clean -q -v is a usage error" all_true 'status_is 2'

run_in "$SCRATCH" info --help
check "info --help lists every option" \
    all_true 'status_is 0' 'stdout_has "--output"' 'stdout_has "--json"' 'stdout_has "--help"'

run_in "$SCRATCH" check --help
check "check --help lists every option" \
    all_true 'status_is 0' 'stdout_has "--output"' 'stdout_has "--help"'

run_in "$SCRATCH" init --help
check "init --help explains init" all_true 'status_is 0' 'stdout_has "kiln.yml"'

run_in "$SCRATCH" help info
check "help COMMAND shows that command's usage" \
    all_true 'status_is 0' 'stdout_has "Usage: kiln info"'

for words in "help --help" "help help" "--help help" "help -h"; do
    # shellcheck disable=SC2086 # the words are the command line
    run_in "$SCRATCH" $words
    check "kiln $words shows help's own usage" \
        all_true 'status_is 0' 'stdout_has "^Usage: kiln help \[COMMAND\]"'
done
run_in "$SCRATCH" buidl
check "a misspelt command gets the nearest one" \
    all_true 'status_is 2' "stderr_has \"unknown command 'buidl'; did you mean 'build'\\?\""
run_in "$SCRATCH" help inof
check "so does a misspelt command after help" \
    all_true 'status_is 2' "stderr_has \"unknown command 'inof'; did you mean 'info'\\?\""
run_in "$SCRATCH" info --jbos
check "a misspelt long option gets the nearest one" \
    all_true 'status_is 2' "stderr_has \"unknown option '--jbos'; did you mean '--json'\\?\""
run_in "$SCRATCH" --verbsoe=1
check "so does one given to build with a value" \
    all_true 'status_is 2' "stderr_has \"unknown option '--verbsoe'; did you mean '--verbose'\\?\""
run_in "$SCRATCH" zzzzzz
check "a word near no command gets no suggestion" \
    all_true 'status_is 2' 'stderr_has "^kiln: error: unknown command .zzzzzz.$"'

run_in "$SCRATCH" build --no-such-option
check "an unknown option is a usage error (exit 2)" \
    all_true 'status_is 2' 'stderr_has "unknown option .--no-such-option."'

run_in "$SCRATCH" frobnicate
check "an unknown command is a usage error (exit 2)" \
    all_true 'status_is 2' 'stderr_has "unknown command .frobnicate."'

bad_jobs_ok=true
for value in 0 -1 +2 " 2" abc 2x 99999 18446744073709551617; do
    run_in "$SCRATCH" build -j "$value"
    status_is 2 || bad_jobs_ok=false
done
run_in "$SCRATCH" build --jobs
status_is 2 || bad_jobs_ok=false
check "bad -j values are usage errors (exit 2)" $bad_jobs_ok

run_in "$SCRATCH" info unexpected
check "an extra argument is a usage error (exit 2)" \
    all_true 'status_is 2' 'stderr_has "unexpected argument .unexpected."'

run_in "$SCRATCH" build --verify=yes
check "a value given to a flag is a usage error (exit 2)" \
    all_true 'status_is 2' 'stderr_has "takes no value"'

mkdir -p "$SCRATCH/empty"
run_in "$SCRATCH/empty" build -i nowhere
check "a missing input folder is an error (exit 1)" \
    all_true 'status_is 1' 'stderr_has "^kiln: error: input folder .nowhere. does not exist$"'

UNWRITABLE="$SCRATCH/unwritable"
mkdir -p "$UNWRITABLE/assets"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$UNWRITABLE/assets/a.obj"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$UNWRITABLE/assets/b.obj"
touch "$UNWRITABLE/file"
run_in "$UNWRITABLE" build -i assets -o file/out
check "an output folder that cannot be written is one error before any cooking" \
    all_true 'status_is 1' \
    'stderr_has "^kiln: error: cannot write to the output folder .file/out.: cannot create folder"' \
    '[ "$(wc -l <"$SCRATCH/stderr")" -eq 1 ]' '! stdout_has "cooked"'

# ---------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------

GOOD="$SCRATCH/good"
make_good_tree "$GOOD"
run_in "$GOOD" build -i assets -o out
check "a good tree cooks with exit 0, mirroring the source tree" \
    all_true 'status_is 0' '[ -s "$GOOD/out/models/cube.kmesh" ]' \
    '[ -s "$GOOD/out/props/Quad.kmesh" ]' '[ -s "$GOOD/out/assets.kman" ]' \
    '[ -s "$GOOD/out/models/cube.kmat" ]' '[ -s "$GOOD/out/props/Quad.kmat" ]' \
    '[ -s "$GOOD/out/models/cube.kscene" ]' '[ -s "$GOOD/out/props/Quad.kscene" ]' \
    'stdout_has "cooked 2 assets \(7 files, [0-9.]+ KiB\) in [0-9.]+ s; 0 failed; 1 skipped"'

check "an unknown file is skipped, not an error; an .mtl used by a model is not skipped" \
    all_true 'stdout_has "skipped 1 file with no importer \(use -v to list them\)"' \
    'stderr_lacks "error"' '[ ! -e "$GOOD/out/docs" ]'

check "no progress line or carriage return when stderr is not a terminal" \
    all_true '! grep -q $'"'"'\r'"'"' "$SCRATCH/stderr"'

leftovers=$(find "$GOOD/out" \( -name '*.tmp' -o -name '.*' \) ! -name .kiln-cache ! -name .kiln-lock -print)
check "no temporary files are left in the output" [ -z "$leftovers" ]

run_in "$GOOD" build -i assets -o out -v --no-cache
check "verbose mode lists each cooked asset and each skipped file" \
    all_true 'status_is 0' 'stdout_has "cooked models/cube.obj -> models/cube.kmesh"' \
    'stdout_has "skipped docs/readme.txt"'

run_in "$GOOD" build -i assets -o out -q
check "quiet mode prints nothing when all is well" \
    all_true 'status_is 0' '[ ! -s "$SCRATCH/stdout" ]' '[ ! -s "$SCRATCH/stderr" ]'

DEFAULTS="$SCRATCH/defaults"
make_good_tree "$DEFAULTS"
run_in "$DEFAULTS"
check "kiln alone builds assets/ into runtime/" \
    all_true 'status_is 0' '[ -s "$DEFAULTS/runtime/models/cube.kmesh" ]'

NESTED="$SCRATCH/nested"
make_good_tree "$NESTED"
run_in "$NESTED" build -i assets -o assets/cooked
run_in "$NESTED" build -i assets -o assets/cooked -v
check "an output folder inside the input is never walked" \
    all_true 'status_is 0' '! stdout_has "cooked/"' '[ ! -e "$NESTED/assets/cooked/cooked" ]'

MIXED="$SCRATCH/mixed"
make_mixed_tree "$MIXED"
run_in "$MIXED" build -i assets -o out -j2
check "one failing asset gives exit 1 and the good ones are still written" \
    all_true 'status_is 1' '[ -s "$MIXED/out/models/cube.kmesh" ]' \
    '[ -s "$MIXED/out/props/Quad.kmesh" ]' '[ ! -e "$MIXED/out/models/broken.kmesh" ]' \
    'stdout_has "; 1 failed;"' 'stdout_has "failed: models/broken.obj"'

check "the failure is reported compiler-style with its line, from the current folder" \
    stderr_has "^assets/models/broken\.obj:[0-9]+: error: "
run_in "$MIXED" build -i ./assets/ -o out -q
check "the input folder is joined as given, without a doubled slash" \
    stderr_has "^\./assets/models/broken\.obj:[0-9]+: error: "
run_in "$MIXED/assets" build -i . -o ../out -q
check "with the input folder '.', the path is the source's own" \
    stderr_has "^models/broken\.obj:[0-9]+: error: "
printf 'input: assets\noutput: yml-out\n' >"$MIXED/kiln.yml"
run_in "$MIXED" build -q
check "the input folder from kiln.yml leads the path too" \
    stderr_has "^assets/models/broken\.obj:[0-9]+: error: "
rm "$MIXED/kiln.yml"

run_in "$MIXED" build -i assets -o out -q
check "quiet mode still prints errors, and only errors" \
    all_true 'status_is 1' '[ ! -s "$SCRATCH/stdout" ]' 'stderr_has "broken\.obj:[0-9]+: error: "' \
    'stderr_lacks "warning|note"'

J1="$SCRATCH/jobs1"
J2="$SCRATCH/jobs2"
make_mixed_tree "$J1"
make_mixed_tree "$J2"
for i in 1 2 3 4 5 6; do write_quad "$J1/assets/many/quad$i.obj"; write_quad "$J2/assets/many/quad$i.obj"; done
run_in "$J1" build -i assets -o out -j1
run_in "$J2" build -i assets -o out -j2
# The build cache records inodes and mtimes: it is the one file that differs.
check "-j1 and -j2 produce byte-identical trees" diff -r -x .kiln-cache "$J1/out" "$J2/out"

VERIFY="$SCRATCH/verify"
make_good_tree "$VERIFY"
run_in "$VERIFY" build -i assets -o out --verify
check "--verify cooks and verifies with exit 0" \
    all_true 'status_is 0' '[ -s "$VERIFY/out/models/cube.kmesh" ]'

# ---------------------------------------------------------------------------
# info
# ---------------------------------------------------------------------------

echo "notes" >"$GOOD/out/notes.txt"
run_in "$GOOD" info -o out
check "info lists each mesh with its counts and the totals" \
    all_true 'status_is 0' 'stdout_has "^models/cube\.kmesh$"' 'stdout_has "[0-9]+ vertices, 12 triangles"' \
    'stdout_has "position:f32x3"' 'stdout_has "aabb: min \(-1, -1, -1\) max \(1, 1, 1\)"' \
    'stdout_has "^total: 8 files, [0-9]+ bytes"' \
    'stdout_has "kinds: other 1, mesh 2, material 2, texture 0, manifest 1, scene 2"' \
    'stdout_has "^  manifest: [0-9]+ bytes, 8 refs: mesh 2 material 4 scene 2; 2 asset IDs$"' \
    'stdout_has "^  materials: [0-9]+ bytes, 1 row; alpha: opaque 1, mask 0, blend 0; double-sided 0$"'

run_in "$GOOD" info out/models/cube.kmesh
check "info FILE.kmesh describes that mesh alone" \
    all_true 'status_is 0' 'stdout_has "^out/models/cube\.kmesh$"' 'stdout_has "^  mesh: [0-9]+ bytes, [0-9]+ vertices, 12 triangles"' \
    'stdout_lacks "Quad|^total:"'
run_in "$GOOD" info --json out/models/cube.kmat
check "info --json FILE.kmat is one JSON object of it" \
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["kind"] == "material" and d["materials"] == 1, d' "$SCRATCH/stdout"
cp "$GOOD/out/assets.kman" "$SCRATCH/copy.kman"
run_in "$SCRATCH" info copy.kman
check "info FILE.kman describes a manifest under any name" \
    all_true 'status_is 0' 'stdout_has "^  manifest: [0-9]+ bytes, [0-9]+ refs"'
run_in "$GOOD" build -i assets -o packed --pack -q
run_in "$GOOD" info --json packed.kpak
check "info --json FILE.kpak lists the pack's entries" \
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["kind"] == "pack" and any(e["path"] == "models/cube.kmesh" for e in d["entries"]), d' "$SCRATCH/stdout"
run_in "$GOOD" info packed.kpak
check "info FILE.kpak prints the pack's layout" all_true 'status_is 0' 'stdout_has "^pack: packed\.kpak "'
printf 'not a mesh at all, just words' >"$SCRATCH/corrupt.kmesh"
run_in "$SCRATCH" info corrupt.kmesh
check "info on a corrupt file names it and fails" \
    all_true 'status_is 1' 'stderr_has "^corrupt\.kmesh: error: "' '[ ! -s "$SCRATCH/stdout" ]'
run_in "$SCRATCH" info --json corrupt.kmesh
check "so does info --json" all_true 'status_is 1' 'stderr_has "^corrupt\.kmesh: error: "'
run_in "$GOOD" info assets/models/cube.obj
check "info on a file kiln did not cook says so" \
    all_true 'status_is 1' 'stderr_has "^assets/models/cube\.obj: error: not a cooked kiln file"'
run_in "$GOOD" info out/models/missing.kmesh
check "info on a missing file names it" \
    all_true 'status_is 1' 'stderr_has "^out/models/missing\.kmesh: error: cannot open"'

run_in "$GOOD" info -o out --json
cp "$SCRATCH/stdout" "$SCRATCH/info.json"
json_ok() {
    python3 -m json.tool "$SCRATCH/info.json" >/dev/null &&
        python3 - "$SCRATCH/info.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
files = {f["path"]: f for f in doc["files"]}
cube = files["models/cube.kmesh"]
assert doc["output"] == "out"
assert cube["kind"] == "mesh" and cube["triangles"] == 12 and cube["bytes"] > 0
assert cube["attributes"][0]["semantic"] == "position"
assert cube["aabb"]["min"] == [-1, -1, -1]
assert files["notes.txt"]["kind"] == "other"
assert doc["totals"]["files"] == 8 and doc["totals"]["kinds"]["mesh"] == 2
assert doc["totals"]["kinds"]["scene"] == 2 and files["models/cube.kscene"]["nodes"] == 1
assert doc["totals"]["kinds"]["material"] == 2
assert files["models/cube.kmat"]["materials"] == 1
assert files["assets.kman"]["refs_per_kind"]["mesh"] == 2
assert files["assets.kman"]["asset_ids"] == 2  # the two models: one ID each
EOF
}
check "info --json prints one valid JSON document with the same facts" \
    all_true 'status_is 0' json_ok

mkdir -p "$SCRATCH/quote\"dir"
cp -r "$GOOD/out" "$SCRATCH/quote\"dir/o\\ut"
run_in "$SCRATCH" info -o "quote\"dir/o\\ut" --json
check "info --json escapes strings" python3 -m json.tool "$SCRATCH/stdout" /dev/null

run_in "$GOOD" info -o out -q
check "info -q prints the totals only" \
    all_true 'status_is 0' 'stdout_has "^total: 8 files"' '! stdout_has "^models/cube\.kmesh$"' \
    '! stdout_has "^output:"'

# ---------------------------------------------------------------------------
# check
# ---------------------------------------------------------------------------

run_in "$GOOD" check -o out
check "check passes a good tree" \
    all_true 'status_is 0' 'stdout_has "^kiln check: 7 files, 0 problems$"'

CORRUPT="$SCRATCH/corrupt"
cp -r "$GOOD" "$CORRUPT"
target="$CORRUPT/out/models/cube.kmesh"
size=$(stat -c %s "$target")
original=$(od -An -tx1 -j $((size / 2)) -N1 "$target" | tr -d ' ')
if [ "$original" = "5a" ]; then byte='\x5b'; else byte='\x5a'; fi
printf "$byte" | dd of="$target" bs=1 seek=$((size / 2)) conv=notrunc status=none
run_in "$CORRUPT" check -o out
check "check fails after one byte of a cooked file changes" \
    all_true 'status_is 1' 'stderr_has "^out/models/cube\.kmesh: error: "' \
    'stdout_has "kiln check: 7 files, 1 problem$"'

TRUNC="$SCRATCH/truncated"
cp -r "$GOOD" "$TRUNC"
truncate -s 100 "$TRUNC/out/props/Quad.kmesh"
run_in "$TRUNC" check -o out
check "check fails on a truncated cooked file" \
    all_true 'status_is 1' 'stderr_has "^out/props/Quad\.kmesh: error: "'

MISSING="$SCRATCH/missing-entry"
cp -r "$GOOD" "$MISSING"
rm "$MISSING/out/props/Quad.kmesh"
run_in "$MISSING" check -o out
check "check fails when a manifest entry's file is gone" \
    all_true 'status_is 1' "stderr_has \"file 'props/Quad.kmesh' does not exist\""

# The pack next to the output folder is checked too: damaged, cut short, or
# stale (a file of the folder changed since it was written).
PACKED="$SCRATCH/packed"
cp -r "$GOOD" "$PACKED"
run_in "$PACKED" build -o out --pack -q
run_in "$PACKED" check -o out
check "check passes a tree with its pack" all_true 'status_is 0' 'stdout_has "0 problems$"'
python3 -c 'import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[-64] ^= 1; open(p, "wb").write(b)' "$PACKED/out.kpak"
run_in "$PACKED" check -o out
check "check fails when a byte of the pack changes" \
    all_true 'status_is 1' "stderr_has \"^out\\.kpak: error: its '.*' differs from the output folder's\""
truncate -s 200 "$PACKED/out.kpak"
run_in "$PACKED" check -o out
check "check fails on a pack cut short" \
    all_true 'status_is 1' 'stderr_has "^out\.kpak: error: cannot be read as a pack"'
run_in "$PACKED" build -o out --pack -q
printf 'extra' >"$PACKED/out/extra.bin"
run_in "$PACKED" check -o out
check "check fails when the folder holds a file the pack lacks" \
    all_true 'status_is 1' "stderr_has \"lacks 'extra.bin' of the output folder\""

NOTABLE="$SCRATCH/no-table"
cp -r "$GOOD" "$NOTABLE"
rm "$NOTABLE/out/props/Quad.kmat"
run_in "$NOTABLE" check -o out
check "check fails when a mesh's material table is gone" \
    all_true 'status_is 1' \
    "stderr_has \"^out/props/Quad\\.kmesh: error: 1 material slot but no readable props/Quad\\.kmat\""

# A textured model: its texture cooks as <stem>/tex_<image>.ktx2, and check
# follows the material's texture ref through the manifest to that file.
TEXTURED="$SCRATCH/textured"
mkdir -p "$TEXTURED/assets/props"
write_cube "$TEXTURED/assets/props/box.obj"
sed -i 's/cube\.mtl/box.mtl/' "$TEXTURED/assets/props/box.obj"
printf 'newmtl red\nKd 1 1 1\nmap_Kd wood.png\n' >"$TEXTURED/assets/props/box.mtl"
python3 - "$TEXTURED/assets/props/wood.png" <<'EOF'
import sys
from png_tool import write_png
write_png(sys.argv[1], 4, 4, b"\xc8\x64\x32\xff" * 16)
EOF
run_in "$TEXTURED" build -i assets -o out
check "a textured model cooks its material table and texture" \
    all_true 'status_is 0' '[ -s "$TEXTURED/out/props/box.kmat" ]' \
    '[ -s "$TEXTURED/out/props/box/wood.ktx2" ]'
run_in "$TEXTURED" info -o out
check "info counts a material's textured slots" \
    all_true 'status_is 0' 'stdout_has "^  textured slots: base_color 1, metallic_roughness 0"'
run_in "$TEXTURED" check -o out
check "check passes a textured tree" all_true 'status_is 0' 'stdout_has ", 0 problems$"'
rm "$TEXTURED/out/props/box/wood.ktx2"
run_in "$TEXTURED" check -o out
check "check fails when a material's texture file is gone" \
    all_true 'status_is 1' \
    "stderr_has \"^out/props/box\\.kmat: error: material 0 base_color texture 'props/box/wood' \\(props/box/wood\\.ktx2\\) does not exist\""

# Material extensions kiln does not cook are listed as dropped, not lost.
DROPPED="$SCRATCH/dropped"
mkdir -p "$DROPPED/assets"
python3 - "$DROPPED/assets/coat.gltf" <<'EOF'
import base64, json, struct, sys
data = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)
doc = {
    "asset": {"version": "2.0"},
    "extensionsUsed": ["KHR_materials_clearcoat", "KHR_materials_sheen"],
    "buffers": [{"byteLength": len(data),
                 "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}],
    "bufferViews": [{"buffer": 0, "byteLength": len(data)}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                   "min": [0, 0, 0], "max": [1, 1, 0]}],
    "materials": [{"name": "Coat Paint", "alphaMode": "MASK", "doubleSided": True,
                   "extensions": {"KHR_materials_clearcoat": {"clearcoatFactor": 1},
                                  "KHR_materials_sheen": {}}}],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "material": 0}]}],
    "nodes": [{"mesh": 0}], "scenes": [{"nodes": [0]}],
}
open(sys.argv[1], "w").write(json.dumps(doc))
EOF
run_in "$DROPPED" build -i assets -o out
run_in "$DROPPED" info -o out
check "info lists a material table's alpha modes, names, flags and dropped extensions" \
    all_true 'status_is 0' 'stdout_has "^coat\.kmat$"' \
    'stdout_has "^  materials: [0-9]+ bytes, 1 row; alpha: opaque 0, mask 1, blend 0; double-sided 1$"' \
    'stdout_has "^  shadows: cast 1, receive 1; transparent 0$"' \
    'stdout_has "^  names: Coat Paint$"' \
    'stdout_has "^  dropped extensions and maps: KHR_materials_clearcoat \(1 material: Coat Paint\), KHR_materials_sheen \(1 material: Coat Paint\)$"'
# The build's warnings stay readable after it: info lists each cooked asset's
# messages from the build cache, as the build printed them.
run_in "$DROPPED" build -i assets -o out
cp "$SCRATCH/stderr" "$SCRATCH/dropped-build.txt"
warned=$(grep -c ': warning: ' "$SCRATCH/dropped-build.txt" || true)
# The build names sources from the current folder (assets/coat.gltf); its
# cache, and so info, keeps them relative to the input folder (coat.gltf).
first_warning=$(grep -m1 ': warning: ' "$SCRATCH/dropped-build.txt" | sed 's|^assets/||' || true)
run_in "$DROPPED" info -o out
check "info lists the warnings the last build printed ($warned), from the cache" \
    all_true 'status_is 0' 'test "$warned" -ge 1' \
    'stdout_has "^last build.s messages \(\.kiln-cache\):$"' 'stdout_has "^coat\.gltf$"' \
    'grep -qF -- "  $first_warning" "$SCRATCH/stdout"' \
    'stdout_has "^warnings: $warned in 1 asset at the last build \(listed above\)$"'
run_in "$DROPPED" info -o out --json
check "info --json lists them under last_build, counted in the totals" \
    python3 - "$SCRATCH/stdout" "$SCRATCH/dropped-build.txt" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
printed = [l.rstrip("\n").removeprefix("assets/") for l in open(sys.argv[2])
           if ": warning: " in l or ": note: " in l]
[entry] = doc["last_build"]
assert entry["source"] == "coat.gltf", entry
assert entry["lines"] == printed, (entry["lines"], printed)
assert doc["totals"]["warnings"] == sum(": warning: " in l for l in printed) >= 1
assert doc["totals"]["warned_assets"] == 1
EOF
run_in "$DROPPED" info -o out -q
check "info -q counts them" \
    all_true 'status_is 0' 'stdout_lacks "coat\.gltf"' \
    'stdout_has "^warnings: $warned in 1 asset at the last build \(kiln info without -q lists them\)$"'
# material.flags from a kiln.yml rule: by name glob, later lines win; a word
# that is not a flag fails the asset, naming it.
FLAGS="$SCRATCH/flags"
mkdir -p "$FLAGS/assets"
cp "$DROPPED/assets/coat.gltf" "$FLAGS/assets/"
printf 'rules:\n  - match: "*.gltf"\n    material.flags: ["*=no_cast_shadows", "Coat*=no_receive_shadows transparent"]\n' \
    >"$FLAGS/kiln.yml"
run_in "$FLAGS" build
run_in "$FLAGS" info -o runtime
check "material.flags in a rule sets a material's flags by its name" \
    all_true 'status_is 0' 'stdout_has "^  shadows: cast 0, receive 0; transparent 1$"'
printf 'rules:\n  - match: "*.gltf"\n    material.flags: ["Coat*=glossy"]\n' >"$FLAGS/kiln.yml"
run_in "$FLAGS" build
check "a material.flags word that is not a flag fails the asset, naming it" \
    all_true 'status_is 1' 'stderr_has "material\.flags: .glossy. is not a flag"'
printf 'garbage\n' >"$DROPPED/out/.kiln-cache"
run_in "$DROPPED" info -o out
check "an unreadable cache is a note, not a failure" \
    all_true 'status_is 0' 'stderr_has "\.kiln-cache: note: cannot read the build cache"' \
    'stdout_lacks "^last build"' 'stdout_has "^coat\.kmat$"'

STRAY="$SCRATCH/stray"
cp -r "$GOOD" "$STRAY"
cp "$STRAY/out/models/cube.kmesh" "$STRAY/out/models/stray.kmesh"
run_in "$STRAY" check -o out
check "check fails on a cooked file the manifest does not name" \
    all_true 'status_is 1' 'stderr_has "models/stray\.kmesh: error: not named by assets\.kman"'

run_in "$STRAY" check -o out --json
check_json_lists_stray() {
    python3 - "$SCRATCH/stdout" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["output"] == "out" and doc["ok"] is False and doc["files"] == 8
assert doc["problem_count"] == len(doc["problems"]) == 2, doc
assert doc["problems"][0] == {"path": "out/models/stray.kmesh",
                              "message": "not named by assets.kman"}, doc
assert doc["problems"][1] == {"path": "out/models/stray.kmesh",
                              "message": "1 material slot but no readable models/stray.kmat"}, doc
EOF
}
check "check --json lists every problem with its path and message" \
    all_true 'status_is 1' check_json_lists_stray \
    'stderr_has "models/stray\.kmesh: error: not named by assets\.kman"'

run_in "$GOOD" check -o out -q
check "check -q prints nothing on a good tree" \
    all_true 'status_is 0' '[ ! -s "$SCRATCH/stdout" ]' '[ ! -s "$SCRATCH/stderr" ]'
run_in "$STRAY" check -o out --quiet
check "check -q still prints the problems" \
    all_true 'status_is 1' '[ ! -s "$SCRATCH/stdout" ]' 'stderr_has "not named by assets\.kman"'
run_in "$GOOD" check -o out --json
check "check --json on a good tree says ok" \
    all_true 'status_is 0' 'stdout_has "\"ok\":true,\"files\":7,\"problem_count\":0,\"problems\":\[\]"'

COLLIDE="$SCRATCH/collide"
cp -r "$GOOD" "$COLLIDE"
cp "$COLLIDE/assets/models/cube.obj" "$COLLIDE/assets/models/Cube.OBJ"
run_in "$COLLIDE" build -i assets -o fresh
check "two sources with one ref fail the build loudly, neither cooked, both counted" \
    all_true 'status_is 1' \
    "stderr_has \"^assets/models/Cube.OBJ: error: its asset ref 'models/cube' is also the ref of 'models/cube.obj'\"" \
    "stderr_has \"^assets/models/cube.obj: error: its asset ref 'models/cube' is also the ref of 'models/Cube.OBJ'\"" \
    'stdout_has "; 2 failed;"' '[ ! -e "$COLLIDE/fresh/models/cube.kmesh" ]'
run_in "$COLLIDE" build -i assets -o out2 --json
check "--json counts the two sources with one ref as failed" \
    all_true 'status_is 1' 'stdout_has "\"failed\":2,"' 'stdout_has "\"ok\":false"'

# The progress line on a terminal (script(1) gives kiln one) ends at
# [total/total]: assets cooked through a model and up-to-date ones count too.
PROGRESS="$SCRATCH/progress"
mkdir -p "$PROGRESS"
cp -r "$KILN_REPO/examples/assets" "$PROGRESS/assets"
last_counter() {
    (cd "$PROGRESS" && TERM=xterm script -qec "\"$KILN\" build -i assets -o out -j1" /dev/null) |
        tr '\r' '\n' | grep -o '\[[0-9]*/[0-9]*\]' | tail -1
}
counter_complete() { # "[6/6]" yes, "[5/6]" no
    local done=${1#[} total=${1#*/}
    [ -n "$1" ] && [ "${done%%/*}" = "${total%]}" ]
}
first=$(last_counter)
again=$(last_counter)
check "the progress line counts every asset it will finish, cooked or not" \
    all_true 'counter_complete "$first"' '[ "$again" = "$first" ]'

# An asset cooking for more than 2 s shows in the progress line with its
# stage and time, so the line never stands still; KILN_TEST_SLOW_STAGE (a
# test hook of the cooker, core.h) makes the texture stage take 3 s.
SLOW="$SCRATCH/slow"
mkdir -p "$SLOW/assets/ui"
cp "$KILN_REPO/examples/assets/props/crate.png" "$SLOW/assets/ui/logo.png"
(cd "$SLOW" && KILN_TEST_SLOW_STAGE=texture:3 TERM=xterm \
    script -qec "\"$KILN\" build -i assets -o out -j1" /dev/null) | tr '\r' '\n' >"$SCRATCH/stdout"
check "on a terminal, a slow asset shows with its stage and time" \
    all_true 'stdout_has "^(.\[K)?\[0/1\] cooking ui/logo.png \(texture, [2-9] s\)$"' \
    'stdout_has "\[1/1\]"'
set +e
(cd "$SLOW" && KILN_TEST_SLOW_STAGE=texture:3 "$KILN" build -i assets -o out2 -j1) \
    >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"
status=$?
set -e
check "in a log, a slow asset prints nothing more" \
    all_true 'status_is 0' '! grep -q cooking "$SCRATCH/stderr"' '[ ! -s "$SCRATCH/stderr" ]' \
    '! grep -q $'"'"'\r'"'"' "$SCRATCH/stdout"'

# A model's own texture may share its stem (crate.obj reads crate.png): it is
# cooked through the model. A standalone image with a model's ref is not.
STEM="$SCRATCH/stem"
mkdir -p "$STEM/assets/props"
cp "$KILN_REPO"/examples/assets/props/crate.* "$STEM/assets/props/"
run_in "$STEM" build -i assets -o out
check "a model and its own texture with one stem cook" \
    all_true 'status_is 0' '[ -s "$STEM/out/props/crate.kmesh" ]' '[ -s "$STEM/out/props/crate/crate.ktx2" ]'
cp "$KILN_REPO"/examples/assets/props/crate.png "$STEM/assets/props/pebble.png"
cp "$KILN_REPO"/examples/assets/props/pebble.obj "$STEM/assets/props/pebble.obj"
run_in "$STEM" build -i assets -o out
check "a standalone image with a model's ref fails; the model cooks" \
    all_true 'status_is 1' '[ -s "$STEM/out/props/pebble.kmesh" ]' '[ ! -e "$STEM/out/props/pebble.ktx2" ]' \
    "stderr_has \"^assets/props/pebble.png: error: its asset ref 'props/pebble' is also the ref of 'props/pebble.obj'\"" \
    'stdout_has "; 1 failed;"'

run_in "$GOOD" check -o missing
check "check on a missing output folder fails clearly" \
    all_true 'status_is 1' 'stderr_has "output folder .missing. does not exist"'

# ---------------------------------------------------------------------------
# points and lines
# ---------------------------------------------------------------------------

TOPO="$SCRATCH/topology"
mkdir -p "$TOPO/assets"
cat >"$TOPO/assets/rig.obj" <<'EOF'
# a triangle, a cable through its corners and a few markers
v 0 0 0
v 1 0 0
v 0 1 0
v 2 2 0
v 3 2 0
f 1 2 3
l 1 2 3 4
p 4 5
EOF
cat >"$TOPO/assets/scan.ply" <<'EOF'
ply
format ascii 1.0
element vertex 5
property float x
property float y
property float z
end_header
0 0 0
1 0 0
0 1 0
0 0 1
1 1 1
EOF
run_in "$TOPO" build -i assets -o out
check "points and lines cook: an OBJ with f, l and p, a PLY of vertices alone" \
    all_true 'status_is 0' '[ -s "$TOPO/out/rig.kmesh" ]' '[ -s "$TOPO/out/scan.kmesh" ]' \
    'stderr_lacks "nothing written"'

run_in "$TOPO" info -o out
check "info shows each mesh's topologies and their counts" \
    all_true 'status_is 0' \
    'stdout_has "^  mesh: [0-9]+ bytes, [0-9]+ vertices, 1 triangles, 3 lines, 2 points, 3 submeshes"' \
    'stdout_has "^  topology: triangles 1, lines 1, points 1 \(submeshes\)$"' \
    'stdout_has "^  lods: 1 / 1 / 1 triangles; 3 / 3 / 3 lines; 2 / [0-9]+ / [0-9]+ points"' \
    'stdout_has "^  mesh: [0-9]+ bytes, 5 vertices, 5 points, 1 submesh,"' \
    'stdout_has "^total: 7 files, [0-9]+ bytes, [0-9]+ vertices, 1 triangles, 3 lines, 7 points$"'

run_in "$TOPO" info -o out --json
cp "$SCRATCH/stdout" "$SCRATCH/topology.json"
topology_json_ok() {
    python3 - "$SCRATCH/topology.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
files = {f["path"]: f for f in doc["files"]}
rig, scan = files["rig.kmesh"], files["scan.kmesh"]
assert (rig["triangles"], rig["lines"], rig["points"]) == (1, 3, 2), rig
assert rig["topology"] == {"triangles": 1, "lines": 1, "points": 1}
assert rig["lod_lines"] == [3, 3, 3]
assert scan["topology"] == {"triangles": 0, "lines": 0, "points": 1}
assert scan["lod_points"][0] == 5 and scan["lod_points"][1] < 5, scan
assert doc["totals"]["lines"] == 3 and doc["totals"]["points"] == 7
PY
}
check "info --json lists lines, points and the topology of each mesh" \
    all_true 'status_is 0' topology_json_ok

run_in "$TOPO" check -o out
check "check passes meshes of every topology" \
    all_true 'status_is 0' 'stdout_has "0 problems$"'

# patch_submesh FILE FIELD_OFFSET VALUE BYTES: rewrites a field of submesh 1 in
# place and its checksum (XXH3-64 through the libxxhash kiln links), so that
# the data rules are what fails.
patch_submesh() {
    python3 - "$@" <<'PY'
import ctypes, struct, sys
path, field, value, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
data = bytearray(open(path, "rb").read())
for i in range(struct.unpack_from("<I", data, 16)[0]):
    fourcc, _, offset, size, _ = struct.unpack_from("<4sIQQQ", data, 48 + 32 * i)
    if fourcc == b"SUBM":
        struct.pack_into("<H" if width == 2 else "<I", data, offset + 64 + field, value)
struct.pack_into("<Q", data, 32, 0)
xxh3 = ctypes.CDLL("libxxhash.so.0").XXH3_64bits
xxh3.restype = ctypes.c_uint64
xxh3.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
struct.pack_into("<Q", data, 32, xxh3(bytes(data), len(data)))
open(path, "wb").write(data)
PY
}
BADTOPO="$SCRATCH/bad-topology"
cp -r "$TOPO" "$BADTOPO"
patch_submesh "$BADTOPO/out/rig.kmesh" 12 7 2
run_in "$BADTOPO" check -o out
check "check refuses a submesh topology the format does not know" \
    all_true 'status_is 1' 'stderr_has "^out/rig\.kmesh: error: .*submesh 1 has unknown topology 7"'
cp "$TOPO/out/rig.kmesh" "$BADTOPO/out/rig.kmesh"
patch_submesh "$BADTOPO/out/rig.kmesh" 4 5 4
run_in "$BADTOPO" check -o out
check "check refuses a line submesh with an odd index count" \
    all_true 'status_is 1' 'stderr_has "submesh 1 indices [0-9]+\+5 are not whole lines"'

# ---------------------------------------------------------------------------
# init
# ---------------------------------------------------------------------------

INIT="$SCRATCH/init"
mkdir -p "$INIT"
run_in "$INIT" init
keys_ok() {
    local key
    for key in mesh.merge mesh.meshlets mesh.meshlet_vertices mesh.meshlet_triangles mesh.lods \
        mesh.lod_ratios mesh.quantize_positions texture.compress texture.format \
        texture.quality texture.max_size texture.mipmaps texture.max_dimension \
        texture.zstd_level texture.block_align texture.target 'input:' 'output:' 'default:' 'presets:' 'desktop:' 'mobile:' \
        'rules:' 'roots:' 'always:'; do
        grep -qF -- "$key" "$INIT/kiln.yml" || { echo "kiln.yml lacks $key"; return 1; }
    done
}
check "init writes a kiln.yml documenting every key" \
    all_true 'status_is 0' '[ -s "$INIT/kiln.yml" ]' keys_ok \
    '[ -z "$(find "$INIT" -name ".kiln.yml.*")" ]'

echo "# mine" >"$INIT/kiln.yml"
run_in "$INIT" init
check "init never overwrites an existing kiln.yml" \
    all_true 'status_is 1' 'stderr_has "already exists"' '[ "$(cat "$INIT/kiln.yml")" = "# mine" ]'

# Block-compressed textures not in whole 4x4 blocks: padded by default, and
# kiln info says so (and gives the UV scale); with block_align none, info says
# Direct3D and WebGPU cannot create it.
ALIGN="$SCRATCH/align"
mkdir -p "$ALIGN/assets"
python3 - "$ALIGN/assets/odd.png" <<'EOF'
import sys
from png_tool import write_png
w, h = 30, 18
write_png(sys.argv[1], w, h, b"".join(bytes((x * 8, y * 14, 99, 255)) for y in range(h) for x in range(w)))
EOF
run_in "$ALIGN" build -i assets -o out
run_in "$ALIGN" info -o out
check "a 30x18 BC7 texture is padded to 32x20 and info gives the image's part" \
    all_true 'status_is 0' 'stdout_has "texture: 32x20, "' \
    'stdout_has "padded to whole blocks: the image is the top-left 30x18 \(clamped sampling: scale UVs by 30/32, 18/20\)"'
run_in "$ALIGN" info -o out --json
check "info --json gives the content size and whole_blocks" \
    all_true 'status_is 0' 'stdout_has "\"content_width\":30,\"content_height\":18,\"whole_blocks\":true"'
printf 'default:\n  texture.block_align: none\n' >"$ALIGN/kiln.yml"
run_in "$ALIGN" build -i assets -o out
run_in "$ALIGN" info -o out
check "with block_align none the texture keeps 30x18 and info flags it for Direct3D and WebGPU" \
    all_true 'status_is 0' 'stdout_has "texture: 30x18, "' \
    'stdout_has "not a whole number of 4x4 blocks: Direct3D and WebGPU cannot create it"'

# ---------------------------------------------------------------------------
# Extras and unknown extensions kept for the engine: kiln info lists them per
# file, --json gives their JSON, kiln check reads them.
# ---------------------------------------------------------------------------
EXTRAS="$SCRATCH/extras"
mkdir -p "$EXTRAS/assets"
cp "$(dirname "$0")/../data/extras/extras.gltf" "$EXTRAS/assets/"
run_in "$EXTRAS" build -i assets -o out
run_in "$EXTRAS" info -o out
check "info lists each file's extras: scene, mesh, material, texture and image" \
    all_true 'status_is 0' \
    'stdout_has "extras: 3 objects: document \(extras, EXT_unknown_root\), asset \(extras, EXT_asset_info\), scene 0 \(extras, EXT_scene_thing\)"' \
    'stdout_has "extras: 1 object: mesh \(extras, EXT_mesh_thing\)"' \
    'stdout_has "extras: 3 objects: material 0 \(extras, EXT_unknown_material\), texture 0/base_color \(extras, EXT_texture_thing\), image 0/base_color \(extras, EXT_image_thing\)"'
run_in "$EXTRAS" info --json out/extras.kmat
check "info --json gives the extras' JSON by object" \
    all_true 'status_is 0' 'stdout_has "\"texture 0/base_color\":\\{\"extensions\":\\{\"EXT_texture_thing\":\\{\"q\":2\\}\\},\"extras\":\\{\"tex\":\"albedo\"\\}\\}"' \
    'stdout_has "\"image 0/base_color\":\\{\"extensions\":\\{\"EXT_image_thing\":\\{\"w\":\\[1,2\\]\\}\\},\"extras\":\\{\"dpi\":300,\"photographer\":\"kiln test\"\\}\\}"'
run_in "$EXTRAS" check -o out
check "kiln check accepts the extras" all_true 'status_is 0' 'stdout_has "0 problems"'

finish cli
