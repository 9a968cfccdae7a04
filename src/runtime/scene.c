/* scene.c — scene graphs (docs/formats/kscene.md): the view over a .kscene
 * file and the instance that keeps world matrices up to date.
 *
 * kiln_scene_view_get checks every rule of kscene.md (cited as R<n>) in one
 * pass over the nodes, so what the instance does afterwards (index a parent,
 * walk a child range, compose a transform) needs no check of its own.
 *
 * The instance recomputes lazily and level by level: kiln_scene_set_local
 * writes the transform and puts the node on its level's changed list;
 * kiln_scene_update walks the levels top-down. At each level it recomputes the
 * children of the nodes recomputed one level up (contiguous ranges, read in
 * order), then the changed nodes no range covered, each from its parent's
 * final matrix, and queues their children as ranges for the next level. The
 * work is proportional to the nodes changed and their subtrees, never to the
 * scene's size; every list fits in memory sized by the node count. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "common/checked.h"
#include "kiln/kiln.h"
#include "runtime/internal.h"

/* ---------------------------------------------------------------------------
 * The view
 * ------------------------------------------------------------------------- */

/* kscene.md R3: each known chunk at most once; absent ones read as empty. */
typedef struct scene_chunks {
    const kiln_chunk_entry *desc, *hierarchy, *levels, *transforms, *nodes, *meshes, *materials,
        *scenes, *roots, *strings, *links, *cameras, *lights, *instances, *instance_ranges, *skins,
        *joints;
} scene_chunks;

static kiln_result find_chunks(const kiln_file *file, scene_chunks *c, kiln_error *err) {
    memset(c, 0, sizeof *c);
    const runtime_known_chunk known[] = {
        {KILN_CHUNK_SCENE_DESC, &c->desc},
        {KILN_CHUNK_SCENE_HIERARCHY, &c->hierarchy},
        {KILN_CHUNK_SCENE_LEVELS, &c->levels},
        {KILN_CHUNK_SCENE_TRANSFORMS, &c->transforms},
        {KILN_CHUNK_SCENE_NODES, &c->nodes},
        {KILN_CHUNK_SCENE_MESHES, &c->meshes},
        {KILN_CHUNK_SCENE_MATERIALS, &c->materials},
        {KILN_CHUNK_SCENE_SCENES, &c->scenes},
        {KILN_CHUNK_SCENE_ROOTS, &c->roots},
        {KILN_CHUNK_SCENE_STRINGS, &c->strings},
        {KILN_CHUNK_SCENE_LINKS, &c->links},
        {KILN_CHUNK_SCENE_CAMERAS, &c->cameras},
        {KILN_CHUNK_SCENE_LIGHTS, &c->lights},
        {KILN_CHUNK_SCENE_INSTANCES, &c->instances},
        {KILN_CHUNK_SCENE_INSTANCE_RANGES, &c->instance_ranges},
        {KILN_CHUNK_SCENE_SKINS, &c->skins},
        {KILN_CHUNK_SCENE_JOINTS, &c->joints},
    };
    return runtime_find_chunks(file, known, sizeof known / sizeof known[0], err);
}

/* kscene.md R10: a string lies inside SSTR, holds no NUL and has one after it. */
static bool string_valid(const kiln_scene_view *v, uint32_t offset, uint32_t length) {
    return runtime_string_valid(v->strings, v->strings_size, offset, length);
}

static bool index_valid(int32_t index, uint32_t count) {
    return index == -1 || (index >= 0 && (uint32_t)index < count);
}

static kiln_result check_desc(const kiln_file *file, const kiln_scene_desc *d, kiln_error *err) {
    const char *name = file->name;
    if (file->kind_version == 1 && d->instance_count != 0) /* R5: a reserved word in version 1 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "descriptor reserved words are not 0 (version 1 has no instances)");
    if (d->flags != 0) /* R5 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name, "unknown scene flags 0x%" PRIx32,
                            d->flags);
    if (d->reserved[0] != 0 || d->reserved[1] != 0 || d->reserved[2] != 0) /* R5 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "descriptor reserved words are not 0");
    if (d->node_count > (uint32_t)INT32_MAX || d->mesh_count > (uint32_t)INT32_MAX ||
        d->material_count > (uint32_t)INT32_MAX || d->skin_count > (uint32_t)INT32_MAX ||
        d->camera_count > (uint32_t)INT32_MAX || d->light_count > (uint32_t)INT32_MAX ||
        d->instance_count > (uint32_t)INT32_MAX) /* R5 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "a count is above 2^31 - 1");
    if (d->level_count > d->node_count || (d->node_count > 0) != (d->level_count > 0)) /* R5 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "%" PRIu32 " levels for %" PRIu32 " nodes",
                            d->level_count, d->node_count);
    if (d->scene_count == 0
            ? d->default_scene != -1
            : (d->default_scene < 0 || (uint32_t)d->default_scene >= d->scene_count)) /* R5 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "default scene %" PRId32 " with %" PRIu32 " scenes", d->default_scene,
                            d->scene_count);
    return KILN_OK;
}

/* R7: level k is a non-empty range, the ranges tile the nodes in order. */
static kiln_result check_levels(const kiln_file *file, const kiln_scene_view *v, kiln_error *err) {
    if (v->level_count == 0)
        return v->levels[0] == 0 ? KILN_OK
                                 : runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                                "level table does not start at node 0");
    if (v->levels[0] != 0 || v->levels[v->level_count] != v->node_count)
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "level table does not span nodes 0 .. %" PRIu32, v->node_count);
    for (uint32_t k = 0; k < v->level_count; k++)
        if (v->levels[k] >= v->levels[k + 1])
            return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                "level %" PRIu32 " is empty or out of order", k);
    return KILN_OK;
}

