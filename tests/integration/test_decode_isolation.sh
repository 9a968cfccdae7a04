#!/usr/bin/env bash
# test_decode_isolation.sh — the third-party decoders (libspng, libjpeg,
# stb_image, libdraco), glslang, SPIRV-Tools' validator and SPIRV-Cross's
# reflection run in a reused child process: a crash, a hang or a
# corrupt reply fails that asset alone with an error naming the library and
# the file, the build goes on (the child restarted for the next asset), the
# exit status says so, no process is left behind, and the cooked bytes are
# those of decoding in process (KILN_ISOLATE=0). Drives the kiln executable
# with the test builds' fault hook (KILN_TEST_ISOLATE_FAULT=KIND:FILE).
#
# Environment (set by ctest): KILN, KILN_TMP, KILN_CORPUS (for a JPEG and a
# Draco glTF; those cases are skipped without it).
set -euo pipefail

source "$(dirname "$0")/harness.sh" decode_isolation
SEEDS="$(dirname "$0")/../fuzz/seeds/image"

SRC="$SCRATCH/assets"
mkdir -p "$SRC/tex" "$SRC/models/good" "$SRC/models/bad"
# PNGs of 8x8 RGBA, each different (python's zlib: no image library needed).
python3 - "$SRC/tex" <<'PY'
import sys
from png_tool import write_png
for seed, name in enumerate(['a', 'b', 'crash', 'hang', 'next']):
    rgba = bytes((x * 37 + y * 11 + seed * 5 + c * 60) & 255
                 for y in range(8) for x in range(8) for c in range(4))
    write_png('%s/%s.png' % (sys.argv[1], name), 8, 8, rgba)
PY
cp "$SEEDS/rgb-4x4.bmp" "$SRC/tex/pic.bmp"
cp "$SEEDS/rgb-4x4.bmp" "$SRC/tex/crash_b.bmp"
cp "$SEEDS/rgba-4x4.tga" "$SRC/tex/pict.tga"
# The examples' shaders: a program folder whose fragment stage includes a
# header (answered by the parent), a compute shader, an HLSL one.
cp -r "$(dirname "$0")/../../examples/assets/shaders" "$SRC/shaders"
# A program of precompiled stages (validated by SPIRV-Tools, not compiled).
have_glslc=0
if command -v glslc >/dev/null; then
    have_glslc=1
    mkdir -p "$SRC/shaders/pre.shader"
    printf '#version 450\nlayout(location = 0) out vec2 uv;\nvoid main() { uv = vec2(0.5); gl_Position = vec4(0.0); }\n' |
        glslc -fshader-stage=vert - -o "$SRC/shaders/pre.shader/vertex.spv"
    printf '#version 450\nlayout(location = 0) in vec2 uv;\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(uv, 0.0, 1.0); }\n' |
        glslc -fshader-stage=frag - -o "$SRC/shaders/pre.shader/fragment.spv"
else
    echo "skipped: the SPIRV-Tools cases (no glslc to make .spv stages)"
fi
CORPUS=${KILN_CORPUS:-}
if [ -n "$CORPUS" ] && [ -f "$CORPUS/images/misc/cyan.jpg" ] &&
    [ -f "$CORPUS/gltf/Box/glTF-Draco/Box.gltf" ]; then
    have_corpus=1
    cp "$CORPUS/images/misc/cyan.jpg" "$SRC/tex/photo.jpg"
    cp "$CORPUS/images/misc/cyan.jpg" "$SRC/tex/crash_j.jpg"
    cp "$CORPUS/gltf/Box/glTF-Draco/Box.gltf" "$CORPUS/gltf/Box/glTF-Draco/Box.bin" "$SRC/models/good/"
    cp "$CORPUS/gltf/Box/glTF-Draco/Box.bin" "$SRC/models/bad/"
    cp "$CORPUS/gltf/Box/glTF-Draco/Box.gltf" "$SRC/models/bad/Crash.gltf"
else
    have_corpus=0
    echo "skipped: the JPEG and Draco cases (no corpus at KILN_CORPUS)"
fi

