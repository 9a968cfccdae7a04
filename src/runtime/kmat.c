/* kmat.c — the material table view (docs/formats/kmat.md).
 *
 * kiln_material_view_get checks the descriptor and every row, each rule citing
 * kmat.md's numbered requirement. The container has already been validated
 * (every chunk lies inside the file at a 16-byte-aligned offset), so once the
 * row chunk's size matches the descriptor the rows are used in place. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "common/checked.h"
#include "kiln/kiln.h"
#include "runtime/internal.h"

const char *kiln_alpha_mode_str(kiln_alpha_mode mode) {
    static const char *const names[KILN_ALPHA_MODE_COUNT_] = {"opaque", "mask", "blend"};
    return (unsigned)mode < KILN_ALPHA_MODE_COUNT_ ? names[mode] : "invalid";
}

const char *kiln_material_slot_str(kiln_material_slot slot) {
    static const char *const names[KILN_MATERIAL_SLOT_COUNT] = {
        "base_color", "metallic_roughness", "normal", "occlusion", "emissive", "alpha"};
    return (unsigned)slot < KILN_MATERIAL_SLOT_COUNT ? names[slot] : "invalid";
}

const kiln_material *kiln_material_row(const kiln_material_view *view, uint32_t index) {
    if (view == NULL || view->materials == NULL || index >= view->material_count)
        return NULL;
    return &view->materials[index];
}

const char *kiln_material_name(const kiln_material_view *view, uint32_t index) {
    const kiln_material *row = kiln_material_row(view, index);
    if (row == NULL || view->names == NULL || row->name >= view->names_size)
        return "";
    return view->names + row->name; /* kmat.md R10: NUL-terminated inside MTNM */
}

uint64_t kiln_material_source(const kiln_material_view *view, uint32_t index) {
    if (view == NULL || view->sources == NULL || index >= view->material_count)
        return 0;
    return view->sources[index];
}

const char *kiln_wrap_str(kiln_wrap wrap) {
    static const char *const names[KILN_WRAP_COUNT_] = {"repeat", "mirrored_repeat",
                                                        "clamp_to_edge"};
    return (unsigned)wrap < KILN_WRAP_COUNT_ ? names[wrap] : "invalid";
}

const char *kiln_filter_str(kiln_filter filter) {
    static const char *const names[KILN_FILTER_COUNT_] = {"linear", "nearest"};
    return (unsigned)filter < KILN_FILTER_COUNT_ ? names[filter] : "invalid";
}

const char *kiln_mip_filter_str(kiln_mip_filter filter) {
    static const char *const names[KILN_MIP_FILTER_COUNT_] = {"linear", "nearest", "none"};
    return (unsigned)filter < KILN_MIP_FILTER_COUNT_ ? names[filter] : "invalid";
}

static bool in_unit(float value) {
    return value >= 0.0f && value <= 1.0f; /* false for NaN */
}

