#!/usr/bin/env python3
"""cook_serial.py — which stages of one model's cook run on one thread only
(BENCHMARKS.md, "Where a cook's time goes").

Cooks SOURCE with `kiln build -j2` and the same work as gltfpack
(mesh.lods: 0, mesh.meshlets: false) under `perf record` with DWARF call
graphs, ROUNDS times for each KILN binary in turn, and splits the CPU time of
each stage in two:

  serial    the cooking thread's samples outside any parallel_for: the other
            thread has nothing of this asset to do meanwhile, so this time
            adds to the wall one for one whatever the core count
  parallel  the samples inside parallel_for items, on every thread: with two
            free cores about half of it adds to the wall

A stage is the outermost of the cooker's functions on the cooking thread's
stack (the other threads' samples go to the stage the cooking thread was in
at that moment). Medians over the rounds, in milliseconds of CPU. On a busy
machine this split holds where wall times do not: a sample outside
parallel_for is serial however late the other thread gets its core.

    python3 bench/cook_serial.py SOURCE ROUNDS KILN [KILN...]
"""
import bisect
import collections
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HZ = 4000
# (function, stage): the first of these met from the stack's root names the stage.
STAGES = [
    ("cook_read_file_on", "read + source hashes"),
    ("hash_source_item", "read + source hashes"),
    ("import_gltf", "import"),
    ("import_obj", "import"),
    ("process_weld_on", "weld"),
    ("process_drop_degenerate", "degenerate triangles"),
    ("process_order_lods_meshlets", "order (sort, cuts, chunks)"),
    ("process_optimize_fetch_on", "fetch order"),
    ("encode_mesh_vertices", "encode (bounds, packing)"),
    ("write_kmesh", ".kmesh image"),
    ("driver_output_emit", "write"),
]
ORDER = ["start-up (loader)"] + list(dict.fromkeys(s for _, s in STAGES)) + ["rest"]


def stage_of(frames):
    for frame in reversed(frames):  # root first
        name = frame.split(".")[0]  # foo.part.0 is foo
        for function, stage in STAGES:
            if name == function:
                return stage
    if any(f.startswith("_dl_") for f in frames):
        return "start-up (loader)"
    return "rest"


def samples_of(script_text):
    """(tid, time, frames leaf first) per sample of `perf script -F tid,time,ip,sym`."""
    out, current = [], None
    for line in script_text.splitlines():
        if not line.strip():
            if current:
                out.append(current)
            current = None
        elif not line.startswith("\t"):
            tid, time = line.split()[:2]
            current = (int(tid), float(time.rstrip(":")), [])
        elif current is not None:
            parts = line.split(None, 1)
            if len(parts) > 1:
                current[2].append(parts[1].replace(" (inlined)", ""))
    if current:
        out.append(current)
    return out


def split_by_stage(samples):
    """{stage: [serial ms, parallel ms]} of one cook."""
    first = {}
    for tid, time, _ in samples:
        first.setdefault(tid, time)
    cooking = min(first, key=first.get)  # the main thread: it starts first
    timeline = sorted((t, stage_of(f)) for tid, t, f in samples if tid == cooking)
    times = [t for t, _ in timeline]
    split = collections.defaultdict(lambda: [0.0, 0.0])
    for tid, time, frames in samples:
        if tid == cooking:
            below = frames[: frames.index("cook_asset")] if "cook_asset" in frames else frames
            split[stage_of(frames)][1 if "parallel_for" in below else 0] += 1000 / HZ
        elif timeline:
            at = min(bisect.bisect_left(times, time), len(times) - 1)
            split[timeline[at][1]][1] += 1000 / HZ
    return split


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    source, rounds, kilns = os.path.abspath(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    if shutil.which("perf") is None:
        print("skipped: perf is not installed")
        return
    work = tempfile.mkdtemp()
    try:
        os.mkdir(os.path.join(work, "in"))
        shutil.copy(source, os.path.join(work, "in"))
        with open(os.path.join(work, "same.yml"), "w") as f:
            f.write("default:\n  mesh.lods: 0\n  mesh.meshlets: false\n")
        print("(load average: %s)" % " ".join(open("/proc/loadavg").read().split()[:3]))
        runs = collections.defaultdict(list)
        for _ in range(rounds):
            for kiln in kilns:  # alternating, so both see the same load
                shutil.rmtree(os.path.join(work, "out"), ignore_errors=True)
                data = os.path.join(work, "perf.data")
                subprocess.run(["perf", "record", "-q", "-e", "task-clock", "-F", str(HZ),
                                "--call-graph", "dwarf,16384", "-o", data, kiln, "build", "-q",
                                "--config", os.path.join(work, "same.yml"), "-i",
                                os.path.join(work, "in"), "-o", os.path.join(work, "out"),
                                "-j2"], check=True, capture_output=True)
                script = subprocess.run(["perf", "script", "-i", data, "-F", "tid,time,ip,sym"],
                                        check=True, capture_output=True, text=True).stdout
                runs[kiln].append(split_by_stage(samples_of(script)))
        print("(load average: %s)" % " ".join(open("/proc/loadavg").read().split()[:3]))
    finally:
        shutil.rmtree(work)
    print("| stage | " + " | ".join("%s: serial / parallel ms" % k for k in kilns) + " |")
    print("|---|" + "--:|" * len(kilns))
    for stage in ORDER + ["sum", "floor (serial + parallel / 2)"]:
        cells = []
        for kiln in kilns:
            def median(pick):
                return statistics.median(pick(run) for run in runs[kiln])
            if stage == "sum":
                serial = median(lambda r: sum(v[0] for v in r.values()))
                parallel = median(lambda r: sum(v[1] for v in r.values()))
            elif stage.startswith("floor"):
                cells.append("%.1f" % median(lambda r: sum(v[0] + v[1] / 2 for v in r.values())))
                continue
            else:
                serial = median(lambda r: r.get(stage, [0.0, 0.0])[0])
                parallel = median(lambda r: r.get(stage, [0.0, 0.0])[1])
            cells.append("%.1f / %.1f" % (serial, parallel))
        print("| %s | %s |" % (stage, " | ".join(cells)))


if __name__ == "__main__":
    main()
