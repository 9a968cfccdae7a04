/* shader.c — the shader program view (docs/formats/kshader.md).
 *
 * kiln_shader_view_get checks the descriptor, every table's size against its
 * count and every range a stage or entry names, each rule citing kshader.md's
 * numbered requirement. The container has already been validated (chunks
 * inside the file, 16-byte aligned), so after these checks every table is
 * used in place. The SPIR-V words are not interpreted beyond the magic. */
#include <inttypes.h>
#include <string.h>

#include "common/checked.h"
#include "kiln/kiln.h"
#include "runtime/internal.h"

const char *kiln_shader_stage_str(kiln_shader_stage stage) {
    static const char *const names[KILN_SHADER_STAGE_COUNT_] = {
        "vertex",       "tess_control", "tess_evaluation", "geometry", "fragment",    "compute",
        "task",         "mesh",         "raygen",          "any_hit",  "closest_hit", "miss",
        "intersection", "callable"};
    return (unsigned)stage < KILN_SHADER_STAGE_COUNT_ ? names[stage] : "invalid";
}

const char *kiln_binding_type_str(kiln_binding_type type) {
    static const char *const names[KILN_BINDING_TYPE_COUNT_] = {
        "invalid",       "uniform_buffer", "storage_buffer",
        "sampled_image", "separate_image", "separate_sampler",
        "storage_image", "subpass_input",  "acceleration_structure"};
    return (unsigned)type < KILN_BINDING_TYPE_COUNT_ ? names[type] : "invalid";
}

const char *kiln_shader_base_type_str(kiln_shader_base_type type) {
    static const char *const names[KILN_SHADER_TYPE_COUNT_] = {
        "unknown", "bool",  "int8",   "uint8", "int16", "uint16", "int",
        "uint",    "int64", "uint64", "half",  "float", "double", "struct"};
    return (unsigned)type < KILN_SHADER_TYPE_COUNT_ ? names[type] : "invalid";
}

const char *kiln_shader_target_str(kiln_shader_target target) {
    static const char *const names[KILN_SHADER_TARGET_COUNT_] = {"vulkan1.0", "vulkan1.1",
                                                                 "vulkan1.2", "vulkan1.3"};
    return (unsigned)target < KILN_SHADER_TARGET_COUNT_ ? names[target] : "invalid";
}

int kiln_shader_find_stage(const kiln_shader_view *view, kiln_shader_stage stage) {
    for (uint32_t i = 0; view != NULL && i < view->stage_count; i++)
        if (view->stages[i].stage == (uint32_t)stage)
            return (int)i;
    return -1;
}

const uint32_t *kiln_shader_stage_code(const kiln_shader_view *view, uint32_t index,
                                       uint32_t *word_count) {
    if (word_count != NULL)
        *word_count = 0;
    if (view == NULL || view->stages == NULL || index >= view->stage_count)
        return NULL;
    if (word_count != NULL)
        *word_count = view->stages[index].code_words;
    return view->code + view->stages[index].code_offset;
}

const char *kiln_shader_string(const kiln_shader_view *view, uint32_t offset) {
    if (view == NULL || view->strings == NULL || offset >= view->strings_size)
        return "";
    return view->strings + offset;
}

/* The chunks of a shader file; each at most once (kshader.md R3). */
enum {
    C_DESC,
    C_STAGES,
    C_CODE,
    C_IO,
    C_BINDINGS,
    C_PUSH,
    C_SPEC,
    C_STRINGS,
    C_PUSH_INSTANCES,
    C_COUNT
};
static const uint32_t chunk_ids[C_COUNT] = {
    KILN_CHUNK_SHADER_DESC, KILN_CHUNK_SHADER_STAGES,   KILN_CHUNK_SHADER_CODE,
    KILN_CHUNK_SHADER_IO,   KILN_CHUNK_SHADER_BINDINGS, KILN_CHUNK_SHADER_PUSH,
    KILN_CHUNK_SHADER_SPEC, KILN_CHUNK_SHADER_STRINGS,  KILN_CHUNK_SHADER_PUSH_INSTANCES};

