#!/usr/bin/env bash
# test_shaders.sh — shaders end to end through the kiln executable: includes
# relative to the includer and through shader.include_dirs, a header change
# recooking exactly its includers, variants (distinct ones written, equal
# SPIR-V shared), a *.shader folder program, an HLSL pixel shader, compiler
# errors naming the file and line (a header's with the include chain),
# includes that leave the input root or are missing, stage interfaces
# checked, `kiln check` and `kiln info --json FILE.kshader`; program folders
# of vertex.glsl stages, of precompiled .spv stages (broken ones named) and
# of both; #include without the #extension line, as glslc takes it.
#
# Environment (set by ctest): KILN, KILN_TMP. Helpers: harness.sh.
set -euo pipefail

source "$(dirname "$0")/harness.sh" shaders
run() { run_in "$SCRATCH" "$@"; }

IN="$SCRATCH/in"
OUT="$SCRATCH/out"
mkdir -p "$IN/inc" "$IN/lib" "$IN/prog.shader"
cat >"$IN/inc/common.glsl" <<'GLSL'
layout(set = 0, binding = 0) uniform Camera { mat4 view_projection; } camera;
GLSL
cat >"$IN/lib/shared.glsl" <<'GLSL'
vec4 tint() { return vec4(0.5); }
GLSL
cat >"$IN/a.vert" <<'GLSL'
#version 450
#extension GL_GOOGLE_include_directive : require
#include "inc/common.glsl"
layout(location = 0) in vec3 position;
void main() { gl_Position = camera.view_projection * vec4(position, 1.0); }
GLSL
cat >"$IN/b.frag" <<'GLSL'
#version 450
layout(location = 0) out vec4 color;
void main() { color = vec4(1.0); }
GLSL
cat >"$IN/c.frag" <<'GLSL'
#version 450
#extension GL_GOOGLE_include_directive : require
#include <shared.glsl>
layout(location = 0) out vec4 color;
void main() { color = tint(); }
GLSL
cat >"$IN/v.frag" <<'GLSL'
#version 450
layout(location = 0) out vec4 color;
void main() {
#ifdef RED
    color = vec4(1.0, 0.0, 0.0, 1.0);
#else
    color = vec4(1.0);
#endif
}
GLSL
cat >"$IN/prog.shader/vertex.vert" <<'GLSL'
#version 450
layout(location = 0) in vec3 position;
layout(location = 0) out vec2 uv;
layout(location = 1) out vec3 unused;
void main() { uv = position.xy; unused = position; gl_Position = vec4(position, 1.0); }
GLSL
cat >"$IN/prog.shader/fragment.frag" <<'GLSL'
#version 450
layout(location = 0) in vec2 uv;
layout(set = 1, binding = 2) uniform sampler2D image;
layout(push_constant) uniform Tint { layout(offset = 16) vec4 factor; } tint;
layout(location = 0) out vec4 color;
void main() { color = texture(image, uv) * tint.factor; }
GLSL
cat >"$IN/tone.ps.hlsl" <<'HLSL'
Texture2D<float4> image : register(t0);
SamplerState linear_sampler : register(s1);
float4 main(float2 uv : TEXCOORD0) : SV_Target0 { return image.Sample(linear_sampler, uv); }
HLSL
cat >"$SCRATCH/kiln.yml" <<'YML'
default:
  shader.include_dirs: [lib]
rules:
  - match: "v.frag"
    shader.variants: [[], [RED=1], [UNUSED=1]]
YML

run build -v -i "$IN" -o "$OUT"
check "the shaders cook" all_true "status_is 0" \
    "[ -f '$OUT/a.vert.kshader' ] && [ -f '$OUT/b.frag.kshader' ] && [ -f '$OUT/c.frag.kshader' ]" \
    "[ -f '$OUT/prog.kshader' ] && [ -f '$OUT/tone.ps.kshader' ]"
check "headers are not cooked or skipped on their own" all_true "stdout_has ' 0 skipped'" \
    "[ ! -e '$OUT/inc/common.glsl.kshader' ]"