/* kmat.md R7-R10 for one row; `names_size` is MTNM's size (0: absent). */
static kiln_result check_row(const kiln_file *file, uint32_t i, const kiln_material *m,
                             uint64_t names_size, kiln_error *err) {
    const char *name = file->name;
    const float scalars[] = {m->metallic,           m->roughness,    m->normal_scale,
                             m->occlusion_strength, m->alpha_cutoff, m->specular};
    if (!runtime_all_finite(m->base_color, 4) || !runtime_all_finite(m->emissive, 3) ||
        !runtime_all_finite(m->specular_color, 3) ||
        !runtime_all_finite(scalars, sizeof scalars / sizeof scalars[0])) /* kmat.md R7 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "material %" PRIu32 " has a non-finite factor", i);
    bool colour_ok = in_unit(m->base_color[0]) && in_unit(m->base_color[1]) &&
                     in_unit(m->base_color[2]) && in_unit(m->base_color[3]);
    if (!colour_ok || !in_unit(m->metallic) || !in_unit(m->roughness) ||
        !in_unit(m->occlusion_strength) || !in_unit(m->specular) || m->emissive[0] < 0.0f ||
        m->emissive[1] < 0.0f || m->emissive[2] < 0.0f || m->alpha_cutoff < 0.0f ||
        m->specular_color[0] < 0.0f || m->specular_color[1] < 0.0f ||
        m->specular_color[2] < 0.0f) /* kmat.md R7 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "material %" PRIu32 " has a factor out of range", i);
    if (m->alpha_mode >= KILN_ALPHA_MODE_COUNT_) /* kmat.md R8 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "material %" PRIu32 " has alpha mode %" PRIu32, i, m->alpha_mode);
    if ((m->flags & ~KILN_MATERIAL_FLAGS_KNOWN) != 0) /* kmat.md R8 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "material %" PRIu32 " has unknown flags 0x%" PRIx32, i, m->flags);
    if (m->reserved != 0) /* kmat.md R8 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "material %" PRIu32 " reserved word is not 0", i);
    if (m->name != 0 && m->name >= names_size) /* kmat.md R10 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "material %" PRIu32 " name offset %" PRIu32 " is outside MTNM", i,
                            m->name);
    for (uint32_t s = 0; s < KILN_MATERIAL_SLOT_COUNT; s++) {
        const kiln_material_texture *t = &m->textures[s];
        const float transform[] = {t->offset[0], t->offset[1], t->scale[0], t->scale[1],
                                   t->rotation};
        if (t->texcoord > 1 || !runtime_all_finite(transform, 5)) /* kmat.md R9 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "material %" PRIu32 " slot %s has texcoord %" PRIu32
                                " or a non-finite transform",
                                i, kiln_material_slot_str((kiln_material_slot)s), t->texcoord);
        if (t->wrap_s >= KILN_WRAP_COUNT_ || t->wrap_t >= KILN_WRAP_COUNT_ ||
            t->mag_filter >= KILN_FILTER_COUNT_ || t->min_filter >= KILN_FILTER_COUNT_ ||
            t->mip_filter >= KILN_MIP_FILTER_COUNT_ || t->reserved[0] != 0 || t->reserved[1] != 0 ||
            t->reserved[2] != 0) /* kmat.md R9 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "material %" PRIu32 " slot %s has an unknown sampler value", i,
                                kiln_material_slot_str((kiln_material_slot)s));
    }
    return KILN_OK;
}

kiln_result kiln_material_view_get(const kiln_file *file, uint32_t flags, kiln_material_view *view,
                                   kiln_error *err) {
    if (view != NULL)
        memset(view, 0, sizeof *view);
    if (file == NULL || file->data == NULL || view == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_material_view_get needs an open file and a view");
    if ((flags & ~(uint32_t)(KILN_OPEN_VERIFY_CHECKSUM | KILN_OPEN_DEEP)) != 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, file->name, "unknown flags 0x%" PRIx32,
                            flags);
    const char *name = file->name;
    if (file->kind != KILN_KIND_MATERIALS) { /* kmat.md R1 */
        char fourcc[5];
        kiln_fourcc_str(file->kind, fourcc);
        return runtime_fail(err, KILN_ERR_BAD_MAGIC, name,
                            "not a material table (kind '%s', expected 'MATL')", fourcc);
    }
    if (runtime_require_plain(file, err) != KILN_OK) /* container.md R24 */
        return KILN_ERR_UNSUPPORTED;
    if (file->kind_version < KILN_MATERIAL_VERSION) /* kmat.md R2 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "material version %u is older than this build reads (version %u): "
                            "recook the source",
                            (unsigned)file->kind_version, KILN_MATERIAL_VERSION);
    if (file->kind_version != KILN_MATERIAL_VERSION) /* kmat.md R2 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "material version %u is not supported (this build reads version %u)",
                            (unsigned)file->kind_version, KILN_MATERIAL_VERSION);
    const kiln_chunk_entry *desc_chunk = NULL, *rows_chunk = NULL, *names_chunk = NULL,
                           *sources_chunk = NULL;
    for (uint32_t i = 0; i < file->chunk_count; i++) { /* kmat.md R3 */
        const kiln_chunk_entry *c = &file->chunks[i];
        const kiln_chunk_entry **slot = c->fourcc == KILN_CHUNK_MATERIAL_DESC      ? &desc_chunk
                                        : c->fourcc == KILN_CHUNK_MATERIAL_ROWS    ? &rows_chunk
                                        : c->fourcc == KILN_CHUNK_MATERIAL_NAMES   ? &names_chunk
                                        : c->fourcc == KILN_CHUNK_MATERIAL_SOURCES ? &sources_chunk
                                                                                   : NULL;
        if (slot == NULL)
            continue;
        if (*slot != NULL) {
            char fourcc[5];
            kiln_fourcc_str(c->fourcc, fourcc);
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "chunk %" PRIu32 " is a second %s chunk", i, fourcc);
        }
        *slot = c;
    }
    if (desc_chunk == NULL || desc_chunk->size != sizeof(kiln_material_desc)) /* kmat.md R4 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "no MTDS chunk of %zu bytes (material descriptor)",
                            sizeof(kiln_material_desc));
    const kiln_material_desc *desc =
        (const kiln_material_desc *)(const void *)(file->data + desc_chunk->offset);
    if (desc->flags != 0) /* kmat.md R5 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "unknown material table flags 0x%" PRIx32, desc->flags);
    if (desc->reserved != 0) /* kmat.md R5 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "descriptor reserved word is not 0");
    if (desc->row_size != sizeof(kiln_material)) /* kmat.md R5 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "row_size is %" PRIu32 ", expected %zu",
                            desc->row_size, sizeof(kiln_material));
    uint64_t expected;
    uint64_t actual = rows_chunk != NULL ? rows_chunk->size : 0;
    if (!checked_mul_u64(desc->material_count, sizeof(kiln_material), &expected) ||
        actual != expected) /* kmat.md R6 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "MTRW chunk is %" PRIu64 " bytes, expected %" PRIu32 " x %zu", actual,
                            desc->material_count, sizeof(kiln_material));
    const kiln_material *rows =
        actual > 0 ? (const kiln_material *)(const void *)(file->data + rows_chunk->offset) : NULL;
    const char *names = NULL;
    uint64_t names_size = names_chunk != NULL ? names_chunk->size : 0;
    if (names_size > 0) {
        names = (const char *)(file->data + names_chunk->offset);
        if (names[names_size - 1] != '\0') /* kmat.md R10 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "MTNM chunk does not end with a NUL byte");
    }
    for (uint32_t i = 0; i < desc->material_count; i++) {
        kiln_result r = check_row(file, i, &rows[i], names_size, err);
        if (r != KILN_OK)
            return r;
    }
    if (sources_chunk != NULL && sources_chunk->size != actual / sizeof(kiln_material) * 8u)
        return runtime_fail(err, KILN_ERR_CORRUPT, name, /* kmat.md R11 */
                            "MSRC chunk is %" PRIu64 " bytes, expected %" PRIu32 " x 8",
                            sources_chunk->size, desc->material_count);
    view->desc = desc;
    view->materials = rows;
    view->material_count = desc->material_count;
    view->names = names;
    view->names_size = names_size;
    view->sources = sources_chunk != NULL && sources_chunk->size > 0
                        ? (const uint64_t *)(const void *)(file->data + sources_chunk->offset)
                        : NULL;
    return runtime_succeed(err);
}
