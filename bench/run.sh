#!/usr/bin/env bash
# Runs kiln's benchmarks against an already built tree (`make bench` builds it).
#
#   bash bench/run.sh BUILD_DIR
#
# Generates the test meshes into bench/data/ when they are missing (they are
# deterministic and gitignored), prints the machine, then each benchmark's
# table. Takes about a minute on 2 cores. The corpus folder defaults to
# ../shared/corpus next to the repository; KILN_CORPUS overrides it.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
bin="$build/bench"
data="$repo/bench/data"
corpus="${KILN_CORPUS:-$repo/../shared/corpus}"

# n x n quads = 2n^2 triangles: 1,002,528 / 100,352 / 1,058.
large_obj="$data/grid_708.obj"
medium_obj="$data/grid_224.obj"
small_obj="$data/grid_23.obj"
bunny_obj="$corpus/obj/common-3d-test-models/stanford-bunny.obj"

section() {
    printf '\n== %s ==\n' "$1"
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
}

generate_data() {
    mkdir -p "$data"
    [ -f "$large_obj" ] || "$bin/bench_gen_mesh" "$large_obj" 708
    [ -f "$medium_obj" ] || "$bin/bench_gen_mesh" "$medium_obj" 224
    [ -f "$small_obj" ] || "$bin/bench_gen_mesh" "$small_obj" 23
}

run_load() {
    section "load: cooked .kmesh vs read() vs assimp at run time"
    "$bin/bench_load" "$data/cooked" "$small_obj" "$medium_obj" "$large_obj"
}

run_obj_import() {
    section "OBJ import: kiln import_obj vs assimp"
    local files=("$large_obj")
    if [ -f "$bunny_obj" ]; then
        files+=("$bunny_obj")
    else
        echo "(skipping the corpus bunny: $bunny_obj not found)"
    fi
    "$bin/bench_obj_import" "${files[@]}"
}

machine_info
generate_data
run_load
run_obj_import
