#!/usr/bin/env bash
# test_build_system.sh — kiln.yml, the incremental cache and the build order,
# end to end through the kiln executable.
#
# Environment (set by ctest): KILN (the executable), KILN_TMP (scratch folder).
# Prints one line per check and a final "build system: N passed, M failed".
set -euo pipefail

source "$(dirname "$0")/harness.sh" build_system
# summary COOKED UP_TO_DATE: the build's last line says so.
summary() { stdout_has "cooked $1 assets? .*; $2 up to date$"; }
same() { cmp -s "$1" "$2"; }

write_cube() { # a cube with a material from an .mtl
    mkdir -p "$(dirname "$1")"
    cat >"$1" <<'EOF'
mtllib cube.mtl
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
    printf 'newmtl red\nKd 0.8 0.1 0.1\n' >"$(dirname "$1")/cube.mtl"
}

write_quad() {
    mkdir -p "$(dirname "$1")"
    printf 'v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1 4//1\n' >"$1"
}

write_pngs() { # 4x4 red RGBA PNGs at each path given
    python3 - "$@" <<'EOF'
import os, sys
from png_tool import write_png
for p in sys.argv[1:]:
    os.makedirs(os.path.dirname(p), exist_ok=True)
    write_png(p, 4, 4, b"\xff\0\0\xff" * 16)
EOF
}

make_tree() { # $1: project folder (kiln.yml goes at its top)
    rm -rf "$1"
    write_cube "$1/assets/models/cube.obj"
    write_quad "$1/assets/props/quad.obj"
    write_quad "$1/assets/big/tree.obj"
}

# ---------------------------------------------------------------------------
# kiln.yml
# ---------------------------------------------------------------------------

P="$SCRATCH/project"
make_tree "$P"
cat >"$P/kiln.yml" <<'EOF'
input: assets
output: cooked
preset: desktop
colour: blue
default:
  mesh.lods: 2
presets:
  desktop:
    texture.format: bc7
  mobile:
    output: cooked_mobile
    mesh.lods: 1
rules:
  - match: "big/*"
    mesh.lods: 0
EOF
mkdir -p "$P/assets/sub"
run_in "$P/assets/sub"
check "kiln.yml is found in an ancestor; its input/output are relative to it" \
    all_true 'status_is 0' '[ -s "$P/cooked/models/cube.kmesh" ]' '[ -s "$P/cooked/assets.kman" ]'
check "an unknown key is a warning with file and line" \
    stderr_has '(^|/)kiln.yml:4: warning: unknown key .colour.'

run_in "$P" --list-presets
check "--list-presets lists the presets" \
    all_true 'status_is 0' 'stdout_has "^desktop \(default\)"' 'stdout_has "^mobile"'

run_in "$P" --preset console
check "an unknown preset is a usage error listing the defined ones" \
    all_true 'status_is 2' 'stderr_has "unknown preset .console. .*desktop, mobile"'

run_in "$P" --preset mobile
check "a preset's output folder is used" \
    all_true 'status_is 0' '[ -s "$P/cooked_mobile/props/quad.kmesh" ]'
check "the preset's settings reach the cooked files" \
    all_true '! same "$P/cooked/props/quad.kmesh" "$P/cooked_mobile/props/quad.kmesh"'

run_in "$P" --preset mobile -o "$P/elsewhere"
check "-o overrides the preset's and the file's output" \
    all_true 'status_is 0' '[ -s "$P/elsewhere/props/quad.kmesh" ]'

run_in "$P" --config "$P/kiln.yml" -o "$P/norule" -q
cp "$P/kiln.yml" "$SCRATCH/norule.yml"
sed -i 's|input: assets|input: project/assets|; /big/,$d' "$SCRATCH/norule.yml"
run_in "$SCRATCH" --config norule.yml -o "$P/norule2" -q
check "a rule changes exactly the assets it matches" \
    all_true 'status_is 0' '! same "$P/norule/big/tree.kmesh" "$P/norule2/big/tree.kmesh"' \
    'same "$P/norule/props/quad.kmesh" "$P/norule2/props/quad.kmesh"'

