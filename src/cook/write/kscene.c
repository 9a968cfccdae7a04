/* kscene.c — serialises an asset's node graph as a .kscene file
 * (docs/formats/kscene.md).
 *
 * The IR lists parents before children; the file wants depth-first pre-order
 * (kscene.md R7-R8): each node followed by its whole subtree, so a subtree is
 * one range of nodes the runtime streams front to back. Roots in IR order,
 * each node's children in IR order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/write/write.h"

/* The writer never produces a transform the reader rejects (kscene.md R9): a
 * non-finite value becomes the identity's, a rotation is normalised. */
static void fill_transform(const float translation[3], const float rotation[4],
                           const float scale[3], kiln_scene_transform *t) {
    for (int k = 0; k < 3; k++) {
        t->translation[k] = isfinite(translation[k]) ? translation[k] : 0.0f;
        t->scale[k] = isfinite(scale[k]) ? scale[k] : 1.0f;
    }
    const float *q = rotation;
    double length =
        sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    if (!(length > 1e-12) || !isfinite(length)) {
        t->rotation[0] = t->rotation[1] = t->rotation[2] = 0.0f;
        t->rotation[3] = 1.0f;
        return;
    }
    for (int k = 0; k < 4; k++)
        t->rotation[k] = (float)(q[k] / length);
}

static int compare_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The depth-first pre-order: order[k] is the IR node stored at k,
 * position[i] the file index of IR node i. child_start/children group
 * children by parent (a counting sort, so IR order is kept); an explicit
 * stack, pushed in reverse, visits them in that order without recursion. */
bool write_kscene_node_order(const ir_asset *asset, uint32_t *order, uint32_t *position) {
    uint32_t n = asset->node_count;
    uint32_t *child_start = calloc((size_t)n + 1, sizeof *child_start);
    uint32_t *children = malloc((n ? n : 1) * sizeof *children);
    uint32_t *stack = malloc((n ? n : 1) * sizeof *stack);
    bool ok = child_start && children && stack;
    if (ok) {
        for (uint32_t i = 0; i < n; i++)
            if (asset->nodes[i].parent >= 0)
                child_start[asset->nodes[i].parent + 1]++;
        for (uint32_t i = 0; i < n; i++)
            child_start[i + 1] += child_start[i];
        for (uint32_t i = 0; i < n; i++) /* stack[p]: children of p placed so far */
            stack[i] = 0;
        for (uint32_t i = 0; i < n; i++) {
            int32_t p = asset->nodes[i].parent;
            if (p >= 0)
                children[child_start[p] + stack[p]++] = i;
        }
        uint32_t depth = 0, count = 0; /* each node is pushed once: at most n on the stack */
        for (uint32_t i = n; i-- > 0;)
            if (asset->nodes[i].parent < 0)
                stack[depth++] = i;
        while (depth > 0) {
            uint32_t v = stack[--depth];
            order[count++] = v;
            for (uint32_t c = child_start[v + 1]; c-- > child_start[v];)
                stack[depth++] = children[c];
        }
        for (uint32_t k = 0; k < n; k++)
            position[order[k]] = k;
    }
    free(child_start);
    free(children);
    free(stack);
    return ok;
}

/* The stem of the source's file name: the name of the one scene of a source
 * that has none of its own. */
static void source_stem(const char *path, char *out, size_t size) {
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    size_t length = dot && dot != name ? (size_t)(dot - name) : strlen(name);
    if (length >= size)
        length = size - 1;
    memcpy(out, name, length);
    out[length] = '\0';
}

/* The skin table: per skin its range of joints, each joint's node in file
 * order, the nearest ancestor that is a joint of the same skin, its inverse
 * bind matrix. `parents` is scratch for the largest skin's joint count. */
