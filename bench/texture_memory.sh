#!/usr/bin/env bash
# texture_memory.sh — peak resident memory of cooking one big texture (issue 16).
# Usage: bench/texture_memory.sh KILN IMAGE.png...
# For each PNG, cooks it alone (-j1, --no-cache) as a colour map (sRGB), a
# normal map (NAME.n.png, linear) and a single-channel map (NAME.r.png), each
# with texture.compress true (BC7/BC5/BC4) and false (RGBA8/R8), and prints
# the peak RSS (/usr/bin/time -f %M, Debian's `time` package) in MiB and as a
# multiple of the image's decoded RGBA8 size (width x height x 4 bytes).
set -euo pipefail
kiln=$1
shift
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '%-16s %-7s %-8s %10s %8s\n' image usage compress 'peak MiB' 'x RGBA8'
for image in "$@"; do
    # width and height from the IHDR chunk (bytes 16..23, big-endian)
    read -r w h < <(od -An -tu1 -j16 -N8 "$image" |
        awk '{print $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}')
    rgba8=$((w * h * 4))
    for usage in colour normal single; do
        case $usage in
        colour) name=t.png ;; normal) name=t.n.png ;; single) name=t.r.png ;;
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
