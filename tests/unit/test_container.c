/* The container: writer layout, the runtime validator's rules (container.md
 * R1-R16), mapping and loading files, and robustness against damaged bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/checked.h"
#include "cook/drivers/drivers.h"
#include "kiln/kiln.h"
#include "test_support.h"

#define KIND_TEST KILN_FOURCC('T', 'E', 'S', 'T')

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

/* A heap copy of exactly `size` bytes at a 16-byte-aligned address, so ASan
 * reports any read past `size` (posix_memalign takes any size, unlike C11
 * aligned_alloc). */
static uint8_t *aligned_copy(const void *data, size_t size) {
    void *block = NULL;
    assert_int_equal(posix_memalign(&block, KILN_CHUNK_ALIGNMENT, size > 0 ? size : 1), 0);
    if (data != NULL && size > 0)
        memcpy(block, data, size);
    return block;
}

static void put_u16(uint8_t *at, uint16_t value) {
    memcpy(at, &value, sizeof value);
}
static void put_u32(uint8_t *at, uint32_t value) {
    memcpy(at, &value, sizeof value);
}
static void put_u64(uint8_t *at, uint64_t value) {
    memcpy(at, &value, sizeof value);
}
static uint64_t get_u64(const uint8_t *at) {
    uint64_t value;
    memcpy(&value, at, sizeof value);
    return value;
}

static const char payload_a[5] = "hello";
static const uint8_t payload_c[33] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                      12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                      23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33};

/* Three chunks: 5 bytes, empty, 33 bytes. Table ends at 48 + 3 * 32 = 144, so
 * AAAA is at 144, BBBB and CCCC at 160, and the file is 208 bytes. */
static void build_sample(bytebuf *out) {
    container_writer writer;
    container_begin(&writer, KIND_TEST, 7);
    container_add_chunk(&writer, KILN_FOURCC('A', 'A', 'A', 'A'), payload_a, sizeof payload_a);
    container_add_chunk(&writer, KILN_FOURCC('B', 'B', 'B', 'B'), NULL, 0);
    container_add_chunk(&writer, KILN_FOURCC('C', 'C', 'C', 'C'), payload_c, sizeof payload_c);
    assert_true(container_finish(&writer, out));
}

/* A small but complete mesh: a quad (two triangles in two submeshes), position
 * and octahedral normal, 16-bit indices, a META chunk and an unknown chunk. */
