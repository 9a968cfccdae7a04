#!/usr/bin/env bash
# test_watch.sh — `kiln watch`: a background watch on a scratch
# tree recooks what each edit changes and nothing else (an edited texture
# alone; an edited .mtl, the models that read it; a new model in a new
# folder), reports a broken model and goes on, and stops on SIGTERM with the
# lock released and an output equal to a clean build's. Then `--serve`: a
# runtime built on the public API loads refs whose cooked files are missing
# or were never cooked, and bad requests get ERR replies.
# Requested (asynchronous) loads get the same from the manager's workers,
# several asking at once, and a request cancelled (its scope destroyed) while
# its cook is under way is dropped when the cook comes back. Without workers
# kiln_manager_pump loads and so asks. A request by ref of a source added
# after the server started (no manifest names it) is cooked without waiting
# and loaded. A cooked file older than its source (a save the watch has not
# cooked yet: a long debounce) is brought up to date before it is read; one
# whose source fails to cook loads with the failure as its reload status.
# Silent connections: 16 of them do not lock a 17th client out, a short
# --idle-timeout closes them, and the runtime reconnects after it.
#
# Every wait is a bounded poll; nothing asserts a duration.
# Environment (set by ctest): KILN, KILN_TMP, KILN_COOK_CLIENT (the runtime
# client, empty when libkiln is built without KILN_RUNTIME_DEV),
# KILN_COOK_CLIENT_TSAN (the same client under ThreadSanitizer, may be empty).
set -euo pipefail
source "$(dirname "$0")/harness.sh" watch
source "$(dirname "$0")/../support/background.sh"
if ! command -v python3 >/dev/null; then
    echo "watch: skipped: python3 not found (it writes the test images)"
    exit 0
fi

# write_png PATH SIZE SEED: an RGB PNG whose texels depend on SEED.
write_png() {
    python3 - "$@" <<'PY'
import sys
from png_tool import write_png
path, size, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rgb = bytes((x * seed + y * 3 + seed) & 255 for y in range(size) for x in range(size * 3))
write_png(path + ".part", size, size, rgb, channels=3)
PY
    mv "$1.part" "$1" # saved the way editors save: one rename
}

# Command-line mistakes and a missing input folder.
run_in "$SCRATCH" watch --debounce 1x
check "a bad --debounce is a usage error" all_true "status_is 2" "stderr_has 'invalid debounce'"
run_in "$SCRATCH" watch --dry-run
check "--dry-run is refused" all_true "status_is 2" "stderr_has 'dry-run is for kiln build'"
run_in "$SCRATCH" watch -i missing -o out
check "a missing input folder ends the watch" \
    all_true "status_is 1" "stderr_has \"input folder 'missing' does not exist\""

IN=$SCRATCH/in
mkdir -p "$IN/props"
write_png "$IN/wall.png" 32 5
write_png "$IN/props/crate.png" 32 7
printf 'newmtl wood\nKd 1 1 1\nmap_Kd crate.png\n' >"$IN/props/crate.mtl"
printf 'mtllib crate.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nusemtl wood\nf 1/1 2/2 3/3\n' \
    >"$IN/props/crate.obj"
printf 'mtllib crate.mtl\nv 0 0 0\nv 2 0 0\nv 0 2 0\nusemtl wood\nf 1 2 3\n' >"$IN/props/barrel.obj"

WATCH_OUT=$SCRATCH/watch.out
WATCH_ERR=$SCRATCH/watch.err
trap stop_watch EXIT
watch_has() { grep -qE -- "$1" "$WATCH_OUT"; }
# start_watch [VAR=VALUE...] -- ARGS...: `kiln watch ARGS` (in that
# environment) in the background in $SCRATCH, its pid in $watch_pid, its
# output in $WATCH_OUT and $WATCH_ERR. The last watch must have been stopped.
start_watch() {
    local vars=()
    while [ "$1" != -- ]; do
        vars+=("$1")
        shift
    done
    shift
    if [ -n "$watch_pid" ]; then
        echo "FAIL: test_watch.sh starts a watch while another (pid $watch_pid) runs"
        exit 1
    fi
    (cd "$SCRATCH" && exec env ${vars[@]+"${vars[@]}"} "$KILN" watch "$@" \
        >"$WATCH_OUT" 2>"$WATCH_ERR") &
    watch_pid=$!
}
# Every edit is one rename into the input (written beside it first), so that
# it is one event whatever the machine's load: a slow writer cannot split it
# into two rounds.
EDITS=$SCRATCH/edits
mkdir -p "$EDITS"
put() { # put PATH TEXT: PATH (under in/) gets TEXT
    printf "$2" >"$EDITS/next"
    mv "$EDITS/next" "$IN/$1"
}
put_png() { # put_png PATH SIZE SEED
    write_png "$EDITS/next.png" "$2" "$3"
    mv "$EDITS/next.png" "$IN/$1"
}
# mark: how many lines the watch has printed; since MARK: the lines after it.
mark() { wc -l <"$WATCH_OUT"; }
since() { tail -n +"$(($1 + 1))" "$WATCH_OUT"; }
# wait_round MARK PATTERN: waits until a round summary follows a line
# matching PATTERN, both after MARK.
round_after() { since "$1" | awk -v p="$2" '$0 ~ p {seen = 1} seen && /^kiln: round / {found = 1} END {exit !found}'; }
wait_round() { wait_for round_after "$1" "$2"; }
# wait_full MARK: waits for the round that cooks the drafts in full.
full_after() { since "$1" | grep -q '^kiln: round [0-9]* (full quality): '; }
wait_full() { wait_for full_after "$1"; }
count_since() { since "$1" | grep -c -- "$2" || true; }
inode() { stat -c %i "$SCRATCH/$1"; }

