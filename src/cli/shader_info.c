/*
 * shader_info.c — `kiln info [--json] FILE.kshader`: one shader program's
 * stages, entry points, SPIR-V bytes and reflected interface (cli.h).
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static json_t *count(uint64_t value) {
    return json_integer((json_int_t)value);
}

static json_t *io_json(const kiln_shader_view *v, uint32_t offset, uint32_t io_count) {
    json_t *array = json_array();
    for (uint32_t i = 0; i < io_count; i++) {
        const kiln_shader_io *io = &v->io[offset + i];
        char format[32];
        inspect_shader_io_type(io, format, sizeof format);
        json_t *item = json_object();
        json_object_set_new(item, "location", count(io->location));
        json_object_set_new(item, "name", cli_json_string(kiln_shader_string(v, io->name_offset)));
        json_object_set_new(item, "format", json_string(format));
        json_object_set_new(item, "array_size", count(io->array_size));
        json_array_append_new(array, item);
    }
    return array;
}

static json_t *binding_json(const kiln_shader_view *v, const kiln_shader_binding *b) {
    json_t *object = json_object(), *stages = json_array();
    json_object_set_new(object, "set", count(b->set));
    json_object_set_new(object, "binding", count(b->binding));
    json_object_set_new(object, "type",
                        json_string(kiln_binding_type_str((kiln_binding_type)b->type)));
    json_object_set_new(object, "name", cli_json_string(kiln_shader_string(v, b->name_offset)));
    json_object_set_new(object, "count", count(b->count));
    json_object_set_new(object, "block_size", count(b->block_size));
    for (int s = 0; s < KILN_SHADER_STAGE_COUNT_; s++) {
        if (b->stages & (1u << s))
            json_array_append_new(stages, json_string(kiln_shader_stage_str((kiln_shader_stage)s)));
    }
    json_object_set_new(object, "stages", stages);
    return object;
}

static json_t *push_constants_json(const kiln_shader_view *v, const kiln_shader_stage_desc *s) {
    json_t *array = json_array();
    for (uint32_t p = 0; p < s->push_count; p++) {
        const kiln_shader_push_constant *pc = &v->push_constants[s->push_offset + p];
        json_t *item = json_object();
        json_object_set_new(item, "name", cli_json_string(kiln_shader_string(v, pc->name_offset)));
        if (v->push_instances != NULL)
            json_object_set_new(item, "instance",
                                cli_json_string(kiln_shader_string(
                                    v, v->push_instances[s->push_offset + p].name_offset)));
        json_object_set_new(item, "offset", count(pc->offset));
        json_object_set_new(item, "size", count(pc->size));
        json_array_append_new(array, item);
    }
    return array;
}

static json_t *spec_constants_json(const kiln_shader_view *v, const kiln_shader_stage_desc *s) {
    json_t *array = json_array();
    for (uint32_t c = 0; c < s->spec_count; c++) {
        const kiln_shader_spec_constant *sc = &v->spec_constants[s->spec_offset + c];
        json_t *item = json_object();
        json_object_set_new(item, "id", count(sc->constant_id));
        json_object_set_new(item, "name", cli_json_string(kiln_shader_string(v, sc->name_offset)));
        json_object_set_new(
            item, "type",
            json_string(kiln_shader_base_type_str((kiln_shader_base_type)sc->base_type)));
        json_object_set_new(item, "default", count(sc->default_value));
        json_array_append_new(array, item);
    }
    return array;
}

static json_t *stage_json(const kiln_shader_view *v, const kiln_shader_stage_desc *s) {
    json_t *object = json_object(), *bindings = json_array(), *workgroup = json_array();
    json_object_set_new(object, "stage",
                        json_string(kiln_shader_stage_str((kiln_shader_stage)s->stage)));
    json_object_set_new(object, "entry", cli_json_string(kiln_shader_string(v, s->entry_offset)));
    json_object_set_new(object, "spirv_bytes", count((uint64_t)s->code_words * 4));
    json_object_set_new(object, "inputs", io_json(v, s->input_offset, s->input_count));
    json_object_set_new(object, "outputs", io_json(v, s->output_offset, s->output_count));
    for (uint32_t b = 0; b < v->binding_count; b++) {
        if (v->bindings[b].stages & (1u << s->stage))
            json_array_append_new(bindings, binding_json(v, &v->bindings[b]));
    }
    json_object_set_new(object, "bindings", bindings);
    json_object_set_new(object, "push_constants", push_constants_json(v, s));
    json_object_set_new(object, "specialization_constants", spec_constants_json(v, s));
    for (int k = 0; k < 3; k++)
        json_array_append_new(workgroup, count(s->workgroup_size[k]));
    json_object_set_new(object, "workgroup_size", workgroup);
    return object;
}

static bool print_json(const kiln_shader_view *v) {
    json_t *document = json_object(), *stages = json_array(), *bindings = json_array();
    json_object_set_new(document, "target",
                        json_string(kiln_shader_target_str((kiln_shader_target)v->desc->target)));
    for (uint32_t i = 0; i < v->stage_count; i++)
        json_array_append_new(stages, stage_json(v, &v->stages[i]));
    for (uint32_t b = 0; b < v->binding_count; b++)
        json_array_append_new(bindings, binding_json(v, &v->bindings[b]));
    json_object_set_new(document, "stages", stages);
    json_object_set_new(document, "bindings", bindings);
    bool ok = cli_json_print(stdout, document);
    json_decref(document);
    return ok;
}

static void print_text(const char *path, const kiln_shader_view *v) {
    printf("%s: shader, %" PRIu32 " stage%s, target %s\n", cook_escaped(path), v->stage_count,
           cli_plural(v->stage_count), kiln_shader_target_str((kiln_shader_target)v->desc->target));
    for (uint32_t i = 0; i < v->stage_count; i++) {
        const kiln_shader_stage_desc *s = &v->stages[i];
        printf("  %s: entry %s, %" PRIu64 " bytes of SPIR-V, %" PRIu32 " input%s, %" PRIu32
               " output%s",
               kiln_shader_stage_str((kiln_shader_stage)s->stage),
               cook_escaped(kiln_shader_string(v, s->entry_offset)), (uint64_t)s->code_words * 4,
               s->input_count, cli_plural(s->input_count), s->output_count,
               cli_plural(s->output_count));
        if (s->workgroup_size[0] != 0)
            printf(", workgroup %" PRIu32 "x%" PRIu32 "x%" PRIu32, s->workgroup_size[0],
                   s->workgroup_size[1], s->workgroup_size[2]);
        printf("\n");
        for (uint32_t k = 0; k < s->input_count; k++) {
            const kiln_shader_io *io = &v->io[s->input_offset + k];
            char format[32];
            inspect_shader_io_type(io, format, sizeof format);
            printf("    in  location %" PRIu32 ": %s %s\n", io->location, format,
                   cook_escaped(kiln_shader_string(v, io->name_offset)));
        }
        for (uint32_t p = 0; p < s->push_count; p++) {
            const kiln_shader_push_constant *pc = &v->push_constants[s->push_offset + p];
            const char *instance =
                v->push_instances != NULL
                    ? kiln_shader_string(v, v->push_instances[s->push_offset + p].name_offset)
                    : "";
            printf("    push constants %s%s%s: bytes %" PRIu32 "..%" PRIu32 "\n",
                   cook_escaped(kiln_shader_string(v, pc->name_offset)), instance[0] ? " " : "",
                   cook_escaped(instance), pc->offset, pc->offset + pc->size);
        }
    }
    for (uint32_t b = 0; b < v->binding_count; b++) {
        const kiln_shader_binding *bd = &v->bindings[b];
        printf("  set %" PRIu32 " binding %" PRIu32 ": %s %s x%" PRIu32 "\n", bd->set, bd->binding,
               kiln_binding_type_str((kiln_binding_type)bd->type),
               cook_escaped(kiln_shader_string(v, bd->name_offset)), bd->count);
    }
}

int cli_shader_info(const char *path, bool json) {
    kiln_file file;
    kiln_error error;
    if (kiln_file_map_expanded(&file, path, KILN_OPEN_VERIFY_CHECKSUM, &error) != KILN_OK) {
        fprintf(stderr, "%s: error: %s\n", cook_escaped(path),
                cook_escaped(cli_kiln_error_detail(&error, path)));
        return CLI_EXIT_FAILURE;
    }
    kiln_shader_view view;
    int status = CLI_EXIT_OK;
    if (kiln_shader_view_get(&file, KILN_OPEN_DEEP, &view, &error) != KILN_OK) {
        fprintf(stderr, "%s: error: %s\n", cook_escaped(path),
                cook_escaped(cli_kiln_error_detail(&error, path)));
        status = CLI_EXIT_FAILURE;
    } else if (json) {
        if (!print_json(&view))
            status = CLI_EXIT_FAILURE;
    } else {
        print_text(path, &view);
    }
    kiln_file_close(&file);
    return status;
}
