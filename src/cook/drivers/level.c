/*
 * level.c — the level driver: a `*.level` file (import/level.h) and the
 * levels it includes into one .kscene (docs/formats/kscene.md, SLNK).
 *
 *   parse the level, then each include (relative to the level naming it;
 *   each file once, a cycle is an error) → entities of the includes first, in
 *   include order, then the level's own → names unique, parents known and
 *   acyclic → assets and component refs resolved (relative to the input
 *   folder; each must be a source kiln cooks, an asset a model) → one node
 *   per entity, ordered by depth, linking its model's scene (or, merged,
 *   with the model's nodes inlined below it: level_merge.c)
 *
 * Every file a level names is recorded: includes as dependencies, assets and
 * component refs as references and as dependencies (so that removing,
 * creating or editing one cooks the level again), and a path looked for and
 * not found as absent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "cook/drivers/drivers.h"
#include "cook/import/level.h"

typedef struct level_file {
    char *path; /* relative to the input root */
    level_doc doc;
} level_file;

typedef struct level_build {
    cook_context *ctx;
    const char *current; /* the file being parsed, for the ref resolver */
    level_file *files;   /* every file read, includes before their includer */
    uint32_t file_count;
    size_t file_cap;
    strlist chain; /* the includes being read, outermost first */
} level_build;

/* The canonical ref of what `root_relative` cooks to that a level names: a
 * model's or level's scene, any other asset's own ref. */
static bool asset_ref(const char *root_relative, const cook_importer *importer, char *out,
                      size_t size) {
    if (kiln_ref_canonicalize(root_relative, out, size) != KILN_OK)
        return false;
    if (importer->kind == COOK_KIND_MODEL || importer->kind == COOK_KIND_LEVEL) {
        size_t length = strlen(out);
        if (length + sizeof "/scene" > size)
            return false;
        memcpy(out + length, "/scene", sizeof "/scene");
    }
    return true;
}

/* Resolves an asset a level at `level_path` names on `line`: relative to the
 * input folder, a source kiln cooks (a model when `model_only`). Records it
 * and writes its canonical ref, and its path relative to the input folder
 * into *source (unless NULL; the caller frees); false after an error naming
 * level:line. */
static bool resolve_asset(level_build *b, const char *level_path, const char *path, uint32_t line,
                          bool model_only, char *ref, size_t ref_size, char **source) {
    cook_context *ctx = b->ctx;
    const cook_importer *importer = cook_registry_match(path);
    if (importer == NULL) {
        diag_error(ctx->diag, level_path, line, "ref '%s': kiln cooks no asset from such a file",
                   path);
        return false;
    }
    if (model_only && importer->kind != COOK_KIND_MODEL) {
        diag_error(ctx->diag, level_path, line,
                   "asset '%s' is not a model (kiln cooks it with its %s driver); an entity "
                   "places a model (use include: for a level)",
                   path, importer->name);
        return false;
    }
    char reason[512];
    char *resolved = NULL;
    if (!cook_add_reference_from(ctx, "", path, &resolved, reason, sizeof reason)) {
        diag_error(ctx->diag, level_path, line, "ref '%s': %s", path, reason);
        return false;
    }
    /* A folder asset (a cubemap) has no bytes to stamp: a reference only. */
    bool ok = true;
    if (!importer->folder && !strlist_contains(&ctx->dependencies, resolved))
        ok = strlist_push(&ctx->dependencies, resolved);
    if (ok && !asset_ref(resolved, importer, ref, ref_size)) {
        diag_error(ctx->diag, level_path, line, "ref '%s': cannot form an asset ref from it", path);
        ok = false;
    } else if (!ok) {
        diag_error(ctx->diag, level_path, line, "out of memory");
    }
    if (ok && source != NULL)
        *source = resolved;
    else
        free(resolved);
    return ok;
}

static bool resolve_component_ref(void *user, const char *path, uint32_t line, uint64_t *hash) {
    level_build *b = user;
    char ref[1200];
    if (!resolve_asset(b, b->current, path, line, false, ref, sizeof ref, NULL))
        return false;
    *hash = kiln_ref_hash(ref);
    return true;
}

static bool file_known(const level_build *b, const char *path) {
    for (uint32_t i = 0; i < b->file_count; i++)
        if (strcmp(b->files[i].path, path) == 0)
            return true;
    return false;
}

