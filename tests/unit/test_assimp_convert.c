/* test_assimp_convert.c — kiln's conversion of an assimp scene
 * (assimp_convert_scene, import/assimp.c) on hand-built aiScenes holding what
 * fuzz_assimp_scene found broken: values at the edges of float, material
 * properties of an unexpected type or length, morph targets on part of a
 * mesh. Each is checked against values computed here. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/material.h>
#include <assimp/scene.h>

#include "cook/import/assimp_convert.h"
#include "test_support.h"

static void set_name(struct aiString *s, const char *text) {
    memset(s, 0, sizeof *s);
    s->length = (ai_uint32)strlen(text);
    memcpy(s->data, text, s->length);
}

typedef struct converted {
    cook_settings settings;
    cook_diag diag;
    ir_asset asset;
    bool ok;
} converted;

static void convert(converted *c, const struct aiScene *scene) {
    memset(c, 0, sizeof *c);
    cook_settings_default(&c->settings);
    cook_context ctx = {.input_root = "/nonexistent",
                        .source_path = "hand.fbx",
                        .ref = "test",
                        .source = (const uint8_t *)"",
                        .settings = &c->settings,
                        .diag = &c->diag};
    c->ok = assimp_convert_scene(&ctx, scene, &c->asset);
    strlist_free(&ctx.dependencies);
    strlist_free(&ctx.references);
    strlist_free(&ctx.absent);
}

static const char *messages(const converted *c) {
    return c->diag.text.data ? (const char *)c->diag.text.data : "";
}

static void expect_warning(const converted *c, const char *words) {
    if (strstr(messages(c), words) == NULL)
        fail_msg("no warning with \"%s\" in:\n%s", words, messages(c));
}

static void release(converted *c) {
    ir_asset_free(&c->asset);
    diag_free(&c->diag);
}

/* A scene of one root node named "root" and nothing else (arrays added by
 * each test). */
static void scene_init(struct aiScene *scene, struct aiNode *root) {
    memset(scene, 0, sizeof *scene);
    memset(root, 0, sizeof *root);
    set_name(&root->mName, "root");
    root->mTransformation.a1 = root->mTransformation.b2 = 1;
    root->mTransformation.c3 = root->mTransformation.d4 = 1;
    scene->mRootNode = root;
}

/* ---------------------------------------------------------------------------
 * Floats at the edge
 * ------------------------------------------------------------------------- */

static void camera_values_at_the_edge_of_float_stay_valid(void **state) {
    (void)state;
    struct aiScene scene;
    struct aiNode root;
    scene_init(&scene, &root);
    /* Orthographic with its near plane at FLT_MAX (1000 further rounds to
     * it), and perspective with an aspect so wide the vertical angle is
     * below the smallest float. */
    struct aiCamera ortho, wide;
    memset(&ortho, 0, sizeof ortho);
    memset(&wide, 0, sizeof wide);
    set_name(&ortho.mName, "root");
    ortho.mOrthographicWidth = 2;
    ortho.mClipPlaneNear = FLT_MAX;
    ortho.mLookAt.z = -1;
    ortho.mUp.y = 1;
    set_name(&wide.mName, "other");
    wide.mHorizontalFOV = 1e-30f;
    wide.mAspect = 1e30f;
    wide.mClipPlaneNear = 1;
    wide.mClipPlaneFar = 10;
    wide.mLookAt.z = -1;
    wide.mUp.y = 1;
    struct aiCamera *cameras[2] = {&ortho, &wide};
    scene.mCameras = cameras;
    scene.mNumCameras = 2;
    converted c;
    convert(&c, &scene);
    assert_true(c.ok);
    assert_int_equal(c.asset.camera_count, 2);
    const ir_camera *o = &c.asset.cameras[0], *w = &c.asset.cameras[1];
    assert_int_equal(o->type, IR_CAMERA_ORTHOGRAPHIC);
    assert_true(isfinite(o->znear) && isfinite(o->zfar) && o->zfar > o->znear);
    assert_true(o->znear >= nextafterf(FLT_MAX, 0) && o->znear < FLT_MAX);
    assert_true(o->zfar == FLT_MAX);
    expect_warning(&c, "far plane 0 is not beyond the near plane");
    assert_int_equal(w->type, IR_CAMERA_PERSPECTIVE);
    /* 2 atan(tan(5e-31) / 1e30) is about 1e-60: no float but 0. */
    assert_true(w->yfov == FLT_MIN);
    expect_warning(&c, "aspect ratio 1e+30 leaves no vertical field of view");
    release(&c);
}

