#!/usr/bin/env bash
# test_asset_timeout.sh — the per-asset time budget (asset.timeout,
# --asset-timeout): an asset whose cook takes longer fails with
# "cook exceeded the N s time budget in stage S", nothing of it is published,
# and the other assets cook; the assimp child gets what is left of the budget.
# No timing is asserted: only that each run ended, with these errors.
#
# The slow input is real: a 512 x 512 noise TGA compressed to BC7 takes
# seconds in a release build and far longer under the sanitizers. Stages are
# also slowed with the test hook KILN_TEST_SLOW_STAGE=<stage>:<seconds>
# (src/cook/core/activity.c) to name each stage without a slow input.
#
# Environment (set by ctest): KILN (the executable), KILN_TMP (scratch folder).
set -euo pipefail

source "$(dirname "$0")/harness.sh" asset_timeout

run() { # VAR=VALUE... -- ARGS...: kiln in $SCRATCH with that environment
    RUN_ENV=""
    while [ "$1" != "--" ]; do RUN_ENV="$RUN_ENV $1"; shift; done
    shift
    run_in "$SCRATCH" "$@"
    RUN_ENV=""
}

# write_noise_tga FILE SIDE: an uncompressed 32-bit TGA of random texels.
write_noise_tga() {
    local side=$1 file=$2
    {
        printf '\000\000\002\000\000\000\000\000\000\000\000\000'
        printf "\\$(printf %03o $((side & 255)))\\$(printf %03o $((side >> 8)))"
        printf "\\$(printf %03o $((side & 255)))\\$(printf %03o $((side >> 8)))"
        printf '\040\010'
        head -c $((side * side * 4)) /dev/urandom
    } >"$file"
}

write_ply() { # a triangle, read by assimp in its child process
    cat >"$1" <<'EOF'
ply
format ascii 1.0
element vertex 3
property float x
property float y
property float z
element face 1
property list uchar int vertex_indices
end_header
0 0 0
1 0 0
0 1 0
3 0 1 2
EOF
}

SRC="$SCRATCH/assets"
mkdir -p "$SRC/textures" "$SRC/props"
write_noise_tga 512 "$SRC/textures/noise.tga"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$SRC/props/tri.obj"
write_ply "$SRC/props/hang.ply"
cat >"$SCRATCH/bc7.yml" <<'EOF'
default:
  texture.compress: true
  texture.format: bc7
EOF

# ---------------------------------------------------------------------------
# A texture that cannot finish in 1 s
# ---------------------------------------------------------------------------

run -- build --config bc7.yml -i assets -o out -j2 --asset-timeout 1
check "a texture over --asset-timeout fails with the budget's error and stage (exit 1)" \
    all_true 'status_is 1' \
    'stderr_has "^assets/textures/noise.tga: error: cook exceeded the 1 s time budget in stage texture; stopped \(asset.timeout, --asset-timeout\)$"' \
    'stdout_has "1 failed"'
check "nothing of the stopped texture is written; the other assets are" \
    all_true '[ ! -e "$SCRATCH/out/textures/noise.ktx2" ]' '[ -s "$SCRATCH/out/props/tri.kmesh" ]' \
    '[ -s "$SCRATCH/out/props/hang.kmesh" ]' \
    '[ -z "$(find "$SCRATCH/out" -name ".*.kiln-*")" ]'
run -- check -o out -q
check "what that build wrote passes kiln check" status_is 0

# kiln.yml's key, in the defaults and in a rule.
printf 'default:\n  texture.compress: true\n  texture.format: bc7\n  asset.timeout: 1\n' \
    >"$SCRATCH/budget.yml"
run -- build --config budget.yml -i assets -o yml_out -j2
check "asset.timeout in kiln.yml's defaults is the budget" \
    all_true 'status_is 1' 'stderr_has "noise.tga: error: cook exceeded the 1 s time budget in stage texture"' \
    '[ -s "$SCRATCH/yml_out/props/tri.kmesh" ]'
cat >"$SCRATCH/rule.yml" <<'EOF'
default:
  texture.compress: true
  texture.format: bc7
rules:
  - match: "textures/*"
    asset: {timeout: 1}
EOF
run -- build --config rule.yml -i assets -o rule_out -j2
check "a rule sets asset.timeout for the assets it matches" \
    all_true 'status_is 1' 'stderr_has "noise.tga: error: cook exceeded the 1 s time budget in stage texture"' \
    'stdout_has "1 failed"'

# ---------------------------------------------------------------------------
# Each stage, by the test hook (every asset of the tree is slowed: one only)
# ---------------------------------------------------------------------------

