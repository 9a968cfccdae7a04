#!/usr/bin/env bash
# fuzz.sh BUILD_DIR SECONDS [HARNESS...] — runs each libFuzzer harness of a
# KILN_FUZZ build for SECONDS (`make fuzz`, FUZZ_SECONDS), on a corpus seeded
# from its regressions, ../shared/corpus and the cooked examples, with its
# dictionary when fuzz/<name>.dict exists. Crashes land in
# BUILD_DIR/crashes/<name>/; minimise one with
#   BUILD_DIR/fuzz_<name> -minimize_crash=1 -runs=100000 CRASH
# and check it in under tests/fuzz/regressions/<name>/ (replayed by ctest).
# Prints one line per harness: executions, corpus size, crashes; exits 1 when
# a crash input is waiting in BUILD_DIR/crashes/.
#
# Each harness's corpus is BUILD_DIR/corpus/<name>/ unless KILN_FUZZ_CORPUS
# names another folder (then <that>/<name>/): a campaign keeps its corpus there,
# outside the build and the repository, and the next run continues it.
set -uo pipefail
build=$1
seconds=$2
shift 2
repo=$(cd "$(dirname "$0")/.." && pwd)
corpus_root=${KILN_CORPUS:-$repo/../shared/corpus}
corpora=${KILN_FUZZ_CORPUS:-$build/corpus}
# The default list is CI's smoke list (.ci/run: `make fuzz FUZZ_SECONDS=5`).
# Not in it: assimp, which assimp's own hangs would fail; run it by name
# (FUZZ_HARNESSES=assimp).
# assimp_scene is: it builds scenes in memory and runs kiln's conversion
# without assimp's readers.
harnesses=${*:-container kscene kanim kshader manifest ktx2 pack ir_wire obj mtl gltf glb image cube config level cubemap components assimp_scene remote uastc spirv_reply mesh_process cache isolate_reply}

# Cooked examples as the runtime harnesses' seeds.
cooked=$build/seeds-cooked
if [ ! -d "$cooked" ] && [ -x "$build/kiln" ]; then
    "$build/kiln" build -q -i "$repo/examples/assets" -o "$cooked" --pack >/dev/null 2>&1 || true
fi

# The longest input each harness is fuzzed with (-max_len) and so the largest
# seed it gets, in KiB: the text and image parsers are fuzzed on inputs that
# fit in a few pages, where a mutation costs microseconds rather than a parse
# of megabytes (the bigger files of ../shared/corpus are still run by the
# replay, fuzz/CMakeLists.txt); the runtime readers keep the cooked files.
max_kib() {
    case $1 in
    mtl | cube | config | level | components | assimp_scene | remote | uastc | spirv_reply | mesh_process | cache) echo 16 ;;
    obj | gltf) echo 32 ;;
    glb | image | assimp | cubemap | isolate_reply) echo 64 ;;
    *) echo 1024 ;;
    esac
}

seed() { # seed NAME FIND-ARGS...: copies matching files into NAME's corpus
    local name=$1
    shift
    # find's -size -Nk rounds each size up to whole KiB: -size -1025k keeps
    # files of at most 1024 KiB (-size -1M would keep only empty files).
    local size=-$(($(max_kib "$name") + 1))k
    local dir=$corpora/$name
    mkdir -p "$dir"
    cp "$repo/tests/fuzz/regressions/$name/"* "$repo/tests/fuzz/seeds/$name/"* "$dir/" 2>/dev/null || true
    for root in "$corpus_root" "$cooked" "$cooked.kpak" "$repo/examples"; do
        [ -e "$root" ] || continue
        find "$root" -type f -size "$size" \( "$@" \) -exec cp -n {} "$dir/" \; 2>/dev/null || true
    done
}

