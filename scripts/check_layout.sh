#!/bin/bash
# check_layout.sh — who may include whom, and the runtime links alone.
#
#   scripts/check_layout.sh [LIBKILN]
#
# 1. Every #include "..." under src/ is checked against the room the file is in
#    (README.md, "Layout"):
#      common/            common, kiln/ (the public headers)
#      runtime/           runtime, common, kiln/
#      cook/core/         core, common, kiln/
#      cook/<stage>/      its own stage, core, common, kiln/
#                         (stages: discover import process encode write;
#                         write/ may also use inspect/: --verify reads back)
#      cook/inspect/      inspect, the stages but write, core, common, kiln/
#                         (cooked files read back, with the cooker's decoders)
#      cook/drivers/      drivers, inspect, the stages, core, common, kiln/, cook.h
#      cook/cook.h        the headers it exports (below), common, kiln/
#      those headers      each other, common, kiln/: cook.h reaches no IR,
#                         no stage's insides (core/util.h named_paths.h diag.h
#                         settings.h result.h parallel.h yaml_doc.h,
#                         discover/discover.h, write/outputs.h,
#                         inspect/inspect.h)
#      build/             build, cook/cook.h, common, kiln/
#      cli/               cli, build/build.h, cook/cook.h, common, kiln/
#    and the runtime and common include no third-party header but zstd,
#    xxhash and meshoptimizer (what decoding needs: compressed chunks).
# 2. With LIBKILN (the built libkiln.a), a program using the runtime API is
#    compiled against include/ alone and linked with LIBKILN and the runtime's
#    own dependencies only: a cooker symbol creeping into the runtime fails to
#    link here. KILN_LAYOUT_LDFLAGS adds link flags (the sanitizers' runtimes
#    for a sanitized build).
# Exit status: 0 when everything holds, 1 with one line per violation.
set -u
cd "$(dirname "$0")/.."

problems=0
violation() {
    echo "check_layout: $*" >&2
    problems=$((problems + 1))
}

stages="discover import process encode write"

# What cook.h exports to build/ and cli/: these headers and nothing they do
# not include themselves.
exported="cook/core/util.h cook/core/named_paths.h cook/core/diag.h cook/core/settings.h cook/core/result.h
cook/core/parallel.h cook/core/yaml_doc.h cook/discover/discover.h cook/write/outputs.h
cook/inspect/inspect.h"

# The rooms a file may include from, as path prefixes of the include string.
allowed_for() {
    local file=$1
    case " $(echo $exported) " in
    *" ${file#src/} "*)
        echo $exported common/ kiln/
        return
        ;;
    esac
    case $file in
    src/common/*) echo "common/ kiln/" ;;
    src/runtime/*) echo "runtime/ common/ kiln/" ;;
    src/cook/core/*) echo "cook/core/ common/ kiln/" ;;
    src/cook/drivers/*)
        local rooms="cook/drivers/ cook/inspect/ cook/core/ common/ kiln/ cook/cook.h"
        for s in $stages; do rooms="$rooms cook/$s/"; done
        echo "$rooms"
        ;;
    src/cook/inspect/*)
        # every stage but write, which uses inspect (--verify)
        local rooms="cook/inspect/ cook/core/ common/ kiln/"
        for s in $stages; do [ "$s" = write ] || rooms="$rooms cook/$s/"; done
        echo "$rooms"
        ;;
    src/cook/write/*) echo "cook/write/ cook/inspect/inspect.h cook/core/ common/ kiln/" ;;
    src/cook/cook.h) echo $exported common/ kiln/ ;;
    src/build/*) echo "build/ cook/cook.h common/ kiln/" ;;
    src/cli/*) echo "cli/ build/build.h cook/cook.h common/ kiln/" ;;
    src/cook/*/*)
        local stage=${file#src/cook/}
        stage=${stage%%/*}
        case " $stages " in
        *" $stage "*) echo "cook/$stage/ cook/core/ common/ kiln/" ;;
        *) echo "UNKNOWN" ;;
        esac
        ;;
    *) echo "UNKNOWN" ;;
    esac
}

while IFS= read -r file; do
    rooms=$(allowed_for "$file")
    if [ "$rooms" = UNKNOWN ]; then
        violation "$file: not in any room of the layout (README.md, Layout)"
        continue
    fi
    while IFS=: read -r line include; do
        [ -n "$include" ] || continue
        ok=0
        for room in $rooms; do
            case $include in
            "$room"*) ok=1 ;;
            esac
        done
        [ $ok = 1 ] || violation "$file:$line: may not include \"$include\" (allowed: $rooms)"
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
        sed -E 's/^([0-9]+):[^"]*"([^"]*)".*/\1:\2/')
done < <(find src -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) | sort)

# The runtime's third-party headers: what decoding needs, nothing more.
while IFS= read -r hit; do
    header=$(echo "$hit" | sed -E 's/.*<([^>]*)>.*/\1/')
    case $header in
    zstd.h | xxhash.h | meshoptimizer.h) ;;
    *.h)
        # libc and POSIX headers are fine; anything under a library's own
        # folder or named after a cooker dependency is not.
        case $header in
        */*) [[ $header == sys/* ]] || violation "${hit%%:*}: third-party header <$header> in the runtime" ;;
        assimp* | spng* | jpeglib* | stb_* | yaml* | jansson* | astcenc*)
            violation "${hit%%:*}: third-party header <$header> in the runtime" ;;
        esac
        ;;
    esac
done < <(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' src/runtime/* src/common/* include/kiln/*)

# The runtime library on its own.
if [ $# -ge 1 ]; then
    lib=$1
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    cat >"$work/runtime_only.c" <<'EOF'
/* Uses the runtime through its public header only. */
#include <stdio.h>
#include <string.h>

#include "kiln/kiln.h"

int main(void) {
    kiln_file file;
    kiln_error error;
    if (kiln_file_map(&file, "/nonexistent/kiln-layout-check.kmesh", 0, &error) == KILN_OK)
        return 1;
    kiln_pack pack;
    if (kiln_pack_open(&pack, "/nonexistent/kiln-layout-check.kpak", &error) == KILN_OK)
        return 1;
    char ref[64];
    if (kiln_ref_canonicalize("Models\\Crate.OBJ", ref, sizeof ref) != KILN_OK ||
        strcmp(ref, "models/crate") != 0)
        return 1;
    printf("%016llx\n", (unsigned long long)kiln_ref_hash(ref));
    return kiln_ktx2_format_str(43)[0] == '\0';
}
EOF
    cc=${CC:-cc}
    if ! "$cc" -std=c11 -Wall -Werror -Iinclude "$work/runtime_only.c" "$lib" \
        $(pkg-config --libs libzstd libxxhash) -lmeshoptimizer -lpthread -lm ${KILN_LAYOUT_LDFLAGS:-} \
        -o "$work/runtime_only" 2>"$work/log"; then
        violation "a program using only the runtime does not build against $lib alone:"
        cat "$work/log" >&2
    elif ! "$work/runtime_only" >/dev/null; then
        violation "the runtime-only program built against $lib fails"
    fi
fi

if [ $problems -gt 0 ]; then
    echo "check_layout: $problems problem(s)" >&2
    exit 1
fi
echo "check_layout: layout holds"
