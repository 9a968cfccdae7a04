/*
 * level_merge.c — a merged level (level.merge, or `merge: true` in the
 * .level): each placed model's nodes inlined below its entity's node instead
 * of an SLNK link, into one .kscene with one mesh table.
 *
 *   each placed model once: import it and shape its scene as the model
 *   driver does (driver_model_scene, the model's own settings) → the mesh
 *   table: every inlined model's mesh refs once, in order of first placement,
 *   and its material table → per entity placing one, the model's nodes
 *   appended, roots made the entity's children, mesh, camera, light, skin
 *   and instance indices moved to the merged tables → write_kscene_refs
 *
 * The meshes and materials stay the model's own cooked files: the merged
 * scene names them by ref hash, as the model's scene does. A model that
 * cannot be inlined keeps its link, with a warning saying why: one with
 * clips or morph weights (its .kanim targets its own scene's nodes), one
 * that has no scene, one whose import fails here (its own cook reports
 * the error).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/core/budget.h"
#include "cook/drivers/drivers.h"

/* Placements multiply a model's nodes: a few hundred bytes of level placing a
 * large model a million times must not allocate gigabytes. 2^24 nodes is far
 * past any real merged level; past it, the models stay linked. */
#define MERGE_MAX_NODES (1u << 24)

/* One placed model. */
typedef struct merged_model {
    const char *path;     /* the source, relative to the input folder */
    char ref[1024];       /* its source ref */
    ir_asset asset;       /* its scene as the model driver shapes it */
    bool inlined;         /* false: its entities keep their links */
    uint32_t mesh_base;   /* its first mesh in the merged table */
    int32_t table;        /* its material table in the merged SMTL, -1: none */
    uint32_t camera_base; /* its cameras, lights and instances in the merged tables */
    uint32_t light_base;
    uint32_t instance_base;
    bool *skinned; /* per mesh: it has joint streams (its vertices are freed once read) */
} merged_model;

typedef struct merge_state {
    const cook_request *request;
    cook_context *ctx;
    merged_model *models;
    uint32_t model_count;
    int32_t *model_of; /* per entity node: its model, -1 for none */
} merge_state;

/* The placed model's own settings (its kiln.yml rules and sidecar) when the
 * build gives them, else the level's. */
static const cook_settings *model_settings(const cook_request *request, const char *path) {
    const cook_settings *settings =
        request->settings_of != NULL ? request->settings_of(request->settings_user, path) : NULL;
    return settings != NULL ? settings : request->settings;
}

/* Moves what a placed model's import read into the level's lists: editing
 * its .bin or an image cooks the merged level again. */
static bool record_reads(cook_context *ctx, cook_context *child) {
    bool ok = true;
    strlist *from[] = {&child->dependencies, &child->absent, &child->references};
    strlist *to[] = {&ctx->dependencies, &ctx->absent, &ctx->references};
    for (size_t l = 0; l < 3; l++)
        for (size_t i = 0; ok && i < from[l]->count; i++)
            if (!strlist_contains(to[l], from[l]->items[i]))
                ok = strlist_push(to[l], from[l]->items[i]);
    for (size_t l = 0; l < 3; l++)
        strlist_free(from[l]);
    if (!ok)
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    return ok;
}

/* Only the scene is inlined: each mesh's vertices are freed once the model
 * is read (so one model's are held at a time), what the scene writer asks
 * of a mesh kept (whether it has joint streams). */
static bool keep_outline(cook_context *ctx, merged_model *m) {
    m->skinned = calloc(m->asset.mesh_count ? m->asset.mesh_count : 1, sizeof *m->skinned);
    if (m->skinned == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        return false;
    }
    for (uint32_t j = 0; j < m->asset.mesh_count; j++) {
        m->skinned[j] = m->asset.meshes[j].joints != NULL;
        ir_mesh_free(&m->asset.meshes[j]);
        memset(&m->asset.meshes[j], 0, sizeof m->asset.meshes[j]);
    }
    return true;
}

/* The text of the first error in `diag` (its warnings may come before),
 * without "path:line: error: ". */
static void first_error(const cook_diag *diag, char *out, size_t size) {
    static const char tag[] = ": error: ";
    size_t tag_length = sizeof tag - 1;
    const char *text = (const char *)diag->text.data;
    size_t length = diag->text.size, at = 0;
    while (at + tag_length <= length && memcmp(text + at, tag, tag_length) != 0)
        at++;
    if (at + tag_length > length) {
        snprintf(out, size, "no error given");
        return;
    }
    const char *found = text + at + tag_length;
    const char *stop = memchr(found, '\n', length - (at + tag_length));
    snprintf(out, size, "%.*s", (int)(stop != NULL ? stop - found : text + length - found), found);
}

