#!/usr/bin/env bash
# Levels through the CLI: a level placing models cooks to a
# .kscene whose world matrices (kiln pose) equal a computation written here;
# kiln info lists the entities, kiln check resolves every link; a dangling ref
# fails naming level:line; --roots cooks exactly what levels reach and info
# --unreferenced lists the rest; editing, removing or restoring a referenced
# file cooks the level again.
set -euo pipefail
source "$(dirname "$0")/harness.sh" levels

if ! command -v python3 >/dev/null; then
    echo "test_levels: skipped: python3 not found"
    exit 0
fi

T="$SCRATCH/project"
IN="$T/in"
mkdir -p "$IN/models" "$IN/levels" "$IN/textures" "$IN/ui"
python3 - "$IN/models/truck.png" "$IN/textures/decal.png" "$IN/ui/icon.png" <<'EOF'
import sys
from png_tool import write_png
for path in sys.argv[1:]:
    write_png(path, 4, 4, b"\x20\x80\xff\xff" * 16)
EOF
TRI='v 0 0 0\nv 1 0 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\n'
printf "mtllib truck.mtl\n${TRI}usemtl paint\nf 1/1 2/2 3/3\n" >"$IN/models/truck.obj"
printf 'newmtl paint\nKd 1 1 1\nmap_Kd truck.png\n' >"$IN/models/truck.mtl"
printf "${TRI}f 1 2 3\n" >"$IN/models/tree.obj"
printf "${TRI}f 1 2 3\n" >"$IN/models/unused.obj"
cat >"$IN/levels/common.level" <<'EOF'
entities:
  - name: yard
    translation: [10, 0, 0]
    rotation: [0, 0, 0.7071068, 0.7071068]
EOF
cat >"$IN/levels/town.level" <<'EOF'
include: [common.level]
entities:
  - name: truck
    asset: models/truck.obj
    translation: [1, 2, 3]
    rotation: [0, 0.6, 0, 0.8]
    scale: [2, 2, 2]
    parent: yard
    components:
      decal: {ref: textures/decal.png, size: 2}
  - name: tree
    asset: models/tree.obj
    translation: [-4, 0, 0]
EOF

run_in "$T" -i in -o out -v
check "a level placing models cooks to a .kscene with the models" \
    all_true 'status_is 0' '[ -s "$T/out/levels/town.kscene" ]' '[ -s "$T/out/levels/common.kscene" ]' \
    'stdout_has "^cooked levels/town.level -> levels/town.kscene$"'

# World matrices: yard = T(10,0,0) R(z 90°); truck = yard · T(1,2,3) R(q) S(2),
# q = (0, 0.6, 0, 0.8); tree = T(-4,0,0). Column-major, computed here.
run_in "$T" pose out/levels/town.kscene --json
check "kiln pose gives each entity's world matrix as computed independently" \
    all_true 'status_is 0' 'python3 - "$SCRATCH/stdout" <<"EOF"
import json, math, sys
def quat(x, y, z, w):
    return [[1-2*(y*y+z*z), 2*(x*y-z*w), 2*(x*z+y*w)],
            [2*(x*y+z*w), 1-2*(x*x+z*z), 2*(y*z-x*w)],
            [2*(x*z-y*w), 2*(y*z+x*w), 1-2*(x*x+y*y)]]
def trs(t, q, s):
    r = quat(*q)
    m = [[r[i][j] * s[j] for j in range(3)] + [t[i]] for i in range(3)] + [[0, 0, 0, 1]]
    return m
def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]
h = math.sqrt(0.5)
q = 0.7071068 / math.sqrt(2 * 0.7071068 ** 2)
yard = trs([10, 0, 0], [0, 0, q, q], [1, 1, 1])
truck = mul(yard, trs([1, 2, 3], [0, 0.6, 0, 0.8], [2, 2, 2]))
tree = trs([-4, 0, 0], [0, 0, 0, 1], [1, 1, 1])
want = {"yard": yard, "truck": truck, "tree": tree}
nodes = json.load(open(sys.argv[1]))["nodes"]
assert sorted(n["name"] for n in nodes) == ["tree", "truck", "yard"], nodes
for n in nodes:
    m = want[n["name"]]
    col = [m[i][j] for j in range(4) for i in range(4)]
    assert all(abs(a - b) < 1e-5 for a, b in zip(n["world"], col)), (n["name"], n["world"], col)
EOF'

