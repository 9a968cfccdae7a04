/*
 * emit.c — the one way a cooked file enters the output tree: path under the
 * output root, atomic write, verification through the runtime reader
 * (--verify, the inspection room's checks), output list and manifest entry. Every driver emits
 * through it. With a stage (cook_asset's) the files wait as temporaries and
 * go into place together once the asset is done, so a failure half-way
 * (a full disk on its third file) leaves the previous complete set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "cook/inspect/inspect.h"
#include "cook/write/write.h"

#define VERIFY_MAX_BYTES ((size_t)4 << 30)
#define VERIFY_SPLIT_BYTES ((size_t)1 << 20) /* below, one pass on one thread */

/* What was written: the bytes, or (streamed) their size and XXH3 hash. */
typedef struct written {
    const bytebuf *bytes;
    size_t size;
    uint64_t hash;
} written;

/* A KTX2 read back: the same bytes, and every level inflated in bounded
 * memory by the runtime reader. */
static bool verify_ktx2(const char *full_path, const char *name, const written *expected,
                        cook_diag *diag) {
    uint8_t *data = NULL;
    size_t size = 0;
    char reason[256];
    if (!cook_read_file(full_path, VERIFY_MAX_BYTES, &data, &size, reason, sizeof reason)) {
        diag_error(diag, name, 0, "verification: %s", reason);
        return false;
    }
    bool ok = size == expected->size &&
              (expected->bytes != NULL ? memcmp(data, expected->bytes->data, size) == 0
                                       : XXH3_64bits(data, size) == expected->hash);
    kiln_error error = {0};
    ok = ok && inspect_ktx2_bytes(data, size, name, &error);
    if (!ok)
        diag_error(diag, name, 0, "verification of the written KTX2 failed: %s",
                   error.message[0] ? error.message : "bytes differ");
    free(data);
    return ok;
}

static bool verify_output(const write_output *out, const char *full_path, const written *bytes,
                          unsigned threads, cook_diag *diag) {
    if (out->kind == KILN_ASSET_TEXTURE)
        return verify_ktx2(full_path, out->name, bytes, diag);
    kiln_error error;
    /* .kmesh, .kmat, .kscene, .kanim, .kshader: read back deeply; a large one
     * with its checksum and its deep checks side by side (the 1M grid's 38
     * MB .kmesh: two passes of a few ms each that ran one after the other) */
    if (bytes->size < VERIFY_SPLIT_BYTES)
        threads = 1;
    if (inspect_container_file_on(threads, full_path, out->kind, &error))
        return true;
    diag_error(diag, out->name, 0, "verification of the written file failed: %s", error.message);
    return false;
}

/* A producer's bytes counted, and hashed when `state` is set, on their way
 * to the file. */
typedef struct hashing {
    const write_output *out;
    XXH3_state_t *state;
    size_t size;
    write_sink sink;
    void *sink_arg;
} hashing;

static bool hash_and_sink(void *arg, const void *data, size_t size) {
    hashing *h = arg;
    if (h->state != NULL)
        XXH3_64bits_update(h->state, data, size);
    h->size += size;
    return h->sink(h->sink_arg, data, size);
}

static bool produce_hashed(void *arg, write_sink sink, void *sink_arg, char *reason,
                           size_t reason_size) {
    hashing *h = arg;
    h->sink = sink;
    h->sink_arg = sink_arg;
    return h->out->produce(h->out->produce_arg, hash_and_sink, h, reason, reason_size);
}

typedef struct whole_bytes {
    const bytebuf *bytes;
} whole_bytes;

static bool produce_whole(void *arg, write_sink sink, void *sink_arg, char *reason,
                          size_t reason_size) {
    (void)reason;
    (void)reason_size;
    const whole_bytes *whole = arg;
    return sink(sink_arg, whole->bytes->data, whole->bytes->size);
}

