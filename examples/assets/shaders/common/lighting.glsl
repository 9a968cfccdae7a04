// Shared lighting helpers: included by lit.shader/fragment.frag and skinned.vert's users.
#ifndef LIGHTING_GLSL
#define LIGHTING_GLSL

layout(set = 0, binding = 0) uniform CameraBlock {
    mat4 view_projection;
    vec4 camera_position;
    vec4 light_direction; // xyz: towards the light, w: intensity
} camera;

float lambert(vec3 normal) {
    return max(dot(normalize(normal), normalize(camera.light_direction.xyz)), 0.0) *
           camera.light_direction.w;
}

#endif
