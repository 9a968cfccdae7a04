#version 450
// kiln-view's texture stage: the texel as the sampler returns it (linear
// filtering, trilinear between mips), alpha kept. A 2D texture (an array's
// layer is a view of its own), or with CUBE=1 a cubemap sampled along the
// view ray, or with VOLUME=1 a slice of a 3D texture.

#if defined(CUBE)
layout(set = 0, binding = 0) uniform samplerCube image_texture;
#elif defined(VOLUME)
layout(set = 0, binding = 0) uniform sampler3D image_texture;
#else
layout(set = 0, binding = 0) uniform sampler2D image_texture;
#endif

layout(location = 0) in vec3 in_coordinate;
layout(location = 0) out vec4 out_color;

void main() {
#if defined(CUBE)
    out_color = texture(image_texture, normalize(in_coordinate));
#elif defined(VOLUME)
    out_color = texture(image_texture, in_coordinate);
#else
    out_color = texture(image_texture, in_coordinate.xy);
#endif
}
