#!/usr/bin/env python3
"""test_viewer.sh's scenes and checks, independent of kiln and kiln-view.

  viewer_scenes.py make DIR         writes the glTF scenes, images and kiln.yml into DIR
  viewer_scenes.py check DIR NAME PNG W H
                                    checks kiln-view's render of scene NAME
  viewer_scenes.py coverage PNG     prints the share of pixels drawn (alpha > 0)
  viewer_scenes.py lod KMESH W H FORCED
                                    prints the level of detail kiln-view should draw
                                    the sphere with (FORCED -1: chosen by screen size)
  viewer_scenes.py bounds KMESH PNG W H
                                    checks --meshlet-bounds: each meshlet's projected
                                    bounding sphere outlined in yellow
  viewer_scenes.py texture NAME PNG W H LAYER YAW PITCH
                                    checks kiln-view's render of texture NAME (hdr_*,
                                    layers, lut, sky) at --layer LAYER, --orbit YAW,PITCH
  viewer_scenes.py differ A.png B.png SHARE
                                    exit 0 when the silhouettes differ on more than SHARE

Expected pixels come from the camera docs/viewer.md documents (looking down -Z
at the centre of the world bounding box, 45-degree vertical field of view,
at the distance where the bounding sphere fits), computed here in Python.
"""
import base64
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from png_tool import read_png, write_png  # noqa: E402 (after its folder joins the path)

# ---- PNG: tests/support/png_tool.py's, by rows ---------------------------------


def png_write(path, width, height, rgba_rows):
    write_png(path, width, height, b"".join(bytes(row) for row in rgba_rows))


def hdr_write(path, width, height, rgb_rows):
    """A Radiance .hdr of flat (not run-length) RGBE pixels; every value must
    be exact in RGBE (value = mantissa * 2^(exponent - 136), kiln's reading)."""
    out = bytearray(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n" % (height, width))
    for row in rgb_rows:
        for rgb in row:
            top = max(rgb)
            if top == 0:
                out += bytes(4)
                continue
            exponent = math.frexp(top)[1] + 128
            mantissas = [v / 2.0 ** (exponent - 136) for v in rgb]
            assert all(m == int(m) and m < 256 for m in mantissas), "not exact in RGBE: %r" % (rgb,)
            out += bytes([int(m) for m in mantissas] + [exponent])
    with open(path, "wb") as f:
        f.write(bytes(out))


def png_read(path):
    width, height, rgba = read_png(path)
    stride = 4 * width
    return width, height, [bytearray(rgba[y * stride:(y + 1) * stride]) for y in range(height)]


# ---- the scenes ---------------------------------------------------------------

# Quadrant colours (top-left, top-right, bottom-left, bottom-right) of the 8x8
# test images: flat 4x4 blocks, so block compression of 0/255 values is exact.
EXACT = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]
GREYS = [(255, 0, 0), (0, 255, 0), (128, 64, 200), (32, 160, 96)]


def quadrant_image(colors, alpha=None):
    rows = []
    for y in range(8):
        row = []
        for x in range(8):
            q = (2 if y >= 4 else 0) + (1 if x >= 4 else 0)
            a = 255 if alpha is None else alpha(x, y)
            row += list(colors[q]) + [a]
        rows.append(row)
    return rows


def quad_buffer(half, z=0.0):
    """A quad facing +Z: positions, normals, uvs (glTF: uv 0,0 at the image's top left)."""
    pos = [(-half, -half, z), (half, -half, z), (half, half, z), (-half, half, z)]
    uv = [(0, 1), (1, 1), (1, 0), (0, 0)]
    data = b"".join(struct.pack("<3f", *p) for p in pos)
    data += b"".join(struct.pack("<3f", 0, 0, 1) for _ in pos)
    data += b"".join(struct.pack("<2f", *t) for t in uv)
    data += struct.pack("<6H", 0, 1, 2, 0, 2, 3)
    return data, [min(p[i] for p in pos) for i in range(3)], [max(p[i] for p in pos) for i in range(3)]


def add_quad_mesh(doc, blob, half, material, z=0.0):
    data, lo, hi = quad_buffer(half, z)
    base = len(blob)
    blob += data
    views = len(doc["bufferViews"])
    doc["bufferViews"] += [
        {"buffer": 0, "byteOffset": base, "byteLength": 48},
        {"buffer": 0, "byteOffset": base + 48, "byteLength": 48},
        {"buffer": 0, "byteOffset": base + 96, "byteLength": 32},
        {"buffer": 0, "byteOffset": base + 128, "byteLength": 12},
    ]
    acc = len(doc["accessors"])
    doc["accessors"] += [
        {"bufferView": views, "componentType": 5126, "count": 4, "type": "VEC3", "min": lo, "max": hi},
        {"bufferView": views + 1, "componentType": 5126, "count": 4, "type": "VEC3"},
        {"bufferView": views + 2, "componentType": 5126, "count": 4, "type": "VEC2"},
        {"bufferView": views + 3, "componentType": 5123, "count": 6, "type": "SCALAR"},
    ]
    doc["meshes"].append({"primitives": [{
        "attributes": {"POSITION": acc, "NORMAL": acc + 1, "TEXCOORD_0": acc + 2},
        "indices": acc + 3, "material": material}]})
    return len(doc["meshes"]) - 1


def new_doc():
    return {"asset": {"version": "2.0"}, "extensionsUsed": ["KHR_materials_unlit"],
            "scene": 0, "scenes": [{"nodes": []}], "nodes": [], "meshes": [], "materials": [],
            "bufferViews": [], "accessors": [], "buffers": []}


