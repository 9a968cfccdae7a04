#!/bin/bash
# check_cycles.sh — within one folder, calls between files go one way.
#
#   scripts/check_cycles.sh BUILD_DIR [FOLDER...]
#
# For every folder under src/cook/ (or the FOLDERs given, as src/cook/import
# or src/runtime), the objects CMake compiled from its sources
# (BUILD_DIR/CMakeFiles/<target>.dir/<source>.o, as the Makefile and Ninja
# generators lay them out) give a graph: file A -> file B when A's object
# leaves undefined a global symbol (a function or variable) that B's object
# defines. The graph must have no cycle (tsort finds them): a file may call
# the files below it, never one that calls it back, so each file can be
# read knowing only what is below it. static and static inline functions are
# invisible here, as they should be: they never cross a file.
# Exit status: 0 when every folder's graph is acyclic, 1 naming each cycle's
# files, 2 when BUILD_DIR holds no objects for a folder.
set -u
export LC_ALL=C

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    echo "usage: $0 BUILD_DIR [FOLDER...]" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
shift
cd "$(dirname "$0")/.." || exit 2
if [ $# -gt 0 ]; then
    folders=("$@")
else
    folders=()
    for dir in src/cook/*/; do folders+=("${dir%/}"); done
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
problems=0
for folder in "${folders[@]}"; do
    : >"$work/defined"
    : >"$work/used"
    objects=0
    while IFS= read -r object; do
        # CMakeFiles/<target>.dir/src/cook/import/obj.c.o -> obj.c
        file=$(basename "$object" .o)
        [ -f "$folder/$file" ] || continue # left over from a file since removed
        objects=$((objects + 1))
        nm --defined-only -g "$object" 2>/dev/null | awk -v f="$file" 'NF == 3 { print $3, f }' \
            >>"$work/defined"
        nm --undefined-only "$object" 2>/dev/null | awk -v f="$file" '{ print $NF, f }' \
            >>"$work/used"
    done < <(find "$build" -path "*/CMakeFiles/*.dir/$folder/*" -name '*.o' \
        ! -path "*/CMakeFiles/*.dir/$folder/*/*" | sort)
    if [ $objects = 0 ]; then
        echo "check_cycles: no objects for $folder under $build" >&2
        exit 2
    fi
    # Edges "caller callee", one per pair of files (a symbol defined twice,
    # in two targets' copies of one object, counts once).
    sort -u "$work/defined" >"$work/defined.sorted"
    sort -u "$work/used" >"$work/used.sorted"
    join "$work/used.sorted" "$work/defined.sorted" | awk '$2 != $3 { print $2, $3 }' |
        sort -u >"$work/edges"
    # tsort wants every node; a file calling nothing is its own pair.
    awk '{ print $2, $2 }' "$work/defined.sorted" "$work/used.sorted" | sort -u >>"$work/edges"
    if ! tsort "$work/edges" >/dev/null 2>"$work/loops"; then
        cycle=$(grep -v 'input contains a loop' "$work/loops" | sed 's/^tsort: //' | sort -u | tr '\n' ' ')
        echo "check_cycles: $folder: files call each other in a cycle: $cycle" >&2
        echo "  calls among them (caller -> callee: symbol):" >&2
        for file in $cycle; do
            join "$work/used.sorted" "$work/defined.sorted" |
                awk -v f="$file" -v set=" $cycle " \
                    '$2 == f && $3 != f && index(set, " " $3 " ") { print "    " $2 " -> " $3 ": " $1 }' >&2
        done
        problems=$((problems + 1))
    fi
done

if [ $problems -gt 0 ]; then
    echo "check_cycles: $problems folder(s) with cycles" >&2
    exit 1
fi
echo "check_cycles: no file cycles in ${#folders[@]} folder(s)"
