#!/bin/bash
# Every .ktx2 kiln cooks is read by an independent KTX2 reader: the npm
# package ktx-parse, run with the machine's Node.js. Checks vkFormat,
# dimensions, level count, supercompression, the DFD's colour model, transfer
# function and texel block size, and that every Zstd level inflates to its
# declared size (with Node's own zstd when it has one). Two builds: the
# desktop target (BC1/BC3/BC4/BC5/BC6H/BC7, forced UASTC (a texture, a normal
# map and a cubemap) and a forced uncompressed file)
# and the mobile preset (ASTC LDR/HDR); `kiln info --quality` on the result.
# First, without node: a forced format a texture cannot hold fails the build
# naming the rule. Without node/npm or the registry, the rest prints
# "skipped:" and passes.
set -u
KILN=${KILN:?set KILN to the kiln executable}
KILN_CORPUS=${KILN_CORPUS:-}
tmp=${KILN_TMP:-/tmp}/ktx2_independent
rm -rf "$tmp" && mkdir -p "$tmp/in/tex" "$tmp/npm"

# A format a texture cannot hold (bc4 for an RGB colour map) fails the build
# with the file, the format and the kiln.yml rule that asked for it.
mkdir -p "$tmp/bad/in/art"
if [ -n "$KILN_CORPUS" ] && [ -f "$KILN_CORPUS/images/pngsuite/basn2c16.png" ]; then
    cp "$KILN_CORPUS/images/pngsuite/basn2c16.png" "$tmp/bad/in/art/wall.png"
    printf 'rules:\n  - match: "art/*.png"\n    texture.format: bc4\n' >"$tmp/bad/kiln.yml"
    if "$KILN" build -q -i "$tmp/bad/in" -o "$tmp/bad/out" --config "$tmp/bad/kiln.yml" \
        >"$tmp/bad.log" 2>&1; then
        echo "FAIL: bc4 for a colour map did not fail the build"; exit 1
    fi
    if ! grep -q "art/wall.png.*texture.format 'bc4' (set by rule 'match: art/\*.png' (.*kiln.yml:2)).*colour map" \
        "$tmp/bad.log"; then
        echo "FAIL: the error does not name the file, format and rule:"; cat "$tmp/bad.log"; exit 1
    fi
fi

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "skipped: node or npm not installed"
    exit 0
fi
if ! npm install --silent --no-audit --no-fund --prefix "$tmp/npm" ktx-parse >"$tmp/npm.log" 2>&1; then
    echo "skipped: npm install ktx-parse failed (offline?)"
    exit 0
fi

# Inputs: corpus images under standalone names, one per usage.
if [ -n "$KILN_CORPUS" ] && [ -d "$KILN_CORPUS/images" ]; then
    cp "$KILN_CORPUS/images/pngsuite/basn6a08.png" "$tmp/in/tex/rgba.png"
    cp "$KILN_CORPUS/images/pngsuite/basn3p08.png" "$tmp/in/tex/palette.png"
    cp "$KILN_CORPUS/images/pngsuite/basn2c16.png" "$tmp/in/tex/deep.n.png"
    cp "$KILN_CORPUS/images/pngsuite/basn0g08.png" "$tmp/in/tex/grey.ao.png"
    cp "$KILN_CORPUS/images/misc/cyan.jpg" "$tmp/in/tex/cyan.jpg"
    cp "$KILN_CORPUS/images/hdr/hdr-rgb-arboretum.hdr" "$tmp/in/tex/sky.hdr"
    cp "$KILN_CORPUS/images/pngsuite/basn6a08.png" "$tmp/in/tex/forced3.png"
    cp "$KILN_CORPUS/images/pngsuite/basn2c16.png" "$tmp/in/tex/raw.png"
    cp "$KILN_CORPUS/images/pngsuite/basn6a08.png" "$tmp/in/tex/uastc.png"
    cp "$KILN_CORPUS/images/pngsuite/basn2c16.png" "$tmp/in/tex/uastcrgb.n.png"
else
    echo "skipped: corpus not found"
    exit 0
fi
# A 3D LUT (.cube text, 3 entries per axis, r fastest).
{
    echo 'TITLE "identity"'
    echo 'LUT_3D_SIZE 3'
    for b in 0 0.5 1; do for g in 0 0.5 1; do for r in 0 0.5 1; do echo "$r $g $b"; done; done; done
} >"$tmp/in/tex/grade.lut.cube"