static void build_mesh(bytebuf *out) {
    static const float positions[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    static const uint16_t indices[6] = {0, 1, 2, 0, 2, 3};
    uint8_t vertices[4 * 16];
    for (int v = 0; v < 4; v++) {
        int16_t normal[2] = {0, 0}; /* +Z */
        memcpy(vertices + 16 * v, positions[v], 12);
        memcpy(vertices + 16 * v + 12, normal, 4);
    }
    kiln_vertex_attribute attributes[2] = {
        {KILN_SEMANTIC_POSITION, KILN_VFORMAT_F32X3, 0, 0},
        {KILN_SEMANTIC_NORMAL, KILN_VFORMAT_OCT_SNORM16X2, 0, 12},
    };
    kiln_mesh_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.vertex_count = 4;
    desc.index_count = 6;
    desc.index_size = 2;
    desc.submesh_count = 2;
    desc.attribute_count = 2;
    desc.vertex_stride = 16;
    desc.material_count = 2;
    desc.aabb_max[0] = desc.aabb_max[1] = 1.0f;
    desc.sphere[0] = desc.sphere[1] = 0.5f;
    desc.sphere[3] = 0.75f;
    desc.lod_count = 1;
    kiln_submesh submeshes[2];
    memset(submeshes, 0, sizeof submeshes);
    submeshes[0].index_count = 3;
    submeshes[1].index_offset = 3;
    submeshes[1].index_count = 3;
    submeshes[1].material_slot = 1;
    const kiln_lod lods[2] = {{.index_offset = 0, .index_count = 3},
                              {.index_offset = 3, .index_count = 3}};
    static const char meta[] = "{\"kiln\":\"kiln 0.1.0\",\"source\":\"quad.obj\"}";

    container_writer writer;
    container_begin(&writer, KILN_KIND_MESH, KILN_MESH_VERSION);
    container_add_chunk(&writer, KILN_CHUNK_MESH_DESC, &desc, sizeof desc);
    container_add_chunk(&writer, KILN_CHUNK_MESH_ATTRS, attributes, sizeof attributes);
    container_add_chunk(&writer, KILN_FOURCC('Z', 'Z', 'Z', '9'), "future", 6);
    container_add_chunk(&writer, KILN_CHUNK_MESH_VERTICES, vertices, sizeof vertices);
    container_add_chunk(&writer, KILN_CHUNK_MESH_INDICES, indices, sizeof indices);
    container_add_chunk(&writer, KILN_CHUNK_MESH_SUBMESHES, submeshes, sizeof submeshes);
    container_add_chunk(&writer, KILN_CHUNK_MESH_LODS, lods, sizeof lods);
    container_add_chunk(&writer, KILN_CHUNK_META, meta, sizeof meta - 1);
    assert_true(container_finish(&writer, out));
}

/* Opens `size` bytes of `data` from an exact-size aligned copy; frees it. */
static kiln_result open_copy(const void *data, size_t size, uint32_t flags, kiln_error *err) {
    uint8_t *copy = aligned_copy(data, size);
    kiln_file file;
    kiln_result result = kiln_file_from_memory(&file, copy, size, "sample.kiln", flags, err);
    kiln_file_close(&file);
    free(copy);
    return result;
}

static void assert_message_contains(const kiln_error *err, const char *fragment) {
    if (strstr(err->message, fragment) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err->message, fragment);
}

/* ---------------------------------------------------------------------------
 * Writer
 * ------------------------------------------------------------------------- */

static void container_round_trips_chunks(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_sample(&buf);
    uint8_t *bytes = aligned_copy(buf.data, buf.size);
    kiln_file file;
    kiln_error err;
    assert_int_equal(
        kiln_file_from_memory(&file, bytes, buf.size, NULL, KILN_OPEN_VERIFY_CHECKSUM, &err),
        KILN_OK);
    assert_int_equal(err.code, KILN_OK);
    assert_string_equal(file.name, "<memory>");
    assert_int_equal(file.kind, KIND_TEST);
    assert_int_equal(file.kind_version, 7);
    assert_int_equal(file.chunk_count, 3);

    kiln_chunk chunk;
    assert_int_equal(kiln_file_find_chunk(&file, KILN_FOURCC('A', 'A', 'A', 'A'), &chunk), KILN_OK);
    assert_int_equal(chunk.size, sizeof payload_a);
    assert_memory_equal(chunk.data, payload_a, sizeof payload_a);
    assert_int_equal(kiln_file_find_chunk(&file, KILN_FOURCC('B', 'B', 'B', 'B'), &chunk), KILN_OK);
    assert_int_equal(chunk.size, 0);
    assert_null(chunk.data);
    assert_int_equal(kiln_file_find_chunk(&file, KILN_FOURCC('C', 'C', 'C', 'C'), &chunk), KILN_OK);
    assert_int_equal(chunk.size, sizeof payload_c);
    assert_memory_equal(chunk.data, payload_c, sizeof payload_c);
    assert_int_equal((uintptr_t)chunk.data % 16, 0);
    assert_int_equal(kiln_file_find_chunk(&file, KILN_FOURCC('D', 'D', 'D', 'D'), &chunk),
                     KILN_ERR_NOT_FOUND);
    assert_null(chunk.data);

    size_t meta_size = 1;
    assert_null(kiln_file_metadata(&file, &meta_size));
    assert_int_equal(meta_size, 0);

    kiln_file_close(&file);
    assert_null(file.data);
    free(bytes);
    bytebuf_free(&buf);
}

static void container_pads_payloads_to_16_with_zeros(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_sample(&buf);
    assert_int_equal(buf.size, 208);
    kiln_chunk_entry table[3];
    memcpy(table, buf.data + 48, sizeof table);
    assert_int_equal(table[0].offset, 144);
    assert_int_equal(table[1].offset, 160);
    assert_int_equal(table[1].size, 0);
    assert_int_equal(table[2].offset, 160);
    kiln_container_header header;
    memcpy(&header, buf.data, sizeof header);
    assert_int_equal(header.file_size, 208);
    assert_int_equal(header.header_size, 48);
    assert_int_equal(header.flags, KILN_CONTAINER_FLAG_CHECKSUM);
    assert_int_equal(header.reserved, 0);
    for (size_t i = 144 + sizeof payload_a; i < 160; i++)
        assert_int_equal(buf.data[i], 0);
    for (size_t i = 160 + sizeof payload_c; i < 208; i++)
        assert_int_equal(buf.data[i], 0);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(table[i].flags, 0);
        assert_int_equal(table[i].decoded_size, 0);
    }
    bytebuf_free(&buf);
}

static void container_output_is_deterministic(void **state) {
    (void)state;
    bytebuf a = {0}, b = {0};
    build_mesh(&a);
    build_mesh(&b);
    assert_int_equal(a.size, b.size);
    assert_memory_equal(a.data, b.data, a.size);
    bytebuf_free(&a);
    bytebuf_free(&b);
}

/* Borrowed payloads lay out exactly as copied ones, appended after bytes the
 * buffer already held; a borrowed buffer changed after finish changes
 * nothing written. */
