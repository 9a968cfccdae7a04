#!/usr/bin/env bash
# test_corpus_obj.sh — cooks every OBJ of the shared corpus with `kiln build -j2`
# and compares each file's outcome with the expectation in index.tsv:
#
#   expect=ok     the asset did not fail, and it either has a .kmesh or the
#                 build explained why not (a warning naming it); files with
#                 only lines or points cook to a .kmesh of lines or points;
#   expect=error  the asset failed, with an error line naming it.
#
# Then the build's exit status must be 1 (some rows must fail) and `kiln check`
# must pass the output. Environment (set by ctest): KILN, KILN_CORPUS, KILN_TMP.
set -euo pipefail

: "${KILN:?set KILN to the kiln executable}"
CORPUS="${KILN_CORPUS:-}"
if [ -z "$CORPUS" ] || [ ! -f "$CORPUS/index.tsv" ]; then
    echo "corpus: skipped: shared corpus not found at ${CORPUS:-<unset>} (set KILN_CORPUS)"
    exit 0
fi

SCRATCH="${KILN_TMP:-${TMPDIR:-/tmp}}/corpus_obj"
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH/input"
# The input root holds obj/ so source paths are the index's paths. -L copies
# the files a link points to, never the link.
cp -RL "$CORPUS/obj" "$SCRATCH/input/obj"

set +e
"$KILN" build -i "$SCRATCH/input" -o "$SCRATCH/output" -j2 \
    >"$SCRATCH/build.out" 2>"$SCRATCH/build.err" </dev/null
build_status=$?
set -e

passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    echo "FAIL: $1"
}

# Lines of the build's stderr about `path` (they start with "INPUT/path:").
lines_about() {
    awk -v prefix="$SCRATCH/input/$1:" 'index($0, prefix) == 1' "$SCRATCH/build.err"
}
has_error_about() { lines_about "$1" | grep -q ': error: '; }
has_warning_about() { lines_about "$1" | grep -q ': warning: '; }
listed_as_failed() { grep -qxF "kiln: failed: $1" "$SCRATCH/build.out"; }
has_cooked_output() {
    local stem="$SCRATCH/output/${1%.*}"
    compgen -G "$stem.kmesh" >/dev/null || compgen -G "$stem.mesh*.kmesh" >/dev/null
}

rows=0
while IFS=$'\t' read -r path format _category expect _notes; do
    [ "$format" = "obj" ] || continue
    rows=$((rows + 1))
    case "$expect" in
    ok)
        if listed_as_failed "$path"; then
            fail "$path: expected ok, but it failed:"
            lines_about "$path" | head -5 | sed 's/^/    /'
        elif ! has_cooked_output "$path" && ! has_warning_about "$path"; then
            fail "$path: expected ok, but no .kmesh was written and no warning says why"
        else
            pass
        fi
        ;;
    error)
        if listed_as_failed "$path" && has_error_about "$path"; then
            pass
        else
            fail "$path: expected an error line naming it"
        fi
        ;;
    *)
        fail "$path: unknown expectation '$expect' in index.tsv"
        ;;
    esac
done < <(tail -n +2 "$CORPUS/index.tsv")

if [ "$rows" -eq 0 ]; then
    fail "index.tsv has no obj rows"
fi
if [ "$build_status" -eq 1 ]; then pass; else
    fail "kiln build exited with $build_status, expected 1 (some corpus files must fail)"
    sed 's/^/    /' "$SCRATCH/build.err" | tail -20
fi

set +e
"$KILN" check -o "$SCRATCH/output" >"$SCRATCH/check.out" 2>"$SCRATCH/check.err" </dev/null
check_status=$?
set -e
if [ "$check_status" -eq 0 ]; then pass; else
    fail "kiln check on the cooked corpus exited with $check_status"
    sed 's/^/    /' "$SCRATCH/check.err" | head -20
fi

echo "corpus_obj: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
