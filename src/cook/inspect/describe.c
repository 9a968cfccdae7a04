/*
 * describe.c — `kiln info`: what one cooked file holds, read through the
 * runtime's views into an inspect_report (inspect.h); the CLI prints it as
 * text or JSON.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cook/core/core.h"
#include "cook/inspect/inspect.h"

static const char *file_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

static void summarize_mesh(const kiln_mesh_view *view, inspect_report *report) {
    const kiln_mesh_desc *desc = view->desc;
    for (uint32_t s = 0; s < desc->submesh_count; s++) {
        /* A valid view has known topologies only. */
        kiln_topology topology = (kiln_topology)view->submeshes[s].topology;
        uint32_t size = kiln_topology_index_count(topology);
        report->topology_submeshes[topology]++;
        for (uint32_t level = 0; level < desc->lod_count; level++) {
            const kiln_lod *lod = kiln_mesh_lod(view, s, level);
            report->lod_primitives[topology][level] += lod->index_count / size;
            report->lods_reused += (lod->flags & KILN_LOD_FLAG_REUSED) != 0;
        }
    }
    report->vertex_bytes = view->vertex_bytes;
    report->index_bytes = view->index_bytes;
    uint32_t per_target = 0;
    for (uint32_t bit = 1; bit <= KILN_MORPH_TANGENT; bit <<= 1)
        per_target += (desc->morph_attributes & bit) != 0;
    report->morph_bytes = (uint64_t)desc->morph_target_count * per_target * desc->vertex_count * 12;
    size_t at = 0;
    report->morph_names_shown = 0;
    for (uint32_t t = 0; t < desc->morph_target_count; t++) {
        const char *name = kiln_mesh_morph_target_name(view, t);
        size_t length = name != NULL ? strlen(name) : 0;
        if (at + length + 1 > sizeof report->morph_names)
            break;
        memcpy(report->morph_names + at, name != NULL ? name : "", length);
        report->morph_names[at + length] = '\0';
        at += length + 1;
        report->morph_names_shown++;
    }
    report->meshlet_bytes = (uint64_t)desc->meshlet_count * sizeof(kiln_meshlet) +
                            (uint64_t)desc->meshlet_vertex_count * sizeof(uint32_t) +
                            (uint64_t)desc->meshlet_triangle_count * 3;
}

/* The "source" a cooked file's metadata names, into report->source. */
/* The "source" of the META chunk, "" when there is none. */
static void read_source(const kiln_file *file, inspect_report *report) {
    size_t meta_size = 0;
    const char *meta = kiln_file_metadata(file, &meta_size);
    json_t *parsed = meta != NULL ? json_loadb(meta, meta_size, 0, NULL) : NULL;
    const char *source = json_string_value(json_object_get(parsed, "source"));
    snprintf(report->source, sizeof report->source, "%s", source != NULL ? source : "");
    json_decref(parsed);
}

static size_t append_item(char *out, size_t size, size_t used, const char *text);

static const char *const slot_names[KILN_MATERIAL_SLOT_COUNT] = {
    "base_color", "metallic_roughness", "normal", "occlusion", "emissive", "alpha"};

void inspect_extras_label(kiln_extras_object object, uint32_t index, char *out, size_t size) {
    switch (object) {
    case KILN_EXTRAS_DOCUMENT:
        snprintf(out, size, "document");
        break;
    case KILN_EXTRAS_ASSET:
        snprintf(out, size, "asset");
        break;
    case KILN_EXTRAS_SCENE:
        snprintf(out, size, "scene %" PRIu32, index);
        break;
    case KILN_EXTRAS_MESH:
        snprintf(out, size, "mesh");
        break;
    case KILN_EXTRAS_MATERIAL:
        snprintf(out, size, "material %" PRIu32, index);
        break;
    case KILN_EXTRAS_TEXTURE:
        snprintf(out, size, "texture %" PRIu32 "/%s", index / KILN_MATERIAL_SLOT_COUNT,
                 slot_names[index % KILN_MATERIAL_SLOT_COUNT]);
        break;
    case KILN_EXTRAS_IMAGE:
        snprintf(out, size, "image %" PRIu32 "/%s", index / KILN_MATERIAL_SLOT_COUNT,
                 slot_names[index % KILN_MATERIAL_SLOT_COUNT]);
        break;
    default:
        snprintf(out, size, "object %u %" PRIu32, (unsigned)object, index);
        break;
    }
}

