#!/usr/bin/env bash
# kill_loop.sh — the 100-kill loop (docs/reliability.md).
#
# Cooks a source tree once cleanly, then N times (default 100): starts
# `kiln build --pack` on it, kills it with SIGKILL at a random moment within
# the time a clean build takes, builds again, and checks that
#   * the rerun exits 0,
#   * `kiln check` reports no problem (exit 0),
#   * every file of the output (the cache folder aside: it records inodes and
#     mtimes) and the pack hash the same as the clean build's (sha256).
# The output folder carries over from kill to kill (a killed build over what
# the last kill left); every fourth round starts from an empty folder, and
# every third kills a --no-cache rebuild, so kills land on first builds,
# resumed builds and full rebuilds.
#
# Usage: scripts/kill_loop.sh [-n KILLS] [-k KILN] [-i DIR]... [-c CONFIG]
#                             [-s SEED] [-w WORKDIR] [-j JOBS]
#   -n  kills (default 100; KILLS in the environment too)
#   -k  the kiln executable (default build/release/kiln)
#   -i  a source folder; the first is the tree's root, each further one is
#       copied under it by its name (default examples/assets)
#   -c  kiln.yml (default examples/kiln.yml when the tree is the examples)
#   -s  seed of the kill moments (default 1: the same moments every run)
#   -w  scratch folder (default a new temporary one, removed at the end)
#   -j  build jobs (default 2)
# Prints one line per kill and a summary; exits 1 on the first failure,
# keeping the scratch folder for a look.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
kills=${KILLS:-100}
kiln="$repo/build/release/kiln"
inputs=()
config=""
seed=1
work=""
jobs=2
while getopts "n:k:i:c:s:w:j:" opt; do
    case $opt in
    n) kills=$OPTARG ;;
    k) kiln=$OPTARG ;;
    i) inputs+=("$OPTARG") ;;
    c) config=$OPTARG ;;
    s) seed=$OPTARG ;;
    w) work=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) sed -n '2,27p' "$0" >&2; exit 2 ;;
    esac
done
if [ "${#inputs[@]}" -eq 0 ]; then
    inputs=("$repo/examples/assets")
    [ -n "$config" ] || config="$repo/examples/kiln.yml"
fi
[ -x "$kiln" ] || { echo "kill_loop: no kiln executable at $kiln (make build, or -k)" >&2; exit 2; }
kiln=$(cd "$(dirname "$kiln")" && pwd)/$(basename "$kiln")
[ -z "$config" ] || config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")

keep=1
if [ -z "$work" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/kiln-kill-loop.XXXXXX")
    keep=0
fi
rm -rf "$work/in" "$work/clean" "$work/killed"
mkdir -p "$work/in" "$work/clean" "$work/killed"
cp -R "${inputs[0]}/." "$work/in/"
for dir in "${inputs[@]:1}"; do
    cp -R "$dir" "$work/in/$(basename "$dir")"
done

config_args=()
[ -z "$config" ] || config_args=(--config "$config")

# build DIR [ARGS...]: kiln build of the tree into DIR/out and DIR/out.kpak.
build() {
    local dir=$1
    shift
    (cd "$dir" && exec "$kiln" build -i "$work/in" -o out --pack -q -j "$jobs" \
        "${config_args[@]}" "$@") </dev/null
}
# hashes DIR: one "sha256  path" line per file of the output and the pack.
hashes() {
    (cd "$1" && find out -path out/.kiln-cache -prune -o -type f -print0 | LC_ALL=C sort -z |
        xargs -0 sha256sum && sha256sum out.kpak)
}

start=$(date +%s%N)
build "$work/clean" >"$work/clean.log" 2>&1 || {
    echo "kill_loop: the clean build failed (see $work/clean.log)" >&2
    exit 1
}
clean_ns=$(($(date +%s%N) - start))
hashes "$work/clean" >"$work/clean.sha256"
echo "kill_loop: clean build of $(grep -c '^' "$work/clean.sha256") files in" \
    "$((clean_ns / 1000000)) ms; $kills kills, seed $seed"

fail() {
    echo "FAIL: kill $1: $2 (scratch kept: $work)"
    [ ! -f "$work/round.log" ] || sed 's/^/    | /' "$work/round.log" | head -30
    exit 1
}

RANDOM=$seed
landed=0
for ((i = 1; i <= kills; i++)); do
    (( i % 4 == 1 )) && rm -rf "$work/killed/out" "$work/killed/out.kpak"
    extra=()
    (( i % 3 == 0 )) && extra=(--no-cache)
    # A moment within the clean build's time, in microseconds (two RANDOMs:
    # 30 bits, so long builds get every moment too).
    us=$(( ((RANDOM << 15) | RANDOM) % (clean_ns / 1000 + 1) ))
    delay=$(printf '%d.%06d' $((us / 1000000)) $((us % 1000000)))
    # The background process must be kiln itself (exec), not a shell around
    # it: SIGKILL to a shell would leave kiln running on.
    (cd "$work/killed" && exec "$kiln" build -i "$work/in" -o out --pack -q -j "$jobs" \
        "${config_args[@]}" "${extra[@]}") >/dev/null 2>&1 </dev/null &
    pid=$!
    sleep "$delay"
    kill -KILL "$pid" 2>/dev/null || true
    killed=0
    wait "$pid" 2>/dev/null || killed=$?
    if [ "$killed" -eq 137 ]; then
        landed=$((landed + 1))
        how="killed"
    else
        how="finished first (status $killed)"
    fi
    build "$work/killed" >"$work/round.log" 2>&1 || fail "$i" "the rerun after a kill at ${delay} s failed"
    (cd "$work/killed" && "$kiln" check -o out -q) >"$work/round.log" 2>&1 ||
        fail "$i" "kiln check found problems after a kill at ${delay} s"
    hashes "$work/killed" >"$work/killed.sha256"
    diff "$work/clean.sha256" "$work/killed.sha256" >"$work/round.log" ||
        fail "$i" "the output differs from the clean build's after a kill at ${delay} s"
    echo "ok: kill $i at ${delay} s${extra[*]:+ (${extra[*]})}, $how: rerun, check," \
        "$(grep -c '^' "$work/killed.sha256") hashes equal"
done
echo "kill_loop: $kills rounds, $landed builds killed mid-way (the rest finished before" \
    "the kill); every rerun passed kiln check with the clean output"
[ "$keep" -eq 1 ] || rm -rf "$work"
