#!/usr/bin/env bash
# test_scene_cli.sh — scenes end to end: models of the shared corpus cooked into
# .kscene files, `kiln pose --json` compared with an independent evaluation of
# the glTF JSON (Python, recursive, to 1e-5), `kiln info` and `kiln check` on
# scenes, mesh.merge, an OBJ's one node, packs.
#
# Environment (set by ctest): KILN, KILN_TMP, KILN_CORPUS. Helpers: harness.sh.
set -euo pipefail

source "$(dirname "$0")/harness.sh" scene
CORPUS="${KILN_CORPUS:-}"

run() { run_in "$SCRATCH" "$@"; } # every path below is absolute

if [ -z "$CORPUS" ] || [ ! -f "$CORPUS/index.tsv" ]; then
    echo "scene: skipped: shared corpus not found at '${CORPUS}'"
    exit 0
fi

# ---------------------------------------------------------------------------
# A tree of corpus models (glTF, GLB with its own buffers, a skinned one, an
# OBJ) and one hand-written glTF with scenes, extras and a matrix node.
# ---------------------------------------------------------------------------

IN="$SCRATCH/in"
OUT="$SCRATCH/out"
mkdir -p "$IN"
MODELS=(
    gltf/CesiumMilkTruck/glTF/CesiumMilkTruck.gltf
    gltf/Fox/glTF-Binary/Fox.glb
    gltf/RiggedSimple/glTF-Binary/RiggedSimple.glb
    gltf/SimpleMeshes/glTF/SimpleMeshes.gltf
    gltf/Cameras/glTF/Cameras.gltf
    gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb
)
for model in "${MODELS[@]}"; do
    mkdir -p "$IN/$(dirname "$model")"
    cp -r "$CORPUS/$(dirname "$model")/." "$IN/$(dirname "$model")/"
done

