#!/usr/bin/env bash
# Compressed chunks (container.compress): corpus models cooked with
# container.compress none, fast and small, then bench_chunks on each cooked
# container: bytes uncompressed, compressed and Zstd-only, what each encoding
# gives the vertex and index chunks, and decode speed (MB/s of decoded data,
# CPU time of one thread) against read() and mmap of the uncompressed file.
# Also the cook's CPU time each way (textures kept tiny: they are not what
# the setting changes).
#
#   bash bench/chunks.sh BUILD_DIR [MODEL.glb...]
#
# BUILD_DIR is a Release build with the benchmarks (KILN_BENCH=ON: target
# bench_chunks) and the kiln command.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [MODEL...]" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
shift
corpus="${KILN_CORPUS:-$repo/../shared/corpus}"
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
    models=("$corpus/gltf/DamagedHelmet/glTF-Binary/DamagedHelmet.glb"
        "$corpus/gltf/Fox/glTF-Binary/Fox.glb"
        "$corpus/gltf/CesiumMilkTruck/glTF-Binary/CesiumMilkTruck.glb"
        "$corpus/gltf/MetalRoughSpheresNoTextures/glTF-Binary/MetalRoughSpheresNoTextures.glb")
fi
work="$repo/bench/data/chunks"
rm -rf "$work" && mkdir -p "$work/in"
cp "${models[@]}" "$work/in/"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for mode in none fast small; do
    printf 'default:\n  texture.max_size: 16\n  texture.mipmaps: false\n  container.compress: %s\n' \
        "$mode" >"$work/$mode.yml"
    /usr/bin/time -f "cook $mode: %U s user, %S s system, %e s wall" \
        "$build/kiln" build -q -j 1 --no-cache --config "$work/$mode.yml" -i "$work/in" -o "$work/$mode"
done
cd "$work/none"
files=()
while IFS= read -r f; do files+=("$f"); done < <(find . -name '*.kmesh' -o -name '*.kmat' \
    -o -name '*.kscene' -o -name '*.kanim' | sed 's|^\./||' | sort)
echo "== small"
"$build/bench/bench_chunks" "$work/none" "$work/small" "${files[@]}"
echo "== fast"
"$build/bench/bench_chunks" "$work/none" "$work/fast" "${files[@]}"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