/* R8: node i's hierarchy record. Depth order plus "a parent is one level up"
 * makes every parent come first, so the graph is a forest: no cycles. */
static kiln_result check_hierarchy(const kiln_file *file, const kiln_scene_view *v, uint32_t i,
                                   uint32_t *level, kiln_error *err) {
    const char *name = file->name;
    const kiln_scene_hierarchy *h = &v->hierarchy[i];
    while (*level < v->level_count && i >= v->levels[*level + 1])
        (*level)++;
    if (h->depth != *level)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "node %" PRIu32 " has depth %" PRIu32 " but lies in level %" PRIu32
                            " (nodes must be in depth order)",
                            i, h->depth, *level);
    if (h->reserved != 0)
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "node %" PRIu32 " reserved word is not 0",
                            i);
    if (h->depth == 0) {
        if (h->parent != -1 || h->next_sibling != -1)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "root node %" PRIu32 " has a parent or a sibling", i);
    } else {
        if (h->parent < 0 || (uint32_t)h->parent >= i ||
            v->hierarchy[h->parent].depth + 1 != h->depth)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "node %" PRIu32 " has parent %" PRId32 ", not a node one level up",
                                i, h->parent);
        const kiln_scene_hierarchy *p = &v->hierarchy[h->parent];
        /* The parent's range was checked when the parent was, so it is in bounds. */
        uint32_t first = (uint32_t)p->first_child, end = first + p->child_count;
        if (p->child_count == 0 || i < first || i >= end)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "node %" PRIu32 " is not among the children of its parent %" PRId32,
                                i, h->parent);
        int32_t sibling = i + 1 < end ? (int32_t)(i + 1) : -1;
        if (h->next_sibling != sibling)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "node %" PRIu32 " has next sibling %" PRId32 ", expected %" PRId32,
                                i, h->next_sibling, sibling);
    }
    if (h->child_count == 0) {
        if (h->first_child != -1)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "node %" PRIu32 " has a first child but no children", i);
        return KILN_OK;
    }
    if (h->first_child <= (int32_t)i ||
        (uint64_t)(uint32_t)h->first_child + h->child_count > v->node_count)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "node %" PRIu32 " has children %" PRId32 " +%" PRIu32
                            " outside the nodes after it",
                            i, h->first_child, h->child_count);
    for (uint32_t c = 0; c < h->child_count; c++)
        if (v->hierarchy[(uint32_t)h->first_child + c].parent != (int32_t)i)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "node %" PRIu32 " lists node %" PRIu32
                                " as a child, whose parent is another",
                                i, (uint32_t)h->first_child + c);
    return KILN_OK;
}

/* R9: finite, with a unit rotation (to single-precision rounding). */
static kiln_result check_transform(const kiln_file *file, const kiln_scene_transform *t, uint32_t i,
                                   kiln_error *err) {
    if (!runtime_all_finite(t->translation, 3) || !runtime_all_finite(t->rotation, 4) ||
        !runtime_all_finite(t->scale, 3))
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "node %" PRIu32 " has a non-finite transform", i);
    const float *q = t->rotation;
    float length2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(fabsf(length2 - 1.0f) <= 2e-3f))
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "node %" PRIu32 " rotation is not a unit quaternion (length %g)", i,
                            (double)sqrtf(length2));
    return KILN_OK;
}

/* R10: what the node carries. */
static kiln_result check_node(const kiln_file *file, const kiln_scene_view *v, uint32_t i,
                              kiln_error *err) {
    const char *name = file->name;
    const kiln_scene_node *n = &v->nodes[i];
    const kiln_scene_desc *d = v->desc;
    if (!index_valid(n->mesh, d->mesh_count) || !index_valid(n->materials, d->material_count) ||
        !index_valid(n->skin, d->skin_count) || !index_valid(n->camera, d->camera_count) ||
        !index_valid(n->light, d->light_count) || n->source < -1)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "node %" PRIu32 " has an index out of range (mesh %" PRId32
                            ", materials %" PRId32 ", skin %" PRId32 ", camera %" PRId32
                            ", light %" PRId32 ", source %" PRId32 ")",
                            i, n->mesh, n->materials, n->skin, n->camera, n->light, n->source);
    if ((n->flags & ~KILN_SCENE_NODE_FLAGS_KNOWN) != 0)
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "node %" PRIu32 " has unknown flags 0x%" PRIx32, i, n->flags);
    if (n->reserved != 0)
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "node %" PRIu32 " reserved word is not 0",
                            i);
    if (!string_valid(v, n->name_offset, n->name_length) ||
        (n->extras_length == 0 ? n->extras_offset != 0
                               : !string_valid(v, n->extras_offset, n->extras_length)))
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "node %" PRIu32 " name or extras lie outside the string table", i);
    return KILN_OK;
}

/* R11 and R12: refs are hashes (never 0); each scene's roots are a range of
 * SROT naming distinct roots in increasing order. */
static kiln_result check_tables(const kiln_file *file, const kiln_scene_view *v, kiln_error *err) {
    const char *name = file->name;
    const kiln_scene_desc *d = v->desc;
    for (uint32_t i = 0; i < d->mesh_count; i++)
        if (v->meshes[i] == 0)
            return runtime_fail(err, KILN_ERR_CORRUPT, name, "mesh ref %" PRIu32 " is 0", i);
    for (uint32_t i = 0; i < d->material_count; i++)
        if (v->materials[i] == 0)
            return runtime_fail(err, KILN_ERR_CORRUPT, name, "material table ref %" PRIu32 " is 0",
                                i);
    for (uint32_t s = 0; s < v->scene_count; s++) {
        const kiln_scene_entry *e = &v->scenes[s];
        if (!string_valid(v, e->name_offset, e->name_length))
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "scene %" PRIu32 " name lies outside the string table", s);
        if (!range_inside(e->root_offset, e->root_count, d->root_count))
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "scene %" PRIu32 " roots lie outside SROT", s);
        for (uint32_t r = 0; r < e->root_count; r++) {
            uint32_t node = v->roots[e->root_offset + r];
            if (node >= v->node_count || v->hierarchy[node].depth != 0 ||
                (r > 0 && node <= v->roots[e->root_offset + r - 1]))
                return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                    "scene %" PRIu32 " root %" PRIu32
                                    " is not a root node in increasing order",
                                    s, node);
        }
    }
    return KILN_OK;
}