run_in "$T" info -o out
check "kiln info lists the level's entities, parents, placed scenes and components" \
    all_true 'status_is 0' \
    "stdout_has \"^  entity 'truck' \\(parent 'yard'\\) at 1 2 3 places models/truck/scene; components \\{\\\"decal\\\":\\{\\\"ref\\\":\\\"textures/decal.png\\\",\\\"hash\\\":\\\"[0-9a-f]{16}\\\",\\\"size\\\":2\\}\\}$\"" \
    "stdout_has \"^  entity 'tree' at -4 0 0 places models/tree/scene$\"" \
    "stdout_has \"^  entity 'yard' at 10 0 0$\""

run_in "$T" check -o out
check "kiln check resolves every link and component ref of the level" \
    all_true 'status_is 0' 'stdout_has "0 problems"'

# --roots: the level, what it includes and places, the models' textures, the
# component's texture; not unused.obj nor ui/icon.png.
run_in "$T" -i in -o reach --roots 'levels/town.level' -v
check "--roots on a level cooks exactly what it reaches" \
    all_true 'status_is 0' '[ -s "$T/reach/levels/town.kscene" ]' \
    '[ -s "$T/reach/levels/common.kscene" ]' '[ -s "$T/reach/models/truck.kmesh" ]' \
    '[ -s "$T/reach/models/truck/truck.ktx2" ]' '[ -s "$T/reach/models/tree.kscene" ]' \
    '[ -s "$T/reach/textures/decal.ktx2" ]' '[ ! -e "$T/reach/models/unused.kmesh" ]' \
    '[ ! -e "$T/reach/ui/icon.ktx2" ]' 'stdout_has "^kiln: 2 assets not reached from the roots"'
run_in "$T" check -o reach
check "what --roots cooked passes kiln check" all_true 'status_is 0'

run_in "$T" info -o out --unreferenced
check "info --unreferenced (no roots): the level tops the graph, its models are referenced" \
    all_true 'status_is 0' 'stdout_has "^levels/town.level: levels/town.kscene$"' \
    'stdout_has "^models/unused.obj: "' 'stdout_has "^ui/icon.png: ui/icon.ktx2$"' \
    '! stdout_has "^models/truck.obj"' '! stdout_has "^models/tree.obj"' \
    '! stdout_has "^levels/common.level"' '! stdout_has "^textures/decal.png"' \
    'stdout_has "^kiln: 3 of 7 cooked assets referenced by no other asset"'
printf 'roots:\n  - "levels/*.level"\n' >"$T/kiln.yml"
run_in "$T" info -o out --unreferenced
check "info --unreferenced with roots: levels/*.level: what no level reaches" \
    all_true 'status_is 0' 'stdout_has "^models/unused.obj: "' 'stdout_has "^ui/icon.png: "' \
    '! stdout_has "^levels/"' '! stdout_has "^models/t"' \
    'stdout_has "^kiln: 2 of 7 cooked assets not reached"'
rm "$T/kiln.yml"

# Incremental: the level depends on every file it names.
run_in "$T" -i in -o out -v
check "an unchanged level is up to date" \
    all_true 'status_is 0' 'stdout_has "^up to date levels/town.level$"'
printf '# edited\n' >>"$IN/models/tree.obj"
run_in "$T" -i in -o out -v
check "editing a model the level places cooks the level again" \
    all_true 'status_is 0' 'stdout_has "^cooked levels/town.level -> "' \
    'stdout_has "^cooked models/tree.obj -> "' 'stdout_has "^up to date levels/common.level$"'
printf 'entities:\n  - name: yard\n    translation: [11, 0, 0]\n' >"$IN/levels/common.level"
run_in "$T" -i in -o out -v
check "editing an included level cooks the including level again" \
    all_true 'status_is 0' 'stdout_has "^cooked levels/town.level -> "'
run_in "$T" info -o out
check "... and the included entity has its new transform" \
    all_true "stdout_has \"^  entity 'yard' at 11 0 0$\""
mv "$IN/models/tree.obj" "$SCRATCH/tree.obj"
run_in "$T" -i in -o out
check "removing a placed model fails the level naming level:line and the ref" \
    all_true 'status_is 1' \
    "stderr_has \"^in/levels/town.level:12: error: ref 'models/tree.obj': 'models/tree.obj' not found$\""
mv "$SCRATCH/tree.obj" "$IN/models/tree.obj"
run_in "$T" -i in -o out -v
check "restoring it (the same bytes) makes the level's last cook valid again" \
    all_true 'status_is 0' 'stdout_has "^(up to date|cooked) levels/town.level"' \
    '[ -s "$T/out/levels/town.kscene" ]'