/* kshader.md R5: a table chunk holds exactly count elements (absent: 0). */
static kiln_result table(const kiln_file *file, const kiln_chunk_entry *chunk, uint32_t count,
                         size_t element, const char *what, const void **out, kiln_error *err) {
    uint64_t expected = 0;
    uint64_t actual = chunk != NULL ? chunk->size : 0;
    if (!checked_mul_u64(count, element, &expected) || actual != expected)
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "%s chunk is %" PRIu64 " bytes, expected %" PRIu32 " x %zu", what,
                            actual, count, element);
    *out = chunk != NULL && actual > 0 ? file->data + chunk->offset : NULL;
    return KILN_OK;
}

/* kshader.md R7: [offset, offset + count) inside a table of `size`. */
static bool range_ok(uint32_t offset, uint32_t count, uint64_t size) {
    return (uint64_t)offset + count <= size;
}

/* kshader.md R8: a string lies inside SHST with its NUL right after it. */
static bool string_ok(const kiln_shader_view *view, uint32_t offset, uint32_t length) {
    return runtime_string_valid(view->strings, view->strings_size, offset, length);
}

static kiln_result check_stage(const kiln_file *file, const kiln_shader_view *view, uint32_t i,
                               uint32_t *mask, kiln_error *err) {
    const char *name = file->name;
    const kiln_shader_stage_desc *s = &view->stages[i];
    const kiln_shader_desc *d = view->desc;
    if (s->stage >= KILN_SHADER_STAGE_COUNT_) /* kshader.md R6 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name, "stage %" PRIu32 " has kind %" PRIu32,
                            i, s->stage);
    if (i > 0 && s->stage <= view->stages[i - 1].stage) /* kshader.md R6 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "stage %" PRIu32 " (%s) is not after the stage before it", i,
                            kiln_shader_stage_str((kiln_shader_stage)s->stage));
    *mask |= 1u << s->stage;
    if (s->flags != 0 || s->reserved[0] != 0 || s->reserved[1] != 0 ||
        s->reserved[2] != 0) /* kshader.md R6 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "stage %" PRIu32 " has flags or reserved words set", i);
    if (s->code_words < 5 || !range_ok(s->code_offset, s->code_words, d->code_words) ||
        view->code[s->code_offset] != KILN_SPIRV_MAGIC) /* kshader.md R7, R9 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "stage %" PRIu32 " code [%" PRIu32 ", +%" PRIu32
                            ") is not a SPIR-V module inside SPRV (%" PRIu32 " words)",
                            i, s->code_offset, s->code_words, d->code_words);
    if (!range_ok(s->input_offset, s->input_count, d->io_count) ||
        !range_ok(s->output_offset, s->output_count, d->io_count) ||
        !range_ok(s->push_offset, s->push_count, d->push_constant_count) ||
        !range_ok(s->spec_offset, s->spec_count, d->spec_constant_count)) /* kshader.md R7 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "stage %" PRIu32 " names a range outside its table", i);
    if (!string_ok(view, s->entry_offset, s->entry_length) || s->entry_length == 0) /* R8 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "stage %" PRIu32 " entry point is not a string of SHST", i);
    bool grid = s->stage == KILN_SHADER_STAGE_COMPUTE || s->stage == KILN_SHADER_STAGE_TASK ||
                s->stage == KILN_SHADER_STAGE_MESH;
    if (!grid && (s->workgroup_size[0] | s->workgroup_size[1] | s->workgroup_size[2]) != 0)
        return runtime_fail(err, KILN_ERR_CORRUPT, name, /* kshader.md R10 */
                            "stage %" PRIu32 " (%s) has a workgroup size", i,
                            kiln_shader_stage_str((kiln_shader_stage)s->stage));
    return KILN_OK;
}

