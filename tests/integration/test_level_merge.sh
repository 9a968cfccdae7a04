#!/usr/bin/env bash
# Merged levels (merge: true, level.merge): corpus models placed by a level,
# one of them twice, inlined into one .kscene. The node count, the world
# matrices of the inlined nodes (the entity's world matrix times the model
# node's own, both computed here from the level and the source glTF), one
# mesh table naming each model's meshes once, its material tables, cameras
# and a skin carried along; kiln check and kiln info; the linked form of the
# same entities unchanged; a model with clips kept as a link with a warning;
# a rule and a model's settings cook the level again; bad cases fail or warn
# as documented. Then kiln-view, when it can render here, draws the merged
# level as it draws the linked one.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/harness.sh" level_merge

CORPUS=${KILN_CORPUS:-}
if ! command -v python3 >/dev/null; then
    echo "test_level_merge: skipped: python3 not found"
    exit 0
fi
if [ -z "$CORPUS" ] || [ ! -d "$CORPUS/gltf/SimpleSkin" ]; then
    echo "test_level_merge: skipped: shared corpus not found at '${CORPUS}'"
    exit 0
fi

T="$SCRATCH/project"
IN="$T/in"
mkdir -p "$IN/models" "$IN/levels"
G="$CORPUS/gltf"
cp "$G/Box/glTF-Binary/Box.glb" "$IN/models/box.glb"
cp "$G/MetalRoughSpheresNoTextures/glTF-Binary/MetalRoughSpheresNoTextures.glb" \
    "$IN/models/spheres.glb" # 102 meshes: refs <model>/mesh_<i>
cp "$G/SimpleMeshes/glTF/SimpleMeshes.gltf" "$G/SimpleMeshes/glTF/triangle.bin" "$IN/models/"
cp "$G/Cameras/glTF/Cameras.gltf" "$G/Cameras/glTF/simpleSquare.bin" "$IN/models/"
cp "$G/SimpleSkin/glTF-Embedded/SimpleSkin.gltf" "$IN/models/walker.gltf" # skinned, with a clip
# The same skin without its clip: merged, its joints moved with its nodes.
python3 - "$G/SimpleSkin/glTF-Embedded/SimpleSkin.gltf" "$IN/models/skin.gltf" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
del doc["animations"]
json.dump(doc, open(sys.argv[2], "w"))
EOF
cat >"$IN/levels/placed.level" <<'EOF'
entities:
  - name: yard
    translation: [10, 0, 0]
    rotation: [0, 0, 0.7071068, 0.7071068]
  - name: box1
    asset: models/box.glb
    parent: yard
    translation: [1, 2, 3]
    rotation: [0, 0.6, 0, 0.8]
    scale: [2, 2, 2]
  - name: box2
    asset: models/box.glb
    translation: [-4, 0, 0]
    components:
      tag: second
  - name: meshes
    asset: models/SimpleMeshes.gltf
    translation: [0, 0, -6]
  - name: cams
    asset: models/Cameras.gltf
  - name: skinned
    asset: models/skin.gltf
    translation: [0, 5, 0]
  - name: walker
    asset: models/walker.gltf
  - name: spheres
    asset: models/spheres.glb
    translation: [0, 0, -20]
    scale: [0.5, 0.5, 0.5]
