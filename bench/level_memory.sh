#!/usr/bin/env bash
# level_memory.sh — peak resident memory of cooking one big level, by shape,
# as a multiple of the file (what `--memory-limit` estimates a level at:
# LEVEL_MULTIPLE in src/build/memory.c).
# Usage: bench/level_memory.sh KILN [MB]   (each level about MB megabytes; default 20)
# Shapes (python3 writes them): `mixed`, entities with a transform, every
# third parented, two small components; `plain`, entities with a transform
# only; `digits`, a component list of one-digit numbers (`5, 3, ...`);
# `ones`, `[1,1,1,...]`; `maps`, `[{},{},...]`, the densest nodes YAML spells.
# Each is cooked alone (-j1, --no-cache); peak RSS by /usr/bin/time -f %M
# (Debian's `time` package).
set -euo pipefail
kiln=$1
megabytes=${2:-20}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '%-8s %12s %10s %8s %8s\n' shape 'file bytes' 'peak MiB' 'x file' 'CPU s'
for shape in mixed plain digits ones maps; do
    rm -rf "$scratch/in" "$scratch/out"
    mkdir -p "$scratch/in/levels"
    python3 - "$scratch/in/levels/big.level" "$((megabytes * 1000000))" "$shape" <<'PY'
import random, sys
path, target, shape = sys.argv[1], int(sys.argv[2]), sys.argv[3]
random.seed(1)
with open(path, "w") as f:
    f.write("entities:\n")
    i = 0
    while f.tell() < target:
        if shape in ("mixed", "plain"):
            f.write(f"  - name: e{i}\n    translation: [{random.random():.4f}, "
                    f"{random.random():.4f}, {random.random():.4f}]\n")
            if shape == "mixed":
                if i % 3 == 0 and i > 0:
                    f.write(f"    parent: e{i - 1}\n")
                f.write(f"    components:\n      health: {{value: {i % 100}, max: 100}}\n"
                        f"      tag: {{name: \"t{i % 17}\"}}\n")
        else:
            items = {"digits": lambda: ", ".join(str(random.randint(0, 9)) for _ in range(2000)),
                     "ones": lambda: ",".join("1" for _ in range(4000)),
                     "maps": lambda: ",".join("{}" for _ in range(3000))}[shape]()
            f.write(f"  - name: e{i}\n    components:\n      d: [{items}]\n")
        i += 1
PY
    size=$(stat -c %s "$scratch/in/levels/big.level")
    /usr/bin/time -o "$scratch/time" -f '%M %U %S' "$kiln" build -i "$scratch/in" \
        -o "$scratch/out" -j1 --no-cache -q
    read -r kib user sys <"$scratch/time"
    awk -v s="$shape" -v b="$size" -v k="$kib" -v u="$user" -v y="$sys" \
        'BEGIN { printf "%-8s %12d %10.0f %8.1f %8.2f\n", s, b, k / 1024, k * 1024 / b, u + y }'
done