BAD="$SCRATCH/bad"
mkdir -p "$BAD/assets"
printf 'default:\n  mesh.lods: lots\n' >"$BAD/kiln.yml"
run_in "$BAD"
check "an invalid value is an error with file and line, and nothing is built" \
    all_true 'status_is 1' 'stderr_has "^kiln.yml:2: error: mesh.lods: expected a whole number"' \
    '[ ! -e "$BAD/runtime" ]'

# ---------------------------------------------------------------------------
# Incremental cache
# ---------------------------------------------------------------------------

C="$SCRATCH/cache"
make_tree "$C"
run_in "$C" -o out
check "a first build cooks everything and writes the cache" \
    all_true 'status_is 0' 'summary 3 0' '[ -s "$C/out/.kiln-cache" ]'
cp -r "$C/out" "$SCRATCH/clean_out"

run_in "$C" -o out
check "a second build cooks nothing and keeps the manifest complete" \
    all_true 'status_is 0' 'summary 0 3' 'same "$C/out/assets.kman" "$SCRATCH/clean_out/assets.kman"'

if [ "$(id -u)" != 0 ]; then
    chmod 000 "$C/assets/models/cube.obj" "$C/assets/models/cube.mtl"
    run_in "$C" -o out
    chmod 644 "$C/assets/models/cube.obj" "$C/assets/models/cube.mtl"
    check "a no-op build reads no source bytes (unreadable sources stay up to date)" \
        all_true 'status_is 0' 'summary 0 3'
fi

touch -d '2001-01-01' "$C/assets/props/quad.obj"
run_in "$C" -o out -v
check "a touched but unchanged source is up to date (its bytes are hashed)" \
    all_true 'status_is 0' 'summary 0 3' 'stdout_has "^up to date props/quad.obj"'

echo "# changed" >>"$C/assets/props/quad.obj"
run_in "$C" -o out -v
check "a changed source is cooked again, alone" \
    all_true 'status_is 0' 'summary 1 2' 'stdout_has "^cooked props/quad.obj"'

echo "Ks 0.5 0.5 0.5" >>"$C/assets/models/cube.mtl"
run_in "$C" -o out -v
check "a changed dependency (.mtl) cooks its model again" \
    all_true 'status_is 0' 'summary 1 2' 'stdout_has "^cooked models/cube.obj"'

printf 'rules:\n  - match: "big/*"\n    mesh.lods: 0\n' >"$C/kiln.yml"
run_in "$C" -o out -v
check "a new rule cooks exactly the assets it matches" \
    all_true 'status_is 0' 'summary 1 2' 'stdout_has "^cooked big/tree.obj"'

printf 'rules:\n  - match: "big/*"\n    mesh.lods: 0\npresets:\n  low:\n    mesh.meshlets: false\n' \
    >"$C/kiln.yml"
run_in "$C" -o out
check "adding an unused preset changes nothing" all_true 'status_is 0' 'summary 0 3'
run_in "$C" -o out --preset low
check "switching preset cooks the assets whose settings changed" \
    all_true 'status_is 0' 'summary 3 0'
rm "$C/kiln.yml"

run_in "$C" -o out
KILN_TEST_ENCODER_VERSION=999 run_in "$C" -o out
check "a new encoder version cooks everything" all_true 'status_is 0' 'summary 3 0'

run_in "$C" -o out # back to the real encoder version
rm "$C/out/props/quad.kmesh"
run_in "$C" -o out
check "a deleted output is cooked again" \
    all_true 'status_is 0' 'summary 1 2' '[ -s "$C/out/props/quad.kmesh" ]'

run_in "$C" -o out --no-cache
check "--no-cache cooks everything" all_true 'status_is 0' 'summary 3 0'

rm -r "$C/assets/big"
run_in "$C" -o out
check "a removed source has its outputs (and emptied folders) removed" \
    all_true 'status_is 0' 'summary 0 2' '[ ! -e "$C/out/big/tree.kmesh" ]' '[ ! -e "$C/out/big" ]'

printf 'garbage' >"$C/out/.kiln-cache"
run_in "$C" -o out
check "a corrupt cache is a warning and everything is cooked" \
    all_true 'status_is 0' 'summary 2 0' 'stderr_has "\.kiln-cache: warning: ignoring the build cache"'

