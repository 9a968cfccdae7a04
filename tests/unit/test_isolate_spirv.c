/* test_isolate_spirv.c — SPIRV-Cross's reflection in a child process
 * (inspect/isolate_spirv.c, process/spirv_stage.c).
 *
 * The reply kiln reads back: a stage written field by field here reads back
 * to those fields and writes back to the same bytes; every truncation, a
 * byte too many, and forged replies (counts over the bounds or past the
 * bytes, names unterminated, NULL, with a NUL or too long, unknown types,
 * locations out of order, a descriptor twice, a block size on a sampler, an
 * overflowing push-constant range, a workgroup size for a fragment stage, a
 * wrong version) are refused with a reason; a flipped bit is refused or read
 * whole. Then real modules of the corpus: reflected in a child and in
 * process, the programs are byte for byte the same, and a stage whose
 * descriptor conflicts with an earlier stage's is refused as before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

#include "cook/import/isolate.h"
#include "cook/inspect/isolate_spirv.h"
#include "cook/process/spirv.h"

/* ---------------------------------------------------------------------------
 * A reply written field by field (the layout isolate_spirv.c gives)
 * ------------------------------------------------------------------------- */

enum forgery {
    GOOD,
    WRONG_MAGIC,
    OLD_VERSION,
    VERDICT_TWO,
    INPUTS_OVER_BOUND,
    BINDINGS_PAST_THE_BYTES,
    PUSH_OVER_BOUND,
    NAME_UNTERMINATED,
    NAME_NULL,
    NAME_WITH_NUL,
    NAME_TOO_LONG,
    UNKNOWN_BASE_TYPE,
    BASE_TYPE_PAST_16_BITS,
    VECSIZE_FIVE,
    LOCATIONS_DESCENDING,
    LOCATION_TWICE,
    BINDING_TWICE,
    BINDING_TYPE_ZERO,
    BINDING_TYPE_NINE,
    BLOCK_SIZE_ON_A_SAMPLER,
    PUSH_RANGE_OVERFLOWS,
    SPEC_TYPE_UNKNOWN,
    WORKGROUP_ON_FRAGMENT,
    TRAILING_BYTE,
    FORGERY_COUNT
};

static void put_io(bytebuf *out, uint32_t location, uint32_t base_type, uint8_t vecsize,
                   const char *name) {
    wire_put_u32(out, location);
    wire_put_u32(out, base_type);
    wire_put_u8(out, vecsize);
    wire_put_u8(out, 1);
    wire_put_u32(out, 0);
    wire_put_string(out, name);
}

static void put_binding(bytebuf *out, uint32_t set, uint32_t binding, uint32_t type,
                        uint32_t block_size, const char *name) {
    wire_put_u32(out, set);
    wire_put_u32(out, binding);
    wire_put_u32(out, type);
    wire_put_u32(out, 1);
    wire_put_u32(out, block_size);
    wire_put_string(out, name);
}

/* A fragment stage: inputs normal (0) and uv (1), output color (0), a
 * uniform block at (0, 0) and a texture at (0, 1), a push-constant block, a
 * specialization constant; or that with one thing forged. */
