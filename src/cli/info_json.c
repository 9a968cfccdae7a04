/*
 * info_json.c — `kiln info --json`: a file_report and the totals as JSON (info.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/info.h"

/* ---------------------------------------------------------------------------
 * JSON
 * ------------------------------------------------------------------------- */

/* Appends literal JSON text (punctuation, keys known to need no escaping). */
void info_json_text(bytebuf *json, const char *text) {
    bytebuf_append(json, text, strlen(text));
}

static void append_texture_quality_json(bytebuf *json, const file_report *r) {
    info_json_text(json, ",\"quality\":{\"source\":");
    bytebuf_append_json_string(json, r->tex.source);
    if (r->tex.psnr_rgb >= 0.0)
        bytebuf_printf(json, ",\"psnr_rgb\":%.3f,\"psnr_channels\":\"%s\"", r->tex.psnr_rgb,
                       r->tex.psnr_channels);
    if (r->tex.psnr_alpha >= 0.0)
        bytebuf_printf(json, ",\"psnr_alpha\":%.3f", r->tex.psnr_alpha);
    if (r->tex.note[0]) {
        info_json_text(json, ",\"note\":");
        bytebuf_append_json_string(json, r->tex.note);
    }
    if (r->tex.mode_count > 0) {
        info_json_text(json, ",\"modes\":[");
        for (uint32_t m = 0; m < r->tex.mode_count; m++)
            bytebuf_printf(json, "%s%u", m ? "," : "", r->tex.modes[m]);
        info_json_text(json, "]");
    }
    info_json_text(json, "}");
}

void info_json_key(bytebuf *json, const char *key) {
    bytebuf_append_json_string(json, key);
    info_json_text(json, ":");
}

static void json_vector3(bytebuf *json, const float v[3]) {
    info_json_text(json, "[");
    for (int i = 0; i < 3; i++) {
        if (i > 0)
            info_json_text(json, ",");
        cli_json_float(json, v[i]);
    }
    info_json_text(json, "]");
}

