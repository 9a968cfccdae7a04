/* Compressed chunks (container.md, Encoded chunks; runtime/chunk_codec.c,
 * cook/write/container_encode.c).
 *
 * Corpus models (a textured mesh, a skinned and animated one, a scene of
 * nine nodes) are cooked twice by the kiln command, with container.compress
 * none and small: every chunk the compressed cook encodes decodes to the
 * bytes of the uncompressed cook, its expanded file opens with deep checks,
 * and the asset manager hands the engine the same buffers from the
 * compressed folder and from its pack as from the uncompressed folder.
 * A file written by hand from meshoptimizer's own encoder decodes to the
 * vertices it was made from, and damaged chunks fail with errors naming
 * the chunk, never a write past the caller's buffer. */
#include <dirent.h>
#include <meshoptimizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>
#include <zstd.h>

#include "cli/cli.h"
#include "kiln/kiln.h"
#include "kiln/manager.h"
#include "manager_fixture.h"
#include "test_support.h"

static const char *const models[] = {
    "gltf/DamagedHelmet/glTF-Binary/DamagedHelmet.glb",
    "gltf/Fox/glTF-Binary/Fox.glb",
    "gltf/AlphaBlendModeTest/glTF-Binary/AlphaBlendModeTest.glb",
};
#define MODEL_COUNT (sizeof models / sizeof models[0])

/* The corpus models cooked both ways, once for all tests. */
typedef struct cooked_pair {
    char *plain, *compressed, *pack;
} cooked_pair;
static cooked_pair cooked;

static void cook(const char *src, const char *out, const char *compress, bool pack) {
    char *config = test_path_join(src, "../kiln.yml");
    char text[256];
    snprintf(text, sizeof text,
             "default:\n  texture.max_size: 16\n  texture.quality: fast\n  texture.mipmaps: false\n"
             "  container.compress: %s\n",
             compress);
    test_write_file(config, text, strlen(text));
    char *argv[] = {"kiln", "build", "-q",        "-j", "2",         "--config",
                    config, "-i",    (char *)src, "-o", (char *)out, pack ? "--pack" : NULL,
                    NULL};
    assert_int_equal(cli_main(pack ? 12 : 11, argv), 0);
    free(config);
}

static int setup(void **state) {
    (void)state;
    char *root = test_make_temp_dir("chunk_codec");
    char *src = test_path_join(root, "src");
    mkdir(src, 0755);
    for (size_t i = 0; i < MODEL_COUNT; i++) {
        const char *name = strrchr(models[i], '/') + 1;
        char *from = test_path_join(test_corpus_dir(), models[i]);
        char *to = test_path_join(src, name);
        size_t size;
        uint8_t *bytes = test_read_file(from, &size);
        test_write_file(to, bytes, size);
        free(bytes);
        free(from);
        free(to);
    }
    cooked.plain = test_path_join(root, "plain");
    cooked.compressed = test_path_join(root, "small");
    cooked.pack = test_path_join(root, "small.kpak");
    cook(src, cooked.plain, "none", false);
    cook(src, cooked.compressed, "small", true);
    free(src);
    free(root);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    free(cooked.plain);
    free(cooked.compressed);
    free(cooked.pack);
    return 0;
}

static bool is_container(const char *name) {
    const char *dot = strrchr(name, '.');
    return dot != NULL && (strcmp(dot, ".kmesh") == 0 || strcmp(dot, ".kmat") == 0 ||
                           strcmp(dot, ".kscene") == 0 || strcmp(dot, ".kanim") == 0);
}

/* The view of the file's kind, with deep checks. */
static kiln_result open_view(const kiln_file *file, kiln_error *err) {
    switch (file->kind) {
    case KILN_KIND_MESH: {
        kiln_mesh_view view;
        return kiln_mesh_view_get(file, KILN_OPEN_DEEP, &view, err);
    }
    case KILN_KIND_MATERIALS: {
        kiln_material_view view;
        return kiln_material_view_get(file, KILN_OPEN_DEEP, &view, err);
    }
    case KILN_KIND_SCENE: {
        kiln_scene_view view;
        return kiln_scene_view_get(file, KILN_OPEN_DEEP, &view, err);
    }
    default: {
        kiln_anim_view view;
        return kiln_anim_view_get(file, KILN_OPEN_DEEP, &view, err);
    }
    }
}

