/* test_kmat.c — the material table: writer, reader and every reader rule of
 * docs/formats/kmat.md (R1-R10), truncations included. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

/* A file image held 16-byte aligned, as the runtime wants it. */
typedef struct held_file {
    void *block;
    size_t size;
    kiln_file file;
} held_file;

static kiln_result hold(held_file *held, const bytebuf *bytes, kiln_material_view *view,
                        kiln_error *err) {
    held->size = bytes->size;
    assert_int_equal(posix_memalign(&held->block, 16, bytes->size ? bytes->size : 16), 0);
    memcpy(held->block, bytes->data, bytes->size);
    kiln_result r = kiln_file_from_memory(&held->file, held->block, held->size, "t.kmat",
                                          KILN_OPEN_VERIFY_CHECKSUM, err);
    if (r != KILN_OK)
        return r;
    return kiln_material_view_get(&held->file, KILN_OPEN_DEEP, view, err);
}

static void release(held_file *held) {
    kiln_file_close(&held->file);
    free(held->block);
}

static cook_settings test_settings;

static cook_context test_context(void) {
    cook_settings_default(&test_settings);
    cook_context ctx = {.input_root = ".",
                        .source_path = "models/crate.gltf",
                        .ref = "models/crate",
                        .source = (const uint8_t *)"{}",
                        .source_size = 2,
                        .settings = &test_settings};
    return ctx;
}

static void two_materials(ir_material m[2]) {
    ir_material_init(&m[0]);
    ir_material_init(&m[1]);
    m[0].base_color[0] = 0.25f;
    m[0].metallic = 0.5f;
    m[0].roughness = 0.75f;
    m[0].emissive[1] = 4.0f; /* emissive strength applied: above 1 is fine */
    m[0].normal_scale = -0.5f;
    m[0].occlusion_strength = 0.3f;
    m[0].alpha_mode = IR_ALPHA_MASK;
    m[0].alpha_cutoff = 0.4f;
    m[0].double_sided = true;
    m[0].textures[IR_SLOT_NORMAL].image = 0;
    m[0].textures[IR_SLOT_NORMAL].texcoord = 1;
    m[0].textures[IR_SLOT_NORMAL].offset[0] = 0.5f;
    m[0].textures[IR_SLOT_NORMAL].scale[1] = 2.0f;
    m[0].textures[IR_SLOT_NORMAL].rotation = 1.5f;
    m[0].textures[IR_SLOT_NORMAL].wrap_s = KILN_WRAP_CLAMP_TO_EDGE;
    m[0].textures[IR_SLOT_NORMAL].wrap_t = KILN_WRAP_MIRRORED_REPEAT;
    m[0].textures[IR_SLOT_NORMAL].mag_filter = KILN_FILTER_NEAREST;
    m[0].textures[IR_SLOT_NORMAL].mip_filter = KILN_MIP_NONE;
    m[0].specular_color[0] = 0.5f;
    m[0].specular = 0.25f;
    m[0].name = cook_strdup("Rusty Metal");
    m[0].flags_off = KILN_MATERIAL_FLAG_RECEIVE_SHADOWS;
    m[0].dropped_extensions = cook_strdup("KHR_materials_clearcoat KHR_materials_sheen");
    m[1].alpha_mode = IR_ALPHA_BLEND;
    m[1].unlit = true;
    m[1].flags_on = KILN_MATERIAL_FLAG_DOUBLE_SIDED;
    m[1].flags_off = KILN_MATERIAL_FLAG_TRANSPARENT | KILN_MATERIAL_FLAG_CAST_SHADOWS;
}

