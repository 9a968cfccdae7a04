#!/usr/bin/env bash
# test_watch_serve.sh — `kiln watch --serve` answers while a round cooks.
# Texture cooks are slowed by the test hook (KILN_TEST_SLOW_STAGE=texture:4),
# so a round that cooks one runs for seconds; meanwhile, on a real server:
#   * during a change round (a saved texture): FRESH and COOK of an up-to-date
#     model are answered at once, while the round still runs (the output lock
#     is held, its summary line not printed, the request for the texture not
#     answered); the texture's COOK and FRESH are answered once the round has
#     published it (OK with the new file; FRESH says OK: read the manifest
#     again); a client waiting that long is not closed for silence (a 2 s
#     --idle-timeout);
#   * during a focused round (a COOK of a texture whose cooked file was
#     removed): a model is served at once, and a source added meanwhile,
#     which that round does not cover, is cooked by the next focused round,
#     answered after the texture.
# The same again with kiln built under ThreadSanitizer (KILN_TSAN), which
# must report no race. Every wait is a bounded poll; nothing asserts a
# duration: the order is checked against the round still running.
#
# Environment (set by ctest): KILN, KILN_REPO, KILN_TMP, KILN_COOK_CLIENT
# (empty when libkiln is built without KILN_RUNTIME_DEV: cooking on demand
# is then not built), KILN_TSAN (may be empty).
set -euo pipefail
source "$(dirname "$0")/harness.sh" watch_serve
if ! command -v python3 >/dev/null || ! command -v flock >/dev/null; then
    echo "watch_serve: skipped: python3 or flock not found"
    exit 0
fi
if [ -z "${KILN_COOK_CLIENT:-}" ]; then
    echo "watch_serve: skipped: libkiln built without KILN_RUNTIME_DEV (no cooking on demand)"
    exit 0
fi
PNG_TOOL="$KILN_REPO/tests/support/png_tool.py"

source "$KILN_REPO/tests/support/background.sh"
trap 'stop_watch INT' EXIT

