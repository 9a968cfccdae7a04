#version 450
// kiln-view's vertex stage: one .kmesh submesh placed by its node's world
// matrix, or, cooked with SKINNED=1, by its skin's joint matrices (world
// space, libkiln's kiln_scene_skin_matrices) blended by the vertex weights.
// Inputs sit where kiln binds .kmesh attributes (semantic - 1); the viewer
// feeds defaults for attributes a mesh lacks.

layout(location = 0) in vec3 in_position; // f32x3, or unorm16x4 dequantised below
layout(location = 1) in vec2 in_normal;   // octahedral snorm16x2
layout(location = 3) in vec2 in_uv0;
layout(location = 4) in vec2 in_uv1;
layout(location = 5) in vec4 in_color;
#ifdef SKINNED
layout(location = 6) in uvec4 in_joints;
layout(location = 7) in vec4 in_weights;

layout(set = 2, binding = 0) readonly buffer Joints {
    mat4 matrices[];
} joints;
#endif

layout(set = 0, binding = 0) uniform Frame {
    mat4 view_proj;
    vec4 camera_position;
    vec4 light_direction; // towards the light, world space
    vec4 ambient;
} frame;

layout(push_constant) uniform Draw {
    mat4 model;
    vec4 position_offset; // quantised positions: p = offset + scale * q
    vec4 position_scale;
} draw;

layout(location = 0) out vec3 out_world;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec4 out_uv;
layout(location = 3) out vec4 out_color;

vec3 oct_decode(vec2 e) {
    vec3 n = vec3(e, 1.0 - abs(e.x) - abs(e.y));
    if (n.z < 0.0)
        n.xy = (1.0 - abs(n.yx)) * vec2(e.x >= 0.0 ? 1.0 : -1.0, e.y >= 0.0 ? 1.0 : -1.0);
    return normalize(n);
}

void main() {
    vec3 local = draw.position_offset.xyz + draw.position_scale.xyz * in_position;
    mat4 model = draw.model;
#ifdef SKINNED
    model = model * (in_weights.x * joints.matrices[in_joints.x] +
                     in_weights.y * joints.matrices[in_joints.y] +
                     in_weights.z * joints.matrices[in_joints.z] +
                     in_weights.w * joints.matrices[in_joints.w]);
#endif
    vec4 world = model * vec4(local, 1.0);
    out_world = world.xyz;
    out_normal = transpose(inverse(mat3(model))) * oct_decode(in_normal);
    out_uv = vec4(in_uv0, in_uv1);
    out_color = in_color;
    gl_Position = frame.view_proj * world;
}