start_watch -- -i in -o out -j 2 --debounce 100
check "the watch builds first, then watches" \
    all_true "wait_for watch_has '^kiln: watching in'" "watch_has '^kiln: cooked 3 assets'"
check "the lock is free between rounds" \
    all_true "[ -f '$SCRATCH/out/.kiln-lock' ]" "flock -n '$SCRATCH/out/.kiln-lock' true"

# An edited texture recooks alone.
crate_mesh=$(inode out/props/crate.kmesh)
barrel_mesh=$(inode out/props/barrel.kmesh)
wall_bytes=$(md5sum <"$SCRATCH/out/wall.ktx2")
m=$(mark)
put_png wall.png 32 11
wait_round "$m" '^cooked wall.png' || true
check "a texture edit makes a round that recooks it, a draft first" \
    all_true "since $m | grep -q '^cooked wall.png -> wall.ktx2 (.*, draft)'" \
    "[ '$(md5sum <"$SCRATCH/out/wall.ktx2")' != '$wall_bytes' ]" \
    "since $m | grep -q '^kiln: round [0-9]*: 1 cooked (1 draft), 0 failed'"
wait_full "$m" || true
check "then, the watch idle, a round cooks it in full" \
    all_true "since $m | grep -q '^kiln: round [0-9]* (full quality): 1 cooked, 0 failed'" \
    "[ \$(since $m | grep -c '^cooked wall.png -> wall.ktx2 ([0-9.]* s)') -eq 1 ]"
# build_count_assets: the first build's summary and a round count the same
# sources (cooked, failed, read by models, up to date), so their sums agree.
counted() { # the sum of the counts of the last line matching $1 in $WATCH_OUT
    grep -E -- "$1" "$WATCH_OUT" | tail -n 1 | sed -E 's/^kiln: (round [0-9]+: )?//' |
        grep -oE '[0-9]+ (assets?|cooked|failed|read by models|up to date)' |
        awk '{sum += $1} END {print sum + 0}'
}
check "a round counts what the first build's summary counts" \
    all_true "[ $(counted '^kiln: cooked [0-9]+ assets') -gt 0 ]" \
    "[ $(counted '^kiln: cooked [0-9]+ assets') -eq $(counted '^kiln: round [0-9]+: ') ]"
check "and nothing else" \
    all_true "[ $(count_since "$m" '^cooked') -eq 2 ]" \
    "[ $(inode out/props/crate.kmesh) -eq $crate_mesh ]" \
    "[ $(inode out/props/barrel.kmesh) -eq $barrel_mesh ]"

# An edited .mtl recooks the models that read it, not the texture.
wall_before=$(inode out/wall.ktx2)
m=$(mark)
put props/crate.mtl 'newmtl wood\nKd 0.5 0.25 1\nmap_Kd crate.png\n'
wait_round "$m" '^cooked props/(crate|barrel).obj' || true
check "a .mtl edit recooks both models that read it" \
    all_true "since $m | grep -q '^cooked props/crate.obj'" \
    "since $m | grep -q '^cooked props/barrel.obj'" \
    "[ \$(count_since $m '^cooked') -eq 2 ]"
check "and leaves the texture" \
    all_true "[ $(inode out/wall.ktx2) -eq $wall_before ]" \
    "[ $(inode out/props/crate.kmesh) -ne $crate_mesh ]"

# A new model in a folder made after the watch started.
m=$(mark)
mkdir -p "$IN/new/deep"
put new/deep/thing.obj 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n'
wait_round "$m" '^cooked new/deep/thing.obj' || true
check "a new model in a new folder cooks" \
    all_true "since $m | grep -q '^cooked new/deep/thing.obj -> new/deep/thing.kmesh'" \
    "test -f '$SCRATCH/out/new/deep/thing.kmesh'" "grep -aq 'new/deep/thing' '$SCRATCH/out/assets.kman'"

