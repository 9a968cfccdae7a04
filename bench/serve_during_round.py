#!/usr/bin/env python3
"""serve_during_round.py — how long `kiln watch --serve` keeps a request for an
up-to-date asset waiting while a round cooks a slow one (docs/runtime.md
"While a round cooks").

A 512 x 512 noise TGA compressed to BC7 in full (texture.fast_first off) is
the slow asset, a one-triangle OBJ the up-to-date one. Each run saves a new
noise texture (one rename), waits until the change round holds the output
lock, then times `FRESH props/tri` and `COOK props/tri` on one connection,
and the round (from the lock seen to its summary line). Prints each run and
the medians.

    python3 bench/serve_during_round.py --kiln BUILD/kiln [--runs 5] [--scratch DIR]
"""
import argparse
import fcntl
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def noise_tga(path, side):
    header = bytes([0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, side & 255, side >> 8,
                    side & 255, side >> 8, 32, 8])
    with open(path + ".part", "wb") as f:
        f.write(header + os.urandom(side * side * 4))
    os.rename(path + ".part", path)


def lock_held(out):
    with open(os.path.join(out, ".kiln-lock"), "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(f, fcntl.LOCK_UN)
        return False


def wait(condition, seconds=600):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            sys.exit("timed out")
        time.sleep(0.002)


def summaries(log):
    with open(log) as f:
        return sum(1 for line in f if line.startswith("kiln: round "))


def ask(stream, line):
    start = time.monotonic()
    stream.write(line.encode() + b"\n")
    stream.flush()
    reply = stream.readline().decode().strip()
    return (time.monotonic() - start) * 1000, reply


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scratch")
    args = parser.parse_args()
    scratch = args.scratch or tempfile.mkdtemp(prefix="kiln-serve-round-")
    shutil.rmtree(os.path.join(scratch, "in"), ignore_errors=True)
    shutil.rmtree(os.path.join(scratch, "out"), ignore_errors=True)
    os.makedirs(os.path.join(scratch, "in", "props"))
    with open(os.path.join(scratch, "kiln.yml"), "w") as f:
        f.write("default:\n  texture.compress: true\n  texture.format: bc7\n"
                "  texture.fast_first: false\n")
    with open(os.path.join(scratch, "in", "props", "tri.obj"), "w") as f:
        f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    noise = os.path.join(scratch, "in", "noise.tga")
    noise_tga(noise, 512)
    out, log = os.path.join(scratch, "out"), os.path.join(scratch, "watch.out")
    with open(log, "w") as stdout, open(os.path.join(scratch, "watch.err"), "w") as stderr:
        watch = subprocess.Popen([args.kiln, "watch", "--config", "kiln.yml", "-i", "in", "-o",
                                  "out", "-j", "2", "--debounce", "50", "--serve"],
                                 cwd=scratch, stdout=stdout, stderr=stderr)
    try:
        wait(lambda: "cook requests on" in open(log).read())
        fresh, cook, rounds = [], [], []
        for run in range(args.runs):
            before = summaries(log)
            noise_tga(noise, 512)
            wait(lambda: lock_held(out))
            seen = time.monotonic()
            client = socket.socket(socket.AF_UNIX)
            client.connect(os.path.join(out, ".kiln-serve"))
            stream = client.makefile("rwb")
            fresh_ms, fresh_reply = ask(stream, "FRESH props/tri")
            cook_ms, cook_reply = ask(stream, "COOK props/tri")
            client.close()
            wait(lambda: summaries(log) > before)
            round_ms = (time.monotonic() - seen) * 1000
            print(f"run {run + 1}: FRESH {fresh_ms:8.2f} ms ({fresh_reply}), "
                  f"COOK {cook_ms:8.2f} ms ({cook_reply}), round {round_ms:8.0f} ms")
            fresh.append(fresh_ms)
            cook.append(cook_ms)
            rounds.append(round_ms)
        print(f"median: FRESH {statistics.median(fresh):.2f} ms, COOK "
              f"{statistics.median(cook):.2f} ms, round {statistics.median(rounds):.0f} ms")
    finally:
        watch.terminate()
        watch.wait()
        if not args.scratch:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
