/*
 * asset.c — one asset: read its source, hand it to the driver its registry row
 * names, collect what the driver produced. cook.h's cook_asset.
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "cook/core/budget.h"
#include "cook/core/parallel.h"
#include "cook/drivers/drivers.h"

/* The source's two hashes, taken side by side on the -j threads before the
 * driver runs: the one the META chunk of each output names (worked out once,
 * not once per output: a model writes three) and the one the build's cache
 * records (request->source_read). Each is a pass over the whole file. */
typedef struct source_hashes {
    const cook_request *request;
    const uint8_t *bytes;
    size_t size;
    uint64_t xxh3;
} source_hashes;

static void hash_source_item(void *job_, uint32_t index) {
    source_hashes *job = job_;
    if (index == 0)
        job->xxh3 = XXH3_64bits(job->bytes, job->size);
    else
        job->request->source_read(job->request->source_read_ctx, job->bytes, job->size);
}

bool cook_asset(const cook_request *request, cook_asset_result *result) {
    memset(result, 0, sizeof *result);
    cook_activity_set(request->activity, COOK_STAGE_IMPORT); /* reading the source */
    double clock = cook_clock();
    const char *source_path = request->source_path;
    char ref[1024];
    if (cook_asset_ref(request->importer, source_path, ref, sizeof ref) != KILN_OK) {
        diag_error(&result->diag, source_path, 0, "cannot form an asset ref from this path");
        return false;
    }
    /* A folder asset (a cubemap) has no bytes of its own: the driver reads
     * its files as dependencies. */
    uint8_t *source = NULL;
    size_t source_size = 0;
    source_hashes hashes = {.request = request};
    if (!request->importer->folder) {
        char *full = cook_path_join(request->input_root, source_path);
        char reason[512];
        unsigned threads = request->settings != NULL ? request->settings->threads : 1;
        if (full == NULL || !cook_read_file_on(threads, full, COOK_SOURCE_MAX_BYTES, &source,
                                               &source_size, reason, sizeof reason)) {
            diag_error(&result->diag, source_path, 0, "%s", full ? reason : "out of memory");
            free(full);
            return false;
        }
        free(full);
        hashes.bytes = source;
        hashes.size = source_size;
        parallel_for(threads, request->source_read != NULL ? 2 : 1, hash_source_item, &hashes);
        cook_stage_add(result, COOK_STAGE_IMPORT, clock);
    }
    write_stage stage = {0};
    cook_context ctx = {
        .input_root = request->input_root,
        .source_path = source_path,
        .ref = ref,
        .source = source,
        .source_size = source_size,
        .source_buffer = source,
        .source_hash = {.bytes = hashes.bytes, .size = hashes.size, .xxh3 = hashes.xxh3},
        .settings = request->settings,
        .diag = &result->diag,
        .activity = request->activity,
        .stage = &stage,
    };
    /* The settings of a real build have asset.timeout; a zeroed struct (a
     * test's) means no budget. */
    cook_budget budget;
    cook_budget_begin(&budget, request->settings != NULL ? request->settings->asset_timeout : 0);
    bool ok = request->importer->driver(request, &ctx, result);
    /* A driver that finished late still fails: the budget is the whole cook. */
    if (!cook_budget_check(&ctx))
        ok = false;
    cook_budget_end(&budget);
    /* Its outputs go into place together, or none does. */
    write_stage_finish(&stage, ok && result->diag.errors == 0, &result->diag, result);
    cook_activity_set(request->activity, COOK_STAGE_COUNT);
    result->dependencies = ctx.dependencies;
    result->references = ctx.references;
    result->absent = ctx.absent;
    free(ctx.source_buffer); /* NULL when the driver released it */
    result->ok = ok && result->diag.errors == 0;
    return result->ok;
}