static void kmat_round_trips_every_field(void **state) {
    (void)state;
    cook_context ctx = test_context();
    ir_material m[2];
    two_materials(m);
    uint64_t textures[2 * KILN_MATERIAL_SLOT_COUNT] = {0};
    textures[KILN_MATERIAL_SLOT_NORMAL] = kiln_ref_hash("models/crate/tex_0");
    bytebuf bytes = {0};
    assert_true(write_kmat(&ctx, m, 2, textures, "gltf", &bytes));
    held_file held;
    kiln_material_view view;
    kiln_error err;
    assert_int_equal(hold(&held, &bytes, &view, &err), KILN_OK);
    assert_int_equal(held.file.kind, KILN_KIND_MATERIALS);
    assert_int_equal(view.material_count, 2);
    assert_int_equal(view.desc->row_size, 320);
    assert_string_equal(kiln_material_name(&view, 0), "Rusty Metal");
    assert_string_equal(kiln_material_name(&view, 1), ""); /* no name */
    assert_string_equal(kiln_material_name(&view, 2), ""); /* out of range */
    const kiln_material *a = kiln_material_row(&view, 0), *b = kiln_material_row(&view, 1);
    assert_non_null(a);
    assert_null(kiln_material_row(&view, 2));
    assert_true(a->base_color[0] == 0.25f && a->base_color[1] == 1.0f && a->base_color[3] == 1.0f);
    assert_true(a->metallic == 0.5f && a->roughness == 0.75f);
    assert_true(a->emissive[0] == 0.0f && a->emissive[1] == 4.0f);
    assert_true(a->normal_scale == -0.5f && a->occlusion_strength == 0.3f);
    assert_int_equal(a->alpha_mode, KILN_ALPHA_MASK);
    assert_true(a->alpha_cutoff == 0.4f);
    /* Double-sided from the source, casting by default, receiving cleared. */
    assert_int_equal(a->flags, KILN_MATERIAL_FLAG_DOUBLE_SIDED | KILN_MATERIAL_FLAG_CAST_SHADOWS);
    assert_true(a->specular_color[0] == 0.5f && a->specular_color[1] == 1.0f &&
                a->specular_color[2] == 1.0f && a->specular == 0.25f);
    const kiln_material_texture *n = &a->textures[KILN_MATERIAL_SLOT_NORMAL];
    assert_true(n->texture == kiln_ref_hash("models/crate/tex_0"));
    assert_int_equal(n->texcoord, 1);
    assert_true(n->offset[0] == 0.5f && n->offset[1] == 0.0f);
    assert_true(n->scale[0] == 1.0f && n->scale[1] == 2.0f && n->rotation == 1.5f);
    assert_int_equal(n->wrap_s, KILN_WRAP_CLAMP_TO_EDGE);
    assert_int_equal(n->wrap_t, KILN_WRAP_MIRRORED_REPEAT);
    assert_int_equal(n->mag_filter, KILN_FILTER_NEAREST);
    assert_int_equal(n->min_filter, KILN_FILTER_LINEAR);
    assert_int_equal(n->mip_filter, KILN_MIP_NONE);
    const kiln_material_texture *base = &a->textures[KILN_MATERIAL_SLOT_BASE_COLOR];
    assert_true(base->wrap_s == KILN_WRAP_REPEAT && base->mip_filter == KILN_MIP_LINEAR);
    assert_true(a->textures[KILN_MATERIAL_SLOT_BASE_COLOR].texture == 0);
    assert_true(a->textures[KILN_MATERIAL_SLOT_BASE_COLOR].scale[0] == 1.0f);
    assert_int_equal(b->alpha_mode, KILN_ALPHA_BLEND);
    /* Blend would make it transparent and it would cast: the overrides win. */
    assert_int_equal(b->flags, KILN_MATERIAL_FLAG_UNLIT | KILN_MATERIAL_FLAG_DOUBLE_SIDED |
                                   KILN_MATERIAL_FLAG_RECEIVE_SHADOWS);
    /* Dropped extensions, one line per row and name. */
    kiln_chunk dropped;
    assert_int_equal(kiln_file_find_chunk(&held.file, KILN_CHUNK_MATERIAL_DROPPED, &dropped),
                     KILN_OK);
    const char expected[] = "0 KHR_materials_clearcoat\n0 KHR_materials_sheen\n";
    assert_int_equal(dropped.size, sizeof expected - 1);
    assert_memory_equal(dropped.data, expected, sizeof expected - 1);
    /* Provenance. */
    size_t meta_size;
    const char *meta = kiln_file_metadata(&held.file, &meta_size);
    assert_non_null(meta);
    assert_non_null(strstr(meta, "\"source\":\"models/crate.gltf\""));
    assert_string_equal(kiln_alpha_mode_str(KILN_ALPHA_MASK), "mask");
    assert_string_equal(kiln_material_slot_str(KILN_MATERIAL_SLOT_METALLIC_ROUGHNESS),
                        "metallic_roughness");
    assert_string_equal(kiln_material_slot_str((kiln_material_slot)99), "invalid");
    assert_string_equal(kiln_wrap_str(KILN_WRAP_MIRRORED_REPEAT), "mirrored_repeat");
    assert_string_equal(kiln_filter_str(KILN_FILTER_NEAREST), "nearest");
    assert_string_equal(kiln_mip_filter_str(KILN_MIP_NONE), "none");
    assert_string_equal(kiln_wrap_str((kiln_wrap)7), "invalid");
    release(&held);
    bytebuf_free(&bytes);
    ir_material_free(&m[0]);
    ir_material_free(&m[1]);
}

