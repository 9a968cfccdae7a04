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
    row->flags = (m->double_sided ? KILN_MATERIAL_FLAG_DOUBLE_SIDED : 0u) |
                 (m->unlit ? KILN_MATERIAL_FLAG_UNLIT : 0u);
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
    }
}

bool write_kmat(const cook_context *ctx, const ir_material *materials, uint32_t count,
                const uint64_t *textures, const char *importer, bytebuf *out) {
    container_writer writer;
    container_begin(&writer, KILN_KIND_MATERIALS, KILN_MATERIAL_VERSION);
    kiln_material_desc desc = {.material_count = count, .row_size = sizeof(kiln_material)};
    container_add_chunk(&writer, KILN_CHUNK_MATERIAL_DESC, &desc, sizeof desc);
    bytebuf meta = {0};
    write_metadata_json(ctx, importer, &meta);
    container_add_chunk(&writer, KILN_CHUNK_META, meta.data, meta.size);
    bytebuf rows = {0};
    bytebuf dropped = {0};
    for (uint32_t i = 0; i < count; i++) {
        kiln_material row;
        write_kmat_row(&materials[i],
                       textures != NULL ? textures + (size_t)i * KILN_MATERIAL_SLOT_COUNT : NULL,
                       &row);
        bytebuf_append(&rows, &row, sizeof row);
        /* MDRP: "<row> <extension>\n" per extension the row lost. */
        const char *names = materials[i].dropped_extensions;
        while (names != NULL && *names != '\0') {
            size_t length = strcspn(names, " ");
            if (length > 0)
                bytebuf_printf(&dropped, "%u %.*s\n", i, (int)length, names);
            names += length;
            names += *names == ' ';
        }
    }
    if (rows.size > 0)
        container_add_chunk(&writer, KILN_CHUNK_MATERIAL_ROWS, rows.data, rows.size);
    if (dropped.size > 0)
        container_add_chunk(&writer, KILN_CHUNK_MATERIAL_DROPPED, dropped.data, dropped.size);
    bool ok = !meta.failed && !rows.failed && !dropped.failed;
    bytebuf_free(&meta);
    bytebuf_free(&rows);
    bytebuf_free(&dropped);
    if (!ok) {
        container_abandon(&writer);
        return false;
    }
    return container_finish(&writer, out);
}
