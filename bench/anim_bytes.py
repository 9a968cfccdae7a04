#!/usr/bin/env python3
"""anim_bytes.py — .kanim bytes against the source's animation bytes and
gltfpack's, with each one's worst error against the source.

    python3 bench/anim_bytes.py KILN CORPUS SCRATCH

For each animated corpus model (GLB): the source's animation bytes (every
accessor animation samplers use, count x element size), the .kanim kiln cooks
(whole file, and its key data alone: channel records, times, values), and the
animation accessors of `gltfpack -i model.glb -o packed.glb` (Debian's
gltfpack, default settings: keys resampled, rotations quantised). The error
columns sample every channel of the source and of the result at 1000 times per
clip (glTF 2.0 Appendix C, written here) and report the worst translation
distance (in the model's units) and rotation angle (degrees). kiln's clips
hold the source's keys bit for bit (tests/unit/test_anim.c samples them against
the source to 1e-5), so their error is 0.

Besides kiln's default, three more cooks with a kiln.yml (--config): anim.reduce:
true, anim.quantize: true, and both; their error columns are what `kiln info
--json` reports (the cooker's measurement against the source, stored in the
file's AERR chunk): the worst translation distance and rotation angle over the
model's clips.
"""
import json, math, os, shutil, struct, subprocess, sys

MODELS = ["gltf/Fox/glTF-Binary/Fox.glb",
          "gltf/CesiumMilkTruck/glTF-Binary/CesiumMilkTruck.glb",
          "gltf/BoxAnimated/glTF-Binary/BoxAnimated.glb",
          "gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb",
          "gltf/RiggedSimple/glTF-Binary/RiggedSimple.glb"]

SIZES = {5126: 4, 5123: 2, 5122: 2, 5121: 1, 5120: 1}
COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}


def load(path):
    data = open(path, "rb").read()
    length, = struct.unpack_from("<I", data, 12)
    doc = json.loads(data[20:20 + length])
    return doc, data[20 + length + 8:]


def accessor(doc, binary, i):
    a = doc["accessors"][i]
    v = doc["bufferViews"][a["bufferView"]]
    n, ct = COMPONENTS[a["type"]], a["componentType"]
    size = SIZES[ct]
    stride = v.get("byteStride", n * size)
    base = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    fmt = {5126: "f", 5123: "H", 5122: "h", 5121: "B", 5120: "b"}[ct]
    scale = {5126: 1, 5123: 65535.0, 5122: 32767.0, 5121: 255.0, 5120: 127.0}[ct]
    out = []
    for e in range(a["count"]):
        values = struct.unpack_from("<%d%s" % (n, fmt), binary, base + e * stride)
        out.append([max(x / scale, -1.0) if ct != 5126 else x for x in values])
    return out


def anim_bytes(doc):
    used = set()
    for anim in doc.get("animations", []):
        for s in anim["samplers"]:
            used.update((s["input"], s["output"]))
    total = 0
    for i in used:
        a = doc["accessors"][i]
        total += a["count"] * COMPONENTS[a["type"]] * SIZES[a["componentType"]]
    return total


def sample(doc, binary, sampler, path, t):
    times = [x[0] for x in accessor(doc, binary, sampler["input"])]
    values = accessor(doc, binary, sampler["output"])
    mode = sampler.get("interpolation", "LINEAR")
    g = 3 if mode == "CUBICSPLINE" else 1
    val = lambda k: values[k * g + (1 if g == 3 else 0)]
    if len(times) == 1 or t <= times[0]:
        return val(0)
    if t >= times[-1]:
        return val(len(times) - 1)
    k = max(i for i in range(len(times)) if times[i] <= t)
    d = times[k + 1] - times[k]
    u = (t - times[k]) / d
    a, b = val(k), val(k + 1)
    if mode == "STEP":
        return a
    if mode == "CUBICSPLINE":
        bo, ai = values[k * 3 + 2], values[(k + 1) * 3]
        u2, u3 = u * u, u * u * u
        out = [(2 * u3 - 3 * u2 + 1) * p + d * (u3 - 2 * u2 + u) * m + (-2 * u3 + 3 * u2) * q +
               d * (u3 - u2) * n for p, m, q, n in zip(a, bo, b, ai)]
    elif path == "rotation":
        dot = sum(x * y for x, y in zip(a, b))
        if dot < 0:
            b, dot = [-y for y in b], -dot
        if dot > 1 - 1e-9:
            wa, wb = 1 - u, u
        else:
            th = math.acos(min(1.0, dot))
            wa, wb = math.sin((1 - u) * th) / math.sin(th), math.sin(u * th) / math.sin(th)
        out = [wa * x + wb * y for x, y in zip(a, b)]
    else:
        out = [x + u * (y - x) for x, y in zip(a, b)]
    if path == "rotation":
        n = math.sqrt(sum(x * x for x in out))
        out = [x / n for x in out]
    return out


