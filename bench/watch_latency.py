#!/usr/bin/env python3
"""watch_latency.py — hot-reload latency of `kiln watch`.

From the save of a source texture (one rename into the input folder, as
editors save) to the new cooked .ktx2 on disk, with `kiln watch` running. It
is replaced by rename, so "on disk" is "its inode changed", polled every
millisecond (assets.kman is rewritten only when its bytes change, which a
texture's new texels do not).

    python3 bench/watch_latency.py --kiln build/release/kiln [--size 1024]
        [--runs 10] [--debounce 150] [--extra 0] [--uncompressed] [--scratch DIR]
        [--probe build/bench/bench/reload_probe]

--probe adds the runtime's half: bench/reload_probe.c, a game loop using
libkiln's manager (kiln_manager_watch, a pump every millisecond), holds a ref
to the texture and prints the moment kiln_asset_get returns the new data, so
each run also reports save -> new data visible through the existing ref.

A compressed texture is cooked at draft quality first (texture.fast_first)
and in full once the watch is idle: each run then also waits for the full
round (and, with --probe, for its data through the ref) before the next save,
and reports both. --no-fast-first turns drafts off (texture.fast_first: false).

--extra N adds N small OBJ sources beside the texture, to show what a bigger
tree costs each round (a round walks the input and stats every recorded
file). The texture is a noise-and-gradient RGB PNG, a different one per run,
so each save really changes it. Prints each run and the median, min and max.
"""
import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "support"))
from png_tool import png_bytes  # noqa: E402 (after its folder joins the path)