static void container_borrowed_chunks_match_copied_ones(void **state) {
    (void)state;
    bytebuf copied = {0}, borrowed = {0};
    build_sample(&copied);
    bytebuf_append(&borrowed, "prefix", 6);
    uint8_t c[sizeof payload_c];
    memcpy(c, payload_c, sizeof c);
    container_writer writer;
    container_begin(&writer, KIND_TEST, 7);
    container_add_chunk_borrowed(&writer, KILN_FOURCC('A', 'A', 'A', 'A'), payload_a,
                                 sizeof payload_a);
    container_add_chunk_borrowed(&writer, KILN_FOURCC('B', 'B', 'B', 'B'), NULL, 0);
    container_add_chunk_borrowed(&writer, KILN_FOURCC('C', 'C', 'C', 'C'), c, sizeof c);
    assert_true(container_finish(&writer, &borrowed));
    memset(c, 0xee, sizeof c);
    assert_int_equal(borrowed.size, 6 + 208);
    assert_int_equal(copied.size, 208);
    assert_memory_equal(borrowed.data, "prefix", 6);
    assert_memory_equal(borrowed.data + 6, copied.data, copied.size);
    bytebuf_free(&copied);
    bytebuf_free(&borrowed);
}

/* Payloads of several MiB are copied in pieces on the writer's threads: the
 * file is the one laid out here by hand (16-byte aligned payloads after the
 * table, zero padding, XXH3 with its own field as zero), on 1 or 4 threads,
 * after bytes the buffer already held. */
static void container_copies_large_payloads_on_threads(void **state) {
    (void)state;
    const size_t sizes[4] = {((size_t)3 << 20) + 5, 0, (size_t)1 << 20, 17};
    uint8_t *payloads[4];
    for (int i = 0; i < 4; i++) {
        payloads[i] = malloc(sizes[i] ? sizes[i] : 1);
        for (size_t k = 0; k < sizes[i]; k++)
            payloads[i][k] = (uint8_t)(k * 131 + (size_t)i * 7 + k / 4099);
    }
    for (unsigned threads = 1; threads <= 4; threads += 3) {
        bytebuf buf = {0};
        bytebuf_append(&buf, "prefix", 6);
        container_writer writer;
        container_begin(&writer, KIND_TEST, 3);
        container_set_threads(&writer, threads);
        for (int i = 0; i < 4; i++)
            container_add_chunk_borrowed(&writer, KILN_FOURCC('P', 'L', 'D', '0' + i),
                                         sizes[i] ? payloads[i] : NULL, sizes[i]);
        assert_true(container_finish(&writer, &buf));
        assert_memory_equal(buf.data, "prefix", 6);
        const uint8_t *file = buf.data + 6;
        size_t at = sizeof(kiln_container_header) + 4 * sizeof(kiln_chunk_entry);
        for (int i = 0; i < 4; i++) {
            kiln_chunk_entry entry;
            memcpy(&entry, file + sizeof(kiln_container_header) + i * sizeof entry, sizeof entry);
            size_t offset = (at + 15) / 16 * 16;
            assert_int_equal(entry.offset, offset);
            assert_int_equal(entry.size, sizes[i]);
            for (size_t k = at; k < offset; k++)
                assert_int_equal(file[k], 0);
            assert_memory_equal(file + offset, payloads[i], sizes[i] ? sizes[i] : 0);
            at = offset + sizes[i];
        }
        size_t file_size = (at + 15) / 16 * 16;
        assert_int_equal(buf.size - 6, file_size);
        for (size_t k = at; k < file_size; k++)
            assert_int_equal(file[k], 0);
        uint8_t *copy = malloc(file_size);
        memcpy(copy, file, file_size);
        uint64_t stored;
        memcpy(&stored, copy + 32, sizeof stored);
        memset(copy + 32, 0, 8);
        assert_true(stored == XXH3_64bits(copy, file_size));
        free(copy);
        bytebuf_free(&buf);
    }
    for (int i = 0; i < 4; i++)
        free(payloads[i]);
}

/* What a sink of container_layout_write received: the bytes, and the size
 * of each call; it fails from call `fail_at` on (0: never). */
typedef struct collected {
    bytebuf bytes;
    size_t calls[16];
    size_t call_count;
    size_t fail_at;
} collected;

static bool collect(void *arg, const void *data, size_t size) {
    collected *c = arg;
    if (c->fail_at != 0 && c->call_count + 1 >= c->fail_at)
        return false;
    if (c->call_count < 16)
        c->calls[c->call_count] = size;
    c->call_count++;
    bytebuf_append(&c->bytes, data, size);
    return !c->bytes.failed;
}

/* A large and a small chunk, then a middle one, raw or compressed (Zstd
 * leaves the random one as it is), on 1 or 2 threads. */
static void add_layout_chunks(container_writer *writer, const uint8_t *large, size_t large_size,
                              cook_container_compress compress, unsigned threads) {
    container_begin(writer, KIND_TEST, 5);
    container_set_compress(writer, compress);
    container_set_threads(writer, threads);
    container_add_chunk(writer, KILN_FOURCC('A', 'A', 'A', 'A'), payload_a, sizeof payload_a);
    container_add_chunk_borrowed(writer, KILN_FOURCC('L', 'A', 'R', 'G'), large, large_size);
    container_add_chunk(writer, KILN_FOURCC('C', 'C', 'C', 'C'), payload_c, sizeof payload_c);
    container_add_chunk_borrowed(writer, KILN_FOURCC('M', 'I', 'D', 'D'), large + 1000, 40000);
}