/* R13: a node's link names a scene by a ref whose hash it is (or none), its
 * components are a string of the table (or none); flags and reserved 0. */
static kiln_result check_link(const kiln_file *file, const kiln_scene_view *v, uint32_t i,
                              kiln_error *err) {
    const char *name = file->name;
    const kiln_scene_link *l = &v->links[i];
    if (l->flags != 0)
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "node %" PRIu32 " link flags 0x%" PRIx32 " are unknown", i, l->flags);
    if (l->reserved != 0)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "node %" PRIu32 " link reserved word is not 0", i);
    bool ref_ok = l->scene == 0
                      ? l->ref_offset == 0 && l->ref_length == 0
                      : l->ref_length > 0 && string_valid(v, l->ref_offset, l->ref_length) &&
                            kiln_ref_hash_n(v->strings + l->ref_offset, l->ref_length) == l->scene;
    if (!ref_ok)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "node %" PRIu32 " links a scene whose ref is not in the string table "
                            "or does not hash to it",
                            i);
    if (l->components_length == 0 ? l->components_offset != 0
                                  : !string_valid(v, l->components_offset, l->components_length))
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "node %" PRIu32 " components lie outside the string table", i);
    return KILN_OK;
}

/* R14: cameras. Their values are what kiln_camera_projection divides by. */
static kiln_result check_cameras(const kiln_file *file, const kiln_scene_view *v, kiln_error *err) {
    for (uint32_t i = 0; i < v->camera_count; i++) {
        const kiln_scene_camera *c = &v->cameras[i];
        const float values[6] = {c->yfov, c->aspect, c->xmag, c->ymag, c->znear, c->zfar};
        if (c->type > KILN_CAMERA_ORTHOGRAPHIC)
            return runtime_fail(err, KILN_ERR_UNSUPPORTED, file->name,
                                "camera %" PRIu32 " has unknown type %" PRIu32, i, c->type);
        bool ok = runtime_all_finite(values, 6) && c->reserved[0] == 0 && c->reserved[1] == 0 &&
                  c->reserved[2] == 0 && string_valid(v, c->name_offset, c->name_length);
        if (c->type == KILN_CAMERA_PERSPECTIVE)
            ok = ok && c->yfov > 0 && c->aspect >= 0 && c->xmag == 0 && c->ymag == 0 &&
                 c->znear > 0 && (c->zfar == 0 || c->zfar > c->znear);
        else
            ok = ok && c->yfov == 0 && c->aspect == 0 && c->xmag != 0 && c->ymag != 0 &&
                 c->znear >= 0 && c->zfar > c->znear;
        if (!ok)
            return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                "camera %" PRIu32 " is invalid (yfov %g, aspect %g, xmag %g, "
                                "ymag %g, znear %g, zfar %g, or its name or reserved words)",
                                i, (double)c->yfov, (double)c->aspect, (double)c->xmag,
                                (double)c->ymag, (double)c->znear, (double)c->zfar);
    }
    return KILN_OK;
}

/* R15: lights. */
static kiln_result check_lights(const kiln_file *file, const kiln_scene_view *v, kiln_error *err) {
    for (uint32_t i = 0; i < v->light_count; i++) {
        const kiln_scene_light *l = &v->lights[i];
        if (l->type > KILN_LIGHT_SPOT)
            return runtime_fail(err, KILN_ERR_UNSUPPORTED, file->name,
                                "light %" PRIu32 " has unknown type %" PRIu32, i, l->type);
        const float values[7] = {l->color[0], l->color[1],   l->color[2],  l->intensity,
                                 l->range,    l->inner_cone, l->outer_cone};
        bool ok = runtime_all_finite(values, 7) && l->reserved[0] == 0 && l->reserved[1] == 0 &&
                  string_valid(v, l->name_offset, l->name_length) && l->intensity >= 0 &&
                  l->range >= 0;
        for (int k = 0; k < 3; k++)
            ok = ok && l->color[k] >= 0 && l->color[k] <= 1;
        if (l->type == KILN_LIGHT_SPOT)
            ok = ok && l->inner_cone >= 0 && l->inner_cone < l->outer_cone &&
                 l->outer_cone <= 1.5707964f;
        else
            ok = ok && l->inner_cone == 0 && l->outer_cone == 0;
        if (!ok)
            return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                "light %" PRIu32 " is invalid (colour, intensity %g, range %g, "
                                "cone %g..%g, or its name or reserved words)",
                                i, (double)l->intensity, (double)l->range, (double)l->inner_cone,
                                (double)l->outer_cone);
    }
    return KILN_OK;
}

/* R16: instances are transforms as R9 wants them, and the per-node ranges
 * hand them out in node order, each exactly once. */
