#!/usr/bin/env python3
"""Writes the crafted glTF files test_gltf_validator.sh compares kiln's verdict
on with the Khronos glTF-Validator's: usage: gltf_validator_cases.py DIR

  valid.gltf            a triangle as glTF wants it (no validator error)
  position_no_bounds    POSITION without min and max (kiln: warns)
  tangent_w0            a TANGENT with w = 0 (kiln: warns, repaired as 1)
  meshless_bounds       no mesh; an accessor whose min/max the data passes
  meshless_stride       no mesh; a bufferView with a byteStride of 5
  nan_position          a NaN position (kiln: refuses)
"""
import base64
import json
import os
import struct
import sys


def data_uri(data):
    return "data:application/octet-stream;base64," + base64.b64encode(data).decode()


def triangle(position_bounds=True, tangent_w=None, nan=False):
    positions = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    if nan:
        positions[4] = float("nan")
    data = struct.pack("<9f", *positions)
    accessors = [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}]
    if position_bounds:
        accessors[0].update({"min": [0, 0, 0], "max": [1, 1, 0]})
    views = [{"buffer": 0, "byteOffset": 0, "byteLength": 36, "target": 34962}]
    attributes = {"POSITION": 0}
    if tangent_w is not None:
        normals = struct.pack("<9f", 0, 0, 1, 0, 0, 1, 0, 0, 1)
        tangents = struct.pack("<12f", 1, 0, 0, 1, 1, 0, 0, tangent_w, 1, 0, 0, 1)
        views += [{"buffer": 0, "byteOffset": 36, "byteLength": 36, "target": 34962},
                  {"buffer": 0, "byteOffset": 72, "byteLength": 48, "target": 34962}]
        accessors += [{"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3"},
                      {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4"}]
        attributes.update({"NORMAL": 1, "TANGENT": 2})
        data += normals + tangents
    return {
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": attributes}]}],
        "buffers": [{"byteLength": len(data), "uri": data_uri(data)}],
        "bufferViews": views,
        "accessors": accessors,
    }


def meshless(stride=None, bounds=None):
    data = struct.pack("<6f", 0, 0, 0, 2, 2, 2)
    view = {"buffer": 0, "byteOffset": 0, "byteLength": 24}
    if stride is not None:
        view.update({"byteStride": stride, "target": 34962})
    accessor = {"bufferView": 0, "componentType": 5126, "count": 2, "type": "VEC3"}
    if bounds is not None:
        accessor.update({"min": bounds[0], "max": bounds[1]})
    return {
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": len(data), "uri": data_uri(data)}],
        "bufferViews": [view],
        "accessors": [accessor],
    }


CASES = {
    "valid": triangle(),
    "position_no_bounds": triangle(position_bounds=False),
    "tangent_w0": triangle(tangent_w=0.0),
    "meshless_bounds": meshless(bounds=([0, 0, 0], [1, 1, 1])),
    "meshless_stride": meshless(stride=5),
    "nan_position": triangle(nan=True),
}

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, doc in CASES.items():
        with open(os.path.join(out, name + ".gltf"), "w") as f:
            f.write(json.dumps(doc, indent=1).replace("NaN", "0") + "\n")