# Editor temporaries and hidden files make no round of their own: written
# before a real edit (with a pause longer than the debounce between), only
# the edit's round comes.
m=$(mark)
printf 'x' >"$IN/props/.#crate.obj"
printf 'x' >"$IN/props/crate.obj~"
printf 'x' >"$IN/props/4913"
printf 'x' >"$IN/props/.crate.obj.swp"
sleep 0.5 # a chance for a (wrong) round of their own
put_png wall.png 32 13
wait_round "$m" '^cooked wall.png' || true
wait_full "$m" || true
check "editor temporaries are ignored" \
    all_true "[ \$(count_since $m '^kiln: round [0-9]*: ') -eq 1 ]" \
    "[ \$(count_since $m '^kiln: round ') -eq 2 ]" "since $m | grep -q '^cooked wall.png'"
rm -f "$IN/props/.#crate.obj" "$IN/props/crate.obj~" "$IN/props/4913" "$IN/props/.crate.obj.swp"

# A broken model is reported; the watch goes on and cooks its fix.
m=$(mark)
put props/barrel.obj 'v 0 0 0\nf 1 2 9\n'
wait_round "$m" '^failed props/barrel.obj' || true
check "a broken model is reported" \
    all_true "since $m | grep -q '^failed props/barrel.obj'" \
    "grep -q 'props/barrel.obj:2: error: ' '$WATCH_ERR'" \
    "since $m | grep -q '1 failed.*(errors above)'"
check "the watch keeps running" kill -0 "$watch_pid"
m=$(mark)
put props/barrel.obj 'mtllib crate.mtl\nv 0 0 0\nv 3 0 0\nv 0 3 0\nusemtl wood\nf 1 2 3\n'
wait_round "$m" '^cooked props/barrel.obj' || true
check "its fix cooks" all_true "since $m | grep -q '^cooked props/barrel.obj'"

# SIGTERM: the watch ends, exit status 0, lock released.
stop_watch TERM
check "SIGTERM stops the watch cleanly" \
    all_true "[ $stopped_status -eq 0 ]" "watch_has '^kiln: watch stopped \(SIGTERM\)'"
run_in "$SCRATCH" build -i in -o out
check "a build after it finds everything up to date, without waiting for a lock" \
    all_true "status_is 0" "stdout_has 'cooked 0 assets'" "stderr_lacks 'waiting'"
run_in "$SCRATCH" build -i in -o clean
check "the watched output equals a clean build's" \
    diff -r -x .kiln-cache -x .kiln-lock "$SCRATCH/clean" "$SCRATCH/out"

# Drafts: a changed texture is published at draft quality (BC7 mode 6 alone)
# first. A long --finish-delay holds the draft: the build sees it as
# provisional, and a build after the watch stopped cooks it in full. With a
# short one the watch cooks it in full itself. Either way the tree ends equal
# to a clean build's.
DIN=$SCRATCH/din
mkdir -p "$DIN"
write_png "$DIN/wall.png" 64 5
put_draft() { # put_draft SEED: a new din/wall.png
    write_png "$EDITS/next.png" 64 "$1"
    mv "$EDITS/next.png" "$DIN/wall.png"
}
start_watch -- -i din -o dout -j 2 --debounce 100 --finish-delay 3600000
wait_for watch_has '^kiln: watching din' || true
m=$(mark)
put_draft 9
wait_round "$m" '^cooked wall.png' || true
check "a changed texture is cooked as a draft" \
    all_true "since $m | grep -q '^cooked wall.png -> wall.ktx2 (.*, draft)'" \
    "since $m | grep -q '^kiln: round [0-9]*: 1 cooked (1 draft), 0 failed'"
draft_bytes=$(md5sum <"$SCRATCH/dout/wall.ktx2")
run_in "$SCRATCH" info --quality -i din dout/wall.ktx2
check "the draft is BC7 mode 6 alone" stdout_has '^  modes: 6:[0-9]+ \(blocks per mode'
run_in "$SCRATCH" build -i din -o dout --dry-run
check "a build sees it as provisional" \
    all_true "status_is 0" "stdout_has '^would cook wall.png: provisional draft encode of kiln watch'"
stop_watch TERM
check "the watch waited (no full round within the delay)" \
    all_true "[ \$(count_since $m '^kiln: round ') -eq 1 ]"
run_in "$SCRATCH" build -i din -o dout
check "a build after the watch cooks the draft in full" \
    all_true "status_is 0" "stdout_has 'cooked 1 asset'" \
    "[ '$(md5sum <"$SCRATCH/dout/wall.ktx2")' != '$draft_bytes' ]"
run_in "$SCRATCH" build -i din -o dclean
check "and its tree equals a clean build's" \
    diff -r -x .kiln-cache -x .kiln-lock "$SCRATCH/dclean" "$SCRATCH/dout"
rm -rf "$SCRATCH/dclean"

