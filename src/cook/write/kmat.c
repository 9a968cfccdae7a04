/* kmat.c — serialises an asset's materials as a .kmat file (docs/formats/kmat.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cook/write/write.h"

_Static_assert((int)IR_SLOT_COUNT == (int)KILN_MATERIAL_SLOT_COUNT,
               "IR texture slots and .kmat slots are the same list");
_Static_assert((int)IR_SLOT_BASE_COLOR == (int)KILN_MATERIAL_SLOT_BASE_COLOR &&
                   (int)IR_SLOT_METALLIC_ROUGHNESS == (int)KILN_MATERIAL_SLOT_METALLIC_ROUGHNESS &&
                   (int)IR_SLOT_NORMAL == (int)KILN_MATERIAL_SLOT_NORMAL &&
                   (int)IR_SLOT_OCCLUSION == (int)KILN_MATERIAL_SLOT_OCCLUSION &&
                   (int)IR_SLOT_EMISSIVE == (int)KILN_MATERIAL_SLOT_EMISSIVE &&
                   (int)IR_SLOT_ALPHA == (int)KILN_MATERIAL_SLOT_ALPHA,
               "slot numbers agree");
_Static_assert((int)IR_ALPHA_OPAQUE == (int)KILN_ALPHA_OPAQUE &&
                   (int)IR_ALPHA_MASK == (int)KILN_ALPHA_MASK &&
                   (int)IR_ALPHA_BLEND == (int)KILN_ALPHA_BLEND,
               "alpha modes agree");

/* The writer never produces a row the reader rejects (kmat.md R7, R9): values
 * are clamped into their ranges and a non-finite one becomes the default. */
static float sane(float value, float low, float high, float fallback) {
    if (!isfinite(value))
        return fallback;
    return value < low ? low : (value > high ? high : value);
}

void write_kmat_row(const ir_material *m, const uint64_t textures[KILN_MATERIAL_SLOT_COUNT],
                    kiln_material *row) {
    memset(row, 0, sizeof *row);
    for (int k = 0; k < 4; k++)
        row->base_color[k] = sane(m->base_color[k], 0.0f, 1.0f, 1.0f);
    for (int k = 0; k < 3; k++)
        row->emissive[k] = sane(m->emissive[k], 0.0f, 3.0e38f, 0.0f);
    row->metallic = sane(m->metallic, 0.0f, 1.0f, 1.0f);
    row->roughness = sane(m->roughness, 0.0f, 1.0f, 1.0f);
    row->normal_scale = sane(m->normal_scale, -3.0e38f, 3.0e38f, 1.0f);
    row->occlusion_strength = sane(m->occlusion_strength, 0.0f, 1.0f, 1.0f);
    row->alpha_cutoff = sane(m->alpha_cutoff, 0.0f, 3.0e38f, 0.5f);
    row->alpha_mode = (uint32_t)m->alpha_mode < KILN_ALPHA_MODE_COUNT_ ? (uint32_t)m->alpha_mode
                                                                       : KILN_ALPHA_OPAQUE;
    /* Every material casts and receives shadows unless a setting says not;
     * a blended one is drawn as transparent. */
    uint32_t flags = KILN_MATERIAL_FLAG_CAST_SHADOWS | KILN_MATERIAL_FLAG_RECEIVE_SHADOWS |
                     (m->double_sided ? KILN_MATERIAL_FLAG_DOUBLE_SIDED : 0u) |
                     (m->unlit ? KILN_MATERIAL_FLAG_UNLIT : 0u) |
                     (row->alpha_mode == KILN_ALPHA_BLEND ? KILN_MATERIAL_FLAG_TRANSPARENT : 0u);
    row->flags = ((flags | m->flags_on) & ~m->flags_off) & KILN_MATERIAL_FLAGS_KNOWN;
    for (int k = 0; k < 3; k++)
        row->specular_color[k] = sane(m->specular_color[k], 0.0f, 3.0e38f, 1.0f);
    row->specular = sane(m->specular, 0.0f, 1.0f, 1.0f);
    for (int s = 0; s < KILN_MATERIAL_SLOT_COUNT; s++) {
        const ir_texture_ref *ref = &m->textures[s];
        kiln_material_texture *t = &row->textures[s];
        t->texture = textures != NULL ? textures[s] : 0;
        t->texcoord = ref->texcoord <= 1 ? ref->texcoord : 0;
        t->offset[0] = sane(ref->offset[0], -3.0e38f, 3.0e38f, 0.0f);
        t->offset[1] = sane(ref->offset[1], -3.0e38f, 3.0e38f, 0.0f);
        t->scale[0] = sane(ref->scale[0], -3.0e38f, 3.0e38f, 1.0f);
        t->scale[1] = sane(ref->scale[1], -3.0e38f, 3.0e38f, 1.0f);
        t->rotation = sane(ref->rotation, -3.0e38f, 3.0e38f, 0.0f);
        t->wrap_s = ref->wrap_s < KILN_WRAP_COUNT_ ? ref->wrap_s : KILN_WRAP_REPEAT;
        t->wrap_t = ref->wrap_t < KILN_WRAP_COUNT_ ? ref->wrap_t : KILN_WRAP_REPEAT;
        t->mag_filter = ref->mag_filter < KILN_FILTER_COUNT_ ? ref->mag_filter : 0;
        t->min_filter = ref->min_filter < KILN_FILTER_COUNT_ ? ref->min_filter : 0;
        t->mip_filter = ref->mip_filter < KILN_MIP_FILTER_COUNT_ ? ref->mip_filter : 0;
    }
}

