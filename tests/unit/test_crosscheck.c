/* test_crosscheck.c — kiln's own importers against assimp on the corpus.
 *
 * Every corpus row marked ok whose format has a row in `formats` is imported
 * twice: with kiln's importer, and independently with assimp (aiImportFile
 * with Triangulate | JoinIdenticalVertices, straight from the file system, in
 * this test). The two must agree on
 *   - the triangle count,
 *   - the bounds of the vertices the triangles use (mesh-local space: node
 *     transforms are not applied on either side), within 1e-5 relative to the
 *     size of the box,
 *   - the number of submeshes and of material slots (counted the way the
 *     format's kiln importer builds them, see each row's counter).
 * Known differences are listed in `exceptions`, per file, with the reason.
 *
 * Adding a format (glTF once import/gltf.c links) is one row in `formats`,
 * plus exceptions if any. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include "test_import.h"
#include "test_support.h"

#include "cook/drivers/drivers.h"

/* ---------------------------------------------------------------------------
 * What both sides are reduced to
 * ------------------------------------------------------------------------- */

typedef struct summary {
    bool ok;
    uint64_t triangles;
    uint32_t submeshes;
    uint32_t materials;
    double lo[3], hi[3]; /* of the vertices triangles use */
    char message[512];
} summary;

static void bounds_reset(summary *s) {
    for (int k = 0; k < 3; k++) {
        s->lo[k] = INFINITY;
        s->hi[k] = -INFINITY;
    }
}

static void bounds_add(summary *s, double x, double y, double z) {
    const double p[3] = {x, y, z};
    for (int k = 0; k < 3; k++) {
        s->lo[k] = fmin(s->lo[k], p[k]);
        s->hi[k] = fmax(s->hi[k], p[k]);
    }
}

static void summarize_kiln(const char *corpus, const char *relative, cook_import_fn import,
                           summary *s) {
    memset(s, 0, sizeof *s);
    bounds_reset(s);
    char *path = test_path_join(corpus, relative);
    size_t size;
    uint8_t *bytes = test_read_file(path, &size);
    cook_settings settings;
    cook_settings_default(&settings);
    cook_diag diag = {0};
    cook_context ctx = {
        .input_root = corpus,
        .source_path = relative,
        .ref = "crosscheck",
        .source = bytes,
        .source_size = size,
        .settings = &settings,
        .diag = &diag,
    };
    ir_asset asset;
    s->ok = import(&ctx, &asset) && diag.errors == 0;
    if (!s->ok)
        snprintf(s->message, sizeof s->message, "%s",
                 diag.text.data ? (const char *)diag.text.data : "");
    for (uint32_t m = 0; s->ok && m < asset.mesh_count; m++) {
        const ir_mesh *mesh = &asset.meshes[m];
        s->triangles += mesh->index_count / 3;
        s->submeshes += mesh->submesh_count;
        for (uint32_t i = 0; i < mesh->index_count; i++) {
            const float *p = mesh->positions + 3 * (size_t)mesh->indices[i];
            bounds_add(s, p[0], p[1], p[2]);
        }
    }
    s->materials = s->ok ? asset.material_count : 0;
    if (s->ok)
        ir_asset_free(&asset);
    diag_free(&diag);
    strlist_free(&ctx.dependencies);
    strlist_free(&ctx.absent);
    free(bytes);
    free(path);
}

static bool is_triangle(const struct aiFace *face) {
    return face->mNumIndices == 3;
}

static bool has_triangles(const struct aiMesh *mesh) {
    for (unsigned f = 0; f < mesh->mNumFaces; f++)
        if (is_triangle(&mesh->mFaces[f]))
            return true;
    return false;
}

/* Materials used by meshes with triangles, each counted once. */
static uint32_t distinct_materials(const struct aiScene *scene) {
    uint32_t count = 0;
    for (unsigned m = 0; m < scene->mNumMeshes; m++) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        if (!has_triangles(mesh))
            continue;
        bool seen = false;
        for (unsigned o = 0; o < m && !seen; o++)
            seen = has_triangles(scene->mMeshes[o]) &&
                   scene->mMeshes[o]->mMaterialIndex == mesh->mMaterialIndex;
        count += !seen;
    }
    return count;
}

/* Meshes with triangles (assimp: one per glTF primitive). */
static uint32_t triangle_meshes(const struct aiScene *scene) {
    uint32_t count = 0;
    for (unsigned m = 0; m < scene->mNumMeshes; m++)
        count += has_triangles(scene->mMeshes[m]);
    return count;
}

/* assimp's glTF 2 reader appends a default material after the file's own;
 * kiln keeps every material of the file and appends "default" only when a
 * primitive has none. */
