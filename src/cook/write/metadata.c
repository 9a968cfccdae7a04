/* metadata.c — the META chunk: where a cooked file came from (container.md). */
#include "cook/write/write.h"

void write_metadata_json(const cook_context *ctx, const char *importer, bytebuf *out) {
    bytebuf_printf(out,
                   "{\"kiln\":\"kiln %s\",\"encoder_version\":%u,\"source\":", KILN_VERSION_STRING,
                   KILN_ENCODER_VERSION);
    bytebuf_append_json_string(out, ctx->source_path);
    bytebuf_append(out, ",\"ref\":", 7);
    bytebuf_append_json_string(out, ctx->ref);
    bytebuf_printf(out, ",\"ref_hash\":\"0x%016llx\"", (unsigned long long)kiln_ref_hash(ctx->ref));
    bytebuf_printf(out, ",\"source_hash\":\"xxh3-64:%016llx\"",
                   (unsigned long long)cook_source_hash(ctx));
    bytebuf_append(out, ",\"importer\":", 12);
    bytebuf_append_json_string(out, importer);
    bytebuf_append(out, ",\"dependencies\":[", 17);
    /* Recorded in the order the importer opened them, which is deterministic. */
    for (size_t i = 0; i < ctx->dependencies.count; i++) {
        if (i > 0)
            bytebuf_append(out, ",", 1);
        bytebuf_append_json_string(out, ctx->dependencies.items[i]);
    }
    bytebuf_append(out, "],\"settings\":", 13);
    cook_settings_to_json(ctx->settings, out);
    bytebuf_append(out, "}", 1);
}
