#!/usr/bin/env python3
"""fresh_cost.py — what the development runtime's FRESH check costs per asset
(docs/runtime.md "Stale files").

Cooks N small textures, starts `kiln watch --serve` on them, then loads every
one synchronously with the test client (tests/support/cook_client.c: a
manager, one kiln_manager_load_ref per ref), alternately without the server
(socket "-": no FRESH) and with it (one FRESH round trip before each file's
first read, answered SAME: nothing changed). Reports the median wall time of
a run, the client's CPU (user + sys, from the children's rusage) and the
server's CPU (from /proc/PID/stat, clock ticks) per run, and their
differences per asset.

    python3 bench/fresh_cost.py --kiln BUILD/kiln \\
        --client BUILD/tests/kiln_cook_client [--assets 60] [--runs 15]

The client is built with tests in a development build (KILN_RUNTIME_DEV, the
default when tests are on). At most 64 refs per run (the client's limit).
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "support"))
from png_tool import write_png  # noqa: E402 (after its folder joins the path)


def png(path, size, seed):
    rgb = bytes((x * seed + y * 3 + seed) & 255 for y in range(size) for x in range(size * 3))
    write_png(path, size, size, rgb, channels=3)


def server_cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--client", required=True)
    ap.add_argument("--assets", type=int, default=60)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    if not 1 <= args.assets <= 64:
        sys.exit("--assets: 1 to 64")
    scratch = tempfile.mkdtemp(prefix="kiln_fresh_")
    src, out = os.path.join(scratch, "in"), os.path.join(scratch, "out")
    os.mkdir(src)
    refs = [f"t{i:02d}" for i in range(args.assets)]
    for i, ref in enumerate(refs):
        png(os.path.join(src, ref + ".png"), 8, i + 1)
    subprocess.run([args.kiln, "build", "-q", "-i", src, "-o", out], check=True)
    socket = os.path.join(out, ".kiln-serve")
    watch = subprocess.Popen([args.kiln, "watch", "-q", "-i", src, "-o", out, "--serve"],
                             stdout=subprocess.DEVNULL)
    try:
        for _ in range(600):
            if os.path.exists(socket):
                break
            time.sleep(0.1)
        else:
            sys.exit("the server did not start")
        wall = {"none": [], "fresh": []}
        cpu = {"none": 0.0, "fresh": 0.0}
        served = {"none": 0.0, "fresh": 0.0}
        for _ in range(args.runs):
            for mode in ("none", "fresh"):
                s0 = server_cpu(watch.pid)
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                subprocess.run([args.client, out, socket if mode == "fresh" else "-"] + refs,
                               stdout=subprocess.DEVNULL, check=True)
                t1 = time.perf_counter()
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                wall[mode].append(t1 - t0)
                cpu[mode] += (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
                served[mode] += server_cpu(watch.pid) - s0
        n = args.assets
        for mode in ("none", "fresh"):
            print(f"{mode:5}: median wall {statistics.median(wall[mode]) * 1e3:8.2f} ms, "
                  f"client CPU {cpu[mode] / args.runs * 1e3:8.2f} ms, "
                  f"server CPU {served[mode] / args.runs * 1e3:6.2f} ms per run of {n} loads")
        print("FRESH per asset: wall %+.1f us, client CPU %+.1f us, server CPU %.1f us" % (
            (statistics.median(wall["fresh"]) - statistics.median(wall["none"])) / n * 1e6,
            (cpu["fresh"] - cpu["none"]) / args.runs / n * 1e6,
            served["fresh"] / args.runs / n * 1e6))
    finally:
        watch.terminate()
        watch.wait()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