static kiln_result check_tables(const kiln_file *file, const kiln_shader_view *view,
                                kiln_error *err) {
    const char *name = file->name;
    const kiln_shader_desc *d = view->desc;
    for (uint32_t i = 0; i < d->io_count; i++) {
        const kiln_shader_io *io = &view->io[i];
        if (io->base_type >= KILN_SHADER_TYPE_COUNT_ || io->vecsize > 4 || io->columns > 4 ||
            io->flags != 0 || !string_ok(view, io->name_offset, io->name_length)) /* R11 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "input/output %" PRIu32 " has an unknown type or a bad name", i);
    }
    for (uint32_t i = 0; i < d->binding_count; i++) {
        const kiln_shader_binding *b = &view->bindings[i];
        if (b->type == KILN_BINDING_INVALID || b->type >= KILN_BINDING_TYPE_COUNT_ ||
            b->stages == 0 || (b->stages & ~d->stage_mask) != 0 ||
            !string_ok(view, b->name_offset, b->name_length)) /* kshader.md R11 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "binding %" PRIu32 " has type %" PRIu32 ", stages 0x%" PRIx32
                                " or a bad name",
                                i, b->type, b->stages);
        if (i > 0) { /* kshader.md R12 */
            const kiln_shader_binding *p = &view->bindings[i - 1];
            if (p->set > b->set || (p->set == b->set && p->binding >= b->binding))
                return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                    "binding %" PRIu32 " (set %" PRIu32 ", binding %" PRIu32
                                    ") is not after the one before it",
                                    i, b->set, b->binding);
        }
    }
    for (uint32_t i = 0; i < d->push_constant_count; i++) {
        const kiln_shader_push_constant *p = &view->push_constants[i];
        if ((uint64_t)p->offset + p->size > UINT32_MAX ||
            !string_ok(view, p->name_offset, p->name_length)) /* kshader.md R11 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "push-constant range %" PRIu32 " overflows or has a bad name", i);
        const kiln_shader_push_instance *instance =
            view->push_instances != NULL ? &view->push_instances[i] : NULL;
        if (instance != NULL &&
            !string_ok(view, instance->name_offset, instance->name_length)) /* kshader.md R13 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "push-constant block %" PRIu32 " has a bad instance name", i);
    }
    for (uint32_t i = 0; i < d->spec_constant_count; i++) {
        const kiln_shader_spec_constant *c = &view->spec_constants[i];
        if (c->base_type >= KILN_SHADER_TYPE_COUNT_ || c->reserved != 0 ||
            !string_ok(view, c->name_offset, c->name_length)) /* kshader.md R11 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "specialization constant %" PRIu32 " is malformed", i);
    }
    return KILN_OK;
}

kiln_result kiln_shader_view_get(const kiln_file *file, uint32_t flags, kiln_shader_view *view,
                                 kiln_error *err) {
    if (view != NULL)
        memset(view, 0, sizeof *view);
    if (file == NULL || file->data == NULL || view == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_shader_view_get needs an open file and a view");
    if ((flags & ~(uint32_t)(KILN_OPEN_VERIFY_CHECKSUM | KILN_OPEN_DEEP)) != 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, file->name, "unknown flags 0x%" PRIx32,
                            flags);
    const char *name = file->name;
    if (file->kind != KILN_KIND_SHADER) { /* kshader.md R1 */
        char fourcc[5];
        kiln_fourcc_str(file->kind, fourcc);
        return runtime_fail(err, KILN_ERR_BAD_MAGIC, name,
                            "not a shader (kind '%s', expected 'SHDR')", fourcc);
    }
    if (runtime_require_plain(file, err) != KILN_OK) /* container.md R24 */
        return KILN_ERR_UNSUPPORTED;
    if (file->kind_version != KILN_SHADER_VERSION) /* kshader.md R2 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "shader version %u is not supported (this build reads version %u)",
                            (unsigned)file->kind_version, KILN_SHADER_VERSION);
    const kiln_chunk_entry *chunks[C_COUNT] = {0};
    for (uint32_t i = 0; i < file->chunk_count; i++) { /* kshader.md R3 */
        const kiln_chunk_entry *c = &file->chunks[i];
        for (int k = 0; k < C_COUNT; k++) {
            if (c->fourcc != chunk_ids[k])
                continue;
            if (chunks[k] != NULL) {
                char fourcc[5];
                kiln_fourcc_str(c->fourcc, fourcc);
                return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                    "chunk %" PRIu32 " is a second %s chunk", i, fourcc);
            }
            chunks[k] = c;
        }
    }
    if (chunks[C_DESC] == NULL || chunks[C_DESC]->size != sizeof(kiln_shader_desc)) /* R4 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "no SHDS chunk of %zu bytes (shader descriptor)",
                            sizeof(kiln_shader_desc));
    const kiln_shader_desc *d =
        (const kiln_shader_desc *)(const void *)(file->data + chunks[C_DESC]->offset);
    if (d->flags != 0) /* kshader.md R4 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name, "unknown shader flags 0x%" PRIx32,
                            d->flags);
    for (int k = 0; k < 6; k++)
        if (d->reserved[k] != 0) /* kshader.md R4 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name, "descriptor reserved word is not 0");
    if (d->target >= KILN_SHADER_TARGET_COUNT_ || d->stage_count == 0 ||
        d->stage_count > KILN_SHADER_STAGE_COUNT_) /* kshader.md R4 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "target %" PRIu32 " or stage count %" PRIu32 " out of range", d->target,
                            d->stage_count);
    const void *tables[C_COUNT] = {0};
    const struct {
        int chunk;
        uint32_t count;
        size_t size;
        const char *what;
    } sized[] = {
        {C_STAGES, d->stage_count, sizeof(kiln_shader_stage_desc), "SSTG"},
        {C_CODE, d->code_words, sizeof(uint32_t), "SPRV"},
        {C_IO, d->io_count, sizeof(kiln_shader_io), "SVIO"},
        {C_BINDINGS, d->binding_count, sizeof(kiln_shader_binding), "SBND"},
        {C_PUSH, d->push_constant_count, sizeof(kiln_shader_push_constant), "SPSH"},
        {C_SPEC, d->spec_constant_count, sizeof(kiln_shader_spec_constant), "SSPC"},
        {C_STRINGS, d->strings_size, 1, "SHST"},
        /* optional (R13): absent, or one record per push-constant block */
        {C_PUSH_INSTANCES, chunks[C_PUSH_INSTANCES] ? d->push_constant_count : 0,
         sizeof(kiln_shader_push_instance), "SPSI"},
    };
    for (size_t k = 0; k < sizeof sized / sizeof sized[0]; k++) { /* kshader.md R5 */
        kiln_result r = table(file, chunks[sized[k].chunk], sized[k].count, sized[k].size,
                              sized[k].what, &tables[sized[k].chunk], err);
        if (r != KILN_OK)
            return r;
    }
    kiln_shader_view v = {
        .desc = d,
        .stage_count = d->stage_count,
        .stages = tables[C_STAGES],
        .code = tables[C_CODE],
        .io = tables[C_IO],
        .bindings = tables[C_BINDINGS],
        .binding_count = d->binding_count,
        .push_constants = tables[C_PUSH],
        .spec_constants = tables[C_SPEC],
        .strings = tables[C_STRINGS],
        .strings_size = d->strings_size,
        .push_instances = tables[C_PUSH_INSTANCES],
    };
    if (v.strings_size > 0 && v.strings[v.strings_size - 1] != '\0') /* kshader.md R8 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "SHST does not end with a NUL");
    uint32_t mask = 0;
    for (uint32_t i = 0; i < v.stage_count; i++) {
        kiln_result r = check_stage(file, &v, i, &mask, err);
        if (r != KILN_OK)
            return r;
    }
    if (mask != d->stage_mask) /* kshader.md R6 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "stage_mask 0x%" PRIx32 " is not the stages' (0x%" PRIx32 ")",
                            d->stage_mask, mask);
    kiln_result r = check_tables(file, &v, err);
    if (r != KILN_OK)
        return r;
    *view = v;
    return runtime_succeed(err);
}