check "a distinct variant gets its own file" \
    all_true "[ -f '$OUT/v.frag.kshader' ] && [ -f '$OUT/v.frag.red_1.kshader' ]"
check "a variant with equal SPIR-V shares the first file" \
    all_true "[ ! -e '$OUT/v.frag.unused_1.kshader' ]"
check "an output the next stage does not read is a warning" \
    stderr_has "prog.shader/vertex.vert: warning: vertex output 'unused' \(location 1\) is not read by the fragment stage"

run info --json -o "$OUT"
check "every variant has its ref (3 for v.frag, 5 other programs)" stdout_has '"shader":8'

run info --json "$OUT/prog.kshader"
check "kiln info --json FILE.kshader: stages, entry, SPIR-V bytes, inputs, bindings" all_true \
    "stdout_has '\"stage\":\"vertex\",\"entry\":\"main\",\"spirv_bytes\":[0-9]+'" \
    "stdout_has '\"inputs\":\[\{\"location\":0,\"name\":\"position\",\"format\":\"float3\"'" \
    "stdout_has '\{\"set\":1,\"binding\":2,\"type\":\"sampled_image\",\"name\":\"image\",\"count\":1'"
check "push constants: the block's type name, its variable, its range" \
    stdout_has '"push_constants":\[\{"name":"Tint","instance":"tint","offset":16,"size":16\}\]'
run info --json "$OUT/tone.ps.kshader"
check "HLSL: stage from the name, separate image and sampler" all_true \
    "stdout_has '\"stage\":\"fragment\"'" "stdout_has '\"type\":\"separate_image\"'" \
    "stdout_has '\"type\":\"separate_sampler\"'"

run check -o "$OUT"
check "kiln check validates every module" all_true "status_is 0" "stdout_has ' 0 problems'"

# A header change recooks exactly the shaders that include it.
echo "// changed" >>"$IN/inc/common.glsl"
run build -v -i "$IN" -o "$OUT"
check "a header change recooks its includer only" all_true "status_is 0" \
    "stdout_has '^cooked a.vert'" "stdout_has '^up to date b.frag'" \
    "stdout_has '^up to date c.frag'" "stdout_has '^up to date prog.shader'" \
    "stdout_has 'cooked 1 asset'"
echo "// changed" >>"$IN/lib/shared.glsl"
run build -v -i "$IN" -o "$OUT"
check "an include_dirs header change recooks its includer only" all_true \
    "stdout_has '^cooked c.frag'" "stdout_has 'cooked 1 asset'"

# ---------------------------------------------------------------------------
# HLSL: the stage from the name (vs ps cs gs hs ds), entry point main unless a
# rule's shader.entry says otherwise; a missing entry point is an error.
# ---------------------------------------------------------------------------
HL="$SCRATCH/hlsl"
mkdir -p "$HL/in"
cat >"$HL/in/v.vs.hlsl" <<'HLSL'
float4 main(float3 p : POSITION) : SV_Position { return float4(p, 1.0); }
HLSL
cat >"$HL/in/c.cs.hlsl" <<'HLSL'
RWTexture2D<float4> image : register(u0);
[numthreads(8, 4, 1)] void main(uint3 id : SV_DispatchThreadID) { image[id.xy] = 1.0; }
HLSL
cat >"$HL/in/g.gs.hlsl" <<'HLSL'
struct V { float4 pos : SV_Position; };
[maxvertexcount(3)]
void main(triangle V input[3], inout TriangleStream<V> output) {
    for (int i = 0; i < 3; i++) output.Append(input[i]);
}
HLSL
cat >"$HL/in/h.hs.hlsl" <<'HLSL'
struct CP { float4 pos : POSITION; };
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; };
PC patch_constants(InputPatch<CP, 3> ip) {
    PC o; o.edges[0] = 1; o.edges[1] = 1; o.edges[2] = 1; o.inside = 1; return o;
}
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(3)] [patchconstantfunc("patch_constants")]
CP main(InputPatch<CP, 3> ip, uint i : SV_OutputControlPointID) { return ip[i]; }
HLSL
cat >"$HL/in/d.ds.hlsl" <<'HLSL'
struct CP { float4 pos : POSITION; };
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; };
[domain("tri")]
float4 main(PC pc, float3 uvw : SV_DomainLocation, const OutputPatch<CP, 3> patch) : SV_Position {
    return patch[0].pos * uvw.x + patch[1].pos * uvw.y + patch[2].pos * uvw.z;
}
HLSL
printf 'float4 PSMain() : SV_Target0 { return float4(1.0, 0.5, 0.25, 1.0); }\n' >"$HL/in/named.ps.hlsl"
cp "$HL/in/named.ps.hlsl" "$HL/in/noentry.ps.hlsl"
printf 'float4 main() : SV_Target0 { return 1.0; }\n' >"$HL/in/lit.PS.hlsl"
cat >"$HL/kiln.yml" <<'YML'
rules:
  - match: "named.ps.hlsl"
    shader.entry: PSMain