mkdir -p "$SCRATCH/one"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$SCRATCH/one/tri.obj"
for stage in import process write; do
    run KILN_TEST_SLOW_STAGE=$stage:2 -- build -i one -o "one_$stage" -j1 --asset-timeout 1
    check "time spent in stage $stage is named by the error" \
        all_true 'status_is 1' \
        "stderr_has \"^one/tri.obj: error: cook exceeded the 1 s time budget in stage $stage;\"" \
        '[ ! -e "$SCRATCH/one_'$stage'/tri.kmesh" ]'
done
run KILN_TEST_SLOW_STAGE=process:2 -- build -i one -o one_none -j1 --asset-timeout 0
check "--asset-timeout 0 is no budget" all_true 'status_is 0' '[ -s "$SCRATCH/one_none/tri.kmesh" ]'

# ---------------------------------------------------------------------------
# One budget with the assimp child: a hang is stopped at what is left of it
# ---------------------------------------------------------------------------

mkdir -p "$SCRATCH/child"
write_ply "$SCRATCH/child/hang.ply"
cp "$SRC/props/tri.obj" "$SCRATCH/child/tri.obj"
run KILN_TEST_ISOLATE_FAULT=hang:hang.ply -- build -i child -o hang_out -j2 --asset-timeout 1 \
    --import-timeout 600
check "a hanging importer child is stopped at the asset's budget, before import.timeout" \
    all_true 'status_is 1' \
    'stderr_has "^child/hang.ply: error: cook exceeded the 1 s time budget in stage import; stopped"' \
    'stderr_lacks "took longer than"' '[ -s "$SCRATCH/hang_out/tri.kmesh" ]'
run KILN_TEST_ISOLATE_FAULT=hang:hang.ply -- build -i child -o hang_out2 -j2 --asset-timeout 600 \
    --import-timeout 1
check "import.timeout still applies within a larger budget" \
    all_true 'status_is 1' 'stderr_has "hang.ply: error: assimp took longer than 1 s reading hang.ply"'

# ---------------------------------------------------------------------------
# Bad values
# ---------------------------------------------------------------------------

for bad in -1 abc 86401 1.5 ""; do
    run -- build -i assets -o bad_out --asset-timeout "$bad"
    check "--asset-timeout '$bad' is a usage error" \
        all_true 'status_is 2' "stderr_has \"invalid asset timeout '$bad' .expected 0..86400 seconds, 0: none.\"" \
        '[ ! -e "$SCRATCH/bad_out" ]'
done
run -- watch -i assets -o bad_out --asset-timeout x
check "kiln watch takes --asset-timeout and checks it the same way" \
    all_true 'status_is 2' "stderr_has \"invalid asset timeout 'x'\""
printf 'default:\n  asset.timeout: 86401\n' >"$SCRATCH/big.yml"
run -- build --config big.yml -i assets -o bad_out
check "asset.timeout over a day in kiln.yml is an error with its line" \
    all_true 'status_is 1' 'stderr_has "big.yml:2: error: .*asset.timeout"'

# ---------------------------------------------------------------------------
# kiln watch --serve: an asset over its budget fails its request; the server
# goes on and serves the next
# ---------------------------------------------------------------------------

if [ -z "${KILN_COOK_CLIENT:-}" ]; then
    echo "skipped: kiln watch --serve checks (no cook client: libkiln built without KILN_RUNTIME_DEV)"
    finish asset_timeout
    exit $?
fi
source "$(dirname "$0")/../support/background.sh"
trap stop_watch EXIT
listening() { grep -q "cook requests on" "$SCRATCH/watch.out"; }
(cd "$SCRATCH" && exec "$KILN" watch --config bc7.yml -i assets -o serve_out -j2 --serve \
    --debounce 60000 --asset-timeout 1) >"$SCRATCH/watch.out" 2>"$SCRATCH/watch.err" </dev/null &
watch_pid=$!
wait_for listening || true
"$KILN_COOK_CLIENT" "$SCRATCH/serve_out" "$SCRATCH/serve_out/.kiln-serve" textures/noise props/tri \
    >"$SCRATCH/stdout" 2>"$SCRATCH/stderr" || true
stop_watch
check "a COOK request for an asset over its budget fails; the server then serves the next" \
    all_true listening 'stdout_has "^fail textures/noise: "' 'stdout_has "^ok props/tri mesh "' \
    'grep -q "served .textures/noise.: 0 cooked, 1 failed" "$SCRATCH/watch.out"' \
    'grep -q "noise.tga: error: cook exceeded the 1 s time budget in stage texture" "$SCRATCH/watch.err"'

finish asset_timeout
