#!/usr/bin/env python3
"""mesh_process_seeds.py DIR — writes the seeds of fuzz_mesh_process (the
tests/fuzz/seeds/mesh_process/ files) in the byte layout fuzz_mesh_process.c
describes at its top: a bumpy grid of 2,048 triangles in chunks of 256 (kiln's
simplifier under auto, 2 LODs, meshlets), a tube with a texcoord seam and
capped ends (kiln's simplifier, chunks of 64), and a fan with flipped
duplicates beside a lines and a points submesh (meshoptimizer's simplifier, 3
LODs, small meshlets from meshoptimizer's builder).
"""
import math
import os
import struct
import sys

MESHOPT, KILN, AUTO = 0, 1, 2
RAW, GRID, LINES, POINTS = 0, 2, 7, 3


def settings(simplifier, lods, meshlets, meshopt_builder, kiln_cache, threads, chunk,
             meshlet_vertices, meshlet_triangles):
    b0 = (simplifier | lods << 2 | meshlets << 4 | meshopt_builder << 5 | kiln_cache << 6
          | (threads - 1) << 7)
    return bytes([b0, chunk // 64 - 1, meshlet_vertices - 3, meshlet_triangles // 4 - 1])


def shape(texcoords, normals, per_coordinate, scale_k, vertex_count, submeshes, width=2):
    flags = texcoords | normals << 1 | per_coordinate << 4 | scale_k << 5
    return (bytes([flags]) + struct.pack("<H", vertex_count - 3)
            + bytes([(submeshes - 1) | (width - 2) << 2]))


def coord(v):
    """A coordinate of -8..7 as its byte."""
    assert -8 <= v <= 7
    return v + 8


def indices(vertex_count, values):
    fmt = "B" if vertex_count <= 256 else "<H"
    return b"".join(struct.pack(fmt, i) for i in values)


def submesh(kind, count, body):
    return bytes([kind]) + struct.pack("<H", count) + body


def grid():
    n = 33  # vertices per row: 32 x 32 quads
    out = settings(AUTO, 2, 1, 0, 1, 2, 256, 64, 124)
    out += shape(1, 0, 0, 3, n * n, 1, width=n)
    out += bytes(coord(round(3 * math.sin(x * 0.5) * math.cos(y * 0.4)))
                 for y in range(n) for x in range(n))
    out += bytes(b for y in range(n) for x in range(n) for b in (x * 7 % 256, y * 7 % 256))
    return out + submesh(GRID, 32 * 32, struct.pack("<H", 0) + bytes(32 * 32))


def tube():
    rings, columns = 16, 17  # column 16 repeats column 0 with another u: the seam
    ring = [(round(7 * math.cos(2 * math.pi * c / 16)), round(7 * math.sin(2 * math.pi * c / 16)))
            for c in range(16)]
    count = rings * columns + 2  # two cap centres last
    out = settings(KILN, 2, 1, 0, 0, 1, 64, 64, 64)
    out += shape(1, 0, 1, 3, count, 2)
    for z in range(rings):
        for c in range(columns):
            x, y = ring[c % 16]
            out += bytes([coord(x), coord(y), coord(z - 8)])
    out += bytes([coord(0), coord(0), coord(-8), coord(0), coord(0), coord(7)])
    for z in range(rings):
        for c in range(columns):
            out += bytes([c * 15, z * 16])
    out += bytes([128, 128, 128, 128])
    side = []
    for z in range(rings - 1):
        for c in range(columns - 1):
            a = z * columns + c
            side += [a, a + 1, a + columns + 1, a, a + columns + 1, a + columns]
    bottom, top = count - 2, count - 1
    caps = []
    for c in range(16):
        caps += [bottom, c + 1, c]
        last = (rings - 1) * columns
        caps += [top, last + c, last + c + 1]
    out += submesh(RAW, len(side) // 3, indices(count, side))
    return out + submesh(RAW, len(caps) // 3, indices(count, caps))


def fan():
    spokes = 60
    count = spokes + 1
    out = settings(MESHOPT, 3, 1, 1, 0, 1, 64, 16, 8)
    out += shape(0, 1, 1, 2, count, 3)
    out += bytes([coord(0), coord(0), coord(0)])
    for k in range(spokes):
        angle = 2 * math.pi * k / spokes
        out += bytes([coord(round(7 * math.cos(angle))), coord(round(7 * math.sin(angle))),
                      coord(k % 3 - 1)])  # neighbours often coincide: degenerate triangles
    out += bytes(k % 8 for k in range(count))
    tris = []
    for k in range(spokes):
        a, b = 1 + k, 1 + (k + 1) % spokes
        tris += [0, a, b]
        if k % 4 == 0:
            tris += [0, b, a]  # its flipped duplicate
    lines = [v for k in range(spokes) for v in (1 + k, 1 + (k + 1) % spokes)]
    out += submesh(RAW, len(tris) // 3, indices(count, tris))
    out += submesh(LINES, len(lines) // 2, indices(count, lines))
    return out + submesh(POINTS, count, indices(count, range(count)))


def main():
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    for name, make in (("grid", grid), ("tube_seam", tube), ("fan_lines_points", fan)):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(make())


if __name__ == "__main__":
    main()
