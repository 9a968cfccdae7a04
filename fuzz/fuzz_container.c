/* fuzz_container.c — libFuzzer harness: the container validator, the mesh
 * view, the material table view and the source extras on arbitrary bytes,
 * and compressed chunks: each decoded into a buffer of exactly its decode capacity, and the
 * file expanded and read again by the views. Build and run: see
 * fuzz/README.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/kiln.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What a claimed decoded size may make the harness allocate. */
#define MAX_DECODED ((uint64_t)64 << 20)

static void read_views(const kiln_file *file) {
    kiln_error err;
    {
        kiln_mesh_view view;
        if (kiln_mesh_view_get(file, KILN_OPEN_DEEP, &view, &err) == KILN_OK) {
            /* Read every byte the view hands out: ASan flags a bad pointer. */
            volatile uint8_t sink = 0;
            for (size_t i = 0; i < view.vertex_bytes; i++)
                sink ^= ((const uint8_t *)view.vertices)[i];
            for (size_t i = 0; i < view.index_bytes; i++)
                sink ^= ((const uint8_t *)view.indices)[i];
            /* Each attribute's last value, where either layout puts it. */
            for (uint32_t a = 0; a < view.desc->attribute_count && view.desc->vertex_count > 0;
                 a++) {
                uint32_t stride = 0;
                const uint8_t *at =
                    kiln_mesh_attribute_data(&view, &view.attributes[a], &stride, NULL);
                uint32_t bytes = kiln_vertex_format_size(view.attributes[a].format);
                for (uint32_t i = 0; at != NULL && i < bytes; i++)
                    sink ^= at[(size_t)(view.desc->vertex_count - 1) * stride + i];
            }
            /* Morph targets: every delta block and name the view hands out. */
            for (uint32_t t = 0; t < view.desc->morph_target_count; t++) {
                for (uint32_t a = KILN_MORPH_POSITION; a <= KILN_MORPH_TANGENT; a <<= 1) {
                    const float *d = kiln_mesh_morph_deltas(&view, t, a);
                    for (size_t i = 0; d != NULL && i < 3 * (size_t)view.desc->vertex_count; i++)
                        sink ^= (uint8_t)(d[i] != 0.0f);
                }
                const char *name = kiln_mesh_morph_target_name(&view, t);
                for (size_t i = 0; name != NULL && name[i] != '\0'; i++)
                    sink ^= (uint8_t)name[i];
            }
            (void)sink;
        }
    }
    {
        kiln_material_view materials;
        if (kiln_material_view_get(file, KILN_OPEN_DEEP, &materials, &err) == KILN_OK) {
            volatile uint8_t sink = 0;
            const uint8_t *rows = (const uint8_t *)materials.materials;
            for (size_t i = 0; i < (size_t)materials.material_count * sizeof(kiln_material); i++)
                sink ^= rows[i];
            for (uint32_t m = 0; m < materials.material_count; m++) /* MTNM offsets */
                for (const char *name = kiln_material_name(&materials, m); *name; name++)
                    sink ^= (uint8_t)*name;
            (void)sink;
        }
    }
    {
        /* Source extras (XTRA): every text the table hands out, read to its
         * NUL, and a lookup of each entry's key, checked or not. */
        kiln_extras_object object;
        uint32_t index;
        size_t length;
        const char *text;
        volatile uint8_t sink = (uint8_t)kiln_file_extras_check(file, &err);
        for (uint32_t i = 0;
             (text = kiln_file_extras_entry(file, i, &object, &index, &length)) != NULL; i++) {
            for (size_t k = 0; k <= length; k++)
                sink ^= (uint8_t)text[k];
            const char *found = kiln_file_extras(file, object, index, &length);
            for (size_t k = 0; found != NULL && k <= length; k++)
                sink ^= (uint8_t)found[k];
        }
        (void)sink;
    }
}

/* Every chunk decoded on its own, each into a block of exactly its decode
 * capacity (ASan sees a write past it), then the whole file expanded. */
static void decode_chunks(const kiln_file *file) {
    kiln_error err;
    for (uint32_t i = 0; i < file->chunk_count; i++) {
        kiln_chunk_info info;
        if (kiln_file_chunk_info(file, file->chunks[i].fourcc, &info, &err) != KILN_OK ||
            info.decode_capacity > MAX_DECODED)
            continue;
        uint8_t *dst = malloc(info.decode_capacity > 0 ? (size_t)info.decode_capacity : 1);
        if (dst != NULL)
            (void)kiln_file_decode_chunk(file, info.fourcc, dst, (size_t)info.decode_capacity,
                                         &err);
        free(dst);
    }
    size_t size, capacity;
    if (kiln_file_expanded_size(file, &size, &capacity, &err) != KILN_OK || capacity > MAX_DECODED)
        return;
    void *expanded = NULL;
    if (posix_memalign(&expanded, 16, capacity) != 0)
        return;
    kiln_file opened;
    if (kiln_file_expand(file, expanded, capacity, &err) == KILN_OK &&
        kiln_file_from_memory(&opened, expanded, size, "expanded", 0, &err) == KILN_OK) {
        read_views(&opened);
        kiln_file_close(&opened);
    }
    free(expanded);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* Payloads are used in place, so the reader wants 16-byte-aligned bytes;
     * an exact-size copy keeps ASan's view of the end of the buffer. */
    void *copy = NULL;
    if (posix_memalign(&copy, 16, size > 0 ? size : 1) != 0)
        return 0;
    if (size > 0)
        memcpy(copy, data, size);

    kiln_file file;
    kiln_error err;
    if (kiln_file_from_memory(&file, copy, size, "fuzz", 0, &err) == KILN_OK) {
        read_views(&file);
        if (kiln_file_has_encoded_chunks(&file))
            decode_chunks(&file);
        kiln_file_close(&file);
    }
    free(copy);
    return 0;
}