static kiln_result check_instances(const kiln_file *file, const kiln_scene_view *v,
                                   kiln_error *err) {
    if (v->instance_count == 0)
        return KILN_OK;
    uint32_t next = 0;
    for (uint32_t i = 0; i < v->node_count; i++) {
        const kiln_scene_instance_range *range = &v->instance_ranges[i];
        if (range->count == 0 ? range->first != 0
                              : (range->first != next || range->count > v->instance_count - next))
            return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                "node %" PRIu32 " has instances %" PRIu32 " +%" PRIu32
                                ", expected the next ones from %" PRIu32 " of %" PRIu32,
                                i, range->first, range->count, next, v->instance_count);
        next += range->count;
    }
    if (next != v->instance_count)
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "nodes hold %" PRIu32 " of the %" PRIu32 " instances", next,
                            v->instance_count);
    for (uint32_t k = 0; k < v->instance_count; k++) {
        kiln_result r = check_transform(file, &v->instances[k], k, err);
        if (r != KILN_OK)
            return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                "instance %" PRIu32 " has a non-finite transform or a rotation "
                                "that is not a unit quaternion",
                                k);
    }
    return KILN_OK;
}

/* R17: the skins tile SJNT in order, each a non-empty range; their fields
 * in range. Counts the joints (SJNT's size is checked against the sum). */
static kiln_result check_skins(const kiln_file *file, const kiln_scene_view *v,
                               uint64_t *joint_total, kiln_error *err) {
    const char *name = file->name;
    uint64_t total = 0;
    for (uint32_t s = 0; s < v->skin_count; s++) {
        const kiln_scene_skin *k = &v->skins[s];
        if (k->joint_offset != total || k->joint_count == 0)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "skin %" PRIu32 " has joints %" PRIu32 " +%" PRIu32
                                ", expected a non-empty range from %" PRIu64,
                                s, k->joint_offset, k->joint_count, total);
        if (!index_valid(k->skeleton, v->node_count) || k->source < -1 ||
            k->root_joint >= k->joint_count || k->reserved != 0 ||
            !string_valid(v, k->name_offset, k->name_length))
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "skin %" PRIu32 " has a field out of range (skeleton %" PRId32
                                ", source %" PRId32 ", root joint %" PRIu32
                                ", name or reserved word)",
                                s, k->skeleton, k->source, k->root_joint);
        total += k->joint_count;
    }
    *joint_total = total;
    return KILN_OK;
}

/* R18: each joint names a node, a parent joint of its own skin one or more
 * levels up, and an affine, finite inverse bind matrix. */
static kiln_result check_joints(const kiln_file *file, const kiln_scene_view *v, kiln_error *err) {
    const char *name = file->name;
    for (uint32_t s = 0; s < v->skin_count; s++) {
        const kiln_scene_skin *k = &v->skins[s];
        for (uint32_t j = 0; j < k->joint_count; j++) {
            const kiln_scene_joint *joint = &v->joints[k->joint_offset + j];
            if (joint->node >= v->node_count || joint->reserved[0] != 0 || joint->reserved[1] != 0)
                return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                    "skin %" PRIu32 " joint %" PRIu32 " names node %" PRIu32
                                    " of %" PRIu32 " (or a reserved word is not 0)",
                                    s, j, joint->node, v->node_count);
        }
        for (uint32_t j = 0; j < k->joint_count; j++) { /* every node is in range now */
            const kiln_scene_joint *joint = &v->joints[k->joint_offset + j];
            if (joint->parent != -1 &&
                (joint->parent < 0 || (uint32_t)joint->parent >= k->joint_count ||
                 v->hierarchy[v->joints[k->joint_offset + (uint32_t)joint->parent].node].depth >=
                     v->hierarchy[joint->node].depth))
                return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                    "skin %" PRIu32 " joint %" PRIu32 " has parent joint %" PRId32
                                    ", not a joint of the skin above it",
                                    s, j, joint->parent);
            const float *m = joint->inverse_bind;
            if (!runtime_all_finite(m, 16) || m[3] != 0.0f || m[7] != 0.0f || m[11] != 0.0f ||
                m[15] != 1.0f)
                return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                    "skin %" PRIu32 " joint %" PRIu32
                                    " inverse bind matrix is not finite and affine",
                                    s, j);
        }
    }
    return KILN_OK;
}