def finish(doc, blob, path):
    doc["buffers"] = [{"byteLength": len(blob),
                       "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()}]
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def unlit(extra):
    m = {"pbrMetallicRoughness": {"metallicFactor": 0, "roughnessFactor": 1},
         "extensions": {"KHR_materials_unlit": {}}}
    m.update(extra)
    return m


def textured_quad(dirname, name, colors, alpha=None, mask=False, linear=False):
    png_write(os.path.join(dirname, name + ".png"), 8, 8, quadrant_image(colors, alpha))
    doc, blob = new_doc(), bytearray()
    doc["images"] = [{"uri": name + ".png"}]
    doc["textures"] = [{"source": 0}]
    if linear:
        # The image's first use is a metallic-roughness slot: kiln cooks it
        # linear, and the unlit material below shows it as base colour.
        doc["materials"].append({"pbrMetallicRoughness": {"metallicRoughnessTexture": {"index": 0}}})
    extra = {"alphaMode": "MASK", "alphaCutoff": 0.5} if mask else {}
    mat = len(doc["materials"])
    m = unlit(extra)
    m["pbrMetallicRoughness"]["baseColorTexture"] = {"index": 0}
    doc["materials"].append(m)
    if linear:
        add_quad_mesh(doc, blob, 0.5, 0, z=-5.0)  # keeps material 0 used, far behind
        doc["nodes"].append({"mesh": 0, "scale": [0.001, 0.001, 0.001]})
        doc["scenes"][0]["nodes"].append(0)
    mesh = add_quad_mesh(doc, blob, 1.0, mat)
    doc["nodes"].append({"mesh": mesh})
    doc["scenes"][0]["nodes"].append(len(doc["nodes"]) - 1)
    finish(doc, blob, os.path.join(dirname, name + ".gltf"))


NODES_PARENT = {"translation": [0.5, 0.25, 0.0], "scale": [0.5, 0.5, 0.5]}
NODES_CHILD = {"translation": [0.4, 0.4, 0.5]}
SMALL_HALF = 0.25


# anim.gltf: the node scene with two clips of the child's translation:
# "hold" keeps it at HOLD, "move" goes linearly from MOVE_FROM (0 s) to
# MOVE_TO (2 s).
HOLD = [-0.4, 0.4, 0.5]
MOVE_FROM, MOVE_TO, MOVE_SECONDS = [0.4, 0.4, 0.5], [-0.4, -0.4, 0.5], 2.0


def add_clip(doc, blob, name, times, values):
    base = len(blob)
    blob += struct.pack("<%df" % len(times), *times)
    blob += b"".join(struct.pack("<3f", *v) for v in values)
    views = len(doc["bufferViews"])
    doc["bufferViews"] += [{"buffer": 0, "byteOffset": base, "byteLength": 4 * len(times)},
                           {"buffer": 0, "byteOffset": base + 4 * len(times), "byteLength": 12 * len(values)}]
    acc = len(doc["accessors"])
    doc["accessors"] += [{"bufferView": views, "componentType": 5126, "count": len(times), "type": "SCALAR",
                          "min": [min(times)], "max": [max(times)]},
                         {"bufferView": views + 1, "componentType": 5126, "count": len(values), "type": "VEC3"}]
    doc.setdefault("animations", []).append({
        "name": name, "samplers": [{"input": acc, "output": acc + 1, "interpolation": "LINEAR"}],
        "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}}]})


def node_scene(dirname, name="nodes", clips=False):
    doc, blob = new_doc(), bytearray()
    doc["materials"] = [unlit({"pbrMetallicRoughness": {"baseColorFactor": [1, 0, 0, 1]}}),
                        unlit({"pbrMetallicRoughness": {"baseColorFactor": [0, 1, 0, 1]}})]
    big = add_quad_mesh(doc, blob, 1.0, 0)
    small = add_quad_mesh(doc, blob, SMALL_HALF, 1)
    doc["nodes"] = [{"mesh": big, "name": "floor"},
                    dict(NODES_PARENT, name="parent", children=[2]),
                    dict(NODES_CHILD, name="child", mesh=small)]
    doc["scenes"][0]["nodes"] = [0, 1]
    if clips:
        add_clip(doc, blob, "hold", [0.0, 1.0], [HOLD, HOLD])
        add_clip(doc, blob, "move", [0.0, MOVE_SECONDS], [MOVE_FROM, MOVE_TO])
    finish(doc, blob, os.path.join(dirname, name + ".gltf"))


# skin.gltf: a 2x2 quad whose bottom vertices follow joint 0 (at the origin)
# and top vertices joint 1 (bound at (0, 1, 0)); clip "bend" slides joint 1
# by BEND in x over one second, shearing the quad.
BEND = 0.6


def skin_scene(dirname):
    doc, blob = new_doc(), bytearray()
    doc["materials"] = [unlit({"pbrMetallicRoughness": {"baseColorFactor": [0, 1, 0, 1]}})]
    mesh = add_quad_mesh(doc, blob, 1.0, 0)
    base = len(blob)
    # Vertices: (-1,-1) (1,-1) (1,1) (-1,1): the bottom two on joint 0.
    for v in range(4):
        blob += struct.pack("<4H", 0 if v < 2 else 1, 0, 0, 0)
    for v in range(4):
        blob += struct.pack("<4f", 1, 0, 0, 0)
    identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    bind1 = identity[:12] + [0, -1, 0, 1]
    blob += struct.pack("<32f", *(identity + bind1))
    views = len(doc["bufferViews"])
    doc["bufferViews"] += [{"buffer": 0, "byteOffset": base, "byteLength": 32},
                           {"buffer": 0, "byteOffset": base + 32, "byteLength": 64},
                           {"buffer": 0, "byteOffset": base + 96, "byteLength": 128}]
    acc = len(doc["accessors"])
    doc["accessors"] += [{"bufferView": views, "componentType": 5123, "count": 4, "type": "VEC4"},
                         {"bufferView": views + 1, "componentType": 5126, "count": 4, "type": "VEC4"},
                         {"bufferView": views + 2, "componentType": 5126, "count": 2, "type": "MAT4"}]
    doc["meshes"][mesh]["primitives"][0]["attributes"].update({"JOINTS_0": acc, "WEIGHTS_0": acc + 1})
    doc["nodes"] = [{"mesh": mesh, "skin": 0, "name": "bar"},
                    {"name": "root_joint", "children": [2]},
                    {"name": "tip_joint", "translation": [0, 1, 0]}]
    doc["skins"] = [{"joints": [1, 2], "inverseBindMatrices": acc + 2}]
    doc["scenes"][0]["nodes"] = [0, 1]
    add_clip(doc, blob, "bend", [0.0, 1.0], [[0, 1, 0], [BEND, 1, 0]])
    finish(doc, blob, os.path.join(dirname, "skin.gltf"))


# normal.gltf: a lit (not unlit) 2x2 quad facing +Z with a normal map whose
# left half is flat and right half tilted NORMAL_TILT radians about +Y
# (towards +X, away from the light); metallic 0, roughness 1, grey base colour.
NORMAL_BASE = 0.8
NORMAL_TILT = math.radians(45)


def encode_unit(v):
    return [round((c + 1) / 2 * 255) for c in v]


def normal_scene(dirname):
    flat = encode_unit([0, 0, 1])
    tilted = encode_unit([math.sin(NORMAL_TILT), 0, math.cos(NORMAL_TILT)])
    rows = [[c for x in range(8) for c in (flat if x < 4 else tilted) + [255]] for _ in range(8)]
    png_write(os.path.join(dirname, "normal.png"), 8, 8, rows)
    doc, blob = new_doc(), bytearray()
    doc["images"] = [{"uri": "normal.png"}]
    doc["textures"] = [{"source": 0}]
    doc["materials"] = [{"pbrMetallicRoughness": {"baseColorFactor": [NORMAL_BASE] * 3 + [1],
                                                  "metallicFactor": 0, "roughnessFactor": 1},
                         "normalTexture": {"index": 0, "scale": 1}}]
    mesh = add_quad_mesh(doc, blob, 1.0, 0)
    doc["nodes"] = [{"mesh": mesh}]
    doc["scenes"][0]["nodes"] = [0]
    finish(doc, blob, os.path.join(dirname, "normal.gltf"))
    return flat, tilted


# glow.gltf: a lit 2x2 quad (metallic 0, roughness 1) with an occlusion map
# black on its left half and white on its right (strength 1), and an emissive
# factor times an sRGB emissive texture of one colour.
GLOW_BASE = 0.3
GLOW_EMISSIVE_FACTOR = [0.3, 0.4, 0.0]
GLOW_EMISSIVE_TEXEL = (255, 128, 0)


def glow_scene(dirname):
    occlusion = [[c for x in range(8) for c in ([0, 0, 0] if x < 4 else [255, 255, 255]) + [255]]
                 for _ in range(8)]
    png_write(os.path.join(dirname, "glow_occlusion.png"), 8, 8, occlusion)
    png_write(os.path.join(dirname, "glow_emissive.png"), 8, 8,
              [list(GLOW_EMISSIVE_TEXEL + (255,)) * 8 for _ in range(8)])
    doc, blob = new_doc(), bytearray()
    doc["images"] = [{"uri": "glow_occlusion.png"}, {"uri": "glow_emissive.png"}]
    doc["textures"] = [{"source": 0}, {"source": 1}]
    doc["materials"] = [{"pbrMetallicRoughness": {"baseColorFactor": [GLOW_BASE] * 3 + [1],
                                                  "metallicFactor": 0, "roughnessFactor": 1},
                         "occlusionTexture": {"index": 0, "strength": 1},
                         "emissiveTexture": {"index": 1},
                         "emissiveFactor": GLOW_EMISSIVE_FACTOR}]
    mesh = add_quad_mesh(doc, blob, 1.0, 0)
    doc["nodes"] = [{"mesh": mesh}]
    doc["scenes"][0]["nodes"] = [0]
    finish(doc, blob, os.path.join(dirname, "glow.gltf"))


# morph.gltf: a 2x2 quad (unlit green) whose one morph target moves its top
# right vertex (1, 1, 0) by MORPH_DELTA; default weight 1; clip "grow" takes
# the weight from 0 (0 s) to 1 (1 s).
MORPH_DELTA = [0.6, 0.4, 0.0]


def morph_scene(dirname):
    doc, blob = new_doc(), bytearray()
    doc["materials"] = [unlit({"pbrMetallicRoughness": {"baseColorFactor": [0, 1, 0, 1]}})]
    mesh = add_quad_mesh(doc, blob, 1.0, 0)
    base = len(blob)
    deltas = [[0, 0, 0], [0, 0, 0], MORPH_DELTA, [0, 0, 0]]
    blob += b"".join(struct.pack("<3f", *d) for d in deltas)
    blob += struct.pack("<2f", 0.0, 1.0) + struct.pack("<2f", 0.0, 1.0)
    views = len(doc["bufferViews"])
    doc["bufferViews"] += [{"buffer": 0, "byteOffset": base, "byteLength": 48},
                           {"buffer": 0, "byteOffset": base + 48, "byteLength": 8},
                           {"buffer": 0, "byteOffset": base + 56, "byteLength": 8}]
    acc = len(doc["accessors"])
    doc["accessors"] += [
        {"bufferView": views, "componentType": 5126, "count": 4, "type": "VEC3",
         "min": [min(d[i] for d in deltas) for i in range(3)],
         "max": [max(d[i] for d in deltas) for i in range(3)]},
        {"bufferView": views + 1, "componentType": 5126, "count": 2, "type": "SCALAR",
         "min": [0.0], "max": [1.0]},
        {"bufferView": views + 2, "componentType": 5126, "count": 2, "type": "SCALAR"}]
    doc["meshes"][mesh]["primitives"][0]["targets"] = [{"POSITION": acc}]
    doc["meshes"][mesh]["weights"] = [1.0]
    doc["nodes"] = [{"mesh": mesh, "name": "quad"}]
    doc["scenes"][0]["nodes"] = [0]
    doc["animations"] = [{"name": "grow",
                          "samplers": [{"input": acc + 1, "output": acc + 2, "interpolation": "LINEAR"}],
                          "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]}]
    finish(doc, blob, os.path.join(dirname, "morph.gltf"))


# sphere.gltf: a UV sphere of radius 1 (SPHERE_RINGS x SPHERE_SEGMENTS),
# enough triangles for kiln's reduced levels of detail and several meshlets.
SPHERE_RINGS, SPHERE_SEGMENTS = 24, 48


def sphere_scene(dirname):
    pos, nor, uv, idx = [], [], [], []
    for r in range(SPHERE_RINGS + 1):
        theta = math.pi * r / SPHERE_RINGS
        for sgm in range(SPHERE_SEGMENTS + 1):
            phi = 2 * math.pi * sgm / SPHERE_SEGMENTS
            p = (math.sin(theta) * math.cos(phi), math.cos(theta), math.sin(theta) * math.sin(phi))
            pos.append(p)
            nor.append(p)
            uv.append((sgm / SPHERE_SEGMENTS, r / SPHERE_RINGS))
    row = SPHERE_SEGMENTS + 1
    for r in range(SPHERE_RINGS):
        for sgm in range(SPHERE_SEGMENTS):
            a, b = r * row + sgm, (r + 1) * row + sgm
            idx += [a, a + 1, b, a + 1, b + 1, b]
    blob = bytearray()
    blob += b"".join(struct.pack("<3f", *p) for p in pos)
    blob += b"".join(struct.pack("<3f", *n) for n in nor)
    blob += b"".join(struct.pack("<2f", *t) for t in uv)
    blob += struct.pack("<%dI" % len(idx), *idx)
    n = len(pos)
    doc = new_doc()
    doc["bufferViews"] = [{"buffer": 0, "byteOffset": 0, "byteLength": 12 * n},
                          {"buffer": 0, "byteOffset": 12 * n, "byteLength": 12 * n},
                          {"buffer": 0, "byteOffset": 24 * n, "byteLength": 8 * n},
                          {"buffer": 0, "byteOffset": 32 * n, "byteLength": 4 * len(idx)}]
    doc["accessors"] = [
        {"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3",
         "min": [min(p[i] for p in pos) for i in range(3)], "max": [max(p[i] for p in pos) for i in range(3)]},
        {"bufferView": 1, "componentType": 5126, "count": n, "type": "VEC3"},
        {"bufferView": 2, "componentType": 5126, "count": n, "type": "VEC2"},
        {"bufferView": 3, "componentType": 5125, "count": len(idx), "type": "SCALAR"}]
    doc["materials"] = [{"pbrMetallicRoughness": {"baseColorFactor": [0.9, 0.5, 0.2, 1]}}]
    doc["meshes"] = [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2},
                                      "indices": 3, "material": 0}]}]
    doc["nodes"] = [{"mesh": 0}]
    doc["scenes"][0]["nodes"] = [0]
    finish(doc, blob, os.path.join(dirname, "sphere.gltf"))


# Texture refs (docs/viewer.md, "Looking at a texture"): an HDR image of
# quadrant values above and below 1 (cooked as ASTC HDR, BC6H and RGBA16F),
# a cubemap of one colour per face and an array of three layers (both ASTC,
# which lavapipe cannot sample: decoded face by face, layer by layer, every
# mip), and a 2x2x2 LUT (a 3D texture).
HDR_QUADS = [(0.5, 0.25, 0.125), (4.0, 0.5, 1.0), (0.0, 0.75, 2.0), (1.0, 1.0, 1.0)]
# Each quadrant whole blocks (ASTC HDR 6x6 on mobile, BC6H 4x4), so every
# block is one value, which the encoders keep.
HDR_SIZES = {"hdr_astc": 12, "hdr_bc6h": 8, "hdr_float": 8}
CUBE_FACES = ["px", "nx", "py", "ny", "pz", "nz"]
CUBE_COLORS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (255, 0, 255), (0, 255, 255)]
ARRAY_LAYERS = [EXACT, GREYS[:2] + [(0, 0, 0), (255, 255, 255)],
                [(0, 255, 255), (255, 0, 255), (255, 255, 0), (0, 0, 0)]]
ARRAY_SIZE = 16
LUT_SIZE = 2


# The other block and plain formats a texture ref can hold, each with its
# quadrants (sRGB bytes for colour, linear for the rest), whole blocks each:
# name -> (size, quadrant colours, what the sampler returns from a texel).
FORMAT_TEXTURES = {
    "fmt_r8.r": (8, [(0, 0, 0), (255, 255, 255), (255, 255, 255), (0, 0, 0)], "grey"),
    "fmt_bc4.r": (8, [(0, 0, 0), (255, 255, 255), (255, 255, 255), (0, 0, 0)], "grey"),
    "fmt_bc5.n": (8, [(255, 128, 128), (128, 255, 128), (128, 128, 255), (0, 128, 128)], "rg"),
    "fmt_bc3": (8, EXACT, "srgb"),
    "fmt_astc8": (16, EXACT, "srgb"),
}


def quadrants(size, colors):
    half = size // 2
    return [[colors[(2 if y >= half else 0) + (1 if x >= half else 0)] for x in range(size)]
            for y in range(size)]


def texture_scenes(dirname):
    for name, size in HDR_SIZES.items():
        hdr_write(os.path.join(dirname, name + ".hdr"), size, size, quadrants(size, HDR_QUADS))
    os.makedirs(os.path.join(dirname, "sky.env"), exist_ok=True)
    for face, color in zip(CUBE_FACES, CUBE_COLORS):
        png_write(os.path.join(dirname, "sky.env", face + ".png"), 8, 8,
                  [list(color + (255,)) * 8 for _ in range(8)])
    os.makedirs(os.path.join(dirname, "layers.array"), exist_ok=True)
    for i, colors in enumerate(ARRAY_LAYERS):
        rows = [[c for rgb in row for c in rgb + (255,)] for row in quadrants(ARRAY_SIZE, colors)]
        png_write(os.path.join(dirname, "layers.array", "%d.png" % i), ARRAY_SIZE, ARRAY_SIZE, rows)
    for name, (size, colors, _) in FORMAT_TEXTURES.items():
        rows = [[c for rgb in row for c in rgb + (255,)] for row in quadrants(size, colors)]
        png_write(os.path.join(dirname, name + ".png"), size, size, rows)
    with open(os.path.join(dirname, "grade.lut.cube"), "w") as f:
        f.write("LUT_3D_SIZE %d\n" % LUT_SIZE)
        for b in range(LUT_SIZE):
            for g in range(LUT_SIZE):
                for r in range(LUT_SIZE):
                    f.write("%d %d %d\n" % (r, g, b))


def make(dirname):
    os.makedirs(dirname, exist_ok=True)
    textured_quad(dirname, "quad_srgb", GREYS)
    textured_quad(dirname, "quad_linear", GREYS, linear=True)
    textured_quad(dirname, "quad_bc1", EXACT)
    textured_quad(dirname, "quad_bc7", EXACT)
    # UASTC, which libkiln transcodes to BC7 for the viewer: every 4x4 block
    # is one solid quadrant, which UASTC and its BC7 transcode keep exactly.
    textured_quad(dirname, "quad_uastc", EXACT)
    # ASTC 4x4, which lavapipe cannot sample: kiln-view decodes it to RGBA8.
    # Each 4x4 block is one solid quadrant, which ASTC keeps exactly.
    textured_quad(dirname, "quad_astc", EXACT)
    textured_quad(dirname, "mask", [(0, 0, 255)] * 4, alpha=lambda x, y: 0 if x < 4 else 255, mask=True)
    node_scene(dirname)
    node_scene(dirname, "anim", clips=True)
    skin_scene(dirname)
    normal_scene(dirname)
    glow_scene(dirname)
    morph_scene(dirname)
    sphere_scene(dirname)
    texture_scenes(dirname)
    with open(os.path.join(os.path.dirname(dirname.rstrip("/")), "kiln.yml"), "w") as f:
        f.write('rules:\n'
                '  - match: "*"\n    texture.compress: false\n'
                '  - match: "quad_bc1*"\n    texture.compress: true\n    texture.format: bc1\n'
                '  - match: "quad_bc7*"\n    texture.compress: true\n    texture.format: bc7\n'
                '  - match: "quad_uastc*"\n    texture.compress: true\n    texture.format: uastc\n'
                '  - match: "quad_astc*"\n    texture.compress: true\n    texture.format: astc-4x4\n'
                '  - match: "hdr_astc*"\n    texture.compress: true\n    texture.target: mobile\n'
                '  - match: "hdr_bc6h*"\n    texture.compress: true\n'
                '  - match: "sky.env"\n    texture.compress: true\n    texture.format: astc-4x4\n'
                '  - match: "layers.array"\n    texture.compress: true\n    texture.format: astc-4x4\n'
                '  - match: "fmt_bc*"\n    texture.compress: true\n'
                '  - match: "fmt_bc3*"\n    texture.format: bc3\n'
                '  - match: "fmt_astc8*"\n    texture.compress: true\n    texture.format: astc-8x8\n')


# ---- the camera of docs/viewer.md, and the checks ------------------------------


def camera(lo, hi, width, height):
    center = [(a + b) / 2 for a, b in zip(lo, hi)]
    radius = math.sqrt(sum(((b - a) / 2) ** 2 for a, b in zip(lo, hi)))
    half_v = math.radians(45) / 2
    half_h = math.atan(math.tan(half_v) * width / height)
    distance = radius / math.sin(min(half_v, half_h))
    eye = (center[0], center[1], center[2] + distance)

    def project(p):
        depth = eye[2] - p[2]
        ndc_x = (p[0] - eye[0]) / (depth * math.tan(half_v) * width / height)
        ndc_y = (p[1] - eye[1]) / (depth * math.tan(half_v))
        return (ndc_x + 1) / 2 * width, (1 - ndc_y) / 2 * height

    project.eye = eye
    return project


def srgb_encode(v):
    return 12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055


# The viewer's fixed light (docs/viewer.md, Shading): a direction towards the
# light and an ambient level; no tone curve: the linear sum is clamped to
# [0, 1] and stored in the sRGB image (encoded by the GPU).
LIGHT = (-0.35, 0.55, 0.75)
AMBIENT = 0.3


def normalize(v):
    length = math.sqrt(sum(c * c for c in v))
    return [c / length for c in v]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def shade_dielectric_rough(base, n, world, eye, occlusion=1.0, emissive=0.0):
    """docs/viewer.md's shading for metallic 0, roughness 1 (a Blinn-Phong
    exponent of 1, F0 0.04), the ambient term times the occlusion, plus the
    emission: one channel, 8-bit sRGB."""
    l = normalize(LIGHT)
    v = normalize([e - w for e, w in zip(eye, world)])
    h = normalize([a + b for a, b in zip(l, v)])
    n_dot_l = max(dot(n, l), 0.0)
    lit = (AMBIENT * occlusion * (base + 0.04 * 0.5) +
           (base + 0.04 * max(dot(n, h), 0.0)) * n_dot_l + emissive)
    return round(255 * srgb_encode(min(max(lit, 0.0), 1.0)))


def srgb_decode(c):
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def decode_normal_texel(rgb):
    """As the fragment stage reads a normal map: x and y from the texel, z rebuilt."""
    x, y = (c / 255 * 2 - 1 for c in rgb[:2])
    return [x, y, math.sqrt(max(1 - x * x - y * y, 0.0))]


def inside_convex(poly, p, margin):
    """1 inside by more than margin, 0 outside by more than margin, None between
    (poly counter-clockwise)."""
    distances = []
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        edge = (b[0] - a[0], b[1] - a[1])
        length = math.hypot(*edge)
        distances.append((edge[0] * (p[1] - a[1]) - edge[1] * (p[0] - a[0])) / length)
    if min(distances) > margin:
        return 1
    if min(distances) < -margin:
        return 0
    return None


def read_chunks(path):
    """A kiln container's chunks by fourcc (docs/formats/container.md)."""
    data = open(path, "rb").read()
    assert data[:4] == b"KILN", "not a kiln file"
    count = struct.unpack_from("<I", data, 16)[0]
    chunks = {}
    for i in range(count):
        fourcc, _, offset, size = struct.unpack_from("<4sIQQ", data, 48 + 32 * i)
        chunks[fourcc.decode()] = data[offset:offset + size]
    return chunks


def mesh_lods(path):
    """A one-submesh .kmesh's extent, sphere, LOD table and meshlet count (kmesh.md)."""
    c = read_chunks(path)
    desc = c["MDSC"]
    lo, hi = struct.unpack_from("<3f", desc, 32), struct.unpack_from("<3f", desc, 44)
    lod_count, meshlets = struct.unpack_from("<2I", desc, 72)
    sphere = struct.unpack_from("<4f", c["SUBM"], 40)
    lods = [struct.unpack_from("<IIfI", c["LODS"], 16 * i) for i in range(lod_count)]
    return max(b - a for a, b in zip(lo, hi)), sphere, lods, meshlets, (lo, hi)


BOUNDS_RGBA = (255, 255, 0, 255)


def meshlet_spheres(path):
    """Each meshlet's bounding sphere (MLET rows: centre at 16, radius at 28)."""
    c = read_chunks(path)
    rows = c["MLET"]
    return [struct.unpack_from("<4f", rows, 64 * i + 16) for i in range(len(rows) // 64)]


def sphere_outline(project, center, radius, points):
    """`points` pixels on the outline of a sphere seen from project.eye: the
    circle where the eye's tangent rays touch it."""
    eye = project.eye
    to = [c - e for c, e in zip(center, eye)]
    d = math.sqrt(dot(to, to))
    u = [t / d for t in to]
    ring_center = [c - x * radius * radius / d for c, x in zip(center, u)]
    ring_radius = radius * math.sqrt(d * d - radius * radius) / d
    a = normalize([u[1], -u[0], 0.0] if abs(u[2]) > 0.5 else [-u[2], 0.0, u[0]])
    b = [u[1] * a[2] - u[2] * a[1], u[2] * a[0] - u[0] * a[2], u[0] * a[1] - u[1] * a[0]]
    out = []
    for i in range(points):
        t = 2 * math.pi * (i + 0.5) / points
        p = [rc + ring_radius * (math.cos(t) * x + math.sin(t) * y)
             for rc, x, y in zip(ring_center, a, b)]
        out.append(project(p))
    return out


def check_bounds(kmesh, png, w, h):
    """Every meshlet's outline passes through overlay pixels (within a pixel) at
    8 points of it; the count of meshlets checked is printed."""
    _, _, _, _, (lo, hi) = mesh_lods(kmesh)
    project = camera(lo, hi, w, h)
    width, height, rows = png_read(png)
    spheres = meshlet_spheres(kmesh)
    for m, (x, y, z, r) in enumerate(spheres):
        for px, py in sphere_outline(project, (x, y, z), r, 8):
            if not (2 <= px < width - 2 and 2 <= py < height - 2):
                continue
            near = [tuple(rows[int(py) + dy][4 * (int(px) + dx):4 * (int(px) + dx) + 4])
                    for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
            if BOUNDS_RGBA not in near:
                failures.append("meshlet %d: no outline pixel near (%.1f, %.1f)" % (m, px, py))
    print("meshlets %d" % len(spheres))


def expect_lod(kmesh, w, h, forced):
    """Prints the level of detail and triangles docs/viewer.md's rule draws
    the sphere with (the coarsest level whose error, projected at the
    sphere's distance, covers at most one pixel of the height), and the
    mesh's meshlet count. Exits 1 when a level's projected error is too close
    to the pixel for float differences to be ruled out."""
    extent, sphere, lods, meshlets, (lo, hi) = mesh_lods(kmesh)
    eye = camera(lo, hi, w, h).eye
    distance = math.dist(sphere[:3], eye) - sphere[3]
    level = 0
    for i, (_, _, error, _) in enumerate(lods):
        pixels = error * extent / (2 * distance * math.tan(math.radians(45) / 2)) * h
        if i > 0 and abs(pixels - 1.0) < 0.05:
            print("premise: level %d projects to %.3f pixels, too close to the threshold" % (i, pixels))
            sys.exit(1)
        if i > 0 and pixels <= 1.0:
            level = i
    if forced >= 0:
        level = min(forced, len(lods) - 1)
    print("lod %d triangles %d meshlets %d levels %d" % (level, lods[level][1] // 3, meshlets, len(lods)))


def differ(png_a, png_b, share):
    """Exit 0 when the alpha masks of two renders differ on more than `share` of the pixels."""
    wa, ha, a = png_read(png_a)
    wb, hb, b = png_read(png_b)
    assert (wa, ha) == (wb, hb), "sizes differ"
    changed = sum(1 for y in range(ha) for x in range(wa) if (a[y][4 * x + 3] > 0) != (b[y][4 * x + 3] > 0))
    print("%.4f" % (changed / (wa * ha)))
    return changed / (wa * ha) > share


failures = []


def linear_to_srgb8(v):
    return round(255 * srgb_encode(min(max(v, 0.0), 1.0)))


def texture_rect(tw, th, w, h):
    """Where kiln-view draws a tw x th texture in a w x h image (pixels):
    as large as fits, centred (docs/viewer.md)."""
    scale = min(w / tw, h / th)
    return (w - scale * tw) / 2, (h - scale * th) / 2, scale


def bilinear(grid, u, v):
    """Linear filtering of a grid of linear texel tuples at (u, v), clamped at
    the edges, as a GPU sampler does (texel centres at half-integers)."""
    th, tw = len(grid), len(grid[0])
    x, y = u * tw - 0.5, v * th - 0.5
    x0, y0 = math.floor(x), math.floor(y)
    fx, fy = x - x0, y - y0

    def at(i, j):
        return grid[min(max(j, 0), th - 1)][min(max(i, 0), tw - 1)]
    out = []
    for c in range(len(grid[0][0])):
        top = at(x0, y0)[c] * (1 - fx) + at(x0 + 1, y0)[c] * fx
        bottom = at(x0, y0 + 1)[c] * (1 - fx) + at(x0 + 1, y0 + 1)[c] * fx
        out.append(top * (1 - fy) + bottom * fy)
    return out


def check_flat_texture(rows, w, h, grid, tolerance, points):
    """A 2D texture (grid of linear RGB) drawn by kiln-view at `points` (u, v):
    the pixel there is the filtered texel, sRGB-encoded, opaque; outside the
    texture's rectangle nothing is drawn."""
    x0, y0, scale = texture_rect(len(grid[0]), len(grid), w, h)
    for u, v in points:
        px, py = int(x0 + u * len(grid[0]) * scale), int(y0 + v * len(grid) * scale)
        cu = (px + 0.5 - x0) / (len(grid[0]) * scale)
        cv = (py + 0.5 - y0) / (len(grid) * scale)
        want = [linear_to_srgb8(c) for c in bilinear(grid, cu, cv)] + [255]
        expect(rows, px, py, want, "texel at (%.2f, %.2f)" % (u, v), tolerance)
    if x0 >= 2:
        expect(rows, x0 - 2, h / 2, (0, 0, 0, 0), "left of the texture", 0)
    if y0 >= 2:
        expect(rows, w / 2, y0 - 2, (0, 0, 0, 0), "above the texture", 0)


def cube_face(yaw, pitch, px, py, w, h):
    """The face (0..5: +X -X +Y -Y +Z -Z) the view ray through pixel (px, py)
    meets, for kiln-view's camera turned by yaw and pitch (degrees); None
    near an edge."""
    y, p = math.radians(yaw), math.radians(pitch)
    back = (math.cos(p) * math.sin(y), math.sin(p), math.cos(p) * math.cos(y))
    right = normalize([back[2], 0.0, -back[0]])
    up = [back[1] * right[2] - back[2] * right[1], back[2] * right[0] - back[0] * right[2],
          back[0] * right[1] - back[1] * right[0]]
    tan_v = math.tan(math.radians(45) / 2)
    nx = ((px + 0.5) / w * 2 - 1) * tan_v * w / h
    ny = (1 - (py + 0.5) / h * 2) * tan_v
    d = [-b + r * nx + u * ny for b, r, u in zip(back, right, up)]
    axis = max(range(3), key=lambda a: abs(d[a]))
    # Within half a texel of the face's edge (faces of 8 texels, 2 units
    # across), a seamless cube sampler blends in the next face.
    if max(abs(d[a]) for a in range(3) if a != axis) > (1 - 1.5 / 8) * abs(d[axis]):
        return None
    return 2 * axis + (0 if d[axis] > 0 else 1)


def check_texture(name, png, w, h, layer, yaw, pitch):
    width, height, rows = png_read(png)
    if (width, height) != (w, h):
        failures.append("size %dx%d, expected %dx%d" % (width, height, w, h))
        return
    # Each quadrant's centre and, in images large enough, two points around it.
    spread = (0.0, 0.1) if min(w, h) >= 64 else (0.0,)
    inner = [(cu + d, cv - d * (1 if i else -1)) for cu in (0.25, 0.75) for cv in (0.25, 0.75)
             for d in spread for i in ((0, 1) if d else (0,))]
    if name.startswith("hdr_"):
        grid = quadrants(HDR_SIZES[name], HDR_QUADS)
        # The values above 1 show clamped: no tone curve.
        check_flat_texture(rows, w, h, grid, 1, inner)
    elif name == "layers":
        grid = [[tuple(srgb_decode(c) for c in rgb) for rgb in row]
                for row in quadrants(ARRAY_SIZE, ARRAY_LAYERS[layer])]
        check_flat_texture(rows, w, h, grid, 1 if w >= ARRAY_SIZE else 3, inner)
    elif name in FORMAT_TEXTURES:
        size, colors, reads = FORMAT_TEXTURES[name]
        decode = {"grey": lambda c: (c[0] / 255,) * 3, "rg": lambda c: (c[0] / 255, c[1] / 255, 0.0),
                  "srgb": lambda c: tuple(srgb_decode(v) for v in c)}[reads]
        grid = [[decode(rgb) for rgb in row] for row in quadrants(size, colors)]
        check_flat_texture(rows, w, h, grid, 1, inner)
    elif name == "lut":
        # Texel (x, y) of slice z holds (x, y, z) / (size - 1): red across,
        # green down, the slice's blue; every point filtered from its neighbours.
        grid = [[(x / (LUT_SIZE - 1), yy / (LUT_SIZE - 1), layer / (LUT_SIZE - 1))
                 for x in range(LUT_SIZE)] for yy in range(LUT_SIZE)]
        check_flat_texture(rows, w, h, grid, 2,
                           [(u / 8, v / 8) for u in range(1, 8) for v in range(1, 8)])
    elif name == "sky":
        seen = set()
        for py in range(0, h, 3):
            for px in range(0, w, 3):
                face = cube_face(yaw, pitch, px, py, w, h)
                if face is None:
                    continue
                seen.add(face)
                expect(rows, px, py, CUBE_COLORS[face] + (255,), "face %s" % CUBE_FACES[face], 1)
        print("faces seen: %s" % " ".join(CUBE_FACES[f] for f in sorted(seen)))
    else:
        failures.append("unknown texture " + name)


def expect(rows, x, y, want, what, tolerance=1):
    px = tuple(rows[int(y)][4 * int(x):4 * int(x) + 4])
    if any(abs(a - b) > tolerance for a, b in zip(px, want)):
        failures.append("%s: pixel (%d, %d) is %s, expected %s" % (what, x, y, px, tuple(want)))


def check_quad(rows, w, h, colors, transform=lambda c: c):
    project = camera([-1, -1, 0], [1, 1, 0], w, h)
    for q, (qx, qy) in enumerate([(-0.5, 0.5), (0.5, 0.5), (-0.5, -0.5), (0.5, -0.5)]):
        cx, cy = project((qx, qy, 0))
        for dx in (-6, 0, 6):
            for dy in (-6, 0, 6):
                expect(rows, cx + dx, cy + dy, list(transform(colors[q])) + [255], "quadrant %d" % q)
    x0, _ = project((-1, 0, 0))
    expect(rows, x0 - 3, h / 2, (0, 0, 0, 0), "background left of the quad", 0)
    expect(rows, 1, 1, (0, 0, 0, 0), "background corner", 0)


def check(dirname, name, png, w, h):
    width, height, rows = png_read(png)
    if (width, height) != (w, h):
        failures.append("size %dx%d, expected %dx%d" % (width, height, w, h))
        return
    if name in ("quad_srgb", "quad_bc1", "quad_bc7", "quad_uastc", "quad_astc"):
        check_quad(rows, w, h, GREYS if name == "quad_srgb" else EXACT)
    elif name == "quad_linear":
        check_quad(rows, w, h, GREYS,
                   lambda c: [round(255 * srgb_encode(v / 255)) for v in c])
    elif name == "mask":
        project = camera([-1, -1, 0], [1, 1, 0], w, h)
        for (x, y) in [(-0.5, 0.5), (-0.5, -0.5), (-0.2, 0)]:
            px, py = project((x, y, 0))
            expect(rows, px, py, (0, 0, 0, 0), "cut-out half", 0)
        for (x, y) in [(0.5, 0.5), (0.5, -0.5), (0.2, 0)]:
            px, py = project((x, y, 0))
            expect(rows, px, py, (0, 0, 255, 255), "opaque half")
    elif name in ("nodes", "anim_hold", "anim_move"):
        # World placement of the child quad: parent T * S, then the child's T
        # (its rest translation, the held one, or "move" at 0.5 s).
        child = NODES_CHILD["translation"]
        if name == "anim_hold":
            child = HOLD
        elif name == "anim_move":
            f = 0.5 / MOVE_SECONDS
            child = [a + f * (b - a) for a, b in zip(MOVE_FROM, MOVE_TO)]
        s, t = NODES_PARENT["scale"][0], NODES_PARENT["translation"]
        c = [t[i] + s * child[i] for i in range(3)]
        half = SMALL_HALF * s
        lo = [-1, -1, 0]
        hi = [1, 1, c[2]]
        project = camera(lo, hi, w, h)
        x0, y0 = project((c[0] - half, c[1] + half, c[2]))
        x1, y1 = project((c[0] + half, c[1] - half, c[2]))
        expect(rows, (x0 + x1) / 2, (y0 + y1) / 2, (0, 255, 0, 255), "child centre")
        for (x, y) in [(x0 + 2, y0 + 2), (x1 - 2, y0 + 2), (x0 + 2, y1 - 2), (x1 - 2, y1 - 2)]:
            expect(rows, x, y, (0, 255, 0, 255), "inside the child's computed region")
        for (x, y) in [(x0 - 3, (y0 + y1) / 2), (x1 + 3, (y0 + y1) / 2),
                       ((x0 + x1) / 2, y0 - 3), ((x0 + x1) / 2, y1 + 3)]:
            expect(rows, x, y, (255, 0, 0, 255), "just outside the child's region")
        fx, fy = project((-0.5, -0.5, 0))
        expect(rows, fx, fy, (255, 0, 0, 255), "floor")
    elif name in ("skin_rest", "skin_bent"):
        # The top vertices move with joint 1 by `shift`; a point of the quad at
        # height y (from -1 to 1) moves by shift * (y + 1) / 2.
        shift = BEND if name == "skin_bent" else 0.0
        project = camera([-1, -1, 0], [1 + shift, 1, 0], w, h)
        for (x, y, inside) in [(-0.9, 0.9, shift == 0), (1.3, 0.9, shift > 0), (0.0, 0.0, True),
                               (-0.9, -0.9, True), (1.3, -0.9, False)]:
            px, py = project((x, y, 0))
            edge_left = -1 + shift * (y + 1) / 2
            assert inside == (edge_left < x < edge_left + 2), "test point on the wrong side"
            expect(rows, px, py, (0, 255, 0, 255) if inside else (0, 0, 0, 0),
                   "(%.1f, %.1f) %s the skinned quad" % (x, y, "inside" if inside else "outside"),
                   1 if inside else 0)
    elif name == "normal":
        # The quad's shading normal is the map's, in the frame of the
        # geometric normal +Z and kiln's generated tangent +X (u runs along +x).
        project = camera([-1, -1, 0], [1, 1, 0], w, h)
        flat, tilted = [encode_unit([0, 0, 1]),
                        encode_unit([math.sin(NORMAL_TILT), 0, math.cos(NORMAL_TILT)])]
        values = {}
        for half, texel in (("flat", flat), ("tilted", tilted)):
            n = normalize(decode_normal_texel(texel))
            for (x, y) in [(-0.5, 0.5), (-0.5, -0.5), (-0.6, 0.0)] if half == "flat" else \
                    [(0.5, 0.5), (0.5, -0.5), (0.6, 0.0)]:
                c = shade_dielectric_rough(NORMAL_BASE, n, (x, y, 0), project.eye)
                values[half] = c
                px, py = project((x, y, 0))
                expect(rows, px, py, (c, c, c, 255), "%s half at (%.1f, %.1f)" % (half, x, y), 2)
        if abs(values["flat"] - values["tilted"]) < 20:
            failures.append("premise: the tilted half should shade visibly apart")
    elif name == "glow":
        project = camera([-1, -1, 0], [1, 1, 0], w, h)
        emissive = [f * srgb_decode(t) for f, t in zip(GLOW_EMISSIVE_FACTOR, GLOW_EMISSIVE_TEXEL)]
        for occlusion, points in ((0.0, [(-0.5, 0.5), (-0.6, -0.4)]), (1.0, [(0.5, 0.5), (0.6, -0.4)])):
            for (x, y) in points:
                want = [shade_dielectric_rough(GLOW_BASE, [0, 0, 1], (x, y, 0), project.eye,
                                               occlusion, e) for e in emissive] + [255]
                px, py = project((x, y, 0))
                expect(rows, px, py, want, "occlusion %.0f at (%.1f, %.1f)" % (occlusion, x, y), 2)
    elif name in ("morph_default", "morph_half"):
        weight = 1.0 if name == "morph_default" else 0.5
        moved = [1 + weight * MORPH_DELTA[0], 1 + weight * MORPH_DELTA[1]]
        poly = [(-1, -1), (1, -1), tuple(moved), (-1, 1)]
        project = camera([-1, -1, 0], [max(1, moved[0]), max(1, moved[1]), 0], w, h)
        grown = outside = 0
        for (x, y) in [(1.25, 1.0), (1.1, 1.15), (1.4, 0.6), (0.0, 0.0), (1.45, 1.3), (-0.9, 0.9),
                       (0.5, 1.25), (1.2, -0.9), (1.12, 0.9), (0.3, 1.1)]:
            inside = inside_convex(poly, (x, y), 0.04)
            if inside is None:
                continue
            grown += inside and (x > 1 or y > 1)
            outside += not inside
            px, py = project((x, y, 0))
            expect(rows, px, py, (0, 255, 0, 255) if inside else (0, 0, 0, 0),
                   "(%.2f, %.2f) %s the morphed quad" % (x, y, "inside" if inside else "outside"),
                   1 if inside else 0)
        if grown == 0 or outside == 0:
            failures.append("premise: no point where only the morphed quad covers, or none outside")
    else:
        failures.append("unknown scene " + name)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "lod":
        expect_lod(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    elif sys.argv[1] == "bounds":
        check_bounds(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
        for f in failures[:10]:
            print("  " + f)
        sys.exit(1 if failures else 0)
    elif sys.argv[1] == "differ":
        sys.exit(0 if differ(sys.argv[2], sys.argv[3], float(sys.argv[4])) else 1)
    elif sys.argv[1] == "coverage":
        width, height, rows = png_read(sys.argv[2])
        drawn = sum(1 for row in rows for x in range(width) if row[4 * x + 3] > 0)
        print("%.4f" % (drawn / (width * height)))
    elif sys.argv[1] == "texture":
        check_texture(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]),
                      int(sys.argv[6]), float(sys.argv[7]), float(sys.argv[8]))
        for f in failures[:20]:
            print("  " + f)
        sys.exit(1 if failures else 0)
    else:
        check(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
        for f in failures:
            print("  " + f)
        sys.exit(1 if failures else 0)
