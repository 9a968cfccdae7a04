/*
 * spirv_reflect.c — one stage's interface through SPIRV-Cross's C API
 * (spirv.h): the reflection-only backend (SPVC_BACKEND_NONE) over the
 * module's declared resources, as `spirv-cross --reflect` lists them, into a
 * program of that stage alone (spirv_stage.c checks it and joins it to the
 * others).
 */
#include <spirv_cross_c.h>
#include <stdio.h>
#include <string.h>

#include "cook/process/spirv.h"

static const SpvExecutionModel stage_models[KILN_SHADER_STAGE_COUNT_] = {
    [KILN_SHADER_STAGE_VERTEX] = SpvExecutionModelVertex,
    [KILN_SHADER_STAGE_TESS_CONTROL] = SpvExecutionModelTessellationControl,
    [KILN_SHADER_STAGE_TESS_EVALUATION] = SpvExecutionModelTessellationEvaluation,
    [KILN_SHADER_STAGE_GEOMETRY] = SpvExecutionModelGeometry,
    [KILN_SHADER_STAGE_FRAGMENT] = SpvExecutionModelFragment,
    [KILN_SHADER_STAGE_COMPUTE] = SpvExecutionModelGLCompute,
    [KILN_SHADER_STAGE_TASK] = SpvExecutionModelTaskEXT,
    [KILN_SHADER_STAGE_MESH] = SpvExecutionModelMeshEXT,
    [KILN_SHADER_STAGE_RAYGEN] = SpvExecutionModelRayGenerationKHR,
    [KILN_SHADER_STAGE_ANY_HIT] = SpvExecutionModelAnyHitKHR,
    [KILN_SHADER_STAGE_CLOSEST_HIT] = SpvExecutionModelClosestHitKHR,
    [KILN_SHADER_STAGE_MISS] = SpvExecutionModelMissKHR,
    [KILN_SHADER_STAGE_INTERSECTION] = SpvExecutionModelIntersectionKHR,
    [KILN_SHADER_STAGE_CALLABLE] = SpvExecutionModelCallableKHR,
};

static kiln_shader_base_type base_type_of(spvc_basetype type) {
    switch (type) {
    case SPVC_BASETYPE_BOOLEAN:
        return KILN_SHADER_TYPE_BOOL;
    case SPVC_BASETYPE_INT8:
        return KILN_SHADER_TYPE_INT8;
    case SPVC_BASETYPE_UINT8:
        return KILN_SHADER_TYPE_UINT8;
    case SPVC_BASETYPE_INT16:
        return KILN_SHADER_TYPE_INT16;
    case SPVC_BASETYPE_UINT16:
        return KILN_SHADER_TYPE_UINT16;
    case SPVC_BASETYPE_INT32:
        return KILN_SHADER_TYPE_INT32;
    case SPVC_BASETYPE_UINT32:
        return KILN_SHADER_TYPE_UINT32;
    case SPVC_BASETYPE_INT64:
        return KILN_SHADER_TYPE_INT64;
    case SPVC_BASETYPE_UINT64:
        return KILN_SHADER_TYPE_UINT64;
    case SPVC_BASETYPE_FP16:
        return KILN_SHADER_TYPE_FLOAT16;
    case SPVC_BASETYPE_FP32:
        return KILN_SHADER_TYPE_FLOAT32;
    case SPVC_BASETYPE_FP64:
        return KILN_SHADER_TYPE_FLOAT64;
    case SPVC_BASETYPE_STRUCT:
        return KILN_SHADER_TYPE_STRUCT;
    default:
        return KILN_SHADER_TYPE_UNKNOWN;
    }
}

/* Descriptors of an array type: the product of its dimensions, 0 for a
 * runtime-sized one; 1 when it is no array. */
