/* test_materials.c — materials through the whole pipeline: the .kmat rows of
 * corpus models equal the materials of their glTF JSON (parsed here with
 * jansson, independently of the importer), the MTL conversion, textures cooked
 * once per image with the slot's colour space, missing and undecodable
 * textures as warnings, dropped extensions. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "test_reference.h"
#include "test_support.h"

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

typedef struct cooked {
    char *output;
    cook_settings settings;
    cook_asset_result result;
    kiln_file file; /* the .kmat */
    kiln_material_view view;
} cooked;

/* Cooks input_root/source_path into a fresh output folder with the
 * material.flags setting `flags` (NULL: none); the result is in c->result. */
static void cook_only(cooked *c, const char *input_root, const char *source_path, const char *name,
                      const char *flags) {
    memset(c, 0, sizeof *c);
    c->output = test_make_temp_dir(name);
    cook_settings_default(&c->settings);
    c->settings.texture_max_size = 64; /* small textures: fast under sanitizers */
    c->settings.texture_quality = COOK_QUALITY_FAST;
    if (flags != NULL)
        snprintf(c->settings.material_flags, sizeof c->settings.material_flags, "%s", flags);
    cook_request request = {
        .input_root = input_root,
        .output_root = c->output,
        .source_path = source_path,
        .importer = cook_registry_match(source_path),
        .settings = &c->settings,
        .verify = true,
    };
    assert_non_null(request.importer);
    cook_asset(&request, &c->result);
}

/* Cooks as cook_only, which must succeed, and opens the .kmat. */
static void cook_source_with(cooked *c, const char *input_root, const char *source_path,
                             const char *name, const char *flags) {
    cook_only(c, input_root, source_path, name, flags);
    if (!c->result.ok)
        fail_msg("%s: cook failed: %.*s", source_path, (int)c->result.diag.text.size,
                 (const char *)c->result.diag.text.data);
    char *relative = cook_output_path(source_path, ".kmat");
    char *path = test_path_join(c->output, relative);
    kiln_error err;
    if (kiln_file_map(&c->file, path, KILN_OPEN_VERIFY_CHECKSUM, &err) != KILN_OK ||
        kiln_material_view_get(&c->file, KILN_OPEN_DEEP, &c->view, &err) != KILN_OK)
        fail_msg("%s: %s", path, err.message);
    free(relative);
    free(path);
}

static void cook_source(cooked *c, const char *input_root, const char *source_path,
                        const char *name) {
    cook_source_with(c, input_root, source_path, name, NULL);
}

static void cooked_free(cooked *c) {
    kiln_file_close(&c->file);
    cook_asset_result_free(&c->result);
    free(c->output);
}

static const char *messages(const cooked *c) {
    return c->result.diag.text.data ? (const char *)c->result.diag.text.data : "";
}

/* The manifest entry the asset produced for `hash`, or NULL. */
static const cook_manifest_entry *produced(const cooked *c, uint64_t hash) {
    for (size_t i = 0; i < c->result.manifest.count; i++)
        if (c->result.manifest.items[i].hash == hash)
            return &c->result.manifest.items[i];
    return NULL;
}

static void expect_close(double actual, double expected, const char *what, size_t material) {
    if (fabs(actual - expected) > 1e-6 * fmax(1.0, fabs(expected)))
        fail_msg("material %zu %s: %.9g, expected %.9g", material, what, actual, expected);
}

static double number_or(const json_t *obj, const char *key, double fallback) {
    const json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : fallback;
}

/* A slot's sampler against the glTF sampler of its texture, by the glTF
 * enums: wrap 33071 clamp, 33648 mirror, else repeat; filter 9728 nearest;
 * minFilter 9728/9729 without mips, 9984-9987 with. Absent: repeat,
 * linear, linear mips. */
static void expect_sampler(const json_t *sampler, const kiln_material_texture *slot,
                           size_t material, const char *what) {
    const char *keys[2] = {"wrapS", "wrapT"};
    uint8_t wraps[2] = {slot->wrap_s, slot->wrap_t};
    for (int k = 0; k < 2; k++) {
        double gl = number_or(sampler, keys[k], 10497);
        unsigned expected = gl == 33071 ? 2u : gl == 33648 ? 1u : 0u; /* Vulkan's values */
        if (wraps[k] != expected)
            fail_msg("material %zu %s: %s %u, expected %u (glTF %g)", material, what, keys[k],
                     wraps[k], expected, gl);
    }
    double mag = number_or(sampler, "magFilter", 9729), min = number_or(sampler, "minFilter", 9987);
    unsigned expected_mag = mag == 9728 ? 1u : 0u;
    unsigned expected_min = (min == 9728 || min == 9984 || min == 9986) ? 1u : 0u;
    unsigned expected_mip = (min == 9728 || min == 9729)   ? 2u
                            : (min == 9984 || min == 9985) ? 1u
                                                           : 0u;
    if (slot->mag_filter != expected_mag || slot->min_filter != expected_min ||
        slot->mip_filter != expected_mip)
        fail_msg("material %zu %s: filters mag %u min %u mip %u, expected %u %u %u (glTF %g, %g)",
                 material, what, slot->mag_filter, slot->min_filter, slot->mip_filter, expected_mag,
                 expected_min, expected_mip, mag, min);
}

