#!/usr/bin/env bash
# Sidecars through the CLI, on the examples: a sidecar changes its asset's
# output and only that asset is cooked again (every other file keeps its
# bytes); an `id:` alone recooks nothing; a bad sidecar fails its asset alone
# naming the sidecar and the line; nested keys and unknown keys read as in
# kiln.yml; a sidecar beside no source is named; sidecars are no assets;
# `kiln init --sidecar` writes the ID and every resolved value with where it
# comes from; `kiln mv` moves a source with its sidecar and rewrites levels.
set -euo pipefail
source "$(dirname "$0")/harness.sh" sidecar_cli

T="$SCRATCH/project"
mkdir -p "$T"
cp -r "$KILN_REPO/examples/assets" "$T/assets"
cp "$KILN_REPO/examples/kiln.yml" "$T/kiln.yml"
sums() { (cd "$T/runtime" && find . -type f ! -name assets.kman ! -path './.kiln*' -print0 |
    sort -z | xargs -0 md5sum); }
cooked_count() { grep -c '^cooked .* -> ' "$SCRATCH/stdout" || true; }

run_in "$T" build -v
check "the examples cook" status_is 0
sums >"$SCRATCH/before"

printf '# fewer levels for the rock alone\nmesh.lods: 0\n' >"$T/assets/props/rock.obj.kiln.yml"
run_in "$T" build -v
sums >"$SCRATCH/after"
check "a sidecar cooks its asset again, and no other" \
    all_true 'status_is 0' 'stdout_has "^cooked props/rock.obj "' '[ "$(cooked_count)" -eq 1 ]'
check "the sidecar's value is the asset's setting" \
    grep -aq '"mesh.lods":0,' "$T/runtime/props/rock.kmesh"
check "only the rock's files changed" \
    diff <(grep -v 'props/rock\.' "$SCRATCH/before") <(grep -v 'props/rock\.' "$SCRATCH/after")
check "the rock's mesh did change" \
    bash -c "! cmp -s <(grep 'props/rock.kmesh' '$SCRATCH/before') <(grep 'props/rock.kmesh' '$SCRATCH/after')"
check "the sidecar is no asset and no skipped file" \
    all_true 'stdout_lacks "kiln\.yml"' 'stdout_has "0 skipped"'

run_in "$T" build -v
check "an unchanged sidecar cooks nothing" all_true 'status_is 0' '[ "$(cooked_count)" -eq 0 ]'

printf 'id: 0123456789abcdef0123456789ABCDEF\nmesh.lods: 0\n' >"$T/assets/props/rock.obj.kiln.yml"
run_in "$T" build -v
check "an id: changes no output: nothing cooked" \
    all_true 'status_is 0' '[ "$(cooked_count)" -eq 0 ]'

printf 'mesh:\n  lods: 0\n  meshlets: false\n  lodz: 2\n' >"$T/assets/props/rock.obj.kiln.yml"
run_in "$T" build -v
check "nested keys read as in kiln.yml; an unknown one is a warning with its line" \
    all_true 'status_is 0' 'stdout_has "^cooked props/rock.obj "' \
    "stderr_has \"^assets/props/rock.obj.kiln.yml:4: warning: unknown key 'lodz' in mesh\"" \
    'grep -aq "\"mesh.meshlets\":false" "$T/runtime/props/rock.kmesh"'

cp "$T/runtime/props/rock.kmesh" "$SCRATCH/rock.kmesh"
printf 'mesh.lods: 0\n\ntexture.format: bc9\n' >"$T/assets/props/rock.obj.kiln.yml"
run_in "$T" build -v
check "a bad sidecar fails its asset alone, naming the sidecar and the line" \
    all_true 'status_is 1' 'stdout_has "^failed props/rock.obj"' \
    "stderr_has \"^assets/props/rock.obj.kiln.yml:3: error: texture.format: 'bc9' is not one of\"" \
    'stdout_has "^up to date props/crate.obj"' 'stdout_has "^up to date levels/yard.level"'
check "the failed asset keeps its previous files" cmp "$T/runtime/props/rock.kmesh" "$SCRATCH/rock.kmesh"
printf 'id: 1234\n' >"$T/assets/props/rock.obj.kiln.yml"
run_in "$T" build -v
check "a bad id: fails the asset naming the line" \
    all_true 'status_is 1' "stderr_has \"^assets/props/rock.obj.kiln.yml:1: error: id: '1234' is not an asset ID\""
rm "$T/assets/props/rock.obj.kiln.yml"

printf 'mesh.lods: 1\n' >"$T/assets/props/boulder.obj.kiln.yml"
run_in "$T" build -v
check "a sidecar beside no source is named and ignored" \
    all_true 'status_is 0' \
    "stderr_has \"^assets/props/boulder.obj.kiln.yml: warning: a sidecar beside no source\""
rm "$T/assets/props/boulder.obj.kiln.yml"

printf 'texture.format: rgba8\n' >"$T/assets/props/crate.png.kiln.yml"
run_in "$T" build -v
check "the sidecar of a texture a model reads is named as unused" \
    all_true 'status_is 0' \
    "stderr_has \"^assets/props/crate.png.kiln.yml: warning: 'props/crate.png' is cooked through props/crate.obj, with that model's settings\""
rm "$T/assets/props/crate.png.kiln.yml"

