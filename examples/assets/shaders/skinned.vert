#version 450
// Two variants (examples/kiln.yml): rigid, and SKINNED=1 with four joint weights.
layout(set = 0, binding = 0) uniform CameraBlock {
    mat4 view_projection;
} camera;

layout(location = 0) in vec3 in_position;
#ifdef SKINNED
layout(location = 1) in uvec4 in_joints;
layout(location = 2) in vec4 in_weights;
layout(set = 2, binding = 0) readonly buffer Joints {
    mat4 joints[];
};
#endif

void main() {
    vec4 position = vec4(in_position, 1.0);
#ifdef SKINNED
    mat4 skin = in_weights.x * joints[in_joints.x] + in_weights.y * joints[in_joints.y] +
                in_weights.z * joints[in_joints.z] + in_weights.w * joints[in_joints.w];
    position = skin * position;
#endif
    gl_Position = camera.view_projection * position;
}
