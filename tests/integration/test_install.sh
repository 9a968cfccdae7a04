#!/usr/bin/env bash
# test_install.sh — libkiln as an engine gets it: a runtime-only build
# (-DKILN_BUILD_COOKER=OFF) installed into a temporary prefix, with both
# runtimes (libkiln.a and libkiln-dev.a, kiln.pc and kiln-dev.pc), and small
# consumer programs built outside the tree four ways: pkg-config (plain, no
# --static), find_package(kiln), add_subdirectory and FetchContent.
# tests/install/consumer.c links the shipping libkiln and opens every file of
# the cooked examples; its totals must agree with `kiln info --json`.
# tests/install/consumer_dev.c links libkiln-dev and calls a development
# function (kiln_manager_connect_cooker), which the shipping kiln.pc must not
# declare. The full build's install (tool, CMake package with kiln::kiln) is
# checked too.
#
# Environment (set by ctest): KILN, KILN_REPO, KILN_BUILD_DIR, KILN_TMP.
set -euo pipefail

: "${KILN:?set KILN to the kiln executable}"
: "${KILN_REPO:?set KILN_REPO to the source tree}"
SCRATCH="${KILN_TMP:-${TMPDIR:-/tmp}}/install"
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH"
CONSUMER="$KILN_REPO/tests/install"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok:   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; [ -f "$SCRATCH/log" ] && sed 's/^/    | /' "$SCRATCH/log" | tail -40; }
check() { local name=$1; shift; if "$@" >"$SCRATCH/log" 2>&1; then pass "$name"; else fail "$name"; fi; }

# The consumer's environment is the user's, not the sanitized test build's.
unset CFLAGS LDFLAGS ASAN_OPTIONS UBSAN_OPTIONS
export CC="${CC:-cc}"
cmake_quiet() { cmake "$@" >>"$SCRATCH/log" 2>&1; }

# 1. The runtime alone: configure, build and install with the cooker off.
prefix="$SCRATCH/prefix"
runtime_install() {
    cmake_quiet -S "$KILN_REPO" -B "$SCRATCH/runtime-build" -DCMAKE_BUILD_TYPE=Release \
        -DKILN_BUILD_COOKER=OFF &&
        cmake_quiet --build "$SCRATCH/runtime-build" -j 2 &&
        cmake_quiet --install "$SCRATCH/runtime-build" --prefix "$prefix" &&
        # Nothing of the cooker was built.
        [ ! -e "$SCRATCH/runtime-build/kiln" ] &&
        ! grep -q ASSIMP "$SCRATCH/runtime-build/CMakeCache.txt" # pkg-config variables, not a path
}
check "runtime-only build installs into a prefix without the cooker's libraries" runtime_install

installed_files() {
    local f
    for f in include/kiln/kiln.h include/kiln/format.h include/kiln/manager.h lib/libkiln.a \
        lib/libkiln-dev.a lib/pkgconfig/kiln.pc lib/pkgconfig/kiln-dev.pc \
        lib/cmake/kiln/kilnConfig.cmake lib/cmake/kiln/kilnConfigVersion.cmake \
        lib/cmake/kiln/kilnTargets.cmake; do
        [ -f "$prefix/$f" ] || { echo "missing $f"; return 1; }
    done
    [ ! -e "$prefix/bin/kiln" ] || { echo "a runtime-only install has the tool"; return 1; }
}
check "the prefix has the headers, both runtimes, their .pc files and the CMake package" \
    installed_files

pc() { PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config "$@"; }

# A static-only library's dependencies must come with a plain --libs.
pc_names_libraries() {
    local libs cflags module library
    for module in kiln kiln-dev; do
        library=-l$module
        libs=$(pc --libs "$module")
        echo "$module: $libs"
        for l in "$library" -lzstd -lxxhash -lmeshoptimizer -lm; do
            case " $libs " in *" $l "*) ;; *) echo "$module: missing $l"; return 1 ;; esac
        done
    done
    cflags=$(pc --cflags kiln)
    case " $cflags " in *KILN_RUNTIME_DEV*) echo "kiln.pc defines KILN_RUNTIME_DEV"; return 1 ;; esac
    cflags=$(pc --cflags kiln-dev)
    case " $cflags " in *" -DKILN_RUNTIME_DEV=1 "*) ;; *) echo "kiln-dev.pc: $cflags"; return 1 ;; esac
    [ "$(pc --modversion kiln-dev)" = "$(pc --modversion kiln)" ] &&
    [ "$(pc --modversion kiln)" = \
        "$(sed -n 's/^#define KILN_VERSION_MAJOR \([0-9]*\)$/\1/p' "$KILN_REPO/include/kiln/kiln.h").$(
        sed -n 's/^#define KILN_VERSION_MINOR \([0-9]*\)$/\1/p' "$KILN_REPO/include/kiln/kiln.h").$(
        sed -n 's/^#define KILN_VERSION_PATCH \([0-9]*\)$/\1/p' "$KILN_REPO/include/kiln/kiln.h")" ]
}
check "kiln.pc and kiln-dev.pc give the libraries with plain --libs, and the header's version" \
    pc_names_libraries