static void append_mesh_json(bytebuf *json, const file_report *report) {
    const kiln_mesh_desc *mesh = &report->mesh;
    bytebuf_printf(json,
                   ",\"vertices\":%" PRIu32 ",\"triangles\":%" PRIu64 ",\"lines\":%" PRIu64
                   ",\"points\":%" PRIu64 ",\"submeshes\":%" PRIu32 ",\"material_slots\":%" PRIu32
                   ",\"index_size\":%" PRIu32 ",\"vertex_stride\":%" PRIu32 ",\"meshlets\":%" PRIu32
                   ",\"bytes_vertices\":%" PRIu64 ",\"bytes_indices\":%" PRIu64
                   ",\"bytes_meshlets\":%" PRIu64 ",\"lod_triangles\":[",
                   mesh->vertex_count, report->lod_primitives[KILN_TOPOLOGY_TRIANGLES][0],
                   report->lod_primitives[KILN_TOPOLOGY_LINES][0],
                   report->lod_primitives[KILN_TOPOLOGY_POINTS][0], mesh->submesh_count,
                   mesh->material_count, mesh->index_size, mesh->vertex_stride, mesh->meshlet_count,
                   report->vertex_bytes, report->index_bytes, report->meshlet_bytes);
    for (uint32_t level = 0; level < mesh->lod_count; level++)
        bytebuf_printf(json, "%s%" PRIu64, level ? "," : "",
                       report->lod_primitives[KILN_TOPOLOGY_TRIANGLES][level]);
    for (int t = KILN_TOPOLOGY_LINES; t < KILN_TOPOLOGY_COUNT_; t++) {
        bytebuf_printf(json, "],\"lod_%s\":[", kiln_topology_str((kiln_topology)t));
        for (uint32_t level = 0; level < mesh->lod_count; level++)
            bytebuf_printf(json, "%s%" PRIu64, level ? "," : "", report->lod_primitives[t][level]);
    }
    bytebuf_printf(json, "],\"topology\":{");
    for (int t = 0; t < KILN_TOPOLOGY_COUNT_; t++)
        bytebuf_printf(json, "%s\"%s\":%" PRIu32, t ? "," : "", kiln_topology_str((kiln_topology)t),
                       report->topology_submeshes[t]);
    bytebuf_printf(json, "},\"lods_reused\":%" PRIu32 ",\"attributes\":[", report->lods_reused);
    for (uint32_t i = 0; i < report->attribute_count; i++) {
        const kiln_vertex_attribute *attribute = &report->attributes[i];
        info_json_text(json, i > 0 ? ",{" : "{");
        info_json_key(json, "semantic");
        bytebuf_append_json_string(
            json, kiln_vertex_semantic_str((kiln_vertex_semantic)attribute->semantic));
        info_json_text(json, ",");
        info_json_key(json, "format");
        bytebuf_append_json_string(json,
                                   kiln_vertex_format_str((kiln_vertex_format)attribute->format));
        bytebuf_printf(json, ",\"offset\":%u}", (unsigned)attribute->offset);
    }
    info_json_text(json, "],\"aabb\":{\"min\":");
    json_vector3(json, mesh->aabb_min);
    info_json_text(json, ",\"max\":");
    json_vector3(json, mesh->aabb_max);
    info_json_text(json, "}");
    bytebuf_printf(json, ",\"morph_targets\":%" PRIu32 ",\"morph_attributes\":[",
                   mesh->morph_target_count);
    const char *const morph_attributes[3] = {"position", "normal", "tangent"};
    bool first = true;
    for (int k = 0; k < 3; k++)
        if (mesh->morph_attributes >> k & 1u) {
            bytebuf_printf(json, "%s\"%s\"", first ? "" : ",", morph_attributes[k]);
            first = false;
        }
    bytebuf_printf(json, "],\"morph_bytes\":%" PRIu64 ",\"morph_target_names\":[",
                   report->morph_bytes);
    const char *name = report->morph_names;
    for (uint32_t t = 0; t < report->morph_names_shown; t++, name += strlen(name) + 1) {
        info_json_text(json, t ? "," : "");
        if (name[0] != '\0')
            bytebuf_append_json_string(json, name);
        else
            info_json_text(json, "null");
    }
    info_json_text(json, "]");
    if (report->source[0] != '\0') {
        info_json_text(json, ",");
        info_json_key(json, "source");
        bytebuf_append_json_string(json, report->source);
    }
}

static void append_materials_json(bytebuf *json, const file_report *report) {
    bytebuf_printf(json,
                   ",\"materials\":%" PRIu32 ",\"alpha_modes\":{\"opaque\":%" PRIu32
                   ",\"mask\":%" PRIu32 ",\"blend\":%" PRIu32 "},\"double_sided\":%" PRIu32
                   ",\"textured_slots\":{",
                   report->material_count, report->alpha_modes[KILN_ALPHA_OPAQUE],
                   report->alpha_modes[KILN_ALPHA_MASK], report->alpha_modes[KILN_ALPHA_BLEND],
                   report->double_sided);
    for (int t = 0; t < KILN_MATERIAL_SLOT_COUNT; t++)
        bytebuf_printf(json, "%s\"%s\":%" PRIu32, t ? "," : "",
                       kiln_material_slot_str((kiln_material_slot)t), report->slot_textures[t]);
    info_json_text(json, "},");
    info_json_key(json, "dropped_extensions");
    bytebuf_append_json_string(json, report->dropped);
    if (report->source[0] != '\0') {
        info_json_text(json, ",");
        info_json_key(json, "source");
        bytebuf_append_json_string(json, report->source);
    }
}

