#!/usr/bin/env bash
# test_extract.sh — `kiln extract`: a cooked texture back to PNG. Source
# images are written and the extracted PNGs read by tests/support/png_tool.py
# (Python's zlib, not kiln's libspng):
#   - an uncompressed texture extracts to exactly its source's texels;
#   - BC7 and BC1 textures extract to images whose PSNR against the source,
#     computed in the test, is what `kiln info --quality` reports;
#   - a smaller mip level has the halved size;
#   - a UASTC texture (`--via rgba`, the default) extracts at level 0 and at
#     a mip to exactly libkiln's decoding of that level (kiln_uastc_unpack,
#     read with png_tool.py), with level 0's PSNR what --quality reports;
#     --via bc7 and --via astc decode libkiln's transcodes close to it;
#     --via etc1, etc2, bc1 and bc3 equal the same transcodes computed block
#     by block (kiln_uastc_transcode), and near it; an
#     unknown target names the accepted ones; a truncated UASTC
#     file is refused naming it;
#   - bad inputs: a missing file, a file that is no KTX2, a level or face out
#     of range (naming how many there are), an unwritable output, --via on a
#     texture that is not UASTC, a bad number.
#
# Environment (set by ctest): KILN, KILN_REPO, KILN_TMP, KILN_UASTC_UNPACK,
# KILN_UASTC_TRANSCODE. Helpers: harness.sh.
set -euo pipefail

source "$(dirname "$0")/harness.sh" extract

PNG_TOOL="$KILN_REPO/tests/support/png_tool.py"
png() { python3 "$PNG_TOOL" "$@"; }
run() { run_in "$SCRATCH" "$@"; }

mkdir -p "$SCRATCH/assets"
png make "$SCRATCH/assets/exact.png" 37 29
png make "$SCRATCH/assets/seven.png" 32 24
png opaque "$SCRATCH/assets/one.png" 32 24
png make "$SCRATCH/assets/uastc.png" 32 24
cat >"$SCRATCH/kiln.yml" <<'EOF'
input: assets
output: runtime
rules:
  - match: "exact.png"
    texture.compress: false
  - match: "seven.png"
    texture.format: bc7
  - match: "one.png"
    texture.format: bc1
  - match: "uastc.png"
    texture.format: uastc
EOF
run build -q
check "the textures cook" status_is 0

run extract runtime/exact.ktx2 exact.png
check "an uncompressed texture extracts to exactly its source's texels" \
    all_true 'status_is 0' 'png equal "$SCRATCH/exact.png" "$SCRATCH/assets/exact.png"'

run extract runtime/exact.ktx2 level2.png --level 2
check "--level 2 of a 37x29 texture is 9x7" \
    all_true 'status_is 0' '[ "$(png size "$SCRATCH/level2.png")" = "9 7" ]'

run info --quality
cp "$SCRATCH/stdout" "$SCRATCH/quality.txt"
# "quality: level 0 PSNR RGB 23.08 dB, alpha 24.05 dB against seven.png"
reported() { grep -E "against $1\$" "$SCRATCH/quality.txt" | sed -E 's/.*PSNR RGB ([0-9.]+) dB(, alpha ([0-9.]+) dB)?.*/\1 \3/'; }
# measured NAME: "RGB A" PSNR of the extracted image against the source.
measured() { png psnr "$SCRATCH/assets/$1.png" "$SCRATCH/$1.out.png" | awk '{print $2, $4}'; }
close_to() { # close_to "A B" "C D": every pair within 0.01 dB (the report's rounding)
    python3 -c 'import sys; a, b = sys.argv[1].split(), sys.argv[2].split(); \
sys.exit(0 if all(abs(float(x) - float(y)) <= 0.01 for x, y in zip(a, b)) else 1)' "$1" "$2"
}
for texture in seven one uastc; do
    run extract "runtime/$texture.ktx2" "$texture.out.png"
    check "$texture.ktx2 extracts" status_is 0
    kiln_psnr=$(reported "$texture.png")
    test_psnr=$(measured "$texture")
    # BC1 opaque, UASTC: --quality reports no alpha PSNR
    [ "$texture" = seven ] || test_psnr=${test_psnr% *}
    check "$texture: PSNR of the extracted image ($test_psnr) is kiln info --quality's ($kiln_psnr)" \
        close_to "$kiln_psnr" "$test_psnr"
done

# UASTC: level 0 (32x24) and level 2 (8x6: partial edge blocks), with and
# without --via rgba, equal libkiln's own decoding of the level.
unpack_same() { # unpack_same LEVEL PNG
    "$KILN_UASTC_UNPACK" "$SCRATCH/runtime/uastc.ktx2" "$1" "$SCRATCH/uastc.$1.rgba" >/dev/null &&
        png same "$SCRATCH/$2" "$SCRATCH/uastc.$1.rgba"
}
check "uastc.ktx2 level 0 is libkiln's decoding" unpack_same 0 uastc.out.png
run extract runtime/uastc.ktx2 uastc.2.png --level 2 --via rgba
check "uastc.ktx2 --level 2 --via rgba is 8x6, libkiln's decoding" \
    all_true 'status_is 0' '[ "$(png size "$SCRATCH/uastc.2.png")" = "8 6" ]' \
    'unpack_same 2 uastc.2.png'
