/* settings.c — the resolved settings of one asset (DESIGN.md vocabulary). */
#include <string.h>

#include "cook/core/core.h"

void cook_settings_default(cook_settings *settings) {
    memset(settings, 0, sizeof *settings);
    settings->mesh_merge = false;
    settings->mesh_meshlets = true;
    settings->mesh_meshlet_vertices = 64;
    settings->mesh_meshlet_triangles = 124;
    settings->mesh_lods = 2;
    settings->mesh_lod_ratio_count = 2;
    settings->mesh_lod_ratios[0] = 0.5f;
    settings->mesh_lod_ratios[1] = 0.25f;
    settings->mesh_quantize_positions = false;
    settings->texture_compress = true;
    strcpy(settings->texture_format, "auto");
    strcpy(settings->texture_quality, "normal");
    strcpy(settings->texture_target, "desktop");
    settings->texture_max_size = 4096;
    settings->texture_mipmaps = true;
    settings->texture_max_dimension = 16384;
    settings->texture_zstd_level = 2; /* BENCHMARKS.md: ~20% faster than 3, ~4.5% larger */
}

void cook_settings_to_json(const cook_settings *s, bytebuf *out) {
    /* Keys sorted, fixed formatting: the text is part of cache keys. */
    bytebuf_printf(out, "{\"mesh.lod_ratios\":[");
    for (uint32_t i = 0; i < s->mesh_lod_ratio_count; i++)
        bytebuf_printf(out, "%s%.9g", i ? "," : "", (double)s->mesh_lod_ratios[i]);
    bytebuf_printf(out,
                   "],\"mesh.lods\":%u,\"mesh.merge\":%s,\"mesh.meshlet_triangles\":%u,"
                   "\"mesh.meshlet_vertices\":%u,\"mesh.meshlets\":%s,"
                   "\"mesh.quantize_positions\":%s,\"texture.compress\":%s,"
                   "\"texture.format\":",
                   s->mesh_lods, s->mesh_merge ? "true" : "false", s->mesh_meshlet_triangles,
                   s->mesh_meshlet_vertices, s->mesh_meshlets ? "true" : "false",
                   s->mesh_quantize_positions ? "true" : "false",
                   s->texture_compress ? "true" : "false");
    bytebuf_append_json_string(out, s->texture_format);
    bytebuf_printf(out,
                   ",\"texture.max_dimension\":%u,\"texture.max_size\":%u,"
                   "\"texture.mipmaps\":%s,\"texture.quality\":",
                   s->texture_max_dimension, s->texture_max_size,
                   s->texture_mipmaps ? "true" : "false");
    bytebuf_append_json_string(out, s->texture_quality);
    bytebuf_printf(out, ",\"texture.target\":");
    bytebuf_append_json_string(out, s->texture_target);
    bytebuf_printf(out, ",\"texture.zstd_level\":%d}", s->texture_zstd_level);
}