YML
run_in "$HL" build -i "$HL/in" -o "$HL/out"
check "a missing HLSL entry point is an error naming it" all_true "status_is 1" \
    "stderr_has \"^$HL/in/noentry.ps.hlsl: error: entry point 'main' not found\"" \
    "[ ! -e '$HL/out/noentry.ps.kshader' ]"
for pair in v.vs:vertex c.cs:compute g.gs:geometry h.hs:tess_control d.ds:tess_evaluation \
    named.ps:fragment lit.PS:fragment; do
    file=${pair%%:*} stage=${pair#*:}
    entry=main
    [ "$file" = named.ps ] && entry=PSMain
    run info --json "$HL/out/$file.kshader"
    check "HLSL $file.hlsl: the $stage stage, entry $entry" \
        stdout_has "\"stage\":\"$stage\",\"entry\":\"$entry\""
done
run info --json "$HL/out/c.cs.kshader"
check "HLSL compute: the workgroup size from numthreads" stdout_has '"workgroup_size":\[8,4,1\]'
run check -o "$HL/out"
check "kiln check validates the HLSL modules" all_true "status_is 0" "stdout_has ' 0 problems'"

# ---------------------------------------------------------------------------
# shader.vertex_layout: kmesh checks vertex inputs against the .kmesh layout.
# ---------------------------------------------------------------------------
VL="$SCRATCH/layout"
mkdir -p "$VL/in"
cat >"$VL/in/good.vert" <<'GLSL'
#version 450
layout(location = 0) in vec3 position;
layout(location = 1) in vec2 normal_oct;
layout(location = 3) in vec2 uv;
layout(location = 6) in uvec4 joints;
layout(location = 7) in vec4 weights;
void main() { gl_Position = vec4(position + vec3(normal_oct, uv.x) * weights.x, float(joints.x)); }
GLSL
cat >"$VL/in/bad.vert" <<'GLSL'
#version 450
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 8) in vec4 joints1;
layout(location = 12) in vec2 extra;
void main() { gl_Position = vec4(position + normal + joints1.xyz + vec3(extra, 0.0), 1.0); }
GLSL
cp "$VL/in/bad.vert" "$VL/in/unchecked.vert"
cat >"$VL/kiln.yml" <<'YML'
default:
  shader.vertex_layout: kmesh
rules:
  - match: "unchecked.vert"
    shader.vertex_layout: none
YML
run_in "$VL" build -i "$VL/in" -o "$VL/out"
check "inputs reading .kmesh attributes as cooked pass; the rule's none skips the check" \
    all_true "status_is 1" "[ -f '$VL/out/good.vert.kshader' ]" \
    "[ -f '$VL/out/unchecked.vert.kshader' ]" "[ ! -e '$VL/out/bad.vert.kshader' ]"
check "an input with more components than its attribute names both" \
    stderr_has "^$VL/in/bad.vert: error: vertex input 'normal' \(location 1\) is float3 but the .kmesh attribute there is normal, oct_snorm16x2: read as float2"
check "an input of another numeric type names both" \
    stderr_has "^$VL/in/bad.vert: error: vertex input 'joints1' \(location 8\) is float4 but the .kmesh attribute there is joints1, u16x4: read as uint4"
check "an input at a location without an attribute is an error" \
    stderr_has "^$VL/in/bad.vert: error: vertex input 'extra' \(location 12, float2\) has no .kmesh attribute"

