/* output.c — the head and tail every driver repeats around a file it writes
 * beside its source: enter the stage and start its clock, name the file,
 * emit the bytes under the asset's ref, count the stage's time (drivers.h,
 * driver_output). */
#include <stdlib.h>

#include "cook/drivers/drivers.h"

bool driver_output_begin(cook_context *ctx, cook_stage stage, const char *suffix,
                         driver_output *out) {
    bool in_budget = cook_stage_enter(ctx, stage);
    *out = (driver_output){.stage = stage,
                           .clock = cook_clock(),
                           .relative = cook_output_path(ctx->source_path, suffix)};
    if (out->relative == NULL)
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    return in_budget && out->relative != NULL;
}

/* Emits `file` (its bytes or its producer set by the caller) as the
 * driver's output: the fields both forms share are filled here. */
static bool emit_file(const cook_request *request, cook_context *ctx, const driver_output *out,
                      kiln_asset_kind kind, const char *ref, write_output *file,
                      cook_asset_result *result) {
    file->relative = out->relative;
    file->name = ctx->source_path;
    file->kind = kind;
    file->ref = ref;
    file->color_space = KILN_COLOR_SPACE_NONE;
    return write_emit(ctx, request->output_root, request->verify, file, result);
}

bool driver_output_emit(const cook_request *request, cook_context *ctx, const driver_output *out,
                        kiln_asset_kind kind, const char *ref, const bytebuf *bytes,
                        cook_asset_result *result) {
    write_output file = {.bytes = bytes};
    return emit_file(request, ctx, out, kind, ref, &file, result);
}

bool driver_output_emit_produced(const cook_request *request, cook_context *ctx,
                                 const driver_output *out, kiln_asset_kind kind, const char *ref,
                                 write_producer produce, void *produce_arg, uint64_t produce_size,
                                 cook_asset_result *result) {
    write_output file = {
        .produce = produce, .produce_arg = produce_arg, .produce_size = produce_size};
    return emit_file(request, ctx, out, kind, ref, &file, result);
}

bool driver_output_end(driver_output *out, cook_asset_result *result, bool ok) {
    cook_stage_add(result, out->stage, out->clock);
    free(out->relative);
    out->relative = NULL;
    return ok;
}
