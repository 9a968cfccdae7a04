/*
 * info_json.c — `kiln info --json`: a inspect_report and the totals as jansson
 * values (info.h), printed by cli_json_print.
 */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "cli/info.h"

#define set(object, key, value) json_object_set_new(object, key, value)

static json_t *count(uint64_t value) {
    return json_integer((json_int_t)value);
}

/* A float as it was printed: %.9g, exact for a float. */
static json_t *real(float value) {
    return cli_json_number(value, 9);
}

static json_t *texture_quality_json(const cook_texture_quality *quality) {
    json_t *object = json_object();
    set(object, "source", cli_json_string(quality->source));
    /* PSNR to three decimals (%.3f before) */
    if (quality->psnr_rgb >= 0.0) {
        set(object, "psnr_rgb", cli_json_number(round(quality->psnr_rgb * 1000.0) / 1000.0, 9));
        set(object, "psnr_channels", cli_json_string(quality->psnr_channels));
    }
    if (quality->psnr_alpha >= 0.0)
        set(object, "psnr_alpha", cli_json_number(round(quality->psnr_alpha * 1000.0) / 1000.0, 9));
    if (quality->note[0])
        set(object, "note", cli_json_string(quality->note));
    if (quality->target[0])
        set(object, "target_psnr", cli_json_string(quality->target));
    if (quality->mode_count > 0) {
        json_t *modes = json_array();
        for (uint32_t m = 0; m < quality->mode_count; m++)
            json_array_append_new(modes, count(quality->modes[m]));
        set(object, "modes", modes);
    }
    return object;
}

static json_t *vector3_json(const float v[3]) {
    json_t *array = json_array();
    for (int i = 0; i < 3; i++)
        json_array_append_new(array, real(v[i]));
    return array;
}

static json_t *lod_json(const inspect_report *report, int topology) {
    json_t *array = json_array();
    for (uint32_t level = 0; level < report->mesh.lod_count; level++)
        json_array_append_new(array, count(report->lod_primitives[topology][level]));
    return array;
}

static void add_mesh_json(json_t *object, const inspect_report *report) {
    const kiln_mesh_desc *mesh = &report->mesh;
    set(object, "vertices", count(mesh->vertex_count));
    set(object, "triangles", count(report->lod_primitives[KILN_TOPOLOGY_TRIANGLES][0]));
    set(object, "lines", count(report->lod_primitives[KILN_TOPOLOGY_LINES][0]));
    set(object, "points", count(report->lod_primitives[KILN_TOPOLOGY_POINTS][0]));
    set(object, "submeshes", count(mesh->submesh_count));
    set(object, "material_slots", count(mesh->material_count));
    set(object, "index_size", count(mesh->index_size));
    set(object, "vertex_stride", count(mesh->vertex_stride));
    set(object, "vertex_layout",
        json_string((mesh->flags & KILN_MESH_FLAG_STREAMS) ? "streams" : "interleaved"));
    set(object, "meshlets", count(mesh->meshlet_count));
    set(object, "bytes_vertices", count(report->vertex_bytes));
    set(object, "bytes_indices", count(report->index_bytes));
    set(object, "bytes_meshlets", count(report->meshlet_bytes));
    set(object, "lod_triangles", lod_json(report, KILN_TOPOLOGY_TRIANGLES));
    for (int t = KILN_TOPOLOGY_LINES; t < KILN_TOPOLOGY_COUNT_; t++) {
        char key[32];
        snprintf(key, sizeof key, "lod_%s", kiln_topology_str((kiln_topology)t));
        set(object, key, lod_json(report, t));
    }
    json_t *topology = json_object();
    for (int t = 0; t < KILN_TOPOLOGY_COUNT_; t++)
        set(topology, kiln_topology_str((kiln_topology)t), count(report->topology_submeshes[t]));
    set(object, "topology", topology);
    set(object, "lods_reused", count(report->lods_reused));
    json_t *attributes = json_array();
    for (uint32_t i = 0; i < report->attribute_count; i++) {
        const kiln_vertex_attribute *attribute = &report->attributes[i];
        json_t *item = json_object();
        set(item, "semantic",
            json_string(kiln_vertex_semantic_str((kiln_vertex_semantic)attribute->semantic)));
        set(item, "format",
            json_string(kiln_vertex_format_str((kiln_vertex_format)attribute->format)));
        set(item, "offset", count(attribute->offset));
        json_array_append_new(attributes, item);
    }
    set(object, "attributes", attributes);
    json_t *aabb = json_object();
    set(aabb, "min", vector3_json(mesh->aabb_min));
    set(aabb, "max", vector3_json(mesh->aabb_max));
    set(object, "aabb", aabb);
    set(object, "morph_targets", count(mesh->morph_target_count));
    static const char *const morph_attributes[3] = {"position", "normal", "tangent"};
    json_t *morphed = json_array();
    for (int k = 0; k < 3; k++) {
        if (mesh->morph_attributes >> k & 1u)
            json_array_append_new(morphed, json_string(morph_attributes[k]));
    }
    set(object, "morph_attributes", morphed);
    set(object, "morph_bytes", count(report->morph_bytes));
    json_t *names = json_array();
    const char *name = report->morph_names;
    for (uint32_t t = 0; t < report->morph_names_shown; t++, name += strlen(name) + 1)
        json_array_append_new(names, name[0] != '\0' ? cli_json_string(name) : json_null());
    set(object, "morph_target_names", names);
}