cat >"$IN/hand.gltf" <<'EOF'
{"asset": {"version": "2.0"},
 "scene": 1,
 "scenes": [{"name": "empty"}, {"name": "main", "nodes": [2, 0]}],
 "nodes": [
   {"name": "base", "translation": [1, 2, 3], "children": [1], "extras": {"tag": "gate", "hp": 3}},
   {"name": "arm", "rotation": [0, 0.7071068, 0, 0.7071068], "scale": [2, 2, 2], "mesh": 0},
   {"name": "mirror", "matrix": [-1,0,0,0, 0,1,0,0, 0,0,1,0, 5,0,0,1], "mesh": 0}
 ],
 "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
 "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                "min": [0, 0, 0], "max": [1, 1, 0]}],
 "bufferViews": [{"buffer": 0, "byteLength": 36}],
 "buffers": [{"byteLength": 36,
   "uri": "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}]}
EOF

mkdir -p "$IN/obj"
cat >"$IN/obj/tri.obj" <<'EOF'
o wedge
v 0 0 0
v 1 0 0
v 0 1 0
f 1 2 3
EOF

# A texture whose name would be the scene's leaf is renamed (scene_2).
cat >"$IN/obj/tri.mtl" <<'EOF'
newmtl painted
map_Kd scene.png
EOF
sed -i '1i mtllib tri.mtl\nusemtl painted' "$IN/obj/tri.obj"
python3 - "$IN/obj/scene.png" <<'EOF'
import sys
from png_tool import write_png
write_png(sys.argv[1], 4, 4, bytes((200, 10, 10, 255)) * 16)
EOF

run build -i "$IN" -o "$OUT" -j2
check "the tree cooks" status_is 0
check "a texture named 'scene' does not take the scene's ref: obj/tri/scene_2.ktx2" \
    all_true '[ -s "$OUT/obj/tri/scene_2.ktx2" ]' '[ ! -e "$OUT/obj/tri/scene.ktx2" ]'

every_scene=1
for model in "${MODELS[@]}" hand.gltf; do
    [ -s "$OUT/${model%.*}.kscene" ] || every_scene=0
done
check "every model has <stem>.kscene beside its meshes" all_true '[ "$every_scene" -eq 1 ]' \
    '[ -s "$OUT/obj/tri.kscene" ]'

# ---------------------------------------------------------------------------
# kiln pose --json against the glTF JSON
# ---------------------------------------------------------------------------

compare_pose() { # compare_pose SOURCE.gltf|glb POSE.json
    python3 - "$1" "$2" <<'EOF'
import json, math, struct, sys

import base64, os

def load(path):
    data = open(path, "rb").read()
    if data[:4] == b"glTF":
        length, = struct.unpack_from("<I", data, 12)
        doc = json.loads(data[20:20 + length])
        at = 20 + ((length + 3) & ~3)
        doc["_bin"] = data[at + 8:at + 8 + struct.unpack_from("<I", data, at)[0]] if at + 8 <= len(data) else b""
        return doc
    return json.loads(data)

def buffer(doc, i):
    uri = doc["buffers"][i].get("uri")
    if uri is None:
        return doc["_bin"]
    if uri.startswith("data:"):
        return base64.b64decode(uri.split(",", 1)[1])
    return open(os.path.join(os.path.dirname(sys.argv[1]), uri), "rb").read()

def matrices(doc, index):  # a MAT4 FLOAT accessor, tightly packed
    a = doc["accessors"][index]
    v = doc["bufferViews"][a["bufferView"]]
    data = buffer(doc, v["buffer"])
    at = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    return [list(struct.unpack_from("<16f", data, at + 64 * k)) for k in range(a["count"])]

def mul(a, b):  # column-major 4x4
    return [sum(a[k * 4 + r] * b[c * 4 + k] for k in range(4)) for c in range(4) for r in range(4)]

def local(node):
    if "matrix" in node:
        return [float(v) for v in node["matrix"]]
    t = node.get("translation", [0, 0, 0])
    x, y, z, w = node.get("rotation", [0, 0, 0, 1])
    n = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / n, y / n, z / n, w / n
    s = node.get("scale", [1, 1, 1])
    r = [1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
         2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
         2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)]
    m = [0.0] * 16
    for c in range(3):
        for row in range(3):
            m[c * 4 + row] = r[c * 3 + row] * s[c]
    m[12:15] = t
    m[15] = 1.0
    return m

doc = load(sys.argv[1])
pose = json.load(open(sys.argv[2]))
assert {"nodes", "skins"} <= set(pose), sorted(pose)
nodes = doc.get("nodes", [])
world = {}
def walk(i, parent):
    world[i] = mul(parent, local(nodes[i]))
    for c in nodes[i].get("children", []):
        walk(c, world[i])
children = {c for n in nodes for c in n.get("children", [])}
identity = [1.0 if r == c else 0.0 for c in range(4) for r in range(4)]
for i in range(len(nodes)):
    if i not in children:
        walk(i, identity)
assert len(pose["nodes"]) == len(nodes), (len(pose["nodes"]), len(nodes))
seen = set()
for entry in pose["nodes"]:
    assert {"name", "source", "world"} <= set(entry), sorted(entry)
    assert set(entry) <= {"name", "source", "world", "camera", "light", "instances", "weights"}, sorted(entry)
    i = entry["source"]
    # cameras: the node's index, and the camera's values from the glTF JSON
    assert entry.get("camera", -1) == nodes[i].get("camera", -1), (i, entry.get("camera"))
    if "camera" in entry:
        want = doc["cameras"][nodes[i]["camera"]]
        got = pose["cameras"][entry["camera"]]
        params = want[want["type"]]
        assert got["type"] == want["type"], (got, want)
        keys = {"perspective": [("yfov", "yfov", None), ("aspect", "aspectRatio", 0),
                                ("znear", "znear", None), ("zfar", "zfar", 0)],
                "orthographic": [("xmag", "xmag", None), ("ymag", "ymag", None),
                                 ("znear", "znear", None), ("zfar", "zfar", None)]}[want["type"]]
        for mine, theirs, default in keys:
            value = params.get(theirs, default)
            assert abs(got[mine] - value) <= 1e-6 * max(1.0, abs(value)), (mine, got, params)
    seen.add(i)
    assert len(entry["world"]) == 16
    if "name" in nodes[i]:
        assert entry["name"] == nodes[i]["name"], (entry["name"], nodes[i]["name"])
    for k in range(16):
        want, got = world[i][k], entry["world"][k]
        assert abs(got - want) <= 1e-5 * max(1.0, abs(want)), (sys.argv[1], i, k, got, want)
assert seen == set(range(len(nodes)))
# Skins: every one in order, joints as source nodes, world(joint) * inverse bind.
skins = doc.get("skins", [])
assert len(pose["skins"]) == len(skins), (len(pose["skins"]), len(skins))
identity16 = [1.0 if r == c else 0.0 for c in range(4) for r in range(4)]
for s, (entry, skin) in enumerate(zip(pose["skins"], skins)):
    assert set(entry) == {"source", "joints", "matrices"}, sorted(entry)
    assert entry["source"] == s and entry["joints"] == skin["joints"], (entry["source"], s)
    ibm = matrices(doc, skin["inverseBindMatrices"]) if "inverseBindMatrices" in skin else None
    assert len(entry["matrices"]) == len(skin["joints"])
    for j, joint in enumerate(skin["joints"]):
        want = mul(world[joint], ibm[j] if ibm else identity16)
        got = entry["matrices"][j]
        # single-precision products: relative to the factors (they cancel at the bind pose)
        scale = max([1.0] + [abs(x) for x in world[joint]]) * max([1.0] + [abs(x) for x in (ibm[j] if ibm else identity16)])
        for k in range(16):
            assert abs(got[k] - want[k]) <= 1e-5 * scale, (sys.argv[1], s, j, k, got[k], want[k])
EOF
}

pose_ok=1
for model in "${MODELS[@]}" hand.gltf; do
    run pose "$OUT/${model%.*}.kscene" --json
    cp "$SCRATCH/stdout" "$SCRATCH/pose.json"
    if ! status_is 0 || ! compare_pose "$IN/$model" "$SCRATCH/pose.json"; then
        echo "  pose differs: $model"
        pose_ok=0
    fi
done
check "kiln pose --json equals the glTF's own recursive evaluation (1e-5) for every model, skins too" \
    all_true '[ "$pose_ok" -eq 1 ]'

run pose "$OUT/hand.kscene"
check "kiln pose prints each node with its matrix as rows" \
    all_true 'status_is 0' 'stdout_has "3 nodes, 2 levels, rest pose"' \
    "stdout_has \"^node 0 'base' \\(source 0, depth 0\\)\"" \
    'stdout_has "^  \| +1 +0 +0 +1 \|$"'

run pose "$OUT/obj/tri.kscene" --json
check "an OBJ is one node named after its mesh, made by the cooker (source -1), at the origin" \
    all_true 'status_is 0' \
    'stdout_has "\"name\":\"wedge\",\"source\":-1,\"world\":\[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1\]"'

# kiln pose --clip: every node's world matrix in an animated pose against an
# independent evaluation of the glTF (LINEAR keys, slerp on the shortest arc).
compare_clip_pose() { # compare_clip_pose SOURCE.glb CLIP TIME POSE.json
    python3 - "$@" <<'EOF'
import json, math, struct, sys

path, clip_name, time = sys.argv[1], sys.argv[2], float(sys.argv[3])
data = open(path, "rb").read()
length, = struct.unpack_from("<I", data, 12)
doc = json.loads(data[20:20 + length])
binary = data[20 + length + 8:]

def accessor(i):
    a = doc["accessors"][i]
    v = doc["bufferViews"][a["bufferView"]]
    n = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[a["type"]]
    assert a["componentType"] == 5126
    base = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    flat = struct.unpack_from("<%df" % (a["count"] * n), binary, base)
    return [list(flat[k * n:(k + 1) * n]) for k in range(a["count"])]

def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]

def sample(sampler, path):
    assert sampler.get("interpolation", "LINEAR") == "LINEAR"
    times = [t[0] for t in accessor(sampler["input"])]
    values = accessor(sampler["output"])
    t = f32(time)
    if t <= times[0]:
        return values[0]
    if t >= times[-1]:
        return values[-1]
    k = max(i for i in range(len(times)) if times[i] <= t)
    u = (t - times[k]) / (times[k + 1] - times[k])
    a, b = values[k], values[k + 1]
    if path != "rotation":
        return [x + u * (y - x) for x, y in zip(a, b)]
    dot = sum(x * y for x, y in zip(a, b))
    if dot < 0:
        b, dot = [-y for y in b], -dot
    if dot > 1 - 1e-9:
        wa, wb = 1 - u, u
    else:
        th = math.acos(dot)
        wa, wb = math.sin((1 - u) * th) / math.sin(th), math.sin(u * th) / math.sin(th)
    return [wa * x + wb * y for x, y in zip(a, b)]

nodes = [dict(n) for n in doc["nodes"]]
anim = next(a for a in doc["animations"] if a.get("name") == clip_name)
for channel in anim["channels"]:
    target = channel["target"]
    nodes[target["node"]][target["path"]] = sample(anim["samplers"][channel["sampler"]],
                                                   target["path"])

def mul(a, b):
    return [sum(a[k * 4 + r] * b[c * 4 + k] for k in range(4)) for c in range(4) for r in range(4)]

def local(node):
    t = node.get("translation", [0, 0, 0])
    x, y, z, w = node.get("rotation", [0, 0, 0, 1])
    n = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / n, y / n, z / n, w / n
    s = node.get("scale", [1, 1, 1])
    r = [1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
         2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
         2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)]
    m = [0.0] * 16
    for c in range(3):
        for row in range(3):
            m[c * 4 + row] = r[c * 3 + row] * s[c]
    m[12:15] = t
    m[15] = 1.0
    return m

world = {}
def walk(i, parent):
    world[i] = mul(parent, local(nodes[i]))
    for c in nodes[i].get("children", []):
        walk(c, world[i])
children = {c for n in nodes for c in n.get("children", [])}
identity = [1.0 if r == c else 0.0 for c in range(4) for r in range(4)]
for i in range(len(nodes)):
    if i not in children:
        walk(i, identity)
pose = json.load(open(sys.argv[4]))
assert len(pose["nodes"]) == len(nodes)
for entry in pose["nodes"]:
    i = entry["source"]
    for k in range(16):
        want, got = world[i][k], entry["world"][k]
        assert abs(got - want) <= 1e-4 * max(1.0, abs(want)), (i, k, got, want)
EOF
}

