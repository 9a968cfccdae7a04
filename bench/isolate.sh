#!/usr/bin/env bash
# isolate.sh — what running assimp in a child process costs (BENCHMARKS.md,
# section 10): `kiln build` of assimp models in process (KILN_ISOLATE=0)
# against isolated (the default), timed with hyperfine, -j1 and -j2.
#
#   bash bench/isolate.sh KILN CORPUS [RUNS_SCALE]
#
# Three inputs: the corpus's assimp models (its four PLYs); 200 copies of
# cube_uv.ply, where the per-asset cost shows; three real scans (the
# corpus's bunny, spot and teapot OBJs written as binary PLY, 6k-70k
# triangles). Prints each hyperfine run, then one table: median wall time,
# mean CPU time (user + system, the children's included) and the ratios.
# RUNS_SCALE (default 1) multiplies the number of runs.
set -euo pipefail

kiln=$(realpath "$1")
corpus=$(realpath "$2")
scale=${3:-1}
work="${TMPDIR:-/tmp}/kiln-bench-isolate"
rm -rf "$work"
mkdir -p "$work/many" "$work/scans"
for i in $(seq -w 1 200); do
    cp "$corpus/ply/assimp/cube_uv.ply" "$work/many/cube_$i.ply"
done
python3 - "$corpus/obj/common-3d-test-models" "$work/scans" <<'EOF'
import struct, sys
source, target = sys.argv[1], sys.argv[2]
for name in ("stanford-bunny", "spot", "teapot"):
    vertices, faces = [], []
    for line in open(f"{source}/{name}.obj", errors="replace"):
        words = line.split()
        if words and words[0] == "v":
            vertices.append(struct.pack("<3f", *map(float, words[1:4])))
        elif words and words[0] == "f":
            corners = [int(w.split("/")[0]) for w in words[1:]]
            corners = [c - 1 if c > 0 else len(vertices) + c for c in corners]
            faces += [struct.pack("<B3i", 3, corners[0], corners[k], corners[k + 1])
                      for k in range(1, len(corners) - 1)]
    with open(f"{target}/{name}.ply", "wb") as out:
        out.write(b"ply\nformat binary_little_endian 1.0\n")
        out.write(b"element vertex %d\nproperty float x\nproperty float y\nproperty float z\n"
                  % len(vertices))
        out.write(b"element face %d\nproperty list uchar int vertex_indices\nend_header\n"
                  % len(faces))
        out.write(b"".join(vertices) + b"".join(faces))
EOF

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for input in "corpus PLYs:$corpus/ply:40" "200 x cube_uv.ply:$work/many:10" \
    "3 scans:$work/scans:10"; do
    IFS=: read -r name dir runs <<<"$input"
    for j in 1 2; do
        hyperfine -N --warmup 3 --runs $((runs * scale)) \
            -n "$name -j$j, in process" \
            "env KILN_ISOLATE=0 $kiln build -i $dir -o $work/in_process -q --no-cache -j$j" \
            -n "$name -j$j, isolated" \
            "env KILN_ISOLATE=1 $kiln build -i $dir -o $work/isolated -q --no-cache -j$j" \
            --export-json "$work/${name// /_}-j$j.json"
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
diff -r "$work/in_process" "$work/isolated" >/dev/null && echo "cooked files identical"

python3 - "$work" <<'EOF'
import glob, json, os, statistics, sys
print("\n| input | -j | in process | isolated | isolated / in process | CPU in process | CPU isolated |")
print("|---|---:|---:|---:|---:|---:|---:|")
for path in sorted(glob.glob(sys.argv[1] + "/*.json"), key=os.path.getmtime):
    here, there = json.load(open(path))["results"]
    name, j = here["command"].split(" -j")[0], here["command"].split(" -j")[1].split(",")[0]
    wall = [statistics.median(r["times"]) for r in (here, there)]
    cpu = [r["user"] + r["system"] for r in (here, there)]
    print(f"| {name} | {j} | {wall[0]*1e3:.1f} ms | {wall[1]*1e3:.1f} ms | {wall[1]/wall[0]:.2f}x "
          f"| {cpu[0]*1e3:.1f} ms | {cpu[1]*1e3:.1f} ms |")
EOF
