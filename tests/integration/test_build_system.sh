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
import struct, sys, zlib, os
def png(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\0" + b"\xff\0\0\xff" * 4 for _ in range(4))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 6, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
for p in sys.argv[1:]:
    png(p)
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

W="$SCRATCH/warned"
make_tree "$W"
printf 'newmtl red\nKd 1 1 1\nmap_Kd missing.png\n' >"$W/assets/models/cube.mtl"
run_in "$W" -o out
run_in "$W" -o out -v
check "an asset that cooked with warnings (a missing texture) is cooked again next time" \
    all_true 'status_is 0' 'stdout_has "^cooked models/cube.obj"' 'stdout_has "^up to date props/quad.obj"'

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
        '[ -s "$T/full/models/cube/tex_0.ktx2" ]' '[ -s "$T/full/ui/logo.ktx2" ]' \
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
        all_true 'status_is 0' 'stdout_has "^big/tree.obj: big/tree.kmesh big/tree.kmat$"' \
        'stdout_has "^models/cube.obj: models/cube.kmesh models/cube/tex_0.ktx2 models/cube.kmat$"' \
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
        all_true 'status_is 1' 'stderr_has "^ui/icon.png: error: .*exceeds"' \
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
# Cubemap folders: one asset, cached on its six faces
# ---------------------------------------------------------------------------

if command -v python3 >/dev/null; then
    CM="$SCRATCH/cubemap"
    mkdir -p "$CM/assets/env/sky.env"
    write_faces() { # write_faces SIZE: six SIZE x SIZE PNG faces
        python3 - "$CM/assets/env/sky.env" "$1" <<'EOF'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
n = int(sys.argv[2])
for i, face in enumerate(["px", "nx", "py", "ny", "pz", "nz"]):
    raw = b"".join(b"\0" + bytes([40 * i, 200, n, 255]) * n for _ in range(n))
    with open(f"{sys.argv[1]}/{face}.png", "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", n, n, 8, 6, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
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

finish "build system"