run_in "$C" -o out
sed -i 's/^out\t/out\t..\//' "$C/out/.kiln-cache" 2>/dev/null || true
run_in "$C" -o out
check "a cache naming a path outside the output is not trusted" \
    all_true 'status_is 0' 'summary 2 0' 'stderr_has "ignoring the build cache"'

# An asset that cooks with warnings is cached with them: a missing texture
# warns on every build, from the cache, until the texture appears.
W="$SCRATCH/warned"
make_tree "$W"
printf 'newmtl red\nKd 1 1 1\nmap_Kd tex/missing.png\n' >"$W/assets/models/cube.mtl"
run_in "$W" -o out -j1
cp "$SCRATCH/stderr" "$SCRATCH/warned_first.err"
check "a missing texture is a warning on the first build" \
    all_true 'status_is 0' 'summary 3 0' \
    'stderr_has "^assets/models/cube.mtl:3: warning: texture .tex/missing.png. .*not found$"'
run_in "$W" -o out -j1
check "the next build cooks nothing and prints the same warnings" \
    all_true 'status_is 0' 'summary 0 3' 'same "$SCRATCH/stderr" "$SCRATCH/warned_first.err"'
run_in "$W" -o out -j1 --json
json_warnings_match() {
    python3 - "$SCRATCH/stdout" "$SCRATCH/warned_first.err" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
# stderr names sources from here (assets/...), the JSON from the input folder
lines = [line.removeprefix("assets/") for line in open(sys.argv[2]).read().splitlines()]
assert doc["cooked"] == 0 and doc["up_to_date"] == 3, doc
assert [w["text"] for w in doc["warnings"]] == lines, (doc["warnings"], lines)
assert {w["source"] for w in doc["warnings"]} == {"models/cube.obj"}, doc["warnings"]
EOF
}
if command -v python3 >/dev/null; then
    check "--json lists the replayed warnings as they were printed" \
        all_true 'status_is 0' json_warnings_match 'same "$SCRATCH/stderr" "$SCRATCH/warned_first.err"'
    write_pngs "$W/assets/models/tex/missing.png"
    run_in "$W" -o out -j1 -v
    check "creating the missing texture cooks its model again, without the warning" \
        all_true 'status_is 0' 'summary 1 2' 'stdout_has "^cooked models/cube.obj -> .*models/cube/missing.ktx2"' \
        'stdout_has "^up to date props/quad.obj"' '! stderr_has "warning"'
    run_in "$W" -o out -j1
    check "... after which nothing is cooked" all_true 'status_is 0' 'summary 0 3' '[ ! -s "$SCRATCH/stderr" ]'
fi
rm -rf "$W/assets/models/tex"
run_in "$W" -o out -j1
run_in "$W" -o out -j1 -q
check "quiet replays print no warnings" \
    all_true 'status_is 0' '[ ! -s "$SCRATCH/stderr" ]' '[ ! -s "$SCRATCH/stdout" ]'
printf 'mtllib none.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$W/assets/props/quad.obj"
run_in "$W" -o out -j1
run_in "$W" -o out -j1
check "a missing .mtl is cached with its warning too" \
    all_true 'status_is 0' 'summary 0 3' 'stderr_has "^assets/props/quad.obj:1: warning: .*none.mtl"'
printf 'newmtl x\n' >"$W/assets/props/none.mtl"
run_in "$W" -o out -j1 -v
check "... and creating it cooks the model again" \
    all_true 'status_is 0' 'stdout_has "^cooked props/quad.obj"' '! stderr_has "none.mtl"'

# Replay keeps the manifest identical to a clean build.
R1="$SCRATCH/replay"
make_tree "$R1"
run_in "$R1" -o out
echo "# changed" >>"$R1/assets/props/quad.obj"
run_in "$R1" -o out
run_in "$R1" -o clean --no-cache
check "a partly replayed build gives the same tree as a clean one" \
    all_true 'status_is 0' 'diff -r -x .kiln-cache "$R1/out" "$R1/clean"'

# ---------------------------------------------------------------------------
# --dry-run: what would be cooked and why; nothing written
# ---------------------------------------------------------------------------