static uint32_t descriptor_count(spvc_type type) {
    unsigned dimensions = spvc_type_get_num_array_dimensions(type);
    uint64_t count = 1;
    for (unsigned d = 0; d < dimensions; d++) {
        if (!spvc_type_array_dimension_is_literal(type, d))
            continue; /* sized by a specialization constant: its default is not known here */
        uint64_t size = spvc_type_get_array_dimension(type, d);
        count = size == 0 ? 0 : count * size;
        if (count > UINT32_MAX)
            count = UINT32_MAX;
    }
    return (uint32_t)count;
}

typedef struct reflect_state {
    shader_program_ir *program;
    spvc_compiler compiler;
    spvc_resources resources;
    kiln_shader_stage stage;
    char *reason;
    size_t reason_size;
} reflect_state;

static const spvc_reflected_resource *list_of(reflect_state *state, spvc_resource_type type,
                                              size_t *count) {
    const spvc_reflected_resource *list = NULL;
    *count = 0;
    if (spvc_resources_get_resource_list_for_type(state->resources, type, &list, count) !=
        SPVC_SUCCESS)
        *count = 0;
    return list;
}

/* Stage inputs or outputs with a location, in location order. */
static uint32_t add_io(reflect_state *state, spvc_resource_type type) {
    size_t count = 0;
    const spvc_reflected_resource *list = list_of(state, type, &count);
    uint32_t added = 0;
    /* Selection by location keeps the table in location order. */
    uint32_t last = 0;
    bool first = true;
    for (;;) {
        size_t best = count;
        uint32_t best_location = 0;
        for (size_t i = 0; i < count; i++) {
            if (!spvc_compiler_has_decoration(state->compiler, list[i].id, SpvDecorationLocation))
                continue;
            uint32_t location =
                spvc_compiler_get_decoration(state->compiler, list[i].id, SpvDecorationLocation);
            if ((!first && location <= last) || (best < count && location >= best_location))
                continue;
            best = i;
            best_location = location;
        }
        if (best == count)
            break;
        spvc_type type_handle = spvc_compiler_get_type_handle(state->compiler, list[best].type_id);
        kiln_shader_io io = {.location = best_location};
        io.base_type = (uint16_t)base_type_of(spvc_type_get_basetype(type_handle));
        if (io.base_type != KILN_SHADER_TYPE_STRUCT) {
            io.vecsize = (uint8_t)spvc_type_get_vector_size(type_handle);
            io.columns = (uint8_t)spvc_type_get_columns(type_handle);
        }
        if (spvc_type_get_num_array_dimensions(type_handle) > 0)
            io.array_size = spvc_type_get_array_dimension(type_handle, 0);
        shader_ir_string(state->program, list[best].name, &io.name_offset, &io.name_length);
        bytebuf_append(&state->program->io, &io, sizeof io);
        added++;
        last = best_location;
        first = false;
    }
    return added;
}

static const struct {
    spvc_resource_type spvc;
    kiln_binding_type kiln;
} binding_types[] = {
    {SPVC_RESOURCE_TYPE_UNIFORM_BUFFER, KILN_BINDING_UNIFORM_BUFFER},
    {SPVC_RESOURCE_TYPE_STORAGE_BUFFER, KILN_BINDING_STORAGE_BUFFER},
    {SPVC_RESOURCE_TYPE_SAMPLED_IMAGE, KILN_BINDING_SAMPLED_IMAGE},
    {SPVC_RESOURCE_TYPE_SEPARATE_IMAGE, KILN_BINDING_SEPARATE_IMAGE},
    {SPVC_RESOURCE_TYPE_SEPARATE_SAMPLERS, KILN_BINDING_SEPARATE_SAMPLER},
    {SPVC_RESOURCE_TYPE_STORAGE_IMAGE, KILN_BINDING_STORAGE_IMAGE},
    {SPVC_RESOURCE_TYPE_SUBPASS_INPUT, KILN_BINDING_SUBPASS_INPUT},
    {SPVC_RESOURCE_TYPE_ACCELERATION_STRUCTURE, KILN_BINDING_ACCELERATION_STRUCTURE},
};