static bytebuf forge(enum forgery f) {
    bytebuf out = {0};
    wire_put_u32(&out, f == WRONG_MAGIC ? 0x5356534cu : 0x5356534bu);
    wire_put_u32(&out, f == OLD_VERSION ? 1u : 2u);
    wire_put_u8(&out, f == VERDICT_TWO ? 2 : 1);
    wire_put_string(&out, "");
    wire_put_u32(&out, f == INPUTS_OVER_BOUND ? SPIRV_STAGE_MAX_IO + 1 : 2);
    wire_put_u32(&out, 1);
    put_io(&out, f == LOCATIONS_DESCENDING ? 2 : 0,
           f == UNKNOWN_BASE_TYPE        ? KILN_SHADER_TYPE_COUNT_
           : f == BASE_TYPE_PAST_16_BITS ? 0x10000u + KILN_SHADER_TYPE_FLOAT32
                                         : KILN_SHADER_TYPE_FLOAT32,
           f == VECSIZE_FIVE ? 5 : 3, "inNormal");
    if (f == NAME_WITH_NUL) {
        wire_put_u32(&out, 1);
        wire_put_u32(&out, KILN_SHADER_TYPE_FLOAT32);
        wire_put_u8(&out, 2);
        wire_put_u8(&out, 1);
        wire_put_u32(&out, 0);
        wire_put_u32(&out, 5);
        bytebuf_append(&out, "in\0UV", 5);
    } else {
        put_io(&out, f == LOCATION_TWICE ? 0 : 1, KILN_SHADER_TYPE_FLOAT32, 2,
               f == NAME_NULL ? NULL : "inUV");
    }
    if (f == NAME_TOO_LONG) {
        char *long_name = malloc(SPIRV_STAGE_MAX_NAME + 2);
        assert_non_null(long_name);
        memset(long_name, 'n', SPIRV_STAGE_MAX_NAME + 1);
        long_name[SPIRV_STAGE_MAX_NAME + 1] = '\0';
        put_io(&out, 0, KILN_SHADER_TYPE_FLOAT32, 4, long_name);
        free(long_name);
    } else {
        put_io(&out, 0, KILN_SHADER_TYPE_FLOAT32, 4, "outColor");
    }
    wire_put_u32(&out, f == BINDINGS_PAST_THE_BYTES ? 4000 : 2);
    put_binding(&out, 0, 0, KILN_BINDING_UNIFORM_BUFFER, 80, "Material");
    put_binding(&out, 0, f == BINDING_TWICE ? 0 : 1,
                f == BINDING_TYPE_ZERO         ? KILN_BINDING_INVALID
                : f == BINDING_TYPE_NINE       ? KILN_BINDING_TYPE_COUNT_
                : f == BLOCK_SIZE_ON_A_SAMPLER ? KILN_BINDING_SEPARATE_SAMPLER
                                               : KILN_BINDING_SAMPLED_IMAGE,
                f == BLOCK_SIZE_ON_A_SAMPLER ? 16 : 0, "albedo");
    wire_put_u32(&out, f == PUSH_OVER_BOUND ? SPIRV_STAGE_MAX_PUSH + 1 : 1);
    wire_put_u32(&out, f == PUSH_RANGE_OVERFLOWS ? 0xfffffff0u : 0);
    wire_put_u32(&out, 32);
    wire_put_string(&out, "PushConstants");
    wire_put_string(&out, "push");
    wire_put_u32(&out, 1);
    wire_put_u32(&out, 3);
    wire_put_u32(&out, f == SPEC_TYPE_UNKNOWN ? 99 : KILN_SHADER_TYPE_FLOAT32);
    wire_put_u32(&out, 0x3f800000u);
    if (f == NAME_UNTERMINATED) { /* the last name claims more bytes than follow */
        wire_put_u32(&out, 1000);
        bytebuf_append(&out, "exposure", 8);
        return out;
    }
    wire_put_string(&out, "exposure");
    for (int k = 0; k < 3; k++)
        wire_put_u32(&out, f == WORKGROUP_ON_FRAGMENT ? 8 : 0);
    if (f == TRAILING_BYTE)
        wire_put_u8(&out, 0);
    assert_false(out.failed);
    return out;
}

static const char *name_at(const shader_program_ir *p, uint32_t offset) {
    return shader_ir_string_at(p, offset);
}

