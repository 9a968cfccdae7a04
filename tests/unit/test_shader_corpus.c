/*
 * test_shader_corpus.c — every shader row of the shared corpus's index.tsv:
 * rows marked ok cook (with --verify), their modules pass SPIRV-Tools'
 * validator and kiln check's re-reflection, and the sets, bindings, types,
 * counts and vertex inputs of the .kshader equal what SPIRV-Cross reads from
 * the reference .spv beside the source (compiled by the sample authors with
 * glslangValidator); rows marked error fail with a message naming the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/cook.h"
#include "cook/process/spirv.h"
#include "test_support.h"

/* The stage of a corpus file by its extension. */
static kiln_shader_stage stage_of(const char *path) {
    static const struct {
        const char *ext;
        kiln_shader_stage stage;
    } table[] = {{".vert", KILN_SHADER_STAGE_VERTEX},
                 {".tesc", KILN_SHADER_STAGE_TESS_CONTROL},
                 {".tese", KILN_SHADER_STAGE_TESS_EVALUATION},
                 {".geom", KILN_SHADER_STAGE_GEOMETRY},
                 {".frag", KILN_SHADER_STAGE_FRAGMENT},
                 {".comp", KILN_SHADER_STAGE_COMPUTE},
                 {".task", KILN_SHADER_STAGE_TASK},
                 {".mesh", KILN_SHADER_STAGE_MESH},
                 {".rgen", KILN_SHADER_STAGE_RAYGEN},
                 {".rahit", KILN_SHADER_STAGE_ANY_HIT},
                 {".rchit", KILN_SHADER_STAGE_CLOSEST_HIT},
                 {".rmiss", KILN_SHADER_STAGE_MISS}};
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof table / sizeof table[0]; i++)
        if (strcmp(dot, table[i].ext) == 0)
            return table[i].stage;
    return KILN_SHADER_STAGE_COUNT_;
}

/* The reference module's interface, reflected by SPIRV-Cross. */
static void reflect_reference(const char *spv_path, kiln_shader_stage stage,
                              shader_program_ir *out) {
    size_t size = 0;
    uint8_t *bytes = test_read_file(spv_path, &size);
    assert_true(size % 4 == 0);
    uint32_t *words = malloc(size);
    assert_non_null(words);
    memcpy(words, bytes, size);
    char reason[512];
    if (!spirv_reflect_stage(out, stage, "main", words, size / 4, reason, sizeof reason))
        fail_msg("%s: %s", spv_path, reason);
    shader_ir_sort_bindings(out);
    free(words);
    free(bytes);
}

static int compare_rows(const kiln_shader_view *view, const shader_program_ir *ref,
                        const char *path) {
    int problems = 0;
    const kiln_shader_binding *b = (const kiln_shader_binding *)(const void *)ref->bindings.data;
    uint32_t count = shader_ir_binding_count(ref);
    if (count != view->binding_count) {
        fprintf(stderr, "%s: %u bindings, the reference has %u\n", path, view->binding_count,
                count);
        problems++;
    }
    for (uint32_t i = 0; i < count && i < view->binding_count; i++) {
        const kiln_shader_binding *a = &view->bindings[i];
        if (a->set != b[i].set || a->binding != b[i].binding || a->type != b[i].type ||
            a->count != b[i].count) {
            fprintf(stderr, "%s: binding %u is set %u binding %u %s x%u, reference %u %u %s x%u\n",
                    path, i, a->set, a->binding, kiln_binding_type_str(a->type), a->count, b[i].set,
                    b[i].binding, kiln_binding_type_str(b[i].type), b[i].count);
            problems++;
        }
    }
    const kiln_shader_stage_desc *s = &view->stages[0];
    const kiln_shader_stage_desc *r = &ref->stages[0];
    const kiln_shader_io *rio = (const kiln_shader_io *)(const void *)ref->io.data;
    if (s->stage == KILN_SHADER_STAGE_VERTEX) {
        if (s->input_count != r->input_count) {
            fprintf(stderr, "%s: %u vertex inputs, the reference has %u\n", path, s->input_count,
                    r->input_count);
            problems++;
        }
        for (uint32_t i = 0; i < s->input_count && i < r->input_count; i++) {
            const kiln_shader_io *a = &view->io[s->input_offset + i];
            const kiln_shader_io *e = &rio[r->input_offset + i];
            if (a->location != e->location || a->base_type != e->base_type ||
                a->vecsize != e->vecsize || a->columns != e->columns ||
                strcmp(kiln_shader_string(view, a->name_offset),
                       shader_ir_string_at(ref, e->name_offset)) != 0) {
                fprintf(stderr, "%s: vertex input %u differs from the reference\n", path, i);
                problems++;
            }
        }
    }
    return problems;
}

