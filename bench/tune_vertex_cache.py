#!/usr/bin/env python3
"""tune_vertex_cache.py — the search that chose the scores of kiln's vertex
cache order (process/vertex_cache.c, vertex_cache_tuned).

A hill climb from a starting table: each round makes two random changes of
the best table so far (one score of an age class or of a live-triangle
count, or one class boundary moved by an age), measures both with
bench_vertex_cache --scores, and keeps a change that lowers the cost. The
cost is the mean over the training runs of kiln's ACMR / meshoptimizer's
(FIFO of 16, as bench_vertex_cache prints it), so every mesh counts alike.

The ages keep the shape that makes kiln's order cheap: the three newest share
one score, then four classes of equal score up to age 15 (three boundaries),
so an insertion rescores at most five vertices.

Training meshes are none of those BENCHMARKS.md measures the order on: the
50k-quad grid whole (file order) and cut in chunks of 20,000 triangles along
the curve (as the cooker cuts the 1M and 4M grids), the spheres of
MetalRoughSpheresNoTextures (1M triangles, cut by the cooker's chunk size),
the pirate and the spider.

    python3 bench/tune_vertex_cache.py --bench BUILD/bench/bench_vertex_cache \\
        --data bench/data --corpus CORPUS [--rounds 120] [--seed 1] [--reduced]

With --reduced it tunes the scores for reduced levels (vertex_cache_tuned_reduced)
instead: the cost is over the reduced levels of the same meshes but the spider
(112 triangles left), cooked with kiln's order and ordered again
(bench_vertex_cache --reduced), and the search starts from level 0's tuned scores.

Deterministic for a given seed (ACMR does not depend on timing). Prints each
improvement and, last, the table in the order --scores takes it.
"""
import argparse
import json
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

FIFO = 16
VALENCE = 8

# The scores in use before the first search (the formula's table, rounded).
START = {
    "newest": 0.75,
    "bounds": [7, 11, 15],
    "classes": [1.0, 0.996, 0.9375, 0.684],
    "live": [0.7, 0.5444, 0.3889, 0.2333, 0.0778, 0.0, 0.0, 0.0],
}

# Level 0's tuned scores (vertex_cache_tuned), where --reduced starts.
TUNED = {
    "newest": 0.741,
    "bounds": [7, 13, 15],
    "classes": [0.946, 1.078, 0.979, 0.531],
    "live": [0.7, 0.544, 0.389, 0.158, 0.078, 0.0, 0.0, 0.0],
}


def table(p):
    """The 26 numbers of --scores: 17 by age (16: not cached), 9 by live triangles."""
    cache = []
    for age in range(FIFO):
        if age < 3:
            cache.append(p["newest"])
        else:
            cache.append(p["classes"][sum(1 for b in p["bounds"] if age >= b)])
    return cache + [0.0] + [0.0] + p["live"]


def runs(data, corpus, reduced):
    grid = os.path.join(data, "grid_224.obj")
    others = [
        os.path.join(corpus, "gltf/MetalRoughSpheresNoTextures/glTF-Binary/MetalRoughSpheresNoTextures.glb"),
        os.path.join(corpus, "obj/pirate/pirate.obj"),
        os.path.join(corpus, "obj/spider/spider.obj"),
    ]
    for path in [grid] + others:
        if not os.path.exists(path):
            sys.exit(f"tune_vertex_cache: missing training mesh {path}")
    if reduced:
        return [(["--reduced", "--chunk", "20000"], [grid]), (["--reduced"], [grid] + others[:2])]
    return [(["--chunk", "20000"], [grid]), ([], [grid] + others)]


def cost(bench, training, p):
    scores = ",".join(f"{x:.4f}" for x in table(p))
    ratios = []
    for extra, files in training:
        out = subprocess.run([bench] + extra + ["--reps", "1", "--scores", scores] + files,
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("| `"):
                cells = line.split("|")
                ratios.append(float(cells[4]) / float(cells[3]))
    return sum(ratios) / len(ratios), ratios


def mutate(p, rng):
    q = json.loads(json.dumps(p))
    r = rng.random()
    if r < 0.2:
        q["newest"] = min(1.2, max(0.0, q["newest"] + rng.gauss(0, 0.1)))
    elif r < 0.5:
        i = rng.randrange(len(q["classes"]))
        q["classes"][i] = max(0.0, q["classes"][i] + rng.gauss(0, 0.08))
    elif r < 0.65:
        i = rng.randrange(len(q["bounds"]))
        low = q["bounds"][i - 1] + 1 if i > 0 else 4
        high = q["bounds"][i + 1] - 1 if i + 1 < len(q["bounds"]) else FIFO - 1
        q["bounds"][i] = min(high, max(low, q["bounds"][i] + rng.choice([-1, 1])))
    else:
        i = rng.randrange(VALENCE)
        q["live"][i] = max(0.0, q["live"][i] + rng.gauss(0, 0.1))
    return q


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--rounds", type=int, default=120)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reduced", action="store_true")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    training = runs(args.data, args.corpus, args.reduced)
    best = TUNED if args.reduced else START
    best_cost, ratios = cost(args.bench, training, best)
    print(f"start {best_cost:.4f} {ratios}", flush=True)
    with ThreadPoolExecutor(2) as pool:
        for round_ in range(args.rounds):
            candidates = [mutate(best, rng) for _ in range(2)]
            results = list(pool.map(lambda q: cost(args.bench, training, q), candidates))
            for q, (c, r) in zip(candidates, results):
                if c < best_cost:
                    best, best_cost = q, c
                    print(f"{round_} {best_cost:.4f} {[round(x, 4) for x in r]} {json.dumps(best)}",
                          flush=True)
    print(f"best {best_cost:.4f} {json.dumps(best)}")
    print("--scores " + ",".join(f"{x:.3f}" for x in table(best)))


if __name__ == "__main__":
    main()