bool write_kmat(const cook_context *ctx, const ir_material *materials, uint32_t count,
                const uint64_t *textures, const char *importer, bytebuf *out) {
    container_writer writer;
    container_begin(&writer, KILN_KIND_MATERIALS, KILN_MATERIAL_VERSION);
    container_set_compress(&writer, ctx->settings->container_compress);
    kiln_material_desc desc = {.material_count = count, .row_size = sizeof(kiln_material)};
    container_add_chunk(&writer, KILN_CHUNK_MATERIAL_DESC, &desc, sizeof desc);
    bytebuf meta = {0};
    write_metadata_json(ctx, importer, &meta);
    container_add_chunk(&writer, KILN_CHUNK_META, meta.data, meta.size);
    bytebuf rows = {0};
    bytebuf names = {0}; /* MTNM: offset 0 is the empty name */
    bytebuf dropped = {0};
    bytebuf sources = {0}; /* MSRC: only when a row is a standalone material's */
    bytebuf_append(&names, "", 1);
    for (uint32_t i = 0; i < count; i++) {
        kiln_material row;
        write_kmat_row(&materials[i],
                       textures != NULL ? textures + (size_t)i * KILN_MATERIAL_SLOT_COUNT : NULL,
                       &row);
        const char *name = materials[i].unnamed ? NULL : materials[i].name;
        if (name != NULL && name[0] != '\0' && names.size < UINT32_MAX - strlen(name) - 1) {
            row.name = (uint32_t)names.size;
            bytebuf_append(&names, name, strlen(name) + 1);
        }
        bytebuf_append(&rows, &row, sizeof row);
        if (materials[i].source_material != 0 && sources.size == 0)
            for (uint32_t k = 0; k < count; k++)
                bytebuf_append(&sources, &materials[k].source_material, sizeof(uint64_t));
        /* MDRP: "<row> <extension>\n" per extension the row lost. */
        const char *lost = materials[i].dropped_extensions;
        while (lost != NULL && *lost != '\0') {
            size_t length = strcspn(lost, " ");
            if (length > 0)
                bytebuf_printf(&dropped, "%u %.*s\n", i, (int)length, lost);
            lost += length;
            lost += *lost == ' ';
        }
    }
    if (rows.size > 0) {
        container_add_chunk(&writer, KILN_CHUNK_MATERIAL_ROWS, rows.data, rows.size);
        container_add_chunk(&writer, KILN_CHUNK_MATERIAL_NAMES, names.data, names.size);
    }
    if (dropped.size > 0)
        container_add_chunk(&writer, KILN_CHUNK_MATERIAL_DROPPED, dropped.data, dropped.size);
    if (sources.size > 0)
        container_add_chunk(&writer, KILN_CHUNK_MATERIAL_SOURCES, sources.data, sources.size);
    /* The source's extras: every row's, then every row's textures', then the
     * images those sample. */
    extras_table extras = {0};
    for (uint32_t i = 0; i < count; i++)
        extras_table_add(&extras, KILN_EXTRAS_MATERIAL, i, materials[i].extras);
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t s = 0; s < IR_SLOT_COUNT && s < KILN_MATERIAL_SLOT_COUNT; s++)
            extras_table_add(&extras, KILN_EXTRAS_TEXTURE, i * KILN_MATERIAL_SLOT_COUNT + s,
                             materials[i].texture_extras[s]);
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t s = 0; s < IR_SLOT_COUNT && s < KILN_MATERIAL_SLOT_COUNT; s++)
            extras_table_add(&extras, KILN_EXTRAS_IMAGE, i * KILN_MATERIAL_SLOT_COUNT + s,
                             materials[i].image_extras[s]);
    bool ok = extras_table_chunk(&extras, &writer);
    extras_table_free(&extras);
    ok = ok && !meta.failed && !rows.failed && !names.failed && !dropped.failed && !sources.failed;
    bytebuf_free(&sources);
    bytebuf_free(&meta);
    bytebuf_free(&rows);
    bytebuf_free(&names);
    bytebuf_free(&dropped);
    if (!ok) {
        container_abandon(&writer);
        return false;
    }
    return container_finish(&writer, out);
}
