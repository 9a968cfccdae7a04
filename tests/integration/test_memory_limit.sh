#!/usr/bin/env bash
# test_memory_limit.sh — `kiln build --memory-limit` (src/build/memory.c):
# an asset starts only while the estimated peaks of the assets cooking, with
# its own, stay within the limit; one over the limit alone cooks alone. The
# --json report's "memory" (limit, peak of the running estimates, largest
# single estimate) is checked against estimates computed here from the
# images' sizes, so the check does not depend on timing.
#
# Environment (set by ctest): KILN (the executable), KILN_TMP (scratch folder).
set -euo pipefail

source "$(dirname "$0")/harness.sh" memory_limit
if ! command -v python3 >/dev/null || ! command -v jq >/dev/null; then
    echo "memory limit: skipped: python3 and jq are needed"
    exit 0
fi

# Three PNGs and a BMP of known sizes, and a small OBJ (estimated at the
# 4 MiB floor).
python3 - "$SCRATCH/in" <<'PY'
import os, struct, sys
from png_tool import write_png
root = sys.argv[1]
os.makedirs(root, exist_ok=True)
def png(name, w, h):
    rgba = bytes((x * 7 + y) & 255 for y in range(h) for x in range(w * 4))
    write_png(os.path.join(root, name), w, h, rgba)
def bmp(name, w, h):
    row = (w * 3 + 3) & ~3
    pixels = bytes((x + y) & 255 for y in range(h) for x in range(row))
    header = struct.pack("<2sIHHI", b"BM", 54 + len(pixels), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(pixels), 2835, 2835, 0, 0)
    with open(os.path.join(root, name), "wb") as f:
        f.write(header + info + pixels)
png("big.png", 1024, 1024)
png("wide.png", 1024, 512)
png("tall.png", 512, 2048)
bmp("photo.bmp", 1000, 700)
with open(os.path.join(root, "tri.obj"), "w") as f:
    f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
PY

# Uncompressed textures: the estimates do not depend on it, and BC7 under
# the sanitizers would take minutes.
printf 'default:\n  texture.compress: false\n' >"$SCRATCH/kiln.yml"

# The estimate of a texture: 2.5 x its RGBA8 size + the file (memory.c).
estimate() { echo $(($1 * $2 * 4 * 5 / 2 + $(stat -c %s "$SCRATCH/in/$3"))); }
big=$(estimate 1024 1024 big.png)
wide=$(estimate 1024 512 wide.png)
tall=$(estimate 512 2048 tall.png)
photo=$(estimate 1000 700 photo.bmp)
largest=$big
[ "$tall" -le "$largest" ] || largest=$tall

memory() { jq -r ".memory.$1" "$SCRATCH/stdout"; }

run_in "$SCRATCH" build --config kiln.yml -i in -o unlimited --json -j4 --no-cache --memory-limit 100%
check "without a binding limit the build cooks everything" status_is 0

# Any two assets together are over the largest single estimate: one at a time.
run_in "$SCRATCH" build --config kiln.yml -i in -o one_at_a_time --json -j4 --no-cache --memory-limit "$largest"
check "--memory-limit BYTES: the largest estimate is 2.5 x RGBA8 + the file ($largest)" \
    all_true 'status_is 0' '[ "$(memory limit)" -eq "$largest" ]' \
    '[ "$(memory largest_estimate)" -eq "$largest" ]'
check "... and no two assets ran at once: the peak of the running estimates is one asset's" \
    all_true '[ "$(memory peak_estimate)" -eq "$largest" ]'
check "... and the output is the unlimited build's" \
    diff -r -x .kiln-cache "$SCRATCH/unlimited" "$SCRATCH/one_at_a_time"

# The two largest fit together, no three do.
two=$((big + tall))
run_in "$SCRATCH" build --config kiln.yml -i in -o two --json -j4 --no-cache --memory-limit "$two"
check "a limit for two: the running estimates never pass it" \
    all_true 'status_is 0' '[ "$(memory peak_estimate)" -le "$two" ]' \
    '[ "$(memory peak_estimate)" -ge "$largest" ]'