start_watch -- -i din -o dout -j 2 --debounce 100 --finish-delay 200
wait_for watch_has '^kiln: watching din' || true
m=$(mark)
put_draft 13
wait_full "$m" || true
check "the draft round comes first, then the full one" \
    all_true "since $m | grep -E '^(cooked wall.png|kiln: round)' | head -n 4 | tr '\n' '|' |
        grep -qE '^cooked wall.png -> wall.ktx2 \([0-9.]+ s, draft\)\|kiln: round [0-9]+: 1 cooked \(1 draft\)[^|]*\|cooked wall.png -> wall.ktx2 \([0-9.]+ s\)\|kiln: round [0-9]+ \(full quality\): 1 cooked, 0 failed'"
stop_watch TERM
run_in "$SCRATCH" build -i din -o dout
check "after it a build has nothing to cook" all_true "status_is 0" "stdout_has 'cooked 0 assets'"
run_in "$SCRATCH" build -i din -o dclean
check "and the watched tree equals a clean build's" \
    diff -r -x .kiln-cache -x .kiln-lock "$SCRATCH/dclean" "$SCRATCH/dout"

# texture.fast_first: false cooks in full at once.
printf 'default:\n  texture.fast_first: false\n' >"$SCRATCH/nodraft.yml"
start_watch -- -i din -o dout -j 2 --debounce 100 --config nodraft.yml
wait_for watch_has '^kiln: watching din' || true
m=$(mark)
put_draft 17
wait_round "$m" '^cooked wall.png' || true
sleep 0.5 # a chance for a (wrong) full round
check "texture.fast_first: false cooks no draft" \
    all_true "since $m | grep -q '^kiln: round [0-9]*: 1 cooked, 0 failed'" \
    "[ \$(count_since $m '^kiln: round ') -eq 1 ]"
stop_watch TERM

# A signal during a round (here the first build, slowed in its texture stage
# by a test hook) stops the watch at once, as it would interrupt kiln build.
(cd "$SCRATCH" && exec env KILN_TEST_SLOW_STAGE=texture:60 "$KILN" watch -i in -o slow \
    >"$SCRATCH/slow.out" 2>"$SCRATCH/slow.err") &
slow_pid=$!
wait_for sh -c "[ \"\$(cat '$SCRATCH/slow/.kiln-lock' 2>/dev/null)\" = $slow_pid ]" || true
stop_process "$slow_pid" INT || exit 1
check "SIGINT during a round stops the watch at once" \
    all_true "[ $stopped_status -eq 130 ]" "grep -q 'watch stopped during a round' '$SCRATCH/slow.err'"

# ---------------------------------------------------------------------------
# --serve: cooking on demand
# ---------------------------------------------------------------------------
if [ -z "${KILN_COOK_CLIENT:-}" ]; then
    finish "watch (no cook client: libkiln built without KILN_RUNTIME_DEV)"
    exit $?
fi
# A long debounce: what cooks below is cooked by the requests.
start_watch -- -i in -o out -j 2 --debounce 60000 --serve
SOCKET=$SCRATCH/out/.kiln-serve
check "the server listens on <output>/.kiln-serve, mode 0600" \
    all_true "wait_for watch_has 'cook requests on out/.kiln-serve'" "[ -S '$SOCKET' ]" \
    "[ \"\$(stat -c %a '$SOCKET')\" = 600 ]"
# A second server on the same output is refused before it builds: a cooked
# file removed beforehand is still missing after (the first server, its
# debounce 60 s and the output unwatched, does not cook it either).
rm "$SCRATCH/out/wall.ktx2"
manifest_before=$(stat -c %Y.%i "$SCRATCH/out/assets.kman")
run_in "$SCRATCH" watch -i in -o out --serve
check "a second server on the same output is refused, naming the output and its socket" \
    all_true "status_is 1" \
    "stderr_has \"another kiln watch --serve is serving the output folder 'out' \\(its socket 'out/.kiln-serve' answers\\)\""
check "and refused before it builds: it cooked nothing" \
    all_true "[ ! -s '$SCRATCH/stdout' ]" "[ ! -e '$SCRATCH/out/wall.ktx2' ]" \
    "[ \"\$(stat -c %Y.%i '$SCRATCH/out/assets.kman')\" = '$manifest_before' ]"
# That refusal was the last run_in's output, which a failing check prints:
# every later failure showed it as if it were its cause. From here on a
# failing check shows the last client's output and the server's stderr.
ln -sf client.out "$SCRATCH/stdout"
ln -sf watch.err "$SCRATCH/stderr"

"$KILN_COOK_CLIENT" "$SCRATCH/out" - wall >"$SCRATCH/client.out" 2>&1 || true
check "without the server, a missing cooked file fails to load" \
    grep -q '^fail wall: wall.ktx2: cannot open' "$SCRATCH/client.out"