# --via bc7 / astc: the GPU formats' decodings of libkiln's transcodes, each
# close to the direct decoding (test_uastc_transcode checks the blocks):
# ASTC within astcenc's rounding, BC7 within its precision.
rgb_psnr_at_least() { # rgb_psnr_at_least A.png B.png DB
    local rgb
    rgb=$(png psnr "$SCRATCH/$1" "$SCRATCH/$2" | awk '{print $2}')
    python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)' \
        "$rgb" "$3"
}
run extract runtime/uastc.ktx2 uastc.bc7.png --via bc7
check "uastc.ktx2 --via bc7 is within 40 dB of the direct decoding" \
    all_true 'status_is 0' 'rgb_psnr_at_least uastc.bc7.png uastc.out.png 40'
run extract runtime/uastc.ktx2 uastc.astc.png --via astc --level 1
run extract runtime/uastc.ktx2 uastc.1.png --level 1
check "uastc.ktx2 --via astc --level 1 is within 55 dB of the direct decoding" \
    all_true 'status_is 0' '[ "$(png size "$SCRATCH/uastc.astc.png")" = "16 12" ]' \
    'rgb_psnr_at_least uastc.astc.png uastc.1.png 55'
# --via etc1 / etc2 / bc1 / bc3: exactly the transcode computed block by
# block by kiln_uastc_transcode (uastc_block_to_* and the same decoders, not
# kiln_uastc_transcode's table and in-place loop), at level 0 and at level 2
# (8x6: partial edge blocks); and, whatever both compute, RGB near the
# direct decoding (this pattern is noise to an 8-byte colour block: about
# 17 dB; a wrong block layout falls well under 15) and, for the alpha
# targets, alpha near it (about 38 dB; under 30 fails).
transcode_same() { # transcode_same TARGET LEVEL PNG
    "$KILN_UASTC_TRANSCODE" "$SCRATCH/runtime/uastc.ktx2" "$2" "$1" "$SCRATCH/uastc.$1.$2.rgba" \
        srgb >/dev/null && png same "$SCRATCH/$3" "$SCRATCH/uastc.$1.$2.rgba"
}
alpha_psnr_at_least() { # alpha_psnr_at_least A.png B.png DB
    local alpha
    alpha=$(png psnr "$SCRATCH/$1" "$SCRATCH/$2" | awk '{print $4}')
    python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)' \
        "$alpha" "$3"
}
for target in etc1 etc2 bc1 bc3; do
    run extract runtime/uastc.ktx2 "uastc.$target.png" --via "$target"
    check "uastc.ktx2 --via $target is the block-by-block transcode, decoded" \
        all_true 'status_is 0' "transcode_same $target 0 uastc.$target.png" \
        "rgb_psnr_at_least uastc.$target.png uastc.out.png 15"
    run extract runtime/uastc.ktx2 "uastc.$target.2.png" --via "$target" --level 2
    check "uastc.ktx2 --via $target --level 2 is 8x6, the block-by-block transcode" \
        all_true 'status_is 0' '[ "$(png size "$SCRATCH/uastc.'"$target"'.2.png")" = "8 6" ]' \
        "transcode_same $target 2 uastc.$target.2.png"
done
check "--via etc2 and bc3 keep alpha within 30 dB of the direct decoding" \
    all_true 'alpha_psnr_at_least uastc.etc2.png uastc.out.png 30' \
    'alpha_psnr_at_least uastc.bc3.png uastc.out.png 30'
run extract runtime/uastc.ktx2 out.png --via pvrtc
check "--via with an unknown target names the accepted ones" \
    all_true 'status_is 1' \
    'stderr_has "runtime/uastc.ktx2: --via pvrtc: .*accepted: rgba, bc7, astc, etc1, etc2, bc1, bc3"' \
    '[ ! -e "$SCRATCH/out.png" ]'
head -c "$(($(wc -c <"$SCRATCH/runtime/uastc.ktx2") - 100))" "$SCRATCH/runtime/uastc.ktx2" \
    >"$SCRATCH/truncated.ktx2"
run extract truncated.ktx2 out.png
check "a truncated UASTC file is refused naming it" \
    all_true 'status_is 1' 'stderr_has "truncated.ktx2: KTX2: level 0 .* outside the file"' \
    '[ ! -e "$SCRATCH/out.png" ]'

run extract runtime/exact.ktx2 out.png --level 6
check "a level out of range names how many there are" \
    all_true 'status_is 1' 'stderr_has "level 6 is out of range: the texture has 6 levels"'
run extract runtime/exact.ktx2 out.png --face 2
check "a face out of range names how many there are" \
    all_true 'status_is 1' 'stderr_has "face 2 is out of range: the texture has 1 face"'
run extract runtime/missing.ktx2 out.png
check "a missing texture is named" \
    all_true 'status_is 1' 'stderr_has "runtime/missing.ktx2: cannot open"'
run extract assets/exact.png out.png
check "a file that is no KTX2 is named" \
    all_true 'status_is 1' 'stderr_has "assets/exact.png: .*KTX2"'
run extract runtime/exact.ktx2 no/such/folder/out.png
check "an unwritable output is named" \
    all_true 'status_is 1' 'stderr_has "no/such/folder/out.png: cannot write"' \
    '[ ! -e "$SCRATCH/out.png" ]'
run extract runtime/exact.ktx2 out.png --via bc7
check "--via is for UASTC textures only" \
    all_true 'status_is 1' 'stderr_has "not a UASTC texture"'
run extract runtime/exact.ktx2 out.png --level x
check "a level that is no number is a usage error" \
    all_true 'status_is 2' 'stderr_has "is not a level number"'
run extract runtime/exact.ktx2
check "extract needs two operands" all_true 'status_is 2' 'stderr_has "needs a texture and a PNG"'

finish extract
