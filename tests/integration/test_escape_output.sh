#!/usr/bin/env bash
# test_escape_output.sh — names from files never reach the terminal raw: a
# file name holding an OSC title sequence and BEL, a glTF whose scene and
# node names hold a clear-screen and a title sequence (file content, so the
# asset itself would drive the terminal), and a Latin-1 file name. Every text
# output that names them — kiln build (-v, -n, the report), kiln info (the
# folder and one file), kiln pose, kiln pack info, kiln check — prints them
# escaped ("\x1B") with valid UTF-8 ("é") as it is; --json keeps them exact.
#
# Environment (set by ctest): KILN, KILN_TMP. Helpers: harness.sh.
set -euo pipefail

source "$(dirname "$0")/harness.sh" escape_output

run() { run_in "$SCRATCH" "$@"; }

IN="$SCRATCH/in"
mkdir -p "$IN/props" "$IN/scenes"
triangle=$'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n'
evil=$'props/evil\e]0;pwned\a.obj'
printf '%s' "$triangle" >"$IN/$evil"
# Not UTF-8: the META chunk's "source" must still be JSON (U+FFFD).
printf '%s' "$triangle" >"$IN/props/lat"$'\xe9'".obj"

# One triangle; names with a clear-screen, an OSC title (ESC ... BEL) and é,
# written as JSON escapes the way an exporter would.
cat >"$IN/scenes/café.gltf" <<'EOF'
{"asset": {"version": "2.0"},
 "scene": 0,
 "scenes": [{"name": "main\u001b[2J\u00e9", "nodes": [0]}],
 "nodes": [{"name": "node\u001b]0;title\u0007\u00e9", "mesh": 0}],
 "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
 "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                "min": [0, 0, 0], "max": [1, 1, 0]}],
 "bufferViews": [{"buffer": 0, "byteLength": 36}],
 "buffers": [{"byteLength": 36,
   "uri": "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}]}
EOF
SCENE="$SCRATCH/out/scenes/café.kscene"

# no_raw_controls: neither output of the last run holds ESC or BEL.
no_raw_controls() { ! grep -q $'[\e\a]' "$SCRATCH/stdout" "$SCRATCH/stderr"; }
# both_have TEXT: stdout or stderr of the last run holds TEXT (fixed string).
both_have() { grep -qF -- "$1" "$SCRATCH/stdout" "$SCRATCH/stderr"; }

# ---------------------------------------------------------------------------
# kiln build: the report, -v, -n
# ---------------------------------------------------------------------------

run build -i in -o out -v --no-cache
check "build -v cooks them" status_is 0
check "build -v: no raw ESC or BEL" no_raw_controls
check "build -v names the file escaped" both_have 'cooked props/evil\x1B]0;pwned\x07.obj'
check "build: the slowest: line is escaped" \
    all_true 'stdout_has "^kiln: slowest:.*evil\\\\x1B\]0;pwned\\\\x07\.obj"'
check "build: é stays é" both_have 'scenes/café.gltf'
check "build: a Latin-1 name is escaped" both_have 'props/lat\xE9.obj'

run build -i in -o out -v
check "build -v again: no raw ESC or BEL" all_true 'status_is 0' no_raw_controls
check "build -v says up to date, escaped" both_have 'up to date props/evil\x1B]0;pwned\x07.obj'

echo "# changed" >>"$IN/$evil"
run build -i in -o out -n
check "build -n: no raw ESC or BEL" all_true 'status_is 0' no_raw_controls
check "build -n lists the file escaped" \
    both_have 'would cook props/evil\x1B]0;pwned\x07.obj: source changed'

run build -i in -o out --json -q
check "build --json names the file exactly" \
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert any(s["source"] == sys.argv[2] for s in d["slowest"]), d' \
    "$SCRATCH/stdout" "$evil"

run build -i in -o out --pack -q
check "build --pack writes the pack" all_true 'status_is 0' '[ -f "$SCRATCH/out.kpak" ]'

# ---------------------------------------------------------------------------
# kiln info, pose, pack info, check
# ---------------------------------------------------------------------------

run info -i in -o out
check "info: no raw ESC or BEL" all_true 'status_is 0' no_raw_controls
check "info names the cooked file escaped" both_have 'props/evil\x1B]0;pwned\x07.kmesh'
check "info: source: escaped" both_have '  source: props/evil\x1B]0;pwned\x07.obj'
check "info: the scene name escaped, é kept" both_have "scene 0 'main\\x1B[2Jé'"
check "info: a Latin-1 name's source survives (U+FFFD)" both_have '  source: props/lat�.obj'

run info "$SCENE"
check "info FILE.kscene: no raw ESC or BEL" all_true 'status_is 0' no_raw_controls
check "info FILE.kscene: the scene name escaped" both_have "scene 0 'main\\x1B[2Jé'"
check "info FILE.kscene: source: with é" both_have '  source: scenes/café.gltf'

run info --json "$SCENE"
check "info --json keeps the scene name exact" \
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["scenes"][0]["name"] == "main\x1b[2J\u00e9", d' \
    "$SCRATCH/stdout"
check "info --json (jq) decodes the source with é" \
    bash -c '[ "$(jq -r .source "$1")" = "scenes/café.gltf" ]' _ "$SCRATCH/stdout"

run pose "$SCENE"
check "pose: no raw ESC or BEL" all_true 'status_is 0' no_raw_controls
check "pose: the node name escaped, é kept" both_have "node 0 'node\\x1B]0;title\\x07é'"

run pose --json "$SCENE"
check "pose --json keeps the node name exact" \
    bash -c '[ "$(jq -r ".nodes[0].name" "$1")" = $'"'"'node\e]0;title\aé'"'"' ]' _ "$SCRATCH/stdout"

run pack info out.kpak
check "pack info: no raw ESC or BEL" all_true 'status_is 0' no_raw_controls
check "pack info lists the path escaped" both_have 'props/evil\x1B]0;pwned\x07.kmesh'

run info --json out.kpak
check "info --json FILE.kpak keeps the path exact" \
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert any(e["path"] == sys.argv[2] for e in d["entries"]), d' \
    "$SCRATCH/stdout" "${evil%.obj}.kmesh"

run check -o out
check "check: every cooked file valid (the Latin-1 META too), no raw ESC or BEL" \
    all_true 'status_is 0' no_raw_controls

finish escape_output