# 2. Cooked examples for the consumers to open, and what kiln info says of them.
cooked="$SCRATCH/cooked"
"$KILN" build -q -i "$KILN_REPO/examples/assets" -o "$cooked" >"$SCRATCH/log" 2>&1
"$KILN" info --json -o "$cooked" >"$SCRATCH/info.json"
expected=$(python3 - "$SCRATCH/info.json" <<'PYEOF'
import json, sys
info = json.load(open(sys.argv[1]))
files = info["files"]
refs = next(f["refs"] for f in files if f["kind"] == "manifest")
vertices = sum(f["vertices"] for f in files if f["kind"] == "mesh")
print(refs, vertices)
PYEOF
)

# consumer_agrees BINARY: it opens every ref; refs and mesh vertices match kiln info.
consumer_agrees() {
    "$1" "$cooked" >"$SCRATCH/consumer.out" || { cat "$SCRATCH/consumer.out"; return 1; }
    local got
    got=$(awk '/^mesh /{v += $4} / refs, 0 failed$/{r = $1} END{print r, v}' "$SCRATCH/consumer.out")
    echo "consumer: $got, kiln info: $expected"
    [ "$got" = "$expected" ]
}

# dev_consumer_works BINARY: libkiln-dev's connect call exists and fails
# cleanly without a server.
dev_consumer_works() {
    mkdir -p "$SCRATCH/no-server"
    "$1" "$SCRATCH/no-server/.kiln-serve"
}

# 3. The four ways of getting libkiln.
by_pkg_config() {
    # shellcheck disable=SC2046
    "$CC" -std=c11 -Wall -Werror "$CONSUMER/consumer.c" -o "$SCRATCH/consumer-pc" \
        $(pc --cflags --libs kiln) &&
        consumer_agrees "$SCRATCH/consumer-pc"
}
check "pkg-config: a consumer builds with plain --libs kiln and reads the cooked examples" \
    by_pkg_config

dev_by_pkg_config() {
    # shellcheck disable=SC2046
    "$CC" -std=c11 -Wall -Werror "$CONSUMER/consumer_dev.c" -o "$SCRATCH/consumer-dev-pc" \
        $(pc --cflags --libs kiln-dev) &&
        dev_consumer_works "$SCRATCH/consumer-dev-pc" &&
        # The shipping kiln.pc does not declare the development calls.
        # shellcheck disable=SC2046
        ! "$CC" -std=c11 -Wall -Werror "$CONSUMER/consumer_dev.c" -o "$SCRATCH/consumer-dev-wrong" \
            $(pc --cflags --libs kiln) 2>/dev/null
}
check "pkg-config: kiln-dev builds a consumer calling kiln_manager_connect_cooker; kiln does not" \
    dev_by_pkg_config

by_cmake() { # by_cmake NAME CMAKE-ARGS...
    local name=$1
    shift
    cmake_quiet -S "$CONSUMER" -B "$SCRATCH/consumer-$name" -DCMAKE_BUILD_TYPE=Release "$@" &&
        cmake_quiet --build "$SCRATCH/consumer-$name" -j 2 &&
        consumer_agrees "$SCRATCH/consumer-$name/consumer" &&
        dev_consumer_works "$SCRATCH/consumer-$name/consumer_dev"
}
check "find_package(kiln): kiln::runtime and kiln::runtime_dev from the installed prefix" \
    by_cmake package -DKILN_FROM=package -DCMAKE_PREFIX_PATH="$prefix"
check "add_subdirectory: kiln::runtime and kiln::runtime_dev with the cooker off" \
    by_cmake subdirectory -DKILN_FROM=subdirectory -DKILN_SOURCE_DIR="$KILN_REPO"
check "FetchContent: kiln::runtime and kiln::runtime_dev with the cooker off" \
    by_cmake fetch -DKILN_FROM=fetch -DKILN_SOURCE_DIR="$KILN_REPO"

# 4. The full build's install: the tool too, exported as kiln::kiln.
full_install() {
    [ -n "${KILN_BUILD_DIR:-}" ] || { echo "KILN_BUILD_DIR not set"; return 1; }
    cmake_quiet --install "$KILN_BUILD_DIR" --prefix "$SCRATCH/full" &&
        [ -x "$SCRATCH/full/bin/kiln" ] && [ -f "$SCRATCH/full/lib/libkiln.a" ] &&
        [ -f "$SCRATCH/full/lib/libkiln-dev.a" ] &&
        grep -q 'kiln::kiln' "$SCRATCH/full/lib/cmake/kiln/kilnTargets.cmake" &&
        "$SCRATCH/full/bin/kiln" info -q -o "$cooked"
}
check "the full install has the kiln tool, exported as kiln::kiln" full_install

echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
