#!/usr/bin/env bash
# test_report.sh — the HTML build report of the examples' cook (plus a
# texture whose name holds "<script>" and quotes), read as text and opened
# in headless Chromium (Debian `chromium`; installed when missing and the
# test runs as root, else "skipped:"):
#   - one row per ref, counted from the build cache's "ref" lines (not the
#     manifest reader the report uses); a decodable PNG data URI per texture
#     (tests/support/png_tool.py decodes them); an SVG bar per kind;
#   - the hostile name appears only escaped, and the page holds one script;
#   - Chromium loads it with no console error (its log, and the page's own
#     error box stays hidden), ?filter= shows the texture rows only,
#     ?sort=bytes&order=desc orders them by size; a screenshot is kept as
#     report.png in the test's scratch folder (in the build folder);
#   - after --report the build cache (format 3) records each cooked asset's
#     stage times, a folder never built with it keeps format 2;
#     after the hostile texture changes, only its rows are marked changed; a
#     no-op build keeps the marks;
#   - models: "no thumbnail: the Vulkan viewer (kiln-view) is not installed"
#     without a viewer; with a stand-in kiln-view on PATH its PNG is embedded,
#     a failing one is named (only when no real kiln-view sits beside kiln);
#     a real kiln-view beside kiln draws every scene's thumbnail on lavapipe,
#     and the kept screenshot is of that page.
#
# Environment (set by ctest): KILN, KILN_REPO, KILN_TMP. Helpers: harness.sh.
set -euo pipefail

source "$(dirname "$0")/harness.sh" report

PNG_TOOL="$KILN_REPO/tests/support/png_tool.py"
png() { python3 "$PNG_TOOL" "$@"; }
run() { run_in "$SCRATCH" "$@"; }

IN="$SCRATCH/assets"
cp -r "$KILN_REPO/examples/assets" "$IN"
cp "$KILN_REPO/examples/kiln.yml" "$SCRATCH/kiln.yml"
HOSTILE_DIR="$IN/<script>alert('x')<"
HOSTILE="$HOSTILE_DIR/script>\"q.png"
mkdir -p "$HOSTILE_DIR"
png make "$HOSTILE" 40 24

run build -j 2 --report report.html
check "kiln build --report writes the page" all_true 'status_is 0' '[ -s "$SCRATCH/report.html" ]'
HTML="$SCRATCH/report.html"

refs=$(grep -ac $'^ref\t' "$SCRATCH/runtime/.kiln-cache")
textures=$(grep -ac $'^ref\t3\t' "$SCRATCH/runtime/.kiln-cache")
kinds=$(grep -a $'^ref\t' "$SCRATCH/runtime/.kiln-cache" | cut -f2 | sort -u | wc -l)
rows=$(grep -c '<tr class="asset' "$HTML")
check "one row per ref ($rows rows, $refs refs in the cache)" [ "$rows" -eq "$refs" ]
uris=$(png data-uris "$HTML" | grep -c '')
check "every texture ($textures) has a decodable PNG thumbnail ($uris)" [ "$uris" -eq "$textures" ]
check "thumbnails are at most 128 px" \
    bash -c "python3 '$PNG_TOOL' data-uris '$HTML' | awk '\$1 > 128 || \$2 > 128 {exit 1}'"
check "the SVG chart has a bar per kind ($kinds)" \
    all_true 'grep -q "<svg id=\"chart\"" "$HTML"' \
    '[ "$(grep -c "<g class=\"bar\"" "$HTML")" -eq "$kinds" ]'
check "the hostile name appears only escaped" \
    all_true '! grep -q "<script>alert" "$HTML"' '! grep -q "alert(.x.)" "$HTML"' \
    'grep -q "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;q" "$HTML"' \
    '[ "$(grep -c "<script>" "$HTML")" -eq 1 ]'
check "no network: nothing is loaded from elsewhere" \
    all_true '! grep -qiE "(src|href)=\"(https?:)?//" "$HTML"' '! grep -q "@import" "$HTML"'
check "model rows say the viewer is missing" \
    bash -c "[ -e '$(dirname "$KILN")/kiln-view' ] || command -v kiln-view >/dev/null ||
        grep -q 'no thumbnail: the Vulkan viewer (kiln-view) is not installed' '$HTML'"