# A cubemap folder: six 16x16 PNG faces, each its own colour; -Z is
# translucent, which keeps the whole cubemap BC7 under quality fast (BC1 needs
# every face opaque). The same faces again as "rawroom.env", uncompressed.
mkdir -p "$tmp/in/tex/room.env"
PYTHONPATH="$(cd "$(dirname "$0")/../support" && pwd)" python3 - "$tmp/in/tex/room.env" <<'PY'
import sys
from png_tool import write_png
for i, face in enumerate(["px", "nx", "py", "ny", "pz", "nz"]):
    alpha = 200 if face == "nz" else 255
    write_png(f"{sys.argv[1]}/{face}.png", 16, 16, bytes([40 * i, 255 - 40 * i, 9 * i, alpha]) * 256)
PY
cp -r "$tmp/in/tex/room.env" "$tmp/in/tex/rawroom.env"
cp -r "$tmp/in/tex/room.env" "$tmp/in/tex/uroom.env"

# Quality fast keeps the test quick under sanitizers; rules force formats.
cat >"$tmp/kiln.yml" <<'YML'
default:
  texture.quality: fast
presets:
  mobile:
    texture.target: mobile
rules:
  - match: "tex/forced3.png"
    texture.format: bc3
  - match: "tex/raw.png"
    texture.format: bc7
    texture.compress: false
  - match: "tex/rawroom.env"
    texture.compress: false
  - match: "tex/u*"
    texture.format: uastc
YML
if ! "$KILN" build -q -i "$tmp/in" -o "$tmp/out" --config "$tmp/kiln.yml" --no-cache \
    >"$tmp/build.log" 2>&1; then
    echo "FAIL: kiln build failed"; cat "$tmp/build.log"; exit 1
fi
if ! "$KILN" build -q -i "$tmp/in" -o "$tmp/out-mobile" --config "$tmp/kiln.yml" \
    --preset mobile --no-cache >"$tmp/build-mobile.log" 2>&1; then
    echo "FAIL: kiln build --preset mobile failed"; cat "$tmp/build-mobile.log"; exit 1
fi

# kiln info --quality decodes level 0 and compares it with the source.
"$KILN" info -o "$tmp/out" -i "$tmp/in" --quality >"$tmp/info.txt" 2>&1
for want in "PSNR RGB [0-9.]* dB, alpha [0-9.]* dB against tex/rgba.png" \
    "PSNR RG [0-9.]* dB against tex/deep.n.png" "PSNR R [0-9.]* dB against tex/grey.ao.png" \
    "PSNR RGB (tone-mapped) [0-9.]* dB against tex/sky.hdr" "modes: [0-9]"; do
    if ! grep -q "$want" "$tmp/info.txt"; then
        echo "FAIL: kiln info --quality lacks '$want'"; cat "$tmp/info.txt"; exit 1
    fi
done