# A marker in kiln's environment, which its servers inherit: a process still
# carrying it after kiln exits was left behind.
MARK="KILN_DECODE_ISOLATION_TEST=$$"
leftovers() {
    local f
    for f in /proc/[0-9]*/environ; do
        { tr "\0" "\n" <"$f"; } 2>/dev/null | grep -qx "$MARK" && echo "$f"
    done
    return 0
}
no_leftovers() { [ -z "$(leftovers)" ]; }

run() { # VAR=VALUE... -- ARGS...
    RUN_ENV="$MARK"
    while [ "$1" != "--" ]; do RUN_ENV="$RUN_ENV $1"; shift; done
    shift
    run_in "$SCRATCH" "$@"
    RUN_ENV=""
}

cooked() { # NAME...: each cooked under out/
    local name
    for name in "$@"; do [ -s "$SCRATCH/out/$name" ] || return 1; done
}
good_cooked() {
    cooked tex/a.ktx2 tex/b.ktx2 tex/next.ktx2 tex/hang.ktx2 tex/pic.ktx2 tex/pict.ktx2 || return 1
    cooked shaders/post/blur.comp.kshader || return 1
    [ "$have_corpus" -eq 0 ] || cooked tex/photo.ktx2 models/good/Box.kmesh
}

# crash_case HOOK_FILE SOURCE LIBRARY: that asset fails with the library
# named, the rest cooks, exit 1, nothing left running.
crash_case() {
    local file=$1 source=$2 library=$3 verb=${4:-decoding} after=${5:-}
    rm -rf "$SCRATCH/out"
    run KILN_TEST_ISOLATE_FAULT="crash:$file" -- build -i assets -o out -j1 --no-cache
    check "$library crashing on $file fails that asset with a clear error (exit 1)" \
        all_true 'status_is 1' \
        "stderr_has \"^assets/$source: error: .*$library crashed $verb $file \\(signal 11, SIGSEGV\\)$after\$\"" \
        'stdout_has "1 failed"'
    check "$library: the other assets of that build cook (the child restarted)" good_cooked
    check "$library: no process is left behind" no_leftovers
}

crash_case crash.png tex/crash.png libspng
crash_case crash_b.bmp tex/crash_b.bmp stb_image
crash_case tonemap.ps.hlsl shaders/post/tonemap.ps.hlsl glslang compiling
if [ "$have_glslc" -eq 1 ]; then
    crash_case vertex.spv shaders/pre.shader/vertex.spv SPIRV-Tools validating ' \\(target vulkan1.3\\)'
    # (the hook's name for the reflection of a stage: FILE#reflect)
    rm -rf "$SCRATCH/out"
    run KILN_TEST_ISOLATE_FAULT="crash:fragment.spv#reflect" -- build -i assets -o out -j2 --no-cache
    check "SPIRV-Cross crashing on a module fails that program with a clear error" \
        all_true 'status_is 1' \
        'stderr_has "^assets/shaders/pre.shader/fragment.spv: error: SPIRV-Cross crashed reflecting fragment.spv \(signal 11, SIGSEGV\)$"' \
        good_cooked '[ ! -e "$SCRATCH/out/shaders/pre.kshader" ]' no_leftovers
fi
if [ "$have_corpus" -eq 1 ]; then
    crash_case crash_j.jpg tex/crash_j.jpg libjpeg
    crash_case Crash.gltf models/bad/Crash.gltf libdraco
fi

# -j1 cooks in path order: next.png comes after crash.png, in the server
# that replaced the crashed one.
rm -rf "$SCRATCH/out"
run KILN_TEST_ISOLATE_FAULT=crash:crash.png -- build -i assets -o out -j1 --no-cache -v
check "the next image after a crash cooks" \
    all_true 'status_is 1' 'cooked tex/next.ktx2' '[ ! -e "$SCRATCH/out/tex/crash.ktx2" ]'

rm -rf "$SCRATCH/out"
run KILN_TEST_ISOLATE_FAULT=crash:crash.png -- build -i assets -o out -j2 --json
check "with --json the crash is counted and stdout stays one JSON document" \
    all_true 'status_is 1' 'jq -e ".failed == 1" "$SCRATCH/stdout" >/dev/null'