/* The descriptors of one resource type, merged into the stage's. */
static bool add_bindings(reflect_state *state, spvc_resource_type spvc, kiln_binding_type kind) {
    size_t count = 0;
    const spvc_reflected_resource *list = list_of(state, spvc, &count);
    for (size_t i = 0; i < count; i++) {
        spvc_compiler compiler = state->compiler;
        kiln_shader_binding b = {.type = (uint32_t)kind, .stages = 1u << state->stage};
        b.set = spvc_compiler_get_decoration(compiler, list[i].id, SpvDecorationDescriptorSet);
        b.binding = spvc_compiler_get_decoration(compiler, list[i].id, SpvDecorationBinding);
        spvc_type type = spvc_compiler_get_type_handle(compiler, list[i].type_id);
        b.count = descriptor_count(type);
        if (kind == KILN_BINDING_UNIFORM_BUFFER || kind == KILN_BINDING_STORAGE_BUFFER) {
            size_t size = 0;
            spvc_type base = spvc_compiler_get_type_handle(compiler, list[i].base_type_id);
            if (spvc_compiler_get_declared_struct_size(compiler, base, &size) == SPVC_SUCCESS)
                b.block_size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
        }
        const char *name = list[i].name ? list[i].name : "";
        if (!shader_ir_merge_binding(state->program, &b, name, state->reason, state->reason_size))
            return false;
    }
    return true;
}

static uint32_t add_push_constants(reflect_state *state) {
    size_t count = 0;
    const spvc_reflected_resource *list = list_of(state, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, &count);
    for (size_t i = 0; i < count; i++) {
        spvc_type base = spvc_compiler_get_type_handle(state->compiler, list[i].base_type_id);
        size_t size = 0;
        spvc_compiler_get_declared_struct_size(state->compiler, base, &size);
        unsigned members = spvc_type_get_num_member_types(base);
        unsigned first = members > 0 ? UINT32_MAX : 0;
        for (unsigned m = 0; m < members; m++) {
            unsigned offset = 0;
            if (spvc_compiler_type_struct_member_offset(state->compiler, base, m, &offset) ==
                    SPVC_SUCCESS &&
                offset < first)
                first = offset;
        }
        if (first > size)
            first = 0;
        kiln_shader_push_constant p = {.offset = first, .size = (uint32_t)(size - first)};
        /* The block's type name, as buffers are named (SPIRV-Cross names a
         * push-constant resource after its variable, "" when anonymous). */
        const char *type_name = spvc_compiler_get_name(state->compiler, list[i].base_type_id);
        shader_ir_string(state->program, type_name, &p.name_offset, &p.name_length);
        bytebuf_append(&state->program->push, &p, sizeof p);
        kiln_shader_push_instance instance = {0};
        shader_ir_string(state->program, list[i].name, &instance.name_offset,
                         &instance.name_length);
        bytebuf_append(&state->program->push_instances, &instance, sizeof instance);
    }
    return (uint32_t)count;
}

static uint32_t add_spec_constants(reflect_state *state) {
    const spvc_specialization_constant *constants = NULL;
    size_t count = 0;
    if (spvc_compiler_get_specialization_constants(state->compiler, &constants, &count) !=
        SPVC_SUCCESS)
        return 0;
    for (size_t i = 0; i < count; i++) {
        spvc_constant constant =
            spvc_compiler_get_constant_handle(state->compiler, constants[i].id);
        kiln_shader_spec_constant c = {.constant_id = constants[i].constant_id};
        if (constant != NULL) {
            spvc_type type =
                spvc_compiler_get_type_handle(state->compiler, spvc_constant_get_type(constant));
            c.base_type = (uint32_t)base_type_of(spvc_type_get_basetype(type));
            c.default_value = spvc_constant_get_scalar_u32(constant, 0, 0);
        }
        const char *name = spvc_compiler_get_name(state->compiler, constants[i].id);
        shader_ir_string(state->program, name, &c.name_offset, &c.name_length);
        bytebuf_append(&state->program->spec, &c, sizeof c);
    }
    return (uint32_t)count;
}