D="$SCRATCH/dry"
make_tree "$D"
tree_state() { # every file of the output folder with its bytes and mtime, hidden ones too
    (cd "$D" && find out -type f -printf '%p %T@ ' -exec sha256sum {} \; 2>/dev/null | sort)
}
run_in "$D" -o out -n
check "a dry run with no output folder lists every source as new and creates nothing" \
    all_true 'status_is 0' 'stdout_has "^would cook models/cube.obj: new \(not in the cache\)$"' \
    'stdout_has "^kiln: dry run: 3 assets would be cooked; 0 failed; 0 up to date; nothing written$"' \
    '[ ! -e "$D/out" ]'
run_in "$D" -o out
run_in "$D" -o out --dry-run
check "a dry run after a build: nothing would be cooked" \
    all_true 'status_is 0' '! stdout_has "^would cook"' \
    'stdout_has "^kiln: dry run: 0 assets would be cooked; 0 failed; 3 up to date; nothing written$"'
echo "# changed" >>"$D/assets/props/quad.obj"
echo "Ks 0.5 0.5 0.5" >>"$D/assets/models/cube.mtl"
rm "$D/out/models/cube.kmat"
printf 'rules:\n  - match: "big/*"\n    mesh.lods: 0\n' >"$D/kiln.yml"
touch "$D/out/.tree.kmesh.kiln-AbC123" # a killed build's temporary: a build would delete it
before=$(tree_state)
run_in "$D" -o out -n
check "a dry run says why each asset would be cooked" \
    all_true 'status_is 0' \
    'stdout_has "^would cook models/cube.obj: dependency changed \(models/cube.mtl\), output missing \(models/cube.kmat\)$"' \
    'stdout_has "^would cook props/quad.obj: source changed$"' \
    'stdout_has "^would cook big/tree.obj: settings changed$"' \
    'stdout_has "3 assets would be cooked; 0 failed; 0 up to date"'
check "a dry run writes nothing: no cache, output, manifest, and no temporary deleted" \
    all_true '[ "$(tree_state)" = "$before" ]' '[ -e "$D/out/.tree.kmesh.kiln-AbC123" ]'
KILN_TEST_ENCODER_VERSION=999 run_in "$D" -o out -n --json
if command -v python3 >/dev/null; then
    check "--dry-run --json lists the same, reason by reason" \
        python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
got = {a['source']: [(r['reason'], r.get('path')) for r in a['reasons']] for a in d['would_cook_assets']}
assert d['dry_run'] is True and d['would_cook'] == 3 and d['up_to_date'] == 0, d
assert got == {
    'big/tree.obj': [('encoder-changed', None), ('settings-changed', None)],
    'models/cube.obj': [('encoder-changed', None), ('dependency-changed', 'models/cube.mtl'),
                        ('output-missing', 'models/cube.kmat')],
    'props/quad.obj': [('encoder-changed', None), ('source-changed', None)],
}, got" "$SCRATCH/stdout"
fi
run_in "$D" -o out -v
check "the build then cooks exactly what the dry run listed" \
    all_true 'status_is 0' 'summary 3 0' '[ ! -e "$D/out/.tree.kmesh.kiln-AbC123" ]'
rm "$D/assets/models/cube.mtl"
run_in "$D" -o out -n
check "a dry run names a dependency that was removed" \
    all_true 'status_is 0' 'stdout_has "^would cook models/cube.obj: dependency removed \(models/cube.mtl\)$"'
run_in "$D" -o out -n --no-cache -q
check "--no-cache is a reason; -q keeps the list" \
    all_true 'status_is 0' 'stdout_has "^would cook props/quad.obj: --no-cache$"' '! stdout_has "^kiln:"'

# ---------------------------------------------------------------------------
# Build order: files a model reads are cooked through it, not standalone
# ---------------------------------------------------------------------------