static void kmat_writer_never_writes_what_the_reader_rejects(void **state) {
    (void)state;
    cook_context ctx = test_context();
    ir_material m;
    ir_material_init(&m);
    m.base_color[0] = 2.0f;
    m.base_color[1] = NAN;
    m.metallic = -1.0f;
    m.roughness = INFINITY;
    m.emissive[0] = -3.0f;
    m.occlusion_strength = 7.0f;
    m.alpha_cutoff = -1.0f;
    m.alpha_mode = (ir_alpha_mode)9;
    m.textures[IR_SLOT_BASE_COLOR].texcoord = 5;
    m.textures[IR_SLOT_BASE_COLOR].rotation = NAN;
    bytebuf bytes = {0};
    assert_true(write_kmat(&ctx, &m, 1, NULL, "obj", &bytes));
    held_file held;
    kiln_material_view view;
    kiln_error err;
    assert_int_equal(hold(&held, &bytes, &view, &err), KILN_OK);
    const kiln_material *row = &view.materials[0];
    assert_true(row->base_color[0] == 1.0f && row->base_color[1] == 1.0f);
    assert_true(row->metallic == 0.0f && row->roughness == 1.0f);
    assert_true(row->emissive[0] == 0.0f && row->occlusion_strength == 1.0f);
    assert_true(row->alpha_cutoff == 0.0f);
    assert_int_equal(row->alpha_mode, KILN_ALPHA_OPAQUE);
    assert_int_equal(row->textures[0].texcoord, 0);
    assert_true(row->textures[0].rotation == 0.0f);
    release(&held);
    bytebuf_free(&bytes);
    ir_material_free(&m);
}

static void kmat_with_no_rows_is_valid(void **state) {
    (void)state;
    cook_context ctx = test_context();
    bytebuf bytes = {0};
    assert_true(write_kmat(&ctx, NULL, 0, NULL, "obj", &bytes));
    held_file held;
    kiln_material_view view;
    kiln_error err;
    assert_int_equal(hold(&held, &bytes, &view, &err), KILN_OK);
    assert_int_equal(view.material_count, 0);
    assert_null(kiln_material_row(&view, 0));
    release(&held);
    bytebuf_free(&bytes);
}

/* ---------------------------------------------------------------------------
 * Reader rules: hand-built files, one defect each
 * ------------------------------------------------------------------------- */

typedef struct defect {
    const char *name;
    uint32_t kind;
    uint16_t version;
    bool omit_desc;
    uint32_t desc_size;
    kiln_material_desc desc;
    int rows;         /* rows actually written */
    bool second_rows; /* a second MTRW chunk */
    void (*edit)(kiln_material *row);
    const char *names; /* an MTNM chunk of names_size bytes, or NULL */
    size_t names_size;
    size_t sources; /* an MSRC chunk of this many u64 (ref hashes), or 0 */
    bool second_sources;
    kiln_result expected;
    const char *message; /* part of the error message */
} defect;

