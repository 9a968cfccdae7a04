/* scene.c — scene graphs (docs/formats/kscene.md): the view over a .kscene
 * file and its look-ups (scene_instance.c keeps world matrices from it).
 *
 * kiln_scene_view_get checks every rule of kscene.md (cited as R<n>) in one
 * pass over the nodes, so what the instance does afterwards (index a parent,
 * stream a subtree's range, compose a transform) needs no check of its own. */
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
    const kiln_chunk_entry *desc, *hierarchy, *transforms, *nodes, *meshes, *materials, *scenes,
        *roots, *strings, *links, *cameras, *lights, *instances, *instance_ranges, *skins, *joints;
} scene_chunks;

static kiln_result find_chunks(const kiln_file *file, scene_chunks *c, kiln_error *err) {
    memset(c, 0, sizeof *c);
    const runtime_known_chunk known[] = {
        {KILN_CHUNK_SCENE_DESC, &c->desc},
        {KILN_CHUNK_SCENE_HIERARCHY, &c->hierarchy},
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

/* R7-R8: node i's hierarchy record, its subtree range nested in its
 * parent's, its first child and next sibling where depth-first pre-order puts
 * them. Checked for every node, these make the ranges tile: a node's children
 * follow it one subtree after another up to its subtree's end, so each range
 * holds exactly the node's descendants, and parents come first (no cycles). */
static kiln_result check_hierarchy(const kiln_file *file, const kiln_scene_view *v, uint32_t i,
                                   kiln_error *err) {
    const char *name = file->name;
    const kiln_scene_hierarchy *h = &v->hierarchy[i];
    uint32_t n = v->node_count, end = h->subtree_end;
    if (h->reserved != 0)
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "node %" PRIu32 " reserved word is not 0",
                            i);
    if (end <= i || end > n) /* R7 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "node %" PRIu32 " has subtree end %" PRIu32
                            ", not after it and inside the %" PRIu32 " nodes",
                            i, end, n);
    uint32_t parent_end = n; /* a root's "parent" is the whole file */
    if (h->parent == -1) {
        if (h->depth != 0 || h->next_sibling != -1)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "root node %" PRIu32 " has depth %" PRIu32 " or a sibling", i,
                                h->depth);
    } else {
        if (h->parent < 0 || (uint32_t)h->parent >= i)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "node %" PRIu32 " has parent %" PRId32
                                ", not an earlier node (nodes must be in depth-first order)",
                                i, h->parent);
        const kiln_scene_hierarchy *p = &v->hierarchy[h->parent]; /* checked already */
        parent_end = p->subtree_end;
        if (end > parent_end) /* R7: i < parent_end follows, as end > i */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "node %" PRIu32 " subtree (to %" PRIu32
                                ") is not inside its parent %" PRId32 "'s (to %" PRIu32 ")",
                                i, end, h->parent, parent_end);
        if (h->depth != p->depth + 1)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "node %" PRIu32 " has depth %" PRIu32 ", its parent %" PRIu32, i,
                                h->depth, p->depth);
        int32_t sibling = end < parent_end ? (int32_t)end : -1;
        if (h->next_sibling != sibling)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "node %" PRIu32 " has next sibling %" PRId32 ", expected %" PRId32,
                                i, h->next_sibling, sibling);
    }
    if (h->depth >= v->level_count)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "node %" PRIu32 " has depth %" PRIu32 ", beyond the %" PRIu32
                            " levels the descriptor counts",
                            i, h->depth, v->level_count);
    int32_t first_child = end > i + 1 ? (int32_t)(i + 1) : -1;
    if (h->first_child != first_child)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "node %" PRIu32 " has first child %" PRId32 ", expected %" PRId32, i,
                            h->first_child, first_child);
    /* The nodes pre-order puts right after this one: its first child, and
     * after its subtree its parent's next child (or, for a root, a root). */
    if (first_child >= 0 && v->hierarchy[i + 1].parent != (int32_t)i)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "node %" PRIu32 " subtree holds node %" PRIu32
                            ", which is not its child (nodes must be in depth-first order)",
                            i, i + 1);
    if (end < parent_end && v->hierarchy[end].parent != h->parent)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "node %" PRIu32 " after the subtree of node %" PRIu32
                            " has parent %" PRId32 ", not %" PRId32
                            " (nodes must be in depth-first order)",
                            end, i, v->hierarchy[end].parent, h->parent);
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
    if (file->kind_version != KILN_SCENE_VERSION) /* R2 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "scene version %u is not supported (this build reads version %u; "
                            "cook the source again)",
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
    const void *hierarchy = NULL, *transforms = NULL, *nodes = NULL, *meshes = NULL,
               *materials = NULL, *scenes = NULL, *roots = NULL, *strings = NULL, *cameras = NULL,
               *lights = NULL, *instances = NULL, *ranges = NULL;
    if ((r = runtime_sized_chunk(file, c.hierarchy, d->node_count, sizeof(kiln_scene_hierarchy),
                                 "SHIE", &hierarchy, err)) != KILN_OK ||
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
    uint32_t deepest = 0;
    for (uint32_t i = 0; i < v.node_count; i++) {
        if (v.hierarchy[i].depth > deepest)
            deepest = v.hierarchy[i].depth;
        if ((r = check_hierarchy(file, &v, i, err)) != KILN_OK ||
            (r = check_transform(file, &v.transforms[i], i, err)) != KILN_OK ||
            (r = check_node(file, &v, i, err)) != KILN_OK ||
            (v.links != NULL && (r = check_link(file, &v, i, err)) != KILN_OK))
            return r;
    }
    if (v.node_count > 0 && deepest + 1 != v.level_count) /* R5 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "%" PRIu32 " levels, but the deepest node has depth %" PRIu32,
                            v.level_count, deepest);
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