static void a_good_reply_reads_back_whole(void **state) {
    (void)state;
    bytebuf good = forge(GOOD);
    shader_program_ir alone;
    bool passed = false;
    char reason[512];
    if (!spirv_reply_read(good.data, good.size, KILN_SHADER_STAGE_FRAGMENT, &alone, &passed, reason,
                          sizeof reason))
        fail_msg("refused: %s", reason);
    assert_true(passed);
    const kiln_shader_stage_desc *d = &alone.stages[0];
    assert_int_equal(alone.stage_count, 1);
    assert_int_equal(d->stage, KILN_SHADER_STAGE_FRAGMENT);
    assert_int_equal(d->input_count, 2);
    assert_int_equal(d->output_count, 1);
    assert_int_equal(d->output_offset, 2);
    const kiln_shader_io *io = (const kiln_shader_io *)(const void *)alone.io.data;
    assert_int_equal(io[1].location, 1);
    assert_int_equal(io[1].vecsize, 2);
    assert_string_equal(name_at(&alone, io[1].name_offset), "inUV");
    assert_int_equal(io[1].name_length, 4);
    assert_string_equal(name_at(&alone, io[2].name_offset), "outColor");
    assert_int_equal(shader_ir_binding_count(&alone), 2);
    const kiln_shader_binding *b = (const kiln_shader_binding *)(const void *)alone.bindings.data;
    assert_int_equal(b[0].block_size, 80);
    assert_int_equal(b[0].stages, 1u << KILN_SHADER_STAGE_FRAGMENT);
    assert_int_equal(b[1].type, KILN_BINDING_SAMPLED_IMAGE);
    assert_string_equal(name_at(&alone, b[1].name_offset), "albedo");
    const kiln_shader_push_constant *p =
        (const kiln_shader_push_constant *)(const void *)alone.push.data;
    assert_int_equal(d->push_count, 1);
    assert_int_equal(p[0].size, 32);
    assert_string_equal(name_at(&alone, p[0].name_offset), "PushConstants");
    const kiln_shader_spec_constant *c =
        (const kiln_shader_spec_constant *)(const void *)alone.spec.data;
    assert_int_equal(d->spec_count, 1);
    assert_int_equal(c[0].constant_id, 3);
    assert_int_equal(c[0].default_value, 0x3f800000u);
    /* Written again: the same bytes. */
    bytebuf again = {0};
    spirv_reply_write(&again, true, "", &alone);
    assert_int_equal(again.size, good.size);
    assert_memory_equal(again.data, good.data, good.size);
    bytebuf_free(&again);
    shader_program_ir_free(&alone);

    /* A reflection that failed, and a validation: the library's reason. */
    bytebuf failed = {0};
    spirv_reply_write(&failed, false, "the module has no fragment entry point named 'ps'", NULL);
    assert_true(spirv_reply_read(failed.data, failed.size, KILN_SHADER_STAGE_FRAGMENT, &alone,
                                 &passed, reason, sizeof reason));
    assert_false(passed);
    assert_string_equal(reason, "the module has no fragment entry point named 'ps'");
    assert_int_equal(alone.stage_count, 0);
    bytebuf_free(&failed);
    bytebuf_free(&good);
}

static void expect_refused(const uint8_t *data, size_t size, kiln_shader_stage stage,
                           const char *label) {
    shader_program_ir alone;
    bool passed = true;
    char reason[512] = "";
    if (spirv_reply_read(data, size, stage, &alone, &passed, reason, sizeof reason))
        fail_msg("%s: accepted", label);
    if (reason[0] == '\0' || passed || alone.stage_count != 0 || alone.strings.data != NULL)
        fail_msg("%s: refused without a reason or left something: '%s'", label, reason);
}