def worst_error(src, packed):
    """Worst translation distance and rotation angle (degrees) of packed's
    clips against src's, channels matched by clip name, node name and path."""
    (sdoc, sbin), (pdoc, pbin) = src, packed
    pclips = {a.get("name", str(i)): a for i, a in enumerate(pdoc.get("animations", []))}
    worst_t = worst_r = 0.0
    for i, anim in enumerate(sdoc.get("animations", [])):
        other = pclips.get(anim.get("name", str(i)))
        if other is None:
            continue
        pchan = {}
        for c in other["channels"]:
            node = pdoc["nodes"][c["target"]["node"]].get("name")
            pchan[(node, c["target"]["path"])] = other["samplers"][c["sampler"]]
        end = max(max(x[0] for x in accessor(sdoc, sbin, s["input"])) for s in anim["samplers"])
        for c in anim["channels"]:
            path = c["target"]["path"]
            key = (sdoc["nodes"][c["target"]["node"]].get("name"), path)
            if key not in pchan or path not in ("translation", "rotation"):
                continue
            for step in range(0, 1001, 10):
                t = end * step / 1000.0
                a = sample(sdoc, sbin, anim["samplers"][c["sampler"]], path, t)
                b = sample(pdoc, pbin, pchan[key], path, t)
                if path == "translation":
                    worst_t = max(worst_t, math.dist(a, b))
                else:
                    dot = min(1.0, abs(sum(x * y for x, y in zip(a, b))))
                    worst_r = max(worst_r, math.degrees(2 * math.acos(dot)))
    return worst_t, worst_r


VARIANTS = [("default", None), ("reduce", "anim.reduce: true"),
            ("quantize", "anim.quantize: true"),
            ("reduce+quantize", "anim.reduce: true\n  anim.quantize: true")]


def cook(kiln, path, scratch, name, variant, settings):
    inp = os.path.join(scratch, "%s-%s-in" % (name, variant))
    out = os.path.join(scratch, "%s-%s-out" % (name, variant))
    os.makedirs(inp)
    shutil.copy(path, inp)
    args = [kiln, "build", "-q", "-i", inp, "-o", out]
    if settings:
        config = os.path.join(scratch, "%s-%s.yml" % (name, variant))
        with open(config, "w") as f:
            f.write("default:\n  %s\n" % settings)
        args += ["--config", config]
    subprocess.run(args, check=True)
    info = json.loads(subprocess.run([kiln, "info", "-o", out, "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    clips = [c for f in info["files"] if f["path"].endswith(".kanim") for c in f["clips"]]
    worst_t = max([c.get("error", {}).get("translation", 0) for c in clips] + [0])
    worst_r = max([c.get("error", {}).get("rotation", 0) for c in clips] + [0])
    return os.path.getsize(os.path.join(out, name + ".kanim")), worst_t, math.degrees(worst_r)


def main():
    kiln, corpus, scratch = sys.argv[1:4]
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    gltfpack = shutil.which("gltfpack")
    print("  %-22s %10s %10s %10s %10s %12s %12s" %
          ("model", "source", ".kanim", "kanim keys", "gltfpack", "gltfpack T", "gltfpack R"))
    for model in MODELS:
        path = os.path.join(corpus, model)
        if not os.path.exists(path):
            print("  (skipping %s: not in the corpus)" % model)
            continue
        name = os.path.splitext(os.path.basename(model))[0]
        src = load(path)
        inp, out = os.path.join(scratch, name + "-in"), os.path.join(scratch, name + "-out")
        os.makedirs(inp)
        shutil.copy(path, inp)
        subprocess.run([kiln, "build", "-q", "-i", inp, "-o", out], check=True)
        kanim = os.path.join(out, name + ".kanim")
        info = json.loads(subprocess.run([kiln, "info", "-o", out, "--json"], check=True,
                                         capture_output=True, text=True).stdout)
        keys = sum(c["bytes"] for f in info["files"] if f["path"].endswith(".kanim")
                   for c in f["clips"])
        packed_bytes, err_t, err_r = "-", "-", "-"
        if gltfpack:
            packed_path = os.path.join(scratch, name + "-packed.glb")
            subprocess.run([gltfpack, "-i", path, "-o", packed_path], check=True,
                           capture_output=True)
            packed = load(packed_path)
            packed_bytes = anim_bytes(packed[0])
            t, r = worst_error(src, packed)
            err_t, err_r = "%.2g" % t, "%.2g deg" % r
        print("  %-22s %10d %10d %10d %10s %12s %12s" %
              (name, anim_bytes(src[0]), os.path.getsize(kanim), keys, packed_bytes, err_t,
               err_r))
    print("  (bytes; .kanim holds the source's keys exactly: error 0; 'kanim keys' is its "
          "channel records, times and values)")
    print()
    print("  %-22s %s" % ("model", " ".join("%28s" % v for v, _ in VARIANTS)))
    for model in MODELS:
        path = os.path.join(corpus, model)
        if not os.path.exists(path):
            continue
        name = os.path.splitext(os.path.basename(model))[0]
        cells = []
        for variant, settings in VARIANTS:
            size, t, r = cook(kiln, path, scratch, name, variant, settings)
            cells.append("%28s" % ("%d (T %.2g, R %.2g deg)" % (size, t, r)))
        print("  %-22s %s" % (name, " ".join(cells)))
    print("  (.kanim bytes; T, R: the worst translation distance and rotation angle kiln info "
          "reports)")


main()
