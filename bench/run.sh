#!/usr/bin/env bash
# Runs kiln's benchmarks against an already built tree (`make bench` builds it).
#
#   bash bench/run.sh BUILD_DIR [SECTION...]
#
# SECTIONs (default: all) are load, obj_import, load_gltf, cook_time,
# cook_stages, scaling, mesh_quality, vertex_cache, meshlets, textures, builds, bc7, bc1, block,
# isolate, scene, manager, shaders, anim, remote; e.g.
# `bash bench/run.sh build/bench builds` runs the build-system benchmarks only.
#
# Generates the test meshes into bench/data/ when they are missing (they are
# deterministic and gitignored), prints the machine, then each benchmark's
# table. Takes about 5 minutes on 2 cores, most of it cooking the 4M-triangle
# mesh. The corpus folder defaults to ../shared/corpus next to the
# repository; KILN_CORPUS overrides it.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [SECTION...]" >&2
    exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
shift
sections=("$@")
bin="$build/bench"
kiln="$build/kiln"
data="$repo/bench/data"
scratch="$data/scratch" # cooked and packed outputs; rewritten on every run
corpus="${KILN_CORPUS:-$repo/../shared/corpus}"

# n x n quads = 2n^2 triangles: 1,002,528 / 100,352 / 1,058.
large_obj="$data/grid_708.obj"
medium_obj="$data/grid_224.obj"
small_obj="$data/grid_23.obj"
bunny_obj="$corpus/obj/common-3d-test-models/stanford-bunny.obj"
# The mesh benchmarks' GLB grids: 1,002,528 and 4,010,112 triangles.
glb_1m="$data/grid_708.glb"
glb_4m="$data/grid_1416.glb"
obj_4m="$data/grid_1416.obj"
# 16 sources of 93k-107k triangles (n = 216..231), OBJ and GLB alternating:
# the -j scaling input.
medium_set="$data/medium"
corpus_models=(
    "$bunny_obj"
    "$corpus/gltf/DamagedHelmet/glTF-Binary/DamagedHelmet.glb"
    "$corpus/gltf/Fox/glTF-Binary/Fox.glb"
)

section() {
    printf '\n== %s ==\n' "$1"
}

package_version() {
    dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo unknown
}

machine_info() {
    section "machine"
    local cc
    cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
    echo "date:      $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "kernel:    $(uname -sr)"
    echo "cpu:       $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
    echo "cores:     $(nproc)"
    echo "memory:    $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "compiler:  $("${cc:-cc}" --version | head -n 1)"
    echo "build:     $(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")"
    echo "assimp:    $(pkg-config --modversion assimp 2>/dev/null || echo unknown)"
    echo "meshopt:   $(package_version libmeshoptimizer-dev)"
    echo "gltfpack:  $(package_version gltfpack)"
    echo "tinygltf:  $(package_version libtinygltf-dev)"
    echo "libsquish: $(package_version libsquish-dev)"
    echo "astcenc:   $(package_version libastcenc-dev)"
    echo "kiln:      $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)"
}

# Other work on the machine moves every wall-clock number here; printed before
# each timed section so a reader can tell a quiet run from a busy one.
load_average() {
    echo "(load average: $(cut -d ' ' -f 1-3 /proc/loadavg))"
}

generate() {
    [ -f "$1" ] || "$bin/bench_gen_mesh" "$1" "$2"
}

generate_data() {
    mkdir -p "$data" "$medium_set"
    generate "$large_obj" 708
    generate "$medium_obj" 224
    generate "$small_obj" 23
    generate "$glb_1m" 708
    generate "$glb_4m" 1416
    generate "$obj_4m" 1416
    local i n
    for i in $(seq 0 15); do
        n=$((216 + i))
        if [ $((i % 2)) -eq 0 ]; then
            generate "$medium_set/grid_$n.obj" "$n"
        else
            generate "$medium_set/grid_$n.glb" "$n"
        fi
    done
}

# A folder holding only `file` (hard-linked, so no copy of 100 MB): what
# `kiln build -i` gets in the cook-time benchmark.
single_file_folder() {
    local file=$1 folder=$2
    mkdir -p "$folder"
    ln -f "$file" "$folder/" 2>/dev/null || cp -f "$file" "$folder/"
}