/* Imports model `m` and shapes its scene; sets m->inlined, or warns (naming
 * the level `file` and `line` that first places it) why its link is kept.
 * False only for what fails the level (out of memory, out of time). */
static bool load_model(merge_state *s, merged_model *m, const char *file, uint32_t line) {
    cook_context *ctx = s->ctx;
    const cook_importer *importer = cook_registry_match(m->path);
    if (importer == NULL || importer->import == NULL ||
        cook_asset_ref(importer, m->path, m->ref, sizeof m->ref) != KILN_OK) {
        diag_warning(ctx->diag, file, line, "merge: '%s' is no model kiln imports; linked instead",
                     m->path);
        return true;
    }
    char reason[512] = "out of memory";
    uint8_t *bytes = NULL;
    size_t size = 0;
    char *full = cook_path_join(ctx->input_root, m->path);
    if (full == NULL ||
        !cook_read_file(full, COOK_SOURCE_MAX_BYTES, &bytes, &size, reason, sizeof reason)) {
        free(full);
        diag_warning(ctx->diag, file, line, "merge: cannot read '%s' (%s); linked instead", m->path,
                     reason);
        return true;
    }
    free(full);
    /* Its own messages are its own cook's: kept apart, the first error
     * quoted when it cannot be inlined. */
    cook_diag messages = {0};
    cook_context child = {
        .input_root = ctx->input_root,
        .source_path = m->path,
        .ref = m->ref,
        .source = bytes,
        .source_size = size,
        .settings = model_settings(s->request, m->path),
        .diag = &messages,
        .activity = ctx->activity,
    };
    bool has_scene = false;
    bool imported = import_run(&child, importer->import, &m->asset) && messages.errors == 0 &&
                    driver_model_scene(&child, &m->asset, &has_scene) && messages.errors == 0;
    free(bytes);
    bool ok = record_reads(ctx, &child) && cook_budget_check(ctx);
    char first[512];
    first_error(&messages, first, sizeof first);
    diag_free(&messages);
    if (!ok)
        return false;
    if (!imported)
        diag_warning(ctx->diag, file, line, "merge: '%s' cannot be imported (%s); linked instead",
                     m->path, first);
    else if (!has_scene)
        diag_warning(ctx->diag, file, line,
                     "merge: '%s' has nothing to place (no meshes, cameras or lights); linked "
                     "instead",
                     m->path);
    else if (m->asset.animation_count > 0 || driver_model_has_morph_nodes(&m->asset))
        diag_warning(ctx->diag, file, line,
                     "merge: '%s' has animations or morph weights, whose .kanim targets its own "
                     "scene's nodes; linked instead",
                     m->path);
    else
        m->inlined = true;
    return !m->inlined || keep_outline(ctx, m);
}

static int compare_paths(const void *a, const void *b) {
    const level_placement *x = *(const level_placement *const *)a;
    const level_placement *y = *(const level_placement *const *)b;
    return strcmp(x->model, y->model);
}

/* The distinct models, in order of first placement (node order), and each
 * node's model; every one loaded. */
static bool collect_models(merge_state *s, const level_placement *placed, uint32_t count) {
    cook_context *ctx = s->ctx;
    size_t slots = count ? count : 1;
    const level_placement **sorted = malloc(slots * sizeof *sorted);
    uint32_t *first_of = malloc(slots * sizeof *first_of); /* the first node placing the same */
    s->model_of = malloc(slots * sizeof *s->model_of);
    s->models = calloc(slots, sizeof *s->models);
    bool ok = sorted != NULL && first_of != NULL && s->model_of != NULL && s->models != NULL;
    if (!ok)
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    uint32_t placed_count = 0;
    for (uint32_t k = 0; ok && k < count; k++)
        if (placed[k].model != NULL)
            sorted[placed_count++] = &placed[k];
    if (ok)
        qsort(sorted, placed_count, sizeof *sorted, compare_paths);
    for (uint32_t i = 0; ok && i < placed_count;) {
        uint32_t end = i, first = (uint32_t)(sorted[i] - placed);
        for (; end < placed_count && strcmp(sorted[end]->model, sorted[i]->model) == 0; end++)
            if ((uint32_t)(sorted[end] - placed) < first)
                first = (uint32_t)(sorted[end] - placed);
        for (; i < end; i++)
            first_of[sorted[i] - placed] = first;
    }
    for (uint32_t k = 0; ok && k < count; k++) {
        s->model_of[k] = -1;
        if (placed[k].model == NULL)
            continue;
        if (first_of[k] < k) {
            s->model_of[k] = s->model_of[first_of[k]];
            continue;
        }
        merged_model *m = &s->models[s->model_count];
        m->path = placed[k].model;
        m->table = -1;
        s->model_of[k] = (int32_t)s->model_count++;
        ok = load_model(s, m, placed[k].file, placed[k].line);
    }
    free(sorted);
    free(first_of);
    return ok;
}

