#!/usr/bin/env bash
# texture_memory.sh — peak resident memory of cooking one big texture.
# Usage: bench/texture_memory.sh KILN IMAGE...   (IMAGE: .png, .jpg or .hdr)
# For each image, cooks it alone (-j1, --no-cache) as a colour map (sRGB), a
# normal map (NAME.n.png, linear) and a single-channel map (NAME.r.png), each
# with texture.compress true (BC7/BC5/BC4) and false (RGBA8/R8), and prints
# the peak RSS (/usr/bin/time -f %M, Debian's `time` package) in MiB and as a
# multiple of the image's decoded RGBA8 size (width x height x 4 bytes).
# A Radiance .hdr is always an HDR texture (BC6H / RGBA16F): one usage, "hdr".
# bench_gen_textures (bench/gen_textures.c) writes the images BENCHMARKS.md uses.
set -euo pipefail
kiln=$1
shift
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '%-16s %-7s %-8s %10s %8s\n' image usage compress 'peak MiB' 'x RGBA8'
for image in "$@"; do
    ext=${image##*.}
    case $ext in
    png | PNG) # width and height from the IHDR chunk (bytes 16..23, big-endian)
        read -r w h < <(od -An -tu1 -j16 -N8 "$image" |
            awk '{print $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}') ;;
    jpg | jpeg | JPG | JPEG) # `file` prints "..., WxH, components N"
        read -r w h < <(file -b "$image" | grep -o ', [0-9]*x[0-9]*,' | tr -d ', ' | tr x ' ') ;;
    hdr | HDR) # the resolution line "-Y H +X W" after the header's blank line
        read -r h w < <(head -c 4096 "$image" | tr -d '\0' | grep -a -m1 '^-Y ' |
            awk '{print $2, $4}') ;;
    *) echo "texture_memory.sh: $image: not a .png, .jpg or .hdr" >&2; exit 1 ;;
    esac
    rgba8=$((w * h * 4))
    usages="colour normal single"
    case $ext in hdr | HDR) usages=hdr ;; esac
    for usage in $usages; do
        case $usage in
        colour | hdr) name=t.$ext ;; normal) name=t.n.$ext ;; single) name=t.r.$ext ;;
        esac
        for compress in true false; do
            rm -rf "$scratch/in" "$scratch/out"
            mkdir -p "$scratch/in"
            ln "$image" "$scratch/in/$name" 2>/dev/null || cp "$image" "$scratch/in/$name"
            printf 'default:\n  texture.compress: %s\n' "$compress" >"$scratch/kiln.yml"
            /usr/bin/time -f %M -o "$scratch/rss" "$kiln" build -i "$scratch/in" -o "$scratch/out" \
                --config "$scratch/kiln.yml" -j1 --no-cache -q >/dev/null
            kib=$(tail -1 "$scratch/rss")
            printf '%-16s %-7s %-8s %10d %8.2f\n' "$(basename "$image")" $usage $compress \
                $((kib / 1024)) "$(echo "$kib * 1024 / $rgba8" | bc -l)"
        done
    done
done