# ---------------------------------------------------------------------------
# Errors: file and line, one broken shader never stops the others.
# ---------------------------------------------------------------------------
BAD="$SCRATCH/bad"
mkdir -p "$BAD/sub" "$BAD/mismatch.shader"
cp "$IN/b.frag" "$BAD/good.frag"
printf '#version 450\nlayout(location = 0) out vec4 color;\nvoid main() {\n    color = undeclared;\n}\n' >"$BAD/line.frag"
printf '// a header\nfloat broken() { return nope; }\n' >"$BAD/sub/broken.glsl"
printf '#version 450\n#extension GL_GOOGLE_include_directive : require\n#include "sub/broken.glsl"\nvoid main() {}\n' >"$BAD/inc.comp"
printf '#version 450\n#extension GL_GOOGLE_include_directive : require\n#include "../../outside.glsl"\nvoid main() {}\n' >"$BAD/escape.comp"
printf '#version 450\n#extension GL_GOOGLE_include_directive : require\n#include "missing.glsl"\nvoid main() {}\n' >"$BAD/missing.comp"
printf 'float4 main() : SV_Target0 { return 1; }\n' >"$BAD/nostage.hlsl"
printf '#version 450\nlayout(location = 0) out vec3 value;\nvoid main() { value = vec3(1.0); gl_Position = vec4(0.0); }\n' >"$BAD/mismatch.shader/vertex.vert"
printf '#version 450\nlayout(location = 0) in vec4 value;\nlayout(location = 0) out vec4 color;\nvoid main() { color = value; }\n' >"$BAD/mismatch.shader/fragment.frag"
# Includes bounded in number and bytes, not only in depth: headers without
# include guards each including the next twice, 20 deep, are 2^20 includes
# from 7 KB (19 s and 400 MB before the bound). Then a 1.1 MB header with
# a guard included 16 times: glslang reads it again for each #include.
mkdir -p "$BAD/fan"
for i in $(seq 0 19); do
    {
        printf '// %0300d\n' 0
        if [ "$i" -lt 19 ]; then
            printf '#include "h%d.glsl"\n#include "h%d.glsl"\n' $((i + 1)) $((i + 1))
        fi
    } >"$BAD/fan/h$i.glsl"
done
printf '#version 450\n#extension GL_GOOGLE_include_directive : require\n#include "fan/h0.glsl"\nvoid main() {}\n' >"$BAD/fanout.comp"
{
    printf '#ifndef BIG\n#define BIG\n'
    for _ in $(seq 1 11000); do printf '// %096d\n' 0; done
    printf '#endif\n'
} >"$BAD/sub/big.glsl"
{
    printf '#version 450\n#extension GL_GOOGLE_include_directive : require\n'
    for _ in $(seq 1 16); do printf '#include "sub/big.glsl"\n'; done
    printf 'void main() {}\n'
} >"$BAD/big.comp"
run build -i "$BAD" -o "$SCRATCH/bad-out"
check "a broken shader fails the build but not the others" all_true "status_is 1" \
    "[ -f '$SCRATCH/bad-out/good.frag.kshader' ]"
check "a compiler error names the file and line" \
    stderr_has "^$BAD/line.frag:4: error: 'undeclared' : undeclared identifier"
check "an error in a header names the header and its includer" all_true \
    "stderr_has '^$BAD/sub/broken.glsl:2: error: .nope. : undeclared identifier'" \
    "stderr_has '^$BAD/sub/broken.glsl: note: included from inc.comp'"
check "an include that leaves the input folder is refused" \
    stderr_has "^$BAD/escape.comp: error: cannot include '../../outside.glsl': path '../../outside.glsl' leaves the input folder"
check "a missing include is a clear error" \
    stderr_has "^$BAD/missing.comp: error: cannot include 'missing.glsl': not found"
check "includes past 16384 are refused" \
    stderr_has "^$BAD/fanout.comp: error: more than 16384 includes \(a header included again and again\?\) at 'h[0-9]+.glsl' included from fan/h[0-9]+.glsl$"
