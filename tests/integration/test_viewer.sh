#!/bin/bash
# kiln-view (examples/viewer, docs/viewer.md) rendering headless on lavapipe,
# Mesa's software Vulkan driver, with the Khronos validation layer on: any
# validation error fails a render. Synthetic glTF scenes written by
# viewer_scenes.py are cooked by kiln, rendered, and checked pixel by pixel
# against what viewer_scenes.py computes from the documented camera and
# light: a textured quad's texels (RGBA8 sRGB, RGBA8 linear, BC1, BC7, UASTC,
# ASTC decoded on the CPU since lavapipe cannot sample it), an
# alpha-mask cut-out, a node hierarchy placing a quad on a computed pixel
# region, a normal-mapped lit quad, occlusion and emissive maps, a morph
# target's displacement; the level
# of detail chosen by screen size or forced, the meshlet tint, the meshlets'
# bounding spheres outlined; texture refs drawn as sampled (HDR as ASTC
# HDR, BC6H and RGBA16F; R8, BC3, BC4, BC5, ASTC 8x8; an ASTC cubemap by view
# direction, an ASTC array's layers and mips, a 3D LUT's slices). Then corpus
# models render with a plausible silhouette (the Fox at two times with
# different ones), and bad command lines fail with one line naming the problem. Without Vulkan, lavapipe or the
# validation layer (installed here with apt-get when missing and root),
# "skipped:".
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/harness.sh" viewer
source "$HERE/../support/lavapipe.sh"
VIEW=$(dirname "$KILN")/kiln-view
SCENES="$HERE/viewer_scenes.py"
CORPUS=${KILN_CORPUS:-}

if [ ! -x "$VIEW" ]; then
    echo "skipped: kiln-view was not built (Vulkan not found: libvulkan-dev)"
    exit 0
fi
if ! lavapipe_setup "$SCRATCH"; then
    echo "skipped: $LAVAPIPE_MISSING"
    exit 0
fi
if ! command -v python3 >/dev/null; then
    echo "skipped: python3 not found (it writes the scenes and checks the pixels)"
    exit 0
fi

# view ARGS...: runs kiln-view; sets $status, fills the stdout/stderr files.
view() {
    set +e
    "$VIEW" "$@" >"$SCRATCH/stdout" 2>"$SCRATCH/stderr" </dev/null
    status=$?
    set -e
}
one_line_error() { [ "$(wc -l <"$SCRATCH/stderr")" -eq 1 ] && stderr_has "^kiln-view: $1"; }

# ---- synthetic scenes, checked pixel by pixel ---------------------------------
python3 "$SCENES" make "$SCRATCH/synthetic/in"
(cd "$SCRATCH" && "$KILN" build -q --config synthetic/kiln.yml -i synthetic/in \
    -o synthetic/out) >"$SCRATCH/cook.log" 2>&1 || { cat "$SCRATCH/cook.log"; exit 1; }
# The premises: the formats the texel checks are about.
for want in quad_srgb:rgba8_srgb quad_linear:rgba8_unorm quad_bc1:bc1_rgb_srgb quad_bc7:bc7_srgb \
    quad_uastc:uastc quad_astc:astc_4x4_srgb; do
    file="$SCRATCH/synthetic/out/${want%%:*}/${want%%:*}.ktx2"
    check "${want%%:*} is cooked as ${want#*:}" grep -q "${want#*:}" <("$KILN" info "$file" 2>&1)
done
for scene in quad_srgb quad_linear quad_bc1 quad_bc7 quad_uastc quad_astc mask nodes; do
    view "$SCRATCH/synthetic/out" "$scene" --headless --render "$SCRATCH/$scene.png" \
        --size 256x192 --validate
    check "$scene renders with no validation error nor white texture" all_true "status_is 0" \
        "stderr_lacks 'validation error'" "stderr_lacks 'drawn white'" \
        "[ -s '$SCRATCH/$scene.png' ]"
    check "$scene: pixels where computed" \
        python3 "$SCENES" check "$SCRATCH/synthetic/in" "$scene" "$SCRATCH/$scene.png" 256 192
done
# Clips: the first clip ("hold") when --time alone, "move" by name, sampled
# at 0.5 s; a clip the model lacks is an error naming it.
view "$SCRATCH/synthetic/out" anim --headless --render "$SCRATCH/anim_hold.png" --size 256x192 \
    --time 0.5 --validate