/* The XTRA entries (container.md): each object's label with what it carries
 * ("extras" and the unknown extensions' names), and all of them as JSON. */
static void read_extras(const kiln_file *file, inspect_report *report) {
    json_t *all = json_object();
    size_t used = 0;
    kiln_extras_object object;
    uint32_t index;
    size_t length;
    const char *text;
    for (uint32_t i = 0; (text = kiln_file_extras_entry(file, i, &object, &index, &length)) != NULL;
         i++) {
        char label[64], item[256];
        inspect_extras_label(object, index, label, sizeof label);
        json_t *parsed = json_loadb(text, length, 0, NULL);
        size_t at = (size_t)snprintf(item, sizeof item, "%s (", label);
        const char *separator = "";
        if (json_object_get(parsed, "extras") != NULL) {
            at += (size_t)snprintf(item + at, sizeof item - at, "extras");
            separator = ", ";
        }
        const char *name;
        json_t *value;
        json_object_foreach(json_object_get(parsed, "extensions"), name, value) {
            if (at < sizeof item)
                at += (size_t)snprintf(item + at, sizeof item - at, "%s%s", separator,
                                       cook_escaped(name));
            separator = ", ";
        }
        if (at < sizeof item)
            snprintf(item + at, sizeof item - at, ")");
        if (used < sizeof report->extras)
            used = append_item(report->extras, sizeof report->extras, used, item);
        if (all != NULL && parsed != NULL)
            json_object_set(all, label, parsed);
        json_decref(parsed);
        report->extras_count++;
    }
    if (all != NULL && report->extras_count > 0)
        report->extras_json = json_dumps(all, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(all);
}

static void inspect_mesh(const char *full_path, inspect_report *report) {
    kiln_file file;
    kiln_error error;
    kiln_result result = kiln_file_map_expanded(&file, full_path, 0, &error);
    if (result == KILN_OK) {
        kiln_mesh_view view;
        result = kiln_mesh_view_get(&file, 0, &view, &error);
        if (result == KILN_OK) {
            report->readable = true;
            report->mesh = *view.desc;
            report->attribute_count = view.desc->attribute_count;
            if (report->attribute_count > KILN_SEMANTIC_COUNT_)
                report->attribute_count = KILN_SEMANTIC_COUNT_; /* semantics never repeat */
            memcpy(report->attributes, view.attributes,
                   report->attribute_count * sizeof report->attributes[0]);
            summarize_mesh(&view, report);
            read_source(&file, report);
            read_extras(&file, report);
        }
        kiln_file_close(&file);
    }
    if (result != KILN_OK)
        snprintf(report->problem, sizeof report->problem, "%s",
                 inspect_error_detail(&error, full_path));
}

static void inspect_manifest(const char *full_path, inspect_report *report) {
    kiln_file file;
    kiln_error error;
    kiln_manifest_view view;
    kiln_result result = kiln_file_map_expanded(&file, full_path, 0, &error);
    if (result == KILN_OK) {
        result = kiln_manifest_view_get(&file, &view, &error);
        if (result == KILN_OK) {
            report->readable = true;
            report->ref_count = view.entry_count;
            report->asset_id_count = view.id_count;
            for (uint32_t i = 0; i < view.entry_count; i++) {
                report->refs_per_kind[view.entries[i].kind]++;
                report->refs_per_color_space[view.entries[i].color_space]++;
            }
        }
        kiln_file_close(&file);
    }
    if (result != KILN_OK)
        snprintf(report->problem, sizeof report->problem, "%s",
                 inspect_error_detail(&error, full_path));
}

/* Row `row`'s name for a list: its own, or "#row". */
static void row_label(const kiln_material_view *view, uint32_t row, char *out, size_t size) {
    const char *name = kiln_material_name(view, row);
    if (name[0] != '\0')
        snprintf(out, size, "%s", name);
    else
        snprintf(out, size, "#%" PRIu32, row);
}

/* Appends ", text" (no comma first) to out[used..size) when it fits. */
static size_t append_item(char *out, size_t size, size_t used, const char *text) {
    int n = snprintf(out + used, size - used, "%s%s", used ? ", " : "", text);
    if (n < 0 || (size_t)n >= size - used) {
        out[used] = '\0';
        return size; /* full: nothing more is appended */
    }
    return used + (size_t)n;
}

/* MDRP lines "<row> <what>\n" summed per extension or map: "name (N
 * materials: their names)". */
static void summarize_dropped(const kiln_file *file, const kiln_material_view *view,
                              inspect_report *report) {
    kiln_chunk chunk;
    if (kiln_file_find_chunk(file, KILN_CHUNK_MATERIAL_DROPPED, &chunk) != KILN_OK)
        return;
    const char *text = chunk.data, *end = text + chunk.size;
    char names[16][80];
    uint32_t counts[16];
    char rows[16][256] = {{0}};
    size_t rows_used[16] = {0};
    size_t distinct = 0;
    while (text < end) {
        const char *line_end = memchr(text, '\n', (size_t)(end - text));
        if (line_end == NULL)
            line_end = end;
        const char *space = memchr(text, ' ', (size_t)(line_end - text));
        if (space != NULL && line_end - space > 1) {
            int length = (int)(line_end - space - 1);
            char name[80];
            snprintf(name, sizeof name, "%.*s", length, space + 1);
            size_t k = 0;
            while (k < distinct && strcmp(names[k], name) != 0)
                k++;
            if (k == distinct && distinct < 16) {
                memcpy(names[distinct], name, sizeof name);
                counts[distinct++] = 0;
            }
            if (k < distinct) {
                counts[k]++;
                char label[80];
                row_label(view, (uint32_t)strtoul(text, NULL, 10), label, sizeof label);
                if (rows_used[k] < sizeof rows[k])
                    rows_used[k] = append_item(rows[k], sizeof rows[k], rows_used[k], label);
            }
        }
        text = line_end + 1;
    }
    size_t used = 0;
    for (size_t k = 0; k < distinct && used < sizeof report->dropped; k++) {
        int n = snprintf(report->dropped + used, sizeof report->dropped - used,
                         "%s%s (%" PRIu32 " material%s: %s)", k ? ", " : "", names[k], counts[k],
                         counts[k] == 1 ? "" : "s", rows[k]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static void inspect_materials(const char *full_path, inspect_report *report) {
    kiln_file file;
    kiln_error error;
    kiln_material_view view;
    kiln_result result = kiln_file_map_expanded(&file, full_path, 0, &error);
    if (result == KILN_OK) {
        result = kiln_material_view_get(&file, 0, &view, &error);
        if (result == KILN_OK) {
            report->readable = true;
            report->material_count = view.material_count;
            size_t names_used = 0;
            for (uint32_t i = 0; i < view.material_count; i++) {
                const kiln_material *m = &view.materials[i];
                report->alpha_modes[m->alpha_mode]++;
                report->double_sided += (m->flags & KILN_MATERIAL_FLAG_DOUBLE_SIDED) != 0;
                report->cast_shadows += (m->flags & KILN_MATERIAL_FLAG_CAST_SHADOWS) != 0;
                report->receive_shadows += (m->flags & KILN_MATERIAL_FLAG_RECEIVE_SHADOWS) != 0;
                report->transparent += (m->flags & KILN_MATERIAL_FLAG_TRANSPARENT) != 0;
                char label[80];
                row_label(&view, i, label, sizeof label);
                if (names_used < sizeof report->material_names)
                    names_used = append_item(report->material_names, sizeof report->material_names,
                                             names_used, label);
                for (int t = 0; t < KILN_MATERIAL_SLOT_COUNT; t++)
                    report->slot_textures[t] += m->textures[t].texture != 0;
                if (kiln_material_source(&view, i) != 0) {
                    size_t used = strlen(report->standalone_names);
                    if (used < sizeof report->standalone_names)
                        append_item(report->standalone_names, sizeof report->standalone_names, used,
                                    label);
                    report->standalone_count++;
                }
            }
            summarize_dropped(&file, &view, report);
            read_source(&file, report);
            read_extras(&file, report);
        }
        kiln_file_close(&file);
    }
    if (result != KILN_OK)
        snprintf(report->problem, sizeof report->problem, "%s",
                 inspect_error_detail(&error, full_path));
}

/* What scene `s`'s roots reach (`reached`: one byte per node, scratch):
 * parents come first, so one forward pass marks every subtree. */
static void summarize_scene(const kiln_scene_view *view, uint32_t s, uint8_t *reached,
                            inspect_scene_summary *out) {
    const kiln_scene_entry *entry = &view->scenes[s];
    snprintf(out->name, sizeof out->name, "%s", kiln_scene_name(view, s));
    out->is_default = (int32_t)s == view->desc->default_scene;
    out->roots = entry->root_count;
    memset(reached, 0, view->node_count);
    for (uint32_t r = 0; r < entry->root_count; r++)
        reached[view->roots[entry->root_offset + r]] = 1;
    for (uint32_t i = 0; i < view->node_count; i++) {
        int32_t parent = view->hierarchy[i].parent;
        if (parent >= 0 && reached[parent])
            reached[i] = 1;
        if (!reached[i])
            continue;
        const kiln_scene_node *node = &view->nodes[i];
        out->nodes++;
        if (view->hierarchy[i].depth + 1 > out->depth)
            out->depth = view->hierarchy[i].depth + 1;
        out->mesh_nodes += node->mesh >= 0;
        out->cameras += node->camera >= 0;
        out->lights += node->light >= 0;
        out->instances += view->instance_ranges != NULL ? view->instance_ranges[i].count : 0;
        out->skinned += node->skin >= 0 || (node->flags & KILN_SCENE_NODE_FLAG_SKINNED) != 0;
    }
}

static char *copy_or_null(const char *text) {
    return text != NULL ? cook_strdup(text) : NULL;
}

/* A level's entities (kscene.md SLNK): name, parent, translation, the scene
 * it places and its components. */
static void describe_entities(const kiln_scene_view *view, inspect_report *report) {
    report->entities = calloc(view->node_count ? view->node_count : 1, sizeof *report->entities);
    if (report->entities == NULL)
        return;
    for (uint32_t n = 0; n < view->node_count; n++) {
        inspect_entity *entity = &report->entities[report->entity_count++];
        int32_t parent = view->hierarchy[n].parent;
        const char *ref = NULL;
        kiln_scene_node_link(view, n, &ref);
        size_t length = 0;
        entity->name = cook_strdup(kiln_scene_node_name(view, n));
        entity->parent =
            parent >= 0 ? cook_strdup(kiln_scene_node_name(view, (uint32_t)parent)) : NULL;
        memcpy(entity->translation, view->transforms[n].translation, sizeof entity->translation);
        entity->places = copy_or_null(ref);
        entity->components = copy_or_null(kiln_scene_node_components(view, n, &length));
    }
}

void inspect_report_free(inspect_report *report) {
    free(report->extras_json);
    report->extras_json = NULL;
    for (uint32_t e = 0; e < report->entity_count; e++) {
        inspect_entity *entity = &report->entities[e];
        free(entity->name);
        free(entity->parent);
        free(entity->places);
        free(entity->components);
    }
    free(report->entities);
    report->entities = NULL;
    report->entity_count = 0;
}

static void summarize_skin(const kiln_scene_view *view, uint32_t s, inspect_skin *out) {
    const kiln_scene_skin *skin = &view->skins[s];
    snprintf(out->name, sizeof out->name, "%.*s", (int)skin->name_length,
             view->strings + skin->name_offset);
    out->source = skin->source;
    out->joints = skin->joint_count;
    out->root_joint = skin->root_joint;
    size_t used = 0;
    uint32_t count;
    const kiln_scene_joint *joints = kiln_scene_skin_joints(view, s, &count);
    for (uint32_t j = 0; j < count; j++) {
        const char *name = kiln_scene_node_name(view, joints[j].node);
        size_t length = strlen(name);
        if (used + length + 1 > sizeof out->names)
            break;
        memcpy(out->names + used, name, length + 1);
        used += length + 1;
        out->names_listed++;
    }
}

static void inspect_scene(const char *full_path, inspect_report *report) {
    kiln_file file;
    kiln_error error;
    kiln_scene_view view;
    kiln_result result = kiln_file_map_expanded(&file, full_path, 0, &error);
    if (result == KILN_OK) {
        result = kiln_scene_view_get(&file, 0, &view, &error);
        uint8_t *reached = result == KILN_OK ? malloc(view.node_count + 1) : NULL;
        if (result == KILN_OK && reached == NULL) {
            result = KILN_ERR_OUT_OF_MEMORY;
            snprintf(error.message, sizeof error.message, "out of memory");
        }
        if (result == KILN_OK) {
            report->readable = true;
            report->scene = *view.desc;
            uint32_t cursor = 0, node;
            while (kiln_scene_next_mesh_node(&view, &cursor, &node))
                report->scene_mesh_nodes++;
            for (uint32_t s = 0; s < view.scene_count && s < INSPECT_MAX_SCENES; s++)
                summarize_scene(&view, s, reached, &report->scenes[s]);
            if (view.links != NULL)
                describe_entities(&view, report);
            for (uint32_t s = 0; s < view.skin_count && s < INSPECT_MAX_SKINS; s++)
                summarize_skin(&view, s, &report->skins[s]);
            read_source(&file, report);
            read_extras(&file, report);
        }
        free(reached);
        kiln_file_close(&file);
    }
    if (result != KILN_OK)
        snprintf(report->problem, sizeof report->problem, "%s",
                 inspect_error_detail(&error, full_path));
}

static void inspect_anim(const char *full_path, inspect_report *report) {
    kiln_file file;
    kiln_error error;
    kiln_anim_view view;
    kiln_result result = kiln_file_map_expanded(&file, full_path, 0, &error);
    if (result == KILN_OK) {
        result = kiln_anim_view_get(&file, 0, &view, &error);
        if (result == KILN_OK) {
            report->readable = true;
            report->anim = *view.desc;
            for (uint32_t c = 0; c < view.clip_count && c < INSPECT_MAX_CLIPS; c++) {
                const kiln_anim_clip *clip = &view.clips[c];
                inspect_clip *out = &report->clips[c];
                snprintf(out->name, sizeof out->name, "%s", kiln_anim_clip_name(&view, c));
                snprintf(out->dropped, sizeof out->dropped, "%s", kiln_anim_clip_dropped(&view, c));
                out->channels = clip->channel_count;
                out->start = clip->start;
                out->duration = clip->duration;
                /* A time range shared with an earlier channel lies before the
                 * farthest range seen (the writer appends each new one). */
                uint64_t times_end = 0;
                for (uint32_t k = 0; k < clip->channel_count; k++) {
                    const kiln_anim_channel *ch = &view.channels[clip->first_channel + k];
                    bool quantized = ch->encoding == KILN_ANIM_QUANTIZED;
                    uint64_t values =
                        quantized ? 0
                                  : (uint64_t)ch->key_count * ch->components *
                                        (ch->interpolation == KILN_ANIM_CUBICSPLINE ? 3u : 1u);
                    uint64_t end = (uint64_t)ch->time_offset + ch->key_count;
                    out->keys += ch->key_count;
                    out->interpolations |= 1u << ch->interpolation;
                    out->quantized += quantized;
                    out->bytes += sizeof *ch + 4u * values;
                    if (quantized)
                        out->bytes +=
                            6u * ch->key_count + (ch->path != KILN_ANIM_ROTATION ? 24 : 0);
                    if (end > times_end) {
                        out->bytes += 4u * ch->key_count;
                        times_end = end;
                    }
                }
                if (view.errors != NULL) {
                    out->has_error = true;
                    out->error = view.errors[c];
                }
            }
            read_source(&file, report);
            read_extras(&file, report);
        }
        kiln_file_close(&file);
    }
    if (result != KILN_OK)
        snprintf(report->problem, sizeof report->problem, "%s",
                 inspect_error_detail(&error, full_path));
}

/* "linear+step" style list of a clip's interpolation kinds. */
void inspect_interpolation_list(uint32_t bits, char *out, size_t size) {
    out[0] = '\0';
    for (int k = 0; k < KILN_ANIM_INTERPOLATION_COUNT_; k++)
        if (bits & (1u << k))
            snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? "+" : "",
                     kiln_anim_interpolation_str((kiln_anim_interpolation)k));
}

/* A .ktx2: header facts through the runtime reader (level 0 is inflated only
 * with --quality). */
static void inspect_texture(const char *full_path, const char *quality_input,
                            inspect_report *report) {
    uint8_t *data = NULL;
    size_t size = 0;
    char reason[256];
    if (!cook_read_file(full_path, (size_t)4 << 30, &data, &size, reason, sizeof reason)) {
        snprintf(report->problem, sizeof report->problem, "%s", reason);
        return;
    }
    kiln_ktx2_view view;
    kiln_error error;
    if (kiln_ktx2_view_get(&view, data, size, file_name(full_path), &error) == KILN_OK) {
        report->readable = true;
        report->tex_width = view.width;
        report->tex_height = view.height;
        report->tex_depth = view.depth;
        report->tex_faces = view.faces;
        report->tex_layers = view.layers;
        report->tex_levels = view.levels;
        report->tex_vk_format = view.vk_format;
        report->tex_supercompression = view.supercompression;
        report->tex_bits_per_pixel =
            view.block_bytes * 8.0 / ((double)view.block_width * view.block_height);
        for (uint32_t level = 0; level < view.levels; level++)
            report->tex_uncompressed += kiln_ktx2_level_size(&view, level);
        report->tex_block_width = view.block_width;
        report->tex_block_height = view.block_height;
        report->tex_whole_blocks =
            view.width % view.block_width == 0 && view.height % view.block_height == 0;
        report->tex_content_width = view.width;
        report->tex_content_height = view.height;
        const char *content = kiln_ktx2_find_value(&view, "kilnContentSize", NULL);
        unsigned cw, ch;
        if (content != NULL && sscanf(content, "%u %u", &cw, &ch) == 2 && cw <= view.width &&
            ch <= view.height) {
            report->tex_content_width = cw;
            report->tex_content_height = ch;
        }
        if (quality_input != NULL)
            inspect_texture_quality(&view, quality_input, &report->tex);
    } else {
        snprintf(report->problem, sizeof report->problem, "%s",
                 inspect_error_detail(&error, full_path));
    }
    free(data);
}

/* How much of the file is compressed (kind readers see it expanded). */
static void read_encoding(const char *full_path, inspect_report *report) {
    kiln_file file;
    size_t size;
    if (kiln_file_map(&file, full_path, 0, NULL) != KILN_OK)
        return; /* the kind's reader says why */
    for (uint32_t i = 0; i < file.chunk_count; i++)
        report->encoded_chunks += file.chunks[i].flags != 0;
    if (report->encoded_chunks > 0 && kiln_file_expanded_size(&file, &size, NULL, NULL) == KILN_OK)
        report->decoded_bytes = size;
    kiln_file_close(&file);
}

void inspect_describe(const char *full_path, const char *shown_path, kiln_pack_kind kind,
                      const char *quality_input, inspect_report *report) {
    memset(report, 0, sizeof *report);
    report->path = shown_path;
    report->kind = kind;
    struct stat info;
    if (stat(full_path, &info) == 0)
        report->bytes = (uint64_t)info.st_size;
    if (kind == KILN_PACK_MESH || kind == KILN_PACK_MATERIAL || kind == KILN_PACK_SCENE ||
        kind == KILN_PACK_ANIM || kind == KILN_PACK_SHADER)
        read_encoding(full_path, report);
    if (kind == KILN_PACK_MESH)
        inspect_mesh(full_path, report);
    else if (kind == KILN_PACK_MANIFEST)
        inspect_manifest(full_path, report);
    else if (kind == KILN_PACK_MATERIAL)
        inspect_materials(full_path, report);
    else if (kind == KILN_PACK_TEXTURE)
        inspect_texture(full_path, quality_input, report);
    else if (kind == KILN_PACK_SCENE)
        inspect_scene(full_path, report);
    else if (kind == KILN_PACK_SHADER)
        report->readable = inspect_shader_summary(full_path, report->shader, sizeof report->shader,
                                                  report->problem, sizeof report->problem);
    else if (kind == KILN_PACK_ANIM)
        inspect_anim(full_path, report);
    else
        report->readable = true; /* never opened */
}