printf '%-10s %12s %8s %8s\n' harness executions corpus crashes
found=0
for name in $harnesses; do
    case $name in
    container) seed "$name" -name '*.kmesh' -o -name '*.kmat' ;;
    kscene) seed "$name" -name '*.kscene' ;;
    kanim) seed "$name" -name '*.kanim' ;;
    kshader) seed "$name" -name '*.kshader' ;;
    manifest) seed "$name" -name '*.kman' ;;
    ktx2) seed "$name" -name '*.ktx2' ;;
    pack) seed "$name" -name '*.kpak' ;;
    obj) seed "$name" -name '*.obj' ;;
    mtl) seed "$name" -name '*.mtl' ;;
    gltf) seed "$name" -name '*.gltf' ;;
    glb) seed "$name" -name '*.glb' ;;
    image) seed "$name" -name '*.png' -o -name '*.jpg' -o -name '*.tga' -o -name '*.bmp' -o -name '*.hdr' ;;
    cube) seed "$name" -name '*.cube' ;;
    config) seed "$name" -name 'kiln.yml' -o -name '*.yml' ;;
    level) seed "$name" -name '*.level' ;;
    components) seed "$name" -false ;; # tests/fuzz/seeds/components/ alone
    assimp_scene) seed "$name" -false ;; # tests/fuzz/seeds/assimp_scene/ alone
    remote) seed "$name" -false ;; # tests/fuzz/seeds/remote/ alone
    uastc) seed "$name" -false ;;  # tests/fuzz/seeds/uastc/ alone
    spirv_reply) seed "$name" -false ;; # tests/fuzz/seeds/spirv_reply/ alone
    mesh_process) seed "$name" -false ;; # tests/fuzz/seeds/mesh_process/ alone
    cache) seed "$name" -false ;; # tests/fuzz/seeds/cache/ alone (cache files without their end line)
    isolate_reply) seed "$name" -false ;; # tests/fuzz/seeds/isolate_reply/ alone (written by hand)
    cubemap) seed "$name" -name '*.envdesc' ;;
    assimp)
        # assimp's formats from the corpus, and Debian's assimp-testmodels
        # (small files of the formats kiln sends to assimp) when installed.
        seed "$name" -name '*.ply' -o -name '*.stl' -o -name '*.off' -o -name '*.dae' \
            -o -name '*.fbx' -o -name '*.3ds' -o -name '*.x'
        models=${ASSIMP_MODELS:-/usr/share/assimp/models}
        for format in PLY STL OFF Collada FBX 3DS X AC ASE MD2 MD3 LWO NFF Q3D SIB XGL; do
            [ -d "$models/$format" ] &&
                find "$models/$format" -type f -size -64k -exec cp -n {} "$corpora/$name/" \; 2>/dev/null
        done
        ;;
    uastc_transcode) # its own hinted blocks and uastc's, as its replay (fuzz/CMakeLists.txt)
        seed "$name" -false
        cp -n "$repo/tests/fuzz/seeds/uastc/"* "$corpora/$name/" 2>/dev/null || true
        ;;
    # The rest (ir_wire; by name texture_decode, mat, obj_ranges,
    # source_paths): their regressions and tests/fuzz/seeds/<name>/ alone, as
    # their replays (fuzz/CMakeLists.txt).
    *) seed "$name" -false ;;
    esac
    mkdir -p "$build/crashes/$name"
    dict=()
    dict_name=$name
    [ "$name" = glb ] && dict_name=gltf
    [ -f "$repo/fuzz/$dict_name.dict" ] && dict=(-dict="$repo/fuzz/$dict_name.dict")
    # assimp: 5 s per input (its hangs are its own; fuzz/README.md) and its
    # leaks suppressed, kiln's not (fuzz/assimp.lsan).
    # It also runs in fork mode going on past crashes and timeouts: assimp
    # aborts on its own assertions and loops on some inputs, which would stop
    # a plain run at the first; each input is still saved in crashes/assimp/
    # for triage (kiln's frames or only assimp's).
    # KILN_FUZZ_TIMEOUT (seconds) raises it for a long campaign at `nice 19`
    # on a loaded machine, where ASan recycling its quarantine inside one
    # input can take over 10 s of wall time for an input of milliseconds;
    # libFuzzer's slowest_unit_time_sec still tells the slowest input.
    timeout=${KILN_FUZZ_TIMEOUT:-10}
    lsan=${LSAN_OPTIONS:-}
    extra=()
    if [ "$name" = assimp ]; then
        timeout=${KILN_FUZZ_TIMEOUT:-5}
        # The frame-pointer walk at malloc stops in libassimp or libz (built
        # without frame pointers), which is where the suppressions match:
        # fuzz/assimp.lsan. (Full stacks, fast_unwind_on_malloc=0, cost
        # about 3x the time of an input.)
        lsan=suppressions=$repo/fuzz/assimp.lsan
        extra=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    fi
    log=$build/logs/$name.log
    mkdir -p "$build/logs"
    LSAN_OPTIONS=$lsan "$build/fuzz/fuzz_$name" "${dict[@]}" "${extra[@]}" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 \
        -max_len=$(($(max_kib "$name") * 1024)) -print_final_stats=1 -artifact_prefix="$build/crashes/$name/" \
        "$corpora/$name" >"$log" 2>&1
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    # Fork mode prints no final stats: its last "#N: cov: ..." line counts.
    [ -z "$execs" ] && execs=$(grep -o '^#[0-9]*: cov' "$log" | grep -o '[0-9]*' | tail -1)
    crashes=$(find "$build/crashes/$name" -type f | wc -l)
    corpus=$(find "$corpora/$name" -type f | wc -l)
    printf '%-10s %12s %8s %8s\n' "$name" "${execs:-?}" "$corpus" "$crashes"
    found=$((found + crashes))
done
# Non-zero when any harness has a crash input waiting (CI's smoke run fails).
[ "$found" -eq 0 ]