bool write_emit(cook_context *ctx, const char *output_root, bool verify, const write_output *out,
                cook_asset_result *result) {
    char reason[512];
    char *full = cook_path_join(output_root, out->relative);
    written bytes = {.bytes = out->bytes, .size = out->bytes != NULL ? out->bytes->size : 0};
    /* Streamed bytes are hashed only for what compares them: a KTX2's
     * verification (the other kinds are read back by the runtime's checks). */
    bool hash_wanted = out->bytes == NULL && verify && out->kind == KILN_ASSET_TEXTURE;
    hashing h = {.out = out, .state = hash_wanted ? XXH3_createState() : NULL};
    bool ok = full != NULL && (!hash_wanted || h.state != NULL);
    if (!ok)
        diag_error(ctx->diag, out->name, 0, "out of memory");
    bool stored = false;
    char *staged = NULL;
    whole_bytes whole = {out->bytes};
    if (ok) {
        if (h.state != NULL)
            XXH3_64bits_reset(h.state);
        stored = write_file_staged_stream(full, out->bytes ? out->bytes->size : out->produce_size,
                                          out->bytes ? produce_whole : produce_hashed,
                                          out->bytes ? (void *)&whole : (void *)&h, &staged, reason,
                                          sizeof reason);
    }
    if (stored && out->bytes == NULL) {
        bytes.size = h.size;
        bytes.hash = h.state != NULL ? XXH3_64bits_digest(h.state) : 0;
    }
    XXH3_freeState(h.state);
    if (ok && !stored) {
        diag_error(ctx->diag, out->name, 0, "%s", reason);
        result->write_failed = true;
        ok = false;
    }
    if (ok && verify)
        ok = verify_output(out, staged, &bytes, ctx->settings != NULL ? ctx->settings->threads : 1,
                           ctx->diag);
    if (ok && ctx->stage != NULL) { /* into place with the asset's other outputs */
        strlist *temporaries = &ctx->stage->temporaries;
        ok = strlist_push(temporaries, staged) && strlist_push(&ctx->stage->finals, full);
        if (ok) {
            free(staged); /* the stage holds its copy */
            staged = NULL;
        } else {
            if (temporaries->count > ctx->stage->finals.count) /* the pairs stay whole */
                free(temporaries->items[--temporaries->count]);
            diag_error(ctx->diag, out->name, 0, "out of memory");
        }
    } else if (ok) {
        bool published = write_file_publish(staged, full, reason, sizeof reason);
        staged = NULL; /* freed either way */
        if (!published) {
            diag_error(ctx->diag, out->name, 0, "%s", reason);
            result->write_failed = true;
            ok = false;
        }
    }
    if (staged != NULL) { /* written but not kept */
        unlink(staged);
        free(staged);
    }
    if (ok && out->ref != NULL &&
        !cook_manifest_add(&result->manifest, out->ref, out->relative, out->kind, out->color_space,
                           0)) {
        diag_error(ctx->diag, out->name, 0, "out of memory");
        ok = false;
    }
    if (ok && !strlist_push(&result->outputs, out->relative)) {
        diag_error(ctx->diag, out->name, 0, "out of memory");
        ok = false;
    }
    if (ok)
        result->bytes_written += bytes.size;
    free(full);
    return ok;
}

void write_stage_finish(write_stage *stage, bool publish, cook_diag *diag,
                        cook_asset_result *result) {
    char reason[512];
    for (size_t i = 0; i < stage->temporaries.count; i++) {
        char *temporary = stage->temporaries.items[i];
        stage->temporaries.items[i] = NULL; /* write_file_publish frees it */
        if (publish &&
            !write_file_publish(temporary, stage->finals.items[i], reason, sizeof reason)) {
            diag_error(diag, stage->finals.items[i], 0, "%s", reason);
            result->write_failed = true;
            publish = false; /* the rest are dropped */
        } else if (!publish) {
            unlink(temporary);
            free(temporary);
        }
    }
    strlist_free(&stage->temporaries);
    strlist_free(&stage->finals);
}