/* Parses the level `path` (its bytes given) and, first, everything it
 * includes; appends each file after its includes. */
static bool load_level(level_build *b, const char *path, const uint8_t *bytes, size_t size,
                       uint32_t depth) {
    cook_context *ctx = b->ctx;
    level_doc doc;
    const char *previous = b->current;
    b->current = path;
    bool ok = level_parse(bytes, size, path, ctx->diag, resolve_component_ref, b, &doc);
    b->current = previous;
    ok = ok && strlist_push(&b->chain, path);
    for (uint32_t i = 0; ok && i < doc.include_count; i++) {
        const level_include *inc = &doc.includes[i];
        char reason[512];
        char *resolved = NULL;
        const cook_importer *importer = cook_registry_match(inc->path);
        if (importer == NULL || importer->kind != COOK_KIND_LEVEL) {
            diag_error(ctx->diag, path, inc->line, "include '%s' is not a level (*.level)",
                       inc->path);
            ok = false;
            break;
        }
        if (!cook_resolve_dependency_from(ctx, path, inc->path, &resolved, reason, sizeof reason)) {
            diag_error(ctx->diag, path, inc->line, "include '%s': %s", inc->path, reason);
            ok = false;
            break;
        }
        if (strlist_contains(&b->chain, resolved)) {
            bytebuf cycle = {0};
            for (size_t c = 0; c < b->chain.count; c++)
                bytebuf_printf(&cycle, "%s -> ", b->chain.items[c]);
            bytebuf_printf(&cycle, "%s", resolved);
            bytebuf_append_zeros(&cycle, 1);
            diag_error(ctx->diag, path, inc->line, "include cycle: %s",
                       cycle.failed ? resolved : (const char *)cycle.data);
            bytebuf_free(&cycle);
            ok = false;
        } else if (file_known(b, resolved)) {
            /* already added through another include: its entities once */
        } else if (depth + 1 > LEVEL_MAX_INCLUDE_DEPTH) {
            diag_error(ctx->diag, path, inc->line, "includes nest deeper than %u levels",
                       LEVEL_MAX_INCLUDE_DEPTH);
            ok = false;
        } else {
            char *full = cook_path_join(ctx->input_root, resolved);
            uint8_t *data = NULL;
            size_t data_size = 0;
            if (full == NULL ||
                !cook_read_file(full, LEVEL_MAX_BYTES, &data, &data_size, reason, sizeof reason)) {
                diag_error(ctx->diag, path, inc->line, "include '%s': %s", inc->path,
                           full ? reason : "out of memory");
                ok = false;
            } else {
                ok = load_level(b, resolved, data, data_size, depth + 1);
            }
            free(data);
            free(full);
        }
        free(resolved);
    }
    if (b->chain.count > 0 && strcmp(b->chain.items[b->chain.count - 1], path) == 0)
        free(b->chain.items[--b->chain.count]);
    if (ok) {
        level_file *files =
            array_grow(b->files, &b->file_cap, (size_t)b->file_count + 1, sizeof *files, 4);
        ok = files != NULL;
        if (ok)
            b->files = files;
    }
    char *copy = ok ? cook_strdup(path) : NULL;
    if (copy == NULL) {
        level_doc_free(&doc);
        return false;
    }
    b->files[b->file_count++] = (level_file){copy, doc};
    return true;
}

/* One entity of the merged level, and the file it came from. */
typedef struct level_item {
    const level_entity *entity;
    const char *file;
    uint32_t order; /* its place among all entities */
} level_item;

static int compare_items_by_name(const void *a, const void *b) {
    const level_item *x = a, *y = b;
    int c = strcmp(x->entity->name, y->entity->name);
    return c != 0 ? c : (x->order > y->order) - (x->order < y->order);
}

/* The index (in `items` order) of the entity named `name`, via `by_name`. */
static int64_t find_entity(const level_item *by_name, uint32_t count, const char *name) {
    uint32_t low = 0, high = count;
    while (low < high) {
        uint32_t mid = low + (high - low) / 2;
        if (strcmp(by_name[mid].entity->name, name) < 0)
            low = mid + 1;
        else
            high = mid;
    }
    return low < count && strcmp(by_name[low].entity->name, name) == 0 ? (int64_t)by_name[low].order
                                                                       : -1;
}