static bool write_skins(const ir_asset *asset, const uint32_t *position, int32_t *parents,
                        bytebuf *skins, bytebuf *joints, bytebuf *strings) {
    uint32_t offset = 0;
    for (uint32_t s = 0; s < asset->skin_count; s++) {
        const ir_skin *skin = &asset->skins[s];
        if (!ir_skin_joint_parents(asset, skin, parents))
            return false;
        kiln_scene_skin record = {.joint_offset = offset,
                                  .joint_count = skin->joint_count,
                                  .skeleton = skin->skeleton >= 0 &&
                                                      (uint32_t)skin->skeleton < asset->node_count
                                                  ? (int32_t)position[skin->skeleton]
                                                  : -1,
                                  .source = skin->source >= 0 ? skin->source : -1,
                                  .root_joint = ir_skin_root_of(parents, skin->joint_count)};
        if (!string_table_add(strings, skin->name, &record.name_offset, &record.name_length) ||
            skin->joint_count > UINT32_MAX - offset)
            return false;
        offset += skin->joint_count;
        for (uint32_t j = 0; j < skin->joint_count; j++) {
            kiln_scene_joint joint = {.node = position[skin->joints[j]], .parent = parents[j]};
            const float *m = skin->inverse_bind + 16 * (size_t)j;
            for (int e = 0; e < 16; e++) /* kscene.md R18: finite and affine */
                joint.inverse_bind[e] =
                    e == 3 || e == 7 || e == 11
                        ? 0.0f
                        : (e == 15 || !isfinite(m[e]) ? (e % 5 == 0 ? 1.0f : 0.0f) : m[e]);
            bytebuf_append(joints, &joint, sizeof joint);
        }
        bytebuf_append(skins, &record, sizeof record);
    }
    return !skins->failed && !joints->failed;
}

bool write_kscene(const cook_context *ctx, const ir_asset *asset, const uint64_t *mesh_refs,
                  uint64_t material_table, const char *importer, bytebuf *out) {
    return write_kscene_links(ctx, asset, mesh_refs, material_table, importer, NULL, out);
}

/* The SLNK entries in file order (position[i]: IR node i's place), their
 * strings appended to the table. */
static bool fill_links(const ir_asset *asset, const write_scene_link *links,
                       const uint32_t *position, kiln_scene_link *out, bytebuf *strings) {
    bool ok = true;
    for (uint32_t i = 0; ok && i < asset->node_count; i++) {
        kiln_scene_link *l = &out[position[i]];
        if (links[i].scene_ref != NULL && links[i].scene_ref[0] != '\0') {
            l->scene = kiln_ref_hash(links[i].scene_ref);
            ok = string_table_add(strings, links[i].scene_ref, &l->ref_offset, &l->ref_length);
        }
        if (ok && links[i].components != NULL && links[i].components[0] != '\0')
            ok = string_table_add(strings, links[i].components, &l->components_offset,
                                  &l->components_length);
    }
    return ok;
}

/* The tables of one .kscene in file order, as they are filled. */
typedef struct scene_tables {
    uint32_t *order;    /* order[k]: the IR node stored at k */
    uint32_t *position; /* position[i]: the file index of IR node i */
    kiln_scene_hierarchy *hierarchy;
    kiln_scene_transform *transforms;
    kiln_scene_node *nodes;
    kiln_scene_entry *scenes;
    kiln_scene_camera *cameras;
    kiln_scene_light *lights;
    kiln_scene_instance_range *ranges; /* NULL without instances */
    kiln_scene_link *links;            /* NULL for a scene without links */
    int32_t *joint_parents;            /* write_skins' scratch */
    bytebuf roots, strings, meta, instances, skins, joints;
    kiln_scene_desc desc;
} scene_tables;

static void scene_tables_free(scene_tables *t) {
    free(t->order);
    free(t->position);
    free(t->hierarchy);
    free(t->transforms);
    free(t->nodes);
    free(t->scenes);
    free(t->links);
    free(t->cameras);
    free(t->lights);
    free(t->ranges);
    free(t->joint_parents);
    bytebuf_free(&t->instances);
    bytebuf_free(&t->skins);
    bytebuf_free(&t->joints);
    bytebuf_free(&t->roots);
    bytebuf_free(&t->strings);
    bytebuf_free(&t->meta);
}

/* Allocates every table and computes the node order; false when memory runs
 * out (what was allocated is freed by scene_tables_free). */
static bool scene_tables_alloc(scene_tables *t, const ir_asset *asset, bool with_links) {
    size_t slots = asset->node_count ? asset->node_count : 1;
    t->desc.scene_count = asset->scene_count ? asset->scene_count : 1;
    t->order = malloc(slots * sizeof *t->order);
    t->position = malloc(slots * sizeof *t->position);
    t->hierarchy = calloc(slots, sizeof *t->hierarchy);
    t->transforms = calloc(slots, sizeof *t->transforms);
    t->nodes = calloc(slots, sizeof *t->nodes);
    t->links = with_links ? calloc(slots, sizeof *t->links) : NULL;
    t->scenes = calloc(t->desc.scene_count, sizeof *t->scenes);
    t->cameras = calloc(asset->camera_count ? asset->camera_count : 1, sizeof *t->cameras);
    t->lights = calloc(asset->light_count ? asset->light_count : 1, sizeof *t->lights);
    t->ranges = asset->instance_count > 0 ? calloc(slots, sizeof *t->ranges) : NULL;
    size_t most_joints = 1;
    for (uint32_t s = 0; s < asset->skin_count; s++)
        if (asset->skins[s].joint_count > most_joints)
            most_joints = asset->skins[s].joint_count;
    t->joint_parents = malloc(most_joints * sizeof *t->joint_parents);
    return t->order && t->position && t->hierarchy && t->transforms && t->nodes && t->scenes &&
           (!with_links || t->links != NULL) && t->cameras && t->lights && t->joint_parents &&
           (asset->instance_count == 0 || t->ranges) &&
           write_kscene_node_order(asset, t->order, t->position);
}

