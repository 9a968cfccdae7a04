/*
 * info_text.c — `kiln info`: a inspect_report and the totals as text (info.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/info.h"

/* ---------------------------------------------------------------------------
 * Text
 * ------------------------------------------------------------------------- */

/* The topologies a mesh has submeshes of; triangles for a mesh without any. */
static bool shows_topology(const inspect_report *report, int topology) {
    return report->topology_submeshes[topology] > 0 ||
           (topology == KILN_TOPOLOGY_TRIANGLES && report->mesh.submesh_count == 0);
}

static void print_mesh_text(const inspect_report *report) {
    const kiln_mesh_desc *mesh = &report->mesh;
    printf("  mesh: %" PRIu64 " bytes, %" PRIu32 " vertices, ", report->bytes, mesh->vertex_count);
    for (int t = 0; t < KILN_TOPOLOGY_COUNT_; t++)
        if (shows_topology(report, t))
            printf("%" PRIu64 " %s, ", report->lod_primitives[t][0],
                   kiln_topology_str((kiln_topology)t));
    printf("%" PRIu32 " submesh%s, %" PRIu32 " material slot%s, %" PRIu32 "-bit indices\n",
           mesh->submesh_count, mesh->submesh_count == 1 ? "" : "es", mesh->material_count,
           cli_plural(mesh->material_count), mesh->index_size * 8);
    printf("  topology:");
    for (int t = 0; t < KILN_TOPOLOGY_COUNT_; t++)
        printf("%s %s %" PRIu32, t ? "," : "", kiln_topology_str((kiln_topology)t),
               report->topology_submeshes[t]);
    printf(" (submeshes)\n  lods:");
    bool first = true;
    for (int t = 0; t < KILN_TOPOLOGY_COUNT_; t++) {
        if (!shows_topology(report, t))
            continue;
        printf("%s", first ? "" : ";");
        first = false;
        for (uint32_t level = 0; level < mesh->lod_count; level++)
            printf("%s %" PRIu64, level ? " /" : "", report->lod_primitives[t][level]);
        printf(" %s", kiln_topology_str((kiln_topology)t));
    }
    if (report->lods_reused > 0)
        printf(" (%" PRIu32 " submesh level%s not reducible, reused)", report->lods_reused,
               cli_plural(report->lods_reused));
    printf("\n  meshlets: %" PRIu32 " (up to %" PRIu32 " vertices, %" PRIu32 " triangles)\n",
           mesh->meshlet_count, mesh->meshlet_max_vertices, mesh->meshlet_max_triangles);
    printf("  bytes: vertices %" PRIu64 ", indices %" PRIu64 ", meshlets %" PRIu64 "\n",
           report->vertex_bytes, report->index_bytes, report->meshlet_bytes);
    printf("  vertex: %" PRIu32 " bytes%s:", mesh->vertex_stride,
           (mesh->flags & KILN_MESH_FLAG_STREAMS) ? " in one stream per attribute" : "");
    for (uint32_t i = 0; i < report->attribute_count; i++)
        printf(" %s:%s",
               kiln_vertex_semantic_str((kiln_vertex_semantic)report->attributes[i].semantic),
               kiln_vertex_format_str((kiln_vertex_format)report->attributes[i].format));
    printf("\n  aabb: min (%g, %g, %g) max (%g, %g, %g)\n", (double)mesh->aabb_min[0],
           (double)mesh->aabb_min[1], (double)mesh->aabb_min[2], (double)mesh->aabb_max[0],
           (double)mesh->aabb_max[1], (double)mesh->aabb_max[2]);
    if (mesh->morph_target_count > 0) {
        printf("  morph targets: %" PRIu32 " (deltas f32x3:%s%s%s, %" PRIu64 " bytes):",
               mesh->morph_target_count,
               (mesh->morph_attributes & KILN_MORPH_POSITION) ? " position" : "",
               (mesh->morph_attributes & KILN_MORPH_NORMAL) ? " normal" : "",
               (mesh->morph_attributes & KILN_MORPH_TANGENT) ? " tangent" : "",
               report->morph_bytes);
        const char *name = report->morph_names;
        for (uint32_t t = 0; t < report->morph_names_shown; t++, name += strlen(name) + 1)
            printf("%s %s", t ? "," : "", name[0] ? cook_escaped(name) : "(unnamed)");
        if (report->morph_names_shown < mesh->morph_target_count)
            printf(", ...");
        printf("\n");
    }
    if (report->source[0] != '\0')
        printf("  source: %s\n", cook_escaped(report->source));
}