/* Names unique, parents known, no parent cycle: parent[i] (-1 for a root) and
 * depth[i] of every item. */
static bool link_parents(cook_context *ctx, const level_item *items, uint32_t count,
                         int64_t *parent, uint32_t *depth) {
    level_item *by_name = malloc((count ? count : 1) * sizeof *by_name);
    uint8_t *state = calloc(count ? count : 1, 1); /* 0 new, 1 on the walk, 2 done */
    uint32_t *walk = malloc((count ? count : 1) * sizeof *walk);
    if (by_name == NULL || state == NULL || walk == NULL) {
        free(by_name);
        free(state);
        free(walk);
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        return false;
    }
    bool ok = true;
    if (count > 0)
        memcpy(by_name, items, count * sizeof *items);
    qsort(by_name, count, sizeof *by_name, compare_items_by_name);
    for (uint32_t i = 1; i < count; i++) {
        if (strcmp(by_name[i].entity->name, by_name[i - 1].entity->name) == 0) {
            diag_error(ctx->diag, by_name[i].file, by_name[i].entity->line,
                       "entity name '%s' is already used at %s:%u", by_name[i].entity->name,
                       by_name[i - 1].file, (unsigned)by_name[i - 1].entity->line);
            ok = false;
        }
    }
    for (uint32_t i = 0; ok && i < count; i++) {
        const level_entity *e = items[i].entity;
        parent[i] = e->parent != NULL ? find_entity(by_name, count, e->parent) : -1;
        if (e->parent != NULL && parent[i] < 0) {
            diag_error(ctx->diag, items[i].file, e->parent_line,
                       "entity '%s': parent '%s' is no entity of the level", e->name, e->parent);
            ok = false;
        }
    }
    /* Depths, walking up from each entity to a known one; meeting the walk
     * again is a cycle. */
    for (uint32_t i = 0; ok && i < count; i++) {
        uint32_t length = 0;
        int64_t at = i;
        while (at >= 0 && state[at] == 0) {
            state[at] = 1;
            walk[length++] = (uint32_t)at;
            at = parent[at];
        }
        if (at >= 0 && state[at] == 1) {
            const level_item *item = &items[at];
            diag_error(ctx->diag, item->file, item->entity->parent_line,
                       "entity '%s' is its own ancestor (a cycle of parents)", item->entity->name);
            ok = false;
            break;
        }
        uint32_t base = at >= 0 ? depth[at] + 1 : 0;
        while (length > 0) {
            uint32_t node = walk[--length];
            depth[node] = base++;
            state[node] = 2;
        }
    }
    free(by_name);
    free(state);
    free(walk);
    return ok;
}

/* order[k] = the item placed k-th, position[i] = where item i is placed:
 * by depth, then item order. A counting sort, linear in count: a pass over
 * every item per depth made a chain of 200,000 parents take 26 s. */
static bool order_by_depth(cook_context *ctx, const uint32_t *depth, uint32_t count,
                           uint32_t *order, uint32_t *position) {
    uint32_t max_depth = 0;
    for (uint32_t i = 0; i < count; i++)
        max_depth = depth[i] > max_depth ? depth[i] : max_depth;
    /* Depths are below count (each has a parent one less), so this fits. */
    uint32_t *first_of_depth = calloc((size_t)max_depth + 2, sizeof *first_of_depth);
    if (first_of_depth == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < count; i++)
        first_of_depth[depth[i] + 1]++;
    for (uint32_t d = 1; d <= max_depth + 1; d++)
        first_of_depth[d] += first_of_depth[d - 1];
    for (uint32_t i = 0; i < count; i++) {
        uint32_t placed = first_of_depth[depth[i]]++;
        position[i] = placed;
        order[placed] = i;
    }
    free(first_of_depth);
    return true;
}