# A hang, stopped at import.timeout (kiln.yml), the rest cooked.
# import.timeout 2 s for the hanging assets alone (a rule each): the others
# keep the default, so a busy machine cannot time out their real work.
cat >"$SCRATCH/timeout.yml" <<'YML'
rules:
  - match: "tex/hang.png"
    import.timeout: 2
  - match: "models/bad/Crash.gltf"
    import.timeout: 2
  - match: "shaders/post/blur.comp"
    import.timeout: 2
  - match: "shaders/pre.shader"
    import.timeout: 2
YML
rm -rf "$SCRATCH/out"
run KILN_TEST_ISOLATE_FAULT=hang:hang.png -- build --config timeout.yml -i assets -o out -j2
check "a hanging decoder is stopped at import.timeout and fails that asset alone" \
    all_true 'status_is 1' \
    'stderr_has "^assets/tex/hang.png: error: cannot decode image: libspng took longer than 2 s decoding hang.png; stopped \(import.timeout, --import-timeout\)$"' \
    'cooked tex/a.ktx2 tex/next.ktx2' '[ ! -e "$SCRATCH/out/tex/hang.ktx2" ]' no_leftovers
if [ "$have_corpus" -eq 1 ]; then
    rm -rf "$SCRATCH/out"
    run KILN_TEST_ISOLATE_FAULT=hang:Crash.gltf -- build --config timeout.yml -i assets -o out -j2
    check "a hanging libdraco is stopped the same way" \
        all_true 'status_is 1' \
        'stderr_has "^assets/models/bad/Crash.gltf: error: .*libdraco took longer than 2 s decoding Crash.gltf"' \
        'cooked models/good/Box.kmesh tex/a.ktx2' no_leftovers
fi

rm -rf "$SCRATCH/out"
run KILN_TEST_ISOLATE_FAULT=hang:blur.comp -- build --config timeout.yml -i assets -o out -j2
check "a hanging glslang is stopped the same way" \
    all_true 'status_is 1' \
    'stderr_has "^assets/shaders/post/blur.comp: error: glslang took longer than 2 s compiling blur.comp; stopped"' \
    'cooked tex/a.ktx2 shaders/lit.kshader' no_leftovers

# A reply the child corrupted is refused.
rm -rf "$SCRATCH/out"
run KILN_TEST_ISOLATE_FAULT=garbage:a.png -- build -i assets -o out -j2
check "a corrupt reply is refused, not used" \
    all_true 'status_is 1' \
    'stderr_has "^assets/tex/a.png: error: cannot decode image: libspng sent an invalid result"' \
    '[ ! -e "$SCRATCH/out/tex/a.ktx2" ]' 'cooked tex/b.ktx2'
if [ "$have_corpus" -eq 1 ]; then
    rm -rf "$SCRATCH/out"
    run KILN_TEST_ISOLATE_FAULT=garbage:Crash.gltf -- build -i assets -o out -j2
    check "a corrupt libdraco reply is refused" \
        all_true 'status_is 1' 'stderr_has "^assets/models/bad/Crash.gltf: error: .*libdraco sent an invalid result"' \
        'cooked models/good/Box.kmesh'
fi

rm -rf "$SCRATCH/out"
run KILN_TEST_ISOLATE_FAULT=garbage:fragment.frag -- build -i assets -o out -j2
check "a corrupt glslang reply is refused" \
    all_true 'status_is 1' \
    'stderr_has "^assets/shaders/lit.shader/fragment.frag: error: glslang sent an invalid result for fragment.frag$"' \
    '[ ! -e "$SCRATCH/out/shaders/lit.kshader" ]' 'cooked shaders/post/blur.comp.kshader'