static void print_manifest_text(const inspect_report *report) {
    printf("  manifest: %" PRIu64 " bytes, %" PRIu32 " ref%s:", report->bytes, report->ref_count,
           cli_plural(report->ref_count));
    for (int kind = 1; kind < KILN_ASSET_KIND_COUNT_; kind++)
        if (report->refs_per_kind[kind] > 0)
            printf(" %s %" PRIu32, kiln_asset_kind_str((kiln_asset_kind)kind),
                   report->refs_per_kind[kind]);
    for (int space = 1; space < KILN_COLOR_SPACE_COUNT_; space++)
        if (report->refs_per_color_space[space] > 0)
            printf(", %s textures %" PRIu32, kiln_color_space_str((kiln_color_space)space),
                   report->refs_per_color_space[space]);
    printf("; %" PRIu32 " asset ID%s\n", report->asset_id_count,
           cli_plural(report->asset_id_count));
}

static void print_materials_text(const inspect_report *report) {
    printf("  materials: %" PRIu64 " bytes, %" PRIu32 " row%s; alpha: opaque %" PRIu32
           ", mask %" PRIu32 ", blend %" PRIu32 "; double-sided %" PRIu32 "\n",
           report->bytes, report->material_count, cli_plural(report->material_count),
           report->alpha_modes[KILN_ALPHA_OPAQUE], report->alpha_modes[KILN_ALPHA_MASK],
           report->alpha_modes[KILN_ALPHA_BLEND], report->double_sided);
    printf("  shadows: cast %" PRIu32 ", receive %" PRIu32 "; transparent %" PRIu32 "\n",
           report->cast_shadows, report->receive_shadows, report->transparent);
    if (report->material_names[0] != '\0')
        printf("  names: %s\n", cook_escaped(report->material_names));
    if (report->standalone_count > 0)
        printf("  from standalone materials (material.replace): %s\n",
               cook_escaped(report->standalone_names));
    printf("  textured slots:");
    for (int t = 0; t < KILN_MATERIAL_SLOT_COUNT; t++)
        printf("%s %s %" PRIu32, t ? "," : "", kiln_material_slot_str((kiln_material_slot)t),
               report->slot_textures[t]);
    printf("\n");
    if (report->dropped[0] != '\0')
        printf("  dropped extensions and maps: %s\n", cook_escaped(report->dropped));
    if (report->source[0] != '\0')
        printf("  source: %s\n", cook_escaped(report->source));
}

static void print_texture_text(const inspect_report *r) {
    char layers[32] = "";
    if (r->tex_layers > 0)
        snprintf(layers, sizeof layers, " array of %u layer%s", r->tex_layers,
                 r->tex_layers == 1 ? "" : "s");
    printf("  texture: %ux%u%s%s%s, %u mips, %s (%.3g bpp), supercompression %s, %" PRIu64
           " bytes (%" PRIu64 " inflated)\n",
           r->tex_width, r->tex_height, r->tex_depth ? " 3D" : "",
           r->tex_faces == 6 ? " cubemap" : "", layers, r->tex_levels,
           kiln_ktx2_format_str(r->tex_vk_format), r->tex_bits_per_pixel,
           kiln_ktx2_supercompression_str(r->tex_supercompression), r->bytes, r->tex_uncompressed);
    if (r->tex_content_width != r->tex_width || r->tex_content_height != r->tex_height)
        printf("  padded to whole blocks: the image is the top-left %ux%u (clamped sampling: "
               "scale UVs by %u/%u, %u/%u)\n",
               r->tex_content_width, r->tex_content_height, r->tex_content_width, r->tex_width,
               r->tex_content_height, r->tex_height);
    if (!r->tex_whole_blocks)
        printf("  not a whole number of %ux%u blocks: Direct3D and WebGPU cannot create it "
               "(texture.block_align: none)\n",
               r->tex_block_width, r->tex_block_height);
    if (!r->tex.measured)
        return;
    if (r->tex.psnr_rgb >= 0.0) {
        printf("  quality: level 0 PSNR %s %.2f dB", r->tex.psnr_channels, r->tex.psnr_rgb);
        if (r->tex.psnr_alpha >= 0.0)
            printf(", alpha %.2f dB", r->tex.psnr_alpha);
        printf(" against %s\n", cook_escaped(r->tex.source));
    } else {
        printf("  quality: no PSNR: %s\n", cook_escaped(r->tex.note));
    }
    if (r->tex.target[0])
        printf("  target_psnr: %s\n", cook_escaped(r->tex.target));
    if (r->tex.mode_count > 0) {
        printf("  modes:");
        for (uint32_t m = 0; m < r->tex.mode_count; m++)
            if (r->tex.modes[m] > 0)
                printf(" %u:%u", m, r->tex.modes[m]);
        printf(" (blocks per mode, level 0)\n");
    }
}

