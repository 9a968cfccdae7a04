#version 450
// kiln-view's fragment stage: glTF metallic-roughness inputs with normal,
// occlusion and emissive maps, shaded with a directional light (Lambert
// diffuse, Blinn-Phong highlight from the roughness) and an ambient term
// the occlusion map darkens; unlit materials show their base colour as it
// is. Cooked with MESHLETS=1, each meshlet is tinted a colour of its own.

layout(location = 0) in vec3 in_world;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_uv;
layout(location = 3) in vec4 in_color;
layout(location = 4) in vec4 in_tangent;
#ifdef MESHLETS
layout(location = 5) flat in uint in_meshlet;
#endif

layout(set = 0, binding = 0) uniform Frame {
    mat4 view_proj;
    vec4 camera_position;
    vec4 light_direction;
    vec4 ambient;
} frame;

// Per texture slot (0 base colour, 1 metallic-roughness, 2 normal,
// 3 occlusion, 4 emissive), KHR_texture_transform's
// uv' = offset + R(rotation) (scale * uv) on the slot's UV set.
layout(set = 1, binding = 0) uniform Material {
    vec4 base_color;
    vec4 emissive;        // linear RGB factor, strength applied
    vec4 transforms[5];   // offset xy, scale zw
    vec4 rotation_uv[5];  // rotation, UV set
    vec4 params;          // metallic, roughness, alpha cutoff, alpha mode (0 opaque 1 mask 2 blend)
    vec4 flags;           // unlit, has a normal map, normal scale, occlusion strength
} material;

layout(set = 1, binding = 1) uniform sampler2D base_color_texture;
layout(set = 1, binding = 2) uniform sampler2D metallic_roughness_texture;
layout(set = 1, binding = 3) uniform sampler2D normal_texture;
layout(set = 1, binding = 4) uniform sampler2D occlusion_texture;
layout(set = 1, binding = 5) uniform sampler2D emissive_texture;

layout(location = 0) out vec4 out_color;

vec2 slot_uv(int slot) {
    vec4 offset_scale = material.transforms[slot];
    float rotation = material.rotation_uv[slot].x;
    vec2 uv = (material.rotation_uv[slot].y > 0.5 ? in_uv.zw : in_uv.xy) * offset_scale.zw;
    float c = cos(rotation), s = sin(rotation);
    return offset_scale.xy + vec2(c * uv.x + s * uv.y, -s * uv.x + c * uv.y);
}

// The shading normal: the tangent-space normal map's xy (z rebuilt, so a
// two-channel BC5 map reads as a full one) scaled by the normal scale, in
// the frame of the interpolated normal and tangent.
vec3 shading_normal(vec3 n) {
    if (material.flags.y < 0.5 || dot(in_tangent.xyz, in_tangent.xyz) < 1e-12)
        return n;
    vec3 t = normalize(in_tangent.xyz - n * dot(n, in_tangent.xyz));
    vec3 b = cross(n, t) * (in_tangent.w < 0.0 ? -1.0 : 1.0);
    if (!gl_FrontFacing) {
        t = -t;
        b = -b;
    }
    vec2 xy = texture(normal_texture, slot_uv(2)).xy * 2.0 - 1.0;
    float z = sqrt(max(1.0 - dot(xy, xy), 0.0));
    xy *= material.flags.z;
    return normalize(t * xy.x + b * xy.y + n * z);
}

vec3 meshlet_color(uint id) {
    // Golden-ratio steps around the hue circle: neighbours differ.
    float hue = fract(float(id) * 0.61803399);
    return clamp(abs(fract(hue + vec3(0.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - 3.0) - 1.0, 0.0, 1.0);
}

void main() {
    vec4 base = material.base_color * in_color * texture(base_color_texture, slot_uv(0));
    float alpha_mode = material.params.w;
    if (alpha_mode > 0.5 && alpha_mode < 1.5) {
        if (base.a < material.params.z)
            discard;
        base.a = 1.0;
    } else if (alpha_mode < 0.5) {
        base.a = 1.0;
    }
    vec3 emissive = material.emissive.rgb * texture(emissive_texture, slot_uv(4)).rgb;
    if (material.flags.x > 0.5) {
        out_color = base;
    } else {
        vec4 mr = texture(metallic_roughness_texture, slot_uv(1));
        float metallic = clamp(material.params.x * mr.b, 0.0, 1.0);
        float roughness = clamp(material.params.y * mr.g, 0.04, 1.0);
        float occlusion = 1.0 + material.flags.w * (texture(occlusion_texture, slot_uv(3)).r - 1.0);

        vec3 n = normalize(in_normal);
        if (!gl_FrontFacing)
            n = -n;
        n = shading_normal(n);
        vec3 l = normalize(frame.light_direction.xyz);
        vec3 v = normalize(frame.camera_position.xyz - in_world);
        vec3 h = normalize(l + v);
        float n_dot_l = max(dot(n, l), 0.0);
        float shininess = 2.0 / (roughness * roughness * roughness * roughness) - 2.0;
        vec3 f0 = mix(vec3(0.04), base.rgb, metallic);
        vec3 diffuse = base.rgb * (1.0 - metallic);
        vec3 specular = f0 * pow(max(dot(n, h), 0.0), max(shininess, 1.0)) * (shininess + 8.0) / 8.0;
        vec3 lit = frame.ambient.rgb * occlusion * (diffuse + f0 * 0.5) +
                   (diffuse + specular) * n_dot_l + emissive;
        out_color = vec4(lit, base.a);
    }
#ifdef MESHLETS
    out_color.rgb = mix(out_color.rgb, meshlet_color(in_meshlet), 0.6);
#endif
}