static void node_columns_longer_than_flt_max_keep_their_matrix(void **state) {
    (void)state;
    struct aiScene scene;
    struct aiNode root;
    scene_init(&scene, &root);
    /* x column (FLT_MAX, FLT_MAX, 0): finite floats, length sqrt(2) FLT_MAX. */
    root.mTransformation.a1 = FLT_MAX;
    root.mTransformation.b1 = FLT_MAX;
    root.mTransformation.a4 = 5;
    converted c;
    convert(&c, &scene);
    assert_true(c.ok);
    const ir_node *n = &c.asset.nodes[0];
    assert_true(n->matrix[0] == FLT_MAX && n->matrix[1] == FLT_MAX && n->matrix[12] == 5.0f);
    assert_true(n->scale[0] == FLT_MAX && n->scale[1] == 1.0f && n->scale[2] == 1.0f);
    assert_true(n->translation[0] == 5.0f);
    for (int k = 0; k < 4; k++)
        assert_true(isfinite(n->rotation[k]));
    expect_warning(&c, "its translation/rotation/scale are approximate");
    release(&c);
}

/* ---------------------------------------------------------------------------
 * Materials: properties as assimp's C getters read them
 * ------------------------------------------------------------------------- */

typedef struct material_builder {
    struct aiMaterialProperty props[12];
    struct aiMaterialProperty *pointers[12];
    char data[12][64];
    struct aiMaterial material;
} material_builder;

static void add_property(material_builder *m, const char *key, unsigned semantic,
                         enum aiPropertyTypeInfo type, const void *data, unsigned length) {
    unsigned i = m->material.mNumProperties++;
    assert_true(i < 12 && length <= 64);
    struct aiMaterialProperty *p = &m->props[i];
    memset(p, 0, sizeof *p);
    set_name(&p->mKey, key);
    p->mSemantic = semantic;
    p->mType = type;
    p->mDataLength = length;
    memcpy(m->data[i], data, length);
    p->mData = m->data[i];
    m->pointers[i] = p;
    m->material.mProperties = m->pointers;
    m->material.mNumAllocated = 12;
}

static void add_text(material_builder *m, const char *key, unsigned semantic, const char *text) {
    char bytes[64] = {0};
    uint32_t length = (uint32_t)strlen(text);
    memcpy(bytes, &length, 4);
    memcpy(bytes + 4, text, length + 1);
    add_property(m, key, semantic, aiPTI_String, bytes, 4 + length + 1);
}

static void add_floats(material_builder *m, const char *key, const float *values, unsigned n) {
    add_property(m, key, 0, aiPTI_Float, values, n * (unsigned)sizeof(float));
}

/* A triangle drawn by the root node with material 0, and an embedded PNG
 * ("*0"): the scene a material test converts. */
typedef struct mesh_scene {
    struct aiScene scene;
    struct aiNode root;
    unsigned root_meshes[1];
    struct aiMesh mesh;
    struct aiMesh *meshes[1];
    struct aiVector3D vertices[3];
    struct aiFace face;
    unsigned indices[3];
    struct aiMaterial *materials[1];
    struct aiTexture texture;
    struct aiTexture *textures[1];
    struct aiTexel png[2];
} mesh_scene;

