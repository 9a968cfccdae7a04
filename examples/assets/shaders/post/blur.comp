#version 450
// A horizontal box blur: one invocation per pixel, 8x8 groups.
layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

layout(set = 0, binding = 0, rgba8) uniform readonly image2D source;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D target;

layout(push_constant) uniform Blur {
    int radius;
} blur;

void main() {
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(source);
    if (pixel.x >= size.x || pixel.y >= size.y)
        return;
    vec4 sum = vec4(0.0);
    for (int dx = -blur.radius; dx <= blur.radius; dx++)
        sum += imageLoad(source, ivec2(clamp(pixel.x + dx, 0, size.x - 1), pixel.y));
    imageStore(target, pixel, sum / float(2 * blur.radius + 1));
}