/* One slot of a material row against its glTF textureInfo (or absence). */
static void expect_slot(const cooked *c, const json_t *doc, const json_t *info,
                        const kiln_material_texture *slot, size_t material, const char *what,
                        uint64_t *image_hashes, size_t image_count) {
    const json_t *textures = json_object_get(doc, "textures");
    if (info == NULL) {
        if (slot->texture != 0)
            fail_msg("material %zu %s: a texture the glTF does not have", material, what);
        return;
    }
    if (slot->texture == 0)
        fail_msg("material %zu %s: no texture; the glTF has one", material, what);
    const cook_manifest_entry *entry = produced(c, slot->texture);
    if (entry == NULL || entry->kind != KILN_ASSET_TEXTURE)
        fail_msg("material %zu %s: texture hash not produced as a texture", material, what);
    /* One texture per source image. */
    size_t texture = (size_t)json_integer_value(json_object_get(info, "index"));
    size_t image =
        (size_t)json_integer_value(json_object_get(json_array_get(textures, texture), "source"));
    if (image < image_count) {
        if (image_hashes[image] == 0)
            image_hashes[image] = slot->texture;
        else if (image_hashes[image] != slot->texture)
            fail_msg("material %zu %s: image %zu cooked twice", material, what, image);
    }
    const json_t *transform =
        json_object_get(json_object_get(info, "extensions"), "KHR_texture_transform");
    double texcoord = number_or(info, "texCoord", 0);
    double offset[2] = {0, 0}, scale[2] = {1, 1}, rotation = 0;
    if (transform != NULL) {
        texcoord = number_or(transform, "texCoord", texcoord);
        rotation = number_or(transform, "rotation", 0);
        for (size_t k = 0; k < 2; k++) {
            const json_t *o = json_array_get(json_object_get(transform, "offset"), k);
            const json_t *s = json_array_get(json_object_get(transform, "scale"), k);
            if (o != NULL)
                offset[k] = json_number_value(o);
            if (s != NULL)
                scale[k] = json_number_value(s);
        }
    }
    if (slot->texcoord != (uint32_t)texcoord)
        fail_msg("material %zu %s: texcoord %u, expected %g", material, what, slot->texcoord,
                 texcoord);
    expect_close(slot->offset[0], offset[0], "offset u", material);
    expect_close(slot->offset[1], offset[1], "offset v", material);
    expect_close(slot->scale[0], scale[0], "scale u", material);
    expect_close(slot->scale[1], scale[1], "scale v", material);
    expect_close(slot->rotation, rotation, "rotation", material);
    const json_t *sampler_index = json_object_get(json_array_get(textures, texture), "sampler");
    const json_t *sampler = sampler_index != NULL
                                ? json_array_get(json_object_get(doc, "samplers"),
                                                 (size_t)json_integer_value(sampler_index))
                                : NULL;
    expect_sampler(sampler, slot, material, what);
}

/* The ref leaf docs/formats/kmat.md promises for materials[i]: its name
 * lower-cased, bytes other than [a-z0-9-] made '_', at most 63 bytes; or
 * material_<i> for no name, a repeated leaf, one of the source's own or a
 * texture's (an image's file name without folder and extension). */
static void leaf_of_text(const char *name, size_t limit, char *out, size_t size) {
    size_t length = 0;
    for (;
         name != NULL && length < limit && name[length] != '\0' && length < 63 && length + 1 < size;
         length++) {
        char ch = name[length];
        ch = ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
        out[length] = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ? ch : '_';
    }
    out[length] = '\0';
}

static bool is_texture_name(const json_t *doc, const char *leaf) {
    const json_t *images = json_object_get(doc, "images");
    for (size_t i = 0; i < json_array_size(images); i++) {
        const json_t *image = json_array_get(images, i);
        const char *uri = json_string_value(json_object_get(image, "uri"));
        const char *name = uri != NULL && strncmp(uri, "data:", 5) != 0
                               ? uri
                               : json_string_value(json_object_get(image, "name"));
        if (name == NULL)
            continue;
        const char *slash = strrchr(name, '/');
        const char *base = slash ? slash + 1 : name;
        const char *dot = strrchr(base, '.');
        char texture[64];
        leaf_of_text(base, dot && dot != base ? (size_t)(dot - base) : strlen(base), texture,
                     sizeof texture);
        if (strcmp(texture, leaf) == 0)
            return true;
    }
    return false;
}

static void leaf_of(const json_t *materials, size_t i, char *out, size_t size) {
    const char *name = json_string_value(json_object_get(json_array_get(materials, i), "name"));
    leaf_of_text(name, SIZE_MAX, out, size);
}

/* Whether `leaf` is `prefix` and one or more digits. */
static bool numbered(const char *leaf, const char *prefix) {
    size_t length = strlen(prefix);
    return strncmp(leaf, prefix, length) == 0 && leaf[length] != '\0' &&
           strspn(leaf + length, "0123456789") == strlen(leaf + length);
}

static void expected_material_leaf(const json_t *doc, size_t i, char *out, size_t size) {
    const json_t *materials = json_object_get(doc, "materials");
    char mine[64], other[64];
    leaf_of(materials, i, mine, sizeof mine);
    bool fallback = strspn(mine, "_") == strlen(mine) || is_texture_name(doc, mine) ||
                    strcmp(mine, "scene") == 0 || strcmp(mine, "anim") == 0 ||
                    strcmp(mine, "materials") == 0 || numbered(mine, "mesh_") ||
                    numbered(mine, "material_");
    for (size_t j = 0; !fallback && j < json_array_size(materials); j++) {
        leaf_of(materials, j, other, sizeof other);
        fallback = j != i && strcmp(mine, other) == 0;
    }
    if (fallback)
        snprintf(out, size, "material_%zu", i);
    else
        snprintf(out, size, "%s", mine);
}