FOX="$OUT/gltf/Fox/glTF-Binary/Fox"
clip_ok=1
for probe in "Walk 0" "Walk 0.3" "Run 0.5123" "Survey 3.3" "Survey 9"; do
    read -r clip_name clip_time <<<"$probe"
    run pose "$FOX.kscene" --clip "$clip_name" --time "$clip_time" --json
    cp "$SCRATCH/stdout" "$SCRATCH/clip.json"
    if ! status_is 0 || ! compare_clip_pose "$IN/gltf/Fox/glTF-Binary/Fox.glb" "$clip_name" \
        "$clip_time" "$SCRATCH/clip.json"; then
        echo "  clip pose differs: $probe"
        clip_ok=0
    fi
done
check "kiln pose --clip equals the glTF's own evaluation of the Fox's clips (.kanim beside)" \
    all_true '[ "$clip_ok" -eq 1 ]' '[ -s "$FOX.kanim" ]'

# kiln info FILE: one cooked file, wherever it is, as text and JSON.
run info "$FOX.kanim"
check "info FILE.kanim describes that animation alone" \
    all_true 'status_is 0' 'stdout_has "Fox\.kanim$"' "stdout_has \"Walk\""
run info --json "$FOX.kanim"
check "info --json FILE.kanim is one JSON object of it" \
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["kind"] == "anim" and d["clip_count"] == 3, d' "$SCRATCH/stdout"
run info --json "$FOX.kscene"
check "info --json FILE.kscene gives its skeleton" \
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["kind"] == "scene" and d["skeletons"][0]["joint_count"] == 24, d' "$SCRATCH/stdout"
run info --json "$OUT/obj/tri/scene_2.ktx2"
check "info --json FILE.ktx2 gives its size and format" \
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["kind"] == "texture" and d["width"] > 0 and d["format"], d' "$SCRATCH/stdout"

