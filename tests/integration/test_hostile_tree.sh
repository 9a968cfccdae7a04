#!/usr/bin/env bash
# test_hostile_tree.sh — a source tree that attacks the cooker:
# links out of the tree and in loops, FIFOs, sockets, a path longer than
# PATH_MAX, names with newlines and escape sequences, an unreadable folder.
# Each is named in a warning or an error, nothing outside the tree is read,
# nothing hangs, the rest cooks, and the exit status says that something
# failed.
#
# Environment (set by ctest): KILN (the executable), KILN_TMP (scratch folder).
set -euo pipefail
source "$(dirname "$0")/harness.sh" hostile_tree

IN="$SCRATCH/in"
mkdir -p "$IN/sub"
tri() { printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$1"; }
tri "$IN/good.obj"
tri "$IN/sub/ok.obj"
# A secret outside the tree, and links to it: at the top, and through a folder.
printf 'v 0 0 0\nSECRET-LINE one\nSECRET-LINE two\n' >"$SCRATCH/secret.obj"
ln -s "$SCRATCH/secret.obj" "$IN/passwd.obj"
ln -s "$SCRATCH" "$IN/outside"
ln -s loop.obj "$IN/loop.obj"
mkfifo "$IN/pipe.obj"
# A FIFO named as a model's material library.
printf 'mtllib pipe.mtl\nusemtl a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$IN/withmtl.obj"
mkfifo "$IN/pipe.mtl"
# A name with a newline and an escape sequence, holding a bad OBJ.
evil=$'evil\n\e[31mred.obj'
printf 'v 0 0 0\nf 1 2 9\n' >"$IN/$evil"
# A model deeper than PATH_MAX (made one folder at a time).
long=$(printf 'd%.0s' $(seq 1 200))
(cd "$IN" && for _ in $(seq 1 22); do mkdir "$long" && cd "$long"; done && tri far.obj)
# An unreadable folder (root reads every folder: only as another user).
locked=no
if [ "$(id -u)" -ne 0 ]; then
    mkdir "$IN/locked" && tri "$IN/locked/x.obj" && chmod 000 "$IN/locked" && locked=yes
fi
has_socket=no
if command -v python3 >/dev/null &&
    python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$IN/sock.png"; then
    has_socket=yes
fi

set +e
(cd "$SCRATCH" && timeout 300 "$KILN" build -i in -o out) >"$SCRATCH/stdout" 2>"$SCRATCH/stderr" </dev/null
status=$?
set -e
[ "$locked" = yes ] && chmod 755 "$IN/locked"

check "the build ends (no hang on a FIFO) and fails" status_is 1
check "the good models cook" test -f "$SCRATCH/out/good.kmesh" -a -f "$SCRATCH/out/sub/ok.kmesh"
check "a model whose .mtl is a FIFO still cooks" test -f "$SCRATCH/out/withmtl.kmesh"
check "a link out of the tree is named and not followed" \
    stderr_has '^in/passwd.obj: warning: symbolic link leads outside the input folder \(not followed\)$'
check "nothing of the file outside is read" stderr_lacks 'SECRET-LINE'
check "nor cooked" test ! -e "$SCRATCH/out/passwd.kmesh"
check "a link to a folder is named" stderr_has '^in/outside: warning: symbolic link to a folder'
check "a link loop is named" stderr_has '^in/loop.obj: warning: symbolic link loop'
check "a FIFO source is an error" stderr_has '^in/pipe.obj: error: a FIFO, not a regular file'
check "a FIFO dependency is named" stderr_has "withmtl.obj:1: warning: .*'pipe.mtl': a FIFO"
check "a path over PATH_MAX is an error for it alone" stderr_has '^in/ddd.*: error: path is [0-9]+ bytes, longer than the system allows'
check "names are printed escaped" stderr_has 'evil\\x0A\\x1B\[31mred.obj'
check "no raw escape byte reaches the log" bash -c "! grep -q $'\e' '$SCRATCH/stderr'"
check "the end says the input had errors" stderr_has 'kiln: error: [0-9]+ files or folders of the input could not be read'
if [ "$has_socket" = yes ]; then
    check "a socket is an error" stderr_has '^in/sock.png: error: a socket, not a regular file'
else
    echo "skipped: no python3 to bind a socket"
fi
if [ "$locked" = yes ]; then
    check "an unreadable folder is an error for it alone" \
        stderr_has '^in/locked: error: cannot read the folder: Permission denied'
else
    echo "skipped: unreadable folder (running as root, which reads every folder)"
fi

# A second build: the same problems, reported again, and the good models up to date.
set +e
(cd "$SCRATCH" && timeout 300 "$KILN" build -i in -o out) >"$SCRATCH/stdout" 2>"$SCRATCH/stderr" </dev/null
status=$?
set -e
check "a rebuild reports them again and fails" all_true "status_is 1" \
    "stderr_has '^in/pipe.obj: error: a FIFO'"

finish "hostile tree"