static void corpus_shaders_cook_and_match_reference(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_shaders"))
        skip();
    const char *corpus = test_corpus_dir();
    char *index_path = test_path_join(corpus, "index.tsv");
    size_t size = 0;
    char *index = (char *)test_read_file(index_path, &size);
    char *out = test_make_temp_dir("shader_corpus");
    cook_settings settings;
    cook_settings_default(&settings);
    settings.threads = 1;
    int ok_rows = 0, error_rows = 0, problems = 0;
    for (char *line = strtok(index, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (strncmp(line, "shaders/", 8) != 0)
            continue;
        char path[512], format[32], category[64], expect[16];
        if (sscanf(line, "%511[^\t]\t%31[^\t]\t%63[^\t]\t%15[^\t]", path, format, category,
                   expect) != 4)
            fail_msg("index.tsv: cannot read '%s'", line);
        const cook_importer *importer = cook_registry_match(path);
        assert_non_null(importer);
        assert_int_equal(importer->kind, COOK_KIND_SHADER);
        cook_request request = {.input_root = corpus,
                                .output_root = out,
                                .source_path = path,
                                .importer = importer,
                                .settings = &settings,
                                .verify = true};
        cook_asset_result result;
        bool cooked = cook_asset(&request, &result);
        const char *text = result.diag.text.data ? (const char *)result.diag.text.data : "";
        if (strcmp(expect, "error") == 0) {
            error_rows++;
            if (cooked || strstr(text, path) == NULL || strstr(text, "error:") == NULL) {
                fprintf(stderr, "%s: expected an error naming the file, got: %s\n", path, text);
                problems++;
            }
            cook_asset_result_free(&result);
            continue;
        }
        ok_rows++;
        if (!cooked || result.outputs.count != 1) {
            fprintf(stderr, "%s: did not cook: %s\n", path, text);
            problems++;
            cook_asset_result_free(&result);
            continue;
        }
        char *written = test_path_join(out, result.outputs.items[0]);
        kiln_file file;
        kiln_error error;
        kiln_shader_view view;
        assert_int_equal(kiln_file_map(&file, written, KILN_OPEN_VERIFY_CHECKSUM, &error), KILN_OK);
        assert_int_equal(kiln_shader_view_get(&file, KILN_OPEN_DEEP, &view, &error), KILN_OK);
        char reason[1024];
        if (!inspect_shader(&view, written, reason, sizeof reason)) {
            fprintf(stderr, "%s: %s\n", path, reason);
            problems++;
        }
        char spv[600];
        snprintf(spv, sizeof spv, "%s/%s.spv", corpus, path);
        shader_program_ir reference = {0};
        reflect_reference(spv, stage_of(path), &reference);
        problems += compare_rows(&view, &reference, path);
        shader_program_ir_free(&reference);
        kiln_file_close(&file);
        free(written);
        cook_asset_result_free(&result);
    }
    printf("corpus shaders: %d ok rows, %d error rows, %d problems\n", ok_rows, error_rows,
           problems);
    assert_true(ok_rows >= 170);
    assert_true(error_rows >= 1);
    assert_int_equal(problems, 0);
    free(out);
    free(index);
    free(index_path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corpus_shaders_cook_and_match_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