check "anim --time 0.5 (first clip) renders" status_is 0
check "anim_hold: the child where the held key puts it" \
    python3 "$SCENES" check "$SCRATCH/synthetic/in" anim_hold "$SCRATCH/anim_hold.png" 256 192
view "$SCRATCH/synthetic/out" anim --headless --render "$SCRATCH/anim_move.png" --size 256x192 \
    --clip move --time 0.5 --validate
check "anim --clip move --time 0.5 renders" status_is 0
check "anim_move: the child a quarter of the way" \
    python3 "$SCENES" check "$SCRATCH/synthetic/in" anim_move "$SCRATCH/anim_move.png" 256 192
view "$SCRATCH/synthetic/out" anim --headless --render "$SCRATCH/bad.png" --size 64x64 --clip walk
check "an unknown clip is a one-line error naming it" all_true "status_is 1" \
    "one_line_error \".*no clip named 'walk'\"" "[ ! -e '$SCRATCH/bad.png' ]"
view "$SCRATCH/synthetic/out" nodes --headless --render "$SCRATCH/bad.png" --size 64x64 --time 1
check "--time on a model without clips is a one-line error" all_true "status_is 1" \
    "one_line_error '.*nodes/scene has no animations'"

# Skinning: the rest pose, then clip "bend" at 1 s moving the top joint.
for pose in "skin_rest --time 0" "skin_bent --time 1"; do
    name=${pose%% *}
    view "$SCRATCH/synthetic/out" skin --headless --render "$SCRATCH/$name.png" --size 256x192 \
        ${pose#* } --validate
    check "$name renders with no validation error" all_true "status_is 0" \
        "stderr_lacks 'validation error'"
    check "$name: the skinned quad where its joints put it" \
        python3 "$SCENES" check "$SCRATCH/synthetic/in" "$name" "$SCRATCH/$name.png" 256 192
done

# A normal map on a lit quad: each half's pixels are the documented shading
# of the map's normal (N.L and the highlight computed in viewer_scenes.py).
view "$SCRATCH/synthetic/out" normal --headless --render "$SCRATCH/normal.png" --size 256x192 \
    --validate
check "normal renders with no validation error" all_true "status_is 0" \
    "stderr_lacks 'validation error'"
check "normal: each half shaded by its mapped normal" \
    python3 "$SCENES" check "$SCRATCH/synthetic/in" normal "$SCRATCH/normal.png" 256 192

# Occlusion (strength 1, black on the left half) darkens the ambient term;
# the emissive factor times its sRGB texture adds to every pixel.
view "$SCRATCH/synthetic/out" glow --headless --render "$SCRATCH/glow.png" --size 256x192 --validate
check "glow renders with no validation error" all_true "status_is 0" \
    "stderr_lacks 'validation error'"
check "glow: occlusion and emission where computed" \
    python3 "$SCENES" check "$SCRATCH/synthetic/in" glow "$SCRATCH/glow.png" 256 192

# A morph target: its default weight 1 (no --time), then clip "grow" at 0.5 s
# (weight 0.5), moving the quad's top right corner.
for pose in "morph_default" "morph_half --clip grow --time 0.5"; do
    name=${pose%% *}
    args=${pose#"$name"}
    view "$SCRATCH/synthetic/out" morph --headless --render "$SCRATCH/$name.png" --size 256x192 \
        $args --validate
    check "$name renders with no validation error" all_true "status_is 0" \
        "stderr_lacks 'validation error'"
    check "$name: the quad covers where its displaced corner puts it" \
        python3 "$SCENES" check "$SCRATCH/synthetic/in" "$name" "$SCRATCH/$name.png" 256 192
done

# Levels of detail of the sphere: chosen by screen size in a small and a
# large image, forced with --lod (a level above the mesh's last draws its
# last); the stats line against viewer_scenes.py's reading of the .kmesh
# LOD table and the documented rule.
stats_of() { grep -oE 'lod [0-9]+ triangles [0-9]+' "$SCRATCH/expected" | head -n 1; }
drawn_of() { sed -nE 's/^stats: draws 1 triangles ([0-9]+) lod (.*) meshlets ([0-9]+)$/\1 \2 \3/p' \
    "$SCRATCH/stdout"; }
for run in "24x18 -1" "480x360 -1" "256x192 1" "256x192 7"; do
    size=${run% *}
    forced=${run#* }
    lod_args=()
    [ "$forced" -ge 0 ] && lod_args=(--lod "$forced")
    view "$SCRATCH/synthetic/out" sphere --headless --render "$SCRATCH/sphere.png" --size "$size" \
        "${lod_args[@]}" --stats --validate
    python3 "$SCENES" lod "$SCRATCH/synthetic/out/sphere.kmesh" "${size%x*}" "${size#*x}" \
        "$forced" >"$SCRATCH/expected"
    read -r _ level _ triangles _ meshlets _ levels <"$SCRATCH/expected"
    want="$triangles $(for ((l = 0; l <= level; l++)); do printf '%s:%s ' $l $((l == level)); done)"
    check "sphere at $size (--lod $forced) draws level $level, $triangles triangles" all_true \
        "status_is 0" "stderr_lacks 'validation error'" \
        "[ \"\$(drawn_of)\" = '${want% } 0' ]"
done
check "the sphere has 3 levels and the two sizes chose different ones (premise)" \
    all_true "[ '$levels' -eq 3 ]" \
    "[ \"\$(python3 '$SCENES' lod '$SCRATCH/synthetic/out/sphere.kmesh' 24 18 -1 | cut -d' ' -f2)\" != \
       \"\$(python3 '$SCENES' lod '$SCRATCH/synthetic/out/sphere.kmesh' 480 360 -1 | cut -d' ' -f2)\" ]"

# The meshlet tint: every meshlet drawn, no validation error, a changed image.
view "$SCRATCH/synthetic/out" sphere --headless --render "$SCRATCH/sphere_lod0.png" --size 256x192 \
    --lod 0 --validate
view "$SCRATCH/synthetic/out" sphere --headless --render "$SCRATCH/sphere_meshlets.png" \
    --size 256x192 --meshlets --stats --validate
check "--meshlets draws the sphere's $meshlets meshlets with no validation error" all_true \
    "status_is 0" "stderr_lacks 'validation error'" "[ '$meshlets' -gt 1 ]" \
    "stdout_has ' meshlets $meshlets\$'"
check "--meshlets changes the image" \
    bash -c "! cmp -s '$SCRATCH/sphere_lod0.png' '$SCRATCH/sphere_meshlets.png'"

# --meshlet-bounds: each meshlet's bounding sphere outlined where its
# projection lies (viewer_scenes.py reads MLET and projects them itself);
# the plain render has no outline colour anywhere.
view "$SCRATCH/synthetic/out" sphere --headless --render "$SCRATCH/sphere_bounds.png" \
    --size 256x192 --lod 0 --meshlet-bounds --validate
check "--meshlet-bounds renders with no validation error" all_true "status_is 0" \
    "stderr_lacks 'validation error'"
check "--meshlet-bounds: every meshlet's projected sphere outlined" \
    python3 "$SCENES" bounds "$SCRATCH/synthetic/out/sphere.kmesh" "$SCRATCH/sphere_bounds.png" \
    256 192
check "without --meshlet-bounds: no outline" \
    bash -c "! python3 '$SCENES' bounds '$SCRATCH/synthetic/out/sphere.kmesh' \
        '$SCRATCH/sphere_lod0.png' 256 192 >/dev/null"

# The same output as a pack draws the same image.
(cd "$SCRATCH" && "$KILN" build -q --config synthetic/kiln.yml -i synthetic/in \
    -o synthetic/out --pack) >"$SCRATCH/pack.log" 2>&1
view "$SCRATCH/synthetic/out.kpak" nodes --headless --render "$SCRATCH/nodes_pack.png" \
    --size 256x192 --validate
check "a .kpak renders as its folder" cmp -s "$SCRATCH/nodes.png" "$SCRATCH/nodes_pack.png"

# Vertices as one stream per attribute (mesh.vertex_layout: streams): each
# attribute bound from its own stream draws the same pixels (textured quad,
# lit normal-mapped quad, skinned and morphed quads), in a folder and a pack.
{ cat "$SCRATCH/synthetic/kiln.yml"; printf '  - match: "*"\n    mesh.vertex_layout: streams\n'; } \
    >"$SCRATCH/synthetic/streams.yml"
(cd "$SCRATCH" && "$KILN" build -q --config synthetic/streams.yml -i synthetic/in \
    -o synthetic/streams --pack) >"$SCRATCH/streams.log" 2>&1 || { cat "$SCRATCH/streams.log"; exit 1; }
check "streams: the skinned quad is cooked as streams" \
    grep -q "in one stream per attribute" <("$KILN" info "$SCRATCH/synthetic/streams/skin.kmesh")
for pose in "quad_srgb" "normal" "skin_bent skin --time 1" "morph_half morph --clip grow --time 0.5"; do
    name=${pose%% *}
    rest=${pose#"$name"}
    scene=${rest# }
    scene=${scene%% *}
    [ -n "$scene" ] || scene=$name
    args=${rest#" $scene"}
    for where in streams streams.kpak; do
        view "$SCRATCH/synthetic/$where" "$scene" --headless --render "$SCRATCH/$name-$where.png" \
            --size 256x192 $args --validate
        check "$name from $where renders with no validation error" all_true "status_is 0" \
            "stderr_lacks 'validation error'"
        check "$name from $where: pixels where computed" \
            python3 "$SCENES" check "$SCRATCH/synthetic/in" "$name" "$SCRATCH/$name-$where.png" 256 192
    done
    check "$name: streams and interleaved render the same image" \
        cmp -s "$SCRATCH/$name.png" "$SCRATCH/$name-streams.png"
done

# A scene's own ref draws the same as the model's ref.
view "$SCRATCH/synthetic/out" nodes/scene --headless --render "$SCRATCH/nodes_scene.png" \
    --size 256x192 --validate
check "a scene ref renders as its model's" cmp -s "$SCRATCH/nodes.png" "$SCRATCH/nodes_scene.png"

# ---- texture refs: drawn as sampled, checked against the texels ----------------------
# An HDR image cooked as ASTC HDR (decoded to RGBA16F), BC6H and RGBA16F: its
# values below 1 sRGB-encoded, above 1 clamped. An ASTC cubemap (decoded
# face by face) seen along computed view rays from eight directions; an ASTC
# array (layer by layer) at each layer, and small enough that the sampler
# reads its mips; a 3D LUT's two slices.
for want in hdr_astc:astc_6x6_sfloat hdr_bc6h:bc6h_ufloat hdr_float:rgba16_sfloat \
    sky:"cubemap, 4 mips, astc_4x4_srgb" layers:"array of 3 layers, 5 mips, astc_4x4_srgb" \
    grade.lut:"2x2 3D"; do
    file="$SCRATCH/synthetic/out/${want%%:*}.ktx2"
    check "${want%%:*} is cooked as ${want#*:}" grep -q "${want#*:}" <("$KILN" info "$file" 2>&1)
done
# texture_view NAME REF PNG W H LAYER YAW PITCH: renders and checks one view.
texture_view() {
    local name=$1 ref=$2 png="$SCRATCH/$3" w=$4 h=$5 layer=$6 yaw=$7 pitch=$8
    view "$SCRATCH/synthetic/out" "$ref" --headless --render "$png" --size "${w}x$h" \
        --layer "$layer" --orbit "$yaw,$pitch" --validate
    check "$3 renders with no validation error nor white texture" all_true "status_is 0" \
        "stderr_lacks 'validation error'" "stderr_lacks 'drawn white'" "[ -s '$png' ]"
    check "$3: texels where computed" \
        python3 "$SCENES" texture "$name" "$png" "$w" "$h" "$layer" "$yaw" "$pitch"
}
for hdr in hdr_astc hdr_bc6h hdr_float; do
    texture_view "$hdr" "$hdr" "$hdr.png" 256 192 0 0 0
done
# The other formats kiln writes reach the GPU as they are (ASTC 8x8 decoded),
# single channels shown grey, a BC5 normal map's two channels as red and green.
for want in fmt_r8.r:r8_unorm fmt_bc4.r:bc4_unorm fmt_bc5.n:bc5_unorm fmt_bc3:bc3_srgb \
    fmt_astc8:astc_8x8_srgb; do
    name=${want%%:*}
    check "$name is cooked as ${want#*:}" grep -q "${want#*:}" \
        <("$KILN" info "$SCRATCH/synthetic/out/$name.ktx2" 2>&1)
    texture_view "$name" "$name" "$name.png" 128 96 0 0 0
done
for orbit in 0,0 90,0 180,0 -90,0 0,89 0,-89 45,30 -135,-40; do
    texture_view sky sky "sky_${orbit/,/_}.png" 128 96 0 "${orbit%,*}" "${orbit#*,}"
done
check "sky at 45,30 sees three faces (premise)" \
    grep -q "faces seen: nx ny nz" <(python3 "$SCENES" texture sky "$SCRATCH/sky_45_30.png" 128 96 0 45 30)
for layer in 0 1 2; do
    texture_view layers layers "layers_$layer.png" 256 192 "$layer" 0 0
done
texture_view layers layers "layers_mips.png" 6 6 1 0 0
check "the array's layers differ (premise)" \
    bash -c "! cmp -s '$SCRATCH/layers_0.png' '$SCRATCH/layers_1.png'"
for slice in 0 1; do
    texture_view lut grade.lut "lut_$slice.png" 256 192 "$slice" 0 0
done
view "$SCRATCH/synthetic/out" layers --headless --render "$SCRATCH/bad.png" --size 64x64 --layer 3
check "a layer the array lacks is a one-line error naming the file" all_true "status_is 1" \
    "one_line_error '.*layers.ktx2: has 3 layers; --layer 3 is not one'" "[ ! -e '$SCRATCH/bad.png' ]"
view "$SCRATCH/synthetic/out" sky --headless --render "$SCRATCH/bad.png" --size 64x64 --time 1
check "--time on a texture is a one-line error" all_true "status_is 1" \
    "one_line_error '.*sky is a texture: --time'"
view "$SCRATCH/synthetic/out" nodes --headless --render "$SCRATCH/bad.png" --size 64x64 --layer 1
check "--layer on a model is a one-line error" all_true "status_is 1" \
    "one_line_error '--layer picks a texture.s layer; nodes/scene is not a texture'"
view "$SCRATCH/synthetic/out" layers --headless --render "$SCRATCH/bad.png" --size 64x64 --layer -1
check "a bad --layer is a usage error" all_true "status_is 2" "stderr_has '--layer takes'"

# ---- bad command lines and inputs: one line, non-zero, no PNG ---------------------
view "$SCRATCH/missing" --headless --render "$SCRATCH/bad.png" --size 64x64
check "a missing output folder is a one-line error naming it" all_true "status_is 1" \
    "one_line_error '.*missing'" "[ ! -e '$SCRATCH/bad.png' ]"
view "$SCRATCH/synthetic/out" no/such --headless --render "$SCRATCH/bad.png" --size 64x64
check "an unknown ref is a one-line error naming it" all_true "status_is 1" \
    "one_line_error '.*no/such'" "[ ! -e '$SCRATCH/bad.png' ]"
view "$SCRATCH/synthetic/out" nodes --headless --render "$SCRATCH/bad.png" --size 64
check "a bad --size is a usage error" all_true "status_is 2" "stderr_has 'WxH'"
view "$SCRATCH/synthetic/out" nodes --render "$SCRATCH/bad.png" --size 64x64
check "--render without --headless is a usage error" all_true "status_is 2" \
    "stderr_has 'headless'"
view "$SCRATCH/synthetic/out" sphere --headless --render "$SCRATCH/bad.png" --size 64x64 --lod x
check "a bad --lod is a usage error" all_true "status_is 2" "stderr_has '--lod takes'"
view "$SCRATCH/synthetic/out" sphere --headless --render "$SCRATCH/bad.png" --size 64x64 --lod 1 \
    --meshlets
check "--meshlets with --lod is a usage error" all_true "status_is 2" "stderr_has 'level 0'"
view "$SCRATCH/synthetic/out" nodes --headless --render "$SCRATCH/bad.png" --size 64x64 \
    --shaders "$SCRATCH/no-shaders"
check "missing cooked shaders are a one-line error" all_true "status_is 1" \
    "one_line_error '.*no-shaders.*--shaders'" "[ ! -e '$SCRATCH/bad.png' ]"
view "$SCRATCH/synthetic/out" nodes --headless --render "$SCRATCH/no-dir/x.png" --size 64x64
check "an unwritable PNG path is a one-line error naming it" all_true "status_is 1" \
    "one_line_error '.*no-dir/x.png'"

# ---- corpus models -----------------------------------------------------------------
if [ -n "$CORPUS" ] && [ -d "$CORPUS/gltf/DamagedHelmet" ]; then
    mkdir -p "$SCRATCH/corpus/in"
    # source folder, its copy's name (the model's ref is <name>/<file stem>), the
    # share of the 4:3 frame its silhouette covers from the front (min, max):
    # the camera fits the bounding box's sphere to the frame's height, whose
    # disc covers about half of it, and the models fill part of that disc
    # (the helmet about a third, the fox seen head-on far less, the morph
    # cube about a third at its default weights, the normal map test's tiles
    # a fifth).
    models="DamagedHelmet/glTF-Binary damagedhelmet/damagedhelmet 0.08 0.40
AlphaBlendModeTest/glTF-Binary alphablendmodetest/alphablendmodetest 0.08 0.40
TextureTransformTest/glTF texturetransformtest/texturetransformtest 0.10 0.45
Fox/glTF-Binary fox/fox 0.01 0.20
AnimatedMorphCube/glTF-Binary animatedmorphcube/animatedmorphcube 0.20 0.55
AnimatedMorphCube/glTF-Quantized animatedmorphcubeq/animatedmorphcube 0.20 0.55
NormalTangentTest/glTF normaltangenttest/normaltangenttest 0.10 0.35"
    while read -r src ref low high; do
        [ -d "$CORPUS/gltf/$src" ] || continue
        mkdir -p "$SCRATCH/corpus/in/${ref%%/*}"
        cp -r "$CORPUS/gltf/$src"/. "$SCRATCH/corpus/in/${ref%%/*}/"
    done <<<"$models"
    # Small textures keep the cook short; the viewer draws what was cooked.
    printf 'default:\n  texture.max_size: 256\n' >"$SCRATCH/corpus/kiln.yml"
    (cd "$SCRATCH/corpus" && "$KILN" build -q --config kiln.yml -i in -o out) \
        >"$SCRATCH/corpus.log" 2>&1 || true
    while read -r src ref low high; do
        [ -d "$CORPUS/gltf/$src" ] || continue
        png="$SCRATCH/corpus-${ref%%/*}.png"
        view "$SCRATCH/corpus/out" "$ref" --headless --render "$png" --size 320x240 --validate
        check "corpus $ref renders with no validation error" all_true "status_is 0" \
            "stderr_lacks 'validation error'"
        share=$(python3 "$SCENES" coverage "$png" 2>/dev/null || echo 0)
        check "corpus $ref covers $share of the frame (expected $low..$high)" \
            python3 -c "import sys; sys.exit(not ($low <= $share <= $high))"
    done <<<"$models"
    # The Fox at two times of its first clip: two poses, two silhouettes.
    if [ -d "$CORPUS/gltf/Fox/glTF-Binary" ]; then
        for t in 0.4 1.6; do
            view "$SCRATCH/corpus/out" fox/fox --headless --render "$SCRATCH/fox-$t.png" \
                --size 320x240 --time "$t" --validate
            check "corpus fox at $t s renders with no validation error" all_true "status_is 0" \
                "stderr_lacks 'validation error'"
        done
        check "corpus fox: the silhouettes at 0.4 s and 1.6 s differ on over 0.5% of the frame" \
            python3 "$SCENES" differ "$SCRATCH/fox-0.4.png" "$SCRATCH/fox-1.6.png" 0.005
    fi
    # AnimatedMorphCube's weights clip: the shape changes between 0 s and 1 s;
    # its KHR_mesh_quantization copy (quantised positions and deltas) draws
    # the same shape at 1 s.
    if [ -d "$CORPUS/gltf/AnimatedMorphCube/glTF-Quantized" ]; then
        for model in animatedmorphcube animatedmorphcubeq; do
            for t in 0 1; do
                view "$SCRATCH/corpus/out" "$model/animatedmorphcube" --headless \
                    --render "$SCRATCH/$model-$t.png" --size 320x240 --time "$t" --validate
                check "corpus $model at $t s renders with no validation error" all_true \
                    "status_is 0" "stderr_lacks 'validation error'"
            done
        done
        check "corpus morph cube: the silhouettes at 0 s and 1 s differ on over 0.5% of the frame" \
            python3 "$SCENES" differ "$SCRATCH/animatedmorphcube-0.png" \
            "$SCRATCH/animatedmorphcube-1.png" 0.005
        check "corpus morph cube: quantised and float silhouettes at 1 s agree within 0.2%" \
            bash -c "! python3 '$SCENES' differ '$SCRATCH/animatedmorphcube-1.png' \
                '$SCRATCH/animatedmorphcubeq-1.png' 0.002"
    fi
else
    echo "corpus: skipped: shared corpus not found at ${CORPUS:-<unset>} (set KILN_CORPUS)"
fi

finish "viewer"