# Every asset over a 1 KiB limit: each cooks, alone.
run_in "$SCRATCH" build --config kiln.yml -i in -o alone --json -j4 --no-cache --memory-limit 1K
check "assets over the limit on their own still cook, one at a time" \
    all_true 'status_is 0' '[ "$(memory peak_estimate)" -eq "$largest" ]' \
    '[ -s "$SCRATCH/alone/big.ktx2" ] && [ -s "$SCRATCH/alone/tri.kmesh" ]'

# A share of the RAM, the default half of it.
ram=$(($(getconf _PHYS_PAGES) * $(getconf PAGESIZE)))
run_in "$SCRATCH" build --config kiln.yml -i in -o alone --json -j2 --memory-limit 25%
check "--memory-limit 25% is a quarter of the RAM" \
    all_true 'status_is 0' '[ "$(memory limit)" -eq $((ram / 100 * 25)) ]'
run_in "$SCRATCH" build --config kiln.yml -i in -o alone --json -j2
check "the default is half the RAM" all_true '[ "$(memory limit)" -eq $((ram / 100 * 50)) ]'
run_in "$SCRATCH" build --config kiln.yml -i in -o alone --json -j2 --memory-limit 2G
check "G is 2^30" all_true '[ "$(memory limit)" -eq $((2 << 30)) ]'

# A level: 20 x its file (streamed entity by entity; memory.c, LEVEL_MULTIPLE).
mkdir -p "$SCRATCH/levels/lv"
{
    echo "entities:"
    for i in $(seq 1 4000); do
        printf '  - name: e%d\n    translation: [%d, 0, 1.5]\n    components: {hp: {value: %d}}\n' \
            "$i" "$i" "$i"
    done
} >"$SCRATCH/levels/lv/big.level"
level_estimate=$(($(stat -c %s "$SCRATCH/levels/lv/big.level") * 20))
run_in "$SCRATCH" build -i levels -o levels_out --json -j2 --memory-limit 1K
check "a level is estimated at 20 x its file ($level_estimate)" \
    all_true 'status_is 0' '[ "$(memory largest_estimate)" -eq "$level_estimate" ]' \
    '[ "$level_estimate" -gt $((4 << 20)) ]'

# A cubemap: its faces are cooked one at a time, their files kept: the
# largest face's estimate + the other faces' files (memory.c).
mkdir -p "$SCRATCH/cubes/in/sky.env"
python3 - "$SCRATCH/cubes/in/sky.env" <<'PY'
import os, sys
from png_tool import write_png
for i, face in enumerate(("px", "nx", "py", "ny", "pz", "nz")):
    size = 768 if face == "py" else 256  # one larger face (the driver refuses it: not cooked)
    rgba = bytes((x + y + i) & 255 for y in range(size) for x in range(size * 4))
    write_png(os.path.join(sys.argv[1], face + ".png"), size, size, rgba)
PY
files=0
for face in "$SCRATCH"/cubes/in/sky.env/*.png; do files=$((files + $(stat -c %s "$face"))); done
cube_estimate=$((768 * 768 * 4 * 5 / 2 + files))
run_in "$SCRATCH/cubes" build -i in -o out --json -j1 --memory-limit 1K
check "a cubemap is estimated at its largest face + the faces' files ($cube_estimate)" \
    all_true '[ "$(memory largest_estimate)" -eq "$cube_estimate" ]' \
    '[ "$cube_estimate" -gt $((4 << 20)) ]'

for bad in 0 7X 101% -5 1.5G ""; do
    run_in "$SCRATCH" build --config kiln.yml -i in -o bad --memory-limit "$bad"
    check "--memory-limit '$bad' is a usage error" \
        all_true 'status_is 2' "stderr_has \"invalid memory limit '$bad'\""
done

finish "memory limit"