/* Hierarchy and local transforms, in depth-first order. A node's subtree
 * ends where the next node not below it starts: the sizes are summed from the
 * last node back, each child's into its parent's (parents come first). */
static void fill_hierarchy(const ir_asset *asset, scene_tables *t) {
    uint32_t n = asset->node_count;
    for (uint32_t k = 0; k < n; k++) {
        const ir_node *node = &asset->nodes[t->order[k]];
        kiln_scene_hierarchy *h = &t->hierarchy[k];
        h->parent = node->parent >= 0 ? (int32_t)t->position[node->parent] : -1;
        h->depth = h->parent >= 0 ? t->hierarchy[h->parent].depth + 1 : 0;
        h->subtree_end = 1; /* its size, for now */
        if (h->depth + 1 > t->desc.level_count)
            t->desc.level_count = h->depth + 1;
        fill_transform(node->translation, node->rotation, node->scale, &t->transforms[k]);
    }
    for (uint32_t k = n; k-- > 0;)
        if (t->hierarchy[k].parent >= 0)
            t->hierarchy[t->hierarchy[k].parent].subtree_end += t->hierarchy[k].subtree_end;
    for (uint32_t k = 0; k < n; k++) {
        kiln_scene_hierarchy *h = &t->hierarchy[k];
        h->subtree_end += k;
        h->first_child = h->subtree_end > k + 1 ? (int32_t)(k + 1) : -1;
        uint32_t parent_end = h->parent >= 0 ? t->hierarchy[h->parent].subtree_end : 0;
        h->next_sibling = h->subtree_end < parent_end ? (int32_t)h->subtree_end : -1;
    }
}

/* Appends node k's instance transforms (in file node order, so the ranges
 * increase: kscene.md R16). */
static void fill_instances(const ir_asset *asset, const ir_node *node, uint32_t k,
                           scene_tables *t) {
    if (t->ranges == NULL || node->instance_count == 0 ||
        (uint64_t)node->instance_offset + node->instance_count > asset->instance_count)
        return;
    t->ranges[k].first = (uint32_t)(t->instances.size / sizeof(kiln_scene_transform));
    t->ranges[k].count = node->instance_count;
    for (uint32_t e = 0; e < node->instance_count; e++) {
        const ir_instance *inst = &asset->instances[node->instance_offset + e];
        kiln_scene_transform transform;
        fill_transform(inst->translation, inst->rotation, inst->scale, &transform);
        bytebuf_append(&t->instances, &transform, sizeof transform);
    }
}

/* What each node carries, its instances, its name and extras into the string
 * table. */
static bool fill_nodes(const ir_asset *asset, const write_scene_refs *refs, scene_tables *t) {
    bool ok = true;
    for (uint32_t k = 0; ok && k < asset->node_count; k++) {
        const ir_node *node = &asset->nodes[t->order[k]];
        kiln_scene_node *dst = &t->nodes[k];
        bool has_mesh = node->mesh >= 0 && (uint32_t)node->mesh < asset->mesh_count;
        dst->mesh = has_mesh ? node->mesh : -1;
        dst->materials = has_mesh ? refs->mesh_materials[node->mesh] : -1;
        dst->skin = has_mesh && node->skin >= 0 && (uint32_t)node->skin < asset->skin_count
                        ? node->skin
                        : -1;
        dst->camera =
            node->camera >= 0 && (uint32_t)node->camera < asset->camera_count ? node->camera : -1;
        dst->light =
            node->light >= 0 && (uint32_t)node->light < asset->light_count ? node->light : -1;
        fill_instances(asset, node, k, t);
        dst->source = node->source >= 0 ? node->source : -1;
        if (has_mesh && (node->skin >= 0 || asset->meshes[node->mesh].joints != NULL))
            dst->flags |= KILN_SCENE_NODE_FLAG_SKINNED;
        ok = string_table_add(&t->strings, node->name, &dst->name_offset, &dst->name_length);
        if (ok && node->extras != NULL && node->extras[0] != '\0')
            ok = string_table_add(&t->strings, node->extras, &dst->extras_offset,
                                  &dst->extras_length);
    }
    return ok;
}