check "then every include left fails quietly" stderr_lacks "^$BAD/fan/h[0-9]+.glsl:[0-9]+: error"
check "includes past 16 MiB are refused" \
    stderr_has "^$BAD/big.comp: error: includes expand to more than 16777216 bytes \(64 times the shader's size, at least 16777216\) at 'sub/big.glsl' included from big.comp$"
check "an HLSL file without a stage in its name is a clear error" \
    stderr_has "^$BAD/nostage.hlsl: error: unknown shader stage"
check "stages disagreeing on a type is an error" \
    stderr_has "^$BAD/mismatch.shader/fragment.frag: error: fragment input 'value' \(location 0\) is float4 but the vertex stage writes 'value' as float3"

# ---------------------------------------------------------------------------
# Program folders: stages named after their stage whatever the extension
# (vertex.glsl), precompiled SPIR-V stages (vertex.spv, checked and
# validated, reflected like compiled ones), a mix of both; GLSL #include
# without the #extension line, as glslc takes it.
# ---------------------------------------------------------------------------
SPV="$SCRATCH/spv"
mkdir -p "$SPV/in/glsl.shader" "$SPV/in/spv.shader" "$SPV/in/mixed.shader" "$SPV/in/sub" \
    "$SPV/in/badmagic.shader" "$SPV/in/cut.shader" "$SPV/in/invalid.shader"
# The .spv inputs come from glslc (or glslangValidator): scripts/packages/test.txt.
spv_compile() { # stage source output
    if command -v glslc >/dev/null; then
        glslc -fshader-stage="$1" "$2" -o "$3"
    else
        glslangValidator -V -S "$1" "$2" -o "$3" >/dev/null
    fi
}
cat >"$SPV/in/glsl.shader/vertex.glsl" <<'GLSL'
#version 450
layout(location = 0) in vec3 position;
layout(location = 0) out vec2 uv;
layout(set = 0, binding = 0) uniform Camera { mat4 view_projection; } camera;
void main() { uv = position.xy; gl_Position = camera.view_projection * vec4(position, 1.0); }
GLSL
cat >"$SPV/in/glsl.shader/fragment.glsl" <<'GLSL'
#version 450
layout(location = 0) in vec2 uv;
layout(set = 1, binding = 2) uniform sampler2D image;
layout(push_constant) uniform Tint { vec4 factor; } tint;
layout(location = 0) out vec4 color;
void main() { color = texture(image, uv) * tint.factor; }
GLSL
spv_compile vert "$SPV/in/glsl.shader/vertex.glsl" "$SPV/in/spv.shader/vertex.spv"
spv_compile frag "$SPV/in/glsl.shader/fragment.glsl" "$SPV/in/spv.shader/fragment.spv"
cp "$SPV/in/spv.shader/vertex.spv" "$SPV/in/mixed.shader/vertex.spv"
cp "$SPV/in/glsl.shader/fragment.glsl" "$SPV/in/mixed.shader/fragment.frag"
# Not SPIR-V: a wrong magic number; a module cut mid-word; whole words that
# fail the validator (the last 8 bytes of a module cut off).
cp "$SPV/in/glsl.shader/fragment.glsl" "$SPV/in/badmagic.shader/fragment.glsl"
printf 'not spirv, 32 bytes of text....\n' >"$SPV/in/badmagic.shader/vertex.spv"
cp "$SPV/in/glsl.shader/fragment.glsl" "$SPV/in/cut.shader/fragment.glsl"
head -c 1001 "$SPV/in/spv.shader/vertex.spv" >"$SPV/in/cut.shader/vertex.spv"
cp "$SPV/in/glsl.shader/fragment.glsl" "$SPV/in/invalid.shader/fragment.glsl"
size=$(wc -c <"$SPV/in/spv.shader/vertex.spv")
head -c $((size - 8)) "$SPV/in/spv.shader/vertex.spv" >"$SPV/in/invalid.shader/vertex.spv"
# A big-endian module (the spec allows either byte order): swapped on reading.
mkdir -p "$SPV/in/bigendian.shader"
cp "$SPV/in/glsl.shader/fragment.glsl" "$SPV/in/bigendian.shader/fragment.glsl"
python3 -c 'import sys, array; a = array.array("I", open(sys.argv[1], "rb").read()); a.byteswap(); open(sys.argv[2], "wb").write(a.tobytes())' \
    "$SPV/in/spv.shader/vertex.spv" "$SPV/in/bigendian.shader/vertex.spv"