"$KILN_COOK_CLIENT" "$SCRATCH/out" "$SOCKET" wall props/crate >"$SCRATCH/client.out" 2>&1 || true
check "with it, the runtime gets the missing texture cooked and loads it" \
    all_true "grep -q '^ok wall texture wall.ktx2 $(stat -c %s "$SCRATCH/out/wall.ktx2" 2>/dev/null)\$' '$SCRATCH/client.out'" \
    "grep -q '^ok props/crate mesh props/crate.kmesh ' '$SCRATCH/client.out'" \
    "watch_has \"^kiln: served 'wall': 1 cooked\""
check "the served texture equals a clean build's" cmp "$SCRATCH/clean/wall.ktx2" "$SCRATCH/out/wall.ktx2"

write_png "$IN/fresh.png" 16 3
"$KILN_COOK_CLIENT" "$SCRATCH/out" "$SOCKET" fresh >"$SCRATCH/client.out" 2>&1 || true
check "a source never cooked is found, cooked and loaded" \
    all_true "grep -q '^ok fresh texture fresh.ktx2 ' '$SCRATCH/client.out'" \
    "watch_has \"^kiln: served 'fresh': 1 cooked\""
"$KILN_COOK_CLIENT" "$SCRATCH/out" "$SOCKET" props/nothing >"$SCRATCH/client.out" 2>&1 || true
check "an unknown ref fails with the server's message" \
    grep -q "^fail props/nothing: .*no source under the input folder produces 'props/nothing'" \
    "$SCRATCH/client.out"

# Requested (asynchronous) loads: the manager's workers ask, three at once
# on the one connection, and the game thread only pumps.
served_count() { grep -c "^kiln: served '$1': 1 cooked" "$WATCH_OUT" || true; }
served_twice() { [ "$(served_count "$1")" -eq 2 ]; }
rm "$SCRATCH/out/wall.ktx2" "$SCRATCH/out/fresh.ktx2" "$SCRATCH/out/props/crate.kmesh"
"$KILN_COOK_CLIENT" --async 3 "$SCRATCH/out" - wall >"$SCRATCH/client.out" 2>&1 || true
check "without the server, a requested load of a missing file fails" \
    grep -q '^fail wall: wall.ktx2: cannot open' "$SCRATCH/client.out"
walls=$(served_count wall)
"$KILN_COOK_CLIENT" --async 3 "$SCRATCH/out" "$SOCKET" wall fresh props/crate \
    >"$SCRATCH/client.out" 2>&1 || true
check "requested loads get their missing files cooked by the workers and load them" \
    all_true "grep -q '^ok wall texture wall.ktx2 $(stat -c %s "$SCRATCH/out/wall.ktx2" 2>/dev/null)\$' '$SCRATCH/client.out'" \
    "grep -q '^ok fresh texture fresh.ktx2 ' '$SCRATCH/client.out'" \
    "grep -q '^ok props/crate mesh props/crate.kmesh ' '$SCRATCH/client.out'" \
    "[ \$(served_count wall) -eq $((walls + 1)) ]"
check "the texture a worker got cooked equals a clean build's" \
    cmp "$SCRATCH/clean/wall.ktx2" "$SCRATCH/out/wall.ktx2"
# No workers: kiln_manager_pump loads the requests, and asks for their cooks.
rm "$SCRATCH/out/wall.ktx2" "$SCRATCH/out/props/crate.kmesh"
walls=$(served_count wall)
"$KILN_COOK_CLIENT" --async 0 "$SCRATCH/out" "$SOCKET" wall props/crate \
    >"$SCRATCH/client.out" 2>&1 || true
check "without workers, requests get their missing files cooked when the game pumps" \
    all_true "grep -q '^ok wall texture wall.ktx2 ' '$SCRATCH/client.out'" \
    "grep -q '^ok props/crate mesh props/crate.kmesh ' '$SCRATCH/client.out'" \
    "[ \$(served_count wall) -eq $((walls + 1)) ]"
# Requests by ref: an unknown ref fails at once, naming it, without a server
# (as in a shipping runtime); with one, sources added after the server
# started are cooked by request and loaded, with workers and without.
"$KILN_COOK_CLIENT" --async 2 --by-ref "$SCRATCH/out" - late >"$SCRATCH/client.out" 2>&1 || true
check "without the server, a request by an unknown ref fails naming it" \
    grep -q "^fail late: .*('late'): no mounted manifest has it" "$SCRATCH/client.out"
# The watch sees late.png appear too: under load its round may cook it while
# the request waits for the output lock, and the request then finds it
# fresh (0 cooked). Either way the request named a ref no manifest had, and
# the workers load what was cooked for it.
write_png "$IN/late.png" 16 9
mkdir -p "$IN/later"
write_png "$IN/later/one.png" 8 4
"$KILN_COOK_CLIENT" --async 2 --by-ref "$SCRATCH/out" "$SOCKET" late props/crate \
    >"$SCRATCH/client.out" 2>&1 || true
