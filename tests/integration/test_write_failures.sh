#!/usr/bin/env bash
# test_write_failures.sh — a build that cannot write: past a file
# size limit (`ulimit -f`) kiln is not killed by SIGXFSZ but reports the write
# that failed (EFBIG) as an error naming the file; a model whose texture cannot
# be written fails (it was a warning, exit 0, and the .kmat slot emptied);
# nothing is cached for it, so the next build with room cooks it and `kiln
# check` passes; a later rebuild that fails the same way keeps every previous
# output of the model (they are published together or not at all). The same on a full file system (ENOSPC) when a small tmpfs
# can be mounted without root privileges (`unshare -rm`); skipped otherwise.
#
# Environment (set by ctest): KILN (the executable), KILN_TMP (scratch folder).
set -euo pipefail
source "$(dirname "$0")/harness.sh" write_failures
if ! command -v python3 >/dev/null; then
    echo "write failures: skipped: python3 not found (it writes the test image)"
    exit 0
fi

# A model with a 256 x 256 noise texture, stored uncompressed (256 KiB at level
# 0; no block compression, so the test stays quick in a sanitizer build), and
# a small mesh.
printf 'default:\n  texture.compress: false\n' >"$SCRATCH/kiln.yml"
python3 - "$SCRATCH/in" <<'PY'
import os, random, sys
from png_tool import write_png
root = sys.argv[1]
os.makedirs(root)
random.seed(7)
size = 256
rgb = bytes(random.getrandbits(8) for _ in range(size * size * 3))
write_png(os.path.join(root, "skin.png"), size, size, rgb, channels=3, level=1)
with open(os.path.join(root, "m.mtl"), "w") as f:
    f.write("newmtl a\nKd 1 1 1\nmap_Kd skin.png\n")
with open(os.path.join(root, "crate.obj"), "w") as f:
    f.write("mtllib m.mtl\nusemtl a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n")
with open(os.path.join(root, "small.obj"), "w") as f:
    f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
PY

# 64 KiB per file: the meshes, the manifest and the cache fit, the texture does not.
set +e
(cd "$SCRATCH" && ulimit -f 64 && "$KILN" build -i in -o out) >"$SCRATCH/stdout" 2>"$SCRATCH/stderr" </dev/null
status=$?
set -e
check "ulimit -f: not killed by SIGXFSZ, exit 1" status_is 1
check "the failed write names the file and EFBIG" \
    stderr_has "cannot write 'out/crate/skin.ktx2': File too large"
check "the model fails for its texture" \
    stderr_has "crate.obj: error: material 'a': texture 'skin.png' was not written"
check "no warning that empties the slot instead" stderr_lacks "its slot gets no texture"
check "no texture under its final name" test ! -e "$SCRATCH/out/crate/skin.ktx2"
check "the other model cooks" test -f "$SCRATCH/out/small.kmesh"
check "the summary counts the failure" stdout_has "; 1 failed;"

run_in "$SCRATCH" build -i in -o out
check "with room again, the model cooks (nothing was cached for it)" \
    all_true "status_is 0" "stdout_has 'cooked 1 asset'" "test -f '$SCRATCH/out/crate/skin.ktx2'"
run_in "$SCRATCH" check -o out
check "kiln check passes" status_is 0

# A rebuild that fails half-way keeps the model's previous outputs, all of
# them: its new mesh and material are not put next to its old texture.
sums() { (cd "$SCRATCH/out" && find . -path './crate*' -type f | sort | xargs sha256sum); }
before=$(sums)
printf 'v 0 0 1\nf 1 2 4\n' >>"$SCRATCH/in/crate.obj"
printf 'newmtl a\nKd 0.5 1 1\nmap_Kd skin.png\n' >"$SCRATCH/in/m.mtl"
set +e
(cd "$SCRATCH" && ulimit -f 64 && "$KILN" build -i in -o out) >"$SCRATCH/stdout" 2>"$SCRATCH/stderr" </dev/null
status=$?
set -e
check "a rebuild whose texture cannot be written fails" \
    all_true 'status_is 1' 'stderr_has "crate.obj: error: material"'
check "and leaves every previous output of the model as it was" test "$(sums)" = "$before"
check "and no temporary behind" test -z "$(find "$SCRATCH/out" -name '.*.kiln-*')"
run_in "$SCRATCH" check -o out
check "kiln check still passes" status_is 0

# A full file system: a 96 KiB tmpfs in a user and mount namespace.
if command -v unshare >/dev/null && unshare -rm true 2>/dev/null; then
    mkdir -p "$SCRATCH/small"
    set +e
    (cd "$SCRATCH" && unshare -rm sh -c \
        'mount -t tmpfs -o size=96k kiln-test small && "$1" build -i in -o small/out' sh "$KILN") \
        >"$SCRATCH/stdout" 2>"$SCRATCH/stderr" </dev/null
    status=$?
    set -e
    check "full disk: exit 1" status_is 1
    check "full disk: the failed write names the file" \
        stderr_has "cannot write 'small/out/crate/skin.ktx2': No space left on device"
    check "full disk: the model fails" stderr_has "crate.obj: error: material 'a'"
else
    echo "skipped: full disk (no unprivileged mount namespace to mount a small tmpfs)"
fi

finish "write failures"