static uint32_t gltf_materials(const struct aiScene *scene) {
    if (scene->mNumMaterials == 0)
        return 0;
    uint32_t last = scene->mNumMaterials - 1;
    bool default_used = false;
    for (unsigned m = 0; m < scene->mNumMeshes; m++)
        default_used |=
            has_triangles(scene->mMeshes[m]) && scene->mMeshes[m]->mMaterialIndex == last;
    return last + default_used;
}

typedef uint32_t (*assimp_counter)(const struct aiScene *scene);

static void summarize_assimp(const char *corpus, const char *relative, assimp_counter submeshes,
                             assimp_counter materials, summary *s) {
    memset(s, 0, sizeof *s);
    bounds_reset(s);
    char *path = test_path_join(corpus, relative);
    const struct aiScene *scene =
        aiImportFile(path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices);
    free(path);
    s->ok = scene != NULL;
    if (!s->ok) {
        snprintf(s->message, sizeof s->message, "%s", aiGetErrorString());
        return;
    }
    for (unsigned m = 0; m < scene->mNumMeshes; m++) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        for (unsigned f = 0; f < mesh->mNumFaces; f++) {
            const struct aiFace *face = &mesh->mFaces[f];
            if (!is_triangle(face))
                continue; /* points and lines: neither side cooks them */
            s->triangles++;
            for (int c = 0; c < 3; c++) {
                const struct aiVector3D *p = &mesh->mVertices[face->mIndices[c]];
                bounds_add(s, p->x, p->y, p->z);
            }
        }
    }
    s->submeshes = submeshes(scene);
    s->materials = materials(scene);
    aiReleaseImport(scene);
}

/* ---------------------------------------------------------------------------
 * Formats and known differences
 * ------------------------------------------------------------------------- */

typedef struct crosscheck_format {
    const char *format; /* index.tsv's format column */
    const char *folder; /* rows under this corpus folder */
    cook_import_fn import;
    /* How many submeshes / material slots kiln's importer makes of what
     * assimp read. OBJ: one mesh, one submesh per material used, slots for
     * the materials used — so both are assimp's distinct used materials. */
    assimp_counter submeshes;
    assimp_counter materials;
} crosscheck_format;

static const crosscheck_format formats[] = {
    {"obj", "obj/", import_obj, distinct_materials, distinct_materials},
    /* glTF: one ir_mesh per glTF mesh, one submesh per triangle primitive;
     * every material of the file (see gltf_materials). Only the real models
     * under gltf/: the ok rows under invalid/ are validator edge cases, most
     * without a scene, which assimp 5.2 refuses ("GLTF: No scene"). */
    {"gltf", "gltf/", import_gltf, triangle_meshes, gltf_materials},
    {"glb", "gltf/", import_gltf, triangle_meshes, gltf_materials},
};

enum {
    DIFF_TRIANGLES = 1,
    DIFF_BOUNDS = 2,
    DIFF_SUBMESHES = 4,
    DIFF_MATERIALS = 8,
    DIFF_IMPORT = 16, /* one side refuses the file */
};

typedef struct crosscheck_exception {
    const char *path;
    unsigned differs; /* DIFF_* that are expected to differ (and must) */
    const char *reason;
} crosscheck_exception;

static const crosscheck_exception exceptions[] = {
    /* OBJ: kiln maps every usemtl name that no loaded library defines to one
     * "default" material; assimp makes a placeholder material per name. */
    {"obj/pirate/pirate.obj", DIFF_SUBMESHES | DIFF_MATERIALS,
     "pirate.mtl is not shipped: 7 undefined usemtl names are 1 default material in kiln"},
    {"obj/tinyobjloader/missing_material_file.obj", DIFF_SUBMESHES | DIFF_MATERIALS,
     "the .mtl does not exist: 4 undefined usemtl names are 1 default material in kiln"},
    /* OBJ: "v x y z w": w is the weight of rational curves and surfaces and
     * does not apply to polygon vertices; assimp divides x y z by it. */
    {"obj/tinyobjloader/cube-vertex-w-component.obj", DIFF_BOUNDS,
     "assimp divides positions by the optional w; kiln ignores w"},
    /* OBJ: kiln drops the faces that use a nan/inf position (with a warning);
     * assimp keeps them, so its bounds are infinite. */
    {"obj/tinyobjloader/test-nan.obj", DIFF_TRIANGLES | DIFF_BOUNDS,
     "kiln drops the 2 triangles using nan/inf vertices; assimp keeps them"},
    /* assimp 5.2 bugs: it rejects files kiln (and the corpus) read fine. */
    {"obj/tinyobjloader/leading-decimal-dot-issue-201.obj", DIFF_IMPORT,
     "assimp 5.2 misparses numbers like .8e-1 and fails with 'vertex index out of range'"},
    {"obj/tinyobjloader/pbr-mat-ext.obj", DIFF_IMPORT,
     "assimp 5.2's MTL reader fails on the 'aniso' statement (\"cannot parse niso\")"},
    /* glTF: assimp 5.2 does not decode KHR_mesh_quantization (it reads the
     * int16 positions as floats). */
    {"gltf/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf", DIFF_BOUNDS,
     "assimp 5.2 ignores KHR_mesh_quantization"},
};