run pose "$FOX.kscene" --anim "$FOX.kanim" --clip 1 --time 0.25
check "pose --clip takes an index and prints the clip and time" \
    all_true 'status_is 0' "stdout_has \"clip 'Walk' at 0.25 s\""
run pose "$FOX.kscene" --clip Jump
check "an unknown clip is refused, listing the clips" \
    all_true 'status_is 1' "stderr_has \"no clip 'Jump' \\(3 clips: 'Survey', 'Walk', 'Run'\\)\""
run pose "$OUT/hand.kscene" --clip 0
check "a clip without a .kanim is refused, saying which file is missing" \
    all_true 'status_is 1' 'stderr_has "hand.kanim does not exist"'
run pose "$FOX.kscene" --anim "$OUT/hand.kscene" --clip 0
check "--anim on a scene says it is not an animation file" \
    all_true 'status_is 1' 'stderr_has "not an animation file"'
run pose "$FOX.kscene" --clip 0 --time soon
check "a bad --time is a usage error" status_is 2
run pose
check "pose without a file is a usage error" status_is 2
run pose "$OUT/hand.kmesh"
check "pose on a mesh says it is not a scene" all_true 'status_is 1' 'stderr_has "not a scene"'
run pose --help
check "pose --help names the JSON shape and the animation options" \
    all_true 'status_is 0' 'stdout_has "skins"' 'stdout_has "--anim"' 'stdout_has "weights"'