kiln_result kiln_scene_view_get(const kiln_file *file, uint32_t flags, kiln_scene_view *view,
                                kiln_error *err) {
    if (view != NULL)
        memset(view, 0, sizeof *view);
    if (file == NULL || file->data == NULL || view == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_scene_view_get needs an open file and a view");
    if ((flags & ~(uint32_t)(KILN_OPEN_VERIFY_CHECKSUM | KILN_OPEN_DEEP)) != 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, file->name, "unknown flags 0x%" PRIx32,
                            flags);
    const char *name = file->name;
    if (file->kind != KILN_KIND_SCENE) { /* R1 */
        char fourcc[5];
        kiln_fourcc_str(file->kind, fourcc);
        return runtime_fail(err, KILN_ERR_BAD_MAGIC, name,
                            "not a scene (kind '%s', expected 'SCEN')", fourcc);
    }
    if (runtime_require_plain(file, err) != KILN_OK) /* container.md R24 */
        return KILN_ERR_UNSUPPORTED;
    if (file->kind_version != 1 && file->kind_version != KILN_SCENE_VERSION) /* R2 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "scene version %u is not supported (this build reads versions 1 "
                            "and %u)",
                            (unsigned)file->kind_version, KILN_SCENE_VERSION);
    scene_chunks c;
    kiln_result r = find_chunks(file, &c, err);
    if (r != KILN_OK)
        return r;
    if (c.desc == NULL || c.desc->size != sizeof(kiln_scene_desc)) /* R4 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "no SDSC chunk of %zu bytes (scene descriptor)",
                            sizeof(kiln_scene_desc));
    const kiln_scene_desc *d = (const kiln_scene_desc *)(const void *)(file->data + c.desc->offset);
    if ((r = check_desc(file, d, err)) != KILN_OK)
        return r;
    kiln_scene_view v = {.desc = d,
                         .node_count = d->node_count,
                         .level_count = d->level_count,
                         .scene_count = d->scene_count,
                         .strings_size = d->strings_size};
    const void *levels = NULL, *hierarchy = NULL, *transforms = NULL, *nodes = NULL, *meshes = NULL,
               *materials = NULL, *scenes = NULL, *roots = NULL, *strings = NULL, *cameras = NULL,
               *lights = NULL, *instances = NULL, *ranges = NULL;
    if ((r = runtime_sized_chunk(file, c.hierarchy, d->node_count, sizeof(kiln_scene_hierarchy),
                                 "SHIE", &hierarchy, err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.levels, (uint64_t)d->level_count + 1, sizeof(uint32_t),
                                 "SLVL", &levels, err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.transforms, d->node_count, sizeof(kiln_scene_transform),
                                 "STRS", &transforms, err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.nodes, d->node_count, sizeof(kiln_scene_node), "SNOD",
                                 &nodes, err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.meshes, d->mesh_count, sizeof(uint64_t), "SMSH", &meshes,
                                 err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.materials, d->material_count, sizeof(uint64_t), "SMTL",
                                 &materials, err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.scenes, d->scene_count, sizeof(kiln_scene_entry), "SSCN",
                                 &scenes, err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.roots, d->root_count, sizeof(uint32_t), "SROT", &roots,
                                 err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.strings, d->strings_size, 1, "SSTR", &strings, err)) !=
            KILN_OK ||
        (r = runtime_sized_chunk(file, c.cameras, d->camera_count, sizeof(kiln_scene_camera),
                                 "SCAM", &cameras, err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.lights, d->light_count, sizeof(kiln_scene_light), "SLGT",
                                 &lights, err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.instances, d->instance_count, sizeof(kiln_scene_transform),
                                 "SINS", &instances, err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.instance_ranges, d->instance_count > 0 ? d->node_count : 0,
                                 sizeof(kiln_scene_instance_range), "SINR", &ranges, err)) !=
            KILN_OK)
        return r; /* R6 */
    v.hierarchy = hierarchy;
    v.levels = levels;
    v.transforms = transforms;
    v.nodes = nodes;
    v.meshes = meshes;
    v.materials = materials;
    v.scenes = scenes;
    v.roots = roots;
    v.strings = strings;
    if (c.links != NULL) { /* R13: optional, else one entry per node */
        const void *links = NULL;
        if ((r = runtime_sized_chunk(file, c.links, d->node_count, sizeof(kiln_scene_link), "SLNK",
                                     &links, err)) != KILN_OK)
            return r;
        v.links = links;
    }
    v.cameras = cameras;
    v.camera_count = d->camera_count;
    v.lights = lights;
    v.light_count = d->light_count;
    v.instances = instances;
    v.instance_count = d->instance_count;
    v.instance_ranges = ranges;
    if ((r = check_levels(file, &v, err)) != KILN_OK)
        return r;
    uint32_t level = 0;
    for (uint32_t i = 0; i < v.node_count; i++) {
        if ((r = check_hierarchy(file, &v, i, &level, err)) != KILN_OK ||
            (r = check_transform(file, &v.transforms[i], i, err)) != KILN_OK ||
            (r = check_node(file, &v, i, err)) != KILN_OK ||
            (v.links != NULL && (r = check_link(file, &v, i, err)) != KILN_OK))
            return r;
    }
    if ((r = check_tables(file, &v, err)) != KILN_OK ||
        (r = check_cameras(file, &v, err)) != KILN_OK ||
        (r = check_lights(file, &v, err)) != KILN_OK ||
        (r = check_instances(file, &v, err)) != KILN_OK)
        return r;
    const void *skins = NULL, *joints = NULL;
    uint64_t joint_total = 0;
    if ((r = runtime_sized_chunk(file, c.skins, d->skin_count, sizeof(kiln_scene_skin), "SSKN",
                                 &skins, err)) != KILN_OK)
        return r; /* R6 */
    v.skins = skins;
    v.skin_count = d->skin_count;
    if ((r = check_skins(file, &v, &joint_total, err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.joints, joint_total, sizeof(kiln_scene_joint), "SJNT",
                                 &joints, err)) != KILN_OK)
        return r; /* R17 */
    v.joints = joints;
    v.joint_count = (uint32_t)joint_total; /* below 2^32: SJNT fits in the file */
    if ((r = check_joints(file, &v, err)) != KILN_OK)
        return r;
    *view = v;
    return runtime_succeed(err);
}

const char *kiln_scene_node_name(const kiln_scene_view *view, uint32_t node) {
    if (view == NULL || node >= view->node_count)
        return "";
    return view->strings + view->nodes[node].name_offset;
}

const char *kiln_scene_name(const kiln_scene_view *view, uint32_t scene) {
    if (view == NULL || scene >= view->scene_count)
        return "";
    return view->strings + view->scenes[scene].name_offset;
}

const char *kiln_scene_node_extras(const kiln_scene_view *view, uint32_t node, size_t *length) {
    if (length != NULL)
        *length = 0;
    if (view == NULL || node >= view->node_count || view->nodes[node].extras_length == 0)
        return NULL;
    if (length != NULL)
        *length = view->nodes[node].extras_length;
    return view->strings + view->nodes[node].extras_offset;
}

uint64_t kiln_scene_node_link(const kiln_scene_view *view, uint32_t node, const char **ref) {
    if (ref != NULL)
        *ref = NULL;
    if (view == NULL || view->links == NULL || node >= view->node_count ||
        view->links[node].scene == 0)
        return 0;
    if (ref != NULL)
        *ref = view->strings + view->links[node].ref_offset;
    return view->links[node].scene;
}

const char *kiln_scene_node_components(const kiln_scene_view *view, uint32_t node, size_t *length) {
    if (length != NULL)
        *length = 0;
    if (view == NULL || view->links == NULL || node >= view->node_count ||
        view->links[node].components_length == 0)
        return NULL;
    if (length != NULL)
        *length = view->links[node].components_length;
    return view->strings + view->links[node].components_offset;
}

const kiln_scene_camera *kiln_scene_node_camera(const kiln_scene_view *view, uint32_t node) {
    if (view == NULL || node >= view->node_count || view->nodes[node].camera < 0)
        return NULL;
    return &view->cameras[view->nodes[node].camera];
}

const kiln_scene_light *kiln_scene_node_light(const kiln_scene_view *view, uint32_t node) {
    if (view == NULL || node >= view->node_count || view->nodes[node].light < 0)
        return NULL;
    return &view->lights[view->nodes[node].light];
}

const char *kiln_scene_camera_name(const kiln_scene_view *view, uint32_t camera) {
    if (view == NULL || camera >= view->camera_count)
        return "";
    return view->strings + view->cameras[camera].name_offset;
}

const char *kiln_scene_light_name(const kiln_scene_view *view, uint32_t light) {
    if (view == NULL || light >= view->light_count)
        return "";
    return view->strings + view->lights[light].name_offset;
}

const kiln_scene_transform *kiln_scene_node_instances(const kiln_scene_view *view, uint32_t node,
                                                      uint32_t *count) {
    if (count != NULL)
        *count = 0;
    if (view == NULL || node >= view->node_count || view->instance_ranges == NULL ||
        view->instance_ranges[node].count == 0)
        return NULL;
    if (count != NULL)
        *count = view->instance_ranges[node].count;
    return &view->instances[view->instance_ranges[node].first];
}

kiln_result kiln_camera_projection(const kiln_scene_camera *camera, float viewport_aspect,
                                   kiln_projection convention, float out[16], kiln_error *err) {
    if (camera == NULL || out == NULL ||
        (convention != KILN_PROJECTION_GLTF && convention != KILN_PROJECTION_VULKAN))
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_camera_projection needs a camera, a known convention and "
                            "an output matrix");
    memset(out, 0, 16 * sizeof *out);
    bool vulkan = convention == KILN_PROJECTION_VULKAN;
    double n = camera->znear, f = camera->zfar;
    if (camera->type == KILN_CAMERA_ORTHOGRAPHIC) {
        /* out[column * 4 + row] */
        out[0] = (float)(1.0 / camera->xmag);
        out[5] = (float)((vulkan ? -1.0 : 1.0) / camera->ymag);
        out[10] = (float)(vulkan ? 1.0 / (n - f) : 2.0 / (n - f));
        out[14] = (float)(vulkan ? n / (n - f) : (f + n) / (n - f));
        out[15] = 1.0f;
        return runtime_succeed(err);
    }
    double aspect = camera->aspect > 0 ? camera->aspect : viewport_aspect;
    if (!(aspect > 0) || !isfinite(aspect))
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "the camera has no aspect ratio and the viewport's (%g) is not "
                            "positive",
                            (double)viewport_aspect);
    double t = tan(0.5 * camera->yfov);
    out[0] = (float)(1.0 / (aspect * t));
    out[5] = (float)((vulkan ? -1.0 : 1.0) / t);
    out[11] = -1.0f;
    if (f == 0) { /* infinite */
        out[10] = -1.0f;
        out[14] = (float)(vulkan ? -n : -2.0 * n);
    } else {
        out[10] = (float)(vulkan ? f / (n - f) : (f + n) / (n - f));
        out[14] = (float)(vulkan ? n * f / (n - f) : 2.0 * f * n / (n - f));
    }
    return runtime_succeed(err);
}