check "a request by ref of a never-cooked source is cooked, then loaded by the workers" \
    all_true "grep -q '^requested late: zero ref\$' '$SCRATCH/client.out'" \
    "grep -q '^ok late texture late.ktx2 ' '$SCRATCH/client.out'" \
    "grep -q '^ok props/crate mesh props/crate.kmesh ' '$SCRATCH/client.out'" \
    "watch_has \"^kiln: served 'late': [01] cooked, 0 failed\""
"$KILN_COOK_CLIENT" --async 0 --by-ref "$SCRATCH/out" "$SOCKET" later/one no/such/thing \
    >"$SCRATCH/client.out" 2>&1 || true
check "the same without workers; a ref nothing produces fails with the server's message" \
    all_true "grep -q '^ok later/one texture later/one.ktx2 ' '$SCRATCH/client.out'" \
    "grep -q \"^fail no/such/thing: .*no source under the input folder produces 'no/such/thing'\" '$SCRATCH/client.out'"
if [ -n "${KILN_COOK_CLIENT_TSAN:-}" ]; then
    write_png "$IN/later/two.png" 8 6
    rm "$SCRATCH/out/late.ktx2"
    TSAN_OPTIONS=halt_on_error=1 "$KILN_COOK_CLIENT_TSAN" --async 3 --by-ref "$SCRATCH/out" \
        "$SOCKET" later/two late wall >"$SCRATCH/client.out" 2>&1 || true
    check "requests by ref (one never cooked, one missing) under ThreadSanitizer: no race" \
        all_true "[ \$(grep -c '^ok ' '$SCRATCH/client.out') -eq 3 ]" \
        "grep -q '^requested later/two: zero ref\$' '$SCRATCH/client.out'" \
        "! grep -q 'ThreadSanitizer' '$SCRATCH/client.out'"
fi
if [ -n "${KILN_COOK_CLIENT_TSAN:-}" ]; then
    rm "$SCRATCH/out/wall.ktx2" "$SCRATCH/out/fresh.ktx2" "$SCRATCH/out/props/crate.kmesh"
    TSAN_OPTIONS=halt_on_error=1 "$KILN_COOK_CLIENT_TSAN" --async 3 "$SCRATCH/out" "$SOCKET" \
        wall fresh props/crate >"$SCRATCH/client.out" 2>&1 || true
    check "the same under ThreadSanitizer: no race, every ref loaded" \
        all_true "[ \$(grep -c '^ok ' '$SCRATCH/client.out') -eq 3 ]" \
        "! grep -q 'ThreadSanitizer' '$SCRATCH/client.out'"
fi

# ask_server REQUEST...: sends each request (a Python bytes expression) on one
# connection to the server and writes each reply line to $SCRATCH/replies.
ask_server() {
    python3 - "$SOCKET" "$@" >"$SCRATCH/replies" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(120)
s.connect(sys.argv[1])
f = s.makefile("rwb")
for request in sys.argv[2:]:
    f.write(eval(request))  # our own bytes expressions, above
    f.flush()
    sys.stdout.write(f.readline().decode("utf-8", "replace"))
PY
}
# Bad requests on one connection: each gets an ERR line, and a good request
# after them is still answered.
ask_server 'b"COOK " + b"x" * 5000 + b"\n"' 'b"COOK no/such/ref\n"' 'b"\x01\x02garbage\n"' \
    'b"HELLO\n"' 'b"COOK \n"' 'b"COOK a\x00b\n"' 'b"COOK props/barrel.obj\n"' \
    'b"COOK props/crate.png\n"'
check "an overlong line gets an error" grep -q '^ERR request line longer than 1023 bytes' "$SCRATCH/replies"
check "an unknown ref gets an error" \
    grep -q "^ERR no source under the input folder produces 'no/such/ref'" "$SCRATCH/replies"
check "garbage, another verb, an empty ref, a NUL get errors" \
    all_true "[ \$(grep -c '^ERR' '$SCRATCH/replies') -eq 6 ]"
check "the connection still serves after them" \
    grep -q '^OK props/barrel.kmesh$' "$SCRATCH/replies"
check "a file a model reads answers with the model's file" \
    grep -qE '^OK props/(barrel|crate).kmesh$' <(tail -n 1 "$SCRATCH/replies")
check "the server survived" kill -0 "$watch_pid"

# A source path answers for every kind, not only those whose own ref names a
# cooked file: a level's ref is levels/yard/scene, its source levels/yard.level
# (new here, so cooked by the request; then up to date).
mkdir -p "$IN/levels"
put levels/yard.level 'entities:\n  - name: crate\n    asset: props/crate.obj\n'
ask_server 'b"COOK levels/yard.level\n"' 'b"COOK levels/yard.level\n"' 'b"COOK levels/yard/scene\n"'
check "a level's source path is cooked and answered with its scene" \
    all_true "[ \$(grep -c '^OK levels/yard.kscene\$' '$SCRATCH/replies') -eq 3 ]" \
    "[ -s '$SCRATCH/out/levels/yard.kscene' ]" \
    "watch_has \"^kiln: served 'levels/yard.level': 1 cooked, 0 failed\""