static void bad_replies_are_refused(void **state) {
    (void)state;
    bytebuf good = forge(GOOD);
    for (size_t length = 0; length < good.size; length++) {
        char label[64];
        snprintf(label, sizeof label, "cut at %zu of %zu", length, good.size);
        expect_refused(good.data, length, KILN_SHADER_STAGE_FRAGMENT, label);
    }
    static const char *const names[FORGERY_COUNT] = {
        [WRONG_MAGIC] = "a wrong magic",
        [OLD_VERSION] = "version 1",
        [VERDICT_TWO] = "a verdict of 2",
        [INPUTS_OVER_BOUND] = "inputs over the bound",
        [BINDINGS_PAST_THE_BYTES] = "more bindings than bytes",
        [PUSH_OVER_BOUND] = "push-constant blocks over the bound",
        [NAME_UNTERMINATED] = "a name running past the end",
        [NAME_NULL] = "a NULL name",
        [NAME_WITH_NUL] = "a name with a NUL",
        [NAME_TOO_LONG] = "a name over the bound",
        [UNKNOWN_BASE_TYPE] = "an unknown base type",
        [BASE_TYPE_PAST_16_BITS] = "a base type past 16 bits",
        [VECSIZE_FIVE] = "a vector of 5",
        [LOCATIONS_DESCENDING] = "locations descending",
        [LOCATION_TWICE] = "a location twice",
        [BINDING_TWICE] = "a (set, binding) twice",
        [BINDING_TYPE_ZERO] = "a binding of type 0",
        [BINDING_TYPE_NINE] = "a binding of type 9",
        [BLOCK_SIZE_ON_A_SAMPLER] = "a block size on a sampler",
        [PUSH_RANGE_OVERFLOWS] = "a push-constant range past 2^32",
        [SPEC_TYPE_UNKNOWN] = "a specialization constant of type 99",
        [WORKGROUP_ON_FRAGMENT] = "a workgroup size on a fragment stage",
        [TRAILING_BYTE] = "a byte too many",
    };
    for (int f = GOOD + 1; f < FORGERY_COUNT; f++) {
        bytebuf forged = forge((enum forgery)f);
        expect_refused(forged.data, forged.size, KILN_SHADER_STAGE_FRAGMENT, names[f]);
        bytebuf_free(&forged);
    }
    /* A flipped bit: refused, or read whole (it writes back to those bytes). */
    uint8_t *copy = malloc(good.size);
    assert_non_null(copy);
    for (size_t at = 0; at < good.size; at++) {
        for (int bit = 0; bit < 8; bit++) {
            memcpy(copy, good.data, good.size);
            copy[at] ^= (uint8_t)(1u << bit);
            shader_program_ir alone;
            bool passed = false;
            char reason[512];
            if (!spirv_reply_read(copy, good.size, KILN_SHADER_STAGE_FRAGMENT, &alone, &passed,
                                  reason, sizeof reason))
                continue;
            bytebuf again = {0};
            spirv_reply_write(&again, passed, reason, passed ? &alone : NULL);
            assert_int_equal(again.size, good.size);
            assert_memory_equal(again.data, copy, good.size);
            bytebuf_free(&again);
            shader_program_ir_free(&alone);
        }
    }
    free(copy);
    bytebuf_free(&good);
}

/* The fuzz harness's seeds are replies it accepts. */
static void the_fuzz_seeds_are_accepted(void **state) {
    (void)state;
    static const char *const seeds[] = {"fragment", "compute", "failed"};
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        char *dir = test_path_join(KILN_TEST_DATA_DIR, "../fuzz/seeds/spirv_reply");
        char *path = test_path_join(dir, seeds[i]);
        size_t size = 0;
        uint8_t *bytes = test_read_file(path, &size);
        assert_true(size > 1);
        shader_program_ir alone;
        bool passed = false;
        char reason[512];
        if (!spirv_reply_read(bytes + 1, size - 1, (kiln_shader_stage)bytes[0], &alone, &passed,
                              reason, sizeof reason))
            fail_msg("%s: %s", seeds[i], reason);
        assert_true(passed == (strcmp(seeds[i], "failed") != 0));
        shader_program_ir_free(&alone);
        free(bytes);
        free(path);
        free(dir);
    }
}

/* ---------------------------------------------------------------------------
 * Real modules
 * ------------------------------------------------------------------------- */

static uint32_t *read_module(const char *relative, size_t *word_count) {
    char *dir = test_path_join(test_corpus_dir(), "shaders/vulkan-samples/glsl");
    char *path = test_path_join(dir, relative);
    size_t size = 0;
    uint8_t *bytes = test_read_file(path, &size);
    assert_true(size % 4 == 0 && size >= 20);
    uint32_t *words = malloc(size);
    assert_non_null(words);
    memcpy(words, bytes, size);
    *word_count = size / 4;
    free(bytes);
    free(path);
    free(dir);
    return words;
}

static void expect_same_buffer(const bytebuf *a, const bytebuf *b, const char *what) {
    if (a->size != b->size || (a->size > 0 && memcmp(a->data, b->data, a->size) != 0))
        fail_msg("%s differ (%zu and %zu bytes)", what, a->size, b->size);
}

