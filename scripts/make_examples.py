#!/usr/bin/env python3
"""Regenerates examples/assets/: small sources made by the project itself.

Deterministic; run from anywhere: python3 scripts/make_examples.py
"""
import base64
import json
import math
import os
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "assets")


def write(path, data, mode="w"):
    full = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, mode + ("b" if isinstance(data, bytes) else ""), **({} if isinstance(data, bytes) else {"newline": "\n"})) as f:
        f.write(data)


def png_rgba(width, height, pixel):
    """A minimal valid PNG (colour type 6, 8-bit) from pixel(x, y) -> (r, g, b, a)."""
    rows = b"".join(b"\x00" + bytes(c for x in range(width) for c in pixel(x, y)) for y in range(height))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def crate():
    # A unit cube with per-face UVs and normals, two materials (wood sides, metal top/bottom).
    faces = [  # normal, corner positions (counter-clockwise seen from outside)
        ((0, 0, 1), [(-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)]),
        ((0, 0, -1), [(1, -1, -1), (-1, -1, -1), (-1, 1, -1), (1, 1, -1)]),
        ((1, 0, 0), [(1, -1, 1), (1, -1, -1), (1, 1, -1), (1, 1, 1)]),
        ((-1, 0, 0), [(-1, -1, -1), (-1, -1, 1), (-1, 1, 1), (-1, 1, -1)]),
        ((0, 1, 0), [(-1, 1, 1), (1, 1, 1), (1, 1, -1), (-1, 1, -1)]),
        ((0, -1, 0), [(-1, -1, -1), (1, -1, -1), (1, -1, 1), (-1, -1, 1)]),
    ]
    lines = ["# crate.obj: a textured cube with two materials (kiln example)", "mtllib crate.mtl", "o crate"]
    positions, normals = [], []
    for n, corners in faces:
        normals.append(n)
        positions.extend(corners)
    lines += ["v %g %g %g" % (x * 0.5, y * 0.5, z * 0.5) for x, y, z in positions]
    lines += ["vt 0 0", "vt 1 0", "vt 1 1", "vt 0 1"]
    lines += ["vn %g %g %g" % n for n in normals]
    for material, face_ids in (("wood", [0, 1, 2, 3]), ("metal", [4, 5])):
        lines.append("usemtl " + material)
        for f in face_ids:
            base = f * 4
            lines.append("f " + " ".join("%d/%d/%d" % (base + i + 1, i + 1, f + 1) for i in range(4)))
    write("props/crate.obj", "\n".join(lines) + "\n")
    write("props/crate.mtl", "\n".join([
        "# crate.mtl (kiln example)",
        "newmtl wood",
        "Kd 0.8 0.6 0.4",
        "Ns 20",
        "map_Kd crate.png",
        "",
        "newmtl metal",
        "Kd 0.6 0.6 0.65",
        "Pm 1.0",
        "Pr 0.35",
        "",
    ]))

    def planks(x, y):
        edge = x % 16 in (0, 15) or y % 64 in (0, 63)
        grain = 150 + int(40 * math.sin((x * 0.7) + (y // 16) * 1.3))
        return (90, 60, 30, 255) if edge else (grain, int(grain * 0.7), int(grain * 0.4), 255)

    write("props/crate.png", png_rgba(64, 64, planks))


def rock():
    # A faceted rock without normals or UVs: kiln generates smooth normals.
    # One face is a concave pentagon, to exercise the triangulator.
    lines = ["# rock.obj: no normals, no UVs, a concave face (kiln example)", "o rock"]
    ring = 7
    verts = [(0.0, 0.9, 0.0)]
    for i in range(ring):
        a = 2 * math.pi * i / ring
        r = 0.8 + 0.15 * math.sin(3 * a)
        verts.append((r * math.cos(a), 0.1 * math.cos(2 * a), r * math.sin(a)))
    verts.append((0.0, -0.6, 0.0))
    lines += ["v %.4f %.4f %.4f" % v for v in verts]
    for i in range(ring):
        a, b = 2 + i, 2 + (i + 1) % ring
        lines.append("f 1 %d %d" % (b, a))
        lines.append("f %d %d %d" % (ring + 2, a, b))
    write("props/rock.obj", "\n".join(lines) + "\n")

    # A flat concave "L" shape as one 6-cornered face, with a line continuation.
    write("props/sign.obj", "\n".join([
        "# sign.obj: one concave polygon written across two lines (kiln example)",
        "v 0 0 0", "v 2 0 0", "v 2 1 0", "v 1 1 0", "v 1 2 0", "v 0 2 0",
        "vn 0 0 1",
        "f 1//1 2//1 3//1 \\",
        "  4//1 5//1 6//1",
        "",
    ]))


def pebble():
    # A lumpy UV sphere, dense enough that its levels of detail really reduce.
    rings, segments = 24, 48
    lines = ["# pebble.obj: a lumpy sphere with UVs, no normals (kiln example)", "o pebble"]
    for r in range(rings + 1):
        theta = math.pi * r / rings
        for s in range(segments + 1):
            phi = 2 * math.pi * s / segments
            bump = 1.0 + 0.06 * math.sin(5 * phi) * math.sin(3 * theta) + 0.03 * math.cos(7 * theta)
            x = 0.5 * bump * math.sin(theta) * math.cos(phi)
            y = 0.35 * bump * math.cos(theta)
            z = 0.45 * bump * math.sin(theta) * math.sin(phi)
            lines.append("v %.5f %.5f %.5f" % (x, y, z))
            lines.append("vt %.5f %.5f" % (s / segments, 1 - r / rings))
    width = segments + 1
    for r in range(rings):
        for s in range(segments):
            a = r * width + s + 1
            b, c, d = a + width, a + width + 1, a + 1
            lines.append("f %d/%d %d/%d %d/%d %d/%d" % (a, a, b, b, c, c, d, d))
    write("props/pebble.obj", "\n".join(lines) + "\n")


def column():
    # A glTF 2.0 hexagonal column with an embedded (data: URI) buffer.
    sides = 6
    positions, normals, indices = [], [], []
    for i in range(sides):
        a0, a1 = 2 * math.pi * i / sides, 2 * math.pi * (i + 1) / sides
        am = (a0 + a1) / 2
        n = (math.cos(am), 0.0, math.sin(am))
        base = len(positions)
        for a, y in ((a0, 0.0), (a1, 0.0), (a1, 2.0), (a0, 2.0)):
            positions.append((0.3 * math.cos(a), y, 0.3 * math.sin(a)))
            normals.append(n)
        indices += [base, base + 2, base + 1, base, base + 3, base + 2]
    pos_bytes = b"".join(struct.pack("<3f", *p) for p in positions)
    nrm_bytes = b"".join(struct.pack("<3f", *n) for n in normals)
    idx_bytes = b"".join(struct.pack("<H", i) for i in indices)
    idx_bytes += b"\x00" * (-len(idx_bytes) % 4)
    blob = pos_bytes + nrm_bytes + idx_bytes
    mins = [min(p[k] for p in positions) for k in range(3)]
    maxs = [max(p[k] for p in positions) for k in range(3)]
    gltf = {
        "asset": {"version": "2.0", "generator": "kiln scripts/make_examples.py"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "column", "mesh": 0}],
        "meshes": [{"name": "column", "primitives": [{
            "attributes": {"POSITION": 0, "NORMAL": 1}, "indices": 2, "material": 0}]}],
        "materials": [{"name": "stone", "pbrMetallicRoughness": {
            "baseColorFactor": [0.7, 0.68, 0.62, 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.9}}],
        "buffers": [{"byteLength": len(blob),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": len(pos_bytes), "target": 34962},
            {"buffer": 0, "byteOffset": len(pos_bytes), "byteLength": len(nrm_bytes), "target": 34962},
            {"buffer": 0, "byteOffset": len(pos_bytes) + len(nrm_bytes), "byteLength": len(indices) * 2, "target": 34963},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": len(positions), "type": "VEC3", "min": mins, "max": maxs},
            {"bufferView": 1, "componentType": 5126, "count": len(normals), "type": "VEC3"},
            {"bufferView": 2, "componentType": 5123, "count": len(indices), "type": "SCALAR"},
        ],
    }
    write("level/column.gltf", json.dumps(gltf, indent=2) + "\n")


if __name__ == "__main__":
    crate()
    rock()
    pebble()
    column()