# ---------------------------------------------------------------------------
# info and check
# ---------------------------------------------------------------------------

run info -o "$OUT"
check "info lists each scene: nodes, depth, meshes, cameras, lights, skins, its scenes and skeletons" \
    all_true 'status_is 0' 'stdout_has "^hand\.kscene$"' \
    "stdout_has \"^  scene 0 'scene_0' \\(default\\): 1 root, 5 nodes, depth 4, 1 drawing a mesh, 0 cameras, 0 lights, 0 instances, 1 skinned$\"" \
    'stdout_has "^  scene: [0-9]+ bytes, 3 nodes, depth 2, 1 mesh \(drawn by 2 nodes\), 1 material table, 0 cameras, 0 lights, 0 instances, 0 skins$"' \
    "stdout_has \"^  scene 1 'main' \\(default\\): 2 roots, 3 nodes, depth 2, 2 drawing a mesh\"" \
    "stdout_has \"^  scene 0 'empty': 0 roots, 0 nodes\"" \
    'stdout_has "kinds: .*scene 8"' \
    "stdout_has \"^  scene 0 'scene_0' \\(default\\): 3 roots, 3 nodes, depth 1, 1 drawing a mesh, 2 cameras, 0 lights, 0 instances, 0 skinned$\"" \
    "stdout_has \"^  skeleton 0 'Armature' \\(source 0\\): 2 joints: Bone \\(root\\), Bone\\.001$\""
run pose "$OUT/gltf/Cameras/glTF/Cameras.kscene"
check "kiln pose names each node's camera with its values" \
    all_true 'status_is 0' "stdout_has \"^  camera 0 'camera_0': perspective, yfov 0.7, aspect 1, znear 0.01, zfar 100$\"" \
    "stdout_has \"^  camera 1 'camera_1': orthographic, xmag 1, ymag 1, znear 0.01, zfar 100$\""
run info -o "$OUT" --json
cp "$SCRATCH/stdout" "$SCRATCH/info.json"
info_json_ok() {
    python3 - "$SCRATCH/info.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
files = {f["path"]: f for f in doc["files"]}
hand = files["hand.kscene"]
assert hand["kind"] == "scene" and hand["nodes"] == 3 and hand["depth"] == 2, hand
assert hand["meshes"] == 1 and hand["mesh_nodes"] == 2 and hand["cameras"] == 0, hand
assert [s["name"] for s in hand["scenes"]] == ["empty", "main"]
assert hand["scenes"][1]["default"] and hand["scenes"][1]["nodes"] == 3
assert files["assets.kman"]["refs_per_kind"]["scene"] == 8
assert hand["skeletons"] == []
rigged = files["gltf/RiggedSimple/glTF-Binary/RiggedSimple.kscene"]
assert rigged["skeletons"] == [{"name": "Armature", "source": 0, "joint_count": 2,
                                "root_joint": 0, "joints": ["Bone", "Bone.001"]}], rigged
fox = files["gltf/Fox/glTF-Binary/Fox.kscene"]["skeletons"][0]
assert fox["joint_count"] == 24 and len(fox["joints"]) == 24, fox
fox = files["gltf/Fox/glTF-Binary/Fox.kanim"]
assert fox["kind"] == "anim" and fox["clip_count"] == 3 and fox["channels"] == 63, fox
assert [c["name"] for c in fox["clips"]] == ["Survey", "Walk", "Run"], fox
assert fox["clips"][1]["interpolations"] == "linear" and fox["clips"][1]["channels"] == 21
interp = files["gltf/InterpolationTest/glTF-Binary/InterpolationTest.kanim"]
assert {c["interpolations"] for c in interp["clips"]} == {"linear", "step", "cubicspline"}
EOF
}
check "info --json has the same scene facts, and each clip's" all_true 'status_is 0' info_json_ok
run info -o "$OUT"
check "info lists each clip: channels, keys, duration, interpolation kinds, bytes" \
    all_true 'status_is 0' \
    "stdout_has \"^  clip 1 'Walk': 21 channels, 378 keys, 0 \\.\\. 0\\.708333 s, linear, [0-9]+ bytes$\"" \
    "stdout_has \"^  clip 2 'CubicSpline Scale': 1 channel, 5 keys, .*cubicspline\""