if command -v python3 >/dev/null; then
    O="$SCRATCH/order"
    make_tree "$O"
    printf 'newmtl red\nKd 1 1 1\nmap_Kd red.png\n' >"$O/assets/models/cube.mtl"
    write_pngs "$O/assets/models/red.png" "$O/assets/ui/logo.png"
    run_in "$O" -o out -v -j2
    check "a texture a model reads is cooked through the model, not standalone" \
        all_true 'stdout_has "^cooked through models/cube.obj: models/red.png"' \
        '! stdout_has "^cooked models/red.png"'
    check "a texture no model reads is cooked standalone" \
        stdout_has "^cooked ui/logo.png"
    printf 'newmtl red\nKd 1 1 1\nmap_Kd late.png\n' >"$O/assets/models/cube.mtl"
    run_in "$O" -o out -j2
    write_pngs "$O/assets/models/late.png"
    run_in "$O" -o out -n -v
    check "a dry run: a texture a model looked for and that appeared is read through it" \
        all_true 'status_is 0' \
        'stdout_has "^would cook models/cube.obj: file it looked for appeared \(models/late.png\)$"' \
        'stdout_has "^would be cooked through models/cube.obj: models/late.png$"' \
        '! stdout_has "^would cook models/late.png"'
fi

# ---------------------------------------------------------------------------
# Reachability: --roots, always:, roots:, info --unreferenced
# ---------------------------------------------------------------------------

if command -v python3 >/dev/null; then
    T="$SCRATCH/reach"
    make_tree "$T"
    printf 'newmtl red\nKd 1 1 1\nmap_Kd red.png\n' >"$T/assets/models/cube.mtl"
    write_pngs "$T/assets/models/red.png" "$T/assets/ui/logo.png" "$T/assets/ui/icon.png"
    printf 'always:\n  - "ui/logo.*"\n' >"$T/kiln.yml"
    run_in "$T" -o full
    run_in "$T" -o full --roots models/cube.obj -v
    check "--roots cooks the root, what it reads, and always: (nothing else)" \
        all_true 'status_is 0' '[ -s "$T/full/models/cube.kmesh" ]' \
        '[ -s "$T/full/models/cube/red.ktx2" ]' '[ -s "$T/full/ui/logo.ktx2" ]' \
        '[ ! -e "$T/full/props/quad.kmesh" ]' '[ ! -e "$T/full/big" ]' \
        '[ ! -e "$T/full/ui/icon.ktx2" ]' 'stdout_has "^kiln: 3 assets not reached from the roots"' \
        'stdout_has "^cooked through models/cube.obj: models/red.png"'
    run_in "$T" -o clean --roots 'models/c*.obj'
    check "a --roots build after a full one gives the tree of a clean --roots build" \
        all_true 'status_is 0' 'diff -r -x .kiln-cache "$T/full" "$T/clean"' 'summary 2 0'
    run_in "$T" -o clean --roots models/cube.obj --json
    check "--json counts the assets not reached" \
        all_true 'status_is 0' \
        'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"up_to_date\"]==2 and d[\"unreached\"]==3 and d[\"cooked\"]==0" "$SCRATCH/stdout"'
    run_in "$T" -o clean --roots nothing.obj
    check "a root that matches no source is an error naming it" \
        all_true 'status_is 1' 'stderr_has "root .nothing.obj. matches no source asset"'
    run_in "$T" -o clean --roots
    check "--roots without operands or roots: is an error" \
        all_true 'status_is 1' 'stderr_has "--roots needs source assets"'
    run_in "$T" -o clean
    run_in "$T" info -o clean --unreferenced
    check "info --unreferenced without roots: every asset no other one reads, minus always:" \
        all_true 'status_is 0' \
        'stdout_has "^big/tree.obj: big/tree.kmesh big/tree.kmat big/tree.kscene$"' \
        'stdout_has "^models/cube.obj: models/cube.kmesh models/cube/red.ktx2 models/cube.kmat models/cube.kscene$"' \
        'stdout_has "^props/quad.obj: "' 'stdout_has "^ui/icon.png: ui/icon.ktx2$"' \
        '! stdout_has "logo"' '! stdout_has "red.png"' \
        'stdout_has "^kiln: 4 of 5 cooked assets referenced by no other asset"'
    printf 'always:\n  - "ui/logo.*"\nroots:\n  - "props/*"\n' >"$T/kiln.yml"
    run_in "$T" info -o clean --unreferenced
    check "info --unreferenced with roots: what the roots and always: do not reach" \
        all_true 'status_is 0' '! stdout_has "^props/quad.obj"' 'stdout_has "^models/cube.obj: "' \
        'stdout_has "^kiln: 3 of 5 cooked assets not reached"'
    run_in "$T" -o clean --roots -v
    check "--roots without operands uses kiln.yml's roots:" \
        all_true 'status_is 0' 'stdout_has "^up to date props/quad.obj"' \
        '[ -s "$T/clean/ui/logo.ktx2" ]' '[ ! -e "$T/clean/models/cube.kmesh" ]'

    printf 'rules:\n  - match: "ui/icon.*"\n    texture.max_dimension: 2\n' >"$T/kiln.yml"
    run_in "$T" -o limits
    check "texture.max_dimension reaches the decoder: a bigger image fails, alone" \
        all_true 'status_is 1' 'stderr_has "^assets/ui/icon.png: error: .*exceeds"' \
        'stdout_has "^kiln: failed: ui/icon.png$"' '[ -s "$T/limits/ui/logo.ktx2" ]'
    printf 'rules:\n  - match: "ui/logo.*"\n    texture.zstd_level: 19\n' >"$T/kiln.yml"
    run_in "$T" -o limits -v
    check "texture.zstd_level is part of the settings: its assets are cooked again" \
        all_true 'status_is 0' 'stdout_has "^cooked ui/logo.png"' 'stdout_has "^cooked ui/icon.png"' \
        'stdout_has "^up to date props/quad.obj"'