kiln_result kiln_scene_find_node(const kiln_scene_view *view, const char *name, uint32_t *node) {
    if (view == NULL || name == NULL || node == NULL)
        return KILN_ERR_INVALID_ARGUMENT;
    size_t length = strlen(name);
    for (uint32_t i = 0; i < view->node_count; i++) {
        const kiln_scene_node *n = &view->nodes[i];
        if (n->name_length == length && memcmp(view->strings + n->name_offset, name, length) == 0) {
            *node = i;
            return KILN_OK;
        }
    }
    return KILN_ERR_NOT_FOUND;
}

bool kiln_scene_next_mesh_node(const kiln_scene_view *view, uint32_t *cursor, uint32_t *node) {
    if (view == NULL || cursor == NULL || node == NULL)
        return false;
    for (uint32_t i = *cursor; i < view->node_count; i++) {
        if (view->nodes[i].mesh >= 0) {
            *node = i;
            *cursor = i + 1;
            return true;
        }
    }
    *cursor = view->node_count;
    return false;
}

/* ---------------------------------------------------------------------------
 * Transforms
 * ------------------------------------------------------------------------- */

void kiln_scene_compose(const kiln_scene_transform *t, float m[16]) {
    float x = t->rotation[0], y = t->rotation[1], z = t->rotation[2], w = t->rotation[3];
    const float *s = t->scale;
    m[0] = (1 - 2 * (y * y + z * z)) * s[0];
    m[1] = (2 * (x * y + z * w)) * s[0];
    m[2] = (2 * (x * z - y * w)) * s[0];
    m[3] = 0;
    m[4] = (2 * (x * y - z * w)) * s[1];
    m[5] = (1 - 2 * (x * x + z * z)) * s[1];
    m[6] = (2 * (y * z + x * w)) * s[1];
    m[7] = 0;
    m[8] = (2 * (x * z + y * w)) * s[2];
    m[9] = (2 * (y * z - x * w)) * s[2];
    m[10] = (1 - 2 * (x * x + y * y)) * s[2];
    m[11] = 0;
    m[12] = t->translation[0];
    m[13] = t->translation[1];
    m[14] = t->translation[2];
    m[15] = 1;
}