/* container_lay_out then container_layout_write hands over exactly
 * container_finish's bytes (checksum included), raw or compressed; the
 * pieces under 64 KiB go out together (head, AAAA and their padding in one
 * call before the large payload, CCCC, MIDD and the final padding in one
 * after it); a sink that fails stops the write. */
static void container_layout_writes_finish_bytes(void **state) {
    (void)state;
    const size_t large_size = ((size_t)1 << 20) + 3;
    uint8_t *large = malloc(large_size);
    uint32_t x = 12345;
    for (size_t k = 0; k < large_size; k++) {
        x = x * 1103515245u + 12345u;
        large[k] = (uint8_t)(x >> 24);
    }
    for (int compress = 0; compress < 2; compress++) {
        cook_container_compress mode =
            compress ? COOK_CONTAINER_COMPRESS_FAST : COOK_CONTAINER_COMPRESS_NONE;
        container_writer writer;
        bytebuf finished = {0};
        add_layout_chunks(&writer, large, large_size, mode, 2);
        assert_true(container_finish(&writer, &finished));
        container_layout layout;
        add_layout_chunks(&writer, large, large_size, mode, 1);
        assert_true(container_lay_out(&writer, &layout));
        assert_int_equal(layout.file_size, finished.size);
        collected c = {0};
        assert_true(container_layout_write(&layout, collect, &c));
        assert_int_equal(c.bytes.size, finished.size);
        assert_memory_equal(c.bytes.data, finished.data, finished.size);
        kiln_error err;
        assert_int_equal(open_copy(c.bytes.data, c.bytes.size, KILN_OPEN_VERIFY_CHECKSUM, &err),
                         KILN_OK);
        if (!compress) { /* 48 + 4 * 32 = 176: AAAA at 176, LARG at 192 */
            assert_int_equal(c.call_count, 3);
            assert_int_equal(c.calls[0], 192);
            assert_int_equal(c.calls[1], large_size);
            assert_int_equal(c.calls[2], finished.size - 192 - large_size);
        }
        collected failing = {.fail_at = 2};
        assert_false(container_layout_write(&layout, collect, &failing));
        assert_int_equal(failing.call_count, 1);
        container_layout_free(&layout);
        bytebuf_free(&c.bytes);
        bytebuf_free(&failing.bytes);
        bytebuf_free(&finished);
    }
    free(large);
}

static void container_with_no_chunks_is_just_a_header(void **state) {
    (void)state;
    bytebuf buf = {0};
    container_writer writer;
    container_begin(&writer, KIND_TEST, 1);
    assert_true(container_finish(&writer, &buf));
    assert_int_equal(buf.size, 48);
    kiln_error err;
    assert_int_equal(open_copy(buf.data, buf.size, KILN_OPEN_VERIFY_CHECKSUM, &err), KILN_OK);
    bytebuf_free(&buf);
}

static void container_abandon_frees_pending_chunks(void **state) {
    (void)state;
    container_writer writer;
    container_begin(&writer, KIND_TEST, 1);
    container_add_chunk(&writer, KILN_FOURCC('A', 'A', 'A', 'A'), payload_a, sizeof payload_a);
    container_abandon(&writer); /* LeakSanitizer checks the rest */
    assert_int_equal(writer.chunk_count, 0);
}

/* ---------------------------------------------------------------------------
 * Validator rules
 * ------------------------------------------------------------------------- */

static void container_rejects_wrong_magic(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_sample(&buf);
    memcpy(buf.data, "PNG\x89", 4);
    kiln_error err;
    assert_int_equal(open_copy(buf.data, buf.size, 0, &err), KILN_ERR_BAD_MAGIC);
    assert_int_equal(err.code, KILN_ERR_BAD_MAGIC);
    assert_message_contains(&err, "sample.kiln: not a kiln file (magic 'PNG?'");
    bytebuf_free(&buf);
}

static void container_rejects_unsupported_version(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_sample(&buf);
    put_u16(buf.data + offsetof(kiln_container_header, container_version), 2);
    kiln_error err;
    assert_int_equal(open_copy(buf.data, buf.size, 0, &err), KILN_ERR_UNSUPPORTED);
    assert_message_contains(&err, "container version 2 is not supported");
    bytebuf_free(&buf);
}

static void container_rejects_trailing_bytes(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_sample(&buf);
    size_t size = buf.size;
    bytebuf_append_zeros(&buf, 16);
    kiln_error err;
    /* More bytes than the header declares (R8). */
    assert_int_equal(open_copy(buf.data, buf.size, 0, &err), KILN_ERR_CORRUPT);
    assert_message_contains(&err, "16 trailing bytes");
    /* Declared, but after the last chunk's padding (R16). */
    put_u64(buf.data + offsetof(kiln_container_header, file_size), size + 16);
    assert_int_equal(open_copy(buf.data, buf.size, 0, &err), KILN_ERR_CORRUPT);
    assert_message_contains(&err, "last chunk ends at byte 193");
    bytebuf_free(&buf);
}

