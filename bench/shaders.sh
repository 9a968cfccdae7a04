#!/usr/bin/env bash
# shaders.sh — cooking the example shaders through kiln against running glslc
# once per shader file with the same options (bench/run.sh, section shaders).
#
#   bash bench/shaders.sh KILN REPO SCRATCH
#
# The input is examples/assets/shaders with examples/kiln.yml (the two
# variants of skinned.vert): 7 compiles (lit.shader's two stages, blur.comp,
# tonemap.ps.hlsl, skinned.vert twice). glslc gets what kiln's defaults are:
# --target-env=vulkan1.3 -O, -x hlsl -fshader-stage=frag for the HLSL file,
# -DSKINNED=1 for the variant. Measured with hyperfine: kiln clean (-j1,
# --no-cache, so every shader compiles), glslc once per file in sequence, and
# kiln warm (cache up to date: a no-op).
set -euo pipefail
kiln=$1
repo=$2
scratch=$3
in="$scratch/shaders-in"
out="$scratch/shaders-out"
rm -rf "$in" "$out" "$scratch/shaders-glslc"
mkdir -p "$in" "$scratch/shaders-glslc"
cp -r "$repo/examples/assets/shaders" "$in/"
cp "$repo/examples/kiln.yml" "$scratch/shaders-kiln.yml"
s="$in/shaders"
g="$scratch/shaders-glslc"
glslc_all="glslc --target-env=vulkan1.3 -O $s/lit.shader/vertex.vert -o $g/1.spv && \
glslc --target-env=vulkan1.3 -O $s/lit.shader/fragment.frag -o $g/2.spv && \
glslc --target-env=vulkan1.3 -O $s/post/blur.comp -o $g/3.spv && \
glslc --target-env=vulkan1.3 -O -x hlsl -fshader-stage=frag $s/post/tonemap.ps.hlsl -o $g/4.spv && \
glslc --target-env=vulkan1.3 -O $s/skinned.vert -o $g/5.spv && \
glslc --target-env=vulkan1.3 -O -DSKINNED=1 $s/skinned.vert -o $g/6.spv"
kiln_build="$kiln build -q -j1 --config $scratch/shaders-kiln.yml -i $in -o $out"
echo "kiln $(basename "$kiln"), glslc $(glslc --version | head -1)"
echo "7 compiles: 6 glslc runs (glslc compiles a file per run) vs one kiln build"
hyperfine -N --warmup 2 --runs 10 --export-markdown "$scratch/shaders.md" \
    -n "kiln clean (-j1, --no-cache)" "$kiln_build --no-cache" \
    -n "glslc, once per file" "bash -c '$glslc_all'" \
    -n "kiln warm (no-op)" "$kiln_build"
cat "$scratch/shaders.md"
