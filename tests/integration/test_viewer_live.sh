#!/bin/bash
# kiln-view's window and hot reload (docs/viewer.md), on lavapipe with the
# Khronos validation layer on (any validation error fails a run):
# * the window, under a throwaway Xvfb: --frames 3 --screenshot reads the
#   presented swapchain image back; it must be the headless render of the
#   same view composed over the window's background (computed here), pixel
#   for pixel; a mouse drag sent by xdotool turns the view as computed, and
#   Esc quits; viewer_scenes.py's morphed quad posed by a clip, its sphere
#   with --meshlets and at a size that picks a coarser level of detail, each
#   the headless frame too, with the same --stats line; the clip list drawn
#   over the frame, the current clip highlighted; a texture ref's window the
#   headless texture view;
# * hot reload: `kiln watch` on a copy of the examples' props, a headless
#   --live viewer on its output; the crate's texture, solid green, is
#   replaced by solid red in the input, and within 60 s the next frame the
#   viewer writes shows red at the crate's centre, with a line naming the
#   reloaded texture; a line on stdin renders a frame; closing stdin ends it;
#   --live --stats prints the still's stats line after its frame.
# Nothing is left running. Without Vulkan, lavapipe, the validation layer,
# Xvfb or xdotool (installed with apt-get when missing and root), "skipped:".
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/harness.sh" viewer_live
source "$HERE/../support/lavapipe.sh"
source "$HERE/../support/xvfb_display.sh"
source "$HERE/../support/background.sh"
VIEW=$(dirname "$KILN")/kiln-view
PNG_TOOL="$HERE/../support/png_tool.py"
REPO=${KILN_REPO:-$(cd "$HERE/../.." && pwd)}

if [ ! -x "$VIEW" ]; then
    echo "skipped: kiln-view was not built (Vulkan not found: libvulkan-dev)"
    exit 0
fi
if ! command -v python3 >/dev/null; then
    echo "skipped: python3 not found (it writes the textures and checks the pixels)"
    exit 0
fi
if ! lavapipe_setup "$SCRATCH"; then
    echo "skipped: $LAVAPIPE_MISSING"
    exit 0
fi

view_pid="" pids=""
cleanup() {
    if [ -n "$view_pid" ]; then stop_process "$view_pid" TERM || true; fi
    xvfb_stop "$SCRATCH"
    stop_watch TERM
}
trap cleanup EXIT