static void add_materials_json(json_t *object, const inspect_report *report) {
    set(object, "materials", count(report->material_count));
    json_t *alpha = json_object();
    set(alpha, "opaque", count(report->alpha_modes[KILN_ALPHA_OPAQUE]));
    set(alpha, "mask", count(report->alpha_modes[KILN_ALPHA_MASK]));
    set(alpha, "blend", count(report->alpha_modes[KILN_ALPHA_BLEND]));
    set(object, "alpha_modes", alpha);
    set(object, "double_sided", count(report->double_sided));
    set(object, "cast_shadows", count(report->cast_shadows));
    set(object, "receive_shadows", count(report->receive_shadows));
    set(object, "transparent", count(report->transparent));
    set(object, "names", cli_json_string(report->material_names));
    set(object, "standalone_rows", count(report->standalone_count));
    json_t *slots = json_object();
    for (int t = 0; t < KILN_MATERIAL_SLOT_COUNT; t++)
        set(slots, kiln_material_slot_str((kiln_material_slot)t), count(report->slot_textures[t]));
    set(object, "textured_slots", slots);
    set(object, "dropped_extensions", cli_json_string(report->dropped));
}

static json_t *scene_json(const inspect_scene_summary *scene) {
    json_t *object = json_object();
    set(object, "name", cli_json_string(scene->name));
    set(object, "default", json_boolean(scene->is_default));
    set(object, "roots", count(scene->roots));
    set(object, "nodes", count(scene->nodes));
    set(object, "depth", count(scene->depth));
    set(object, "mesh_nodes", count(scene->mesh_nodes));
    set(object, "cameras", count(scene->cameras));
    set(object, "lights", count(scene->lights));
    set(object, "instances", count(scene->instances));
    set(object, "skinned", count(scene->skinned));
    return object;
}

static json_t *skin_json(const inspect_skin *skin) {
    json_t *object = json_object(), *joints = json_array();
    set(object, "name", cli_json_string(skin->name));
    set(object, "source", json_integer(skin->source));
    set(object, "joint_count", count(skin->joints));
    set(object, "root_joint", count(skin->root_joint));
    const char *name = skin->names;
    for (uint32_t j = 0; j < skin->names_listed; j++, name += strlen(name) + 1)
        json_array_append_new(joints, cli_json_string(name));
    set(object, "joints", joints);
    return object;
}

/* A level's entities; the components are JSON already (the cooker wrote
 * them), parsed to be printed again. */
