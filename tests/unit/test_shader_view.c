/*
 * test_shader_view.c — a two-stage program cooked through the shader driver:
 * its tables hold exactly what the sources declare (locations, formats, sets,
 * bindings, types, counts, stages, push-constant range, workgroup size,
 * specialization constant), and kiln_shader_view_get rejects damaged files by
 * kshader.md's rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/cook.h"
#include "test_support.h"

static const char *vertex_source =
    "#version 450\n"
    "layout(location = 0) in vec3 position;\n"
    "layout(location = 3) in vec2 uv;\n"
    "layout(location = 0) out vec2 out_uv;\n"
    "layout(set = 0, binding = 1) uniform Camera { mat4 view_projection; vec4 eye; } camera;\n"
    "layout(push_constant) uniform Object { layout(offset = 16) mat4 model; } object;\n"
    "void main() { out_uv = uv; gl_Position = camera.view_projection * object.model *\n"
    "    vec4(position, 1.0) + camera.eye; }\n";
static const char *fragment_source =
    "#version 450\n"
    "layout(location = 0) in vec2 out_uv;\n"
    "layout(set = 0, binding = 1) uniform Camera { mat4 view_projection; vec4 eye; } camera;\n"
    "layout(set = 1, binding = 0) uniform sampler2D textures[4];\n"
    "layout(location = 0) out vec4 color;\n"
    "void main() { color = texture(textures[1], out_uv) * camera.eye; }\n";
static const char *compute_source =
    "#version 450\n"
    "layout(constant_id = 7) const int COUNT = 12;\n"
    "layout(local_size_x = 16, local_size_y = 4, local_size_z = 1) in;\n"
    "layout(set = 0, binding = 0) buffer Data { uint values[]; } data;\n"
    "layout(push_constant) uniform Params { uint offset; };\n" /* anonymous */
    "void main() { data.values[gl_GlobalInvocationID.x + offset] = uint(COUNT); }\n";

static uint8_t *cook_one(const char *root, const char *source, size_t *size) {
    char *out = test_path_join(root, "out");
    cook_settings settings;
    cook_settings_default(&settings);
    cook_request request = {.input_root = root,
                            .output_root = out,
                            .source_path = source,
                            .importer = cook_registry_match(source),
                            .settings = &settings,
                            .verify = true};
    cook_asset_result result;
    bool ok = cook_asset(&request, &result);
    if (!ok)
        fail_msg("%s", result.diag.text.data ? (const char *)result.diag.text.data : "failed");
    assert_int_equal(result.outputs.count, 1);
    char *path = test_path_join(out, result.outputs.items[0]);
    uint8_t *bytes = test_read_file(path, size);
    free(path);
    free(out);
    cook_asset_result_free(&result);
    return bytes;
}

static void write_sources(const char *root) {
    test_write_in(root, "prog.shader/vertex.vert", vertex_source, strlen(vertex_source));
    test_write_in(root, "prog.shader/fragment.frag", fragment_source, strlen(fragment_source));
    test_write_in(root, "fill.comp", compute_source, strlen(compute_source));
}