/* Scenes: the source's, else one of every root, named after the source. */
static bool fill_scenes(const cook_context *ctx, const ir_asset *asset, scene_tables *t) {
    bool ok = true;
    bytebuf *roots = &t->roots;
    for (uint32_t s = 0; ok && s < t->desc.scene_count; s++) {
        kiln_scene_entry *e = &t->scenes[s];
        const ir_scene *scene = asset->scene_count ? &asset->scenes[s] : NULL;
        char stem[256];
        source_stem(ctx->source_path, stem, sizeof stem);
        ok = string_table_add(&t->strings, scene ? scene->name : stem, &e->name_offset,
                              &e->name_length);
        e->root_offset = (uint32_t)(roots->size / sizeof(uint32_t));
        size_t first = roots->size;
        for (uint32_t r = 0; ok && r < (scene ? scene->root_count : asset->node_count); r++) {
            uint32_t ir = scene ? scene->roots[r] : t->order[r];
            if (scene == NULL && asset->nodes[ir].parent >= 0)
                continue; /* every root, in file order */
            bytebuf_append(roots, &t->position[ir], sizeof(uint32_t));
        }
        e->root_count = (uint32_t)((roots->size - first) / sizeof(uint32_t));
        if (!roots->failed && e->root_count > 1) { /* kscene.md R12: strictly increasing */
            uint32_t *list = (uint32_t *)(void *)(roots->data + first), kept = 1;
            qsort(list, e->root_count, sizeof *list, compare_u32);
            for (uint32_t r = 1; r < e->root_count; r++)
                if (list[r] != list[kept - 1])
                    list[kept++] = list[r];
            roots->size = first + (size_t)kept * sizeof *list;
            e->root_count = kept;
        }
    }
    return ok;
}

/* Cameras and lights, in source order, their names after the scenes'. */
static bool fill_cameras_and_lights(const ir_asset *asset, scene_tables *t) {
    bool ok = true;
    for (uint32_t c = 0; ok && c < asset->camera_count; c++) {
        const ir_camera *src = &asset->cameras[c];
        kiln_scene_camera *dst = &t->cameras[c];
        bool perspective = src->type == IR_CAMERA_PERSPECTIVE;
        dst->type = perspective ? KILN_CAMERA_PERSPECTIVE : KILN_CAMERA_ORTHOGRAPHIC;
        dst->yfov = perspective ? src->yfov : 0.0f;
        dst->aspect = perspective ? src->aspect : 0.0f;
        dst->xmag = perspective ? 0.0f : src->xmag;
        dst->ymag = perspective ? 0.0f : src->ymag;
        dst->znear = src->znear;
        dst->zfar = src->zfar;
        ok = string_table_add(&t->strings, src->name, &dst->name_offset, &dst->name_length);
    }
    for (uint32_t l = 0; ok && l < asset->light_count; l++) {
        const ir_light *src = &asset->lights[l];
        kiln_scene_light *dst = &t->lights[l];
        dst->type = src->type == IR_LIGHT_SPOT    ? KILN_LIGHT_SPOT
                    : src->type == IR_LIGHT_POINT ? KILN_LIGHT_POINT
                                                  : KILN_LIGHT_DIRECTIONAL;
        memcpy(dst->color, src->color, sizeof dst->color);
        dst->intensity = src->intensity;
        dst->range = src->range;
        dst->inner_cone = dst->type == KILN_LIGHT_SPOT ? src->inner_cone : 0.0f;
        dst->outer_cone = dst->type == KILN_LIGHT_SPOT ? src->outer_cone : 0.0f;
        ok = string_table_add(&t->strings, src->name, &dst->name_offset, &dst->name_length);
    }
    return ok;
}