/* The merged tables' sizes, each inlined model's bases, its mesh refs and
 * material table. */
typedef struct merged_tables {
    ir_asset asset; /* borrows names, extras, matrices from the models */
    uint64_t *mesh_refs;
    uint64_t *tables;
    int32_t *mesh_tables;
    uint32_t table_count;
} merged_tables;

static void merged_tables_free(merged_tables *t) {
    free(t->asset.nodes);
    free(t->asset.meshes);
    free(t->asset.cameras);
    free(t->asset.lights);
    free(t->asset.instances);
    for (uint32_t i = 0; t->asset.skins != NULL && i < t->asset.skin_count; i++)
        free(t->asset.skins[i].joints);
    free(t->asset.skins);
    free(t->mesh_refs);
    free(t->tables);
    free(t->mesh_tables);
}

/* Sizes every table and fills the model-wide ones: meshes (refs, tables),
 * cameras, lights, instances. */
static bool size_tables(merge_state *s, const ir_node *nodes, uint32_t count, merged_tables *t) {
    uint64_t node_total = count, meshes = 0, cameras = 0, lights = 0, instances = 0, skins = 0;
    for (uint32_t i = 0; i < s->model_count; i++) {
        merged_model *m = &s->models[i];
        if (!m->inlined)
            continue;
        m->mesh_base = (uint32_t)meshes;
        m->camera_base = (uint32_t)cameras;
        m->light_base = (uint32_t)lights;
        m->instance_base = (uint32_t)instances;
        meshes += m->asset.mesh_count;
        cameras += m->asset.camera_count;
        lights += m->asset.light_count;
        instances += m->asset.instance_count;
        if (driver_model_material_table(m->ref, &m->asset) != 0)
            m->table = (int32_t)t->table_count++;
    }
    for (uint32_t k = 0; k < count; k++) {
        if (s->model_of[k] >= 0 && s->models[s->model_of[k]].inlined) {
            node_total += s->models[s->model_of[k]].asset.node_count;
            skins += s->models[s->model_of[k]].asset.skin_count;
        }
    }
    if (node_total > MERGE_MAX_NODES || meshes > INT32_MAX || cameras > INT32_MAX ||
        lights > INT32_MAX || instances > UINT32_MAX || skins > MERGE_MAX_NODES) {
        diag_error(s->ctx->diag, s->ctx->source_path, 0,
                   "merge: the merged scene would have %llu nodes and %llu skins; at most %u "
                   "each are merged (set merge: false to link the models instead)",
                   (unsigned long long)node_total, (unsigned long long)skins, MERGE_MAX_NODES);
        return false;
    }
    ir_asset *a = &t->asset;
    a->nodes = calloc(node_total ? node_total : 1, sizeof *a->nodes);
    a->meshes = calloc(meshes ? meshes : 1, sizeof *a->meshes);
    a->cameras = calloc(cameras ? cameras : 1, sizeof *a->cameras);
    a->lights = calloc(lights ? lights : 1, sizeof *a->lights);
    a->instances = calloc(instances ? instances : 1, sizeof *a->instances);
    a->skins = calloc(skins ? skins : 1, sizeof *a->skins);
    t->mesh_refs = calloc(meshes ? meshes : 1, sizeof *t->mesh_refs);
    t->mesh_tables = calloc(meshes ? meshes : 1, sizeof *t->mesh_tables);
    t->tables = calloc(t->table_count ? t->table_count : 1, sizeof *t->tables);
    if (!a->nodes || !a->meshes || !a->cameras || !a->lights || !a->instances || !a->skins ||
        !t->mesh_refs || !t->mesh_tables || !t->tables) {
        diag_error(s->ctx->diag, s->ctx->source_path, 0, "out of memory");
        return false;
    }
    for (uint32_t k = 0; k < count; k++)
        a->nodes[a->node_count++] = nodes[k];
    for (uint32_t i = 0; i < s->model_count; i++) {
        const merged_model *m = &s->models[i];
        if (!m->inlined)
            continue;
        const ir_asset *src = &m->asset;
        for (uint32_t j = 0; j < src->mesh_count; j++) {
            char ref[1200];
            driver_mesh_ref(m->ref, src->mesh_count, j, ref, sizeof ref);
            t->mesh_refs[a->mesh_count] = kiln_ref_hash(ref);
            t->mesh_tables[a->mesh_count] = m->table;
            /* The writer marks a node SKINNED when its mesh has joints: any
             * non-NULL pointer says so (it is never read through). */
            static uint16_t has_joints;
            a->meshes[a->mesh_count++].joints = m->skinned[j] ? &has_joints : NULL;
        }
        if (m->table >= 0)
            t->tables[m->table] = driver_model_material_table(m->ref, src);
        for (uint32_t c = 0; c < src->camera_count; c++)
            a->cameras[a->camera_count++] = src->cameras[c];
        for (uint32_t l = 0; l < src->light_count; l++)
            a->lights[a->light_count++] = src->lights[l];
        for (uint32_t e = 0; e < src->instance_count; e++)
            a->instances[a->instance_count++] = src->instances[e];
    }
    return true;
}