static void container_rejects_overlapping_chunks(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_sample(&buf);
    /* CCCC moved onto AAAA (an empty chunk sharing an offset is fine). */
    put_u64(buf.data + 48 + 2 * 32 + offsetof(kiln_chunk_entry, offset), 144);
    kiln_error err;
    assert_int_equal(open_copy(buf.data, buf.size, 0, &err), KILN_ERR_CORRUPT);
    assert_message_contains(&err,
                            "chunk 2 (CCCC) starts at byte 144, before the previous chunk ends");
    bytebuf_free(&buf);
}

static void container_rejects_offset_overflow(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_sample(&buf);
    uint8_t *entry = buf.data + 48 + 2 * 32;
    put_u64(entry + offsetof(kiln_chunk_entry, offset), UINT64_MAX - 15); /* 16-aligned */
    put_u64(entry + offsetof(kiln_chunk_entry, size), 32);                /* wraps to 16 */
    kiln_error err;
    assert_int_equal(open_copy(buf.data, buf.size, 0, &err), KILN_ERR_CORRUPT);
    assert_message_contains(&err, "overflows 64 bits");

    /* A small offset with a huge size must not wrap either. */
    put_u64(entry + offsetof(kiln_chunk_entry, offset), 160);
    put_u64(entry + offsetof(kiln_chunk_entry, size), UINT64_MAX - 100);
    assert_int_equal(open_copy(buf.data, buf.size, 0, &err), KILN_ERR_CORRUPT);
    assert_message_contains(&err, "overflows 64 bits");
    bytebuf_free(&buf);
}

static void container_rejects_chunk_past_end(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_sample(&buf);
    put_u64(buf.data + 48 + 2 * 32 + offsetof(kiln_chunk_entry, size), 1000);
    kiln_error err;
    assert_int_equal(open_copy(buf.data, buf.size, 0, &err), KILN_ERR_CORRUPT);
    assert_message_contains(
        &err,
        "sample.kiln: chunk 2 (CCCC) ends at byte 1160, past the end of the file (208 bytes)");
    bytebuf_free(&buf);
}

/* One row per header or table rule: patch one field, expect one result. */
typedef struct field_patch {
    const char *rule;
    size_t offset;
    int width; /* bytes: 2, 4 or 8 */
    uint64_t value;
    kiln_result expected;
    const char *fragment;
} field_patch;

static void container_rejects_each_broken_field(void **state) {
    (void)state;
    enum { TABLE = 48, ENTRY = 32 };
    const field_patch patches[] = {
        {"R4 header_size", 20, 4, 64, KILN_ERR_CORRUPT, "header_size is 64"},
        {"R5 unknown flag", 12, 4, 0x5, KILN_ERR_UNSUPPORTED, "unknown header flags 0x4"},
        {"R12 encoded flag without encoded chunks", 12, 4, 0x3, KILN_ERR_CORRUPT,
         "encoded-chunks flag is set but no chunk is encoded"},
        {"R6 reserved", 40, 8, 1, KILN_ERR_CORRUPT, "reserved header field"},
        {"R7 stray checksum", 12, 4, 0, KILN_ERR_CORRUPT, "checksum flag is clear"},
        {"R8 longer file_size", 24, 8, 224, KILN_ERR_TRUNCATED, "16 bytes missing"},
        {"R8 shorter file_size", 24, 8, 192, KILN_ERR_CORRUPT, "16 trailing bytes"},
        {"R11 chunk table", 16, 4, 0xffffffffu, KILN_ERR_CORRUPT, "past the end of the file"},
        {"R12 chunk flags", TABLE + 4, 4, 0x8, KILN_ERR_UNSUPPORTED,
         "chunk 0 (AAAA) has unknown flags"},
        {"R12 decoded size of a stored chunk", TABLE + 24, 8, 1, KILN_ERR_CORRUPT,
         "decoded_size 1 (must be 0)"},
        {"R13 inside table", TABLE + 8, 8, 128, KILN_ERR_CORRUPT,
         "inside the header or chunk table"},
        {"R13 misaligned", TABLE + ENTRY + 8, 8, 152, KILN_ERR_CORRUPT, "not a multiple of 16"},
        {"R15 out of order", TABLE + 8, 8, 176, KILN_ERR_CORRUPT, "before the previous chunk ends"},
        {"R16 unused tail", TABLE + 2 * ENTRY + 16, 8, 16, KILN_ERR_CORRUPT, "last chunk ends"},
    };
    bytebuf buf = {0};
    build_sample(&buf);
    for (size_t i = 0; i < sizeof patches / sizeof patches[0]; i++) {
        const field_patch *p = &patches[i];
        uint8_t *copy = aligned_copy(buf.data, buf.size);
        if (p->width == 2)
            put_u16(copy + p->offset, (uint16_t)p->value);
        else if (p->width == 4)
            put_u32(copy + p->offset, (uint32_t)p->value);
        else
            put_u64(copy + p->offset, p->value);
        kiln_file file;
        kiln_error err;
        kiln_result result = kiln_file_from_memory(&file, copy, buf.size, "sample.kiln", 0, &err);
        if (result != p->expected || strstr(err.message, p->fragment) == NULL)
            fail_msg("%s: got %s \"%s\", expected %s with \"%s\"", p->rule, kiln_result_str(result),
                     err.message, kiln_result_str(p->expected), p->fragment);
        assert_null(file.data); /* left closed */
        free(copy);
    }
    bytebuf_free(&buf);
}

