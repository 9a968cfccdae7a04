#version 450
#extension GL_GOOGLE_include_directive : require
#include "../common/lighting.glsl"

layout(set = 1, binding = 0) uniform sampler2D base_color;

layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec2 in_uv;
layout(location = 0) out vec4 out_color;

void main() {
    vec4 albedo = texture(base_color, in_uv);
    out_color = vec4(albedo.rgb * (0.1 + lambert(in_normal)), albedo.a);
}