static int32_t moved(int32_t index, uint32_t base) {
    return index >= 0 ? index + (int32_t)base : -1;
}

/* Appends model `m`'s nodes below entity node `entity`, and its skins (one
 * copy per placement: joints are nodes). */
static bool inline_model(merged_tables *t, const merged_model *m, uint32_t entity) {
    ir_asset *a = &t->asset;
    const ir_asset *src = &m->asset;
    uint32_t base = a->node_count, skin_base = a->skin_count;
    for (uint32_t j = 0; j < src->node_count; j++) {
        ir_node node = src->nodes[j];
        node.parent = node.parent >= 0 ? node.parent + (int32_t)base : (int32_t)entity;
        node.mesh = moved(node.mesh, m->mesh_base);
        node.camera = moved(node.camera, m->camera_base);
        node.light = moved(node.light, m->light_base);
        node.skin = moved(node.skin, skin_base);
        if (node.instance_count > 0)
            node.instance_offset += m->instance_base;
        node.weight_count = 0; /* a model with morph weights stays linked */
        node.weights = NULL;
        a->nodes[a->node_count++] = node;
    }
    for (uint32_t k = 0; k < src->skin_count; k++) {
        ir_skin skin = src->skins[k];
        skin.joints = malloc(skin.joint_count * sizeof *skin.joints);
        if (skin.joints == NULL)
            return false;
        for (uint32_t j = 0; j < skin.joint_count; j++)
            skin.joints[j] = src->skins[k].joints[j] + base;
        skin.skeleton = moved(skin.skeleton, base);
        a->skins[a->skin_count++] = skin;
    }
    return true;
}

bool level_merge_scene(const cook_request *request, cook_context *ctx, const ir_node *nodes,
                       uint32_t count, write_scene_link *links, const level_placement *placed,
                       bytebuf *out) {
    merge_state s = {.request = request, .ctx = ctx};
    merged_tables t = {0};
    bool ok = collect_models(&s, placed, count) && size_tables(&s, nodes, count, &t);
    for (uint32_t k = 0; ok && k < count; k++) {
        if (s.model_of[k] < 0 || !s.models[s.model_of[k]].inlined)
            continue;
        links[k].scene_ref = NULL; /* inlined: nothing to follow */
        if (!inline_model(&t, &s.models[s.model_of[k]], k)) {
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
            ok = false;
        }
    }
    /* The inlined nodes link nothing and carry no components. */
    write_scene_link *all_links = ok ? calloc(t.asset.node_count, sizeof *all_links) : NULL;
    if (ok && all_links == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        ok = false;
    }
    for (uint32_t k = 0; ok && k < count; k++)
        all_links[k] = links[k];
    write_scene_refs refs = {.meshes = t.mesh_refs,
                             .materials = t.tables,
                             .material_count = t.table_count,
                             .mesh_materials = t.mesh_tables};
    if (ok && !write_kscene_refs(ctx, &t.asset, &refs, request->importer->name, all_links, out)) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory encoding the level's scene");
        ok = false;
    }
    free(all_links);
    merged_tables_free(&t);
    for (uint32_t i = 0; i < s.model_count; i++) {
        ir_asset_free(&s.models[i].asset);
        free(s.models[i].skinned);
    }
    free(s.models);
    free(s.model_of);
    return ok;
}