printf '// a header\n\nfloat broken() { return nope; }\n' >"$SPV/in/sub/broken.glsl"
printf 'vec4 tint() { return vec4(0.5); }\n' >"$SPV/in/sub/tint.glsl"
printf '#version 450\n#include "sub/tint.glsl"\nlayout(location = 0) out vec4 color;\nvoid main() { color = tint(); }\n' >"$SPV/in/noext.frag"
printf '#version 450\n#include "sub/broken.glsl"\nvoid main() {}\n' >"$SPV/in/noext_error.comp"
printf '#version 450\n\nvoid main() {\n    int a = undeclared;\n}\n' >"$SPV/in/line.comp"
run_in "$SPV" build -i "$SPV/in" -o "$SPV/out"
check "folders of vertex.glsl, of .spv stages, of both cook" all_true "status_is 1" \
    "[ -f '$SPV/out/glsl.kshader' ] && [ -f '$SPV/out/spv.kshader' ] && [ -f '$SPV/out/mixed.kshader' ]" \
    "stderr_lacks 'holds no stage'" "stderr_lacks 'unexpected token'"
check "a .spv with a wrong magic number names the file" \
    stderr_has "^$SPV/in/badmagic.shader/vertex.spv: error: not a SPIR-V module: magic number 0x[0-9a-f]{8}, not 0x07230203"
check "a .spv cut mid-word names the file" \
    stderr_has "^$SPV/in/cut.shader/vertex.spv: error: not a SPIR-V module: 1001 bytes \(not a whole number of 32-bit words\)"
check "a .spv the validator refuses names the file and the target" \
    stderr_has "^$SPV/in/invalid.shader/vertex.spv: error: .*\(target vulkan1.3\)"
check "no output for a broken .spv" all_true "[ ! -e '$SPV/out/badmagic.kshader' ]" \
    "[ ! -e '$SPV/out/cut.kshader' ] && [ ! -e '$SPV/out/invalid.kshader' ]"
check "#include without the #extension line compiles, as with glslc" \
    all_true "[ -f '$SPV/out/noext.frag.kshader' ]" "stderr_lacks 'noext.frag'"
check "an error in such an include names the header, its line and its includer" all_true \
    "stderr_has '^$SPV/in/sub/broken.glsl:3: error: .nope. : undeclared identifier'" \
    "stderr_has '^$SPV/in/sub/broken.glsl: note: included from noext_error.comp'"
check "the implicit #extension does not move the source's own lines" \
    stderr_has "^$SPV/in/line.comp:4: error: 'undeclared' : undeclared identifier"

# Reflection equal to the compiled program's, SPIR-V sizes aside.
reflection() { sed -E 's/"spirv_bytes":[0-9]+,//g' "$SCRATCH/stdout"; }
run info --json "$SPV/out/glsl.kshader"
reflection >"$SPV/glsl.json"
run info --json "$SPV/out/spv.kshader"
reflection >"$SPV/spv.json"
run info --json "$SPV/out/mixed.kshader"
reflection >"$SPV/mixed.json"
check "a folder of .spv stages reflects as the GLSL it was compiled from" all_true \
    "grep -q '\"name\":\"Camera\"' '$SPV/glsl.json'" "cmp -s '$SPV/glsl.json' '$SPV/spv.json'"
check "so does a folder mixing a .spv and a source stage" cmp -s "$SPV/glsl.json" "$SPV/mixed.json"
run info --json "$SPV/out/bigendian.kshader"
reflection >"$SPV/bigendian.json"
check "and one whose .spv is big-endian" cmp -s "$SPV/glsl.json" "$SPV/bigendian.json"
run check -o "$SPV/out"
check "kiln check validates the precompiled stages" all_true "status_is 0" "stdout_has ' 0 problems'"

finish shaders