run check -o "$OUT"
check "check passes a tree with scenes" all_true 'status_is 0' 'stdout_has ", 0 problems"'

BROKEN="$SCRATCH/broken"
cp -r "$OUT" "$BROKEN"
rm "$BROKEN/hand.kmesh"
printf 'X' | dd of="$BROKEN/obj/tri.kscene" bs=1 seek=200 conv=notrunc status=none
run check -o "$BROKEN"
check "check reports a scene's missing mesh and a damaged scene" \
    all_true 'status_is 1' "stderr_has \"hand\\.kscene: error: mesh ref 0 'hand' \\(hand\\.kmesh\\) does not exist\"" \
    'stderr_has "tri\.kscene: error: checksum mismatch"'
rm "$BROKEN/gltf/CesiumMilkTruck/glTF/CesiumMilkTruck.kscene"
printf 'X' | dd of="$BROKEN/gltf/Fox/glTF-Binary/Fox.kanim" bs=1 seek=300 conv=notrunc status=none
run check -o "$BROKEN"
check "check reports clips whose scene is missing and a damaged .kanim" \
    all_true 'status_is 1' 'stderr_has "CesiumMilkTruck\.kanim: error: scene ref .* does not exist"' \
    'stderr_has "Fox\.kanim: error: checksum mismatch"'
SKINNED="$SCRATCH/skinned"
cp -r "$OUT" "$SKINNED"
cp "$SKINNED/gltf/Fox/glTF-Binary/Fox.kmesh" "$SKINNED/gltf/RiggedSimple/glTF-Binary/RiggedSimple.kmesh"
run check -o "$SKINNED"
check "check reports a skinned mesh naming joints its skin lacks (the Fox's mesh, 24 joints, under a 2-joint skin)" \
    all_true 'status_is 1' \
    'stderr_has "RiggedSimple\.kscene: error: node [0-9]+: vertex [0-9]+ of gltf/RiggedSimple/glTF-Binary/RiggedSimple\.kmesh names joint 23, but skin 0 has 2 joints"'

# ---------------------------------------------------------------------------
# anim.reduce and anim.quantize: smaller clips, each clip's error in kiln info
# ---------------------------------------------------------------------------

SMALL="$SCRATCH/small"
mkdir -p "$SMALL"
cp "$CORPUS/gltf/Fox/glTF-Binary/Fox.glb" "$SMALL/"
printf 'default:\n  anim:\n    reduce: {translation: 0.001, rotation: 0.002}\n    quantize: true\n' \
    >"$SCRATCH/small.yml"
run build -i "$SMALL" -o "$SCRATCH/small-out" --config "$SCRATCH/small.yml"
check "anim.reduce and anim.quantize cook a smaller .kanim" \
    all_true 'status_is 0' \
    '[ "$(stat -c %s "$SCRATCH/small-out/Fox.kanim")" -lt "$(stat -c %s "$FOX.kanim")" ]'
run info -o "$SCRATCH/small-out"
check "info prints each clip's quantized channels and worst error" \
    all_true 'status_is 0' \
    "stdout_has \"^    21 quantized channels; worst error: translation [0-9.e-]+, rotation 0\\.00[0-9.e-]+ rad\""