EOF
# A light and EXT_mesh_gpu_instancing (none in the corpus): a triangle drawn
# at three instance translations, and a point light on a node of its own.
python3 - "$IN/models/lit.gltf" <<'EOF'
import base64, json, struct, sys
blob = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0) + struct.pack("<9f", 1, 0, 0, 2, 0, 0, 3, 0, 0)
instancing = {"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": 1}}}
doc = {
    "asset": {"version": "2.0"},
    "extensionsUsed": ["EXT_mesh_gpu_instancing", "KHR_lights_punctual"],
    "extensions": {"KHR_lights_punctual": {"lights": [
        {"type": "point", "color": [1, 0.5, 0.25], "intensity": 2}]}},
    "buffers": [{"byteLength": len(blob),
                 "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
    "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                    {"buffer": 0, "byteOffset": 36, "byteLength": 36}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                   "min": [0, 0, 0], "max": [1, 1, 0]},
                  {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3"}],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
    "nodes": [{"mesh": 0, "extensions": instancing},
              {"translation": [0, 4, 0], "extensions": {"KHR_lights_punctual": {"light": 0}}}],
    "scenes": [{"nodes": [0, 1]}],
}
json.dump(doc, open(sys.argv[1], "w"))
EOF
cat >"$IN/levels/lit.level" <<'EOF'
merge: true
entities:
  - name: a
    asset: models/lit.gltf
  - name: b
    asset: models/lit.gltf
    translation: [0, 0, 9]
EOF
printf 'include: [placed.level]\nmerge: true\n' >"$IN/levels/merged.level"
printf 'include: [placed.level]\n' >"$IN/levels/rule.level"
cat >"$T/kiln.yml" <<'EOF'
rules:
  - match: levels/rule.level
    level.merge: true
EOF

run_in "$T" -i in -o out
check "the levels cook; the model with a clip is named in a warning and stays linked" \
    all_true 'status_is 0' '[ -s "$T/out/levels/merged.kscene" ]' \
    "stderr_has \"^in/levels/placed.level:25: warning: merge: 'models/walker.gltf' has animations or morph weights, whose .kanim targets its own scene's nodes; linked instead$\""
check "the level that does not merge warns about nothing" \
    all_true "[ \"\$(grep -c 'warning: merge' \"\$SCRATCH/stderr\")\" -eq 2 ]"

run_in "$T" check -o out
check "kiln check passes: every mesh, material table and link of the merged scene resolves" \
    all_true 'status_is 0' 'stdout_has " 0 problems"'

run_in "$T" info out/levels/merged.kscene
check "kiln info lists the merged level: nodes, one mesh table, cameras, a skin, the entities" \
    all_true 'status_is 0' \
    'stdout_has "^  scene: [0-9]+ bytes, 139 nodes, depth 4, 106 meshes \(drawn by 108 nodes\), 5 material tables, 2 cameras, 0 lights, 0 instances, 1 skin$"' \
    "stdout_has \"^  entity 'walker' at 0 0 0 places models/walker/scene$\"" \
    "stdout_has \"^  entity 'box2' at -4 0 0; components \\{\\\"tag\\\":\\\"second\\\"\\}$\"" \
    "stdout_has \"^  entity 'node_0' \\(parent 'box1'\\) at 0 0 0$\""

# The scene's tables read straight from the container (container.md,
# kscene.md), checked against the level and the glTF files.
run_in "$T" pose out/levels/merged.kscene --json
cp "$SCRATCH/stdout" "$SCRATCH/merged_pose.json"
run_in "$T" pose out/levels/placed.kscene --json
cp "$SCRATCH/stdout" "$SCRATCH/placed_pose.json"
check "the merged scene: entity nodes + every placed model's nodes, world = entity · model" \
    python3 - "$T/out/levels/merged.kscene" "$SCRATCH/merged_pose.json" "$IN" <<'EOF'
import json, math, struct, sys
path, pose_path, root = sys.argv[1:4]

def fnv(text):
    h = 0xcbf29ce484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h

def chunks(data):
    assert data[:4] == b"KILN" and data[4:8] == b"SCEN"
    count = struct.unpack_from("<I", data, 16)[0]
    out = {}
    for c in range(count):
        fourcc, flags, offset, size = struct.unpack_from("<4sIQQ", data, 48 + 32 * c)
        assert flags == 0
        out[fourcc.decode()] = data[offset:offset + size]
    return out

def quat(x, y, z, w):
    return [[1-2*(y*y+z*z), 2*(x*y-z*w), 2*(x*z+y*w)],
            [2*(x*y+z*w), 1-2*(x*x+z*z), 2*(y*z-x*w)],
            [2*(x*z-y*w), 2*(y*z+x*w), 1-2*(x*x+y*y)]]

def trs(t, q, s):
    n = math.sqrt(sum(v * v for v in q))
    r = quat(*[v / n for v in q])
    return [[r[i][j] * s[j] for j in range(3)] + [t[i]] for i in range(3)] + [[0, 0, 0, 1]]

def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]

def gltf(name):
    data = open(root + "/models/" + name, "rb").read()
    if data[:4] == b"glTF":
        length = struct.unpack_from("<I", data, 12)[0]
        return json.loads(data[20:20 + length])
    return json.loads(data)

def local(node):
    if "matrix" in node:
        m = node["matrix"]
        return [[m[j * 4 + i] for j in range(4)] for i in range(4)]
    return trs(node.get("translation", [0, 0, 0]), node.get("rotation", [0, 0, 0, 1]),
               node.get("scale", [1, 1, 1]))

def model_worlds(doc):
    nodes = doc["nodes"]
    parent = {}
    for i, n in enumerate(nodes):
        for c in n.get("children", []):
            parent[c] = i
    def world(i):
        return mul(world(parent[i]), local(nodes[i])) if i in parent else local(nodes[i])
    return [world(i) for i in range(len(nodes))]

# The level, as written above.
q = 0.7071068 / math.sqrt(2 * 0.7071068 ** 2)
yard = trs([10, 0, 0], [0, 0, q, q], [1, 1, 1])
entities = {
    "yard": (yard, None),
    "box1": (mul(yard, trs([1, 2, 3], [0, 0.6, 0, 0.8], [2, 2, 2])), "box.glb"),
    "box2": (trs([-4, 0, 0], [0, 0, 0, 1], [1, 1, 1]), "box.glb"),
    "meshes": (trs([0, 0, -6], [0, 0, 0, 1], [1, 1, 1]), "SimpleMeshes.gltf"),
    "cams": (trs([0, 0, 0], [0, 0, 0, 1], [1, 1, 1]), "Cameras.gltf"),
    "skinned": (trs([0, 5, 0], [0, 0, 0, 1], [1, 1, 1]), "skin.gltf"),
    "walker": (trs([0, 0, 0], [0, 0, 0, 1], [1, 1, 1]), None),  # linked: a clip
    "spheres": (trs([0, 0, -20], [0, 0, 0, 1], [0.5, 0.5, 0.5]), "spheres.glb"),
}
docs = {m: gltf(m) for m in {"box.glb", "SimpleMeshes.gltf", "Cameras.gltf", "skin.gltf",
                             "spheres.glb"}}

data = open(path, "rb").read()
c = chunks(data)
nodes = [struct.unpack_from("<iiiiiiIIIIII", c["SNOD"], 48 * i) for i in range(len(c["SNOD"]) // 48)]
hier = [struct.unpack_from("<iiIiII", c["SHIE"], 24 * i) for i in range(len(c["SHIE"]) // 24)]
links = [struct.unpack_from("<QIIIIII", c["SLNK"], 32 * i) for i in range(len(c["SLNK"]) // 32)]
strings = c["SSTR"]
name = lambda i: strings[nodes[i][6]:nodes[i][6] + nodes[i][7]].decode()
pose = json.load(open(pose_path))["nodes"]

want_count = len(entities) + sum(len(docs[m]["nodes"]) for _, m in entities.values() if m)
assert len(nodes) == want_count == len(pose), (len(nodes), want_count)

# Every inlined node: its entity is the nearest ancestor named like one
# (the models' own nodes are named node_<i>), its source the glTF index.
checked = 0
for i in range(len(nodes)):
    if name(i) in entities and nodes[i][5] == -1:
        world = entities[name(i)][0]
        got = pose[i]["world"]
        col = [world[r][k] for k in range(4) for r in range(4)]
        assert all(abs(a - b) < 1e-5 for a, b in zip(got, col)), (name(i), got, col)
        continue
    at = hier[i][0]
    while at >= 0 and not (name(at) in entities and nodes[at][5] == -1):
        at = hier[at][0]
    assert at >= 0, ("an inlined node below no entity", i)
    entity_world, model = entities[name(at)]
    source = nodes[i][5]
    want = mul(entity_world, model_worlds(docs[model])[source])
    col = [want[r][k] for k in range(4) for r in range(4)]
    got = pose[i]["world"]
    assert all(abs(a - b) < 1e-5 for a, b in zip(got, col)), (name(at), source, got, col)
    checked += 1
assert checked == want_count - len(entities), checked

# One mesh table: each inlined model's meshes once (box.glb placed twice),
# refs as the models' own scenes name them; one material table per model.
meshes = struct.unpack("<%dQ" % (len(c["SMSH"]) // 8), c["SMSH"])
spheres = ["models/spheres/mesh_%d" % i for i in range(len(docs["spheres.glb"]["meshes"]))]
want_meshes = [fnv(m) for m in ["models/box", "models/simplemeshes", "models/cameras",
                                "models/skin"] + spheres]
assert list(meshes) == want_meshes, meshes  # each model once, in order of first placement
# Each sphere node draws the mesh the glTF node names.
for i, n in enumerate(nodes):
    if n[0] >= 0 and meshes[n[0]] in [fnv(m) for m in spheres]:
        assert meshes[n[0]] == fnv(spheres[docs["spheres.glb"]["nodes"][n[5]]["mesh"]]), (i, n)
tables = struct.unpack("<%dQ" % (len(c["SMTL"]) // 8), c["SMTL"])
assert len(set(tables)) == len(tables) == 5, tables
model_of_mesh = {fnv(ref): ref for ref in ["models/box", "models/simplemeshes", "models/cameras",
                                           "models/skin"]}
model_of_mesh.update({fnv(ref): "models/spheres" for ref in spheres})
for i, n in enumerate(nodes):
    if n[0] >= 0:  # a mesh node names its own model's table
        assert tables[n[1]] == fnv(model_of_mesh[meshes[n[0]]] + "/materials"), (i, n)

# Links: the model with a clip keeps its link; the inlined ones have none.
for i, l in enumerate(links):
    want = fnv("models/walker/scene") if name(i) == "walker" else 0
    assert l[0] == want, (name(i), l)

# The cameras (Cameras.gltf has two) and the skin, its joints the nodes
# inlined below 'skinned' with the glTF's joint indices as their source.
cameras = [i for i, n in enumerate(nodes) if n[3] >= 0]
assert len(c["SCAM"]) == 2 * 48 and len(cameras) == 2, cameras
skin = docs["skin.gltf"]["skins"][0]
assert len(c["SSKN"]) == 32, len(c["SSKN"])
offset, count, skeleton = struct.unpack_from("<IIi", c["SSKN"], 0)
joints = [struct.unpack_from("<I", c["SJNT"], 80 * j)[0] for j in range(count)]
assert [nodes[j][5] for j in joints] == skin["joints"], joints
for j in joints:
    at = hier[j][0]
    while at >= 0 and name(at) != "skinned":
        at = hier[at][0]
    assert at >= 0, ("a joint outside the skinned placement", j)
skinned = [i for i, n in enumerate(nodes) if n[2] >= 0]
assert len(skinned) == 1 and nodes[skinned[0]][2] == 0, skinned
EOF

check "the linked form of the same entities: links, no meshes, 8 nodes" \
    python3 - "$SCRATCH/placed_pose.json" "$T/out/levels/placed.kscene" <<'EOF'
import json, struct, sys
pose = json.load(open(sys.argv[1]))["nodes"]
data = open(sys.argv[2], "rb").read()
count = struct.unpack_from("<I", data, 16)[0]
sizes = {}
for c in range(count):
    fourcc, flags, offset, size = struct.unpack_from("<4sIQQ", data, 48 + 32 * c)
    sizes[fourcc.decode()] = size
assert len(pose) == 8 and sizes["SMSH"] == 0 and sizes["SMTL"] == 0 and sizes["SLNK"] == 8 * 32
EOF

check "lights and instances come along: one light, each placement's instance range" \
    python3 - "$T/out/levels/lit.kscene" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
c = {}
for i in range(struct.unpack_from("<I", data, 16)[0]):
    fourcc, flags, offset, size = struct.unpack_from("<4sIQQ", data, 48 + 32 * i)
    c[fourcc.decode()] = data[offset:offset + size]
nodes = [struct.unpack_from("<iiiiiiIIIIII", c["SNOD"], 48 * i) for i in range(len(c["SNOD"]) // 48)]
assert len(nodes) == 2 + 2 * 2, len(nodes)
light_type, = struct.unpack_from("<I", c["SLGT"], 0)
assert len(c["SLGT"]) == 48 and light_type == 1, c["SLGT"]  # one point light, shared
assert sorted(n[4] for n in nodes) == [-1, -1, -1, -1, 0, 0], nodes
instances = [struct.unpack_from("<3f", c["SINS"], 40 * i) for i in range(len(c["SINS"]) // 40)]
ranges = [struct.unpack_from("<II", c["SINR"], 8 * i) for i in range(len(nodes))]
drawn = [r for i, r in enumerate(ranges) if nodes[i][0] >= 0]
assert [r[1] for r in drawn] == [3, 3], ranges
for first, count in drawn:
    assert instances[first:first + count] == [(1, 0, 0), (2, 0, 0), (3, 0, 0)], instances
EOF

run_in "$T" info out/levels/rule.kscene
check "a kiln.yml rule (level.merge: true) merges a level too" \
    all_true 'status_is 0' 'stdout_has " 139 nodes, depth 4, 106 meshes"'

# Deterministic: a second output folder holds the same bytes.
run_in "$T" -i in -o again
check "a merged level cooks to the same bytes twice" \
    cmp "$T/out/levels/merged.kscene" "$T/again/levels/merged.kscene"

# Incremental: a placed model's change, and a rule changing its scene.
run_in "$T" -i in -o out -v
check "an unchanged merged level is up to date" \
    all_true 'status_is 0' '! stdout_has "^cooked levels/merged.level"'
sed -i 's/"translation" : \[ *1\.0, *0\.0, *0\.0 *\]/"translation" : [ 2.0, 0.0, 0.0 ]/' \
    "$IN/models/SimpleMeshes.gltf"
check "(premise) the model's node moved" grep -q '"translation" : \[ 2.0' "$IN/models/SimpleMeshes.gltf"
run_in "$T" -i in -o out -v
check "editing a placed model cooks the merged level again" \
    all_true 'status_is 0' 'stdout_has "^cooked levels/merged.level -> levels/merged.kscene$"'
run_in "$T" pose out/levels/merged.kscene --json
check "the inlined node moved with it" \
    python3 -c 'import json,sys; n=[x for x in json.load(open(sys.argv[1]))["nodes"] if x["name"]=="node_1" and x["source"]==1 and x["world"][14]==-6]; assert n and n[0]["world"][12]==2, n' \
    "$SCRATCH/stdout"
cat >>"$T/kiln.yml" <<'EOF'
  - match: models/SimpleMeshes.gltf
    scene.scale: 0.5
EOF
run_in "$T" -i in -o out -v
check "a rule changing a placed model's scene cooks the merged level again" \
    all_true 'status_is 0' 'stdout_has "^cooked levels/merged.level -> levels/merged.kscene$"'
run_in "$T" pose out/levels/merged.kscene --json
check "the merged level uses the model's own settings (scene.scale 0.5)" \
    python3 -c 'import json,sys; n=[x for x in json.load(open(sys.argv[1]))["nodes"] if x["name"]=="node_1" and x["source"]==1 and x["world"][14]==-6]; assert n and n[0]["world"][12]==1 and n[0]["world"][0]==0.5, n' \
    "$SCRATCH/stdout"

# Bad cases, each in a tree of its own.
B="$SCRATCH/bad"
mkdir -p "$B/in/models" "$B/in/levels"
cp "$IN/models/box.glb" "$B/in/models/"
printf '{"asset": {"version": "2.0"}, "nodes": [{"mesh": 4}]}' >"$B/in/models/broken.gltf"
printf 'entities:\n  - name: a\n    asset: models/box.glb\n' >"$B/in/levels/inner.level"
printf 'merge: true\nentities:\n  - name: inner\n    asset: levels/inner.level\n' \
    >"$B/in/levels/places_level.level"
printf 'merge: maybe\nentities: []\n' >"$B/in/levels/bad_key.level"
printf 'merge: true\nentities:\n  - name: box\n    asset: models/box.glb\n  - name: broken\n    asset: models/broken.gltf\n' \
    >"$B/in/levels/half.level"
run_in "$B" -i in -o out
check "a merged level placing a level fails naming the line (levels are included)" \
    all_true 'status_is 1' \
    "stderr_has \"^in/levels/places_level.level:4: error: asset 'levels/inner.level' is not a model\""
check "merge: takes true or false" \
    stderr_has '^in/levels/bad_key.level:1: error: merge: expected true or false'
check "a placed model that cannot be imported keeps its link with a warning; the rest is merged" \
    all_true "stderr_has \"^in/levels/half.level:6: warning: merge: 'models/broken.gltf' cannot be imported \\(.*\\); linked instead$\"" \
    '[ -s "$B/out/levels/half.kscene" ]'
run_in "$B" info out/levels/half.kscene
check "... and its scene holds the box inlined and the broken model's link" \
    all_true 'status_is 0' 'stdout_has " 4 nodes, depth 3, 1 mesh \(drawn by 1 node\), 1 material table,"' \
    "stdout_has \"^  entity 'broken' at 0 0 0 places models/broken/scene$\""

# kiln-view draws the merged level as it draws the linked one.
VIEW=$(dirname "$KILN")/kiln-view
source "$HERE/../support/lavapipe.sh"
if [ ! -x "$VIEW" ]; then
    echo "test_level_merge: viewer comparison skipped: kiln-view was not built"
elif ! lavapipe_setup "$SCRATCH"; then
    echo "test_level_merge: viewer comparison skipped: $LAVAPIPE_MISSING"
else
    for level in placed merged; do
        set +e
        "$VIEW" "$T/out" "levels/$level/scene" --headless --render "$SCRATCH/$level.png" \
            --size 160x120 --validate >"$SCRATCH/view_$level.log" 2>&1
        echo $? >"$SCRATCH/view_$level.status"
        set -e
    done
    check "kiln-view renders the linked and the merged level" \
        all_true "[ \"\$(cat \"\$SCRATCH/view_placed.status\")\" -eq 0 ]" \
        "[ \"\$(cat \"\$SCRATCH/view_merged.status\")\" -eq 0 ]"
    check "the two renders are the same picture, and not an empty one" \
        all_true "! python3 \"\$HERE/viewer_scenes.py\" differ \"\$SCRATCH/placed.png\" \"\$SCRATCH/merged.png\" 0.001" \
        "python3 -c 'import sys; assert float(sys.argv[1]) > 0.01' \$(python3 \"\$HERE/viewer_scenes.py\" coverage \"\$SCRATCH/merged.png\")"
fi

finish level_merge
