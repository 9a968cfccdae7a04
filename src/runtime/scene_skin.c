/* scene_skin.c — a skin's joints and its skinning matrices, read from a
 * scene instance's world matrices. */
#include <inttypes.h>

#include "kiln/kiln.h"
#include "runtime/internal.h"
#include "runtime/scene_affine.h"

const kiln_scene_joint *kiln_scene_skin_joints(const kiln_scene_view *view, uint32_t skin,
                                               uint32_t *count) {
    if (count != NULL)
        *count = 0;
    if (view == NULL || skin >= view->skin_count)
        return NULL;
    if (count != NULL)
        *count = view->skins[skin].joint_count;
    return view->joints + view->skins[skin].joint_offset;
}

kiln_result kiln_scene_skin_matrices(const kiln_scene_view *view,
                                     const kiln_scene_instance *instance, uint32_t skin, float *out,
                                     uint32_t capacity, kiln_error *err) {
    if (view == NULL || instance == NULL || out == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_scene_skin_matrices needs a view, an instance and memory");
    if (instance->node_count != view->node_count || instance->hierarchy != view->hierarchy)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_scene_skin_matrices: the instance is not of this view");
    if (skin >= view->skin_count)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_scene_skin_matrices: skin %" PRIu32 " of %" PRIu32, skin,
                            view->skin_count);
    const kiln_scene_skin *k = &view->skins[skin];
    if (capacity < k->joint_count)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_scene_skin_matrices: room for %" PRIu32 " matrices, skin %" PRIu32
                            " has %" PRIu32 " joints",
                            capacity, skin, k->joint_count);
    const kiln_scene_joint *joints = view->joints + k->joint_offset;
    for (uint32_t j = 0; j < k->joint_count; j++)
        multiply_affine(instance->world + (size_t)joints[j].node * 16, joints[j].inverse_bind,
                        out + (size_t)j * 16);
    return runtime_succeed(err);
}
