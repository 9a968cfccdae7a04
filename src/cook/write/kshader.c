/* kshader.c — a shader program as a .kshader file (docs/formats/kshader.md). */
#include <string.h>

#include "cook/write/kshader.h"

bool write_kshader(const cook_context *ctx, const shader_program_ir *p, const char *importer,
                   bytebuf *out) {
    const bytebuf *tables[] = {&p->code, &p->io,      &p->bindings,      &p->push,
                               &p->spec, &p->strings, &p->push_instances};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        if (tables[t]->failed || tables[t]->size > UINT32_MAX)
            return false;
    kiln_shader_desc desc = {
        .stage_count = p->stage_count,
        .target = p->target,
        .code_words = (uint32_t)(p->code.size / 4),
        .io_count = (uint32_t)(p->io.size / sizeof(kiln_shader_io)),
        .binding_count = (uint32_t)(p->bindings.size / sizeof(kiln_shader_binding)),
        .push_constant_count = (uint32_t)(p->push.size / sizeof(kiln_shader_push_constant)),
        .spec_constant_count = (uint32_t)(p->spec.size / sizeof(kiln_shader_spec_constant)),
        .strings_size = (uint32_t)p->strings.size,
    };
    for (uint32_t i = 0; i < p->stage_count; i++)
        desc.stage_mask |= 1u << p->stages[i].stage;
    container_writer writer;
    container_begin(&writer, KILN_KIND_SHADER, KILN_SHADER_VERSION);
    container_add_chunk(&writer, KILN_CHUNK_SHADER_DESC, &desc, sizeof desc);
    bytebuf meta = {0};
    write_metadata_json(ctx, importer, &meta);
    container_add_chunk(&writer, KILN_CHUNK_META, meta.data, meta.size);
    container_add_chunk(&writer, KILN_CHUNK_SHADER_STAGES, p->stages,
                        p->stage_count * sizeof p->stages[0]);
    const struct {
        uint32_t fourcc;
        const bytebuf *bytes;
    } chunks[] = {
        {KILN_CHUNK_SHADER_CODE, &p->code},
        {KILN_CHUNK_SHADER_IO, &p->io},
        {KILN_CHUNK_SHADER_BINDINGS, &p->bindings},
        {KILN_CHUNK_SHADER_PUSH, &p->push},
        {KILN_CHUNK_SHADER_SPEC, &p->spec},
        {KILN_CHUNK_SHADER_STRINGS, &p->strings},
        {KILN_CHUNK_SHADER_PUSH_INSTANCES, &p->push_instances},
    };
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
        if (chunks[c].bytes->size > 0) /* an empty table is left out */
            container_add_chunk(&writer, chunks[c].fourcc, chunks[c].bytes->data,
                                chunks[c].bytes->size);
    bool ok = !meta.failed;
    bytebuf_free(&meta);
    if (!ok) {
        container_abandon(&writer);
        return false;
    }
    return container_finish(&writer, out);
}
