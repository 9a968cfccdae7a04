#!/usr/bin/env bash
# test_interrupted_build.sh — a build killed with SIGKILL at any point, then
# a normal build, gives the tree and the pack of a clean build byte for byte,
# and no temporary file of the killed build survives (in the output folder or
# next to it, where the pack is written).
#
# The kill points come from seeds: each seed picks a fixed fraction of the
# time a clean build takes here, so the kills land all over the build (the
# walk, cooks in flight, the manifest, the cache, the pack) without the test
# depending on how fast the machine is.
#
# Environment (set by ctest): KILN (the executable), KILN_TMP (scratch folder).
set -euo pipefail

source "$(dirname "$0")/harness.sh" interrupted_build
if ! command -v python3 >/dev/null; then
    echo "interrupted build: skipped: python3 not found (it writes the test images)"
    exit 0
fi

# Six textured models (each reads an .mtl and a 128x128 PNG) and two
# standalone textures: enough work for kills to land mid-build.
python3 - "$SCRATCH/in" <<'EOF'
import os, sys
from png_tool import write_png
root = sys.argv[1]
def png(path, seed):
    size = 128
    rgba = bytearray()
    for y in range(size):
        for x in range(size):
            v = (x * 7 + y * 13 + seed * 31 + (x * y) % 17) & 255
            rgba += bytes((v, (v * 3) & 255, (255 - v), 255))
    write_png(path, size, size, rgba)
for i in range(6):
    folder = os.path.join(root, "models", "m%d" % i)
    os.makedirs(folder, exist_ok=True)
    png(os.path.join(folder, "skin.png"), i)
    with open(os.path.join(folder, "m.mtl"), "w") as f:
        f.write("newmtl a\nKd 1 1 1\nmap_Kd skin.png\n")
    with open(os.path.join(folder, "m.obj"), "w") as f:
        f.write("mtllib m.mtl\nusemtl a\n")
        n = 12 + i
        for y in range(n + 1):
            for x in range(n + 1):
                f.write("v %d %d %d\nvt %f %f\n" % (x, y, (x * y + i) % 3, x / n, y / n))
        for y in range(n):
            for x in range(n):
                a = y * (n + 1) + x + 1
                f.write("f %d/%d %d/%d %d/%d %d/%d\n" % (a, a, a + 1, a + 1, a + n + 2, a + n + 2, a + n + 1, a + n + 1))
os.makedirs(os.path.join(root, "ui"), exist_ok=True)
png(os.path.join(root, "ui", "logo.png"), 40)
png(os.path.join(root, "ui", "icon.n.png"), 41)
EOF

# build DIR ARGS...: a normal build of the shared input into DIR/out.
build() {
    local dir=$1
    shift
    mkdir -p "$dir"
    (cd "$dir" && "$KILN" build -i "$SCRATCH/in" -o out -q --pack "$@") >>"$dir/build.log" 2>&1 </dev/null
}
leftovers() { # the temporaries write_file_atomic names ".<name>.kiln-XXXXXX"
    find "$1" -name '.*.kiln-*'
}
no_leftovers() { [ -z "$(leftovers "$1")" ]; }
# Everything but the cache (it records inodes and mtimes), hidden files included.
same_tree() { diff -r -x .kiln-cache "$1/out" "$2/out" && cmp "$1/out.kpak" "$2/out.kpak"; }

REF="$SCRATCH/clean"
start=$(date +%s%N)
build "$REF" -j2
clean_ns=$(($(date +%s%N) - start))
check_output "a clean build succeeds and leaves no temporaries" no_leftovers "$REF"

K="$SCRATCH/killed"
for seed in 1 2 3 4 5 6 7; do
    # Odd seeds kill a build into an empty folder; even ones a --no-cache
    # rebuild over the output the last round finished.
    [ $((seed % 2)) -eq 1 ] && rm -rf "$K"
    mkdir -p "$K"
    fraction=$(((seed * 37) % 100))
    delay=$(awk -v ns="$clean_ns" -v f="$fraction" 'BEGIN { printf "%.3f", ns * f / 100 / 1e9 }')
    extra=()
    [ $((seed % 2)) -eq 0 ] && extra=(--no-cache)
    (cd "$K" && exec "$KILN" build -i "$SCRATCH/in" -o out -q --pack -j2 "${extra[@]}") \
        >/dev/null 2>&1 </dev/null &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    build "$K" -j2
    check_output "seed $seed: killed after ${delay} s, then a normal build: the clean tree and pack" \
        same_tree "$REF" "$K"
    check_output "seed $seed: ... and no temporary survives" no_leftovers "$SCRATCH/killed"
done

# A kill between writing a temporary and renaming it is the case the sweep
# exists for; plant one of each kind where a killed build would leave them.
mkdir -p "$K/out/models/m0"
printf 'half' >"$K/out/models/m0/.m.kmesh.kiln-AbC123"
printf 'half' >"$K/.out.kpak.kiln-XyZ789"
printf 'mine' >"$K/out/.notes"
printf 'mine' >"$K/.out.kpak.backup"
build "$K" -j1
check_output "the next build removes leftover temporaries, in the tree and next to the pack" \
    no_leftovers "$K"
check_output "... and only those" test -f "$K/out/.notes" -a -f "$K/.out.kpak.backup"

finish "interrupted build"