bool cook_level_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result) {
    cook_stage_enter(ctx, COOK_STAGE_IMPORT);
    double clock = cook_clock();
    level_build b = {.ctx = ctx};
    bool ok = load_level(&b, ctx->source_path, ctx->source, ctx->source_size, 0) &&
              ctx->diag->errors == 0;
    uint32_t count = 0;
    for (uint32_t f = 0; f < b.file_count; f++)
        count += b.files[f].doc.entity_count;
    size_t slots = count ? count : 1;
    level_item *items = calloc(slots, sizeof *items);
    int64_t *parent = calloc(slots, sizeof *parent);
    uint32_t *depth = calloc(slots, sizeof *depth);
    char **scene_refs = calloc(slots, sizeof *scene_refs);
    char **models = calloc(slots, sizeof *models); /* each entity's model source */
    uint32_t *order = calloc(slots, sizeof *order);
    uint32_t *position = calloc(slots, sizeof *position);
    ir_node *nodes = calloc(slots, sizeof *nodes);
    write_scene_link *links = calloc(slots, sizeof *links);
    level_placement *placed = calloc(slots, sizeof *placed);
    if (ok &&
        (items == NULL || parent == NULL || depth == NULL || scene_refs == NULL || models == NULL ||
         order == NULL || position == NULL || nodes == NULL || links == NULL || placed == NULL)) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        ok = false;
    }
    uint32_t at = 0;
    for (uint32_t f = 0; ok && f < b.file_count; f++)
        for (uint32_t e = 0; e < b.files[f].doc.entity_count; e++, at++)
            items[at] = (level_item){&b.files[f].doc.entities[e], b.files[f].path, at};
    ok = ok && link_parents(ctx, items, count, parent, depth);
    for (uint32_t i = 0; ok && i < count; i++) {
        const level_entity *e = items[i].entity;
        if (e->asset == NULL)
            continue;
        char ref[1200];
        if (!resolve_asset(&b, items[i].file, e->asset, e->asset_line, true, ref, sizeof ref,
                           &models[i]))
            ok = false;
        else if ((scene_refs[i] = cook_strdup(ref)) == NULL)
            ok = false;
    }
    ok = ok && ctx->diag->errors == 0;
    /* The level's own merge: key, else level.merge (an included level's key
     * is for that level's own scene). */
    const level_doc *own = b.file_count > 0 ? &b.files[b.file_count - 1].doc : NULL;
    bool merge = own != NULL && own->merge_line != 0
                     ? own->merge
                     : request->settings != NULL && request->settings->level_merge;
    cook_stage_add(result, COOK_STAGE_IMPORT, clock);
    /* Nodes by depth, then entity order: parents before children. */
    ok = ok && order_by_depth(ctx, depth, count, order, position);
    for (uint32_t k = 0; ok && k < count; k++) {
        uint32_t i = order[k];
        const level_entity *e = items[i].entity;
        ir_node_init(&nodes[k]);
        nodes[k].name = e->name;
        nodes[k].parent = parent[i] >= 0 ? (int32_t)position[parent[i]] : -1;
        memcpy(nodes[k].translation, e->translation, sizeof e->translation);
        memcpy(nodes[k].rotation, e->rotation, sizeof e->rotation);
        memcpy(nodes[k].scale, e->scale, sizeof e->scale);
        links[k] = (write_scene_link){scene_refs[i], e->components};
        placed[k] = (level_placement){models[i], items[i].file, e->asset_line};
    }
    if (ok) {
        driver_output out;
        ok = driver_output_begin(ctx, COOK_STAGE_WRITE, ".kscene", &out);
        ir_asset asset = {.nodes = nodes, .node_count = count};
        uint64_t no_mesh = 0;
        bytebuf bytes = {0};
        char ref[1200];
        snprintf(ref, sizeof ref, "%s/scene", ctx->ref);
        if (ok && merge) {
            ok = level_merge_scene(request, ctx, nodes, count, links, placed, &bytes);
        } else if (ok && !write_kscene_links(ctx, &asset, &no_mesh, 0, request->importer->name,
                                             links, &bytes)) {
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory encoding the level's scene");
            ok = false;
        }
        if (ok)
            ok = driver_output_emit(request, ctx, &out, KILN_ASSET_SCENE, ref, &bytes, result);
        bytebuf_free(&bytes);
        ok = driver_output_end(&out, result, ok);
    }
    for (uint32_t i = 0; scene_refs != NULL && models != NULL && i < count; i++) {
        free(scene_refs[i]);
        free(models[i]);
    }
    free(models);
    free(placed);
    for (uint32_t f = 0; f < b.file_count; f++) {
        free(b.files[f].path);
        level_doc_free(&b.files[f].doc);
    }
    free(b.files);
    strlist_free(&b.chain);
    free(items);
    free(parent);
    free(depth);
    free(scene_refs);
    free(order);
    free(position);
    free(nodes);
    free(links);
    return ok;
}