static void mesh_scene_init(mesh_scene *s, struct aiMaterial *material) {
    memset(s, 0, sizeof *s);
    scene_init(&s->scene, &s->root);
    s->root.mNumMeshes = 1;
    s->root.mMeshes = s->root_meshes;
    s->vertices[1].x = 1;
    s->vertices[2].y = 1;
    for (unsigned i = 0; i < 3; i++)
        s->indices[i] = i;
    s->face = (struct aiFace){3, s->indices};
    s->mesh.mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
    s->mesh.mNumVertices = 3;
    s->mesh.mVertices = s->vertices;
    s->mesh.mNumFaces = 1;
    s->mesh.mFaces = &s->face;
    s->meshes[0] = &s->mesh;
    s->scene.mMeshes = s->meshes;
    s->scene.mNumMeshes = 1;
    s->materials[0] = material;
    s->scene.mMaterials = s->materials;
    s->scene.mNumMaterials = 1;
    memcpy(s->png, "\x89PNG\r\n\x1a\n", 8);
    s->texture.mWidth = 8; /* compressed: 8 bytes */
    s->texture.pcData = s->png;
    s->textures[0] = &s->texture;
    s->scene.mTextures = s->textures;
    s->scene.mNumTextures = 1;
}

static void number_keys_holding_text_or_doubles_are_read_safely(void **state) {
    (void)state;
    /* assimp 5.2's float getter throws through its C API on text that is no
     * number (the process ends), and its integer getter reads a double as
     * text (an assertion). */
    material_builder m;
    memset(&m, 0, sizeof m);
    add_text(&m, "$mat.shininess", 0, "shiny");
    add_text(&m, "$mat.opacity", 0, "0.5");
    double two_sided = 1.0;
    add_property(&m, "$mat.twosided", 0, aiPTI_Double, &two_sided, sizeof two_sided);
    mesh_scene s;
    mesh_scene_init(&s, &m.material);
    converted c;
    convert(&c, &s.scene);
    assert_true(c.ok);
    assert_int_equal(c.asset.material_count, 1);
    const ir_material *mat = &c.asset.materials[0];
    expect_warning(&c, "$mat.shininess holds text where a number is expected; ignored");
    expect_warning(&c, "$mat.opacity holds text where a number is expected; ignored");
    assert_true(mat->base_color[3] == 1.0f); /* no opacity */
    assert_true(mat->roughness == 1.0f);     /* no shininess */
    assert_true(mat->double_sided);          /* the double read as a number */
    release(&c);

    /* The same shininess as a float, with the flat shading as a double:
     * flat has no specular lobe, so the shininess is still not used;
     * without the shading key it gives sqrt(2 / (e + 2)). */
    material_builder m2;
    memset(&m2, 0, sizeof m2);
    const double flat = aiShadingMode_Flat;
    const float shininess = 98;
    add_floats(&m2, "$mat.shininess", &shininess, 1);
    add_property(&m2, "$mat.shadingm", 0, aiPTI_Double, &flat, sizeof flat);
    mesh_scene_init(&s, &m2.material);
    convert(&c, &s.scene);
    assert_true(c.ok);
    assert_true(c.asset.materials[0].roughness == 1.0f);
    release(&c);
    m2.material.mNumProperties = 1;
    mesh_scene_init(&s, &m2.material);
    convert(&c, &s.scene);
    assert_true(c.ok);
    assert_float_equal(c.asset.materials[0].roughness, sqrt(2.0 / 100.0), 1e-6);
    release(&c);
}

static void texture_mapping_keys_with_several_values_are_read_safely(void **state) {
    (void)state;
    /* aiGetMaterialTexture reads $tex.mapping and $tex.uvwsrc with a NULL
     * count: every value lands in one int (a stack overflow in assimp or in
     * the caller). The first value counts. */
    material_builder m;
    memset(&m, 0, sizeof m);
    add_text(&m, "$tex.file", aiTextureType_DIFFUSE, "*0");
    const int32_t mapping[4] = {aiTextureMapping_UV, 9, 9, 9};
    add_property(&m, "$tex.mapping", aiTextureType_DIFFUSE, aiPTI_Integer, mapping, 16);
    const int32_t uv[4] = {1, 7, 7, 7};
    add_property(&m, "$tex.uvwsrc", aiTextureType_DIFFUSE, aiPTI_Integer, uv, 16);
    mesh_scene s;
    mesh_scene_init(&s, &m.material);
    converted c;
    convert(&c, &s.scene);
    assert_true(c.ok);
    const ir_texture_ref *t = &c.asset.materials[0].textures[IR_SLOT_BASE_COLOR];
    assert_int_equal(t->image, 0);
    assert_int_equal(t->texcoord, 1);
    assert_int_equal(c.asset.image_count, 1);
    assert_int_equal(c.asset.images[0].size, 8);
    assert_memory_equal(c.asset.images[0].bytes, "\x89PNG\r\n\x1a\n", 8);
    release(&c);
}

