#!/usr/bin/env bash
# test_import_isolation.sh — assimp runs in a child process: a crash, a hang or a
# corrupt result fails that asset alone, with a clear message, and the build
# goes on. Drives the kiln executable with the test builds' fault hook
# (KILN_TEST_ISOLATE_FAULT=KIND:FILE, src/cook/import/isolate_import.c).
#
# Environment (set by ctest): KILN (the executable), KILN_TMP (scratch folder).
# Prints one line per check and a final "isolate: N passed, M failed".
set -euo pipefail

source "$(dirname "$0")/harness.sh" isolate

# run VAR=VALUE... -- ARGS...: kiln in $SCRATCH with that environment; also
# sets $took (seconds).
took=0
run() {
    RUN_ENV=""
    while [ "$1" != "--" ]; do RUN_ENV="$RUN_ENV $1"; shift; done
    shift
    local start=$SECONDS
    run_in "$SCRATCH" "$@"
    took=$((SECONDS - start))
    RUN_ENV=""
}

# ---------------------------------------------------------------------------
# A tree of two good assimp models, one OBJ, and two PLYs the hook breaks
# ---------------------------------------------------------------------------

write_ply() { # a textured triangle
    mkdir -p "$(dirname "$1")"
    cat >"$1" <<'EOF'
ply
format ascii 1.0
element vertex 3
property float x
property float y
property float z
property float s
property float t
element face 1
property list uchar int vertex_indices
end_header
0 0 0 0 0
1 0 0 1 0
0 1 0 0 1
3 0 1 2
EOF
}

SRC="$SCRATCH/assets"
OUT="$SCRATCH/out"
write_ply "$SRC/good.ply"
write_ply "$SRC/props/also_good.ply"
write_ply "$SRC/bad/crash.ply"
write_ply "$SRC/bad/hang.ply"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$SRC/tri.obj"

good_cooked() {
    [ -s "$OUT/good.kmesh" ] && [ -s "$OUT/props/also_good.kmesh" ] && [ -s "$OUT/tri.kmesh" ]
}

# ---------------------------------------------------------------------------
# A crash
# ---------------------------------------------------------------------------

run KILN_TEST_ISOLATE_FAULT=crash:crash.ply -- build -i assets -o out -j2
check "a crash in assimp fails that asset with a clear error (exit 1)" \
    all_true 'status_is 1' \
    'stderr_has "^assets/bad/crash.ply: error: assimp crashed reading crash.ply \(signal 11, SIGSEGV\)$"' \
    'stdout_has "1 failed"'
check "the other assets of that build are cooked" all_true good_cooked \
    '[ -s "$OUT/bad/hang.kmesh" ]' '[ ! -e "$OUT/bad/crash.kmesh" ]'
run -- check -o out -q
check "what that build wrote passes kiln check" status_is 0

run -- build -i assets -o out -j2
check "without the fault the failed asset cooks next time, the rest is up to date" \
    all_true 'status_is 0' '[ -s "$OUT/bad/crash.kmesh" ]' 'stdout_has "4 up to date"'

run KILN_TEST_ISOLATE_FAULT=crash:crash.ply -- build -i assets -o json_out --json -j1
check "with --json a crash is counted and stdout stays one JSON document" \
    all_true 'status_is 1' 'jq -e ".failed == 1" "$SCRATCH/stdout" >/dev/null'

# ---------------------------------------------------------------------------
# A hang, stopped by the time limit: kiln.yml's import.timeout (a settings key:
# defaults, rules) or --import-timeout (which wins)
# ---------------------------------------------------------------------------

hang_stopped_at() { # SECONDS: the hang failed with that limit, the rest cooked
    all_true 'status_is 1' \
        "stderr_has \"^assets/bad/hang.ply: error: assimp took longer than $1 s reading hang.ply; stopped .import.timeout\"" \
        '[ "$took" -lt 60 ]' good_cooked '[ -s "$OUT/bad/crash.kmesh" ]'
}
# (The good assets get these limits too: a few seconds, so a loaded machine
# cannot make them time out.)
printf 'default:\n  import.timeout: 3\n' >"$SCRATCH/timeout.yml"
rm -rf "$OUT"
run KILN_TEST_ISOLATE_FAULT=hang:hang.ply -- build --config timeout.yml -i assets -o out -j2
check "a hang is stopped at kiln.yml's import.timeout and fails that asset alone" hang_stopped_at 3

rm -rf "$OUT"
run KILN_TEST_ISOLATE_FAULT=hang:hang.ply -- build --config timeout.yml --import-timeout 4 \
    -i assets -o out -j2
check "--import-timeout wins over kiln.yml" hang_stopped_at 4

# Per asset: a rule gives the hanging file 1 s (the nested spelling), the
# others keep the default.
printf 'rules:\n  - match: "bad/hang.*"\n    import: {timeout: 1}\n' >"$SCRATCH/rule.yml"
rm -rf "$OUT"
run KILN_TEST_ISOLATE_FAULT=hang:hang.ply -- build --config rule.yml -i assets -o out -j2
check "a rule sets import.timeout for the assets it matches" hang_stopped_at 1

# Not part of the output: another limit recooks nothing.
run -- build -i assets -o limit_out
first=$status
run -- build -i assets -o limit_out --import-timeout 30
check "changing the import time limit recooks nothing (not in the cache key)" \
    all_true '[ "$first" -eq 0 ]' 'status_is 0' 'stdout_has "0 cooked|up to date"' \
    '! stdout_has "cooked [1-9]"'

