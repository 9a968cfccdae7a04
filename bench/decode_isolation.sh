#!/usr/bin/env bash
# decode_isolation.sh — what running the image decoders (libspng, libjpeg,
# stb_image), libdraco and glslang in a reused child process costs per asset
# (BENCHMARKS.md section 10, docs/reliability.md): `kiln build` in process
# (KILN_ISOLATE=0) against isolated (KILN_ISOLATE=1), run in alternation by
# bench_commands (wall and CPU, the children's included), -j1.
#
#   bash bench/decode_isolation.sh BENCH_BIN_DIR CORPUS [ROUNDS [INPUT...]]
#
# BENCH_BIN_DIR holds kiln and bench/bench_commands, bench/bench_gen_textures
# (a Release build with -DKILN_BENCH=ON). Textures are cooked without block
# compression or mipmaps (texture.compress, texture.mipmaps false), so the
# decode is most of each texture's cook and the difference shows.
# Inputs: the corpus's images that decode (PNG, JPEG; 60 files, 17 MB);
# 200 copies of a 32x32 PNG (the per-asset cost alone); one 4096x4096 noise
# PNG (64 MiB of pixels back through the pipe); the corpus's images of 1 MiB
# or more decoded (21 files, 273 MiB); one 8192x8192 noise PNG (256 MiB);
# 50 copies each of the corpus's two Draco glTFs; 30 copies of the examples'
# shaders (5 programs, one including a header). INPUTs pick some of
# corpus_images, small_pngs, big_png, large_images, huge_png, draco and
# shaders (default: all).
set -euo pipefail

bin=$(realpath "$1")
corpus=$(realpath "$2")
rounds=${3:-10}
shift $(($# < 3 ? $# : 3))
inputs=("$@")
[ ${#inputs[@]} -gt 0 ] || inputs=(corpus_images small_pngs big_png large_images huge_png draco shaders)
kiln="$bin/kiln"
work="${TMPDIR:-/tmp}/kiln-bench-decode-isolation"
rm -rf "$work"
mkdir -p "$work/corpus_images" "$work/small_pngs" "$work/big_png" "$work/large_images" \
    "$work/huge_png" "$work/draco" "$work/shaders"
examples="$(dirname "$0")/../examples/assets/shaders"
printf 'default:\n  texture.compress: false\n  texture.mipmaps: false\n' >"$work/kiln.yml"

i=0
while IFS= read -r -d '' file; do
    i=$((i + 1))
    base=$(basename "$file")
    cp "$file" "$work/corpus_images/$i-${base// /_}"
done < <(find "$corpus/images" "$corpus/gltf" -type f \( -iname '*.png' -o -iname '*.jpg' \
    -o -iname '*.jpeg' \) -print0 | sort -z)
# Only what decodes: a failing build would stop the benchmark.
"$kiln" build --config "$work/kiln.yml" -i "$work/corpus_images" -o "$work/probe" -q \
    --no-cache -j2 2>"$work/probe.log" || true
sed -n 's/^\(.*\): error: .*/\1/p' "$work/probe.log" | sort -u | while IFS= read -r bad; do
    rm -f "$bad"
done
for n in $(seq -w 1 200); do cp "$corpus/images/pngsuite/basn6a08.png" "$work/small_pngs/s$n.png"; done
"$bin/bench/bench_gen_textures" noise-png 4096 "$work/big_png/noise.png"
"$bin/bench/bench_gen_textures" noise-png 8192 "$work/huge_png/noise.png"
# The images of 1 MiB or more decoded (width x height x 4), by their headers.
python3 - "$work/corpus_images" "$work/large_images" <<'PY'
import os, shutil, struct, sys
def size(path):
    b = open(path, 'rb').read()
    if b[:8] == b'\x89PNG\r\n\x1a\n':
        return struct.unpack('>II', b[16:24])
    i = 2
    while b[:2] == b'\xff\xd8' and i + 9 <= len(b):  # JPEG: the first SOFn
        if b[i] != 0xff or b[i + 1] in (0xd8, 0x01) or 0xd0 <= b[i + 1] <= 0xd7:
            i += 1 if b[i] != 0xff else 2
        elif b[i + 1] in (0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf):
            h, w = struct.unpack('>HH', b[i + 5:i + 9])
            return w, h
        else:
            i += 2 + struct.unpack('>H', b[i + 2:i + 4])[0]
    return 0, 0
for name in sorted(os.listdir(sys.argv[1])):
    w, h = size(os.path.join(sys.argv[1], name))
    if w * h * 4 >= 1 << 20:
        shutil.copy(os.path.join(sys.argv[1], name), sys.argv[2])
PY
for n in $(seq -w 1 50); do
    for model in Box RiggedSimple; do
        mkdir -p "$work/draco/$model$n"
        cp "$corpus/gltf/$model/glTF-Draco/"* "$work/draco/$model$n/"
    done
done

for n in $(seq -w 1 30); do cp -r "$examples" "$work/shaders/s$n"; done

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for input in "${inputs[@]}"; do
    count=$(find "$work/$input" -type f \( -name '*.png' -o -name '*.jpg' -o -name '*.jpeg' \
        -o -name '*.gltf' -o -name '*.comp' -o -name '*.hlsl' -o -name '*.vert' -o -name '*.frag' \) |
        wc -l)
    echo "== $input: $count assets"
    build="build --config $work/kiln.yml -i $work/$input -q --no-cache -j1"
    "$bin/bench/bench_commands" --rounds "$rounds" --warmup 1 \
        --prepare "rm -rf $work/out_in $work/out_iso" \
        "in process" "env KILN_ISOLATE=0 $kiln $build -o $work/out_in" \
        "isolated" "env KILN_ISOLATE=1 $kiln $build -o $work/out_iso"
    env KILN_ISOLATE=0 "$kiln" $build -o "$work/same_in"
    env KILN_ISOLATE=1 "$kiln" $build -o "$work/same_iso"
    diff -r "$work/same_in" "$work/same_iso" >/dev/null && echo "cooked files identical"
    rm -rf "$work/same_in" "$work/same_iso"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