static void container_skips_unknown_chunks(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_mesh(&buf); /* has a 'ZZZ9' chunk between MATR and VTX0 */
    uint8_t *bytes = aligned_copy(buf.data, buf.size);
    kiln_file file;
    kiln_error err;
    assert_int_equal(kiln_file_from_memory(&file, bytes, buf.size, "quad.kmesh",
                                           KILN_OPEN_VERIFY_CHECKSUM, &err),
                     KILN_OK);
    kiln_mesh_view view;
    assert_int_equal(kiln_mesh_view_get(&file, KILN_OPEN_DEEP, &view, &err), KILN_OK);
    assert_int_equal(view.desc->vertex_count, 4);
    kiln_chunk chunk;
    assert_int_equal(kiln_file_find_chunk(&file, KILN_FOURCC('Z', 'Z', 'Z', '9'), &chunk), KILN_OK);
    assert_memory_equal(chunk.data, "future", 6);
    size_t meta_size = 0;
    const char *meta = kiln_file_metadata(&file, &meta_size);
    assert_non_null(meta);
    assert_true(meta_size > 0 && meta[0] == '{' && meta[meta_size - 1] == '}');
    kiln_file_close(&file);
    free(bytes);
    bytebuf_free(&buf);
}

/* ---------------------------------------------------------------------------
 * Checksum
 * ------------------------------------------------------------------------- */

static void container_checksum_detects_single_bit_flip(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_mesh(&buf);
    uint8_t *copy = aligned_copy(buf.data, buf.size);
    for (size_t bit = 0; bit < buf.size * 8; bit++) {
        memcpy(copy, buf.data, buf.size);
        copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        kiln_file file;
        kiln_error err;
        kiln_result result =
            kiln_file_from_memory(&file, copy, buf.size, NULL, KILN_OPEN_VERIFY_CHECKSUM, &err);
        size_t byte = bit / 8;
        bool checksum_covers = byte >= 48 || (byte >= 32 && byte < 40);
        if (result == KILN_OK)
            fail_msg("flip of bit %zu accepted", bit);
        /* Past the header fields the checksum runs first, so it names the damage. */
        if (checksum_covers && result != KILN_ERR_CHECKSUM)
            fail_msg("flip of bit %zu: %s", bit, err.message);
    }
    free(copy);
    bytebuf_free(&buf);
}

static void container_verify_without_checksum_is_unsupported(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_sample(&buf);
    put_u32(buf.data + offsetof(kiln_container_header, flags), 0);
    put_u64(buf.data + offsetof(kiln_container_header, checksum), 0);
    kiln_error err;
    assert_int_equal(open_copy(buf.data, buf.size, 0, &err), KILN_OK);
    assert_int_equal(open_copy(buf.data, buf.size, KILN_OPEN_VERIFY_CHECKSUM, &err),
                     KILN_ERR_UNSUPPORTED);
    assert_message_contains(&err, "carries no checksum");
    bytebuf_free(&buf);
}

static void container_checksum_skips_its_own_field(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_sample(&buf);
    /* The stored value is the hash of the file with the field zeroed. */
    uint64_t stored = get_u64(buf.data + 32);
    put_u64(buf.data + 32, 0);
    assert_true(stored == XXH3_64bits(buf.data, buf.size));
    bytebuf_free(&buf);
}

/* ---------------------------------------------------------------------------
 * Damaged bytes
 * ------------------------------------------------------------------------- */

static void container_rejects_every_truncation(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_mesh(&buf);
    for (size_t length = 0; length < buf.size; length++) {
        kiln_error err;
        kiln_result result = open_copy(buf.data, length, 0, &err);
        if (result != KILN_ERR_TRUNCATED)
            fail_msg("prefix of %zu bytes: %s \"%s\"", length, kiln_result_str(result),
                     err.message);
    }
    bytebuf_free(&buf);
}

