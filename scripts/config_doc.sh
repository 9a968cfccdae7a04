#!/bin/sh
# config_doc.sh — the settings reference of docs/configuration.md, generated.
#
#   sh scripts/config_doc.sh --write GENERATOR [DOC]   (make docs)
#   sh scripts/config_doc.sh --check GENERATOR [DOC]   (ctest config_doc_current)
#
# GENERATOR is the built tools/gen_config_doc.c (kiln_gen_config_doc); its
# output replaces, or is compared with, the lines between the markers
# "<!-- generated: settings -->" and "<!-- end generated -->" of DOC
# (default: docs/configuration.md next to this script).
set -eu
usage() {
    echo "usage: $0 --write|--check GENERATOR [DOC]" >&2
    exit 2
}
[ $# -ge 2 ] || usage
mode=$1
generator=$2
doc=${3:-$(cd "$(dirname "$0")/.." && pwd)/docs/configuration.md}
case $mode in --write | --check) ;; *) usage ;; esac
begin='<!-- generated: settings -->'
end='<!-- end generated -->'
if [ "$(grep -cxF "$begin" "$doc")" != 1 ] || [ "$(grep -cxF "$end" "$doc")" != 1 ]; then
    echo "$doc: needs one line '$begin' and one line '$end'" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$generator" >"$work/table"
# The document with the generated part replaced by the generator's output.
awk -v begin="$begin" -v end="$end" -v table="$work/table" '
    $0 == begin { print; while ((getline line < table) > 0) print line; skip = 1; next }
    $0 == end { skip = 0 }
    !skip { print }
' "$doc" >"$work/doc"
if [ "$mode" = --write ]; then
    if cmp -s "$work/doc" "$doc"; then
        echo "$doc: settings reference up to date"
    else
        cat "$work/doc" >"$doc"
        echo "$doc: settings reference regenerated"
    fi
    exit 0
fi
if ! cmp -s "$work/doc" "$doc"; then
    diff -u "$doc" "$work/doc" | sed -n '1,60p' >&2 || true
    echo "$doc: the settings reference differs from the settings table" \
        "(src/cook/core/settings.c); regenerate it with 'make docs'" >&2
    exit 1
fi
echo "$doc: settings reference matches the settings table"