fi

# ---------------------------------------------------------------------------
# Pack
# ---------------------------------------------------------------------------

K1="$SCRATCH/pack1"
K2="$SCRATCH/pack2"
make_tree "$K1"
make_tree "$K2"
run_in "$K1" -o out --pack -j1
check "--pack writes <output>.kpak next to the output folder" \
    all_true 'status_is 0' '[ -s "$K1/out.kpak" ]' '[ ! -e "$K1/out/out.kpak" ]'
printf 'pack: true\n' >"$K2/kiln.yml"
run_in "$K2" -o out -j2
run_in "$K2" -o out -j2
check "pack: true in kiln.yml packs; same tree, byte-identical pack (even from a warm cache)" \
    all_true 'status_is 0' 'cmp "$K1/out.kpak" "$K2/out.kpak"'
run_in "$K1" pack info out.kpak
check "pack info prints the layout, kinds and entries" \
    all_true 'status_is 0' 'stdout_has "^layout: header 64, toc [0-9]+, strings [0-9]+, payload [0-9]+, padding [0-9]+ bytes"' \
    'stdout_has "^  mesh +3 files"' 'stdout_has " manifest +assets.kman$"' \
    '! stdout_has "kiln-cache"'
head -c 100 "$K1/out.kpak" >"$K1/cut.kpak"
run_in "$K1" pack info cut.kpak
check "pack info rejects a truncated pack" \
    all_true 'status_is 1' 'stderr_has "^cut.kpak: error: "'

# ---------------------------------------------------------------------------
# kiln clean: what kiln wrote, and nothing else
# ---------------------------------------------------------------------------

CL="$SCRATCH/clean"
make_tree "$CL"
printf 'newmtl red\nKd 1 1 1\nmap_Kd missing.png\n' >"$CL/assets/models/cube.mtl" # warns: cached too
printf 'output: cooked\n' >"$CL/kiln.yml"
run_in "$CL" --pack
echo "mine" >"$CL/cooked/models/notes.txt"      # the user's own files, next to kiln's
echo "mine" >"$CL/cooked/.gitignore"
mkdir -p "$CL/cooked/saves" "$CL/cooked/big/keep"  # an empty folder of the user's, and one in kiln's
echo "elsewhere" >"$CL/elsewhere.kmesh"
rm "$CL/cooked/props/quad.kmesh"                   # a cooked file replaced by a link
ln -s ../../elsewhere.kmesh "$CL/cooked/props/quad.kmesh"
touch "$CL/cooked/big/.tree.kmesh.kiln-AbC123"     # a killed build's temporary
listing() { (cd "$CL" && find . -path ./assets -prune -o -print | sort); }
before=$(listing)
run_in "$CL" clean -n
check "clean -n lists what it would remove and removes nothing" \
    all_true 'status_is 0' 'stdout_has "^would remove cooked/models/cube.kmesh$"' \
    'stdout_has "^would remove cooked/.kiln-cache$"' 'stdout_has "^would remove cooked/assets.kman$"' \
    'stdout_has "^would remove cooked.kpak$"' 'stdout_has "^would remove cooked/big/.tree.kmesh.kiln-AbC123$"' \
    '! stdout_has "notes|gitignore|saves|keep|quad.kmesh|/$"' \
    'stdout_has "nothing removed \(dry run\)$"' '[ "$(listing)" = "$before" ]'
