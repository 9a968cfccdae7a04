# xvfb_display.sh — a throwaway X server for kiln-view's window test:
# sourced, it starts Xvfb (Debian xvfb, installed with apt-get when missing
# and root) on a display number it picks itself (-displayfd: no guessing, no
# clash with another test's), with its log in a scratch folder, and stops it.
#
#   xvfb_start DIR   0 with DISPLAY exported; 1 with the reason in
#                    $XVFB_MISSING (not installed, or no display within 20 s)
#   xvfb_stop DIR    stops the one started in DIR (TERM, then KILL)

xvfb_start() {
    local dir=$1 i
    if ! command -v Xvfb >/dev/null && [ "$EUID" -eq 0 ] && command -v apt-get >/dev/null; then
        DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -q xvfb \
            >"$dir/apt-xvfb.log" 2>&1 || true
    fi
    if ! command -v Xvfb >/dev/null; then
        XVFB_MISSING="Xvfb (Debian xvfb) not installed"
        return 1
    fi
    : >"$dir/xvfb.display"
    Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3>"$dir/xvfb.display" \
        >"$dir/xvfb.log" 2>&1 &
    echo $! >"$dir/xvfb.pid"
    for i in $(seq 1 200); do
        if [ -s "$dir/xvfb.display" ]; then
            export DISPLAY=":$(tr -d '\n' <"$dir/xvfb.display")"
            return 0
        fi
        kill -0 "$(cat "$dir/xvfb.pid")" 2>/dev/null || break
        sleep 0.1
    done
    XVFB_MISSING="Xvfb gave no display: $(tail -n 3 "$dir/xvfb.log" | tr '\n' ' ')"
    xvfb_stop "$dir"
    return 1
}

xvfb_stop() {
    local pid i
    [ -f "$1/xvfb.pid" ] || return 0
    pid=$(cat "$1/xvfb.pid")
    rm -f "$1/xvfb.pid"
    kill -TERM "$pid" 2>/dev/null || return 0
    for i in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
