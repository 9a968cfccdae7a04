#version 450
// kiln-view's texture stage: one cooked texture drawn as it is sampled, two
// triangles covering `rect` (clip space; uv 0,0 at its top left). Cooked with
// CUBE=1 they cover the whole image and pass on each corner's view ray (the
// world direction through it, from the camera's inverse view-projection: a
// skybox seen from its centre); the rays interpolate exactly, since the
// direction is linear in the image's x and y.

layout(push_constant) uniform Image {
    mat4 view_proj; // the camera's (CUBE=1)
    vec4 rect;      // x0, y0, x1, y1 in clip space
    vec4 slice;     // x: the 3D texture's slice coordinate (VOLUME=1)
} image;

layout(location = 0) out vec3 out_coordinate; // uv (and slice), or the view ray

void main() {
    const vec2 corners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(1, 1), vec2(0, 0), vec2(1, 1),
                                   vec2(0, 1));
    vec2 corner = corners[gl_VertexIndex];
    vec2 clip = mix(image.rect.xy, image.rect.zw, corner);
    gl_Position = vec4(clip, 0.0, 1.0);
#ifdef CUBE
    mat4 to_world = inverse(image.view_proj);
    vec4 near = to_world * vec4(clip, 0.0, 1.0);
    vec4 far = to_world * vec4(clip, 1.0, 1.0);
    out_coordinate = far.xyz / far.w - near.xyz / near.w;
#else
    out_coordinate = vec3(corner, image.slice.x);
#endif
}