static json_t *entities_json(const inspect_report *report) {
    json_t *entities = json_array();
    for (uint32_t e = 0; e < report->entity_count; e++) {
        const inspect_entity *entity = &report->entities[e];
        json_t *object = json_object();
        set(object, "name", cli_json_string(entity->name));
        set(object, "parent",
            entity->parent != NULL ? cli_json_string(entity->parent) : json_null());
        set(object, "translation", vector3_json(entity->translation));
        set(object, "places",
            entity->places != NULL ? cli_json_string(entity->places) : json_null());
        json_t *components = entity->components != NULL
                                 ? json_loads(entity->components, JSON_DECODE_ANY, NULL)
                                 : NULL;
        set(object, "components", components != NULL ? components : json_null());
        json_array_append_new(entities, object);
    }
    return entities;
}

static void add_scene_json(json_t *object, const inspect_report *report) {
    const kiln_scene_desc *d = &report->scene;
    set(object, "nodes", count(d->node_count));
    set(object, "depth", count(d->level_count));
    set(object, "meshes", count(d->mesh_count));
    set(object, "mesh_nodes", count(report->scene_mesh_nodes));
    set(object, "material_tables", count(d->material_count));
    set(object, "cameras", count(d->camera_count));
    set(object, "lights", count(d->light_count));
    set(object, "instances", count(d->instance_count));
    set(object, "skins", count(d->skin_count));
    set(object, "scene_count", count(d->scene_count));
    json_t *scenes = json_array(), *skeletons = json_array();
    for (uint32_t s = 0; s < d->scene_count && s < INSPECT_MAX_SCENES; s++)
        json_array_append_new(scenes, scene_json(&report->scenes[s]));
    for (uint32_t s = 0; s < d->skin_count && s < INSPECT_MAX_SKINS; s++)
        json_array_append_new(skeletons, skin_json(&report->skins[s]));
    set(object, "scenes", scenes);
    set(object, "skeletons", skeletons);
    if (report->entities != NULL)
        set(object, "entities", entities_json(report));
}

static json_t *clip_json(const inspect_clip *clip) {
    json_t *object = json_object();
    char kinds[64];
    inspect_interpolation_list(clip->interpolations, kinds, sizeof kinds);
    set(object, "name", cli_json_string(clip->name));
    set(object, "channels", count(clip->channels));
    set(object, "keys", count(clip->keys));
    set(object, "start", real(clip->start));
    set(object, "duration", real(clip->duration));
    set(object, "interpolations", json_string(kinds));
    set(object, "bytes", count(clip->bytes));
    set(object, "quantized_channels", count(clip->quantized));
    if (clip->has_error) {
        json_t *error = json_object();
        set(error, "translation", real(clip->error.translation));
        set(error, "rotation", real(clip->error.rotation));
        set(error, "scale", real(clip->error.scale));
        set(error, "weights", real(clip->error.weights));
        set(object, "error", error);
    }
    set(object, "dropped", cli_json_string(clip->dropped));
    return object;
}

static void add_anim_json(json_t *object, const inspect_report *report) {
    const kiln_anim_desc *d = &report->anim;
    set(object, "clip_count", count(d->clip_count));
    set(object, "channels", count(d->channel_count));
    set(object, "keys", count(d->time_count));
    set(object, "morph_nodes", count(d->morph_count));
    json_t *clips = json_array();
    for (uint32_t c = 0; c < d->clip_count && c < INSPECT_MAX_CLIPS; c++)
        json_array_append_new(clips, clip_json(&report->clips[c]));
    set(object, "clips", clips);
}