# Stale files: wall.png saved again (bigger), not cooked yet (the debounce is
# 60 s). The runtime's first read of wall.ktx2 asks FRESH: the round runs
# first, and the new file loads.
old_wall=$(stat -c %s "$SCRATCH/out/wall.ktx2")
m=$(mark)
put_png wall.png 64 17
"$KILN_COOK_CLIENT" "$SCRATCH/out" "$SOCKET" wall >"$SCRATCH/client.out" 2>&1 || true
new_wall=$(stat -c %s "$SCRATCH/out/wall.ktx2")
check "a cooked file older than its saved source is cooked again before it loads" \
    all_true "[ $new_wall -ne $old_wall ]" \
    "grep -q '^ok wall texture wall.ktx2 $new_wall\$' '$SCRATCH/client.out'" \
    "since $m | grep -q '^cooked wall.png'"
# Nothing changed since: FRESH is answered SAME, no round runs.
m=$(mark)
"$KILN_COOK_CLIENT" "$SCRATCH/out" "$SOCKET" wall props/crate >"$SCRATCH/client.out" 2>&1 || true
check "an up-to-date file loads without a round" \
    all_true "[ \$(grep -c '^ok ' '$SCRATCH/client.out') -eq 2 ]" \
    "[ \$(count_since $m '^kiln: ') -eq 0 ]"
# A source saved broken: its round fails, the older file loads, and its
# reload status names the cook's error; fixed, it loads clean.
m=$(mark)
put props/barrel.obj 'v 0 0 0\nf 1 2 9\n'
"$KILN_COOK_CLIENT" "$SCRATCH/out" "$SOCKET" props/barrel >"$SCRATCH/client.out" 2>&1 || true
check "a file whose source fails to cook loads, its status naming the failure" \
    all_true "since $m | grep -q '^failed props/barrel.obj'" \
    "grep -q '^ok props/barrel mesh props/barrel.kmesh ' '$SCRATCH/client.out'" \
    "grep -q '^status props/barrel: .*failed to cook.*props/barrel.obj:2: error: ' '$SCRATCH/client.out'"
put props/barrel.obj 'mtllib crate.mtl\nv 0 0 0\nv 3 0 0\nv 0 3 0\nusemtl wood\nf 1 2 3\n'
"$KILN_COOK_CLIENT" "$SCRATCH/out" "$SOCKET" props/barrel >"$SCRATCH/client.out" 2>&1 || true
check "fixed, it is cooked before the load and has no failure" \
    all_true "grep -q '^ok props/barrel mesh ' '$SCRATCH/client.out'" \
    "! grep -q '^status ' '$SCRATCH/client.out'"
# 16 connections that say nothing hold every place: a 17th client is served
# all the same, in the place of the one silent longest (the first).
python3 - "$SOCKET" >"$SCRATCH/replies" <<'PY'
import socket, sys, time
silent = []
for _ in range(16):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    silent.append(s)
time.sleep(0.5)  # accepted first, in order
late = socket.socket(socket.AF_UNIX)
late.settimeout(120)
late.connect(sys.argv[1])
late.sendall(b"COOK wall\n")
print(late.makefile("rb").readline().decode().strip())
silent[0].settimeout(120)
print("first:", "closed" if silent[0].recv(1) == b"" else "answered")
PY
check "16 silent connections do not keep a 17th client from being served" \
    all_true "grep -q '^OK wall.ktx2\$' '$SCRATCH/replies'" "grep -q '^first: closed\$' '$SCRATCH/replies'"

ask_server 'b"FRESH wall\n"' 'b"FRESH \n"' 'b"FRESH a\x01b\n"'
check "FRESH of an up-to-date ref is SAME; a bad one an error" \
    all_true "grep -q '^SAME wall\$' '$SCRATCH/replies'" "[ \$(grep -c '^ERR FRESH needs a ref' '$SCRATCH/replies') -eq 2 ]"

stop_watch INT
check "SIGINT stops the server and removes its socket" \
    all_true "[ $stopped_status -eq 0 ]" "[ ! -e '$SOCKET' ]"

# Idle connections: with --idle-timeout 2, a connection silent that long is
# closed while one that keeps asking stays open; a runtime whose connections
# were closed between two loads (2.5 s apart) reconnects and loads both, the
# synchronous way and by requests of refs never cooked.
start_watch -- -i in -o out -j 2 --debounce 60000 --serve --idle-timeout 2
check "a server with a short idle timeout starts" wait_for watch_has 'cook requests on out/.kiln-serve'
python3 - "$SOCKET" >"$SCRATCH/replies" <<'PY'
import socket, sys, time
quiet = socket.socket(socket.AF_UNIX)
quiet.connect(sys.argv[1])
talking = socket.socket(socket.AF_UNIX)
talking.settimeout(120)
talking.connect(sys.argv[1])
replies = talking.makefile("rwb")
quiet.settimeout(0.2)
closed, deadline = False, time.monotonic() + 60
while not closed and time.monotonic() < deadline:
    replies.write(b"FRESH wall\n")
    replies.flush()
    replies.readline()
    try:
        closed = quiet.recv(1) == b""
    except socket.timeout:
        pass