printf 'default:\n  anim.reduce: {translation: -1}\n' >"$SCRATCH/bad-reduce.yml"
run build -i "$SMALL" -o "$SCRATCH/bad-out" --config "$SCRATCH/bad-reduce.yml"
check "a negative tolerance is an error naming the key and line" \
    all_true 'status_is 1' 'stderr_has "bad-reduce\.yml:2: .*anim\.reduce\.translation"'
printf 'default:\n  anim.reduce: {angle: 1}\n' >"$SCRATCH/bad-reduce.yml"
run build -i "$SMALL" -o "$SCRATCH/bad-out" --config "$SCRATCH/bad-reduce.yml"
check "an unknown tolerance name is an error" \
    all_true 'status_is 1' "stderr_has \"unknown tolerance 'angle'\""

# ---------------------------------------------------------------------------
# mesh.merge keeps the nodes and adds one root for the merged mesh
# ---------------------------------------------------------------------------

MERGE="$SCRATCH/merge"
mkdir -p "$MERGE"
cp "$IN/hand.gltf" "$MERGE/"
printf 'default:\n  mesh.merge: true\n' >"$SCRATCH/merge.yml"
run build -i "$MERGE" -o "$SCRATCH/merge-out" --config "$SCRATCH/merge.yml"
check "mesh.merge still writes the scene" all_true 'status_is 0' '[ -s "$SCRATCH/merge-out/hand.kscene" ]'
run pose "$SCRATCH/merge-out/hand.kscene" --json
check "merged: the source nodes draw nothing and a root 'merged' (source -1, identity) is added" \
    all_true 'status_is 0' \
    'stdout_has "\"name\":\"merged\",\"source\":-1,\"world\":\[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1\]"' \
    'stdout_has "\"name\":\"base\",\"source\":0"'
run info -o "$SCRATCH/merge-out"
check "merged: one mesh drawn by one node, in both scenes" \
    all_true 'status_is 0' 'stdout_has "4 nodes, depth 2, 1 mesh \(drawn by 1 node\)"' \
    "stdout_has \"scene 0 'empty': 1 root, 1 node\""

# ---------------------------------------------------------------------------
# morph targets: kiln info names them, kiln pose prints the default weights
# from the runtime even when the model has no clips (mesh.merge: test_morph)
# ---------------------------------------------------------------------------

MORPH="$SCRATCH/morph"
mkdir -p "$MORPH/still"
cp -r "$CORPUS/gltf/SimpleMorph/glTF/." "$MORPH/still/"
python3 - "$MORPH/still/SimpleMorph.gltf" <<'EOF'
import json, sys
g = json.load(open(sys.argv[1]))
del g["animations"]                       # no clips: the weights must still reach the runtime
g["meshes"][0]["extras"] = {"targetNames": ["up", "across"]}
json.dump(g, open(sys.argv[1], "w"))
EOF
run build -i "$MORPH" -o "$SCRATCH/morph-out"
check "a morph model without clips cooks a .kanim of its default weights" \
    all_true 'status_is 0' '[ -s "$SCRATCH/morph-out/still/SimpleMorph.kanim" ]'
run pose "$SCRATCH/morph-out/still/SimpleMorph.kscene" --json
check "kiln pose prints the default morph weights (mesh.weights 0.5 0.5)" \
    all_true 'status_is 0' 'stdout_has "\"weights\":\[0.5,0.5\]"'
run info -o "$SCRATCH/morph-out"
check "kiln info shows the morph targets and their names" \
    all_true 'status_is 0' 'stdout_has "morph targets: 2 \(deltas f32x3: position, 72 bytes\): up, across"'
run check -o "$SCRATCH/morph-out"
check "kiln check accepts the morph streams" all_true 'status_is 0'

# ---------------------------------------------------------------------------
# packs know scenes
# ---------------------------------------------------------------------------

run build -i "$IN" -o "$OUT" --pack
run pack info "$OUT.kpak"
check "a pack lists the scenes as their own kind" \
    all_true 'status_is 0' 'stdout_has "^  scene +8 files"' 'stdout_has "version 3"'

finish scene