/* Every row of the .kmat against the glTF document's materials. */
static void expect_rows_match_json(const cooked *c, const json_t *doc) {
    const json_t *materials = json_object_get(doc, "materials");
    size_t count = json_array_size(materials);
    size_t image_count = json_array_size(json_object_get(doc, "images"));
    uint64_t *image_hashes = calloc(image_count + 1, sizeof *image_hashes);
    assert_non_null(image_hashes);
    assert_true(c->view.material_count >= count);
    assert_true(c->view.material_count <= count + 1); /* + the default material */
    for (size_t i = 0; i < count; i++) {
        const json_t *m = json_array_get(materials, i);
        const json_t *pbr = json_object_get(m, "pbrMetallicRoughness");
        const kiln_material *row = &c->view.materials[i];
        for (size_t k = 0; k < 4; k++) {
            const json_t *v = json_array_get(json_object_get(pbr, "baseColorFactor"), k);
            expect_close(row->base_color[k], v ? json_number_value(v) : 1.0, "base colour", i);
        }
        expect_close(row->metallic, number_or(pbr, "metallicFactor", 1.0), "metallic", i);
        expect_close(row->roughness, number_or(pbr, "roughnessFactor", 1.0), "roughness", i);
        double strength = number_or(
            json_object_get(json_object_get(m, "extensions"), "KHR_materials_emissive_strength"),
            "emissiveStrength", 1.0);
        for (size_t k = 0; k < 3; k++) {
            const json_t *v = json_array_get(json_object_get(m, "emissiveFactor"), k);
            expect_close(row->emissive[k], (v ? json_number_value(v) : 0.0) * strength, "emissive",
                         i);
        }
        const json_t *normal = json_object_get(m, "normalTexture");
        const json_t *occlusion = json_object_get(m, "occlusionTexture");
        expect_close(row->normal_scale, number_or(normal, "scale", 1.0), "normal scale", i);
        expect_close(row->occlusion_strength, number_or(occlusion, "strength", 1.0),
                     "occlusion strength", i);
        const char *mode = json_string_value(json_object_get(m, "alphaMode"));
        uint32_t expected_mode = mode == NULL || strcmp(mode, "OPAQUE") == 0 ? KILN_ALPHA_OPAQUE
                                 : strcmp(mode, "MASK") == 0                 ? KILN_ALPHA_MASK
                                                                             : KILN_ALPHA_BLEND;
        if (row->alpha_mode != expected_mode)
            fail_msg("material %zu alpha mode %u, expected %s", i, row->alpha_mode, mode);
        expect_close(row->alpha_cutoff, number_or(m, "alphaCutoff", 0.5), "alpha cutoff", i);
        bool double_sided = json_is_true(json_object_get(m, "doubleSided"));
        if (((row->flags & KILN_MATERIAL_FLAG_DOUBLE_SIDED) != 0) != double_sided)
            fail_msg("material %zu double-sided differs", i);
        uint32_t shadows = KILN_MATERIAL_FLAG_CAST_SHADOWS | KILN_MATERIAL_FLAG_RECEIVE_SHADOWS;
        if ((row->flags & shadows) != shadows || ((row->flags & KILN_MATERIAL_FLAG_TRANSPARENT) !=
                                                  0) != (expected_mode == KILN_ALPHA_BLEND))
            fail_msg("material %zu flags 0x%x: shadows or transparency differ", i, row->flags);
        const char *json_name = json_string_value(json_object_get(m, "name"));
        if (strcmp(kiln_material_name(&c->view, (uint32_t)i), json_name ? json_name : "") != 0)
            fail_msg("material %zu name '%s', expected '%s'", i,
                     kiln_material_name(&c->view, (uint32_t)i), json_name ? json_name : "");
        expect_slot(c, doc, json_object_get(pbr, "baseColorTexture"),
                    &row->textures[KILN_MATERIAL_SLOT_BASE_COLOR], i, "base colour", image_hashes,
                    image_count);
        expect_slot(c, doc, json_object_get(pbr, "metallicRoughnessTexture"),
                    &row->textures[KILN_MATERIAL_SLOT_METALLIC_ROUGHNESS], i, "metallic-roughness",
                    image_hashes, image_count);
        expect_slot(c, doc, normal, &row->textures[KILN_MATERIAL_SLOT_NORMAL], i, "normal",
                    image_hashes, image_count);
        expect_slot(c, doc, occlusion, &row->textures[KILN_MATERIAL_SLOT_OCCLUSION], i, "occlusion",
                    image_hashes, image_count);
        expect_slot(c, doc, json_object_get(m, "emissiveTexture"),
                    &row->textures[KILN_MATERIAL_SLOT_EMISSIVE], i, "emissive", image_hashes,
                    image_count);
        assert_true(row->textures[KILN_MATERIAL_SLOT_ALPHA].texture == 0);
        /* Each row is in the manifest at its index. */
        char ref[512];
        char leaf[80];
        expected_material_leaf(doc, i, leaf, sizeof leaf);
        snprintf(ref, sizeof ref, "%s/%s",
                 json_string_value(json_object_get(json_object_get(doc, "kiln_test"), "ref")),
                 leaf);
        const cook_manifest_entry *entry = produced(c, kiln_ref_hash(ref));
        if (entry == NULL || entry->kind != KILN_ASSET_MATERIAL || entry->index != i)
            fail_msg("material %zu: no manifest entry %s", i, ref);
    }
    free(image_hashes);
}

/* ---------------------------------------------------------------------------
 * Corpus
 * ------------------------------------------------------------------------- */