static void edit_nan(kiln_material *row) {
    row->roughness = NAN;
}
static void edit_colour(kiln_material *row) {
    row->base_color[2] = 1.5f;
}
static void edit_emissive(kiln_material *row) {
    row->emissive[0] = -0.1f;
}
static void edit_alpha(kiln_material *row) {
    row->alpha_mode = 3;
}
static void edit_flags(kiln_material *row) {
    row->flags = 0x20;
}
static void edit_reserved(kiln_material *row) {
    row->reserved = 1;
}
static void edit_specular(kiln_material *row) {
    row->specular = 1.5f;
}
static void edit_wrap(kiln_material *row) {
    row->textures[1].wrap_t = KILN_WRAP_COUNT_;
}
static void edit_sampler_reserved(kiln_material *row) {
    row->textures[2].reserved[2] = 1;
}
static void edit_name(kiln_material *row) {
    row->name = 4; /* MTNM is "\0ab\0": 4 is its size */
}
static void edit_texcoord(kiln_material *row) {
    row->textures[3].texcoord = 2;
}
static void edit_transform(kiln_material *row) {
    row->textures[5].scale[0] = INFINITY;
}

static void build_defect(const defect *d, bytebuf *out) {
    ir_material m;
    ir_material_init(&m);
    kiln_material row;
    write_kmat_row(&m, NULL, &row);
    if (d->edit != NULL)
        d->edit(&row);
    container_writer writer;
    container_begin(&writer, d->kind ? d->kind : KILN_KIND_MATERIALS,
                    d->version ? d->version : (uint16_t)KILN_MATERIAL_VERSION);
    kiln_material_desc desc = d->desc;
    if (desc.row_size == 0)
        desc.row_size = sizeof(kiln_material);
    if (!d->omit_desc)
        container_add_chunk(&writer, KILN_CHUNK_MATERIAL_DESC, &desc,
                            d->desc_size ? d->desc_size : sizeof desc);
    kiln_material rows[3] = {row, row, row};
    if (d->rows > 0)
        container_add_chunk(&writer, KILN_CHUNK_MATERIAL_ROWS, rows, (size_t)d->rows * sizeof row);
    if (d->second_rows)
        container_add_chunk(&writer, KILN_CHUNK_MATERIAL_ROWS, rows, sizeof row);
    if (d->names != NULL)
        container_add_chunk(&writer, KILN_CHUNK_MATERIAL_NAMES, d->names, d->names_size);
    const uint64_t sources[4] = {0, 7, 0, 9};
    if (d->sources > 0)
        container_add_chunk(&writer, KILN_CHUNK_MATERIAL_SOURCES, sources, d->sources * 8);
    if (d->second_sources)
        container_add_chunk(&writer, KILN_CHUNK_MATERIAL_SOURCES, sources, d->sources * 8);
    assert_true(container_finish(&writer, out));
}