/* Lays the filled tables out as the container, chunks in kscene.md's order. */
static bool finish_container(const cook_context *ctx, const ir_asset *asset,
                             const write_scene_refs *refs, const scene_tables *t, bytebuf *out) {
    size_t n = asset->node_count;
    const kiln_scene_desc *desc = &t->desc;
    container_writer writer;
    container_begin(&writer, KILN_KIND_SCENE, KILN_SCENE_VERSION);
    container_set_compress(&writer, ctx->settings->container_compress);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_DESC, desc, sizeof *desc);
    container_add_chunk(&writer, KILN_CHUNK_META, t->meta.data, t->meta.size);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_HIERARCHY, t->hierarchy,
                        n * sizeof *t->hierarchy);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_TRANSFORMS, t->transforms,
                        n * sizeof *t->transforms);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_NODES, t->nodes, n * sizeof *t->nodes);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_MESHES, refs->meshes,
                        (size_t)asset->mesh_count * sizeof *refs->meshes);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_MATERIALS, refs->materials,
                        (size_t)desc->material_count * sizeof *refs->materials);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_SCENES, t->scenes,
                        (size_t)desc->scene_count * sizeof *t->scenes);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_ROOTS, t->roots.data, t->roots.size);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_STRINGS, t->strings.data, t->strings.size);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_CAMERAS, t->cameras,
                        (size_t)desc->camera_count * sizeof *t->cameras);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_LIGHTS, t->lights,
                        (size_t)desc->light_count * sizeof *t->lights);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_INSTANCES, t->instances.data, t->instances.size);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_INSTANCE_RANGES, t->ranges,
                        desc->instance_count > 0 ? n * sizeof *t->ranges : 0);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_SKINS, t->skins.data, t->skins.size);
    container_add_chunk(&writer, KILN_CHUNK_SCENE_JOINTS, t->joints.data, t->joints.size);
    if (t->links != NULL)
        container_add_chunk(&writer, KILN_CHUNK_SCENE_LINKS, t->links, n * sizeof *t->links);
    /* The source's extras: the file, its asset object, each scene. */
    extras_table extras = {0};
    extras_table_add(&extras, KILN_EXTRAS_DOCUMENT, 0, asset->document_extras);
    extras_table_add(&extras, KILN_EXTRAS_ASSET, 0, asset->asset_extras);
    for (uint32_t s = 0; s < asset->scene_count && s < desc->scene_count; s++)
        extras_table_add(&extras, KILN_EXTRAS_SCENE, s, asset->scenes[s].extras);
    bool ok = extras_table_chunk(&extras, &writer);
    extras_table_free(&extras);
    if (!ok) {
        container_abandon(&writer);
        return false;
    }
    return container_finish(&writer, out);
}

bool write_kscene_links(const cook_context *ctx, const ir_asset *asset, const uint64_t *mesh_refs,
                        uint64_t material_table, const char *importer,
                        const write_scene_link *links, bytebuf *out) {
    /* One source: its one table (if any) for every mesh. */
    int32_t *mesh_materials =
        malloc((asset->mesh_count ? asset->mesh_count : 1) * sizeof *mesh_materials);
    if (mesh_materials == NULL)
        return false;
    for (uint32_t m = 0; m < asset->mesh_count; m++)
        mesh_materials[m] = material_table != 0 ? 0 : -1;
    write_scene_refs refs = {.meshes = mesh_refs,
                             .materials = &material_table,
                             .material_count = material_table != 0,
                             .mesh_materials = mesh_materials};
    bool ok = write_kscene_refs(ctx, asset, &refs, importer, links, out);
    free(mesh_materials);
    return ok;
}

bool write_kscene_refs(const cook_context *ctx, const ir_asset *asset, const write_scene_refs *refs,
                       const char *importer, const write_scene_link *links, bytebuf *out) {
    scene_tables t = {.desc = {.node_count = asset->node_count,
                               .default_scene = 0,
                               .mesh_count = asset->mesh_count,
                               .material_count = refs->material_count,
                               .camera_count = asset->camera_count,
                               .light_count = asset->light_count,
                               .skin_count = asset->skin_count}};
    bool ok = scene_tables_alloc(&t, asset, links != NULL);
    if (ok) {
        fill_hierarchy(asset, &t);
        /* The string table in this order: nodes, scenes, cameras and lights,
         * skins, links. */
        ok = fill_nodes(asset, refs, &t) && fill_scenes(ctx, asset, &t) &&
             fill_cameras_and_lights(asset, &t) &&
             write_skins(asset, t.position, t.joint_parents, &t.skins, &t.joints, &t.strings) &&
             (links == NULL || fill_links(asset, links, t.position, t.links, &t.strings));
    }
    t.desc.instance_count = (uint32_t)(t.instances.size / sizeof(kiln_scene_transform));
    if (asset->scene_count > 0 && asset->default_scene < asset->scene_count)
        t.desc.default_scene = (int32_t)asset->default_scene;
    t.desc.root_count = (uint32_t)(t.roots.size / sizeof(uint32_t));
    t.desc.strings_size = (uint32_t)t.strings.size;
    write_metadata_json(ctx, importer, &t.meta);
    ok = ok && !t.roots.failed && !t.strings.failed && !t.meta.failed && !t.instances.failed;
    ok = ok && finish_container(ctx, asset, refs, &t, out);
    scene_tables_free(&t);
    return ok;
}
