/*
 * shader.c — `kiln check` on a .kshader (inspect.h, inspect_shader): each
 * stage's module through SPIRV-Tools' validator with the file's target, then
 * reflected again and compared with the tables the file carries, both in a
 * child process as a cook does (isolate_spirv.h); and the one
 * spelling of shader interface types the cooker's messages and `kiln info`
 * share.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cook/core/core.h"
#include "cook/inspect/inspect.h"
#include "cook/inspect/isolate_spirv.h"
#include "cook/process/spirv.h"

static bool same_io(const kiln_shader_view *view, const kiln_shader_stage_desc *stored,
                    const shader_program_ir *fresh, const kiln_shader_stage_desc *again) {
    if (stored->input_count != again->input_count || stored->output_count != again->output_count)
        return false;
    const kiln_shader_io *io = (const kiln_shader_io *)(const void *)fresh->io.data;
    uint32_t ranges[2][3] = {{stored->input_offset, again->input_offset, stored->input_count},
                             {stored->output_offset, again->output_offset, stored->output_count}};
    for (int r = 0; r < 2; r++)
        for (uint32_t i = 0; i < ranges[r][2]; i++) {
            const kiln_shader_io *a = &view->io[ranges[r][0] + i], *b = &io[ranges[r][1] + i];
            if (a->location != b->location || a->base_type != b->base_type ||
                a->vecsize != b->vecsize || a->columns != b->columns ||
                a->array_size != b->array_size)
                return false;
        }
    return true;
}

void inspect_shader_io_type(const kiln_shader_io *io, char *out, size_t size) {
    const char *base = kiln_shader_base_type_str((kiln_shader_base_type)io->base_type);
    if (io->columns > 1)
        snprintf(out, size, "%s%ux%u", base, io->columns, io->vecsize);
    else if (io->vecsize > 1)
        snprintf(out, size, "%s%u", base, io->vecsize);
    else
        snprintf(out, size, "%s", base);
}

bool inspect_shader(const kiln_shader_view *view, const char *name, char *reason,
                    size_t reason_size) {
    shader_program_ir fresh = {0};
    bool ok = true;
    for (uint32_t i = 0; ok && i < view->stage_count; i++) {
        const kiln_shader_stage_desc *s = &view->stages[i];
        uint32_t words = 0;
        const uint32_t *code = kiln_shader_stage_code(view, i, &words);
        const char *stage = kiln_shader_stage_str((kiln_shader_stage)s->stage);
        char why[1024];
        if (!spirv_validate_isolated(code, words, view->desc->target, name, 0.0, why, sizeof why)) {
            snprintf(reason, reason_size, "%s stage: %s", stage, why);
            ok = false;
        } else if (!spirv_reflect_stage_isolated(&fresh, (kiln_shader_stage)s->stage,
                                                 kiln_shader_string(view, s->entry_offset), code,
                                                 words, name, 0.0, why, sizeof why)) {
            snprintf(reason, reason_size, "%s stage: %s", stage, why);
            ok = false;
        } else if (!same_io(view, s, &fresh, &fresh.stages[i]) ||
                   memcmp(s->workgroup_size, fresh.stages[i].workgroup_size,
                          sizeof s->workgroup_size) != 0 ||
                   s->push_count != fresh.stages[i].push_count ||
                   s->spec_count != fresh.stages[i].spec_count) {
            snprintf(reason, reason_size,
                     "%s stage: its inputs, outputs, push constants, specialization constants or "
                     "workgroup size are not what the module declares",
                     stage);
            ok = false;
        }
    }
    if (ok) {
        shader_ir_sort_bindings(&fresh);
        uint32_t count = shader_ir_binding_count(&fresh);
        const kiln_shader_binding *b =
            (const kiln_shader_binding *)(const void *)fresh.bindings.data;
        bool same = count == view->binding_count;
        for (uint32_t i = 0; same && i < count; i++) {
            const kiln_shader_binding *a = &view->bindings[i];
            same = a->set == b[i].set && a->binding == b[i].binding && a->type == b[i].type &&
                   a->count == b[i].count && a->stages == b[i].stages;
        }
        if (!same) {
            snprintf(reason, reason_size,
                     "the binding table is not what the modules declare (%u bindings stored, %u "
                     "declared)",
                     view->binding_count, count);
            ok = false;
        }
    }
    shader_program_ir_free(&fresh);
    return ok;
}

bool inspect_shader_summary(const char *path, char *out, size_t size, char *problem,
                            size_t problem_size) {
    kiln_file file;
    kiln_error error;
    kiln_shader_view view;
    out[0] = '\0';
    if (kiln_file_map_expanded(&file, path, 0, &error) != KILN_OK) {
        snprintf(problem, problem_size, "%s", inspect_error_detail(&error, path));
        return false;
    }
    bool ok = kiln_shader_view_get(&file, 0, &view, &error) == KILN_OK;
    if (!ok) {
        snprintf(problem, problem_size, "%s", inspect_error_detail(&error, path));
    } else {
        size_t at = (size_t)snprintf(out, size, "%" PRIu32 " stage%s (", view.stage_count,
                                     view.stage_count == 1 ? "" : "s");
        for (uint32_t i = 0; i < view.stage_count && at < size; i++)
            at += (size_t)snprintf(out + at, size - at, "%s%s %s", i ? ", " : "",
                                   kiln_shader_stage_str((kiln_shader_stage)view.stages[i].stage),
                                   kiln_shader_string(&view, view.stages[i].entry_offset));
        if (at < size)
            snprintf(out + at, size - at,
                     "), %" PRIu64 " bytes of SPIR-V, %" PRIu32 " binding%s, target %s",
                     (uint64_t)view.desc->code_words * 4, view.binding_count,
                     view.binding_count == 1 ? "" : "s",
                     kiln_shader_target_str((kiln_shader_target)view.desc->target));
    }
    kiln_file_close(&file);
    return ok;
}