printf 'entities:\n  - name: a\n    asset: models/later.obj\n' >"$IN/levels/later.level"
run_in "$T" -i in -o out
check "a level placing a model not there yet fails" all_true 'status_is 1' \
    "stderr_has \"^in/levels/later.level:3: error: ref 'models/later.obj': 'models/later.obj' not found$\""
printf "${TRI}f 1 2 3\n" >"$IN/models/later.obj"
run_in "$T" -i in -o out -v
check "creating the missing model cooks it and the level" \
    all_true 'status_is 0' 'stdout_has "^cooked levels/later.level -> levels/later.kscene$"' \
    'stdout_has "^cooked models/later.obj -> "'
run_in "$T" check -o out
check "kiln check passes after the incremental builds" all_true 'status_is 0'

# Bad levels: each fails alone, naming the file and the line.
B="$SCRATCH/bad"
mkdir -p "$B/in/levels" "$B/in/models"
printf "${TRI}f 1 2 3\n" >"$B/in/models/ok.obj"
printf 'entities:\n  - name: a\n    asset: models/gone.obj\n' >"$B/in/levels/dangling.level"
printf 'include: [cycle_b.level]\n' >"$B/in/levels/cycle_a.level"
printf 'include: [cycle_a.level]\n' >"$B/in/levels/cycle_b.level"
printf 'include: [dup_b.level]\nentities:\n  - name: x\n' >"$B/in/levels/dup_a.level"
printf 'entities:\n  - name: x\n' >"$B/in/levels/dup_b.level"
printf 'entities:\n  - name: a\n    parent: nobody\n' >"$B/in/levels/orphan.level"
printf 'entities:\n  - name: a\n    translation: [0, .inf, 0]\n' >"$B/in/levels/inf.level"
run_in "$B" -i in -o out
check "bad levels fail with file:line errors, and the rest still cooks" \
    all_true 'status_is 1' '[ -s "$B/out/models/ok.kmesh" ]' '[ -s "$B/out/levels/dup_b.kscene" ]' \
    "stderr_has \"^in/levels/dangling.level:3: error: ref 'models/gone.obj': 'models/gone.obj' not found$\"" \
    "stderr_has \"^in/levels/cycle_b.level:1: error: include cycle: levels/cycle_a.level -> levels/cycle_b.level -> levels/cycle_a.level$\"" \
    "stderr_has \"^in/levels/dup_a.level:3: error: entity name 'x' is already used at levels/dup_b.level:2$\"" \
    "stderr_has \"^in/levels/orphan.level:3: error: entity 'a': parent 'nobody' is no entity of the level$\"" \
    "stderr_has \"^in/levels/inf.level:3: error: translation: expected a list of 3 finite numbers$\""

# Levels whose components name each other (doors) or themselves: each cooks
# alone, so the cooker accepts them; kiln check reports the cycles, which the
# runtime's manager refuses to hold (a level holds what it names).
C="$SCRATCH/cycles"
mkdir -p "$C/in/levels"
printf 'entities:\n  - name: door\n    components:\n      to: {ref: levels/b.level}\n' \
    >"$C/in/levels/a.level"
printf 'entities:\n  - name: door\n    components:\n      to: {ref: levels/a.level}\n' \
    >"$C/in/levels/b.level"
printf 'entities:\n  - name: loop\n    components:\n      me: {ref: levels/self.level}\n' \
    >"$C/in/levels/self.level"
printf 'entities:\n  - name: fine\n    components:\n      to: {ref: levels/b.level}\n      meta: {hash: "not a ref hash, no ref before it"}\n' \
    >"$C/in/levels/fine.level"
run_in "$C" -i in -o out
check "levels naming each other or themselves cook" \
    all_true 'status_is 0' '[ -s "$C/out/levels/a.kscene" ]' '[ -s "$C/out/levels/self.kscene" ]'
run_in "$C" check -o out
check "kiln check reports each cycle of levels by ref, and nothing for a level leading into one (nor for a \"hash\" that follows no \"ref\")" \
    all_true 'status_is 1' 'stdout_has "2 problems"' \
    'stderr_has "levels form a dependency cycle: levels/(a/scene -> levels/b|b/scene -> levels/a)/scene -> levels/(a|b)/scene "' \
    'stderr_has "levels form a dependency cycle: levels/self/scene -> levels/self/scene "'

finish test_levels
