/*
 * emit.c — the one way a cooked file enters the output tree: path under the
 * output root, atomic write, verification through the runtime reader
 * (--verify, the inspection room's checks), output list and manifest entry. Every driver emits
 * through it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "cook/inspect/inspect.h"
#include "cook/write/write.h"

#define VERIFY_MAX_BYTES ((size_t)4 << 30)

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
                          cook_diag *diag) {
    if (out->kind == KILN_ASSET_TEXTURE)
        return verify_ktx2(full_path, out->name, bytes, diag);
    kiln_error error;
    /* .kmesh, .kmat, .kscene, .kanim, .kshader: read back deeply */
    if (inspect_container_file(full_path, out->kind, &error))
        return true;
    diag_error(diag, out->name, 0, "verification of the written file failed: %s", error.message);
    return false;
}

/* A producer's bytes counted and hashed on their way to the file. */
typedef struct hashing {
    const write_output *out;
    XXH3_state_t *state;
    size_t size;
    write_sink sink;
    void *sink_arg;
} hashing;

static bool hash_and_sink(void *arg, const void *data, size_t size) {
    hashing *h = arg;
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

bool write_emit(cook_context *ctx, const char *output_root, bool verify, const write_output *out,
                cook_asset_result *result) {
    char reason[512];
    char *full = cook_path_join(output_root, out->relative);
    written bytes = {.bytes = out->bytes, .size = out->bytes != NULL ? out->bytes->size : 0};
    hashing h = {.out = out, .state = out->bytes == NULL ? XXH3_createState() : NULL};
    bool ok = full != NULL && (out->bytes != NULL || h.state != NULL);
    if (!ok)
        diag_error(ctx->diag, out->name, 0, "out of memory");
    bool stored = false;
    if (ok && out->bytes != NULL) {
        stored = write_file_atomic(full, out->bytes->data, out->bytes->size, reason, sizeof reason);
    } else if (ok) {
        XXH3_64bits_reset(h.state);
        stored = write_file_atomic_stream(full, produce_hashed, &h, reason, sizeof reason);
        bytes.size = h.size;
        bytes.hash = XXH3_64bits_digest(h.state);
    }
    XXH3_freeState(h.state);
    if (ok && !stored) {
        diag_error(ctx->diag, out->name, 0, "%s", reason);
        result->write_failed = true;
        ok = false;
    }
    if (ok && verify)
        ok = verify_output(out, full, &bytes, ctx->diag);
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
