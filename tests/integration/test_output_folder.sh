#!/usr/bin/env bash
# test_output_folder.sh — every command finds the output folder the way
# `kiln build` does (kiln.yml's `output:`), a no-op build rewrites nothing,
# a build that cooked renames the manifest anew, and a first run in an empty folder says how to start.
#
# Environment (set by ctest): KILN (the executable), KILN_TMP (scratch folder).
set -euo pipefail
source "$(dirname "$0")/harness.sh" output_folder

# A project whose kiln.yml moves the output to cooked/.
P="$SCRATCH/project"
mkdir -p "$P/assets"
printf 'v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\n' >"$P/assets/tri.obj"
printf 'input: assets\noutput: cooked\npack: true\n' >"$P/kiln.yml"

run_in "$P" build
check "build writes kiln.yml's output folder" \
    all_true 'status_is 0' '[ -f "$P/cooked/assets.kman" ]' '[ ! -e "$P/runtime" ]'
run_in "$P" info
check "info reads kiln.yml's output folder" \
    all_true 'status_is 0' 'stdout_has "^output: cooked$"' 'stderr_lacks "runtime"'
run_in "$P" info --unreferenced
check "info --unreferenced reads it too" all_true 'status_is 0' 'stdout_has "^tri.obj: "'
run_in "$P" check
check "check reads kiln.yml's output folder" all_true 'status_is 0' 'stdout_has "problems?$"'
run_in "$P" pack info
check "pack info reads <output>.kpak of kiln.yml's output folder" \
    all_true 'status_is 0' 'stdout_has "cooked.kpak"'
run_in "$P" info -o elsewhere
check "-o still wins over kiln.yml" \
    all_true 'status_is 1' "stderr_has \"output folder 'elsewhere' does not exist\""

run_in "$P" build -o assets
check "the input folder as the output is a usage error with the hint" \
    all_true 'status_is 2' 'stderr_has "the output folder .assets. is the input folder"' \
    "stderr_has \"Try 'kiln build --help'\""

# A no-op build leaves every file as it was: make-style consumers of the
# manifest, the cache and the pack rebuild nothing.
stamps() {
    (cd "$P" && stat -c '%n %i %Y.%y' cooked/assets.kman cooked/.kiln-cache cooked.kpak \
        cooked/tri.kmesh)
}
before=$(stamps)
sleep 1.1 # a rewrite would show in the mtime's seconds too
run_in "$P" build
check "a no-op build rewrites no file (manifest, cache, pack, outputs)" \
    all_true 'status_is 0' 'stdout_has "0 assets"' '[ "$(stamps)" = "$before" ]'

# A build that cooks something renames a new manifest into place even when
# its bytes are the same (the same refs): a runtime watching the output
# (kiln_manager_watch) refreshes on that, and reloads the recooked files.
manifest_inode() { stat -c %i "$P/cooked/assets.kman"; }
manifest_bytes=$(od -An -tx1 "$P/cooked/assets.kman")
inode_before=$(manifest_inode)
printf 'v 0 0 0\nv 2 0 0\nv 2 2 0\nf 1 2 3\n' >"$P/assets/tri.obj"
run_in "$P" build
check "a build that cooked renames the manifest anew, with the same bytes" \
    all_true 'status_is 0' 'stdout_has "cooked 1 asset"' '[ "$(manifest_inode)" != "$inode_before" ]' \
    '[ "$(od -An -tx1 "$P/cooked/assets.kman")" = "$manifest_bytes" ]'

# A first run in an empty folder says how to start.
E="$SCRATCH/empty"
mkdir -p "$E"
run_in "$E"
check "kiln in an empty folder points to kiln init and -i" \
    all_true 'status_is 1' 'stderr_has "kiln init"' 'stderr_has "-i DIR"'
run_in "$E" build -i nowhere
check "a named missing input folder is still named" \
    all_true 'status_is 1' "stderr_has \"input folder 'nowhere' does not exist\""

# kiln init writes the real default of shader.entry, and that line changes
# no setting: a build with the template cooks what a build without it does.
run_in "$E" init
check "init writes shader.entry: main" \
    all_true 'status_is 0' 'grep -qE "^  shader.entry: main$" "$E/kiln.yml"'

finish output_folder