#define EXCEPTION_COUNT (sizeof exceptions / sizeof exceptions[0])

static const crosscheck_exception *find_exception(const char *path) {
    for (size_t i = 0; i < EXCEPTION_COUNT; i++)
        if (strcmp(exceptions[i].path, path) == 0)
            return &exceptions[i];
    return NULL;
}

static bool same_bounds(const summary *a, const summary *b) {
    if (a->triangles == 0 || b->triangles == 0)
        return a->triangles == b->triangles;
    double extent = 0.0;
    for (int k = 0; k < 3; k++)
        extent = fmax(extent, fmax(a->hi[k] - a->lo[k], fabs(a->hi[k]) + fabs(a->lo[k])));
    double tolerance = 1e-5 * fmax(extent, 1e-30);
    for (int k = 0; k < 3; k++)
        if (fabs(a->lo[k] - b->lo[k]) > tolerance || fabs(a->hi[k] - b->hi[k]) > tolerance)
            return false;
    return true;
}

static unsigned compare(const summary *kiln, const summary *assimp) {
    if (kiln->ok != assimp->ok)
        return DIFF_IMPORT;
    if (!kiln->ok)
        return 0;
    unsigned differs = 0;
    if (kiln->triangles != assimp->triangles)
        differs |= DIFF_TRIANGLES;
    if (!same_bounds(kiln, assimp))
        differs |= DIFF_BOUNDS;
    if (kiln->submeshes != assimp->submeshes)
        differs |= DIFF_SUBMESHES;
    if (kiln->materials != assimp->materials)
        differs |= DIFF_MATERIALS;
    return differs;
}

static void print_summary(const char *who, const summary *s) {
    printf(
        "    %-6s %s triangles %llu submeshes %u materials %u bounds (%g %g %g)-(%g %g %g)%s%s\n",
        who, s->ok ? "ok" : "FAILED", (unsigned long long)s->triangles, s->submeshes, s->materials,
        s->lo[0], s->lo[1], s->lo[2], s->hi[0], s->hi[1], s->hi[2], s->ok ? "" : ": ",
        s->ok ? "" : s->message);
}

/* ---------------------------------------------------------------------------
 * The test
 * ------------------------------------------------------------------------- */

static void kiln_and_assimp_agree_on_the_corpus(void **state) {
    (void)state;
    if (test_skip_without_corpus("kiln_and_assimp_agree_on_the_corpus"))
        skip();
    const char *corpus = test_corpus_dir();
    test_corpus_row *index;
    size_t index_rows;
    char *index_text = test_corpus_index(&index, &index_rows);
    int rows = 0, failures = 0, excepted = 0;
    bool seen[EXCEPTION_COUNT] = {false};
    for (size_t row = 0; row < index_rows; row++) {
        const char *fields[4] = {index[row].path, index[row].format, index[row].category,
                                 index[row].expect};
        if (strcmp(fields[3], "ok") != 0)
            continue;
        const crosscheck_format *format = NULL;
        for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
            if (strcmp(formats[i].format, fields[1]) == 0 &&
                strncmp(fields[0], formats[i].folder, strlen(formats[i].folder)) == 0)
                format = &formats[i];
        if (format == NULL)
            continue;
        rows++;
        summary kiln, assimp;
        summarize_kiln(corpus, fields[0], format->import, &kiln);
        summarize_assimp(corpus, fields[0], format->submeshes, format->materials, &assimp);
        unsigned differs = compare(&kiln, &assimp);
        const crosscheck_exception *exception = find_exception(fields[0]);
        unsigned expected = exception ? exception->differs : 0;
        if (!kiln.ok) {
            printf("%s: kiln failed on a row marked ok\n", fields[0]);
            print_summary("kiln", &kiln);
            failures++;
        } else if (differs != expected) {
            printf("%s: differences 0x%x, expected 0x%x%s%s\n", fields[0], differs, expected,
                   exception ? " — " : "", exception ? exception->reason : "");
            print_summary("kiln", &kiln);
            print_summary("assimp", &assimp);
            failures++;
        }
        if (exception != NULL)
            seen[exception - exceptions] = true;
        if (exception != NULL && differs == expected)
            excepted++;
    }
    printf("crosscheck: %d rows compared, %d with documented differences, %d failures\n", rows,
           excepted, failures);
    /* Every exception must name a row that still exists and is compared. */
    for (size_t i = 0; i < EXCEPTION_COUNT; i++) {
        if (!seen[i]) {
            printf("%s: listed as an exception but not compared (stale entry)\n",
                   exceptions[i].path);
            failures++;
        }
    }
    free(index);
    free(index_text);
    assert_true(rows >= 20);
    assert_int_equal(failures, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kiln_and_assimp_agree_on_the_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