static void program_tables_hold_what_the_sources_declare(void **state) {
    (void)state;
    char *root = test_make_temp_dir("shader_view");
    write_sources(root);
    size_t size = 0;
    uint8_t *bytes = cook_one(root, "prog.shader", &size);
    kiln_file file;
    kiln_error error;
    kiln_shader_view view;
    assert_int_equal(kiln_file_from_memory(&file, bytes, size, "prog.kshader", 0, &error), KILN_OK);
    assert_int_equal(kiln_shader_view_get(&file, KILN_OPEN_DEEP, &view, &error), KILN_OK);
    assert_int_equal(view.stage_count, 2);
    assert_int_equal(view.desc->target, KILN_SHADER_TARGET_VULKAN_1_3);
    assert_int_equal(view.desc->stage_mask,
                     (1u << KILN_SHADER_STAGE_VERTEX) | (1u << KILN_SHADER_STAGE_FRAGMENT));
    const kiln_shader_stage_desc *vs = &view.stages[0];
    assert_int_equal(vs->stage, KILN_SHADER_STAGE_VERTEX);
    assert_string_equal(kiln_shader_string(&view, vs->entry_offset), "main");
    uint32_t words = 0;
    const uint32_t *code = kiln_shader_stage_code(&view, 0, &words);
    assert_true(words > 5);
    assert_int_equal(code[0], KILN_SPIRV_MAGIC);
    /* Vertex inputs: location 0 float3 position, location 3 float2 uv. */
    assert_int_equal(vs->input_count, 2);
    const kiln_shader_io *in0 = &view.io[vs->input_offset], *in1 = &view.io[vs->input_offset + 1];
    assert_int_equal(in0->location, 0);
    assert_string_equal(kiln_shader_string(&view, in0->name_offset), "position");
    assert_int_equal(in0->base_type, KILN_SHADER_TYPE_FLOAT32);
    assert_int_equal(in0->vecsize, 3);
    assert_int_equal(in1->location, 3);
    assert_int_equal(in1->vecsize, 2);
    /* Push constants: the model matrix at offset 16, 64 bytes. */
    assert_int_equal(vs->push_count, 1);
    assert_int_equal(view.push_constants[vs->push_offset].offset, 16);
    assert_int_equal(view.push_constants[vs->push_offset].size, 64);
    /* named like buffers, by the block's type; the variable's name beside it */
    assert_string_equal(kiln_shader_string(&view, view.push_constants[vs->push_offset].name_offset),
                        "Object");
    assert_non_null(view.push_instances);
    assert_string_equal(kiln_shader_string(&view, view.push_instances[vs->push_offset].name_offset),
                        "object");
    /* Bindings: (0,1) Camera in both stages, 80 bytes; (1,0) sampler2D[4] in the fragment. */
    assert_int_equal(view.binding_count, 2);
    assert_int_equal(view.bindings[0].set, 0);
    assert_int_equal(view.bindings[0].binding, 1);
    assert_int_equal(view.bindings[0].type, KILN_BINDING_UNIFORM_BUFFER);
    assert_string_equal(kiln_shader_string(&view, view.bindings[0].name_offset), "Camera");
    assert_int_equal(view.bindings[0].stages, view.desc->stage_mask);
    assert_int_equal(view.bindings[0].block_size, 80);
    assert_int_equal(view.bindings[1].set, 1);
    assert_int_equal(view.bindings[1].binding, 0);
    assert_int_equal(view.bindings[1].type, KILN_BINDING_SAMPLED_IMAGE);
    assert_int_equal(view.bindings[1].count, 4);
    assert_int_equal(view.bindings[1].stages, 1u << KILN_SHADER_STAGE_FRAGMENT);
    char reason[512];
    assert_true(inspect_shader(&view, "lit.kshader", reason, sizeof reason));
    kiln_file_close(&file);

    /* Damaged copies, one rule each. */
    const kiln_chunk_entry *chunks = (const kiln_chunk_entry *)(bytes + 48);
    uint64_t stages_at = 0, bindings_at = 0, desc_at = 0, instances_at = 0;
    for (uint32_t i = 0; i < ((const kiln_container_header *)bytes)->chunk_count; i++) {
        if (chunks[i].fourcc == KILN_CHUNK_SHADER_STAGES)
            stages_at = chunks[i].offset;
        if (chunks[i].fourcc == KILN_CHUNK_SHADER_BINDINGS)
            bindings_at = chunks[i].offset;
        if (chunks[i].fourcc == KILN_CHUNK_SHADER_DESC)
            desc_at = chunks[i].offset;
        if (chunks[i].fourcc == KILN_CHUNK_SHADER_PUSH_INSTANCES)
            instances_at = chunks[i].offset;
    }
    assert_true(stages_at && bindings_at && desc_at && instances_at);
    struct {
        uint64_t at;
        uint32_t value;
        kiln_result expected;
        const char *rule;
    } damage[] = {
        {stages_at + offsetof(kiln_shader_stage_desc, stage), 99, KILN_ERR_UNSUPPORTED, "R6"},
        {stages_at + offsetof(kiln_shader_stage_desc, code_words), 0x7fffffff, KILN_ERR_CORRUPT,
         "R7"},
        {stages_at + offsetof(kiln_shader_stage_desc, entry_length), 1000, KILN_ERR_CORRUPT, "R8"},
        {stages_at + offsetof(kiln_shader_stage_desc, workgroup_size), 8, KILN_ERR_CORRUPT, "R10"},
        {bindings_at + offsetof(kiln_shader_binding, type), 42, KILN_ERR_CORRUPT, "R11"},
        {bindings_at + offsetof(kiln_shader_binding, set), 5, KILN_ERR_CORRUPT, "R12"},
        {desc_at + offsetof(kiln_shader_desc, binding_count), 3, KILN_ERR_CORRUPT, "R5"},
        {desc_at + offsetof(kiln_shader_desc, stage_mask), 1, KILN_ERR_CORRUPT, "R6"},
        {desc_at + offsetof(kiln_shader_desc, target), 4, KILN_ERR_CORRUPT, "R4"},
        {instances_at + offsetof(kiln_shader_push_instance, name_length), 1u << 20,
         KILN_ERR_CORRUPT, "R13"},
        {desc_at + offsetof(kiln_shader_desc, push_constant_count), 2, KILN_ERR_CORRUPT, "R5"},
    };
    for (size_t d = 0; d < sizeof damage / sizeof damage[0]; d++) {
        uint8_t *copy = malloc(size);
        assert_non_null(copy);
        memcpy(copy, bytes, size);
        memcpy(copy + damage[d].at, &damage[d].value, 4);
        assert_int_equal(kiln_file_from_memory(&file, copy, size, "bad.kshader", 0, &error),
                         KILN_OK);
        kiln_result r = kiln_shader_view_get(&file, KILN_OPEN_DEEP, &view, &error);
        if (r != damage[d].expected)
            fail_msg("%s: got %s (%s)", damage[d].rule, kiln_result_str(r), error.message);
        kiln_file_close(&file);
        free(copy);
    }
    free(bytes);

    /* A compute shader: workgroup size and specialization constant. */
    bytes = cook_one(root, "fill.comp", &size);
    assert_int_equal(kiln_file_from_memory(&file, bytes, size, "fill.comp.kshader", 0, &error),
                     KILN_OK);
    assert_int_equal(kiln_shader_view_get(&file, 0, &view, &error), KILN_OK);
    assert_int_equal(view.stages[0].stage, KILN_SHADER_STAGE_COMPUTE);
    assert_int_equal(view.stages[0].workgroup_size[0], 16);
    assert_int_equal(view.stages[0].workgroup_size[1], 4);
    assert_int_equal(view.stages[0].workgroup_size[2], 1);
    assert_int_equal(view.stages[0].spec_count, 1);
    assert_int_equal(view.spec_constants[0].constant_id, 7);
    assert_int_equal(view.spec_constants[0].default_value, 12);
    assert_int_equal(view.spec_constants[0].base_type, KILN_SHADER_TYPE_INT32);
    assert_int_equal(view.binding_count, 1);
    assert_int_equal(view.bindings[0].type, KILN_BINDING_STORAGE_BUFFER);
    /* An anonymous push-constant block: its type names it, no instance. */
    assert_int_equal(view.stages[0].push_count, 1);
    assert_string_equal(kiln_shader_string(&view, view.push_constants[0].name_offset), "Params");
    assert_string_equal(kiln_shader_string(&view, view.push_instances[0].name_offset), "");
    assert_int_equal(view.push_constants[0].size, 4);
    kiln_file_close(&file);
    free(bytes);
    free(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(program_tables_hold_what_the_sources_declare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