static void corpus_materials_equal_their_gltf_json(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_materials_equal_their_gltf_json"))
        skip();
    static const char *const models[] = {
        "gltf/DamagedHelmet/glTF/DamagedHelmet.gltf",
        "gltf/AlphaBlendModeTest/glTF-Binary/AlphaBlendModeTest.glb",
        "gltf/TextureTransformTest/glTF/TextureTransformTest.gltf",
        "gltf/MetalRoughSpheresNoTextures/glTF/MetalRoughSpheresNoTextures.gltf",
        "gltf/BoxTextured/glTF/BoxTextured.gltf",
        "gltf/BoxTextured/glTF-Embedded/BoxTextured.gltf",
        "gltf/WaterBottle/glTF/WaterBottle.gltf",
        "gltf/TextureCoordinateTest/glTF/TextureCoordinateTest.gltf",
        "gltf/NormalTangentTest/glTF/NormalTangentTest.gltf", /* a material without a name */
        "gltf/Unicode\u2764\u267bTest/glTF/Unicode\u2764\u267bTest.gltf", /* UTF-8 names */
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char *path = test_path_join(test_corpus_dir(), models[i]);
        FILE *probe = fopen(path, "rb");
        if (probe == NULL) {
            printf("  %s: not in the corpus, skipped\n", models[i]);
            free(path);
            continue;
        }
        fclose(probe);
        json_t *doc = ref_gltf_json(path);
        char ref[512];
        assert_int_equal(kiln_ref_canonicalize(models[i], ref, sizeof ref), KILN_OK);
        json_object_set_new(doc, "kiln_test", json_pack("{s:s}", "ref", ref));
        cooked c;
        char name[64];
        snprintf(name, sizeof name, "materials_corpus_%zu", i);
        cook_source(&c, test_corpus_dir(), models[i], name);
        expect_rows_match_json(&c, doc);
        printf("  %s: %u material row%s match the JSON\n", models[i], c.view.material_count,
               c.view.material_count == 1 ? "" : "s");
        cooked_free(&c);
        json_decref(doc);
        free(path);
    }
}

/* ---------------------------------------------------------------------------
 * Synthetic sources: a tiny PNG writer (stored deflate), so these tests need
 * no corpus
 * ------------------------------------------------------------------------- */