static bool reflect(reflect_state *state, kiln_shader_stage_desc *desc, const char *entry) {
    if (spvc_compiler_set_entry_point(state->compiler, entry, stage_models[state->stage]) !=
        SPVC_SUCCESS) {
        snprintf(state->reason, state->reason_size, "the module has no %s entry point named '%s'",
                 kiln_shader_stage_str(state->stage), entry);
        return false;
    }
    if (spvc_compiler_create_shader_resources(state->compiler, &state->resources) != SPVC_SUCCESS) {
        snprintf(state->reason, state->reason_size, "cannot list the module's resources");
        return false;
    }
    shader_program_ir *p = state->program;
    desc->input_offset = (uint32_t)(p->io.size / sizeof(kiln_shader_io));
    desc->input_count = add_io(state, SPVC_RESOURCE_TYPE_STAGE_INPUT);
    desc->output_offset = (uint32_t)(p->io.size / sizeof(kiln_shader_io));
    desc->output_count = add_io(state, SPVC_RESOURCE_TYPE_STAGE_OUTPUT);
    for (size_t t = 0; t < sizeof binding_types / sizeof binding_types[0]; t++)
        if (!add_bindings(state, binding_types[t].spvc, binding_types[t].kiln))
            return false;
    desc->push_offset = (uint32_t)(p->push.size / sizeof(kiln_shader_push_constant));
    desc->push_count = add_push_constants(state);
    desc->spec_offset = (uint32_t)(p->spec.size / sizeof(kiln_shader_spec_constant));
    desc->spec_count = add_spec_constants(state);
    if (state->stage == KILN_SHADER_STAGE_COMPUTE || state->stage == KILN_SHADER_STAGE_TASK ||
        state->stage == KILN_SHADER_STAGE_MESH) {
        for (unsigned k = 0; k < 3; k++)
            desc->workgroup_size[k] = spvc_compiler_get_execution_mode_argument_by_index(
                state->compiler, SpvExecutionModeLocalSize, k);
    }
    return true;
}

bool spirv_reflect_module(kiln_shader_stage stage, const char *entry, const uint32_t *words,
                          size_t word_count, shader_program_ir *alone, char *reason,
                          size_t reason_size) {
    *alone = (shader_program_ir){0};
    if ((unsigned)stage >= KILN_SHADER_STAGE_COUNT_) {
        snprintf(reason, reason_size, "invalid stage");
        return false;
    }
    if (word_count > UINT32_MAX) {
        snprintf(reason, reason_size, "the SPIR-V module is too large");
        return false;
    }
    spvc_context context = NULL;
    if (spvc_context_create(&context) != SPVC_SUCCESS) {
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    spvc_parsed_ir ir = NULL;
    spvc_compiler compiler = NULL;
    bool ok = false;
    if (spvc_context_parse_spirv(context, words, word_count, &ir) != SPVC_SUCCESS ||
        spvc_context_create_compiler(context, SPVC_BACKEND_NONE, ir,
                                     SPVC_CAPTURE_MODE_TAKE_OWNERSHIP, &compiler) != SPVC_SUCCESS) {
        snprintf(reason, reason_size, "SPIRV-Cross cannot read the module: %s",
                 spvc_context_get_last_error_string(context));
    } else {
        kiln_shader_stage_desc desc = {.stage = (uint32_t)stage};
        reflect_state state = {alone, compiler, NULL, stage, reason, reason_size};
        ok = reflect(&state, &desc, entry);
        if (ok)
            alone->stages[alone->stage_count++] = desc;
    }
    spvc_context_destroy(context);
    if (!ok)
        shader_program_ir_free(alone);
    return ok;
}