run_in "$T" init --sidecar assets/shaders/skinned.vert
S="$T/assets/shaders/skinned.vert.kiln.yml"
check "init --sidecar writes the ID and each resolved value with its origin" \
    all_true 'status_is 0' 'grep -qE "^id: [0-9a-f]{32}$" "$S"' \
    "grep -qE '^# shader.variants: \"\\\\nSKINNED=1\" +# rule .match: shaders/skinned.vert. \\(kiln.yml:7\\)$' \"\$S\"" \
    'grep -qE "^# mesh.lods: 2 +# default$" "$S"'
run_in "$T" build -v
check "the written sidecar changes no setting: nothing cooked" \
    all_true 'status_is 0' '[ "$(cooked_count)" -eq 0 ]'
printf 'mesh:\n  lods: 1\n' >"$T/assets/props/rock.obj.kiln.yml"
run_in "$T" info --settings assets/props/rock.obj
check "info --settings names each value's origin: default, rule, sidecar line" \
    all_true 'status_is 0' 'stdout_has "^id: [0-9a-f]{32} +# derived from its path"' \
    'stdout_has "^mesh.lods: 1 +# props/rock.obj.kiln.yml:2$"' \
    'stdout_has "^mesh.merge: false +# default$"'
run_in "$T" info --settings assets/shaders/skinned.vert
check "info --settings shows a sidecar's pinned ID and a rule's line" \
    all_true 'status_is 0' "stdout_has \"^id: \$(sed -n 's/^id: //p' '$S') +# its sidecar's$\"" \
    "stdout_has \"^shader.variants: .* # rule 'match: shaders/skinned.vert' \\(kiln.yml:7\\)$\""
rm "$T/assets/props/rock.obj.kiln.yml"
run_in "$T" init --sidecar assets/shaders/skinned.vert
check "init --sidecar never overwrites" all_true 'status_is 1' 'stderr_has "already exists"'
run_in "$T" init --sidecar assets/props/crate.mtl
check "init --sidecar refuses a file kiln does not cook" \
    all_true 'status_is 1' 'stderr_has "no importer claims it"'

printf 'mesh.lods: 0\n' >"$T/assets/props/sign.obj.kiln.yml"
run_in "$T" mv assets/props/sign.obj assets/level/signpost.obj
check "kiln mv moves the source and its sidecar, pinning the ID first" \
    all_true 'status_is 0' '[ -f "$T/assets/level/signpost.obj" ]' '[ ! -e "$T/assets/props/sign.obj" ]' \
    '[ ! -e "$T/assets/props/sign.obj.kiln.yml" ]' \
    'grep -qE "^id: [0-9a-f]{32} # the stable ID of props/sign.obj" "$T/assets/level/signpost.obj.kiln.yml"' \
    'grep -qx "mesh.lods: 0" "$T/assets/level/signpost.obj.kiln.yml"'
check "kiln mv rewrites the level naming it, and nothing else in it" \
    all_true 'stdout_has "^kiln: assets/levels/yard.level:[0-9]+: asset: props/sign.obj -> level/signpost.obj$"' \
    "diff <(sed 's#asset: level/signpost.obj#asset: props/sign.obj#' '$T/assets/levels/yard.level') '$KILN_REPO/examples/assets/levels/yard.level'"
run_in "$T" build -v
check "after kiln mv the tree cooks and checks" \
    all_true 'status_is 0' 'stdout_has "^cooked level/signpost.obj "' '[ ! -e "$T/runtime/props/sign.kmesh" ]'
run_in "$T" check -o runtime
check "kiln check passes after the move" status_is 0
run_in "$T" mv assets/props/crate.obj assets/props/rock.obj
check "kiln mv never overwrites" all_true 'status_is 1' 'stderr_has "already exists"' \
    '[ -f "$T/assets/props/crate.obj" ]' '[ ! -e "$T/assets/props/crate.obj.kiln.yml" ]'
run_in "$T" mv assets/props/crate.obj assets/props/crate.txt
check "kiln mv refuses a name no importer claims" \
    all_true 'status_is 1' 'stderr_has "no importer would claim"'

# material.overrides: a bad line fails the model naming the field; a pattern
# naming no material is a warning (the exact values and the normal map
# are checked by test_sidecar, in C).
bad_override() {
    printf 'material.overrides: ["%s"]\n' "$1" >"$T/assets/props/pebble.obj.kiln.yml"
    run_in "$T" build -v
    status_is 1 && stdout_has "^failed props/pebble.obj" && stderr_has "$2"
}
check "a bad override fails the model, naming the field and value" \
    all_true "bad_override '*: roughness=2' \"material.overrides: 'roughness=2' for '\\\\*' is not a field\"" \
    "bad_override '*: shininess=1' \"'shininess=1' for '\\\\*' is not a field\"" \
    "bad_override '*: base_color=1,1,1' \"'base_color=1,1,1'\"" \
    "bad_override '*: normal_texture=missing.png' \"normal_texture 'missing.png'\"" \
    "bad_override '*: normal_from_height=../up.png' \"normal_from_height '../up.png': path '../up.png' leaves the input folder\"" \
    "bad_override 'no pattern here' 'is not PATTERN: FIELD=VALUE'"
printf 'material.overrides: ["nothing*: roughness=1"]\n' >"$T/assets/props/pebble.obj.kiln.yml"
run_in "$T" build -v
check "an override naming no material is a warning; the model cooks" \
    all_true 'status_is 0' 'stdout_has "^cooked props/pebble.obj "' \
    "stderr_has \"material.overrides: 'nothing\\\\*' names no material of this model\""
rm "$T/assets/props/pebble.obj.kiln.yml"

finish test_sidecar_cli