/* world = parent * local for affine matrices (last row 0 0 0 1, which TRS
 * composition and products of such matrices keep): 36 multiplications. */
static void multiply_affine(const float *parent, const float *local, float *out) {
    for (int c = 0; c < 4; c++) {
        float l0 = local[c * 4 + 0], l1 = local[c * 4 + 1], l2 = local[c * 4 + 2];
        for (int r = 0; r < 3; r++)
            out[c * 4 + r] = parent[r] * l0 + parent[4 + r] * l1 + parent[8 + r] * l2 +
                             (c == 3 ? parent[12 + r] : 0.0f);
        out[c * 4 + 3] = c == 3 ? 1.0f : 0.0f;
    }
}

static void compute_world(kiln_scene_instance *instance, uint32_t node) {
    float *world = instance->world + (size_t)node * 16;
    int32_t parent = instance->hierarchy[node].parent;
    if (parent < 0) {
        kiln_scene_compose(&instance->local[node], world);
        return;
    }
    float local[16];
    kiln_scene_compose(&instance->local[node], local);
    multiply_affine(instance->world + (size_t)parent * 16, local, world);
}

/* ---------------------------------------------------------------------------
 * The instance
 * ------------------------------------------------------------------------- */

/* Layout in the caller's block: world matrices 64-byte aligned (one cache line
 * each), then local transforms, changed lists, child ranges (two words per
 * node: a level has at most one range per node of it), the per-level counts
 * and the changed bytes, each part 16-byte aligned. */
typedef struct instance_layout {
    size_t world, local, changed_list, ranges, changed_count, range_count, changed, total;
} instance_layout;

#define WORLD_ALIGNMENT 64u

static bool layout_of(uint32_t nodes, uint32_t levels, instance_layout *l) {
    enum { PARTS = 7 };
    const size_t sizes[PARTS] = {sizeof(float) * 16,
                                 sizeof(kiln_scene_transform),
                                 sizeof(uint32_t),
                                 2 * sizeof(uint32_t),
                                 sizeof(uint32_t),
                                 sizeof(uint32_t),
                                 1};
    const uint32_t counts[PARTS] = {nodes, nodes, nodes, nodes, levels, levels, nodes};
    size_t *offsets[PARTS] = {&l->world,         &l->local,       &l->changed_list, &l->ranges,
                              &l->changed_count, &l->range_count, &l->changed};
    size_t at = WORLD_ALIGNMENT - 16, part; /* room to align the matrices up */
    for (int k = 0; k < PARTS; k++) {
        *offsets[k] = at;
        if (!checked_mul_size(sizes[k], counts[k], &part) || !checked_add_size(at, part, &at) ||
            !checked_add_size(at, 15, &at))
            return false;
        at &= ~(size_t)15;
    }
    l->total = at;
    return true;
}

size_t kiln_scene_instance_size(const kiln_scene_view *view) {
    instance_layout l;
    if (view == NULL || (view->node_count > 0 && view->hierarchy == NULL) ||
        !layout_of(view->node_count, view->level_count, &l))
        return 0;
    return l.total;
}

