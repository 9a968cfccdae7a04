#!/bin/bash
# kiln's verdict on glTF files against the Khronos glTF-Validator's (npm
# gltf-validator, installed here into a scratch folder): for every file the
# validator reports an error for, kiln refuses it with an error line, or
# cooks it with a warning naming the JSON path of one of the validator's
# errors (accessors[0].max[0] for /accessors/0/max/0) — also when the file
# has no mesh. Files: the crafted ones of gltf_validator_cases.py (POSITION
# without min/max and a tangent with w = 0 cook with a warning, a NaN
# position is refused, a mesh-less file's bad accessor bounds and stride are
# named; a valid triangle cooks without a word) and the corpus's
# invalid/gltf-validator files (one the validator cannot even read as glTF
# must be refused). Without node, npm or the registry: "skipped:".
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/harness.sh" gltf_validator
CORPUS=${KILN_CORPUS:-}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "skipped: node or npm not installed"
    exit 0
fi
if ! npm install --silent --no-audit --no-fund --prefix "$SCRATCH/npm" gltf-validator \
    >"$SCRATCH/npm.log" 2>&1; then
    echo "skipped: npm install gltf-validator failed (offline?)"
    exit 0
fi

python3 "$HERE/gltf_validator_cases.py" "$SCRATCH/crafted"
files=("$SCRATCH"/crafted/*.gltf)
if [ -n "$CORPUS" ] && [ -d "$CORPUS/invalid/gltf-validator" ]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$CORPUS/invalid/gltf-validator" \
        -type f \( -name '*.gltf' -o -name '*.glb' \) | sort)
fi
node "$HERE/../support/gltf_validate.js" "$SCRATCH/npm/node_modules" "${files[@]}" \
    >"$SCRATCH/validator.tsv"
check "the validator answered for every file" \
    [ "$(grep -c . "$SCRATCH/validator.tsv")" -eq ${#files[@]} ]

# cook FILE: kiln builds the file alone, with the files its JSON names
# (buffers' and images' relative URIs); leaves $SCRATCH/one/log, sets $status.
cook() {
    rm -rf "$SCRATCH/one" && mkdir -p "$SCRATCH/one/in"
    cp "$1" "$SCRATCH/one/in/"
    local uri
    while IFS= read -r uri; do
        if [ -f "$(dirname "$1")/$uri" ]; then cp "$(dirname "$1")/$uri" "$SCRATCH/one/in/"; fi
    done < <(python3 -c '
import json, sys, urllib.parse
try:
    doc = json.load(open(sys.argv[1], encoding="utf-8"))
    for key in ("buffers", "images"):
        for item in doc.get(key, []):
            uri = item.get("uri", "") if isinstance(item, dict) else ""
            if isinstance(uri, str) and uri and not uri.startswith("data:") and "/" not in uri:
                print(urllib.parse.unquote(uri))
except Exception:
    pass' "$1")
    set +e
    (cd "$SCRATCH/one" && "$KILN" build -i in -o out) >"$SCRATCH/one/log" 2>&1
    status=$?
    set -e
}

# pointer_paths "/a/0/b;/c/1": kiln's spelling of each pointer's first two
# parts ("a[0]", "c[1]"), one a line.
pointer_paths() {
    tr ';' '\n' <<<"$1" | sed -E 's|^/||; s|^([^/]+)/([0-9]+).*|\1[\2]|; s|^([^/]+)/([^/0-9][^/]*).*|\1.\2|'
}

agreed=0
disagreed=0
while IFS=$'\t' read -r file errors pointers; do
    cook "$file"
    name=${file#"$SCRATCH/"}
    name=${name#"$CORPUS/"}
    if [ "$errors" = 0 ]; then
        continue # valid for the validator: kiln's own checks may still warn
    fi
    if [ "$errors" = failed ]; then # not glTF at all (empty, no header): refused
        pointers=""
    fi
    verdict=""
    if [ "$status" -ne 0 ] && grep -q ": error: " "$SCRATCH/one/log"; then
        verdict="refused"
    elif [ "$status" -eq 0 ]; then
        while IFS= read -r path; do
            if [ -n "$path" ] && grep ": warning: " "$SCRATCH/one/log" | grep -qF -- "$path"; then
                verdict="warned ($path)"
                break
            fi
        done < <(pointer_paths "$pointers")
    fi
    if [ -n "$verdict" ]; then
        agreed=$((agreed + 1))
    else
        disagreed=$((disagreed + 1))
        echo "  $name: the validator reports $errors error(s) at $pointers; kiln (exit $status) said:"
        sed 's/^/    /' "$SCRATCH/one/log" | head -5
    fi
done <"$SCRATCH/validator.tsv"
check "kiln refuses or names a path of every file the validator finds errors in ($agreed agree)" \
    [ "$disagreed" -eq 0 ]

# The crafted cases, each with the outcome the documentation promises.
expect() { # NAME STATUS PATTERN: kiln's exit status and a line of its output
    cook "$SCRATCH/crafted/$1.gltf"
    check "$1: exit $2, '$3'" all_true "status_is $2" "grep -qE -- \"$3\" '$SCRATCH/one/log'"
}
expect position_no_bounds 0 \
    "warning: meshes\[0\]\.primitives\[0\]\.attributes\.POSITION: accessors\[0\] has no min and max"
expect tangent_w0 0 \
    "warning: meshes\[0\]\.primitives\[0\]\.attributes\.TANGENT: 1 element \(the first: 1\) has w = 0.*repaired as 1"
expect meshless_bounds 0 \
    "warning: accessors\[0\]\.max\[0\]: 1, but the largest element value is 2 \(an element lies outside the bound\)"
expect meshless_stride 0 "warning: bufferViews\[0\]\.byteStride: 5 is not a multiple of 4"
expect nan_position 1 "error: meshes\[0\]\.primitives\[0\]\.attributes\.POSITION: accessors\[0\] element 1 holds a non-finite number"
cook "$SCRATCH/crafted/valid.gltf"
check "valid: cooks with no warning" all_true "status_is 0" \
    "! grep -q ': warning: ' '$SCRATCH/one/log'"

finish gltf_validator