typedef struct compare_totals {
    int files, encoded_chunks, filtered_chunks;
    uint32_t kinds_encoded; /* bit per kind: mesh 1, materials 2, scene 4, anim 8 */
} compare_totals;

static uint32_t kind_bit(uint32_t kind) {
    return kind == KILN_KIND_MESH        ? 1u
           : kind == KILN_KIND_MATERIALS ? 2u
           : kind == KILN_KIND_SCENE     ? 4u
                                         : 8u;
}

/* One file: each chunk of the compressed cook decodes to the plain cook's
 * payload (META aside: it records the setting). */
static void compare_file(const char *plain_path, const char *compressed_path,
                         compare_totals *totals) {
    kiln_file plain, packed;
    kiln_error err;
    assert_int_equal(kiln_file_map(&plain, plain_path, KILN_OPEN_VERIFY_CHECKSUM, &err), KILN_OK);
    assert_int_equal(kiln_file_map(&packed, compressed_path, KILN_OPEN_VERIFY_CHECKSUM, &err),
                     KILN_OK);
    assert_false(kiln_file_has_encoded_chunks(&plain));
    assert_int_equal(plain.chunk_count, packed.chunk_count);
    bool any = false;
    for (uint32_t i = 0; i < plain.chunk_count; i++) {
        const kiln_chunk_entry *want = &plain.chunks[i], *got = &packed.chunks[i];
        assert_int_equal(want->fourcc, got->fourcc);
        assert_int_equal(want->flags, 0);
        kiln_chunk_info info;
        assert_int_equal(kiln_file_chunk_info(&packed, got->fourcc, &info, &err), KILN_OK);
        if (got->fourcc == KILN_CHUNK_META) {
            assert_int_equal(got->flags, 0); /* never encoded */
            continue;
        }
        assert_int_equal(info.decoded_size, want->size);
        if (got->flags != 0) {
            any = true;
            totals->encoded_chunks++;
            totals->filtered_chunks += (got->flags & KILN_CHUNK_FILTER_MASK) != 0;
            assert_true(got->size < want->size); /* kept only when smaller */
        }
        uint8_t *decoded = malloc(info.decode_capacity + 1);
        assert_non_null(decoded);
        assert_int_equal(kiln_file_decode_chunk(&packed, got->fourcc, decoded,
                                                (size_t)info.decode_capacity, &err),
                         KILN_OK);
        if (want->size > 0)
            assert_memory_equal(decoded, plain.data + want->offset, (size_t)want->size);
        free(decoded);
    }
    assert_int_equal(kiln_file_has_encoded_chunks(&packed), any);
    if (any) {
        totals->kinds_encoded |= kind_bit(packed.kind);
        /* The views refuse the compressed file, saying what to do... */
        assert_int_equal(open_view(&packed, &err), KILN_ERR_UNSUPPORTED);
        assert_non_null(strstr(err.message, "kiln_file_expand"));
    }
    /* ...and read its expansion, which is the plain file but for META. */
    size_t size, capacity;
    assert_int_equal(kiln_file_expanded_size(&packed, &size, &capacity, &err), KILN_OK);
    uint8_t *expanded = aligned_alloc(16, (capacity + 15) / 16 * 16);
    assert_int_equal(kiln_file_expand(&packed, expanded, capacity, &err), KILN_OK);
    kiln_file opened;
    assert_int_equal(
        kiln_file_from_memory(&opened, expanded, size, "expanded", KILN_OPEN_VERIFY_CHECKSUM, &err),
        KILN_OK);
    assert_int_equal(open_view(&opened, &err), KILN_OK);
    assert_int_equal(opened.chunk_count, plain.chunk_count);
    for (uint32_t i = 0; i < plain.chunk_count; i++) {
        const kiln_chunk_entry *want = &plain.chunks[i], *got = &opened.chunks[i];
        assert_int_equal(got->flags, 0);
        assert_int_equal(got->decoded_size, 0);
        if (want->fourcc != KILN_CHUNK_META && want->size > 0) {
            assert_int_equal(got->size, want->size);
            assert_memory_equal(opened.data + got->offset, plain.data + want->offset,
                                (size_t)want->size);
        }
    }
    kiln_file_close(&opened);
    free(expanded);
    kiln_file_close(&plain);
    kiln_file_close(&packed);
    totals->files++;
}