static void print_scene_text(const inspect_report *report) {
    const kiln_scene_desc *d = &report->scene;
    printf("  scene: %" PRIu64 " bytes, %" PRIu32 " node%s, depth %" PRIu32 ", %" PRIu32
           " mesh%s (drawn by %" PRIu32 " node%s), %" PRIu32 " material table%s, %" PRIu32
           " camera%s, %" PRIu32 " light%s, %" PRIu32 " instance%s, %" PRIu32 " skin%s\n",
           report->bytes, d->node_count, cli_plural(d->node_count), d->level_count, d->mesh_count,
           d->mesh_count == 1 ? "" : "es", report->scene_mesh_nodes,
           cli_plural(report->scene_mesh_nodes), d->material_count, cli_plural(d->material_count),
           d->camera_count, cli_plural(d->camera_count), d->light_count, cli_plural(d->light_count),
           d->instance_count, cli_plural(d->instance_count), d->skin_count,
           cli_plural(d->skin_count));
    for (uint32_t s = 0; s < d->scene_count && s < INSPECT_MAX_SCENES; s++) {
        const inspect_scene_summary *scene = &report->scenes[s];
        printf("  scene %" PRIu32 " '%s'%s: %" PRIu32 " root%s, %" PRIu32 " node%s, depth %" PRIu32
               ", %" PRIu32 " drawing a mesh, %" PRIu32 " camera%s, %" PRIu32 " light%s, %" PRIu32
               " instance%s, %" PRIu32 " skinned\n",
               s, cook_escaped(scene->name), scene->is_default ? " (default)" : "", scene->roots,
               cli_plural(scene->roots), scene->nodes, cli_plural(scene->nodes), scene->depth,
               scene->mesh_nodes, scene->cameras, cli_plural(scene->cameras), scene->lights,
               cli_plural(scene->lights), scene->instances, cli_plural(scene->instances),
               scene->skinned);
    }
    if (d->scene_count > INSPECT_MAX_SCENES)
        printf("  ... and %" PRIu32 " more scenes\n", d->scene_count - INSPECT_MAX_SCENES);
    for (uint32_t e = 0; e < report->entity_count; e++) {
        const inspect_entity *entity = &report->entities[e];
        printf("  entity '%s'", cook_escaped(entity->name));
        if (entity->parent != NULL)
            printf(" (parent '%s')", cook_escaped(entity->parent));
        printf(" at %g %g %g", (double)entity->translation[0], (double)entity->translation[1],
               (double)entity->translation[2]);
        if (entity->places != NULL)
            printf(" places %s", cook_escaped(entity->places));
        if (entity->components != NULL) { /* JSON of any length: not cut */
            bytebuf shown = {0};
            bytebuf_append_escaped(&shown, entity->components);
            printf("; components %s", shown.data != NULL ? (const char *)shown.data : "");
            bytebuf_free(&shown);
        }
        printf("\n");
    }
    for (uint32_t s = 0; s < d->skin_count && s < INSPECT_MAX_SKINS; s++) {
        const inspect_skin *skin = &report->skins[s];
        printf("  skeleton %" PRIu32 " '%s' (source %" PRId32 "): %" PRIu32 " joint%s:", s,
               cook_escaped(skin->name), skin->source, skin->joints, cli_plural(skin->joints));
        const char *name = skin->names;
        for (uint32_t j = 0; j < skin->names_listed; j++, name += strlen(name) + 1)
            printf("%s %s%s", j ? "," : "", cook_escaped(name),
                   j == skin->root_joint ? " (root)" : "");
        if (skin->names_listed < skin->joints)
            printf(", ... and %" PRIu32 " more", skin->joints - skin->names_listed);
        printf("\n");
    }
    if (d->skin_count > INSPECT_MAX_SKINS)
        printf("  ... and %" PRIu32 " more skeletons\n", d->skin_count - INSPECT_MAX_SKINS);
    if (report->source[0] != '\0')
        printf("  source: %s\n", cook_escaped(report->source));
}