static void append_scene_json(bytebuf *json, const file_report *report) {
    const kiln_scene_desc *d = &report->scene;
    bytebuf_printf(json,
                   ",\"nodes\":%" PRIu32 ",\"depth\":%" PRIu32 ",\"meshes\":%" PRIu32
                   ",\"mesh_nodes\":%" PRIu32 ",\"material_tables\":%" PRIu32
                   ",\"cameras\":%" PRIu32 ",\"lights\":%" PRIu32 ",\"instances\":%" PRIu32
                   ",\"skins\":%" PRIu32 ",\"scene_count\":%" PRIu32 ",\"scenes\":[",
                   d->node_count, d->level_count, d->mesh_count, report->scene_mesh_nodes,
                   d->material_count, d->camera_count, d->light_count, d->instance_count,
                   d->skin_count, d->scene_count);
    for (uint32_t s = 0; s < d->scene_count && s < INFO_MAX_SCENES; s++) {
        const scene_summary *scene = &report->scenes[s];
        info_json_text(json, s ? ",{" : "{");
        info_json_key(json, "name");
        bytebuf_append_json_string(json, scene->name);
        bytebuf_printf(json,
                       ",\"default\":%s,\"roots\":%" PRIu32 ",\"nodes\":%" PRIu32
                       ",\"depth\":%" PRIu32 ",\"mesh_nodes\":%" PRIu32 ",\"cameras\":%" PRIu32
                       ",\"lights\":%" PRIu32 ",\"instances\":%" PRIu32 ",\"skinned\":%" PRIu32 "}",
                       scene->is_default ? "true" : "false", scene->roots, scene->nodes,
                       scene->depth, scene->mesh_nodes, scene->cameras, scene->lights,
                       scene->instances, scene->skinned);
    }
    info_json_text(json, "],\"skeletons\":[");
    for (uint32_t s = 0; s < d->skin_count && s < INFO_MAX_SKINS; s++) {
        const skin_summary *skin = &report->skins[s];
        info_json_text(json, s ? ",{" : "{");
        info_json_key(json, "name");
        bytebuf_append_json_string(json, skin->name);
        bytebuf_printf(json,
                       ",\"source\":%" PRId32 ",\"joint_count\":%" PRIu32 ",\"root_joint\":%" PRIu32
                       ",\"joints\":[",
                       skin->source, skin->joints, skin->root_joint);
        const char *name = skin->names;
        for (uint32_t j = 0; j < skin->names_listed; j++, name += strlen(name) + 1) {
            if (j > 0)
                info_json_text(json, ",");
            bytebuf_append_json_string(json, name);
        }
        info_json_text(json, "]}");
    }
    info_json_text(json, "]");
    if (report->entities_json.size > 0 && !report->entities_json.failed)
        bytebuf_append(json, report->entities_json.data, report->entities_json.size);
    if (report->source[0] != '\0') {
        info_json_text(json, ",");
        info_json_key(json, "source");
        bytebuf_append_json_string(json, report->source);
    }
}