print("quiet:", "closed" if closed else "open")
replies.write(b"FRESH wall\n")
replies.flush()
print("talking:", replies.readline().decode().strip())
PY
check "a silent connection is closed, one that keeps asking is not" \
    all_true "grep -q '^quiet: closed\$' '$SCRATCH/replies'" \
    "grep -q '^talking: SAME wall\$' '$SCRATCH/replies'"
rm "$SCRATCH/out/wall.ktx2" "$SCRATCH/out/fresh.ktx2"
"$KILN_COOK_CLIENT" --pause 2500 "$SCRATCH/out" "$SOCKET" wall fresh >"$SCRATCH/client.out" 2>&1 || true
check "a runtime reconnects after its idle connection was closed" \
    all_true "grep -q '^ok wall texture wall.ktx2 ' '$SCRATCH/client.out'" \
    "grep -q '^ok fresh texture fresh.ktx2 ' '$SCRATCH/client.out'"
# The second ref names no source, so that no manifest can have it by then:
# it goes to the server too, and its answer is the server's, not a broken
# connection's.
mkdir -p "$IN/idle"
write_png "$IN/idle/one.png" 8 5
"$KILN_COOK_CLIENT" --pause 2500 --async 0 --by-ref "$SCRATCH/out" "$SOCKET" idle/one idle/none \
    >"$SCRATCH/client.out" 2>&1 || true
check "and requests by ref, on their own connection, after it was closed" \
    all_true "grep -q '^ok idle/one texture idle/one.ktx2 ' '$SCRATCH/client.out'" \
    "grep -q \"^fail idle/none: .*no source under the input folder produces 'idle/none'\" '$SCRATCH/client.out'"
stop_watch INT

# A requested load cancelled while its cook is under way: a server whose
# texture cooks take 3 s (the test hook), a scope destroyed 0.5 s after the
# worker took the request. The worker's pin keeps the asset while it waits;
# when the cook comes back the request is dropped (no callback, nothing
# held), and a new request loads the cooked file without another cook.
start_watch KILN_TEST_SLOW_STAGE=texture:3 -- -i in -o out -j 2 --debounce 60000 --serve
check "a slow server starts" wait_for watch_has 'cook requests on out/.kiln-serve'
rm "$SCRATCH/out/wall.ktx2"
"$KILN_COOK_CLIENT" --cancel "$SCRATCH/out" "$SOCKET" wall >"$SCRATCH/client.out" 2>&1 || true
check "a request cancelled during its cook is dropped when the cook comes back" \
    all_true "grep -q '^cancel: in flight 1\$' '$SCRATCH/client.out'" \
    "grep -q '^cancel: dropped, 0 callbacks\$' '$SCRATCH/client.out'" \
    "[ \$(served_count wall) -eq 1 ]"
check "a new request then loads what that cook made" \
    grep -q '^ok wall texture wall.ktx2 ' "$SCRATCH/client.out"
# Destroying the manager while a worker waits for a cook does not wait for
# the cook: the client is gone before the (3 s) cook wrote its file, and the
# server, its client gone mid-cook, finishes the cook and goes on serving.
rm "$SCRATCH/out/wall.ktx2"
"$KILN_COOK_CLIENT" --destroy "$SCRATCH/out" "$SOCKET" wall >"$SCRATCH/client.out" 2>&1 || true
wall_after_destroy=$([ -e "$SCRATCH/out/wall.ktx2" ] && echo present || echo absent)
check "destroying the manager during a cook wakes the waiting worker" \
    all_true "grep -q '^destroy: done\$' '$SCRATCH/client.out'" "[ $wall_after_destroy = absent ]"
check "the server finishes that cook and keeps serving" \
    all_true "wait_for served_twice wall" "kill -0 $watch_pid"
if [ -n "${KILN_COOK_CLIENT_TSAN:-}" ]; then
    rm "$SCRATCH/out/wall.ktx2"
    TSAN_OPTIONS=halt_on_error=1 "$KILN_COOK_CLIENT_TSAN" --cancel "$SCRATCH/out" "$SOCKET" wall \
        >"$SCRATCH/client.out" 2>&1 || true
    check "the cancel during a cook under ThreadSanitizer: no race" \
        all_true "grep -q '^cancel: dropped, 0 callbacks\$' '$SCRATCH/client.out'" \
        "grep -q '^ok wall texture wall.ktx2 ' '$SCRATCH/client.out'" \
        "! grep -q 'ThreadSanitizer' '$SCRATCH/client.out'"
fi
stop_watch INT
check "SIGINT stops the slow server and removes its socket" test ! -e "$SOCKET"
finish "watch"