static void colours_of_too_few_values_and_huge_emission(void **state) {
    (void)state;
    /* Two values are no colour (aiGetMaterialColor would leave b and a
     * unset); an emissive colour times its intensity beyond FLT_MAX is
     * FLT_MAX, not inf. */
    material_builder m;
    memset(&m, 0, sizeof m);
    const float two[2] = {0.25f, 0.5f};
    add_floats(&m, "$clr.diffuse", two, 2);
    const float emissive[3] = {3e38f, 1.0f, 0.0f};
    add_floats(&m, "$clr.emissive", emissive, 3);
    const float intensity = 1e30f;
    add_floats(&m, "$mat.emissiveIntensity", &intensity, 1);
    mesh_scene s;
    mesh_scene_init(&s, &m.material);
    converted c;
    convert(&c, &s.scene);
    assert_true(c.ok);
    const ir_material *mat = &c.asset.materials[0];
    for (int k = 0; k < 4; k++)
        assert_true(mat->base_color[k] == 1.0f); /* glTF's default white */
    assert_true(mat->emissive[0] == FLT_MAX && mat->emissive[1] == 1e30f);
    assert_true(mat->emissive[2] == 0.0f);
    release(&c);
}

/* ---------------------------------------------------------------------------
 * Morph targets
 * ------------------------------------------------------------------------- */

static void a_part_without_a_morph_stream_does_not_move(void **state) {
    (void)state;
    /* One node drawing two triangles (two aiMeshes of one material): the
     * first's morph target moves its positions by +1 in y, the second's
     * target has no positions. The second part's deltas are zeros. */
    mesh_scene s;
    material_builder m;
    memset(&m, 0, sizeof m);
    mesh_scene_init(&s, &m.material);
    struct aiMesh second = s.mesh;
    struct aiMesh *meshes[2] = {&s.mesh, &second};
    unsigned node_meshes[2] = {0, 1};
    s.scene.mMeshes = meshes;
    s.scene.mNumMeshes = 2;
    s.root.mMeshes = node_meshes;
    s.root.mNumMeshes = 2;
    struct aiVector3D moved[3];
    for (int v = 0; v < 3; v++) {
        moved[v] = s.vertices[v];
        moved[v].y += 1;
    }
    struct aiAnimMesh first_target, second_target;
    memset(&first_target, 0, sizeof first_target);
    memset(&second_target, 0, sizeof second_target);
    first_target.mVertices = moved;
    first_target.mNumVertices = second_target.mNumVertices = 3;
    struct aiAnimMesh *first_targets[1] = {&first_target}, *second_targets[1] = {&second_target};
    s.mesh.mAnimMeshes = first_targets;
    s.mesh.mNumAnimMeshes = 1;
    second.mAnimMeshes = second_targets;
    second.mNumAnimMeshes = 1;
    converted c;
    convert(&c, &s.scene);
    assert_true(c.ok);
    assert_int_equal(c.asset.mesh_count, 1);
    const ir_mesh *mesh = &c.asset.meshes[0];
    assert_int_equal(mesh->vertex_count, 6);
    assert_int_equal(mesh->target_count, 1);
    const float *d = mesh->targets[0].positions;
    assert_non_null(d);
    for (int v = 0; v < 6; v++) {
        float dy = v < 3 ? 1.0f : 0.0f;
        assert_true(d[3 * v] == 0.0f && d[3 * v + 1] == dy && d[3 * v + 2] == 0.0f);
    }
    release(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(camera_values_at_the_edge_of_float_stay_valid),
        cmocka_unit_test(node_columns_longer_than_flt_max_keep_their_matrix),
        cmocka_unit_test(number_keys_holding_text_or_doubles_are_read_safely),
        cmocka_unit_test(texture_mapping_keys_with_several_values_are_read_safely),
        cmocka_unit_test(colours_of_too_few_values_and_huge_emission),
        cmocka_unit_test(a_part_without_a_morph_stream_does_not_move),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