static void compare_tree(const char *plain_dir, const char *compressed_dir,
                         compare_totals *totals) {
    DIR *dir = opendir(plain_dir);
    assert_non_null(dir);
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        char *plain = test_path_join(plain_dir, entry->d_name);
        char *compressed = test_path_join(compressed_dir, entry->d_name);
        if (entry->d_type == DT_DIR)
            compare_tree(plain, compressed, totals);
        else if (is_container(entry->d_name))
            compare_file(plain, compressed, totals);
        free(plain);
        free(compressed);
    }
    closedir(dir);
}

static void compressed_cook_decodes_to_the_plain_bytes(void **state) {
    (void)state;
    compare_totals totals = {0};
    compare_tree(cooked.plain, cooked.compressed, &totals);
    /* 3 meshes (the scene's nine share one file per mesh), their tables,
     * scenes and the fox's clips. */
    assert_true(totals.files >= 10);
    assert_int_equal(totals.kinds_encoded, 1u | 2u | 4u | 8u);
    assert_true(totals.filtered_chunks >= 3); /* at least each model's vertices */
    print_message("%d files, %d chunks encoded, %d through a meshopt filter\n", totals.files,
                  totals.encoded_chunks, totals.filtered_chunks);
}

/* ---------------------------------------------------------------------------
 * Damage
 * ------------------------------------------------------------------------- */

typedef struct loaded {
    uint8_t *bytes;
    size_t size;
    kiln_chunk_entry *vertices; /* VTX0's entry, writable */
} loaded;

static loaded load_helmet(void) {
    char *path = test_path_join(cooked.compressed, "DamagedHelmet.kmesh");
    loaded l = {0};
    uint8_t *bytes = test_read_file(path, &l.size);
    l.bytes = aligned_alloc(16, (l.size + 15) / 16 * 16);
    memcpy(l.bytes, bytes, l.size);
    free(bytes);
    free(path);
    const kiln_container_header *header = (const void *)l.bytes;
    kiln_chunk_entry *table = (void *)(l.bytes + sizeof *header);
    for (uint32_t i = 0; i < header->chunk_count; i++)
        if (table[i].fourcc == KILN_CHUNK_MESH_VERTICES)
            l.vertices = &table[i];
    assert_non_null(l.vertices);
    assert_true((l.vertices->flags & KILN_CHUNK_ZSTD) != 0);
    return l;
}

/* Opens the damaged bytes and decodes VTX0 into a buffer of exactly its
 * decode capacity plus a guard, which must stay untouched. */
static kiln_result decode_damaged(const loaded *l, kiln_error *err) {
    kiln_file file;
    kiln_result r = kiln_file_from_memory(&file, l->bytes, l->size, "damaged.kmesh", 0, err);
    if (r != KILN_OK)
        return r;
    kiln_chunk_info info;
    r = kiln_file_chunk_info(&file, KILN_CHUNK_MESH_VERTICES, &info, err);
    if (r == KILN_OK) {
        uint8_t *dst = malloc((size_t)info.decode_capacity + 64);
        memset(dst + info.decode_capacity, 0xA5, 64);
        r = kiln_file_decode_chunk(&file, KILN_CHUNK_MESH_VERTICES, dst,
                                   (size_t)info.decode_capacity, err);
        for (int k = 0; k < 64; k++)
            assert_int_equal(dst[info.decode_capacity + (size_t)k], 0xA5);
        free(dst);
    }
    kiln_file_close(&file);
    return r;
}

