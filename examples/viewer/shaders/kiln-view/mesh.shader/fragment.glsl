#version 450
// kiln-view's fragment stage: glTF metallic-roughness inputs, shaded with a
// headlight (Lambert diffuse, Blinn-Phong highlight from the roughness) and
// an ambient term; unlit materials show their base colour as it is.

layout(location = 0) in vec3 in_world;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_uv;
layout(location = 3) in vec4 in_color;

layout(set = 0, binding = 0) uniform Frame {
    mat4 view_proj;
    vec4 camera_position;
    vec4 light_direction;
    vec4 ambient;
} frame;

// Texture transforms are KHR_texture_transform's: uv' = offset + R(rotation) (scale * uv).
layout(set = 1, binding = 0) uniform Material {
    vec4 base_color;
    vec4 base_transform;   // offset xy, scale zw
    vec4 mr_transform;
    vec4 rotations;        // base rotation, mr rotation, base uv set, mr uv set
    vec4 params;           // metallic, roughness, alpha cutoff, alpha mode (0 opaque 1 mask 2 blend)
    vec4 flags;            // unlit
} material;

layout(set = 1, binding = 1) uniform sampler2D base_color_texture;
layout(set = 1, binding = 2) uniform sampler2D metallic_roughness_texture;

layout(location = 0) out vec4 out_color;

vec2 transform_uv(vec4 offset_scale, float rotation, float set) {
    vec2 uv = (set > 0.5 ? in_uv.zw : in_uv.xy) * offset_scale.zw;
    float c = cos(rotation), s = sin(rotation);
    return offset_scale.xy + vec2(c * uv.x + s * uv.y, -s * uv.x + c * uv.y);
}

void main() {
    vec2 base_uv = transform_uv(material.base_transform, material.rotations.x, material.rotations.z);
    vec2 mr_uv = transform_uv(material.mr_transform, material.rotations.y, material.rotations.w);
    vec4 base = material.base_color * in_color * texture(base_color_texture, base_uv);
    float alpha_mode = material.params.w;
    if (alpha_mode > 0.5 && alpha_mode < 1.5) {
        if (base.a < material.params.z)
            discard;
        base.a = 1.0;
    } else if (alpha_mode < 0.5) {
        base.a = 1.0;
    }
    if (material.flags.x > 0.5) {
        out_color = base;
        return;
    }
    vec4 mr = texture(metallic_roughness_texture, mr_uv);
    float metallic = clamp(material.params.x * mr.b, 0.0, 1.0);
    float roughness = clamp(material.params.y * mr.g, 0.04, 1.0);

    vec3 n = normalize(in_normal);
    if (!gl_FrontFacing)
        n = -n;
    vec3 l = normalize(frame.light_direction.xyz);
    vec3 v = normalize(frame.camera_position.xyz - in_world);
    vec3 h = normalize(l + v);
    float n_dot_l = max(dot(n, l), 0.0);
    float shininess = 2.0 / (roughness * roughness * roughness * roughness) - 2.0;
    vec3 f0 = mix(vec3(0.04), base.rgb, metallic);
    vec3 diffuse = base.rgb * (1.0 - metallic);
    vec3 specular = f0 * pow(max(dot(n, h), 0.0), max(shininess, 1.0)) * (shininess + 8.0) / 8.0;
    vec3 lit = frame.ambient.rgb * (diffuse + f0 * 0.5) + (diffuse + specular) * n_dot_l;
    out_color = vec4(lit, base.a);
}