run_load() {
    section "load: cooked .kmesh vs read() vs assimp at run time"
    load_average
    "$bin/bench_load" "$data/cooked" "$small_obj" "$medium_obj" "$large_obj"
}

run_obj_import() {
    section "OBJ import: kiln import_obj vs assimp"
    load_average
    local files=("$large_obj")
    if [ -f "$bunny_obj" ]; then
        files+=("$bunny_obj")
    else
        echo "(skipping the corpus bunny: $bunny_obj not found)"
    fi
    "$bin/bench_obj_import" "${files[@]}"
}

# kiln build -j2 against gltfpack with its defaults (fetch and cache order,
# quantisation, no LODs, no meshlets) on one GLB or OBJ (gltfpack reads OBJ
# with fast_obj): "same work" turns kiln's LODs and meshlets off
# (mesh.lods: 0, mesh.meshlets: false), so both do import, weld, order,
# fetch order, encode and write; "default" is kiln's default processing (2
# LODs, meshlets; -j2 lets the one large asset use both cores, chunk by
# chunk). `rounds` timed runs of each, alternating, after `warmup` untimed
# ones. Removing the output folder before each run also removes kiln's
# incremental cache (kept inside it), so every run cooks everything.
cook_time_case() {
    local source=$1 rounds=$2 warmup=$3
    local file name
    file=$(basename "$source")
    name="${file%.*}_${file##*.}"
    local in="$scratch/cook_in_$name" out="$scratch/cook_out_$name"
    local packed="$scratch/cook_$name.gltfpack.glb" same="$scratch/cook_same_work.yml"
    single_file_folder "$source" "$in"
    printf 'default:\n  mesh.lods: 0\n  mesh.meshlets: false\n' >"$same"
    echo "$name: $source"
    "$bin/bench_commands" --rounds "$rounds" --warmup "$warmup" \
        --prepare "rm -rf '$out.same' '$out' '$packed'" \
        gltfpack "gltfpack -i '$source' -o '$packed'" \
        "kiln same work -j2" "'$kiln' build -q --config '$same' -i '$in' -o '$out.same' -j2" \
        "kiln default -j2" "'$kiln' build -q -i '$in' -o '$out' -j2"
}

run_cook_time() {
    section "cook time: kiln build -j2 (same work, default) vs gltfpack (wall clock)"
    load_average
    cook_time_case "$glb_1m" 5 1
    echo
    cook_time_case "$large_obj" 5 1
    echo
    # One default cook of these takes several seconds: no warm-up round (the
    # input was just generated or read, so it is in the page cache; the
    # medians absorb the rest).
    load_average
    cook_time_case "$glb_4m" 3 0
    echo
    cook_time_case "$obj_4m" 3 0
}

run_cook_stages() {
    section "cook stages: where kiln build's time goes (1 and 2 threads)"
    load_average
    "$bin/bench_cook_stages" "$scratch" "$glb_1m" 3 1
    echo
    "$bin/bench_cook_stages" "$scratch" "$glb_1m" 3 2
    echo
    # Chunked against whole-submesh LODs (quality and CPU time).
    "$bin/bench_lod_chunks" "$glb_1m"
    echo
    # kiln's simplifier against meshoptimizer's (mesh.simplifier).
    "$bin/bench_simplify" "${corpus_models[@]}" "$glb_1m"
    echo
    "$bin/bench_cook_stages" "$scratch" "$medium_set/grid_223.glb" 5
}