static uint32_t crc32_of(const uint8_t *p, size_t n, uint32_t crc) {
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void put_be32(bytebuf *b, uint32_t v) {
    uint8_t q[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    bytebuf_append(b, q, 4);
}

static void png_chunk(bytebuf *b, const char *type, const uint8_t *data, size_t size) {
    put_be32(b, (uint32_t)size);
    size_t start = b->size;
    bytebuf_append(b, type, 4);
    if (size > 0)
        bytebuf_append(b, data, size);
    put_be32(b, crc32_of(b->data + start, size + 4, 0));
}

/* A 4x4 RGBA8 PNG of one colour. */
static void tiny_png(bytebuf *out, uint8_t r, uint8_t g, uint8_t b, uint8_t a) {
    enum { W = 4, H = 4 };
    uint8_t raw[H * (1 + 4 * W)];
    for (int y = 0; y < H; y++) {
        uint8_t *row = raw + y * (1 + 4 * W);
        row[0] = 0;
        for (int x = 0; x < W; x++) {
            row[1 + 4 * x] = r;
            row[2 + 4 * x] = g;
            row[3 + 4 * x] = b;
            row[4 + 4 * x] = a;
        }
    }
    bytebuf z = {0};
    const uint8_t header[] = {0x78, 0x01, 0x01, (uint8_t)sizeof raw, 0, (uint8_t) ~sizeof raw,
                              0xff};
    bytebuf_append(&z, header, sizeof header);
    bytebuf_append(&z, raw, sizeof raw);
    uint32_t s1 = 1, s2 = 0;
    for (size_t i = 0; i < sizeof raw; i++) {
        s1 = (s1 + raw[i]) % 65521u;
        s2 = (s2 + s1) % 65521u;
    }
    put_be32(&z, s2 << 16 | s1);
    bytebuf_append(out, "\x89PNG\r\n\x1a\n", 8);
    const uint8_t ihdr[13] = {0, 0, 0, W, 0, 0, 0, H, 8, 6, 0, 0, 0};
    png_chunk(out, "IHDR", ihdr, sizeof ihdr);
    png_chunk(out, "IDAT", z.data, z.size);
    png_chunk(out, "IEND", NULL, 0);
    bytebuf_free(&z);
}

static void write_text(const char *dir, const char *name, const char *text) {
    test_write_in(dir, name, text, strlen(text));
}

static void write_png(const char *dir, const char *name, uint8_t r, uint8_t g, uint8_t b,
                      uint8_t a) {
    bytebuf png = {0};
    tiny_png(&png, r, g, b, a);
    test_write_in(dir, name, png.data, png.size);
    bytebuf_free(&png);
}

static const char quad_obj[] = "mtllib crate.mtl\n"
                               "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                               "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
                               "usemtl painted\nf 1/1 2/2 3/3\n"
                               "usemtl glass\nf 1/1 3/3 4/4\n";

static void mtl_conversion_reaches_the_kmat_with_textures(void **state) {
    (void)state;
    char *input = test_make_temp_dir("materials_mtl_in");
    write_text(input, "m/crate.obj", quad_obj);
    write_text(input, "m/crate.mtl",
               "newmtl painted\nKd 0.5 0.25 1\nKs 0.5 0.25 0\nNs 98\nKe 0.1 0.2 0.3\nmap_Kd -o "
               "0.25 0.5 -s 2 3 wood.png\n"
               "map_Bump -bm 0.5 normal.png\nmap_ORM orm.png\nmap_Ke wood.png\n"
               "newmtl glass\nKd 1 1 1\nd 0.25\nPr 0.1\nPm 0.9\nmap_Kd missing.png\n"
               "map_d broken.png\nmap_Ks spec.png\ndisp height.png\nmap_Ks spec.png\n");
    write_png(input, "m/wood.png", 200, 100, 50, 255);
    write_png(input, "m/normal.png", 128, 128, 255, 255);
    write_png(input, "m/orm.png", 255, 128, 0, 255);
    write_text(input, "m/broken.png", "not a PNG at all");
    cooked c;
    cook_source(&c, input, "m/crate.obj", "materials_mtl_out");
    assert_int_equal(c.view.material_count, 2);
    const kiln_material *painted = &c.view.materials[0], *glass = &c.view.materials[1];
    /* The documented MTL conversion (import/mtl.c). */
    assert_true(painted->base_color[0] == 0.5f && painted->base_color[1] == 0.25f &&
                painted->base_color[2] == 1.0f && painted->base_color[3] == 1.0f);
    /* map_ORM carries roughness and metallic: without Pr / Pm the factors
     * are 1 so the map shows unchanged (Ns is only used without a map). */
    assert_true(painted->roughness == 1.0f && painted->metallic == 1.0f);
    assert_true(painted->emissive[0] == 0.1f && painted->emissive[2] == 0.3f);
    assert_true(painted->normal_scale == 0.5f);
    assert_int_equal(painted->alpha_mode, KILN_ALPHA_OPAQUE);
    assert_int_equal(glass->alpha_mode, KILN_ALPHA_BLEND);
    assert_true(glass->base_color[3] == 0.25f);
    assert_true(glass->roughness == 0.1f && glass->metallic == 0.9f);

    /* Textures: one per image file, refs <source ref>/<image name>, the colour
     * space of the slot. wood.png is base colour and emissive: one texture. */
    const kiln_material_texture *t = painted->textures;
    assert_true(t[KILN_MATERIAL_SLOT_BASE_COLOR].texture != 0);
    /* -o / -s as a texture transform, v flipped: offset v = 1 - sv - ov. */
    assert_true(t[KILN_MATERIAL_SLOT_BASE_COLOR].scale[0] == 2.0f &&
                t[KILN_MATERIAL_SLOT_BASE_COLOR].scale[1] == 3.0f);
    assert_true(t[KILN_MATERIAL_SLOT_BASE_COLOR].offset[0] == 0.25f &&
                t[KILN_MATERIAL_SLOT_BASE_COLOR].offset[1] == -2.5f);
    assert_true(t[KILN_MATERIAL_SLOT_EMISSIVE].scale[0] == 1.0f &&
                t[KILN_MATERIAL_SLOT_EMISSIVE].offset[1] == 0.0f);
    assert_true(t[KILN_MATERIAL_SLOT_EMISSIVE].texture == t[KILN_MATERIAL_SLOT_BASE_COLOR].texture);
    assert_true(t[KILN_MATERIAL_SLOT_OCCLUSION].texture ==
                t[KILN_MATERIAL_SLOT_METALLIC_ROUGHNESS].texture); /* ORM packing kept */
    assert_true(t[KILN_MATERIAL_SLOT_OCCLUSION].texture != 0);
    const cook_manifest_entry *base = produced(&c, t[KILN_MATERIAL_SLOT_BASE_COLOR].texture);
    const cook_manifest_entry *normal = produced(&c, t[KILN_MATERIAL_SLOT_NORMAL].texture);
    const cook_manifest_entry *orm = produced(&c, t[KILN_MATERIAL_SLOT_OCCLUSION].texture);
    assert_non_null(base);
    assert_non_null(normal);
    assert_non_null(orm);
    assert_int_equal(base->kind, KILN_ASSET_TEXTURE);
    assert_int_equal(base->color_space, KILN_COLOR_SPACE_SRGB);
    assert_int_equal(normal->color_space, KILN_COLOR_SPACE_LINEAR);
    assert_int_equal(orm->color_space, KILN_COLOR_SPACE_LINEAR);
    /* Named after their image files. */
    assert_string_equal(base->ref, "m/crate/wood");
    assert_string_equal(base->path, "m/crate/wood.ktx2");
    assert_string_equal(normal->ref, "m/crate/normal");
    assert_string_equal(orm->ref, "m/crate/orm");
    assert_true(t[KILN_MATERIAL_SLOT_BASE_COLOR].texture == kiln_ref_hash(base->ref));
    size_t textures = 0, materials = 0;
    for (size_t i = 0; i < c.result.manifest.count; i++) {
        textures += c.result.manifest.items[i].kind == KILN_ASSET_TEXTURE;
        materials += c.result.manifest.items[i].kind == KILN_ASSET_MATERIAL;
    }
    assert_int_equal(textures, 3);  /* wood, normal, orm: broken.png failed */
    assert_int_equal(materials, 3); /* the table, then each row, named after it */
    const cook_manifest_entry *table = produced(&c, kiln_ref_hash("m/crate/materials"));
    assert_non_null(table);
    assert_int_equal(table->index, 0);
    assert_string_equal(table->path, "m/crate.kmat");
    assert_int_equal(produced(&c, kiln_ref_hash("m/crate/painted"))->index, 0);
    assert_int_equal(produced(&c, kiln_ref_hash("m/crate/glass"))->index, 1);
    assert_string_equal(kiln_material_name(&c.view, 1), "glass");
    /* Ks as KHR_materials_specular: strength its largest channel, the
     * colour divided by it; none: the defaults. */
    assert_true(painted->specular == 0.5f && painted->specular_color[0] == 1.0f &&
                painted->specular_color[1] == 0.5f && painted->specular_color[2] == 0.0f);
    assert_true(glass->specular == 1.0f && glass->specular_color[1] == 1.0f);
    /* Maps with no slot: a warning each, and listed per row in MDRP. */
    assert_non_null(strstr(messages(&c), "map_Ks 'spec.png' is not cooked"));
    kiln_chunk dropped;
    assert_int_equal(kiln_file_find_chunk(&c.file, KILN_CHUNK_MATERIAL_DROPPED, &dropped), KILN_OK);
    const char expected_dropped[] = "1 map_Ks\n1 disp\n";
    assert_int_equal(dropped.size, sizeof expected_dropped - 1);
    assert_memory_equal(dropped.data, expected_dropped, sizeof expected_dropped - 1);
    /* The glass blends: transparent; both cast and receive shadows. */
    assert_int_equal(glass->flags, KILN_MATERIAL_FLAG_CAST_SHADOWS |
                                       KILN_MATERIAL_FLAG_RECEIVE_SHADOWS |
                                       KILN_MATERIAL_FLAG_TRANSPARENT);
    /* A missing file and an undecodable one: warnings naming the material and
     * the file; the slots are empty and the asset cooked. */
    assert_true(glass->textures[KILN_MATERIAL_SLOT_BASE_COLOR].texture == 0);
    assert_true(glass->textures[KILN_MATERIAL_SLOT_ALPHA].texture == 0);
    assert_non_null(strstr(messages(&c), "missing.png"));
    assert_non_null(strstr(messages(&c), "material 'glass'"));
    assert_non_null(strstr(messages(&c), "m/broken.png"));
    assert_true(c.result.ok);
    assert_int_equal(c.result.diag.errors, 0);
    cooked_free(&c);
    free(input);
}

/* Material refs: the name made a leaf where unique and free, else
 * material_<row>; material.flags lines by name glob or leaf, later lines
 * winning; a word that is not a flag fails the asset naming it. */
static void material_refs_and_flags_follow_names_and_settings(void **state) {
    (void)state;
    char *input = test_make_temp_dir("materials_refs_in");
    write_text(input, "r/set.obj",
               "mtllib set.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\n"
               "usemtl Rusty Metal\nf 1/1 2/2 3/2\nusemtl Wood\nf 1/1 3/2 4/1\n"
               "usemtl Dup\nf 1/1 2/2 4/1\nusemtl dup\nf 2/2 3/2 4/1\n"
               "usemtl mesh_4\nf 1/1 2/2 3/2\nusemtl Glass\nf 1/1 3/2 4/1\n");
    write_text(input, "r/set.mtl",
               "newmtl Rusty Metal\nnewmtl Wood\nmap_Kd wood.png\nnewmtl Dup\nnewmtl dup\n"
               "newmtl mesh_4\nnewmtl Glass\nd 0.5\n");
    write_png(input, "r/wood.png", 10, 20, 30, 255);
    cooked c;
    cook_source_with(&c, input, "r/set.obj", "materials_refs_out",
                     "*=no_cast_shadows\nrusty*=no_receive_shadows, double_sided\n"
                     "material_1=transparent\nGlass=no_transparent cast_shadows");
    assert_int_equal(c.view.material_count, 6);
    /* Wood's leaf is its texture's; Dup and dup make one leaf; mesh_4 is a
     * leaf of the source's own. */
    const char *refs[6] = {"r/set/rusty_metal", "r/set/material_1", "r/set/material_2",
                           "r/set/material_3",  "r/set/material_4", "r/set/glass"};
    const char *names[6] = {"Rusty Metal", "Wood", "Dup", "dup", "mesh_4", "Glass"};
    for (uint32_t m = 0; m < 6; m++) {
        const cook_manifest_entry *entry = produced(&c, kiln_ref_hash(refs[m]));
        if (entry == NULL || entry->kind != KILN_ASSET_MATERIAL || entry->index != m)
            fail_msg("row %u: no manifest entry %s", m, refs[m]);
        assert_string_equal(kiln_material_name(&c.view, m), names[m]);
    }
    assert_non_null(produced(&c, kiln_ref_hash("r/set/wood"))); /* the texture kept its name */
    const uint32_t cast = KILN_MATERIAL_FLAG_CAST_SHADOWS,
                   receive = KILN_MATERIAL_FLAG_RECEIVE_SHADOWS,
                   transparent = KILN_MATERIAL_FLAG_TRANSPARENT,
                   two_sided = KILN_MATERIAL_FLAG_DOUBLE_SIDED;
    const uint32_t flags[6] = {two_sided, receive | transparent, receive, receive,
                               receive,   receive | cast};
    for (uint32_t m = 0; m < 6; m++)
        if (c.view.materials[m].flags != flags[m])
            fail_msg("row %u (%s): flags 0x%x, expected 0x%x", m, names[m],
                     c.view.materials[m].flags, flags[m]);
    assert_int_equal(c.view.materials[5].alpha_mode, KILN_ALPHA_BLEND); /* only the flag moved */
    cooked_free(&c);

    cook_only(&c, input, "r/set.obj", "materials_refs_bad", "*=no_cast_shadows\nGlass=shiny");
    assert_false(c.result.ok);
    assert_non_null(strstr(messages(&c), "material.flags: 'shiny' is not a flag"));
    cook_asset_result_free(&c.result);
    free(c.output);
    cook_only(&c, input, "r/set.obj", "materials_refs_no_pattern", "no_cast_shadows");
    assert_false(c.result.ok);
    assert_non_null(strstr(messages(&c), "'no_cast_shadows' is not PATTERN=FLAGS"));
    cook_asset_result_free(&c.result);
    free(c.output);
    free(input);
}

/* Texture names: the image's file name, lower-cased and made safe; the same
 * name twice, or a material_N / mesh_N leaf, gets _2, _3 in image order. */
static void textures_are_named_after_their_images(void **state) {
    (void)state;
    char *input = test_make_temp_dir("materials_names_in");
    write_text(input, "n/names.obj",
               "mtllib names.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\n"
               "vt 1 1\nvt 0 1\nusemtl one\nf 1/1 2/2 3/3\nusemtl two\nf 1/1 3/3 4/4\n"
               "usemtl three\nf 1/1 2/2 4/4\nusemtl four\nf 2/2 3/3 4/4\n"
               "usemtl five\nf 1/1 2/2 3/3\nusemtl six\nf 1/1 3/3 4/4\n");
    write_text(input, "n/names.mtl",
               "newmtl one\nmap_Kd a/Wood.PNG\nnewmtl two\nmap_Kd b/wood.png\n"
               "newmtl three\nmap_Kd material_0.png\nnewmtl four\nmap_Kd My-Tex!.png\n"
               "newmtl five\nmap_Kd wood_2.png\nnewmtl six\nmap_Kd ___.png\n");
    write_png(input, "n/a/Wood.PNG", 10, 20, 30, 255);
    write_png(input, "n/b/wood.png", 40, 50, 60, 255);
    write_png(input, "n/material_0.png", 70, 80, 90, 255);
    write_png(input, "n/My-Tex!.png", 100, 110, 120, 255);
    write_png(input, "n/wood_2.png", 130, 140, 150, 255);
    write_png(input, "n/___.png", 160, 170, 180, 255); /* nothing left: tex_<image> */
    cooked c;
    cook_source(&c, input, "n/names.obj", "materials_names_out");
    assert_true(c.result.ok);
    assert_int_equal(c.view.material_count, 6);
    const char *expected[6] = {"n/names/wood",    "n/names/wood_2",   "n/names/material_0_2",
                               "n/names/my-tex_", "n/names/wood_2_2", "n/names/tex_5"};
    for (size_t m = 0; m < 6; m++) {
        uint64_t hash = c.view.materials[m].textures[KILN_MATERIAL_SLOT_BASE_COLOR].texture;
        const cook_manifest_entry *entry = produced(&c, hash);
        assert_non_null(entry);
        assert_string_equal(entry->ref, expected[m]);
        char path[64];
        snprintf(path, sizeof path, "%s.ktx2", expected[m]);
        assert_string_equal(entry->path, path);
    }
    cooked_free(&c);
    free(input);
}

/* A blended material's opacity map (map_d) is merged into its base colour's
 * alpha: the base slot gets a texture named after the colour image, the
 * alpha slot none; a material with map_d alone gets a white texture named
 * after the map; an opaque material's image is cooked as it is. */
static void opacity_maps_merge_into_the_base_colour(void **state) {
    (void)state;
    char *input = test_make_temp_dir("materials_opacity_in");
    write_text(input, "n/cut.obj",
               "mtllib cut.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\n"
               "usemtl cut\nf 1/1 2/2 3/3\nusemtl dots\nf 1/1 3/3 2/2\n"
               "usemtl plain\nf 2/2 1/1 3/3\n");
    write_text(input, "n/cut.mtl",
               "newmtl cut\nmap_Kd color.png\nmap_d mask.png\n"
               "newmtl dots\nmap_d mask.png\n"
               "newmtl plain\nmap_Kd color.png\n");
    write_png(input, "n/color.png", 200, 100, 50, 255);
    write_png(input, "n/mask.png", 128, 128, 128, 255);
    cooked c;
    cook_source(&c, input, "n/cut.obj", "materials_opacity_out");
    assert_int_equal(c.view.material_count, 3);
    const kiln_material *cut = &c.view.materials[0], *dots = &c.view.materials[1],
                        *plain = &c.view.materials[2];
    assert_int_equal(cut->alpha_mode, KILN_ALPHA_BLEND);
    assert_true(cut->textures[KILN_MATERIAL_SLOT_ALPHA].texture == 0);
    assert_true(dots->textures[KILN_MATERIAL_SLOT_ALPHA].texture == 0);
    /* Plans in order: the images as they are (color.png for "plain"), then
     * the merges (cut: color + mask, dots: mask alone). */
    assert_true(plain->textures[KILN_MATERIAL_SLOT_BASE_COLOR].texture ==
                kiln_ref_hash("n/cut/color"));
    assert_true(cut->textures[KILN_MATERIAL_SLOT_BASE_COLOR].texture ==
                kiln_ref_hash("n/cut/color_2"));
    assert_true(dots->textures[KILN_MATERIAL_SLOT_BASE_COLOR].texture ==
                kiln_ref_hash("n/cut/mask"));
    size_t textures = 0;
    for (size_t i = 0; i < c.result.manifest.count; i++)
        textures += c.result.manifest.items[i].kind == KILN_ASSET_TEXTURE;
    assert_int_equal(textures, 3);
    /* The merged texture's alpha is the mask's grey (128), its colour the image's. */
    char *path = test_path_join(c.output, "n/cut/color_2.ktx2");
    kiln_ktx2_file file;
    kiln_error err;
    assert_int_equal(kiln_ktx2_map(&file, path, &err), KILN_OK);
    block_image_desc d = {.format = BLOCK_FORMAT_BC7, .width = 4, .height = 4, .srgb = true};
    assert_int_equal(file.view.vk_format, 146); /* BC7 sRGB: it has alpha */
    uint8_t block[16], texels[64];
    char reason[128];
    assert_int_equal(kiln_ktx2_read_level(&file.view, 0, block, sizeof block, &err), KILN_OK);
    assert_true(block_decode_image(&d, block, texels, NULL, reason, sizeof reason));
    assert_true(abs(texels[3] - 128) <= 2 && abs(texels[0] - 200) <= 2 && abs(texels[2] - 50) <= 2);
    kiln_ktx2_close(&file);
    free(path);
    cooked_free(&c);
    free(input);
}

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void append_base64(bytebuf *out, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        char q[4] = {b64_alphabet[v >> 18], b64_alphabet[(v >> 12) & 63],
                     i + 1 < n ? b64_alphabet[(v >> 6) & 63] : '=',
                     i + 2 < n ? b64_alphabet[v & 63] : '='};
        bytebuf_append(out, q, 4);
    }
}

/* glTF: an embedded (data: URI) image used by two colour slots and a normal
 * slot (first use wins, a warning), KHR_texture_transform, unlit, and
 * extensions kiln does not cook recorded as dropped. */
static void gltf_embedded_images_conflicts_and_dropped_extensions(void **state) {
    (void)state;
    char *input = test_make_temp_dir("materials_gltf_in");
    bytebuf png = {0};
    tiny_png(&png, 10, 20, 30, 255);
    bytebuf gltf = {0};
    static const float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    static const float uvs[6] = {0, 0, 1, 0, 0, 1};
    uint8_t buffer[60];
    memcpy(buffer, positions, 36);
    memcpy(buffer + 36, uvs, 24);
    bytebuf_printf(&gltf, "{\"asset\":{\"version\":\"2.0\"},"
                          "\"extensionsUsed\":[\"KHR_texture_transform\",\"KHR_materials_unlit\","
                          "\"KHR_materials_clearcoat\",\"KHR_materials_transmission\"],"
                          "\"buffers\":[{\"byteLength\":60,\"uri\":\"data:application/"
                          "octet-stream;base64,");
    append_base64(&gltf, buffer, sizeof buffer);
    bytebuf_printf(&gltf,
                   "\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},"
                   "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":24}],"
                   "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,"
                   "\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},"
                   "{\"bufferView\":1,\"componentType\":5126,\"count\":3,"
                   "\"type\":\"VEC2\"}],"
                   "\"images\":[{\"name\":\"Panel Albedo.png\",\"uri\":\"data:image/png;base64,");
    append_base64(&gltf, png.data, png.size);
    bytebuf_printf(
        &gltf, "\"}],\"textures\":[{\"source\":0},{\"source\":0}],"
               "\"materials\":[{\"name\":\"shiny\",\"pbrMetallicRoughness\":{\"baseColorTexture\":"
               "{\"index\":0,\"extensions\":{\"KHR_texture_transform\":{\"offset\":[0.25,0.5],"
               "\"rotation\":0.5,\"scale\":[2,3]}}}},\"emissiveTexture\":{\"index\":1},"
               "\"normalTexture\":{\"index\":0,\"scale\":0.75},"
               "\"extensions\":{\"KHR_materials_clearcoat\":{\"clearcoatFactor\":1},"
               "\"KHR_materials_transmission\":{},\"KHR_materials_unlit\":{}}}],"
               "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1},"
               "\"material\":0}]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}");
    test_write_in(input, "fx/panel.gltf", gltf.data, gltf.size);
    cooked c;
    cook_source(&c, input, "fx/panel.gltf", "materials_gltf_out");
    assert_int_equal(c.view.material_count, 1);
    const kiln_material *row = &c.view.materials[0];
    uint64_t hash = kiln_ref_hash("fx/panel/panel_albedo"); /* images[0].name */
    assert_true(row->textures[KILN_MATERIAL_SLOT_BASE_COLOR].texture == hash);
    assert_true(row->textures[KILN_MATERIAL_SLOT_EMISSIVE].texture == hash);
    assert_true(row->textures[KILN_MATERIAL_SLOT_NORMAL].texture == hash); /* the same file */
    const cook_manifest_entry *entry = produced(&c, hash);
    assert_non_null(entry);
    assert_int_equal(entry->color_space, KILN_COLOR_SPACE_SRGB); /* first use: base colour */
    assert_non_null(strstr(messages(&c), "first use"));
    const kiln_material_texture *base = &row->textures[KILN_MATERIAL_SLOT_BASE_COLOR];
    assert_true(base->offset[0] == 0.25f && base->offset[1] == 0.5f);
    assert_true(base->rotation == 0.5f && base->scale[0] == 2.0f && base->scale[1] == 3.0f);
    assert_true(row->normal_scale == 0.75f);
    assert_int_equal(row->flags, KILN_MATERIAL_FLAG_UNLIT | KILN_MATERIAL_FLAG_CAST_SHADOWS |
                                     KILN_MATERIAL_FLAG_RECEIVE_SHADOWS);
    kiln_chunk dropped;
    assert_int_equal(kiln_file_find_chunk(&c.file, KILN_CHUNK_MATERIAL_DROPPED, &dropped), KILN_OK);
    const char expected[] = "0 KHR_materials_clearcoat\n0 KHR_materials_transmission\n";
    assert_int_equal(dropped.size, sizeof expected - 1);
    assert_memory_equal(dropped.data, expected, sizeof expected - 1);
    cooked_free(&c);
    bytebuf_free(&gltf);
    bytebuf_free(&png);
    free(input);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mtl_conversion_reaches_the_kmat_with_textures),
        cmocka_unit_test(gltf_embedded_images_conflicts_and_dropped_extensions),
        cmocka_unit_test(textures_are_named_after_their_images),
        cmocka_unit_test(material_refs_and_flags_follow_names_and_settings),
        cmocka_unit_test(opacity_maps_merge_into_the_base_colour),
        cmocka_unit_test(corpus_materials_equal_their_gltf_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