static void damaged_chunks_fail_clearly(void **state) {
    (void)state;
    kiln_error err;
    loaded l = load_helmet();
    uint8_t *payload = l.bytes + l.vertices->offset;
    size_t stored = (size_t)l.vertices->size;
    uint8_t *saved = malloc(stored);
    memcpy(saved, payload, stored);

    /* A flipped byte inside the frame: Zstd's checksum or the filter. */
    payload[stored / 2] ^= 0x5A;
    assert_int_equal(decode_damaged(&l, &err), KILN_ERR_CORRUPT);
    assert_non_null(strstr(err.message, "VTX0"));
    memcpy(payload, saved, stored);

    /* Garbage in place of the frame. */
    memset(payload, 0xFF, stored);
    assert_int_equal(decode_damaged(&l, &err), KILN_ERR_CORRUPT);
    assert_non_null(strstr(err.message, "damaged.kmesh"));
    memcpy(payload, saved, stored);

    /* A truncated frame (the table says fewer bytes). */
    l.vertices->size = stored - 9;
    assert_int_equal(decode_damaged(&l, &err), KILN_ERR_CORRUPT);
    assert_non_null(strstr(err.message, "VTX0"));
    l.vertices->size = stored;

    /* A decoded size the frame does not declare (Zstd alone), or that is not
     * a whole number of vertices (a filter). (A whole number may decode
     * under a filter alone: meshopt's vertex codec stores vertices in groups
     * of 16, so a count within the last group is not seen; the mesh's own
     * size check, kmesh.md, catches it once the file is expanded.) */
    l.vertices->decoded_size += 4;
    assert_int_equal(decode_damaged(&l, &err), KILN_ERR_CORRUPT);
    assert_non_null(strstr(err.message, (l.vertices->flags & KILN_CHUNK_FILTER_MASK) != 0
                                            ? "whole number"
                                            : "declares"));
    l.vertices->decoded_size -= 4;

    /* An element size meshoptimizer would assert on: refused at open. */
    uint32_t flags = l.vertices->flags;
    l.vertices->flags = (flags & 0xFFFFu) | (6u << KILN_CHUNK_ELEMENT_SHIFT);
    assert_int_equal(decode_damaged(&l, &err), KILN_ERR_CORRUPT);
    assert_non_null(strstr(err.message, "element size"));
    /* A flag bit from the future. */
    l.vertices->flags = flags | 0x100u;
    assert_int_equal(decode_damaged(&l, &err), KILN_ERR_UNSUPPORTED);
    l.vertices->flags = flags;

    /* A claim of terabytes from a small chunk. */
    uint64_t decoded = l.vertices->decoded_size;
    l.vertices->decoded_size = (uint64_t)1 << 42;
    assert_int_equal(decode_damaged(&l, &err), KILN_ERR_CORRUPT);
    l.vertices->decoded_size = decoded;

    /* The header flag must agree with the chunks. */
    kiln_container_header *header = (void *)l.bytes;
    header->flags &= ~KILN_CONTAINER_FLAG_ENCODED_CHUNKS;
    assert_int_equal(decode_damaged(&l, &err), KILN_ERR_CORRUPT);
    header->flags |= KILN_CONTAINER_FLAG_ENCODED_CHUNKS;

    /* Undamaged, it decodes; a buffer one byte short is refused. */
    assert_int_equal(decode_damaged(&l, &err), KILN_OK);
    kiln_file file;
    assert_int_equal(kiln_file_from_memory(&file, l.bytes, l.size, NULL, 0, &err), KILN_OK);
    kiln_chunk_info info;
    assert_int_equal(kiln_file_chunk_info(&file, KILN_CHUNK_MESH_VERTICES, &info, &err), KILN_OK);
    uint8_t *dst = malloc((size_t)info.decode_capacity);
    assert_int_equal(kiln_file_decode_chunk(&file, KILN_CHUNK_MESH_VERTICES, dst,
                                            (size_t)info.decode_capacity - 1, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    kiln_chunk chunk;
    assert_int_equal(kiln_file_find_chunk(&file, KILN_CHUNK_MESH_VERTICES, &chunk),
                     KILN_ERR_UNSUPPORTED);
    free(dst);
    kiln_file_close(&file);
    free(saved);
    free(l.bytes);
}

/* ---------------------------------------------------------------------------
 * A file written by hand, from the spec
 * ------------------------------------------------------------------------- */

/* A container of one chunk `fourcc` holding `payload` with `flags` and
 * `decoded_size`, laid out as container.md says (no checksum). */
static uint8_t *hand_container(uint32_t fourcc, const void *payload, size_t size, uint32_t flags,
                               uint64_t decoded_size, size_t *file_size) {
    size_t offset = 48 + 32, end = offset + size;
    *file_size = (end + 15) / 16 * 16;
    uint8_t *file = aligned_alloc(16, *file_size);
    memset(file, 0, *file_size);
    kiln_container_header header = {.magic = KILN_CONTAINER_MAGIC,
                                    .kind = KILN_KIND_MESH,
                                    .container_version = 1,
                                    .kind_version = KILN_MESH_VERSION,
                                    .flags = flags != 0 ? KILN_CONTAINER_FLAG_ENCODED_CHUNKS : 0,
                                    .chunk_count = 1,
                                    .header_size = 48,
                                    .file_size = *file_size};
    kiln_chunk_entry entry = {.fourcc = fourcc,
                              .flags = flags,
                              .offset = offset,
                              .size = size,
                              .decoded_size = decoded_size};
    memcpy(file, &header, sizeof header);
    memcpy(file + 48, &entry, sizeof entry);
    memcpy(file + offset, payload, size);
    return file;
}

static void hand_written_meshopt_chunks_decode(void **state) {
    (void)state;
    /* 300 vertices of 16 bytes: a smooth strip, as meshes are. */
    enum { COUNT = 300, STRIDE = 16 };
    float vertices[COUNT][4];
    for (int v = 0; v < COUNT; v++) {
        vertices[v][0] = (float)(v % 20) * 0.25f;
        vertices[v][1] = (float)(v / 20) * 0.5f;
        vertices[v][2] = 1.0f;
        vertices[v][3] = (float)v;
    }
    uint8_t encoded[8192];
    size_t n = meshopt_encodeVertexBuffer(encoded, sizeof encoded, vertices, COUNT, STRIDE);
    assert_true(n > 0);
    kiln_error err;
    size_t file_size;
    uint32_t flags = KILN_CHUNK_FILTER_MESHOPT_VERTEX | (STRIDE << KILN_CHUNK_ELEMENT_SHIFT);
    uint8_t *bytes =
        hand_container(KILN_CHUNK_MESH_VERTICES, encoded, n, flags, sizeof vertices, &file_size);
    kiln_file file;
    assert_int_equal(kiln_file_from_memory(&file, bytes, file_size, NULL, 0, &err), KILN_OK);
    float decoded[COUNT][4];
    assert_int_equal(
        kiln_file_decode_chunk(&file, KILN_CHUNK_MESH_VERTICES, decoded, sizeof decoded, &err),
        KILN_OK);
    assert_memory_equal(decoded, vertices, sizeof vertices);
    /* Its first bytes damaged: meshoptimizer's header check. */
    kiln_file_close(&file);
    bytes[48 + 32] ^= 0xFF;
    assert_int_equal(kiln_file_from_memory(&file, bytes, file_size, NULL, 0, &err), KILN_OK);
    assert_int_equal(
        kiln_file_decode_chunk(&file, KILN_CHUNK_MESH_VERTICES, decoded, sizeof decoded, &err),
        KILN_ERR_CORRUPT);
    assert_non_null(strstr(err.message, "meshopt vertex"));
    kiln_file_close(&file);
    free(bytes);

    /* 16-bit index sequence under Zstd, made with both libraries directly. */
    uint32_t sequence[90];
    uint16_t sequence16[90];
    for (int i = 0; i < 90; i++)
        sequence16[i] = (uint16_t)(sequence[i] = (uint32_t)(i * 7 % 61));
    uint8_t filtered[1024], framed[1024];
    size_t f = meshopt_encodeIndexSequence(filtered, sizeof filtered, sequence, 90);
    size_t z = ZSTD_compress(framed, sizeof framed, filtered, f, 3);
    assert_false(ZSTD_isError(z));
    flags = KILN_CHUNK_FILTER_MESHOPT_SEQUENCE | KILN_CHUNK_ZSTD | (2u << KILN_CHUNK_ELEMENT_SHIFT);
    bytes = hand_container(KILN_CHUNK_MESH_MESHLET_VERTICES, framed, z, flags, sizeof sequence16,
                           &file_size);
    assert_int_equal(kiln_file_from_memory(&file, bytes, file_size, NULL, 0, &err), KILN_OK);
    kiln_chunk_info info;
    assert_int_equal(kiln_file_chunk_info(&file, KILN_CHUNK_MESH_MESHLET_VERTICES, &info, &err),
                     KILN_OK);
    assert_int_equal(info.decode_capacity, sizeof sequence16 + f); /* the frame's content after */
    uint8_t *out = malloc((size_t)info.decode_capacity);
    assert_int_equal(kiln_file_decode_chunk(&file, KILN_CHUNK_MESH_MESHLET_VERTICES, out,
                                            (size_t)info.decode_capacity, &err),
                     KILN_OK);
    assert_memory_equal(out, sequence16, sizeof sequence16);
    free(out);
    kiln_file_close(&file);
    free(bytes);
}

/* ---------------------------------------------------------------------------
 * The asset manager
 * ------------------------------------------------------------------------- */

/* An engine that records each buffer's usage and hash, in order. */
typedef struct buffer_log {
    int count;
    uint32_t usage[64];
    uint64_t size[64], hash[64];
} buffer_log;

static kiln_result record_buffer(void *user, const kiln_asset *asset, kiln_buffer_usage usage,
                                 const void *data, size_t size, void **object, kiln_error *err) {
    (void)asset;
    (void)err;
    buffer_log *log = user;
    if (log->count < 64) {
        log->usage[log->count] = usage;
        log->size[log->count] = size;
        log->hash[log->count] = XXH3_64bits(data, size);
        log->count++;
    }
    *object = log;
    return KILN_OK;
}

static void forget_buffer(void *user, const kiln_asset *asset, void *object) {
    (void)user;
    (void)asset;
    (void)object;
}

static buffer_log load_through_manager(const char *mount, const char *const *refs, size_t count) {
    buffer_log log = {0};
    test_alloc_log allocations = {0};
    kiln_manager_desc desc = {
        .allocator = test_counting_allocator(&allocations),
        .engine = {.user = &log, .create_buffer = record_buffer, .destroy_buffer = forget_buffer},
        .open_flags = KILN_OPEN_VERIFY_CHECKSUM | KILN_OPEN_DEEP};
    kiln_manager *manager;
    kiln_error err;
    assert_int_equal(kiln_manager_create(&desc, &manager, &err), KILN_OK);
    assert_int_equal(kiln_manager_mount(manager, mount, NULL, &err), KILN_OK);
    for (size_t i = 0; i < count; i++) {
        kiln_ref ref;
        kiln_result r = kiln_manager_load_ref(manager, KILN_SCOPE_PERMANENT, refs[i], &ref, &err);
        if (r != KILN_OK)
            fail_msg("%s: %s", refs[i], err.message);
    }
    kiln_manager_destroy(manager);
    test_alloc_all_freed(&allocations);
    return log;
}

static void manager_uploads_the_same_bytes(void **state) {
    (void)state;
    /* The scenes load their meshes and material tables too. */
    const char *const refs[] = {"damagedhelmet/scene", "fox/scene", "alphablendmodetest/scene",
                                "fox/anim"};
    size_t count = sizeof refs / sizeof refs[0];
    buffer_log plain = load_through_manager(cooked.plain, refs, count);
    buffer_log folder = load_through_manager(cooked.compressed, refs, count);
    buffer_log pack = load_through_manager(cooked.pack, refs, count);
    assert_true(plain.count >= 6); /* vertices and indices of each model */
    assert_int_equal(folder.count, plain.count);
    assert_int_equal(pack.count, plain.count);
    assert_memory_equal(folder.usage, plain.usage, sizeof plain.usage);
    assert_memory_equal(folder.size, plain.size, sizeof plain.size);
    assert_memory_equal(folder.hash, plain.hash, sizeof plain.hash);
    assert_memory_equal(pack.hash, plain.hash, sizeof plain.hash);
}

int main(void) {
    if (test_skip_without_corpus("test_chunk_codec"))
        return 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compressed_cook_decodes_to_the_plain_bytes),
        cmocka_unit_test(damaged_chunks_fail_clearly),
        cmocka_unit_test(hand_written_meshopt_chunks_decode),
        cmocka_unit_test(manager_uploads_the_same_bytes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
