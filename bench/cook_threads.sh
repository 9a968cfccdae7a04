#!/usr/bin/env bash
# The CPU time of each thread of a cook, against gltfpack's, for a machine
# too busy for wall times to mean anything (BENCHMARKS.md, "Cook time against
# gltfpack").
#
#   bash bench/cook_threads.sh SOURCE ROUNDS KILN_A [KILN_B]
#
# Runs, ROUNDS times in turn, gltfpack on SOURCE and `kiln build -j2` with the
# same work (mesh.lods: 0, mesh.meshlets: false) on a folder holding only
# SOURCE, with KILN_A and then KILN_B (two builds to compare), each under
# `perf record -e task-clock` at 4 kHz. Prints, per command, the median over
# the rounds of the CPU time of its busiest thread (kiln's: the one that
# runs the serial stages and its share of the parallel ones, which a quiet
# machine's wall time cannot be below) and of the other threads together.
set -euo pipefail

if [ $# -lt 3 ]; then
    echo "usage: $0 SOURCE ROUNDS KILN_A [KILN_B]" >&2
    exit 2
fi
source_file=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
rounds=$2
shift 2
kilns=("$@")
for tool in perf gltfpack; do
    if ! command -v "$tool" >/dev/null; then
        echo "skipped: $tool is not installed" >&2
        exit 0
    fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/in"
ln "$source_file" "$work/in/" 2>/dev/null || cp "$source_file" "$work/in/"
printf 'default:\n  mesh.lods: 0\n  mesh.meshlets: false\n' >"$work/same.yml"

# "busiest others" in milliseconds for one run of the command.
thread_ms() {
    perf record -q -e task-clock -F 4000 -o "$work/perf.data" "$@" >/dev/null 2>&1
    perf script -i "$work/perf.data" -F tid 2>/dev/null | sort | uniq -c | sort -rn |
        awk '{ if (NR == 1) busiest = $1; else others += $1 }
             END { printf "%.0f %.0f\n", busiest / 4, others / 4 }'
}

median() {
    sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "(load average: $(cut -d ' ' -f 1-3 /proc/loadavg))"
names=(gltfpack)
for i in "${!kilns[@]}"; do
    names+=("kiln_$i")
done
for _ in $(seq "$rounds"); do
    rm -f "$work/packed.glb"
    echo "gltfpack $(thread_ms gltfpack -i "$source_file" -o "$work/packed.glb")" >>"$work/times"
    for i in "${!kilns[@]}"; do
        rm -rf "$work/out"
        echo "kiln_$i $(thread_ms "${kilns[$i]}" build -q --config "$work/same.yml" \
            -i "$work/in" -o "$work/out" -j2)" >>"$work/times"
    done
done
echo "(load average: $(cut -d ' ' -f 1-3 /proc/loadavg))"
printf '%-10s %12s %12s %12s\n' command busiest_ms others_ms total_ms
for name in "${names[@]}"; do
    busiest=$(awk -v n="$name" '$1 == n { print $2 }' "$work/times" | median)
    others=$(awk -v n="$name" '$1 == n { print $3 }' "$work/times" | median)
    total=$(awk -v n="$name" '$1 == n { print $2 + $3 }' "$work/times" | median)
    printf '%-10s %12s %12s %12s\n' "$name" "$busiest" "$others" "$total"
done
for i in "${!kilns[@]}"; do
    echo "kiln_$i = ${kilns[$i]}"
done