run_in "$CL" clean
check "clean removes kiln's files (found from kiln.yml's output), the pack, emptied folders" \
    all_true 'status_is 0' '[ ! -e "$CL/cooked/models/cube.kmesh" ]' '[ ! -e "$CL/cooked/models/cube.kmat" ]' \
    '[ ! -e "$CL/cooked/.kiln-cache" ]' '[ ! -e "$CL/cooked/assets.kman" ]' '[ ! -e "$CL/cooked.kpak" ]' \
    '[ ! -e "$CL/cooked/big/tree.kmesh" ]' '[ ! -e "$CL/cooked/big/.tree.kmesh.kiln-AbC123" ]' \
    'stdout_has "^kiln: removed [0-9]+ files \([0-9.]+ KiB\) and 0 folders from cooked; kept 3 files kiln did not write$"'
check "clean never removes a file kiln did not write, nor a link, nor what it points to" \
    all_true '[ "$(cat "$CL/cooked/models/notes.txt")" = mine ]' '[ -e "$CL/cooked/.gitignore" ]' \
    '[ -d "$CL/cooked/saves" ]' '[ -d "$CL/cooked/big/keep" ]' '[ -L "$CL/cooked/props/quad.kmesh" ]' \
    '[ "$(cat "$CL/elsewhere.kmesh")" = elsewhere ]' '[ -e "$CL/assets/props/quad.obj" ]'
run_in "$CL" clean
check "clean refuses a folder with no kiln cache or manifest" \
    all_true 'status_is 1' \
    'stderr_has "^kiln: error: .cooked. has no kiln build cache \(.kiln-cache\) or manifest \(assets.kman\): not a kiln output folder; nothing removed$"' \
    '[ -e "$CL/cooked/models/notes.txt" ]'
run_in "$CL" clean -o nowhere
check "clean of a missing folder is an error" \
    all_true 'status_is 1' 'stderr_has "output folder .nowhere. does not exist"'
run_in "$CL" -o only -q
run_in "$CL" clean -o only -v
check "clean removes an output folder it empties, and -v lists every file" \
    all_true 'status_is 0' '[ ! -e "$CL/only" ]' 'stdout_has "^removed only/props/quad.kmesh$"' \
    'stdout_has "^removed only/$"'
run_in "$CL" -o partial -q
rm "$CL/partial/.kiln-cache"
run_in "$CL" clean -o partial -q
check "without the cache, the manifest says what kiln wrote" \
    all_true 'status_is 0' '[ ! -e "$CL/partial" ]' '[ ! -s "$SCRATCH/stdout" ]'

# ---------------------------------------------------------------------------
# Cubemap folders: one asset, cached on its six faces
# ---------------------------------------------------------------------------