static void a_child_reflects_as_this_process_does(void **state) {
    (void)state;
    if (test_skip_without_corpus("a_child_reflects_as_this_process_does"))
        skip();
    static const struct {
        const char *vertex, *fragment;
    } programs[] = {
        {"inputattachments/attachmentread.vert.spv", "inputattachments/attachmentread.frag.spv"},
        {"inputattachments/attachmentwrite.vert.spv", "inputattachments/attachmentwrite.frag.spv"},
        {"dynamicuniformbuffer/base.vert.spv", "dynamicuniformbuffer/base.frag.spv"},
    };
    setenv("KILN_ISOLATE", "1", 1);
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
        shader_program_ir here = {0}, child = {0};
        const char *paths[2] = {programs[i].vertex, programs[i].fragment};
        const kiln_shader_stage stages[2] = {KILN_SHADER_STAGE_VERTEX, KILN_SHADER_STAGE_FRAGMENT};
        for (int s = 0; s < 2; s++) {
            size_t word_count = 0;
            uint32_t *words = read_module(paths[s], &word_count);
            char reason[512];
            if (!spirv_reflect_stage(&here, stages[s], "main", words, word_count, reason,
                                     sizeof reason))
                fail_msg("%s in process: %s", paths[s], reason);
            if (!spirv_reflect_stage_isolated(&child, stages[s], "main", words, word_count,
                                              paths[s], 0.0, reason, sizeof reason))
                fail_msg("%s in a child: %s", paths[s], reason);
            free(words);
        }
        assert_int_equal(here.stage_count, 2);
        assert_int_equal(child.stage_count, 2);
        assert_memory_equal(here.stages, child.stages, sizeof here.stages);
        expect_same_buffer(&here.code, &child.code, "code");
        expect_same_buffer(&here.io, &child.io, "inputs and outputs");
        expect_same_buffer(&here.bindings, &child.bindings, "bindings");
        expect_same_buffer(&here.push, &child.push, "push constants");
        expect_same_buffer(&here.push_instances, &child.push_instances, "push instances");
        expect_same_buffer(&here.spec, &child.spec, "specialization constants");
        expect_same_buffer(&here.strings, &child.strings, "strings");
        assert_true(shader_ir_binding_count(&here) > 0);
        shader_program_ir_free(&here);
        shader_program_ir_free(&child);
    }
    unsetenv("KILN_ISOLATE");
}

/* A stage declaring an earlier stage's (set, binding) with another type is
 * refused when it joins the program, naming both. */
static void a_conflicting_stage_is_refused_when_it_joins(void **state) {
    (void)state;
    bytebuf good = forge(GOOD);
    shader_program_ir fragment, program = {0};
    bool passed = false;
    char reason[512];
    assert_true(spirv_reply_read(good.data, good.size, KILN_SHADER_STAGE_FRAGMENT, &fragment,
                                 &passed, reason, sizeof reason));
    /* A vertex stage with a storage buffer at (0, 1), where the fragment
     * stage has its texture. */
    shader_program_ir vertex = {.stage_count = 1};
    vertex.stages[0].stage = KILN_SHADER_STAGE_VERTEX;
    kiln_shader_binding b = {.set = 0,
                             .binding = 1,
                             .type = KILN_BINDING_STORAGE_BUFFER,
                             .count = 1,
                             .stages = 1u << KILN_SHADER_STAGE_VERTEX,
                             .block_size = 16};
    shader_ir_string(&vertex, "Bones", &b.name_offset, &b.name_length);
    bytebuf_append(&vertex.bindings, &b, sizeof b);
    assert_true(spirv_stage_check(&vertex, KILN_SHADER_STAGE_VERTEX, reason, sizeof reason));
    static const uint32_t words[5] = {0x07230203u, 0x00010000u, 0, 1, 0};
    assert_true(spirv_stage_append(&program, &vertex, "main", words, 5, reason, sizeof reason));
    assert_false(spirv_stage_append(&program, &fragment, "main", words, 5, reason, sizeof reason));
    assert_string_equal(reason, "set 0 binding 1 is 'albedo' (sampled_image x1) here but another "
                                "stage declares 'Bones' (storage_buffer x1)");
    shader_program_ir_free(&vertex);
    shader_program_ir_free(&fragment);
    shader_program_ir_free(&program);
    bytebuf_free(&good);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_good_reply_reads_back_whole),
        cmocka_unit_test(bad_replies_are_refused),
        cmocka_unit_test(the_fuzz_seeds_are_accepted),
        cmocka_unit_test(a_child_reflects_as_this_process_does),
        cmocka_unit_test(a_conflicting_stage_is_refused_when_it_joins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