static void print_anim_text(const inspect_report *report) {
    const kiln_anim_desc *d = &report->anim;
    printf("  anim: %" PRIu64 " bytes, %" PRIu32 " clip%s, %" PRIu32 " channel%s, %" PRIu32
           " key%s, %" PRIu32 " morph node%s\n",
           report->bytes, d->clip_count, cli_plural(d->clip_count), d->channel_count,
           cli_plural(d->channel_count), d->time_count, cli_plural(d->time_count), d->morph_count,
           cli_plural(d->morph_count));
    for (uint32_t c = 0; c < d->clip_count && c < INSPECT_MAX_CLIPS; c++) {
        const inspect_clip *clip = &report->clips[c];
        char kinds[64];
        inspect_interpolation_list(clip->interpolations, kinds, sizeof kinds);
        printf("  clip %" PRIu32 " '%s': %" PRIu32 " channel%s, %" PRIu64
               " key%s, %g .. %g s, %s, %" PRIu64 " bytes\n",
               c, cook_escaped(clip->name), clip->channels, cli_plural(clip->channels), clip->keys,
               cli_plural(clip->keys), (double)clip->start, (double)clip->duration,
               kinds[0] ? kinds : "no channels", clip->bytes);
        if (clip->has_error &&
            (clip->quantized > 0 || clip->error.translation > 0 || clip->error.rotation > 0 ||
             clip->error.scale > 0 || clip->error.weights > 0))
            printf("    %" PRIu32 " quantized channel%s; worst error: translation %.9g, rotation "
                   "%.9g rad (%.4g deg), scale %.9g, weights %.9g\n",
                   clip->quantized, cli_plural(clip->quantized), (double)clip->error.translation,
                   (double)clip->error.rotation, (double)clip->error.rotation * 57.29577951308232,
                   (double)clip->error.scale, (double)clip->error.weights);
        if (clip->dropped[0] != '\0')
            printf("    dropped (not cooked): %s\n", cook_escaped(clip->dropped));
    }
    if (d->clip_count > INSPECT_MAX_CLIPS)
        printf("  ... and %" PRIu32 " more clips\n", d->clip_count - INSPECT_MAX_CLIPS);
}

void info_print_file_text(const inspect_report *report) {
    printf("%s\n", cook_escaped(report->path));
    if (!report->readable)
        printf("  unreadable: %s\n", cook_escaped(report->problem));
    else if (report->kind == KILN_PACK_MESH)
        print_mesh_text(report);
    else if (report->kind == KILN_PACK_MANIFEST)
        print_manifest_text(report);
    else if (report->kind == KILN_PACK_MATERIAL)
        print_materials_text(report);
    else if (report->kind == KILN_PACK_TEXTURE)
        print_texture_text(report);
    else if (report->kind == KILN_PACK_SCENE)
        print_scene_text(report);
    else if (report->kind == KILN_PACK_SHADER)
        printf("  shader: %" PRIu64 " bytes, %s\n", report->bytes, cook_escaped(report->shader));
    else if (report->kind == KILN_PACK_ANIM)
        print_anim_text(report);
    else
        printf("  other: %" PRIu64 " bytes\n", report->bytes);
    if (report->readable && report->encoded_chunks > 0)
        printf("  compressed: %" PRIu64 " \u2192 %" PRIu64 " bytes (%" PRIu32 " chunk%s)\n",
               report->bytes, report->decoded_bytes, report->encoded_chunks,
               cli_plural(report->encoded_chunks));
    if (report->readable && report->extras_count > 0) /* kept for the engine: kiln_file_extras */
        printf("  extras: %" PRIu32 " object%s: %s\n", report->extras_count,
               cli_plural(report->extras_count), report->extras);
}

void info_print_totals_text(const info_totals *totals, bool quiet) {
    printf("\ntotal: %zu file%s, %" PRIu64 " bytes, %" PRIu64 " vertices, %" PRIu64 " triangles",
           totals->files, cli_plural(totals->files), totals->bytes, totals->vertices,
           totals->primitives[KILN_TOPOLOGY_TRIANGLES]);
    for (int t = KILN_TOPOLOGY_LINES; t < KILN_TOPOLOGY_COUNT_; t++)
        if (totals->primitives[t] > 0)
            printf(", %" PRIu64 " %s", totals->primitives[t], kiln_topology_str((kiln_topology)t));
    printf("\n");
    printf("kinds:");
    for (int k = 0; k < KILN_PACK_KIND_COUNT_; k++)
        printf("%s %s %zu", k ? "," : "", kiln_pack_kind_str((kiln_pack_kind)k),
               totals->per_kind[k]);
    printf("\n");
    if (totals->problems > 0)
        printf("problems: %zu unreadable file%s\n", totals->problems, cli_plural(totals->problems));
    if (totals->warnings > 0)
        printf("warnings: %zu in %zu asset%s at the last build (%s)\n", totals->warnings,
               totals->warned_assets, cli_plural(totals->warned_assets),
               quiet ? "kiln info without -q lists them" : "listed above");
}