if [ "$have_glslc" -eq 1 ]; then
    rm -rf "$SCRATCH/out"
    run KILN_TEST_ISOLATE_FAULT=garbage:fragment.spv -- build -i assets -o out -j2
    check "a corrupt SPIRV-Tools reply is refused" \
        all_true 'status_is 1' \
        'stderr_has "^assets/shaders/pre.shader/fragment.spv: error: SPIRV-Tools sent an invalid result for fragment.spv"' \
        '[ ! -e "$SCRATCH/out/shaders/pre.kshader" ]' 'cooked shaders/lit.kshader'
    # SPIRV-Cross's reply is kiln's reflection of the stage, checked whole.
    rm -rf "$SCRATCH/out"
    run KILN_TEST_ISOLATE_FAULT="garbage:fragment.spv#reflect" -- build -i assets -o out -j2
    check "a corrupt SPIRV-Cross reply is refused" \
        all_true 'status_is 1' \
        'stderr_has "^assets/shaders/pre.shader/fragment.spv: error: SPIRV-Cross sent an invalid result for fragment.spv: its stage is cut short"' \
        '[ ! -e "$SCRATCH/out/shaders/pre.kshader" ]' 'cooked shaders/lit.kshader'
    rm -rf "$SCRATCH/out"
    run KILN_TEST_ISOLATE_FAULT="hang:vertex.spv#reflect" -- build --config timeout.yml -i assets -o out -j2
    check "a hanging SPIRV-Cross is stopped at import.timeout" \
        all_true 'status_is 1' \
        'stderr_has "^assets/shaders/pre.shader/vertex.spv: error: SPIRV-Cross took longer than 2 s reflecting vertex.spv; stopped"' \
        '[ ! -e "$SCRATCH/out/shaders/pre.kshader" ]' 'cooked shaders/lit.kshader' no_leftovers
fi

# Isolated and in process: the same bytes (the shaders' includes, answered by
# the parent, among them); KILN_ISOLATE=0 ignores the hook.
run -- build -i assets -o isolated --no-cache
isolated_status=$status
run KILN_ISOLATE=0 -- build -i assets -o in_process --no-cache
check "isolated and in-process decoding cook the same files" \
    all_true '[ "$isolated_status" -eq 0 ]' 'status_is 0' \
    'diff -r "$SCRATCH/isolated" "$SCRATCH/in_process" >/dev/null'
# kiln check validates and reflects a cooked shader's modules in the same
# children: SPIRV-Cross crashing there is that file's problem.
run KILN_TEST_ISOLATE_FAULT='crash:lit.kshader#reflect' -- check -o isolated
check "kiln check: SPIRV-Cross crashing on a cooked shader is that file's problem" \
    all_true 'status_is 1' 'stdout_has "1 problem"' \
    'stderr_has "^isolated/shaders/lit.kshader: error: vertex stage: SPIRV-Cross crashed reflecting lit.kshader \(signal 11, SIGSEGV\)$"'
run -- check -o isolated
check "kiln check: without the fault the cooked files pass" status_is 0
run KILN_ISOLATE=0 KILN_TEST_ISOLATE_FAULT=crash:crash.png -- build -i assets -o in_process2 --no-cache
check "in process the fault hook does nothing (it acts in the child)" status_is 0
# The corpus's shaders (GLSL of many stage kinds, descriptors of every type,
# push constants, specialization constants): reflected in SPIRV-Cross's child
# and in process, the same .kshader bytes and the same messages.
if [ -n "$CORPUS" ] && [ -d "$CORPUS/shaders" ]; then
    cp -r "$CORPUS/shaders" "$SCRATCH/corpus_shaders"
    run -- build -i corpus_shaders -o shaders_isolated --no-cache -j2 -q
    isolated_status=$status
    cp "$SCRATCH/stderr" "$SCRATCH/shaders_isolated.err"
    run KILN_ISOLATE=0 -- build -i corpus_shaders -o shaders_in_process --no-cache -j2 -q
    check "the corpus's shaders: isolated and in-process reflection cook the same bytes" \
        all_true '[ "$isolated_status" -eq "$status" ]' \
        '[ "$(find "$SCRATCH/shaders_isolated" -name "*.kshader" | wc -l)" -gt 100 ]' \
        'diff -r "$SCRATCH/shaders_isolated" "$SCRATCH/shaders_in_process" >/dev/null' \
        'diff <(sort "$SCRATCH/shaders_isolated.err") <(sort "$SCRATCH/stderr") >/dev/null'
else
    echo "skipped: the corpus's shaders (no corpus at KILN_CORPUS)"
fi
check "no process is left behind after all these builds" no_leftovers

finish decode_isolation
