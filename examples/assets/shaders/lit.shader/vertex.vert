#version 450
#extension GL_GOOGLE_include_directive : require
#include "../common/lighting.glsl"

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;

layout(push_constant) uniform Object {
    mat4 model;
} object;

layout(location = 0) out vec3 out_normal;
layout(location = 1) out vec2 out_uv;

void main() {
    out_normal = mat3(object.model) * in_normal;
    out_uv = in_uv;
    gl_Position = camera.view_projection * object.model * vec4(in_position, 1.0);
}