static void kmat_reader_enforces_every_rule(void **state) {
    (void)state;
    const defect defects[] = {
        {"R1 kind", .kind = KILN_KIND_MESH, .desc = {1}, .rows = 1, .expected = KILN_ERR_BAD_MAGIC,
         .message = "not a material table"},
        {"R2 version", .version = 3, .desc = {1}, .rows = 1, .expected = KILN_ERR_UNSUPPORTED,
         .message = "version 3"},
        {"R2 old version", .version = 1, .desc = {1}, .rows = 1, .expected = KILN_ERR_UNSUPPORTED,
         .message = "recook"},
        {"R3 second MTRW", .desc = {1}, .rows = 1, .second_rows = true,
         .expected = KILN_ERR_CORRUPT, .message = "second MTRW"},
        {"R4 no MTDS", .omit_desc = true, .rows = 1, .expected = KILN_ERR_CORRUPT,
         .message = "no MTDS"},
        {"R4 short MTDS", .desc_size = 12, .desc = {1}, .rows = 1, .expected = KILN_ERR_CORRUPT,
         .message = "no MTDS"},
        {"R5 flags", .desc = {1, 0, 1, 0}, .rows = 1, .expected = KILN_ERR_UNSUPPORTED,
         .message = "flags"},
        {"R5 reserved", .desc = {1, 0, 0, 7}, .rows = 1, .expected = KILN_ERR_CORRUPT,
         .message = "reserved"},
        {"R5 row size", .desc = {1, 128, 0, 0}, .rows = 1, .expected = KILN_ERR_CORRUPT,
         .message = "row_size"},
        {"R6 rows missing", .desc = {2}, .rows = 1, .expected = KILN_ERR_CORRUPT,
         .message = "MTRW chunk is 320 bytes"},
        {"R6 rows absent", .desc = {1}, .rows = 0, .expected = KILN_ERR_CORRUPT,
         .message = "MTRW chunk is 0 bytes"},
        {"R6 huge count", .desc = {0xffffffffu}, .rows = 1, .expected = KILN_ERR_CORRUPT,
         .message = "MTRW"},
        {"R7 NaN", .desc = {1}, .rows = 1, .edit = edit_nan, .expected = KILN_ERR_CORRUPT,
         .message = "non-finite"},
        {"R7 colour", .desc = {1}, .rows = 1, .edit = edit_colour, .expected = KILN_ERR_CORRUPT,
         .message = "out of range"},
        {"R7 emissive", .desc = {1}, .rows = 1, .edit = edit_emissive, .expected = KILN_ERR_CORRUPT,
         .message = "out of range"},
        {"R8 alpha mode", .desc = {1}, .rows = 1, .edit = edit_alpha, .expected = KILN_ERR_CORRUPT,
         .message = "alpha mode 3"},
        {"R8 flags", .desc = {1}, .rows = 1, .edit = edit_flags, .expected = KILN_ERR_UNSUPPORTED,
         .message = "unknown flags"},
        {"R8 reserved", .desc = {1}, .rows = 1, .edit = edit_reserved, .expected = KILN_ERR_CORRUPT,
         .message = "reserved"},
        {"R9 texcoord", .desc = {1}, .rows = 1, .edit = edit_texcoord, .expected = KILN_ERR_CORRUPT,
         .message = "slot occlusion has texcoord 2"},
        {"R9 transform", .desc = {1}, .rows = 1, .edit = edit_transform,
         .expected = KILN_ERR_CORRUPT, .message = "slot alpha"},
        {"R7 specular", .desc = {1}, .rows = 1, .edit = edit_specular, .expected = KILN_ERR_CORRUPT,
         .message = "out of range"},
        {"R9 wrap", .desc = {1}, .rows = 1, .edit = edit_wrap, .expected = KILN_ERR_CORRUPT,
         .message = "slot metallic_roughness has an unknown sampler value"},
        {"R9 sampler reserved", .desc = {1}, .rows = 1, .edit = edit_sampler_reserved,
         .expected = KILN_ERR_CORRUPT, .message = "slot normal has an unknown sampler value"},
        {"R10 name outside MTNM", .desc = {1}, .rows = 1, .edit = edit_name, .names = "\0ab",
         .names_size = 4, .expected = KILN_ERR_CORRUPT, .message = "outside MTNM"},
        {"R10 name without MTNM", .desc = {1}, .rows = 1, .edit = edit_name,
         .expected = KILN_ERR_CORRUPT, .message = "outside MTNM"},
        {"R10 MTNM without NUL", .desc = {1}, .rows = 1, .names = "\0ab", .names_size = 3,
         .expected = KILN_ERR_CORRUPT, .message = "NUL"},
        {"R11 MSRC of another row count", .desc = {3}, .rows = 3, .sources = 2,
         .expected = KILN_ERR_CORRUPT, .message = "MSRC chunk is 16 bytes, expected 3 x 8"},
        {"R11 MSRC longer", .desc = {3}, .rows = 3, .sources = 4, .expected = KILN_ERR_CORRUPT,
         .message = "MSRC"},
        {"R3 second MSRC", .desc = {3}, .rows = 3, .sources = 3, .second_sources = true,
         .expected = KILN_ERR_CORRUPT, .message = "second MSRC"},
        {"valid with MSRC", .desc = {3}, .rows = 3, .sources = 3, .expected = KILN_OK,
         .message = ""},
        {"valid", .desc = {3}, .rows = 3, .expected = KILN_OK, .message = ""},
    };
    for (size_t i = 0; i < sizeof defects / sizeof defects[0]; i++) {
        const defect *d = &defects[i];
        bytebuf bytes = {0};
        build_defect(d, &bytes);
        held_file held;
        kiln_material_view view;
        kiln_error err;
        kiln_result r = hold(&held, &bytes, &view, &err);
        if (r != d->expected || strstr(err.message, d->message) == NULL)
            fail_msg("%s: got %s '%s', expected %s '...%s...'", d->name, kiln_result_str(r),
                     err.message, kiln_result_str(d->expected), d->message);
        if (r != KILN_OK) {
            assert_null(view.materials);
            assert_int_equal(view.material_count, 0);
        }
        if (r == KILN_OK) { /* row i's standalone material, 0 for its own */
            assert_true(kiln_material_source(&view, 1) == (d->sources ? 7u : 0u));
            assert_true(kiln_material_source(&view, 0) == 0 && kiln_material_source(&view, 3) == 0);
        }
        release(&held);
        bytebuf_free(&bytes);
    }
}