for bad in 0 soon 86401 -3 1.5; do
    run -- build -i assets -o bad_limit_out --import-timeout "$bad"
    check "--import-timeout $bad is a usage error" \
        all_true 'status_is 2' "stderr_has \"invalid import timeout '$bad' .expected 1..86400 seconds.\"" \
        '[ ! -e "$SCRATCH/bad_limit_out" ]'
done
run -- watch -i assets -o bad_limit_out --import-timeout 0
check "kiln watch takes --import-timeout and checks it the same way" \
    all_true 'status_is 2' "stderr_has \"invalid import timeout '0'\""
printf 'default:\n  import.timeout: 0\n' >"$SCRATCH/zero.yml"
run -- build --config zero.yml -i assets -o bad_limit_out
check "import.timeout: 0 in kiln.yml is an error with its line" \
    all_true 'status_is 1' 'stderr_has "zero.yml:2: error: .*import.timeout"'

run KILN_ISOLATE_TIMEOUT=1 -- build -i assets -o limit_out
check "KILN_ISOLATE_TIMEOUT, no longer read, is named in a warning" \
    all_true 'status_is 0' 'stderr_has "KILN_ISOLATE_TIMEOUT is no longer read"'

# ---------------------------------------------------------------------------
# A corrupt result
# ---------------------------------------------------------------------------

run KILN_TEST_ISOLATE_FAULT=garbage:good.ply -- build -i assets -o garbage_out --no-cache
check "a result the child corrupted is refused, not used" \
    all_true 'status_is 1' \
    'stderr_has "^assets/good.ply: error: assimp sent an invalid result for good.ply: "' \
    '[ ! -e "$SCRATCH/garbage_out/good.kmesh" ] && [ -s "$SCRATCH/garbage_out/tri.kmesh" ]'

# ---------------------------------------------------------------------------
# In process (KILN_ISOLATE=0) cooks the same bytes
# ---------------------------------------------------------------------------

run -- build -i assets -o isolated_out --no-cache
isolated_status=$status
run KILN_ISOLATE=0 -- build -i assets -o in_process_out --no-cache
check "KILN_ISOLATE=0 imports in process and cooks the same files" \
    all_true '[ "$isolated_status" -eq 0 ]' 'status_is 0' \
    'diff -r "$SCRATCH/isolated_out" "$SCRATCH/in_process_out" >/dev/null'
run KILN_ISOLATE=0 KILN_TEST_ISOLATE_FAULT=crash:crash.ply -- build -i assets -o in_process_out
check "in process the fault hook does nothing (it acts in the child)" status_is 0

run KILN_ISOLATE_MEMORY_MB=lots -- build -i assets -o bad_env_out --no-cache
check "a bad KILN_ISOLATE_MEMORY_MB is an error for the assimp assets" \
    all_true 'status_is 1' 'stderr_has "KILN_ISOLATE_MEMORY_MB=.lots. is not a number"' \
    '[ -s "$SCRATCH/bad_env_out/tri.kmesh" ]'

# ---------------------------------------------------------------------------
# What the child looked for and did not find reaches the cache
# ---------------------------------------------------------------------------

ABSENT="$SCRATCH/absent"
write_ply "$ABSENT/model.ply"
sed -i 's/^format ascii 1.0$/format ascii 1.0\ncomment TextureFile paint.png/' "$ABSENT/model.ply"
run -- build -i absent -o absent_out
first=$status
run -- build -i absent -o absent_out
check "a model whose texture is missing cooks (with a warning), then is up to date" \
    all_true '[ "$first" -eq 0 ]' 'status_is 0' 'stdout_has "1 up to date"'
cp "$SRC/good.ply" "$ABSENT/paint.png" # any bytes: the import only resolves it
run -- build -i absent -o absent_out
check "the texture appearing cooks the model again (the child's absent path was recorded)" \
    all_true 'stdout_has "cooked 1 asset"' 'stdout_has "0 up to date"'

# ---------------------------------------------------------------------------
# kiln killed while an import hangs leaves no process behind
# ---------------------------------------------------------------------------

orphans_gone() {
    local pid
    for _ in $(seq 50); do
        local alive=0
        for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ "$alive" -eq 0 ] && return 0
        sleep 0.1
    done
    return 1
}

killed_build() {
    (cd "$SCRATCH" && exec env KILN_TEST_ISOLATE_FAULT=hang:hang.ply \
        "$KILN" build -i assets -o killed_out --no-cache -j1 --import-timeout 300) >/dev/null 2>&1 </dev/null &
    local kiln=$! server="" child="" i
    for i in $(seq 200); do # the server, then the child importing hang.ply
        server=$(pgrep -P "$kiln" | head -n 1 || true)
        [ -n "$server" ] && child=$(pgrep -P "$server" | head -n 1 || true)
        [ -n "$child" ] && sleep 1 && break # the other assets are done by then
        sleep 0.1
    done
    kill -9 "$kiln"
    wait "$kiln" 2>/dev/null || true
    [ -n "$server" ] && [ -n "$child" ] && orphans_gone "$server" "$child"
}
status=0
check "kiln killed during a hanging import: its server and child exit too" killed_build

finish isolate
