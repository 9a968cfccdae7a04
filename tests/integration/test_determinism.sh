#!/usr/bin/env bash
# test_determinism.sh — the same inputs give byte-identical outputs and packs:
# with -j1 and -j2, with and without a warm cache, from two different folders,
# and after builds killed (-9) at random points followed by a normal build.
#
# Uses the shared corpus's models (obj/, ply/, gltf/ with their textures).
# Environment (set by ctest): KILN, KILN_CORPUS, KILN_TMP.
set -euo pipefail

CORPUS="${KILN_CORPUS:-}"
if [ -z "$CORPUS" ] || [ ! -f "$CORPUS/index.tsv" ]; then
    echo "determinism: skipped: shared corpus not found at ${CORPUS:-<unset>} (set KILN_CORPUS)"
    exit 0
fi

source "$(dirname "$0")/harness.sh" determinism

# make_input DIR: a copy of the corpus models (-L: the files links point to),
# and next to it a kiln.yml that keeps the textures block-compressed but small
# and fast (the corpus has 2048x2048 maps; compression quality is tested
# elsewhere, determinism of the encoders across -j here).
make_input() {
    mkdir -p "$1"
    printf 'default:\n  texture.max_size: 128\n  texture.quality: fast\n' >"$(dirname "$1")/kiln.yml"
    local part
    for part in obj ply gltf; do
        [ -d "$CORPUS/$part" ] && cp -RL "$CORPUS/$part" "$1/$part"
    done
    return 0
}

# build DIR ARGS...: cooks DIR/in into DIR/out (exit 1 is fine: the corpus
# has files that must fail).
build() {
    local dir=$1
    shift
    (cd "$dir" && "$KILN" build -i in -o out -q "$@") >>"$dir/build.log" 2>&1 </dev/null || true
}

# The trees compared leave out hidden files: the cache (which records inodes
# and mtimes) and temporaries a killed write leaves behind.
same_tree() { diff -r -x '.*' "$1/out" "$2/out"; }

A="$SCRATCH/a"
B="$SCRATCH/b/deeper"
make_input "$A/in"
make_input "$B/in"

build "$A" -j2 --pack
build "$B" -j1 --pack
check_output "-j2 and -j1 builds in different folders give identical trees" same_tree "$A" "$B"
check_output "... and identical packs" cmp "$A/out.kpak" "$B/out.kpak"

cp "$A/out.kpak" "$SCRATCH/cold.kpak"
(cd "$A" && "$KILN" build -i in -o out -j2 --pack) >"$SCRATCH/warm.out" 2>/dev/null </dev/null || true
check_output "a warm (cached) build leaves the tree and pack unchanged" \
    cmp "$A/out.kpak" "$SCRATCH/cold.kpak"
# Assets that failed or warned are cooked again every time (see cmd_build.c
# record_cooked); everything else must come from the cache.
check_output "a warm build takes the clean assets from the cache" \
    grep -qE '; [1-9][0-9]* up to date$' "$SCRATCH/warm.out"

# Interrupted builds: kill -9 at a few random points, then finish normally.
K="$SCRATCH/killed"
make_input "$K/in"
for delay in 0.$((RANDOM % 9 + 1)) 1.$((RANDOM % 9)) 3.$((RANDOM % 9)); do
    (cd "$K" && exec "$KILN" build -i in -o out -q -j2) >/dev/null 2>&1 </dev/null &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
done
build "$K" -j2 --pack
check_output "builds killed at random points, then a normal build, give the clean tree" same_tree "$A" "$K"
check_output "... and the clean pack" cmp "$A/out.kpak" "$K/out.kpak"

finish determinism