kiln_result kiln_scene_instance_init(kiln_scene_instance *instance, const kiln_scene_view *view,
                                     void *memory, size_t size, kiln_error *err) {
    if (instance == NULL || memory == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_scene_instance_init needs an instance and memory");
    memset(instance, 0, sizeof *instance);
    size_t needed = kiln_scene_instance_size(view);
    if (needed == 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_scene_instance_init needs a scene view from kiln_scene_view_get");
    if (size < needed || ((uintptr_t)memory & 15u) != 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "scene instance memory: %zu bytes at %p; %zu bytes 16-byte aligned "
                            "needed",
                            size, memory, needed);
    instance_layout l;
    layout_of(view->node_count, view->level_count, &l);
    /* The layout reserved WORLD_ALIGNMENT - 16 bytes before the matrices;
     * moving everything down by the misalignment keeps every part inside. */
    size_t shift =
        (WORLD_ALIGNMENT - ((uintptr_t)memory & (WORLD_ALIGNMENT - 1))) & (WORLD_ALIGNMENT - 1);
    uint8_t *base = (uint8_t *)memory + shift - (WORLD_ALIGNMENT - 16);
    instance->node_count = view->node_count;
    instance->level_count = view->level_count;
    instance->hierarchy = view->hierarchy;
    instance->levels = view->levels;
    instance->world = (float *)(void *)(base + l.world);
    instance->local = (kiln_scene_transform *)(void *)(base + l.local);
    instance->changed_list_ = (uint32_t *)(void *)(base + l.changed_list);
    instance->ranges_ = (uint32_t *)(void *)(base + l.ranges);
    instance->changed_count_ = (uint32_t *)(void *)(base + l.changed_count);
    instance->range_count_ = (uint32_t *)(void *)(base + l.range_count);
    instance->changed_ = base + l.changed;
    if (view->node_count > 0)
        memcpy(instance->local, view->transforms,
               (size_t)view->node_count * sizeof(kiln_scene_transform));
    kiln_scene_update_all(instance);
    return runtime_succeed(err);
}

/* The level of `node`: a binary search of the small level table, which stays
 * in cache, rather than a read of the node's own hierarchy record. */
static uint32_t level_of(const kiln_scene_instance *instance, uint32_t node) {
    uint32_t low = 0, high = instance->level_count; /* levels[low] <= node < levels[high] */
    while (high - low > 1) {
        uint32_t mid = low + (high - low) / 2;
        if (node >= instance->levels[mid])
            low = mid;
        else
            high = mid;
    }
    return low;
}

kiln_result kiln_scene_set_local(kiln_scene_instance *instance, uint32_t node,
                                 const kiln_scene_transform *local, kiln_error *err) {
    if (instance == NULL || local == NULL || node >= instance->node_count)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_scene_set_local: node %" PRIu32 " of %" PRIu32, node,
                            instance != NULL ? instance->node_count : 0);
    instance->local[node] = *local;
    if (instance->changed_[node])
        return KILN_OK; /* already queued */
    instance->changed_[node] = 1;
    uint32_t level = level_of(instance, node);
    instance->changed_list_[instance->levels[level] + instance->changed_count_[level]++] = node;
    if (level < instance->first_pending_)
        instance->first_pending_ = level;
    return KILN_OK;
}

/* Recomputes `node` and queues its children, as one range, for the next
 * level. Breadth-first order puts the children of consecutive nodes side by
 * side, so a range that continues the last one extends it. */
static void recompute(kiln_scene_instance *instance, uint32_t node, uint32_t level) {
    compute_world(instance, node);
    instance->changed_[node] = 0;
    const kiln_scene_hierarchy *h = &instance->hierarchy[node];
    if (h->child_count == 0)
        return;
    uint32_t *ranges = instance->ranges_ + 2 * (size_t)instance->levels[level + 1];
    uint32_t *count = &instance->range_count_[level + 1];
    uint32_t first = (uint32_t)h->first_child;
    if (*count > 0 && ranges[2 * *count - 2] + ranges[2 * *count - 1] == first) {
        ranges[2 * *count - 1] += h->child_count;
        return;
    }
    ranges[2 * *count] = first;
    ranges[2 * *count + 1] = h->child_count;
    (*count)++;
}

/* Changed nodes and child ranges are scattered over the scene: the records of
 * the one PREFETCH_AHEAD places ahead are fetched early (its parent's matrix
 * half-way, once its record has arrived), so the cache misses of several
 * nodes overlap instead of following one another. */
#define PREFETCH_AHEAD 8u

static void prefetch_records(const kiln_scene_instance *instance, uint32_t node) {
#if defined(__GNUC__)
    __builtin_prefetch(&instance->hierarchy[node]);
    __builtin_prefetch(&instance->local[node]);
    __builtin_prefetch(instance->world + (size_t)node * 16, 1);
#else
    (void)instance, (void)node;
#endif
}

static void prefetch_parent(const kiln_scene_instance *instance, uint32_t node) {
#if defined(__GNUC__)
    int32_t parent = instance->hierarchy[node].parent;
    if (parent >= 0)
        __builtin_prefetch(instance->world + (size_t)parent * 16);
#else
    (void)instance, (void)node;
#endif
}

/* Level by level: first the children of the nodes recomputed one level up
 * (contiguous ranges, read in order), then the changed nodes no range covered.
 * A node is recomputed at most once: a range clears its changed byte. */
uint32_t kiln_scene_update(kiln_scene_instance *instance) {
    if (instance == NULL)
        return 0;
    uint32_t updated = 0;
    for (uint32_t level = instance->first_pending_; level < instance->level_count; level++) {
        bool last = level + 1 == instance->level_count; /* leaves only: no ranges to queue */
        const uint32_t *ranges = instance->ranges_ + 2 * (size_t)instance->levels[level];
        uint32_t range_count = instance->range_count_[level];
        for (uint32_t r = 0; r < range_count; r++) {
            if (r + PREFETCH_AHEAD < range_count) /* the parent's matrix is the one just made */
                prefetch_records(instance, ranges[2 * (r + PREFETCH_AHEAD)]);
            uint32_t first = ranges[2 * r], end = first + ranges[2 * r + 1];
            for (uint32_t node = first; node < end; node++) {
                if (last) {
                    compute_world(instance, node);
                    instance->changed_[node] = 0;
                } else {
                    recompute(instance, node, level);
                }
            }
            updated += end - first;
        }
        instance->range_count_[level] = 0;
        const uint32_t *list = instance->changed_list_ + instance->levels[level];
        uint32_t count = instance->changed_count_[level];
        for (uint32_t k = 0; k < count; k++) {
            if (k + PREFETCH_AHEAD < count)
                prefetch_records(instance, list[k + PREFETCH_AHEAD]);
            if (k + PREFETCH_AHEAD / 2 < count)
                prefetch_parent(instance, list[k + PREFETCH_AHEAD / 2]);
            uint32_t node = list[k];
            if (!instance->changed_[node])
                continue; /* a range recomputed it */
            if (last) {
                compute_world(instance, node);
                instance->changed_[node] = 0;
            } else {
                recompute(instance, node, level);
            }
            updated++;
        }
        instance->changed_count_[level] = 0;
    }
    instance->first_pending_ = instance->level_count;
    return updated;
}

void kiln_scene_update_all(kiln_scene_instance *instance) {
    if (instance == NULL)
        return;
    for (uint32_t node = 0; node < instance->node_count; node++)
        compute_world(instance, node);
    if (instance->node_count > 0)
        memset(instance->changed_, 0, instance->node_count);
    for (uint32_t level = 0; level < instance->level_count; level++)
        instance->changed_count_[level] = instance->range_count_[level] = 0;
    instance->first_pending_ = instance->level_count;
}

const float *kiln_scene_world(const kiln_scene_instance *instance, uint32_t node) {
    if (instance == NULL || node >= instance->node_count)
        return NULL;
    return instance->world + (size_t)node * 16;
}

/* ---------------------------------------------------------------------------
 * Skins
 * ------------------------------------------------------------------------- */

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