static uint64_t xorshift64(uint64_t *s) {
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Reads every byte a view hands out, so ASan sees any pointer out of range. */
static uint32_t touch_view(const kiln_mesh_view *view) {
    uint32_t sum = 0;
    const uint8_t *v = view->vertices;
    for (size_t i = 0; i < view->vertex_bytes; i++)
        sum += v[i];
    const uint8_t *x = view->indices;
    for (size_t i = 0; i < view->index_bytes; i++)
        sum += x[i];
    for (uint32_t i = 0; i < view->desc->submesh_count; i++)
        sum += view->submeshes[i].index_count;
    for (uint32_t i = 0; i < view->desc->attribute_count; i++)
        sum += view->attributes[i].offset;
    return sum;
}

static void container_survives_random_bit_flips(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_mesh(&buf);
    uint8_t *copy = aligned_copy(buf.data, buf.size);
    uint64_t seed = 0x6b696c6e2d666c70ull; /* fixed: failures reproduce */
    size_t structurally_valid = 0, mesh_valid = 0;
    uint32_t sink = 0;
    for (int round = 0; round < 5000; round++) {
        memcpy(copy, buf.data, buf.size);
        /* 1 to 4 distinct bits, so the file always differs from the original. */
        size_t flipped[4];
        int flips = 1 + (int)(xorshift64(&seed) % 4);
        for (int f = 0; f < flips; f++) {
            size_t bit;
            bool repeat;
            do {
                bit = (size_t)(xorshift64(&seed) % (buf.size * 8));
                repeat = false;
                for (int g = 0; g < f; g++)
                    repeat = repeat || flipped[g] == bit;
            } while (repeat);
            flipped[f] = bit;
            copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }

        kiln_file file;
        kiln_error err;
        if (kiln_file_from_memory(&file, copy, buf.size, NULL, 0, &err) == KILN_OK) {
            structurally_valid++;
            kiln_mesh_view view;
            if (kiln_mesh_view_get(&file, KILN_OPEN_DEEP, &view, &err) == KILN_OK) {
                mesh_valid++;
                sink += touch_view(&view);
            }
            size_t meta_size;
            const char *meta = kiln_file_metadata(&file, &meta_size);
            for (size_t i = 0; i < meta_size; i++)
                sink += (uint8_t)meta[i];
            kiln_file_close(&file);
        }
        kiln_result verified =
            kiln_file_from_memory(&file, copy, buf.size, NULL, KILN_OPEN_VERIFY_CHECKSUM, &err);
        if (verified == KILN_OK)
            fail_msg("round %d: damaged file passed checksum verification", round);
    }
    printf("random flips: %zu of 5000 structurally valid, %zu valid meshes (sink %u)\n",
           structurally_valid, mesh_valid, sink);
    free(copy);
    bytebuf_free(&buf);
}

/* ---------------------------------------------------------------------------
 * Files and arguments
 * ------------------------------------------------------------------------- */

static void container_file_map_and_load_read_a_real_file(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("container_map");
    char *path = test_path_join(dir, "quad.kmesh");
    bytebuf buf = {0};
    build_mesh(&buf);
    test_write_file(path, buf.data, buf.size);

    kiln_file file;
    kiln_error err;
    assert_int_equal(kiln_file_map(&file, path, KILN_OPEN_VERIFY_CHECKSUM, &err), KILN_OK);
    assert_int_equal(file.size, buf.size);
    assert_memory_equal(file.data, buf.data, buf.size);
    assert_string_equal(file.name + strlen(file.name) - strlen("quad.kmesh"), "quad.kmesh");
    kiln_mesh_view view;
    assert_int_equal(kiln_mesh_view_get(&file, KILN_OPEN_DEEP, &view, &err), KILN_OK);
    kiln_file_close(&file);

    assert_int_equal(kiln_file_load(&file, path, KILN_OPEN_VERIFY_CHECKSUM, &err), KILN_OK);
    assert_int_equal(file.size, buf.size);
    assert_int_equal((uintptr_t)file.data % 16, 0);
    assert_memory_equal(file.data, buf.data, buf.size);
    kiln_file_close(&file);
    kiln_file_close(&file); /* closing twice is harmless */

    free(path);
    free(dir);
    bytebuf_free(&buf);
}

static void container_file_map_reports_missing_file(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("container_missing");
    char *path = test_path_join(dir, "absent.kmesh");
    kiln_file file;
    kiln_error err;
    assert_int_equal(kiln_file_map(&file, path, 0, &err), KILN_ERR_IO);
    assert_int_equal(err.code, KILN_ERR_IO);
    assert_message_contains(&err, path);
    assert_message_contains(&err, "cannot open");
    assert_null(file.data);
    assert_int_equal(kiln_file_load(&file, path, 0, &err), KILN_ERR_IO);
    assert_message_contains(&err, path);

    /* A folder is not a cooked file either. */
    assert_int_equal(kiln_file_map(&file, dir, 0, &err), KILN_ERR_IO);
    assert_message_contains(&err, "not a regular file");
    free(path);
    free(dir);
}

static void container_file_map_rejects_empty_file(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("container_empty");
    char *path = test_path_join(dir, "empty.kmesh");
    test_write_file(path, "", 0);
    kiln_file file;
    kiln_error err;
    assert_int_equal(kiln_file_map(&file, path, 0, &err), KILN_ERR_TRUNCATED);
    assert_message_contains(&err, "empty file");
    assert_null(file.data);
    assert_int_equal(kiln_file_load(&file, path, 0, &err), KILN_ERR_TRUNCATED);
    assert_message_contains(&err, "empty file");
    free(path);
    free(dir);
}

static void container_names_long_paths_by_their_tail(void **state) {
    (void)state;
    char path[400];
    memset(path, 'd', sizeof path);
    memcpy(path, "/nowhere/", 9);
    strcpy(path + sizeof path - 16, "/tail.kmesh");
    kiln_file file;
    kiln_error err;
    assert_int_equal(kiln_file_map(&file, path, 0, &err), KILN_ERR_IO);
    /* The message starts with the last 127 characters of the path. */
    assert_int_equal(strncmp(err.message, path + strlen(path) - 127, 127), 0);
    assert_message_contains(&err, "tail.kmesh: cannot open");
}

static void container_from_memory_rejects_unaligned_data(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_sample(&buf);
    uint8_t *block = aligned_copy(NULL, buf.size + 16);
    memcpy(block + 4, buf.data, buf.size);
    kiln_file file;
    kiln_error err;
    assert_int_equal(kiln_file_from_memory(&file, block + 4, buf.size, "x", 0, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_message_contains(&err, "not 16-byte aligned");
    assert_null(file.data);
    free(block);
    bytebuf_free(&buf);
}

static void container_rejects_bad_arguments(void **state) {
    (void)state;
    bytebuf buf = {0};
    build_sample(&buf);
    uint8_t *bytes = aligned_copy(buf.data, buf.size);
    kiln_file file;
    kiln_error err;
    assert_int_equal(kiln_file_from_memory(NULL, bytes, buf.size, NULL, 0, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_file_from_memory(&file, NULL, 0, NULL, 0, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_file_from_memory(&file, bytes, buf.size, NULL, 0x80, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_message_contains(&err, "unknown open flags 0x80");
    /* err may be NULL. */
    assert_int_equal(kiln_file_from_memory(&file, bytes, 3, NULL, 0, NULL), KILN_ERR_TRUNCATED);
    kiln_chunk chunk;
    assert_int_equal(kiln_file_find_chunk(NULL, 0, &chunk), KILN_ERR_INVALID_ARGUMENT);
    kiln_file zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    kiln_file_close(&zeroed);
    kiln_file_close(NULL);
    free(bytes);
    bytebuf_free(&buf);
}

static void container_result_and_fourcc_strings(void **state) {
    (void)state;
    for (int r = 0; r <= KILN_RESULT_COUNT_; r++)
        assert_non_null(kiln_result_str((kiln_result)r));
    assert_string_equal(kiln_result_str(KILN_ERR_TRUNCATED), "truncated");
    assert_string_equal(kiln_result_str(KILN_ERR_CHECKSUM), "checksum mismatch");
    assert_string_equal(kiln_result_str((kiln_result)99), "unknown result");
    char text[5];
    kiln_fourcc_str(KILN_CHUNK_MESH_INDICES, text);
    assert_string_equal(text, "IDX ");
    kiln_fourcc_str(KILN_FOURCC('A', 0, '\n', 0xff), text);
    assert_string_equal(text, "A???");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(container_round_trips_chunks),
        cmocka_unit_test(container_pads_payloads_to_16_with_zeros),
        cmocka_unit_test(container_output_is_deterministic),
        cmocka_unit_test(container_borrowed_chunks_match_copied_ones),
        cmocka_unit_test(container_copies_large_payloads_on_threads),
        cmocka_unit_test(container_with_no_chunks_is_just_a_header),
        cmocka_unit_test(container_abandon_frees_pending_chunks),
        cmocka_unit_test(container_rejects_wrong_magic),
        cmocka_unit_test(container_rejects_unsupported_version),
        cmocka_unit_test(container_rejects_trailing_bytes),
        cmocka_unit_test(container_rejects_overlapping_chunks),
        cmocka_unit_test(container_rejects_offset_overflow),
        cmocka_unit_test(container_rejects_chunk_past_end),
        cmocka_unit_test(container_rejects_each_broken_field),
        cmocka_unit_test(container_skips_unknown_chunks),
        cmocka_unit_test(container_checksum_detects_single_bit_flip),
        cmocka_unit_test(container_verify_without_checksum_is_unsupported),
        cmocka_unit_test(container_checksum_skips_its_own_field),
        cmocka_unit_test(container_rejects_every_truncation),
        cmocka_unit_test(container_survives_random_bit_flips),
        cmocka_unit_test(container_file_map_and_load_read_a_real_file),
        cmocka_unit_test(container_file_map_reports_missing_file),
        cmocka_unit_test(container_file_map_rejects_empty_file),
        cmocka_unit_test(container_names_long_paths_by_their_tail),
        cmocka_unit_test(container_from_memory_rejects_unaligned_data),
        cmocka_unit_test(container_rejects_bad_arguments),
        cmocka_unit_test(container_result_and_fourcc_strings),
        cmocka_unit_test(container_layout_writes_finish_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
