#version 450
// kiln-view's vertex stage: one .kmesh submesh placed by its node's world
// matrix, or, cooked with SKINNED=1, by its skin's joint matrices (world
// space, libkiln's kiln_scene_skin_matrices) blended by the vertex weights.
// Morph targets are added first, from the node's weights and the mesh's
// delta blocks (MDLT as cooked) in the Morphs storage buffer. Inputs sit
// where kiln binds .kmesh attributes (semantic - 1); the viewer feeds
// defaults for attributes a mesh lacks. Cooked with MESHLETS=1 it passes the
// instance index on: kiln-view draws meshlet by meshlet with the meshlet's
// index as the first instance, and the fragment stage tints by it.

layout(location = 0) in vec3 in_position; // f32x3, or unorm16x4 dequantised below
layout(location = 1) in vec2 in_normal;   // octahedral snorm16x2
layout(location = 2) in vec2 in_tangent;  // octahedral snorm16x2, sign of y the handedness; 0 absent
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

// shape: target count, vertex count, delta blocks per target, KILN_MORPH_*
// bits of the blocks (position 1, normal 2, tangent 4, in that order);
// values: the target weights, then the blocks, target-major, xyz per vertex.
layout(set = 2, binding = 1) readonly buffer Morphs {
    uvec4 shape;
    float values[];
} morphs;

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
layout(location = 4) out vec4 out_tangent; // world space xyz, handedness w; 0 without tangents
#ifdef MESHLETS
layout(location = 5) flat out uint out_meshlet;
#endif

vec3 oct_decode(vec2 e) {
    vec3 n = vec3(e, 1.0 - abs(e.x) - abs(e.y));
    if (n.z < 0.0)
        n.xy = (1.0 - abs(n.yx)) * vec2(e.x >= 0.0 ? 1.0 : -1.0, e.y >= 0.0 ? 1.0 : -1.0);
    return normalize(n);
}

// The weighted sum of one delta block (0 position, 1 normal, 2 tangent) over
// the targets; zero when the mesh has no such block.
vec3 morph_delta(uint block_kind) {
    uint bit = 1u << block_kind;
    if ((morphs.shape.w & bit) == 0u)
        return vec3(0.0);
    uint block = bitCount(morphs.shape.w & (bit - 1u));
    uint targets = morphs.shape.x, count = morphs.shape.y, blocks = morphs.shape.z;
    vec3 sum = vec3(0.0);
    for (uint t = 0u; t < targets; t++) {
        float w = morphs.values[t];
        if (w == 0.0)
            continue;
        uint at = targets + ((t * blocks + block) * count + uint(gl_VertexIndex)) * 3u;
        sum += w * vec3(morphs.values[at], morphs.values[at + 1u], morphs.values[at + 2u]);
    }
    return sum;
}

void main() {
    vec3 local = draw.position_offset.xyz + draw.position_scale.xyz * in_position;
    vec3 normal = oct_decode(in_normal);
    bool has_tangent = in_tangent.y != 0.0;
    vec4 tangent = vec4(0.0);
    if (has_tangent)
        tangent = vec4(oct_decode(vec2(in_tangent.x, 2.0 * abs(in_tangent.y) - 1.0)),
                       in_tangent.y > 0.0 ? 1.0 : -1.0);
    if (morphs.shape.x > 0u) {
        local += morph_delta(0u);
        normal = normalize(normal + morph_delta(1u));
        if (has_tangent)
            tangent.xyz += morph_delta(2u);
    }
    mat4 model = draw.model;
#ifdef SKINNED
    model = model * (in_weights.x * joints.matrices[in_joints.x] +
                     in_weights.y * joints.matrices[in_joints.y] +
                     in_weights.z * joints.matrices[in_joints.z] +
                     in_weights.w * joints.matrices[in_joints.w]);
#endif
    vec4 world = model * vec4(local, 1.0);
    out_world = world.xyz;
    out_normal = transpose(inverse(mat3(model))) * normal;
    out_tangent = vec4(mat3(model) * tangent.xyz, tangent.w);
    out_uv = vec4(in_uv0, in_uv1);
    out_color = in_color;
#ifdef MESHLETS
    out_meshlet = uint(gl_InstanceIndex);
#endif
    gl_Position = frame.view_proj * world;
}