# -j2 against -j1 on the medium set, and, to tell kiln's threading apart from
# the machine, two separate -j1 processes on its two halves at once. The
# halves take files in the pattern a b b a (by name), so each gets four OBJ
# and four GLB files of similar sizes.
split_medium_set() {
    local half i=0 file
    for half in a b; do
        rm -rf "$scratch/scaling_half_$half"
        mkdir -p "$scratch/scaling_half_$half"
    done
    for file in "$medium_set"/*; do
        case $((i % 4)) in
        0 | 3) half=a ;;
        *) half=b ;;
        esac
        ln -f "$file" "$scratch/scaling_half_$half/" 2>/dev/null ||
            cp -f "$file" "$scratch/scaling_half_$half/"
        i=$((i + 1))
    done
}

run_scaling() {
    section "build scaling: kiln build -j2 vs -j1 on 16 medium meshes"
    load_average
    local out="$scratch/scaling_out"
    local half_a="$scratch/scaling_half_a" half_b="$scratch/scaling_half_b"
    split_medium_set
    "$bin/bench_commands" --rounds 5 --warmup 1 --prepare "rm -rf '$out' '$out.a' '$out.b'" \
        j1 "'$kiln' build -q -i '$medium_set' -o '$out' -j1" \
        j2 "'$kiln' build -q -i '$medium_set' -o '$out' -j2" \
        "2 x j1" "'$kiln' build -q -i '$half_a' -o '$out.a' -j1 & '$kiln' build -q -i '$half_b' -o '$out.b' -j1; wait"
}

run_load_gltf() {
    section "load: cooked .kmesh vs tinygltf and assimp on the source GLB"
    local in="$scratch/load_in" out="$scratch/load_out"
    single_file_folder "$glb_1m" "$in"
    rm -rf "$out"
    "$kiln" build -q -i "$in" -o "$out"
    load_average
    "$bin/bench_load_gltf" "$out/$(basename "$glb_1m" .glb).kmesh" "$glb_1m"
}

run_mesh_quality() {
    section "vertex cache and size: source vs kiln vs gltfpack"
    local pack="$scratch/quality_pack" cook="$scratch/quality_cook"
    rm -rf "$pack" "$cook"
    mkdir -p "$pack" "$cook"
    local sizes=("$glb_1m" "$glb_4m") cache_only=() model
    for model in "${corpus_models[@]}"; do
        if [ -f "$model" ]; then
            cache_only+=("$model")
        else
            echo "(skipping $model: not found)"
        fi
    done
    for model in "${sizes[@]}" "${cache_only[@]}"; do
        gltfpack -i "$model" -o "$pack/$(basename "${model%.*}").glb" >/dev/null
    done
    "$bin/bench_mesh_quality" "$cook" "$pack" "${sizes[@]}" --cache-only "${cache_only[@]}"
}

# kiln's meshlet builder against meshoptimizer's: CPU time, fill and culling
# rates, on the 1M grid and the corpus models with more than a few triangles.
run_meshlets() {
    section "meshlets: kiln's builder against meshoptimizer's"
    local models=("$glb_1m") model
    for model in gltf/DamagedHelmet/glTF-Binary/DamagedHelmet.glb \
        gltf/MetalRoughSpheresNoTextures/glTF-Binary/MetalRoughSpheresNoTextures.glb \
        gltf/CesiumMilkTruck/glTF-Binary/CesiumMilkTruck.glb gltf/Fox/glTF-Binary/Fox.glb \
        obj/common-3d-test-models/stanford-bunny.obj obj/common-3d-test-models/spot.obj \
        obj/common-3d-test-models/teapot.obj obj/pirate/pirate.obj obj/spider/spider.obj; do
        if [ -f "$corpus/$model" ]; then
            models+=("$corpus/$model")
        else
            echo "(skipping $model: not found)"
        fi
    done
    load_average
    "$bin/bench_meshlets" --rounds 5 "${models[@]}"
    load_average
}

# kiln's vertex cache order (mesh.vertex_cache: kiln) against meshoptimizer's:
# level 0's pieces as the order step cuts them, then the reduced levels.
run_vertex_cache() {
    section "vertex cache order: kiln's against meshoptimizer's"
    local models=("$glb_1m") model
    for model in obj/common-3d-test-models/stanford-bunny.obj obj/common-3d-test-models/spot.obj \
        obj/common-3d-test-models/teapot.obj gltf/DamagedHelmet/glTF-Binary/DamagedHelmet.glb \
        gltf/Fox/glTF-Binary/Fox.glb gltf/CesiumMilkTruck/glTF-Binary/CesiumMilkTruck.glb; do
        if [ -f "$corpus/$model" ]; then
            models+=("$corpus/$model")
        else
            echo "(skipping $model: not found)"
        fi
    done
    models+=("$glb_4m" "$large_obj") # the 1M grid again, in the OBJ import's order
    load_average
    "$bin/bench_vertex_cache" --reps 5 "${models[@]}"
    load_average
    "$bin/bench_vertex_cache" --lods --reps 3 "${models[@]}"
    load_average
}

# BC1 / BC3 / BC4 / BC5 (fast / normal / best) against libsquish's range,
# cluster and iterative cluster fits, one thread, on generated images and
# central 1024x1024 crops of corpus textures.
run_bc1() {
    section "BC1-BC5: kiln vs libsquish (1 thread, CPU time)"
    load_average
    local images=() image
    for image in gltf/DamagedHelmet/glTF/Default_albedo.jpg \
                 gltf/WaterBottle/glTF/WaterBottle_baseColor.png \
                 gltf/Fox/glTF/Texture.png gltf/CesiumMilkTruck/glTF/CesiumMilkTruck.jpg \
                 gltf/AlphaBlendModeTest/glTF/AlphaBlendLabels.png \
                 gltf/DamagedHelmet/glTF/Default_normal.jpg; do
        [ -f "$corpus/$image" ] && images+=("$corpus/$image")
    done
    [ ${#images[@]} -eq 0 ] && echo "(no corpus images under $corpus: generated images only)"
    "$bin/bench_bc1" "${images[@]}"
}

# Textures: decode alone vs the texture cook's stages (mips, Zstd), per corpus image.
run_textures() {
    echo
    echo "== bench_texture: decode vs mips + Zstd (block-compressed and uncompressed) =="
    local images=()
    for image in gltf/WaterBottle/glTF/WaterBottle_baseColor.png \
                 gltf/DamagedHelmet/glTF/Default_albedo.jpg \
                 gltf/DamagedHelmet/glTF/Default_normal.jpg \
                 gltf/CesiumMilkTruck/glTF/CesiumMilkTruck.jpg gltf/Fox/glTF/Texture.png \
                 images/hdr/spiaggia_di_mondello_1k.hdr images/pngsuite/basn3p08.png; do
        [ -f "$corpus/$image" ] && images+=("$corpus/$image")
    done
    if [ ${#images[@]} -eq 0 ]; then
        echo "(skipping: no corpus images under $corpus)"
        return
    fi
    "$bin/bench_texture" "${images[@]}"
}

# Build-system benchmarks on 10,000 small generated sources (3/4 OBJ quads,
# 1/4 8x8 TGA textures, in 100 folders; bench_gen_assets) and on the corpus.
assets_10k="$data/assets10k"

# The timed part of a no-op build is all a build does when nothing changed:
# walk the input, stat every source, list the output folder, read the cache,
# replay the manifest. The first, untimed build fills the cache.
run_builds() {
    section "builds: no-op, one changed texture among 10,000 assets, clean -j1 vs -j2"
    [ -d "$assets_10k" ] || "$bin/bench_gen_assets" "$assets_10k" 10000
    local out="$scratch/builds_10k"
    rm -rf "$out"
    "$kiln" build -q -i "$assets_10k" -o "$out"
    load_average
    echo "no-op build of 10,000 assets (default -j):"
    "$bin/bench_commands" --rounds 20 --warmup 2 \
        "no-op 10k" "'$kiln' build -q -i '$assets_10k' -o '$out'"

    # One texture changes between two versions before every run (untimed).
    local texture="$assets_10k/d050/a05003.tga"
    local version_a="$scratch/builds_tex_a.tga" version_b="$scratch/builds_tex_b.tga"
    cp "$texture" "$version_a"
    cp "$texture" "$version_b"
    printf '\x11\x22\x33' | dd of="$version_b" bs=1 seek=18 conv=notrunc status=none
    echo
    echo "one changed texture among 10,000 assets:"
    cp "$version_b" "$texture"
    echo "(check: after changing $texture, kiln build -v says:"
    "$kiln" build -v -i "$assets_10k" -o "$out" | grep -E '^(cooked |kiln: cooked)' | sed 's/^/  /'
    echo ")"
    "$bin/bench_commands" --rounds 10 --warmup 1 \
        --prepare "if cmp -s '$texture' '$version_a'; then cp '$version_b' '$texture'; else cp '$version_a' '$texture'; fi" \
        "1 changed" "'$kiln' build -q -i '$assets_10k' -o '$out'"
    cp "$version_a" "$texture"

    # The previous output is moved aside, not deleted, before each clean
    # build: ext4 allocating inodes right after 20,000 were freed made some
    # runs 8x slower (in the kernel's find_inode_bit), which timed the file
    # system, not kiln. The moved trees are deleted at the end.
    local trash="$scratch/builds_trash"
    mkdir -p "$trash"
    echo
    echo "clean build of 10,000 assets, -j1 against -j2:"
    load_average
    "$bin/bench_commands" --rounds 3 --warmup 1 \
        --prepare "[ ! -d '$out.clean' ] || mv '$out.clean' '$trash/'\$(date +%s%N)" \
        j1 "'$kiln' build -q -i '$assets_10k' -o '$out.clean' -j1" \
        j2 "'$kiln' build -q -i '$assets_10k' -o '$out.clean' -j2"

    # The corpus holds sources that fail or warn on purpose (invalid/, broken
    # references): those are cooked again by every build, by design (an asset
    # with warnings is not cached), so its "no-op" is not free.
    if [ -d "$corpus" ]; then
        local corpus_out="$scratch/builds_corpus"
        rm -rf "$corpus_out"
        "$kiln" build -q -i "$corpus" -o "$corpus_out" 2>/dev/null || true
        echo
        echo "no-op build of the corpus ($corpus):"
        "$kiln" build -i "$corpus" -o "$corpus_out" 2>/dev/null | grep '^kiln: cooked' || true
        "$bin/bench_commands" --rounds 10 --warmup 1 \
            "no-op corpus" "'$kiln' build -q -i '$corpus' -o '$corpus_out' 2>/dev/null; true"
        echo
        echo "clean build of the corpus, -j1 against -j2:"
        load_average
        "$bin/bench_commands" --rounds 3 --warmup 1 \
            --prepare "[ ! -d '$corpus_out.clean' ] || mv '$corpus_out.clean' '$trash/'\$(date +%s%N)" \
            j1 "'$kiln' build -q -i '$corpus' -o '$corpus_out.clean' -j1 2>/dev/null; true" \
            j2 "'$kiln' build -q -i '$corpus' -o '$corpus_out.clean' -j2 2>/dev/null; true"
    else
        echo "(skipping the corpus no-op build: $corpus not found)"
    fi
    rm -rf "$trash"
}

# BC7 (fast / normal / best) against astcenc 4x4 (-fast / -medium), one
# thread each, on 512 x 512 centre crops of corpus images plus a synthetic one.
run_bc7() {
    section "BC7: kiln bc7 vs astcenc 4x4 (1 thread, 512x512 crops)"
    load_average
    local images=() image
    for image in gltf/DamagedHelmet/glTF/Default_albedo.jpg \
                 gltf/DamagedHelmet/glTF/Default_normal.jpg \
                 gltf/CesiumMilkTruck/glTF/CesiumMilkTruck.jpg \
                 gltf/WaterBottle/glTF/WaterBottle_baseColor.png \
                 gltf/AlphaBlendModeTest/glTF/AlphaBlendLabels.png; do
        [ -f "$corpus/$image" ] && images+=("$corpus/$image")
    done
    [ ${#images[@]} -eq 0 ] && echo "(no corpus images under $corpus: synthetic image only)"
    "$bin/bench_bc7" "${images[@]}"
}

# Every block format (BC1-BC7, ASTC LDR 4x4/6x6/8x8, ASTC HDR) at fast /
# normal / best through block_encode_image on 1 and 2 threads, with libsquish
# and astcenc 4x4 as references, on 256 x 256 centre crops of corpus textures
# (colour, colour + alpha, normal map, ORM, two HDR) plus generated images.
run_block() {
    section "block compression: every format, quality and thread count (256x256 crops)"
    load_average
    local images=() image
    for image in gltf/DamagedHelmet/glTF/Default_albedo.jpg \
                 gltf/CesiumMilkTruck/glTF/CesiumMilkTruck.jpg \
                 gltf/AlphaBlendModeTest/glTF/AlphaBlendLabels.png \
                 gltf/DamagedHelmet/glTF/Default_normal.jpg \
                 gltf/WaterBottle/glTF/WaterBottle_occlusionRoughnessMetallic.png \
                 images/hdr/hdr-rgb-arboretum.hdr images/hdr/spiaggia_di_mondello_1k.hdr; do
        if [ -f "$corpus/$image" ]; then
            images+=("$corpus/$image")
        else
            echo "(skipping $image: not found under $corpus)"
        fi
    done
    # Passive: libgomp's workers would otherwise spin for a while after each
    # squish call, taking a core from the kiln rows timed next.
    OMP_WAIT_POLICY=passive "$bin/bench_block" --crop 256 "${images[@]}"
    load_average
}

# assimp in a child process against in process (bench/isolate.sh, hyperfine).
run_isolate() {
    section "import isolation: assimp models in process vs in a child process"
    bash "$repo/bench/isolate.sh" "$kiln" "$corpus"
    section "library isolation: image decoders, libdraco and glslang in process vs in a child"
    bash "$repo/bench/decode_isolation.sh" "$(dirname "$kiln")" "$corpus"
}

# The runtime's scene update: a 100k-node scene with 1 % (then 0.1 %) of its
# nodes changed per frame, dirty-subtree update against recomputing every node.
run_scene() {
    section "scene update: kiln_scene_update (changed subtrees) vs kiln_scene_update_all"
    load_average
    "$bin/bench_scene"
    "$bin/bench_scene" --percent 0.1
}

# The runtime's asset manager: every file of the cooked corpus loaded through
# kiln_manager_load / kiln_manager_request (folder and pack, 0-2 workers)
# against read() of the same bytes, and the cost of a cached kiln_asset_get.
run_manager() {
    section "asset manager: loading the cooked corpus vs read(); cached get"
    if [ ! -d "$corpus" ]; then
        echo "(skipping: $corpus not found)"
        return
    fi
    local out="$scratch/manager_corpus"
    "$kiln" build -q -i "$corpus" -o "$out" --pack 2>/dev/null || true # invalid/ fails
    load_average
    "$bin/bench_manager" "$out" "$out.kpak"
    # The loading cases again with glibc's heap trimming off, so that every case
    # keeps its memory between runs: a comparison of the loaders, not of which
    # case glibc happens to give fresh pages to (BENCHMARKS.md section 12).
    local keep_heap=glibc.malloc.trim_threshold=1000000000:glibc.malloc.mmap_threshold=1000000000
    echo
    echo "loading cases with GLIBC_TUNABLES=$keep_heap:"
    GLIBC_TUNABLES=$keep_heap "$bin/bench_manager" "$out" "$out.kpak" --load
}

# The example shaders through kiln against glslc once per file (bench/shaders.sh).
run_shaders() {
    section "shaders: kiln (clean, warm) vs glslc once per file"
    load_average
    bash "$repo/bench/shaders.sh" "$kiln" "$repo" "$scratch"
}

# Animation sampling: a 100-joint clip through kiln_anim_sample against the
# per-channel evaluation over glTF accessors; .kanim bytes against the source's
# animation bytes and gltfpack's (bench/anim_bytes.py).
run_anim() {
    section "animation: kiln_anim_sample vs per-channel accessor evaluation; .kanim bytes"
    load_average
    "$bin/bench_anim"
    "$bin/bench_anim" --keys 31
    python3 "$repo/bench/anim_bytes.py" "$kiln" "$corpus" "$scratch/anim"
}

# The remote cache and shards (docs/team.md): cold, local no-op, an empty
# machine with a warm nginx or Redis, shards (bench/remote.sh).
run_remote() {
    section "remote cache: cold cook vs local no-op vs an empty machine with a warm server; shards"
    load_average
    bash "$repo/bench/remote.sh" "$kiln" "$repo" "$corpus" "$scratch"
}

machine_info
if [ ${#sections[@]} -eq 0 ]; then
    sections=(load obj_import load_gltf cook_time cook_stages scaling mesh_quality vertex_cache meshlets textures builds bc7 bc1
              block isolate scene manager shaders anim remote)
fi
needs_meshes=false
for name in "${sections[@]}"; do
    case $name in
    load | obj_import | load_gltf | cook_time | cook_stages | scaling | mesh_quality | vertex_cache | meshlets)
        needs_meshes=true
        ;;
    textures | builds | bc7 | bc1 | block | isolate | scene | manager | shaders | anim | remote) ;;
    *)
        echo "unknown section '$name'" >&2
        exit 2
        ;;
    esac
done
if $needs_meshes; then
    generate_data
fi
mkdir -p "$scratch"
for name in "${sections[@]}"; do
    "run_$name"
done