def texture_png(size, seed):
    rng = random.Random(seed)
    noise = bytes(rng.getrandbits(8) for _ in range(4096))
    rgb = bytearray()
    for y in range(size):
        row = bytearray(size * 3)
        base = (y * 255) // size
        for x in range(0, size * 3, 3):
            n = noise[(x + y * 7 + seed) & 4095]
            row[x] = (base + n // 4) & 255
            row[x + 1] = ((x // 3) * 255 // size + seed) & 255
            row[x + 2] = n
        rgb += row
    return png_bytes(size, size, rgb, channels=3, level=6)


def inode(path):
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


def wait_for_line(log_path, marker, start, timeout=600.0):
    """Waits until `marker` appears in the log after byte `start`."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with open(log_path, "rb") as f:
            f.seek(start)
            text = f.read().decode("utf-8", "replace")
        if marker in text:
            return text
        time.sleep(0.01)
    raise SystemExit(f"timed out waiting for '{marker}' in {log_path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--debounce", type=int, default=150)
    parser.add_argument("--extra", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--uncompressed", action="store_true",
                        help="texture.compress: false (a kiln.yml passed with --config)")
    parser.add_argument("--no-fast-first", action="store_true",
                        help="texture.fast_first: false (a kiln.yml passed with --config)")
    parser.add_argument("--scratch", default="bench/data/scratch/watch_latency")
    parser.add_argument("--probe", help="reload_probe binary: also time save -> visible")
    args = parser.parse_args()

    scratch = os.path.abspath(args.scratch)
    shutil.rmtree(scratch, ignore_errors=True)
    source = os.path.join(scratch, "in")
    output = os.path.join(scratch, "out")
    edits = os.path.join(scratch, "edits")
    os.makedirs(os.path.join(source, "props"))
    os.makedirs(edits)
    with open(os.path.join(source, "wall.png"), "wb") as f:
        f.write(texture_png(args.size, 0))
    for i in range(args.extra):
        folder = os.path.join(source, "props", f"f{i // 100:03d}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"quad{i}.obj"), "w") as f:
            f.write(f"v 0 0 {i}\nv 1 0 {i}\nv 1 1 {i}\nv 0 1 {i}\nf 1 2 3 4\n")
    variants = [texture_png(args.size, seed) for seed in range(1, args.runs + 1)]

    config = []
    if args.uncompressed or args.no_fast_first:
        config_path = os.path.join(scratch, "kiln.yml")
        with open(config_path, "w") as f:
            f.write("default:\n")
            if args.uncompressed:
                f.write("  texture.compress: false\n")
            if args.no_fast_first:
                f.write("  texture.fast_first: false\n")
        config = ["--config", config_path]
    log_path = os.path.join(scratch, "watch.log")
    log = open(log_path, "wb")
    probe = None
    watch = subprocess.Popen(
        [os.path.abspath(args.kiln), "watch", "-i", source, "-o", output, "-j", str(args.jobs),
         "--debounce", str(args.debounce)] + config, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_line(log_path, "kiln: watching", 0)
        cooked = os.path.join(output, "wall.ktx2")
        manifest = os.path.join(output, "assets.kman")
        latencies, cooks, visible, finals, final_cooks = [], [], [], [], []
        cooked_line = re.compile(r"^cooked wall\.png -> .*\(([0-9.]+) s(, draft)?\)$")
        if args.probe:
            probe = subprocess.Popen([os.path.abspath(args.probe), output, "wall"],
                                     stdout=subprocess.PIPE, text=True)
            ready = probe.stdout.readline()
            if not ready.startswith("ready"):
                raise SystemExit(f"reload_probe did not start: {ready!r}")
        for run, data in enumerate(variants, 1):
            staged = os.path.join(edits, "wall.png")
            with open(staged, "wb") as f:
                f.write(data)
            before = (inode(cooked), inode(manifest))
            start_log = os.path.getsize(log_path)
            t0 = time.monotonic()
            os.rename(staged, os.path.join(source, "wall.png"))
            # The manifest is rewritten only when its bytes change (not for a
            # texture's new texels): the cooked file's own rename is the mark.
            while inode(cooked) == before[0]:
                time.sleep(0.001)
            latency = time.monotonic() - t0
            text = wait_for_line(log_path, "kiln: round ", start_log)
            cook, draft = None, False
            for line in text.splitlines():
                match = cooked_line.match(line)
                if match:
                    cook, draft = float(match.group(1)), match.group(2) is not None
            latencies.append(latency)
            if cook is not None:
                cooks.append(cook)
            seen = ""
            if probe is not None:
                line = probe.stdout.readline().split()
                if len(line) != 2 or line[0] != "reloaded":
                    raise SystemExit(f"reload_probe: {' '.join(line)}")
                visible.append(float(line[1]) - t0)
                seen = f", {visible[-1] * 1000:.0f} ms to the new data through the ref"
            full = ""
            if draft:  # the full round follows once the watch is idle
                text = wait_for_line(log_path, "(full quality)", start_log)
                for line in text.split("(full quality)")[0].splitlines()[::-1]:
                    match = cooked_line.match(line)
                    if match and match.group(2) is None:
                        final_cooks.append(float(match.group(1)))
                        break
                if probe is not None:
                    line = probe.stdout.readline().split()
                    if len(line) != 2 or line[0] != "reloaded":
                        raise SystemExit(f"reload_probe: {' '.join(line)}")
                    finals.append(float(line[1]) - t0)
                    full = f"; full quality through the ref at {finals[-1] * 1000:.0f} ms"
            print(f"run {run}: {latency * 1000:.0f} ms from save to cooked file"
                  f"{seen} (cook {cook if cook is not None else '?'} s{', draft' if draft else ''})"
                  f"{full}")
            time.sleep(0.3)
    finally:
        if probe is not None:
            probe.terminate()
            probe.wait()
        watch.terminate()
        watch.wait()
        log.close()
    print(f"size {args.size}x{args.size}{' uncompressed' if args.uncompressed else ''}"
          f"{' no fast_first' if args.no_fast_first else ''}, debounce {args.debounce} ms, extra sources "
          f"{args.extra}, -j {args.jobs}, load average {os.getloadavg()[0]:.1f}")
    print(f"latency: median {statistics.median(latencies) * 1000:.0f} ms, "
          f"min {min(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms")
    if visible:
        print(f"save to new data through the existing ref: median "
              f"{statistics.median(visible) * 1000:.0f} ms, min {min(visible) * 1000:.0f} ms, "
              f"max {max(visible) * 1000:.0f} ms")
    if cooks:
        print(f"cook alone (as kiln prints it): median {statistics.median(cooks) * 1000:.0f} ms")
    if finals:
        print(f"save to full quality through the ref: median "
              f"{statistics.median(finals) * 1000:.0f} ms, min {min(finals) * 1000:.0f} ms, "
              f"max {max(finals) * 1000:.0f} ms")
    if final_cooks:
        print(f"full cook alone: median {statistics.median(final_cooks) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
