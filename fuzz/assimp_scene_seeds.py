#!/usr/bin/env python3
"""assimp_scene_seeds.py DIR — writes the seeds of fuzz_assimp_scene (the
tests/fuzz/seeds/assimp_scene/ files): small scenes in the byte layout
fuzz_assimp_scene.c reads (build_scene and the build_* functions, in their
order), each reaching one part of kiln's conversion: a validated textured
triangle mesh, a skinned mesh with an animation, a point cloud read without
validation, cameras and lights, morph targets.
"""
import os
import struct
import sys

# Names: indices into take_name's pool.
EMPTY, ROOT, ARMATURE, BONE, BONE1, MESH, CAMERA, LIGHT = range(8)
# Material keys: indices into material_keys.
NAME, DIFFUSE, BASE, EMISSIVE, OPACITY, EMISSIVE_INTENSITY = 0, 1, 2, 3, 4, 5
ROUGHNESS, METALLIC, TEX_FILE, UVWSRC = 9, 11, 16, 19


def f(v):
    """A float as take_float reads it: 0, 1, -1, 0.5, 2 and the specials by
    tag, multiples of 1/8 in [-13, 11] by tag, anything else as its bits."""
    special = {1.0: 1, -1.0: 2, 0.5: 3, 2.0: 4}
    if v == 0.0:
        return bytes([0])
    if v in special:
        return bytes([special[v]])
    t = v * 8 + 104
    if t == int(t) and 16 <= t < 192:
        return bytes([int(t)])
    return bytes([0xc0]) + struct.pack("<f", v)


def fs(*values):
    return b"".join(f(v) for v in values)


def header(validated, meshes, materials, textures=0, animations=0, cameras=0, lights=0):
    return bytes([1 if validated else 0, meshes, materials, textures, animations, cameras, lights])


def nodes(specs, mesh_counts=True):
    """specs: (name, parent or None, [mesh indices]) per node, identity
    transforms; parent must come before. A validated scene without meshes
    reads no mesh counts."""
    out = bytes([len(specs) - 1])
    for i, (name, parent, meshes) in enumerate(specs):
        out += bytes([name, 0])  # name, identity matrix
        if i > 0:
            out += bytes([parent])
        if mesh_counts:
            out += bytes([len(meshes)]) + bytes(meshes)
    return out


def mesh(name, positions, faces, material, streams=0, extra=b"", validated=True, bones=b"",
         morph=b"\x00", primitive_types=None):
    out = bytes([name, len(positions), streams])
    for p in positions:
        out += fs(*p)
    out += extra
    out += bytes([len(faces)])
    for face in faces:
        out += bytes([len(face) - 1 if validated else len(face)])
        for i in face:
            out += bytes([i]) if validated else struct.pack("<H", i)
    if not validated and faces:
        out += bytes([primitive_types])
    return out + bytes([material]) + bones + morph


def material(props):
    out = bytes([len(props)])
    for key, semantic, data in props:
        out += bytes([key, semantic, 0, 0]) + data
    return out


def float_prop(key, *values, semantic=0):
    return (key, semantic, bytes([len(values) - 1]) + fs(*values))


def seeds():
    quad = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
    # A validated quad with normals and UVs, a red material with a texture
    # embedded as "*0" (a PNG signature's bytes).
    uv = b"".join(fs(u, v, 0) for u, v, _ in quad)
    normals = b"".join(fs(0, 0, 1) for _ in quad)
    png = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    yield "textured-quad", (
        header(True, 1, 1, textures=1)
        + nodes([(ROOT, None, []), (MESH, 0, [0])])
        + mesh(MESH, quad, [(0, 1, 2), (0, 2, 3)], 0, streams=1 | 4, extra=normals + uv)
        + material([(NAME, 0, bytes([1])), float_prop(DIFFUSE, 1, 0, 0, 1),
                    float_prop(ROUGHNESS, 0.5), float_prop(METALLIC, 0),
                    (TEX_FILE, 1, bytes([0]))])  # DIFFUSE texture "*0"
        + bytes([1, 1, len(png)]) + png)  # texture "emb.png", compressed
    # A skinned triangle: two bones on nodes Bone and Bone.001, weights on
    # every vertex, and an animation rotating Bone.
    tri = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
    bone = lambda name, weights: (bytes([name, 0, len(weights)])
                                  + b"".join(bytes([v]) + f(w) for v, w in weights))
    bones = bytes([1]) + bone(BONE, [(0, 1.0), (1, 0.5)]) + bone(BONE1, [(1, 0.5), (2, 1.0)])
    quat = lambda w, x, y, z: fs(w, x, y, z)
    channel = (bytes([BONE, 2, 0, 2, 0])  # Bone: increasing times, 2 rotation keys
               + f(0) + quat(1, 0, 0, 0) + f(1) + quat(0.5, 0.5, 0.5, 0.5) + bytes([0, 0]))
    yield "skinned-animated", (
        header(True, 1, 1, animations=1)
        + nodes([(ROOT, None, []), (ARMATURE, 0, []), (BONE, 1, []), (BONE1, 2, []),
                 (MESH, 0, [0])])
        + mesh(MESH, tri, [(0, 1, 2)], 0, streams=128, bones=bones)
        + material([])
        + bytes([EMPTY]) + f(2) + f(1) + bytes([1]) + channel + bytes([0, 0]))
    # A point cloud as kiln re-reads it without validation: vertices, no faces.
    cloud = [(0, 0, 0), (1, 2, 3), (-1, 0.5, 2), (4, 4, 4)]
    yield "point-cloud-unvalidated", (
        header(False, 1, 1)
        + nodes([(ROOT, None, [0])])
        + mesh(MESH, cloud, [], 0, validated=False)
        + material([]))
    # A perspective camera and a spot light on their nodes, looking down -Z.
    camera = bytes([CAMERA]) + fs(0, 0, 0, 0, 1, 0, 0, 0, -1, 1, 0.125, 100, 2, 0)
    light = bytes([LIGHT, 3]) + fs(0, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0, 1, 1, 0.5, 0.25,
                                   0, 0, 0, 0, 0, 0, 0.5, 1)
    yield "camera-and-spot-light", (
        header(True, 0, 0, cameras=1, lights=1)
        + nodes([(ROOT, None, []), (CAMERA, 0, []), (LIGHT, 0, [])], mesh_counts=False)
        + camera + light)
    # A triangle with two morph targets moving its positions.
    target = lambda name, dy: (bytes([name, 1]) + b"".join(fs(x, y + dy, z) for x, y, z in tri)
                               + f(0.5))
    yield "morph-targets", (
        header(True, 1, 1)
        + nodes([(ROOT, None, [0])])
        + mesh(MESH, tri, [(0, 1, 2)], 0, morph=bytes([2]) + target(BONE, 1) + target(BONE1, 2)
               + bytes([0]))
        + material([]))


def regressions():
    """Inputs for bugs found by reasoning rather than by the fuzzer."""
    tri = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
    # An emissive colour times its intensity beyond FLT_MAX (was inf).
    yield "material-emissive-beyond-flt-max", (
        header(True, 1, 1)
        + nodes([(ROOT, None, [0])])
        + mesh(MESH, tri, [(0, 1, 2)], 0)
        + material([(EMISSIVE, 0, bytes([2]) + fs(3e38, 3e38, 3e38)),
                    float_prop(EMISSIVE_INTENSITY, 1e30)]))


if __name__ == "__main__":
    out = sys.argv[1]
    which = regressions() if len(sys.argv) > 2 and sys.argv[2] == "--regressions" else seeds()
    os.makedirs(out, exist_ok=True)
    for name, data in which:
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(data)