# ---- in a browser -----------------------------------------------------------
BROWSER=$(command -v chromium || true)
if [ -z "$BROWSER" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 || true
    BROWSER=$(command -v chromium || true)
fi
if [ -z "$BROWSER" ]; then
    echo "skipped: chromium is not installed (the browser checks)"
else
    PROFILE="$SCRATCH/chromium-profile"
    browse() { # browse QUERY OUT: the page's DOM after its script ran; console in OUT.log
        timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --no-first-run \
            --user-data-dir="$PROFILE" --enable-logging=stderr --v=1 \
            --dump-dom "file://$HTML$1" >"$SCRATCH/$2.html" 2>"$SCRATCH/$2.log" || true
    }
    browse "" plain
    check "Chromium runs the page's script to the end" grep -q 'data-ready="1"' "$SCRATCH/plain.html"
    check "no console error and the error box stays hidden" \
        all_true '! grep -qiE "Uncaught|:CONSOLE[:(][0-9]+.*error" "$SCRATCH/plain.log"' \
        'grep -q "<pre id=\"errors\" hidden=\"\"></pre>" "$SCRATCH/plain.html"'
    check "the hostile name made no element" \
        [ "$(grep -o "<script" "$SCRATCH/plain.html" | grep -c '')" -eq 1 ]
    browse "?filter=texture" filtered
    check "?filter=texture shows the $textures texture rows" \
        grep -q "data-shown=\"$textures\"" "$SCRATCH/filtered.html"
    browse "?sort=bytes&order=desc" sorted
    sizes=$(grep -o '<tr class="asset[^>]*' "$SCRATCH/sorted.html" | grep -o 'data-bytes="[0-9]*"' |
        grep -o '[0-9]*')
    check "?sort=bytes&order=desc orders the rows by size" \
        all_true '[ "$(echo "$sizes" | grep -c "")" -eq "$rows" ]' \
        '[ "$sizes" = "$(echo "$sizes" | sort -rn)" ]' 'grep -q "data-sort=\"bytes desc\"" "$SCRATCH/sorted.html"'
    timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$PROFILE" --window-size=1280,900 --screenshot="$SCRATCH/report.png" \
        "file://$HTML" >/dev/null 2>&1 || true
    check "a screenshot is kept ($SCRATCH/report.png)" \
        bash -c "[ \"\$(python3 '$PNG_TOOL' size '$SCRATCH/report.png')\" = '1280 900' ]"
fi

# ---- times and what changed --------------------------------------------------
CACHE="$SCRATCH/runtime/.kiln-cache"
check "the cache records every cooked asset's stage times" \
    all_true '[ "$(head -1 "$CACHE")" = "kiln-cache 3" ]' \
    '[ "$(grep -ac $'"'"'^time\t1\t'"'"' "$CACHE")" -eq "$(grep -ac $'"'"'^asset\t'"'"' "$CACHE")" ]'
check "the page shows the times per stage" grep -qE '>texture [0-9]+\.[0-9]{3}<br>' "$HTML"
png opaque "$HOSTILE" 40 24
run build -j 2 --report report.html
changed=$(grep -o '<tr class="asset changed"[^>]*data-ref="[^"]*"' "$HTML" | sed 's/.*data-ref="//; s/"$//')
check "only the changed texture is marked" \
    [ "$changed" = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;q" ]
run build -j 2
run report report.html
check "a no-op build keeps the marks; kiln report writes the same rows" \
    all_true 'status_is 0' '[ "$(grep -c "<tr class=\"asset changed\"" "$HTML")" -eq 1 ]' \
    '[ "$(grep -c "<tr class=\"asset" "$HTML")" -eq "$rows" ]'

# ---- model thumbnails through a stand-in viewer -----------------------------
if [ -e "$(dirname "$KILN")/kiln-view" ]; then
    echo "note: a kiln-view sits beside kiln; the stand-in viewer checks are left to it"
else
    mkdir -p "$SCRATCH/bin"
    cat >"$SCRATCH/bin/kiln-view" <<EOF
#!/bin/sh
# A stand-in: kiln-view OUTPUT REF --headless --render PNG --size WxH
[ "\$3" = --headless ] && [ "\$4" = --render ] && [ "\$6" = --size ] || exit 9
exec python3 '$PNG_TOOL' opaque "\$5" "\${7%x*}" "\${7#*x}"
EOF
    chmod +x "$SCRATCH/bin/kiln-view"
    scenes=$(grep -ac $'^ref\t4\t' "$SCRATCH/runtime/.kiln-cache")
    RUN_ENV="PATH=$SCRATCH/bin:$PATH"
    run report report.html
    check "a viewer on PATH gives every scene ($scenes) a 128x128 thumbnail" \
        all_true 'status_is 0' \
        '[ "$(png data-uris "$HTML" | grep -c "^128 128$")" -eq "$scenes" ]'
    printf '#!/bin/sh\nexit 3\n' >"$SCRATCH/bin/kiln-view"
    run report report.html
    check "a failing viewer is named in the row" \
        grep -q "no thumbnail: kiln-view failed (exit status 3)" "$HTML"
    RUN_ENV=""
fi

# ---- a folder never built with --report ---------------------------------------
run build -j 2 -o plain
run report -o plain plain.html
check "without --report the cache stays format 2 and the page says where times come from" \
    all_true 'status_is 0' '[ "$(head -1 "$SCRATCH/plain/.kiln-cache")" = "kiln-cache 2" ]' \
    'grep -q "recorded from the first <code>kiln build --report</code>" "$SCRATCH/plain.html"' \
    '[ "$(grep -c "<tr class=\"asset" "$SCRATCH/plain.html")" -eq "$rows" ]'

# ---- errors -------------------------------------------------------------------
run report -o nowhere report.html
check "a folder without a build is an error" \
    all_true 'status_is 1' 'stderr_has "nowhere: no build to report on"'
run report report.html/inside.html
check "an unwritable page is named" \
    all_true 'status_is 1' 'stderr_has "report.html/inside.html: cannot write"'

# ---- model thumbnails by the real kiln-view -------------------------------------
# A kiln-view built beside kiln renders every scene's thumbnail headless on
# lavapipe (from here on without leak checks: Mesa's LLVM keeps allocations
# until exit, lavapipe.sh); the kept screenshot is then of that page.
if [ -e "$(dirname "$KILN")/kiln-view" ]; then
    source "$KILN_REPO/tests/support/lavapipe.sh"
    if lavapipe_setup "$SCRATCH"; then
        scenes=$(grep -ac $'^ref\t4\t' "$SCRATCH/runtime/.kiln-cache")
        run report viewer.html
        VIEWER_HTML="$SCRATCH/viewer.html"
        check "kiln-view renders every scene ($scenes) a 128x128 thumbnail with something drawn" \
            all_true 'status_is 0' '[ "$scenes" -gt 0 ]' \
            '[ "$(png drawn-uris "$VIEWER_HTML" | grep -cE "^128 128 [1-9]")" -eq "$scenes" ]' \
            '! grep -q "no thumbnail" "$VIEWER_HTML"'
        if [ -n "$BROWSER" ]; then
            timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --no-first-run \
                --user-data-dir="$PROFILE" --enable-logging=stderr --v=1 \
                --dump-dom "file://$VIEWER_HTML" >"$SCRATCH/viewer-dom.html" \
                2>"$SCRATCH/viewer-dom.log" || true
            check "the page with the viewer's thumbnails loads with no console error" \
                all_true 'grep -q "data-ready=\"1\"" "$SCRATCH/viewer-dom.html"' \
                '! grep -qiE "Uncaught|:CONSOLE[:(][0-9]+.*error" "$SCRATCH/viewer-dom.log"'
            timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --no-first-run \
                --user-data-dir="$PROFILE" --window-size=1280,900 \
                --screenshot="$SCRATCH/report.png" "file://$VIEWER_HTML" >/dev/null 2>&1 || true
            check "the screenshot kept is of that page" \
                bash -c "[ \"\$(python3 '$PNG_TOOL' size '$SCRATCH/report.png')\" = '1280 900' ]"
        fi
    else
        echo "skipped: the real viewer's thumbnails: $LAVAPIPE_MISSING"
    fi
fi

finish report