void info_append_file_json(bytebuf *json, const file_report *report, bool first) {
    info_json_text(json, first ? "\n    {" : ",\n    {");
    info_json_key(json, "path");
    bytebuf_append_json_string(json, report->path);
    info_json_text(json, ",");
    info_json_key(json, "kind");
    bytebuf_append_json_string(json, kiln_pack_kind_str(report->kind));
    bytebuf_printf(json, ",\"bytes\":%" PRIu64, report->bytes);
    if (!report->readable) {
        info_json_text(json, ",");
        info_json_key(json, "problem");
        bytebuf_append_json_string(json, report->problem);
    } else if (report->kind == KILN_PACK_MESH) {
        append_mesh_json(json, report);
    } else if (report->kind == KILN_PACK_MATERIAL) {
        append_materials_json(json, report);
    } else if (report->kind == KILN_PACK_SCENE) {
        append_scene_json(json, report);
    } else if (report->kind == KILN_PACK_SHADER) {
        info_json_text(json, ",");
        info_json_key(json, "shader");
        bytebuf_append_json_string(json, report->shader);
    } else if (report->kind == KILN_PACK_ANIM) {
        const kiln_anim_desc *d = &report->anim;
        bytebuf_printf(json,
                       ",\"clip_count\":%" PRIu32 ",\"channels\":%" PRIu32 ",\"keys\":%" PRIu32
                       ",\"morph_nodes\":%" PRIu32 ",\"clips\":[",
                       d->clip_count, d->channel_count, d->time_count, d->morph_count);
        for (uint32_t c = 0; c < d->clip_count && c < INFO_MAX_CLIPS; c++) {
            const clip_summary *clip = &report->clips[c];
            char kinds[64];
            info_interpolation_list(clip->interpolations, kinds, sizeof kinds);
            info_json_text(json, c ? ",{\"name\":" : "{\"name\":");
            bytebuf_append_json_string(json, clip->name);
            bytebuf_printf(json, ",\"channels\":%" PRIu32 ",\"keys\":%" PRIu64 ",\"start\":",
                           clip->channels, clip->keys);
            cli_json_float(json, clip->start);
            info_json_text(json, ",\"duration\":");
            cli_json_float(json, clip->duration);
            info_json_text(json, ",\"interpolations\":");
            bytebuf_append_json_string(json, kinds);
            bytebuf_printf(json, ",\"bytes\":%" PRIu64 ",\"quantized_channels\":%" PRIu32,
                           clip->bytes, clip->quantized);
            if (clip->has_error)
                bytebuf_printf(json,
                               ",\"error\":{\"translation\":%.9g,\"rotation\":%.9g,\"scale\":%.9g,"
                               "\"weights\":%.9g}",
                               (double)clip->error.translation, (double)clip->error.rotation,
                               (double)clip->error.scale, (double)clip->error.weights);
            bytebuf_printf(json, ",\"dropped\":");
            bytebuf_append_json_string(json, clip->dropped);
            info_json_text(json, "}");
        }
        info_json_text(json, "]");
    } else if (report->kind == KILN_PACK_TEXTURE) {
        bytebuf_printf(
            json,
            ",\"width\":%u,\"height\":%u,\"depth\":%u,\"faces\":%u,\"mips\":%u,"
            "\"format\":\"%s\",\"vk_format\":%u,\"supercompression\":\"%s\","
            "\"inflated_bytes\":%" PRIu64,
            report->tex_width, report->tex_height, report->tex_depth, report->tex_faces,
            report->tex_levels, kiln_ktx2_format_str(report->tex_vk_format), report->tex_vk_format,
            kiln_ktx2_supercompression_str(report->tex_supercompression), report->tex_uncompressed);
        bytebuf_printf(json, ",\"bits_per_pixel\":%.4g", report->tex_bits_per_pixel);
        bytebuf_printf(json, ",\"content_width\":%u,\"content_height\":%u,\"whole_blocks\":%s",
                       report->tex_content_width, report->tex_content_height,
                       report->tex_whole_blocks ? "true" : "false");
        if (report->tex.measured)
            append_texture_quality_json(json, report);
    } else if (report->kind == KILN_PACK_MANIFEST) {
        bytebuf_printf(json, ",\"refs\":%" PRIu32 ",\"refs_per_kind\":{", report->ref_count);
        for (int kind = 1; kind < KILN_ASSET_KIND_COUNT_; kind++)
            bytebuf_printf(json, "%s\"%s\":%" PRIu32, kind > 1 ? "," : "",
                           kiln_asset_kind_str((kiln_asset_kind)kind), report->refs_per_kind[kind]);
        info_json_text(json, "},\"textures_per_color_space\":{");
        for (int space = 1; space < KILN_COLOR_SPACE_COUNT_; space++)
            bytebuf_printf(json, "%s\"%s\":%" PRIu32, space > 1 ? "," : "",
                           kiln_color_space_str((kiln_color_space)space),
                           report->refs_per_color_space[space]);
        info_json_text(json, "}");
    }
    info_json_text(json, "}");
}

void info_append_totals_json(bytebuf *json, const info_totals *totals) {
    bytebuf_printf(
        json,
        ",\n  \"totals\":{\"files\":%zu,\"bytes\":%" PRIu64 ",\"vertices\":%" PRIu64
        ",\"triangles\":%" PRIu64 ",\"lines\":%" PRIu64 ",\"points\":%" PRIu64
        ",\"problems\":%zu,\"warnings\":%zu,\"warned_assets\":%zu,\"kinds\":{",
        totals->files, totals->bytes, totals->vertices, totals->primitives[KILN_TOPOLOGY_TRIANGLES],
        totals->primitives[KILN_TOPOLOGY_LINES], totals->primitives[KILN_TOPOLOGY_POINTS],
        totals->problems, totals->warnings, totals->warned_assets);
    for (int k = 0; k < KILN_PACK_KIND_COUNT_; k++)
        bytebuf_printf(json, "%s\"%s\":%zu", k ? "," : "", kiln_pack_kind_str((kiln_pack_kind)k),
                       totals->per_kind[k]);
    bytebuf_printf(json, "}}\n}\n");
}