if command -v python3 >/dev/null; then
    CM="$SCRATCH/cubemap"
    mkdir -p "$CM/assets/env/sky.env"
    write_faces() { # write_faces SIZE: six SIZE x SIZE PNG faces
        python3 - "$CM/assets/env/sky.env" "$1" <<'EOF'
import sys
from png_tool import write_png
n = int(sys.argv[2])
for i, face in enumerate(["px", "nx", "py", "ny", "pz", "nz"]):
    write_png(f"{sys.argv[1]}/{face}.png", n, n, bytes([40 * i, 200, n, 255]) * (n * n))
EOF
    }
    write_faces 4
    echo "notes" >"$CM/assets/env/sky.env/readme.txt"
    echo "A=1" >"$CM/assets/prod.env" # a file named like a cubemap folder
    run_in "$CM" -i assets -o out -v
    check "a *.env folder cooks to one cubemap; its files are neither sources nor skipped" \
        all_true 'status_is 0' 'stdout_has "^cooked env/sky.env -> env/sky.ktx2"' \
        '! stdout_has "px.png|readme.txt"' 'summary 1 0' \
        'stdout_has "^kiln: skipped prod.env \(no importer\)"'
    run_in "$CM" -i assets -o out -v
    check "an unchanged cubemap folder is up to date" \
        all_true 'status_is 0' 'stdout_has "^up to date env/sky.env"' 'summary 0 1'
    write_faces 8
    run_in "$CM" -i assets -o out
    check "changing the faces recooks the cubemap" \
        all_true 'status_is 0' 'summary 1 0' \
        '"$KILN" info -o "$CM/out" | grep -q "8x8 cubemap, 4 mips"'
    rm "$CM/assets/env/sky.env/nz.png"
    run_in "$CM" -i assets -o out
    check "a missing face fails the cubemap, naming the face" \
        all_true 'status_is 1' 'stderr_has "env/sky.env: error: cubemap face -Z is missing"'
fi

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

J="$SCRATCH/report"
make_tree "$J"
run_in "$J" -o out
check "the report lists bytes written per kind and the slowest assets" \
    all_true 'status_is 0' 'stdout_has "^kiln: written: .*kman 1 file [0-9.]+ KiB, .*kmesh 3 files"' \
    'stdout_has "^kiln: slowest: .*(cube|quad|tree).obj [0-9.]+ s"' \
    'stdout_has "^kiln: stages: import [0-9.]+ s, process [0-9.]+ s, write [0-9.]+ s, texture [0-9.]+ s$"'
run_in "$J" -o out
check "a build that cooks nothing prints no stage times" \
    all_true 'status_is 0' 'summary 0 3' '! stdout_has "stages:"'
echo "# changed" >>"$J/assets/props/quad.obj"
run_in "$J" -o out --json
if command -v python3 >/dev/null; then
    check "--json prints one JSON document with the same facts" \
        all_true 'status_is 0' \
        'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"cooked\"]==1 and d[\"up_to_date\"]==2 and d[\"failed\"]==0 and d[\"slowest\"][0][\"source\"]==\"props/quad.obj\" and d[\"written\"][\"kmesh\"][\"files\"]==1" "$SCRATCH/stdout"'
    # The stages are timed inside each asset's cook: they add up to no more
    # than the assets' own times (3 ms of rounding allowed).
    check "--json has the time per stage, within the cooked assets' times" \
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); s=d['stage_seconds']; assert sorted(s)==['import','process','texture','write'] and min(s.values())>=0 and sum(s.values())<=sum(a['seconds'] for a in d['slowest'])+0.003" "$SCRATCH/stdout"
fi
run_in "$J" -o out --json -v
check "--json and --verbose cannot be combined" status_is 2

# A cache this kiln cannot read (an older format): the previous manifest's
# files that the build no longer makes are removed all the same (an upgrade
# that renames a texture leaves no orphan), and a user's own file stays.
U="$SCRATCH/upgrade"
make_tree "$U"
printf 'newmtl red\nKd 1 1 1\nmap_Kd wood.png\n' >"$U/assets/models/cube.mtl"
write_pngs "$U/assets/models/wood.png"
run_in "$U" -o out -j1
printf 'newmtl red\nKd 1 1 1\nmap_Kd stone.png\n' >"$U/assets/models/cube.mtl"
mv "$U/assets/models/wood.png" "$U/assets/models/stone.png"
printf 'kiln-cache 1\nencoder 11\n' >"$U/out/.kiln-cache"
echo mine >"$U/out/models/notes.txt"
run_in "$U" -o out -j1
check "an unreadable cache: the old manifest's stale files go, the user's stay" \
    all_true 'status_is 0' 'stderr_has "ignoring the build cache"' \
    '[ -s "$U/out/models/cube/stone.ktx2" ]' '[ ! -e "$U/out/models/cube/wood.ktx2" ]' \
    '[ -s "$U/out/models/notes.txt" ]'

finish "build system"