static void add_texture_json(json_t *object, const inspect_report *report) {
    set(object, "width", count(report->tex_width));
    set(object, "height", count(report->tex_height));
    set(object, "depth", count(report->tex_depth));
    set(object, "faces", count(report->tex_faces));
    set(object, "layers", count(report->tex_layers));
    set(object, "mips", count(report->tex_levels));
    set(object, "format", json_string(kiln_ktx2_format_str(report->tex_vk_format)));
    set(object, "vk_format", count(report->tex_vk_format));
    set(object, "supercompression",
        json_string(kiln_ktx2_supercompression_str(report->tex_supercompression)));
    set(object, "inflated_bytes", count(report->tex_uncompressed));
    set(object, "bits_per_pixel", cli_json_number(report->tex_bits_per_pixel, 4));
    set(object, "content_width", count(report->tex_content_width));
    set(object, "content_height", count(report->tex_content_height));
    set(object, "whole_blocks", json_boolean(report->tex_whole_blocks));
    if (report->tex.measured)
        set(object, "quality", texture_quality_json(&report->tex));
}

static void add_manifest_json(json_t *object, const inspect_report *report) {
    set(object, "refs", count(report->ref_count));
    set(object, "asset_ids", count(report->asset_id_count));
    json_t *kinds = json_object(), *spaces = json_object();
    for (int kind = 1; kind < KILN_ASSET_KIND_COUNT_; kind++)
        set(kinds, kiln_asset_kind_str((kiln_asset_kind)kind), count(report->refs_per_kind[kind]));
    for (int space = 1; space < KILN_COLOR_SPACE_COUNT_; space++)
        set(spaces, kiln_color_space_str((kiln_color_space)space),
            count(report->refs_per_color_space[space]));
    set(object, "refs_per_kind", kinds);
    set(object, "textures_per_color_space", spaces);
}

json_t *info_file_json(const inspect_report *report) {
    json_t *object = json_object();
    set(object, "path", cli_json_string(report->path));
    set(object, "kind", json_string(kiln_pack_kind_str(report->kind)));
    set(object, "bytes", count(report->bytes));
    if (report->encoded_chunks > 0) { /* compressed: the size decoded */
        set(object, "decoded_bytes", count(report->decoded_bytes));
        set(object, "encoded_chunks", count(report->encoded_chunks));
    }
    if (!report->readable) {
        set(object, "problem", cli_json_string(report->problem));
        return object;
    }
    if (report->kind == KILN_PACK_MESH)
        add_mesh_json(object, report);
    else if (report->kind == KILN_PACK_MATERIAL)
        add_materials_json(object, report);
    else if (report->kind == KILN_PACK_SCENE)
        add_scene_json(object, report);
    else if (report->kind == KILN_PACK_SHADER)
        set(object, "shader", cli_json_string(report->shader));
    else if (report->kind == KILN_PACK_ANIM)
        add_anim_json(object, report);
    else if (report->kind == KILN_PACK_TEXTURE)
        add_texture_json(object, report);
    else if (report->kind == KILN_PACK_MANIFEST)
        add_manifest_json(object, report);
    bool has_source = report->kind == KILN_PACK_MESH || report->kind == KILN_PACK_MATERIAL ||
                      report->kind == KILN_PACK_SCENE;
    if (has_source && report->source[0] != '\0')
        set(object, "source", cli_json_string(report->source));
    json_t *extras = report->extras_json ? json_loads(report->extras_json, 0, NULL) : NULL;
    if (extras != NULL)
        set(object, "extras", extras);
    return object;
}

json_t *info_totals_json(const info_totals *totals) {
    json_t *object = json_object(), *kinds = json_object();
    set(object, "files", count(totals->files));
    set(object, "bytes", count(totals->bytes));
    set(object, "vertices", count(totals->vertices));
    set(object, "triangles", count(totals->primitives[KILN_TOPOLOGY_TRIANGLES]));
    set(object, "lines", count(totals->primitives[KILN_TOPOLOGY_LINES]));
    set(object, "points", count(totals->primitives[KILN_TOPOLOGY_POINTS]));
    set(object, "problems", count(totals->problems));
    set(object, "warnings", count(totals->warnings));
    set(object, "warned_assets", count(totals->warned_assets));
    for (int k = 0; k < KILN_PACK_KIND_COUNT_; k++)
        set(kinds, kiln_pack_kind_str((kiln_pack_kind)k), count(totals->per_kind[k]));
    set(object, "kinds", kinds);
    return object;
}