# xdo ARGS...: an xdotool action; a window gone or refused shows in the
# checks that follow, not as the script's end.
xdo() { xdotool "$@" 2>>"$SCRATCH/xdotool.log" || true; }
# end_view: the background viewer $view_pid ends (60 s at most, then it is
# killed and fails the check on its status); its exit status in $status.
end_view() {
    stop_process "$view_pid" 0 60 || true
    status=$stopped_status
    view_pid=""
}
# view ARGS...: runs kiln-view; sets $status, fills the stdout/stderr files.
view() {
    set +e
    "$VIEW" "$@" >"$SCRATCH/stdout" 2>"$SCRATCH/stderr" </dev/null
    status=$?
    set -e
}
one_line_error() { [ "$(wc -l <"$SCRATCH/stderr")" -eq 1 ] && stderr_has "^kiln-view: $1"; }
# over_grey SHOT STILL [ROWS]: the window's SHOT is the headless STILL
# composed over the window's grey (48, 50, 56), rounding (c * a + grey *
# (255 - a)) / 255 to the nearest, pixel for pixel (below the first ROWS
# rows: the clip list's), and STILL covers some of the frame.
over_grey() {
    python3 -c "import sys; sys.path.insert(0, '$(dirname "$PNG_TOOL")'); import png_tool
ws, hs, shot = png_tool.read_png(sys.argv[1])
w, h, still = png_tool.read_png(sys.argv[2])
assert (ws, hs) == (w, h), (ws, hs, w, h)
skip = int(sys.argv[3]) if len(sys.argv) > 3 else 0
grey = (48, 50, 56)
bad = 0
for i in range(skip * w, w * h):
    a = still[4 * i + 3]
    want = [(still[4 * i + c] * a + grey[c] * (255 - a) + 127) // 255 for c in range(3)] + [255]
    bad += list(shot[4 * i:4 * i + 4]) != want
covered = sum(still[4 * i + 3] > 0 for i in range(w * h))
print('differing pixels:', bad, 'covered:', covered)
sys.exit(bad != 0 or covered == 0)" "$@"
}
stats_line() { grep '^stats: ' "$1"; }
# solid FILE R G B: a 64x64 opaque PNG of one colour.
solid() {
    python3 -c "import sys; sys.path.insert(0, '$(dirname "$PNG_TOOL")'); import png_tool
r, g, b = (int(v) for v in sys.argv[2:5])
png_tool.write_png(sys.argv[1], 64, 64, bytes([r, g, b, 255]) * 64 * 64)" "$@"
}
# dominant FILE X Y CHANNEL: the pixel's CHANNEL (0 red, 1 green) is over
# 100 and over twice each other colour channel (lit, so not the texel itself).
dominant() {
    python3 -c "import sys; sys.path.insert(0, '$(dirname "$PNG_TOOL")'); import png_tool
w, h, px = png_tool.read_png(sys.argv[1])
x, y, c = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
p = px[4 * (y * w + x):4 * (y * w + x) + 3]
sys.exit(not (p[c] > 100 and all(p[c] > 2 * p[o] for o in range(3) if o != c)))" "$@" 2>/dev/null
}

# check_clip_keys: the clips' keys on viewer_scenes.py's "anim" (clips
# "hold", 1 s, and "move"), opened paused on "move" at 0.5 s by --clip and
# --time: Right and Left step through the clips from their start, Space plays
# (the time moves on) and pauses again, each shown in the title; Esc quits.
check_clip_keys() {
    python3 "$HERE/viewer_scenes.py" make "$SCRATCH/clips/in"
    find "$SCRATCH/clips/in" -type f ! -name 'anim.*' -delete
    find "$SCRATCH/clips/in" -mindepth 1 -type d -empty -delete # the texture folders
    (cd "$SCRATCH/clips" && "$KILN" build -q -i in -o out) >"$SCRATCH/clips.log" 2>&1
    "$VIEW" "$SCRATCH/clips/out" anim --clip move --time 0.5 --size 256x192 --validate \
        >"$SCRATCH/clips.out" 2>"$SCRATCH/clips.err" </dev/null &
    view_pid=$!
    local id
    id=$(timeout 60 xdotool search --sync --onlyvisible --pid "$view_pid" --name '^kiln-view: ' | head -n 1 || true)
    title_is() { [ "$(xdotool getwindowname "$id" 2>/dev/null)" = "kiln-view: anim/scene - $1" ]; }
    title_playing() { xdotool getwindowname "$id" 2>/dev/null | grep -qE "^kiln-view: anim/scene - $1 [0-9.]+ s$" &&
        ! title_is "$1 0.00 s"; }
    check "the clips are listed" wait_up_to 30 all_true "grep -qE '^  0  hold \(1.00 s\)$' '$SCRATCH/clips.out'" \
        "grep -qE '^  1  move ' '$SCRATCH/clips.out'"
    check "--clip and --time open paused on the pose" wait_up_to 30 title_is "move 0.50 s (paused)"
    xdo key --window "$id" Right
    check "Right: the next clip (wrapping), from its start" wait_up_to 30 title_is "hold 0.00 s (paused)"
    xdo key --window "$id" Left
    check "Left: the previous one" wait_up_to 30 title_is "move 0.00 s (paused)"
    xdo key --window "$id" space
    check "Space plays: the time moves on" wait_up_to 30 title_playing move
    xdo key --window "$id" space
    check "Space again pauses" wait_up_to 30 eval "xdotool getwindowname '$id' | grep -q '(paused)\$'"
    xdo key --window "$id" Escape
    end_view
    check "and Esc quits, exit 0, no validation error" all_true "status_is 0" \
        "! grep -q validation '$SCRATCH/clips.err'"
}

# The examples' props, the crate's texture solid green.
mkdir -p "$SCRATCH/in"
cp -r "$REPO/examples/assets/props" "$SCRATCH/in/"
solid "$SCRATCH/in/props/crate.png" 0 255 0
(cd "$SCRATCH" && "$KILN" build -q -i in -o out) >"$SCRATCH/cook.log" 2>&1 || {
    cat "$SCRATCH/cook.log"
    exit 1
}

# viewer_scenes.py's morphed quad, sphere (levels of detail, meshlets) and
# two-clip "anim" (the clip list).
python3 "$HERE/viewer_scenes.py" make "$SCRATCH/scenes/in"
find "$SCRATCH/scenes/in" -type f ! -name 'morph.*' ! -name 'sphere.*' ! -name 'anim.*' -delete
find "$SCRATCH/scenes/in" -mindepth 1 -type d -empty -delete # the texture folders
(cd "$SCRATCH/scenes" && "$KILN" build -q -i in -o out) >"$SCRATCH/scenes.log" 2>&1 || {
    cat "$SCRATCH/scenes.log"
    exit 1
}

# ---- the command line ----------------------------------------------------------------
view "$SCRATCH/out" props/crate --live --size 64x64
check "--live without --headless is a usage error" all_true "status_is 2" "stderr_has 'headless'"
view "$SCRATCH/out" props/crate --headless --render "$SCRATCH/bad.png" --size 64x64 --frames 2
check "--frames with --headless is a usage error" all_true "status_is 2" "stderr_has 'window'"
view "$SCRATCH/out" props/crate --headless --render "$SCRATCH/bad.png" --size 64x64 --orbit 10,90
check "a pitch past 89 degrees is a usage error" all_true "status_is 2" "stderr_has 'YAW,PITCH'"
view "$SCRATCH/scenes/out" sphere --headless --render "$SCRATCH/sphere.png" --size 64x48 --stats
cp "$SCRATCH/stdout" "$SCRATCH/sphere_still.out"
view "$SCRATCH/scenes/out" sphere --headless --live --render "$SCRATCH/sphere.png" --size 64x48 \
    --stats
check "--live --stats: its one frame (stdin closed), then the still's stats line" all_true \
    "status_is 0" "[ \"\$(sed -n 2p '$SCRATCH/stdout')\" = \"\$(stats_line '$SCRATCH/sphere_still.out')\" ]" \
    "grep -q '^kiln-view: wrote .*sphere.png (frame 1)\$' '$SCRATCH/stdout'"

# ---- the window ------------------------------------------------------------------------
window_input=""  # "yes" once the window and xdotool work: the window's hot reload is checked too
view "$SCRATCH/out" props/crate --frames 1
if stderr_has "built without GLFW"; then
    echo "window: skipped: this kiln-view was built without GLFW (libglfw3-dev)"
elif ! xvfb_start "$SCRATCH"; then
    echo "window: skipped: $XVFB_MISSING"
else
    (unset DISPLAY WAYLAND_DISPLAY; "$VIEW" "$SCRATCH/out" props/crate --frames 1 \
        >"$SCRATCH/stdout" 2>"$SCRATCH/stderr" </dev/null) && status=0 || status=$?
    check "no display is a one-line error saying so" all_true "status_is 1" \
        "one_line_error '.*no display'"
    # Turned by --orbit, as the headless render it is compared with.
    view "$SCRATCH/out" props/crate --frames 3 --screenshot "$SCRATCH/window.png" --size 320x240 \
        --orbit 30,20 --validate
    check "the window shows 3 frames with no validation error" all_true "status_is 0" \
        "stderr_lacks 'validation'" "[ -s '$SCRATCH/window.png' ]"
    check "it lists the clips (none) and the keys" all_true "stdout_has 'has no clips'" \
        "stdout_has 'Esc: quit'"
    view "$SCRATCH/out" props/crate --headless --render "$SCRATCH/still.png" --size 320x240 \
        --orbit 30,20
    view "$SCRATCH/out" props/crate --headless --render "$SCRATCH/front.png" --size 320x240
    check "--orbit turns the view" all_true "! cmp -s '$SCRATCH/still.png' '$SCRATCH/front.png'"
    # The window composes the frame over a grey (48, 50, 56), rounding
    # (c * a + grey * (255 - a)) / 255 to the nearest.
    check "the presented image is the headless frame over the window's grey" \
        python3 -c "import sys; sys.path.insert(0, '$(dirname "$PNG_TOOL")'); import png_tool
ws, hs, shot = png_tool.read_png('$SCRATCH/window.png')
w, h, still = png_tool.read_png('$SCRATCH/still.png')
assert (ws, hs) == (w, h) == (320, 240), (ws, hs, w, h)
grey = (48, 50, 56)
bad = 0
for i in range(w * h):
    a = still[4 * i + 3]
    want = [(still[4 * i + c] * a + grey[c] * (255 - a) + 127) // 255 for c in range(3)] + [255]
    bad += list(shot[4 * i:4 * i + 4]) != want
covered = sum(still[4 * i + 3] > 0 for i in range(w * h))
print('differing pixels:', bad, 'covered:', covered)
sys.exit(bad != 0 or not 0.2 * w * h < covered < 0.8 * w * h)"
    check "the crate's centre is its green texture" dominant "$SCRATCH/window.png" 160 120 1
    # A texture ref: the window shows the texture as the headless view does.
    view "$SCRATCH/out" props/crate/crate --frames 2 --screenshot "$SCRATCH/texture-window.png" \
        --size 320x240 --validate
    check "a texture ref opens a window, says it is a texture, no validation error" all_true \
        "status_is 0" "stderr_lacks 'validation'" "stdout_has 'props/crate/crate is a texture'"
    view "$SCRATCH/out" props/crate/crate --headless --render "$SCRATCH/texture-still.png" \
        --size 320x240
    check "the window presents the headless texture view over its grey" \
        over_grey "$SCRATCH/texture-window.png" "$SCRATCH/texture-still.png"
    check "and the corner the window's grey" python3 -c "import sys; sys.path.insert(0, '$(dirname "$PNG_TOOL")'); import png_tool
w, h, px = png_tool.read_png('$SCRATCH/window.png')
sys.exit(list(px[0:4]) != [48, 50, 56, 255])"
    # The window draws what the still does: morph targets posed by a clip,
    # meshlet tints, and the levels of detail its size picks, with --stats.
    view "$SCRATCH/scenes/out" morph --headless --render "$SCRATCH/morph_still.png" --size 256x192 \
        --clip grow --time 0.5
    view "$SCRATCH/scenes/out" morph --headless --render "$SCRATCH/morph_rest.png" --size 256x192 \
        --clip grow --time 0
    check "the morph's weight changes the still (premise)" \
        all_true "status_is 0" "! cmp -s '$SCRATCH/morph_still.png' '$SCRATCH/morph_rest.png'"
    view "$SCRATCH/scenes/out" morph --size 256x192 --clip grow --time 0.5 --frames 3 \
        --screenshot "$SCRATCH/morph_window.png" --validate
    # Its one clip's line of the list covers rows 6 to 13 (docs/viewer.md).
    check "the window draws the morphed quad as the still, no validation error" all_true \
        "status_is 0" "stderr_lacks 'validation'" \
        "over_grey '$SCRATCH/morph_window.png' '$SCRATCH/morph_still.png' 14"
    # The clip list (docs/viewer.md): from (6, 6), a line of 8x8 glyphs
    # every 10 rows, the current clip's on yellow (255, 210, 0), the others'
    # on (24, 24, 28), each with text in it (dark on yellow, light on the
# rest); "anim" has the clips "hold" and
    # "move", so the highlight moves down a line from one to the other.
    for clip in hold move; do
        view "$SCRATCH/scenes/out" anim --size 256x192 --clip "$clip" --frames 3 \
            --screenshot "$SCRATCH/list_$clip.png" --validate
        check "the window with clip $clip shows, no validation error" all_true "status_is 0" \
            "stderr_lacks 'validation'"
    done
    check "the clip list: the current clip's line highlighted, text on each line, and it \
changes with the clip" python3 -c "import sys; sys.path.insert(0, '$(dirname "$PNG_TOOL")'); import png_tool
def pixel(px, w, x, y): return tuple(px[4 * (y * w + x):4 * (y * w + x) + 3])
yellow, box = (255, 210, 0), (24, 24, 28)
region = {}
for current, name in enumerate(('hold', 'move')):
    w, h, px = png_tool.read_png('$SCRATCH/list_%s.png' % name)
    for line in range(2):
        want = yellow if line == current else box
        top = 6 + 10 * line
        ink = (16, 16, 16) if line == current else (235, 235, 235)
        cells = [pixel(px, w, x, y) for y in range(top, top + 8) for x in range(6, 118)]
        assert pixel(px, w, 6, top) == want, (name, line, pixel(px, w, 6, top), want)
        text = sum(1 for c in cells if c == ink)
        assert text > 40, (name, line, 'text pixels', text)
    region[name] = [pixel(px, w, x, y) for y in range(6, 24) for x in range(6, 126)]
changed = sum(a != b for a, b in zip(region['hold'], region['move']))
print('list pixels changed:', changed)
sys.exit(changed < 200)"
    for run in "meshlets 256x192 --meshlets" "coarse 40x30"; do
        read -r name size extra <<<"$run"
        view "$SCRATCH/scenes/out" sphere --headless --render "$SCRATCH/${name}_still.png" \
            --size "$size" $extra --stats
        cp "$SCRATCH/stdout" "$SCRATCH/${name}_still.out"
        view "$SCRATCH/scenes/out" sphere --size "$size" $extra --stats --frames 3 \
            --screenshot "$SCRATCH/${name}_window.png" --validate
        check "sphere $name: the window draws the still, prints its stats line once" all_true \
            "status_is 0" "stderr_lacks 'validation'" \
            "over_grey '$SCRATCH/${name}_window.png' '$SCRATCH/${name}_still.png'" \
            "[ \"\$(stats_line '$SCRATCH/stdout')\" = \"\$(stats_line '$SCRATCH/${name}_still.out')\" ]"
    done
    check "the meshlets are tinted and the small window drew a coarser level (premise)" all_true \
        "grep -qE ' meshlets [1-9][0-9]*\$' '$SCRATCH/meshlets_still.out'" \
        "grep -qE 'lod 0:0 ' '$SCRATCH/coarse_still.out'"
    # The mouse and keys, sent by xdotool: a 100-pixel drag to the right
    # turns the eye by -100 * 0.01 rad (-57.29578 degrees), then Esc quits;
    # the last frame shown is read back at the end.
    if ! command -v xdotool >/dev/null && [ "$EUID" -eq 0 ] && command -v apt-get >/dev/null; then
        DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -q xdotool \
            >"$SCRATCH/apt-xdotool.log" 2>&1 || true
    fi
    if ! command -v xdotool >/dev/null; then
        echo "window input: skipped: xdotool not installed"
    else
        "$VIEW" "$SCRATCH/out" props/crate --size 320x240 --screenshot "$SCRATCH/dragged.png" \
            --validate >"$SCRATCH/window.out" 2>"$SCRATCH/window.err" </dev/null &
        view_pid=$!
        id=$(timeout 60 xdotool search --sync --onlyvisible --pid "$view_pid" --name '^kiln-view: ' | head -n 1 || true)
        check "the window opens, titled with the ref" \
            all_true "[ -n '$id' ]" "[ \"\$(xdotool getwindowname '$id')\" = 'kiln-view: props/crate/scene' ]"
        if [ -n "$id" ]; then
            xdo mousemove --window "$id" 100 100
            sleep 0.5
            xdo mousedown 1
            sleep 0.2
            xdo mousemove_relative 50 0
            sleep 0.2
            xdo mousemove_relative 50 0
            sleep 0.3
            xdo mouseup 1
            sleep 1
            xdo key --window "$id" Escape
        fi
        end_view
        check "Esc quits, exit 0, no validation error" all_true "status_is 0" \
            "! grep -q validation '$SCRATCH/window.err'"
        view "$SCRATCH/out" props/crate --headless --render "$SCRATCH/turned.png" --size 320x240 \
            --orbit -57.29578,0
        check "the dragged view is the headless one turned by -57.3 degrees" \
            python3 -c "import sys; sys.path.insert(0, '$(dirname "$PNG_TOOL")'); import png_tool
w, h, shot = png_tool.read_png('$SCRATCH/dragged.png')
w2, h2, still = png_tool.read_png('$SCRATCH/turned.png')
assert (w, h) == (w2, h2) == (320, 240), (w, h, w2, h2)
grey = (48, 50, 56)
bad = 0
for i in range(w * h):
    a = still[4 * i + 3]
    want = [(still[4 * i + c] * a + grey[c] * (255 - a) + 127) // 255 for c in range(3)]
    bad += max(abs(want[c] - shot[4 * i + c]) for c in range(3)) > 2
print('pixels off by more than 2:', bad)
sys.exit(bad > w * h // 200)"
        check_clip_keys
        window_input=yes
    fi
fi

# ---- hot reload, headless ----------------------------------------------------------------
(cd "$SCRATCH" && exec "$KILN" watch -i in -o out --debounce 100 >watch.out 2>watch.err) &
watch_pid=$!
check "kiln watch starts" wait_up_to 60 grep -q '^kiln: watching' "$SCRATCH/watch.out"
# stdin is a FIFO this shell holds open (fd 3): closing it ends the viewer.
mkfifo "$SCRATCH/requests"
exec 3<>"$SCRATCH/requests"
"$VIEW" "$SCRATCH/out" props/crate --headless --live --render "$SCRATCH/live.png" --size 128x96 \
    --validate <"$SCRATCH/requests" >"$SCRATCH/live.out" 2>"$SCRATCH/live.err" 3>&- &
view_pid=$!
view_pid_was=$view_pid
ln -sf live.out "$SCRATCH/stdout"
ln -sf live.err "$SCRATCH/stderr"
frames() { grep -c '^kiln-view: wrote .*live.png (frame [0-9]*)$' "$SCRATCH/live.out" || true; }
frames_over() { [ "$(frames)" -gt "$1" ]; }
check "the live viewer writes its first frame" wait_up_to 60 frames_over 0
check "its first frame shows the green crate" dominant "$SCRATCH/live.png" 64 48 1
solid "$SCRATCH/red.png" 255 0 0
mv "$SCRATCH/red.png" "$SCRATCH/in/props/crate.png"
check "within 60 s a frame shows the red crate" wait_up_to 60 dominant "$SCRATCH/live.png" 64 48 0
check "a line names the reloaded texture" \
    grep -q '^kiln-view: reloaded props/crate/crate (props/crate/crate.ktx2)$' "$SCRATCH/live.out"
before=$(frames)
echo render >&3
check "a line on stdin renders a frame" wait_up_to 60 frames_over "$before"
exec 3>&-
check "closing stdin ends the viewer" wait_up_to 60 exited "$view_pid"
end_view
check "which exits 0 with no validation error" all_true "status_is 0" \
    "stderr_lacks 'validation'"

# ---- hot reload, in the window ------------------------------------------------------------
# The crate, red now, turns green again under the open window; the last
# frame shown (read back when Esc ends it) is green.
if [ -n "$window_input" ]; then
    "$VIEW" "$SCRATCH/out" props/crate --size 320x240 --screenshot "$SCRATCH/reloaded.png" \
        --validate >"$SCRATCH/window.out" 2>"$SCRATCH/window.err" </dev/null &
    view_pid=$!
    pids="$pids $view_pid"
    id=$(timeout 60 xdotool search --sync --onlyvisible --pid "$view_pid" --name '^kiln-view: ' | head -n 1 || true)
    solid "$SCRATCH/green.png" 0 255 0
    mv "$SCRATCH/green.png" "$SCRATCH/in/props/crate.png"
    check "the window reloads the texture" wait_up_to 60 grep -q \
        '^kiln-view: reloaded props/crate/crate (props/crate/crate.ktx2)$' "$SCRATCH/window.out"
    # The line comes before the frame drawn with the new texture, and the
    # window reads keys only between frames: Esc ends it after that frame.
    xdo key --window "$id" Escape
    end_view
    check "its last frame shows the green crate, no validation error" all_true "status_is 0" \
        "dominant '$SCRATCH/reloaded.png' 160 120 1" "! grep -q validation '$SCRATCH/window.err'"
fi
pids="$pids $view_pid_was $watch_pid"
stop_watch TERM
gone() { local pid; for pid in $pids; do ! kill -0 "$pid" 2>/dev/null || return 1; done; }
check "nothing is left running (viewer, watch)" gone

finish "viewer_live"