cat >"$tmp/check.mjs" <<'JS'
import { read } from 'ktx-parse';
import { readFileSync } from 'node:fs';
import * as zlib from 'node:zlib';
const expect = JSON.parse(process.argv[2]);
let failures = 0, checked = 0;
for (const [file, want] of Object.entries(expect)) {
  const path = process.argv[3] + '/' + file;
  let c;
  try { c = read(new Uint8Array(readFileSync(path))); }
  catch (e) { console.log(`FAIL: ${file}: ktx-parse: ${e.message}`); failures++; continue; }
  const dfd = c.dataFormatDescriptor[0];
  const got = { vkFormat: c.vkFormat, supercompression: c.supercompressionScheme,
                colorModel: dfd.colorModel, transfer: dfd.transferFunction,
                block: dfd.texelBlockDimension.slice(0, 2).map((d) => d + 1).join('x'),
                bytesPlane0: dfd.bytesPlane[0], samples: dfd.samples.length,
                channel: dfd.samples[0].channelType,
                levels: c.levels.length, width: c.pixelWidth, height: c.pixelHeight,
                depth: c.pixelDepth, faces: c.faceCount };
  for (const k of Object.keys(want))
    if (got[k] !== want[k]) { console.log(`FAIL: ${file}: ${k} ${got[k]} != ${want[k]}`); failures++; }
  if (c.pixelDepth === 0 && c.levels.length !== Math.floor(Math.log2(Math.max(c.pixelWidth, c.pixelHeight))) + 1) {
    console.log(`FAIL: ${file}: not a full mip chain`); failures++;
  }
  if (c.keyValue['KTXwriter'] === undefined || c.keyValue['KTXorientation'] === undefined) {
    console.log(`FAIL: ${file}: key/value data missing`); failures++;
  }
  if (typeof zlib.zstdDecompressSync === 'function') {
    c.levels.forEach((l, i) => {
      const raw = zlib.zstdDecompressSync(l.levelData);
      if (raw.length !== Number(l.uncompressedByteLength)) {
        console.log(`FAIL: ${file}: level ${i} inflates to ${raw.length}`); failures++;
      }
    });
  }
  checked++;
}
console.log(`ktx-parse read ${checked} files, ${failures} problems`);
process.exit(failures ? 1 : 0);
JS
cp "$tmp/check.mjs" "$tmp/npm/check.mjs"
# Colour models: 1 RGBSDA, 128 BC1A, 130 BC3, 131 BC4, 132 BC5, 133 BC6H,
# 134 BC7, 162 ASTC, 166 UASTC (vkFormat 0; channel 3 RGBA, 0 RGB). cyan (2x2) and sky (BC6H, dense) are stored without Zstd:
# it would make their levels larger, so the writer drops it.
expect='{
 "tex/rgba.ktx2": {"vkFormat":146,"supercompression":2,"colorModel":134,"transfer":2,"block":"4x4","bytesPlane0":16,"samples":1,"width":32,"height":32,"levels":6},
 "tex/palette.ktx2": {"vkFormat":132,"supercompression":2,"colorModel":128,"transfer":2,"block":"4x4","bytesPlane0":8,"samples":1},
 "tex/deep.n.ktx2": {"vkFormat":141,"supercompression":2,"colorModel":132,"transfer":1,"block":"4x4","bytesPlane0":16,"samples":2},
 "tex/grey.ao.ktx2": {"vkFormat":139,"supercompression":2,"colorModel":131,"transfer":1,"block":"4x4","bytesPlane0":8,"samples":1},
 "tex/cyan.ktx2": {"vkFormat":132,"supercompression":0,"colorModel":128,"transfer":2},
 "tex/sky.ktx2": {"vkFormat":143,"supercompression":0,"colorModel":133,"transfer":1,"block":"4x4","bytesPlane0":16},
 "tex/forced3.ktx2": {"vkFormat":138,"supercompression":2,"colorModel":130,"transfer":2,"samples":2},
 "tex/raw.ktx2": {"vkFormat":43,"supercompression":2,"colorModel":1,"transfer":2,"block":"1x1"},
 "tex/grade.lut.ktx2": {"vkFormat":97,"supercompression":2,"width":3,"height":3,"depth":3,"levels":1},
 "tex/room.ktx2": {"vkFormat":146,"supercompression":2,"colorModel":134,"transfer":2,"block":"4x4","bytesPlane0":16,"width":16,"height":16,"faces":6,"levels":5},
 "tex/rawroom.ktx2": {"vkFormat":43,"supercompression":2,"colorModel":1,"transfer":2,"width":16,"height":16,"faces":6,"levels":5},
 "tex/uastc.ktx2": {"vkFormat":0,"supercompression":2,"colorModel":166,"transfer":2,"block":"4x4","bytesPlane0":16,"samples":1,"channel":3,"width":32,"height":32,"levels":6},
 "tex/uastcrgb.n.ktx2": {"vkFormat":0,"supercompression":2,"colorModel":166,"transfer":1,"block":"4x4","bytesPlane0":16,"samples":1,"channel":0},
 "tex/uroom.ktx2": {"vkFormat":0,"supercompression":2,"colorModel":166,"transfer":2,"block":"4x4","channel":3,"width":16,"height":16,"faces":6,"levels":5}
}'
expect_mobile='{
 "tex/rgba.ktx2": {"vkFormat":166,"supercompression":2,"colorModel":162,"transfer":2,"block":"6x6","bytesPlane0":16},
 "tex/deep.n.ktx2": {"vkFormat":157,"supercompression":2,"colorModel":162,"transfer":1,"block":"4x4"},
 "tex/grey.ao.ktx2": {"vkFormat":9,"supercompression":2,"colorModel":1,"transfer":1},
 "tex/sky.ktx2": {"vkFormat":1000066004,"supercompression":2,"colorModel":162,"transfer":1,"block":"6x6"},
 "tex/room.ktx2": {"vkFormat":166,"supercompression":2,"colorModel":162,"transfer":2,"block":"6x6","faces":6,"levels":5}
}'
if node "$tmp/npm/check.mjs" "$expect" "$tmp/out" &&
    node "$tmp/npm/check.mjs" "$expect_mobile" "$tmp/out-mobile"; then
    echo "1 passed, 0 failed"
    exit 0
fi
echo "0 passed, 1 failed"
exit 1