# ask PHASE [ROUNDS]: the client of each phase (below; ROUNDS: how many round
# summaries the watch printed before), its lines in $SCRATCH/replies.
ask() {
    python3 - "$1" "$SCRATCH" "${2:-0}" >"$SCRATCH/replies" 2>&1 <<'PY'
import fcntl, os, select, socket, sys, time
phase, scratch = sys.argv[1], sys.argv[2]
out = os.path.join(scratch, "out")
log = os.path.join(scratch, "watch.out")

def connect():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(120)
    s.connect(os.path.join(out, ".kiln-serve"))
    return s

def ask(s, line):
    s.sendall(line.encode() + b"\n")

def answer(s):
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(1)
        if not chunk:
            return "(closed)"
        data += chunk
    return data.decode().strip()

def answered_yet(s):  # without waiting: has a reply (or the end) come?
    return bool(select.select([s], [], [], 0)[0])

def lock_held():
    with open(os.path.join(out, ".kiln-lock"), "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(f, fcntl.LOCK_UN)
        return False

def summaries(prefix):  # the round lines the watch has printed
    with open(log) as f:
        return sum(1 for line in f if line.startswith(prefix))

if phase == "change":
    # Run while a change round cooks wall.png.
    texture, again = connect(), connect()
    ask(texture, "COOK wall")
    ask(again, "FRESH wall")
    model = connect()
    ask(model, "FRESH props/tri")
    print("fresh tri:", answer(model))
    ask(model, "COOK props/tri")
    print("cook tri:", answer(model))
    running = lock_held() and summaries("kiln: round ") == int(sys.argv[3])
    print("then: round running" if running else "then: round over")
    print("wall then:", "answered" if answered_yet(texture) or answered_yet(again) else "waiting")
    print("cook wall:", answer(texture))
    print("fresh wall:", answer(again))
    print("rounds after:", summaries("kiln: round "))
elif phase == "focused":
    # COOK wall (its cooked file removed) makes a focused round; during it a
    # model is served at once and a new source waits for its own round.
    texture = connect()
    ask(texture, "COOK wall")
    while not lock_held() and not answered_yet(texture):
        time.sleep(0.05)
    print("lock seen")
    os.rename(os.path.join(scratch, "box.obj"), os.path.join(scratch, "in", "props", "box.obj"))
    added = connect()
    ask(added, "COOK props/box")
    model = connect()
    ask(model, "COOK props/tri")
    print("cook tri:", answer(model))
    print("then:", "round running" if lock_held() and not answered_yet(texture) else "round over")
    print("box before wall:", "answered" if answered_yet(added) else "waiting")
    print("cook wall:", answer(texture))
    print("cook box:", answer(added))
PY
}

IN=$SCRATCH/in
mkdir -p "$IN/props"
python3 "$PNG_TOOL" make "$IN/wall.png" 16 16
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$IN/props/tri.obj"
replies_have() { grep -qx -- "$1" "$SCRATCH/replies"; }
log_has() { grep -qE -- "$1" "$SCRATCH/watch.out"; }

# serve_while_cooking LABEL KILN_BINARY [VAR=VALUE...]: both phases on a
# watch run by KILN_BINARY.
serve_while_cooking() {
    local label=$1 binary=$2
    shift 2
    rm -rf "$SCRATCH/out" "$IN/props/box.obj"
    python3 "$PNG_TOOL" make "$IN/wall.png" 16 16
    (cd "$SCRATCH" && exec env KILN_TEST_SLOW_STAGE=texture:4 "$@" "$binary" watch -i in -o out \
        -j 2 --debounce 100 --finish-delay 3600000 --idle-timeout 2 --serve \
        >"$SCRATCH/watch.out" 2>"$SCRATCH/watch.err" </dev/null) &
    watch_pid=$!
    listening() { log_has 'cook requests on out/.kiln-serve'; }
    check "$label: the server starts" wait_for listening

    # A change round: wall.png saved again.
    local before rounds wall_bytes
    wall_bytes=$(md5sum <"$SCRATCH/out/wall.ktx2")
    rounds=$(grep -c '^kiln: round ' "$SCRATCH/watch.out" || true)
    python3 "$PNG_TOOL" opaque "$SCRATCH/next.png" 16 16
    mv "$SCRATCH/next.png" "$IN/wall.png"
    round_running() { ! flock -n "$SCRATCH/out/.kiln-lock" true; }
    wait_for round_running || true
    ask change "$rounds" || true
    check "$label: an up-to-date model is answered at once while a round cooks" \
        all_true "replies_have 'fresh tri: SAME props/tri'" \
        "replies_have 'cook tri: OK props/tri.kmesh'" "replies_have 'then: round running'" \
        "replies_have 'wall then: waiting'"
    check "$label: the texture the round cooks is answered once it is published" \
        all_true "replies_have 'cook wall: OK wall.ktx2'" "replies_have 'fresh wall: OK wall'" \
        "replies_have 'rounds after: $((rounds + 1))'" \
        "[ '$(md5sum <"$SCRATCH/out/wall.ktx2")' != '$wall_bytes' ]" \
        "log_has '^cooked wall.png -> wall.ktx2'"
    check "$label: no focused round for what the published round answered" \
        all_true "! log_has \"^kiln: served 'props/tri'\"" "! log_has \"^kiln: served 'wall'\""

    # A focused round: wall.ktx2 removed, COOK wall; a new model meanwhile.
    rm "$SCRATCH/out/wall.ktx2"
    printf 'v 0 0 0\nv 2 0 0\nv 0 2 0\nf 1 2 3\n' >"$SCRATCH/box.obj"
    ask focused || true
    check "$label: a model is answered at once during a focused round" \
        all_true "replies_have 'cook tri: OK props/tri.kmesh'" "replies_have 'then: round running'"
    check "$label: a new source waits for the focused round, then its own" \
        all_true "replies_have 'box before wall: waiting'" \
        "replies_have 'cook wall: OK wall.ktx2'" "replies_have 'cook box: OK props/box.kmesh'" \
        "log_has \"^kiln: served 'wall': 1 cooked, 0 failed\"" \
        "log_has \"^kiln: served 'props/box': 1 cooked, 0 failed\"" \
        "[ -s '$SCRATCH/out/props/box.kmesh' ]"
    stop_watch INT
    check "$label: the server stops cleanly, no sanitizer report" \
        all_true "[ ! -e '$SCRATCH/out/.kiln-serve' ]" "! grep -q 'Sanitizer' '$SCRATCH/watch.err'"
    if [ "$failed" -gt 0 ]; then
        echo "--- replies"; cat "$SCRATCH/replies"
        echo "--- watch stdout"; cat "$SCRATCH/watch.out"
        echo "--- watch stderr"; head -n 80 "$SCRATCH/watch.err"
    fi
}

serve_while_cooking "asan" "$KILN"
if [ -n "${KILN_TSAN:-}" ]; then
    serve_while_cooking "tsan" "$KILN_TSAN" TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
else
    echo "watch_serve: ThreadSanitizer run skipped: no kiln_tsan (KILN_TEST_TSAN off)"
fi
finish watch_serve