/* Every prefix of a valid file is refused cleanly, never read past. */
static void kmat_truncations_are_refused(void **state) {
    (void)state;
    cook_context ctx = test_context();
    ir_material m[2];
    two_materials(m);
    bytebuf bytes = {0};
    assert_true(write_kmat(&ctx, m, 2, NULL, "gltf", &bytes));
    for (size_t size = 0; size < bytes.size; size++) {
        bytebuf prefix = {.data = bytes.data, .size = size};
        held_file held;
        kiln_material_view view;
        kiln_error err;
        assert_int_not_equal(hold(&held, &prefix, &view, &err), KILN_OK);
        release(&held);
    }
    /* And kiln_file_map of a truncated file on disk. */
    char *dir = test_make_temp_dir("kmat_truncated");
    char *path = test_path_join(dir, "t.kmat");
    test_write_file(path, bytes.data, bytes.size - 16);
    kiln_file file;
    kiln_error err;
    assert_int_not_equal(kiln_file_map(&file, path, 0, &err), KILN_OK);
    free(path);
    free(dir);
    bytebuf_free(&bytes);
    ir_material_free(&m[0]);
    ir_material_free(&m[1]);
}

static void kmat_view_rejects_bad_arguments(void **state) {
    (void)state;
    kiln_material_view view;
    kiln_error err;
    assert_int_equal(kiln_material_view_get(NULL, 0, &view, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_null(kiln_material_row(NULL, 0));
    cook_context ctx = test_context();
    bytebuf bytes = {0};
    assert_true(write_kmat(&ctx, NULL, 0, NULL, "obj", &bytes));
    held_file held;
    assert_int_equal(hold(&held, &bytes, &view, &err), KILN_OK);
    assert_int_equal(kiln_material_view_get(&held.file, 0x80, &view, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    release(&held);
    bytebuf_free(&bytes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kmat_round_trips_every_field),
        cmocka_unit_test(kmat_writer_never_writes_what_the_reader_rejects),
        cmocka_unit_test(kmat_with_no_rows_is_valid),
        cmocka_unit_test(kmat_reader_enforces_every_rule),
        cmocka_unit_test(kmat_truncations_are_refused),
        cmocka_unit_test(kmat_view_rejects_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
