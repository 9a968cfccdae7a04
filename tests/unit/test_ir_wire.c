/* test_ir_wire.c — the IR on the wire (import/ir_wire.c): exact round trips
 * on corpus models (the assimp PLYs, glTF models that use every IR field)
 * and on a hand-built asset, and a reader that treats its input as hostile:
 * every truncation rejected, every single-bit flip survived (under ASan), and
 * forged counts, indices, references, floats and paths refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_import.h"
#include "test_support.h"

#include "cook/import/isolate.h"

/* ---------------------------------------------------------------------------
 * Comparing and checking assets
 * ------------------------------------------------------------------------- */

static void expect_same_text(const char *a, const char *b, const char *what) {
    if ((a == NULL) != (b == NULL) || (a != NULL && strcmp(a, b) != 0))
        fail_msg("%s differs: '%s' / '%s'", what, a ? a : "(null)", b ? b : "(null)");
}

static void expect_same_array(const void *a, const void *b, size_t bytes, const char *what) {
    if ((a == NULL) != (b == NULL) || (a != NULL && bytes > 0 && memcmp(a, b, bytes) != 0))
        fail_msg("%s differs", what);
}

/* Field by field, floats by their bits. */
static void expect_same_asset(const ir_asset *a, const ir_asset *b) {
    assert_int_equal(a->mesh_count, b->mesh_count);
    assert_int_equal(a->material_count, b->material_count);
    assert_int_equal(a->node_count, b->node_count);
    assert_int_equal(a->image_count, b->image_count);
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const ir_mesh *x = &a->meshes[i], *y = &b->meshes[i];
        size_t n = x->vertex_count;
        expect_same_text(x->name, y->name, "mesh name");
        assert_int_equal(x->vertex_count, y->vertex_count);
        expect_same_array(x->positions, y->positions, n * 12, "positions");
        expect_same_array(x->normals, y->normals, n * 12, "normals");
        expect_same_array(x->tangents, y->tangents, n * 16, "tangents");
        expect_same_array(x->texcoords[0], y->texcoords[0], n * 8, "texcoords 0");
        expect_same_array(x->texcoords[1], y->texcoords[1], n * 8, "texcoords 1");
        expect_same_array(x->colors, y->colors, n * 16, "colors");
        expect_same_array(x->joints, y->joints, n * 8, "joints");
        expect_same_array(x->weights, y->weights, n * 16, "weights");
        expect_same_array(x->joints1, y->joints1, n * 8, "joints1");
        expect_same_array(x->weights1, y->weights1, n * 16, "weights1");
        assert_int_equal(x->target_count, y->target_count);
        for (uint32_t t = 0; t < x->target_count; t++) {
            expect_same_text(x->targets[t].name, y->targets[t].name, "morph target name");
            expect_same_array(x->targets[t].positions, y->targets[t].positions, n * 12,
                              "position deltas");
            expect_same_array(x->targets[t].normals, y->targets[t].normals, n * 12,
                              "normal deltas");
            expect_same_array(x->targets[t].tangents, y->targets[t].tangents, n * 12,
                              "tangent deltas");
        }
        assert_int_equal(x->index_count, y->index_count);
        expect_same_array(x->indices, y->indices, x->index_count * 4u, "indices");
        assert_int_equal(x->submesh_count, y->submesh_count);
        for (uint32_t s = 0; s < x->submesh_count; s++) {
            const ir_submesh *p = &x->submeshes[s], *q = &y->submeshes[s];
            assert_int_equal(p->index_offset, q->index_offset);
            assert_int_equal(p->index_count, q->index_count);
            assert_int_equal(p->material, q->material);
            assert_int_equal(p->topology, q->topology);
            expect_same_text(p->name, q->name, "submesh name");
        }
    }
    for (uint32_t i = 0; i < a->material_count; i++) {
        const ir_material *x = &a->materials[i], *y = &b->materials[i];
        expect_same_text(x->name, y->name, "material name");
        expect_same_text(x->dropped_extensions, y->dropped_extensions, "dropped extensions");
        const float fx[] = {x->metallic, x->roughness, x->normal_scale, x->occlusion_strength,
                            x->alpha_cutoff};
        const float fy[] = {y->metallic, y->roughness, y->normal_scale, y->occlusion_strength,
                            y->alpha_cutoff};
        expect_same_array(fx, fy, sizeof fx, "material factors");
        expect_same_array(x->base_color, y->base_color, sizeof x->base_color, "base colour");
        expect_same_array(x->emissive, y->emissive, sizeof x->emissive, "emissive");
        expect_same_array(x->specular_color, y->specular_color, sizeof x->specular_color,
                          "specular colour");
        expect_same_array(&x->specular, &y->specular, sizeof x->specular, "specular");
        assert_int_equal(x->alpha_mode, y->alpha_mode);
        assert_int_equal(x->double_sided, y->double_sided);
        assert_int_equal(x->unlit, y->unlit);
        assert_int_equal(x->unnamed, y->unnamed);
        expect_same_array(x->textures, y->textures, sizeof x->textures, "texture refs");
    }
    for (uint32_t i = 0; i < a->node_count; i++) {
        const ir_node *x = &a->nodes[i], *y = &b->nodes[i];
        expect_same_text(x->name, y->name, "node name");
        assert_int_equal(x->parent, y->parent);
        assert_int_equal(x->mesh, y->mesh);
        assert_int_equal(x->skin, y->skin);
        expect_same_array(x->translation, y->translation, sizeof x->translation, "translation");
        expect_same_array(x->rotation, y->rotation, sizeof x->rotation, "rotation");
        expect_same_array(x->scale, y->scale, sizeof x->scale, "scale");
        expect_same_array(x->matrix, y->matrix, sizeof x->matrix, "matrix");
        assert_int_equal(x->source, y->source);
        expect_same_text(x->extras, y->extras, "node extras");
        assert_int_equal(x->camera, y->camera);
        assert_int_equal(x->light, y->light);
        assert_int_equal(x->instance_offset, y->instance_offset);
        assert_int_equal(x->instance_count, y->instance_count);
        assert_int_equal(x->weight_count, y->weight_count);
        expect_same_array(x->weights, y->weights, x->weight_count * 4u, "node morph weights");
    }
    assert_int_equal(a->camera_count, b->camera_count);
    for (uint32_t i = 0; i < a->camera_count; i++) {
        const ir_camera *x = &a->cameras[i], *y = &b->cameras[i];
        expect_same_text(x->name, y->name, "camera name");
        assert_int_equal(x->type, y->type);
        const float vx[6] = {x->yfov, x->aspect, x->xmag, x->ymag, x->znear, x->zfar};
        const float vy[6] = {y->yfov, y->aspect, y->xmag, y->ymag, y->znear, y->zfar};
        expect_same_array(vx, vy, sizeof vx, "camera values");
    }
    assert_int_equal(a->light_count, b->light_count);
    for (uint32_t i = 0; i < a->light_count; i++) {
        const ir_light *x = &a->lights[i], *y = &b->lights[i];
        expect_same_text(x->name, y->name, "light name");
        assert_int_equal(x->type, y->type);
        const float vx[7] = {x->color[0], x->color[1],   x->color[2],  x->intensity,
                             x->range,    x->inner_cone, x->outer_cone};
        const float vy[7] = {y->color[0], y->color[1],   y->color[2],  y->intensity,
                             y->range,    y->inner_cone, y->outer_cone};
        expect_same_array(vx, vy, sizeof vx, "light values");
    }
    assert_int_equal(a->instance_count, b->instance_count);
    expect_same_array(a->instances, b->instances, a->instance_count * sizeof(ir_instance),
                      "instances");
    assert_int_equal(a->scene_count, b->scene_count);
    assert_int_equal(a->default_scene, b->default_scene);
    for (uint32_t i = 0; i < a->scene_count; i++) {
        expect_same_text(a->scenes[i].name, b->scenes[i].name, "scene name");
        assert_int_equal(a->scenes[i].root_count, b->scenes[i].root_count);
        expect_same_array(a->scenes[i].roots, b->scenes[i].roots, a->scenes[i].root_count * 4u,
                          "scene roots");
    }
    assert_int_equal(a->skin_count, b->skin_count);
    for (uint32_t i = 0; i < a->skin_count; i++) {
        const ir_skin *x = &a->skins[i], *y = &b->skins[i];
        expect_same_text(x->name, y->name, "skin name");
        assert_int_equal(x->skeleton, y->skeleton);
        assert_int_equal(x->source, y->source);
        assert_int_equal(x->joint_count, y->joint_count);
        expect_same_array(x->joints, y->joints, x->joint_count * 4u, "skin joints");
        expect_same_array(x->inverse_bind, y->inverse_bind, x->joint_count * 64u,
                          "inverse bind matrices");
    }
    assert_int_equal(a->animation_count, b->animation_count);
    for (uint32_t i = 0; i < a->animation_count; i++) {
        const ir_animation *x = &a->animations[i], *y = &b->animations[i];
        expect_same_text(x->name, y->name, "clip name");
        expect_same_text(x->dropped, y->dropped, "clip dropped list");
        assert_int_equal(x->sampler_count, y->sampler_count);
        for (uint32_t k = 0; k < x->sampler_count; k++) {
            const ir_anim_sampler *u = &x->samplers[k], *v = &y->samplers[k];
            assert_int_equal(u->key_count, v->key_count);
            assert_int_equal(u->components, v->components);
            assert_int_equal(u->interpolation, v->interpolation);
            size_t groups = u->interpolation == IR_INTERP_CUBICSPLINE ? 3 : 1;
            expect_same_array(u->times, v->times, u->key_count * sizeof(float), "key times");
            expect_same_array(u->values, v->values,
                              u->key_count * u->components * groups * sizeof(float), "key values");
        }
        assert_int_equal(x->channel_count, y->channel_count);
        if (x->channel_count > 0) /* an empty clip's arrays may be NULL or not */
            expect_same_array(x->channels, y->channels, x->channel_count * sizeof(ir_anim_channel),
                              "channels");
    }
    for (uint32_t i = 0; i < a->image_count; i++) {
        const ir_image *x = &a->images[i], *y = &b->images[i];
        expect_same_text(x->name, y->name, "image name");
        expect_same_text(x->path, y->path, "image path");
        expect_same_text(x->label, y->label, "image label");
        assert_int_equal(x->size, y->size);
        expect_same_array(x->bytes, y->bytes, x->size, "image bytes");
    }
}

/* What the reader promises for anything it accepts; touching the last
 * element of every array lets ASan catch one sized wrong. */
static void check_structure(const ir_asset *a) {
    volatile float sink = 0.0f;
    for (uint32_t i = 0; i < a->skin_count; i++) {
        const ir_skin *skin = &a->skins[i];
        assert_true(skin->joint_count > 0);
        for (uint32_t j = 0; j < skin->joint_count; j++)
            assert_true(skin->joints[j] < a->node_count);
        sink += skin->inverse_bind[16 * (size_t)skin->joint_count - 1];
    }
    for (uint32_t i = 0; i < a->node_count; i++)
        assert_true(a->nodes[i].skin < (int32_t)a->skin_count);
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const ir_mesh *m = &a->meshes[i];
        size_t n = m->vertex_count;
        assert_true(n == 0 || m->positions != NULL);
        assert_true((m->joints == NULL) == (m->weights == NULL));
        if (n > 0) {
            const float *streams[] = {m->positions,    m->normals, m->tangents, m->texcoords[0],
                                      m->texcoords[1], m->colors,  m->weights};
            const size_t widths[] = {3, 3, 4, 2, 2, 4, 4};
            for (size_t s = 0; s < 7; s++)
                if (streams[s] != NULL) {
                    assert_true(isfinite(streams[s][0]) && isfinite(streams[s][n * widths[s] - 1]));
                    sink += streams[s][n * widths[s] - 1];
                }
            if (m->joints != NULL)
                sink += m->joints[4 * n - 1];
            if (m->joints1 != NULL)
                sink += m->joints1[4 * n - 1] + m->weights1[4 * n - 1];
        }
        for (uint32_t k = 0; k < m->index_count; k++)
            assert_true(m->indices[k] < m->vertex_count);
        uint32_t covered = 0;
        for (uint32_t s = 0; s < m->submesh_count; s++) {
            assert_int_equal(m->submeshes[s].index_offset, covered);
            assert_int_equal(m->submeshes[s].index_count %
                                 kiln_topology_index_count(m->submeshes[s].topology),
                             0);
            assert_true(m->submeshes[s].material < a->material_count);
            covered += m->submeshes[s].index_count;
        }
        assert_int_equal(covered, m->index_count);
    }
    for (uint32_t i = 0; i < a->material_count; i++) {
        for (int s = 0; s < IR_SLOT_COUNT; s++) {
            const ir_texture_ref *t = &a->materials[i].textures[s];
            assert_true(t->image >= -1 && t->image < (int32_t)a->image_count);
            assert_true(t->texcoord <= 1);
        }
        assert_true(a->materials[i].alpha_mode <= IR_ALPHA_BLEND);
    }
    for (uint32_t i = 0; i < a->node_count; i++) {
        assert_true(a->nodes[i].parent >= -1 && a->nodes[i].parent < (int32_t)i);
        assert_true(a->nodes[i].mesh >= -1 && a->nodes[i].mesh < (int32_t)a->mesh_count);
    }
    for (uint32_t i = 0; i < a->image_count; i++) {
        const ir_image *image = &a->images[i];
        assert_non_null(image->name);
        assert_true(image->path == NULL || image->bytes == NULL);
        if (image->path != NULL)
            assert_true(image->path[0] != '/' && strstr(image->path, "..") == NULL);
        if (image->bytes != NULL && image->size > 0)
            sink += image->bytes[image->size - 1];
    }
    (void)sink;
}

/* ---------------------------------------------------------------------------
 * Round trips
 * ------------------------------------------------------------------------- */

static bytebuf wire_bytes(const ir_asset *asset) {
    bytebuf bytes = {0};
    assert_true(ir_wire_write(asset, &bytes));
    return bytes;
}

/* write → read → equal, and written again to the same bytes. */
static void expect_round_trip(const ir_asset *asset, const char *label) {
    bytebuf first = wire_bytes(asset);
    wire_reader in = {.data = first.data, .size = first.size};
    ir_asset back;
    char reason[256];
    if (!ir_wire_read(&in, &back, reason, sizeof reason))
        fail_msg("%s: the reader refused what the writer wrote: %s", label, reason);
    assert_int_equal(in.pos, first.size);
    expect_same_asset(asset, &back);
    bytebuf second = wire_bytes(&back);
    assert_int_equal(first.size, second.size);
    assert_memory_equal(first.data, second.data, first.size);
    ir_asset_free(&back);
    bytebuf_free(&first);
    bytebuf_free(&second);
}

static float *filled(size_t count, float start) {
    float *values = malloc(count * sizeof *values);
    assert_non_null(values);
    for (size_t i = 0; i < count; i++)
        values[i] = start + 0.125f * (float)i;
    return values;
}

/* Every field an importer can set, none at its default. */
static void make_rich_asset(ir_asset *a) {
    memset(a, 0, sizeof *a);
    a->meshes = calloc(1, sizeof *a->meshes);
    a->materials = calloc(2, sizeof *a->materials);
    a->nodes = calloc(3, sizeof *a->nodes);
    assert_true(a->meshes && a->materials && a->nodes);
    a->mesh_count = 1;
    ir_mesh *m = &a->meshes[0];
    m->name = cook_strdup("quad");
    m->vertex_count = 4;
    m->positions = filled(12, -1.0f);
    m->normals = filled(12, 0.5f);
    m->tangents = filled(16, 0.25f);
    m->texcoords[0] = filled(8, 0.0f);
    m->texcoords[1] = filled(8, 0.5f);
    m->colors = filled(16, 0.75f);
    m->weights = filled(16, 0.0625f);
    m->weights1 = filled(16, 0.03125f);
    m->joints1 = malloc(16 * sizeof *m->joints1);
    assert_non_null(m->joints1);
    for (int i = 0; i < 16; i++)
        m->joints1[i] = (uint16_t)(i * 7 + 3);
    m->joints = malloc(16 * sizeof *m->joints);
    m->indices = malloc(6 * sizeof *m->indices);
    m->submeshes = calloc(2, sizeof *m->submeshes);
    assert_true(m->joints && m->indices && m->submeshes);
    for (int i = 0; i < 16; i++)
        m->joints[i] = (uint16_t)(i * 1000);
    /* Two morph targets with position and tangent deltas, one named. */
    m->target_count = 2;
    m->targets = calloc(2, sizeof *m->targets);
    assert_non_null(m->targets);
    m->targets[0].name = cook_strdup("blink");
    for (int t = 0; t < 2; t++) {
        m->targets[t].positions = filled(12, 0.125f * (float)(t + 1));
        m->targets[t].tangents = filled(12, -0.5f * (float)t);
    }
    const uint32_t indices[] = {0, 1, 2, 0, 2, 3};
    memcpy(m->indices, indices, sizeof indices);
    m->index_count = 6;
    m->submesh_count = 2;
    m->submeshes[0] = (ir_submesh){
        .index_offset = 0, .index_count = 3, .material = 1, .name = cook_strdup("left")};
    m->submeshes[1] = (ir_submesh){
        .index_offset = 3, .index_count = 3, .material = 0, .topology = KILN_TOPOLOGY_POINTS};
    for (int i = 0; i < 2; i++)
        ir_material_init(&a->materials[i]);
    a->material_count = 2;
    ir_material *mat = &a->materials[0];
    mat->name = cook_strdup("painted");
    mat->dropped_extensions = cook_strdup("KHR_materials_clearcoat KHR_materials_sheen");
    mat->base_color[1] = 0.5f;
    mat->metallic = 0.25f;
    mat->roughness = 0.75f;
    mat->emissive[2] = 2.0f;
    mat->normal_scale = 0.5f;
    mat->occlusion_strength = 0.125f;
    mat->alpha_mode = IR_ALPHA_MASK;
    mat->alpha_cutoff = 0.25f;
    mat->double_sided = true;
    mat->unlit = true;
    mat->unnamed = true;
    mat->textures[IR_SLOT_BASE_COLOR] = (ir_texture_ref){0,
                                                         1,
                                                         {0.5f, 0.25f},
                                                         1.5f,
                                                         {2.0f, 3.0f},
                                                         KILN_WRAP_CLAMP_TO_EDGE,
                                                         KILN_WRAP_MIRRORED_REPEAT,
                                                         KILN_FILTER_NEAREST,
                                                         KILN_FILTER_LINEAR,
                                                         KILN_MIP_NONE};
    mat->specular_color[1] = 0.5f;
    mat->specular = 0.75f;
    mat->textures[IR_SLOT_NORMAL].image = 1;
    a->materials[1].name = cook_strdup("plain");
    a->materials[1].alpha_mode = IR_ALPHA_BLEND;
    for (int i = 0; i < 3; i++)
        ir_node_init(&a->nodes[i]);
    a->node_count = 3;
    a->nodes[1].name = cook_strdup("body");
    a->nodes[1].parent = 0;
    a->nodes[1].mesh = 0;
    a->nodes[1].skin = 1;
    a->nodes[1].weight_count = 2;
    a->nodes[1].weights = filled(2, 0.25f);
    a->skins = calloc(2, sizeof *a->skins);
    assert_non_null(a->skins);
    a->skin_count = 2;
    a->skins[0] = (ir_skin){.skeleton = -1, .source = 0, .joint_count = 1};
    a->skins[1] =
        (ir_skin){.name = cook_strdup("rig"), .skeleton = 1, .source = 3, .joint_count = 2};
    for (int s = 0; s < 2; s++) {
        ir_skin *skin = &a->skins[s];
        skin->joints = malloc(skin->joint_count * sizeof *skin->joints);
        skin->inverse_bind = filled(16 * (size_t)skin->joint_count, 0.5f * (float)s);
        assert_true(skin->joints && skin->inverse_bind);
        for (uint32_t j = 0; j < skin->joint_count; j++)
            skin->joints[j] = 2 - j;
    }
    a->nodes[1].translation[0] = 3.0f;
    a->nodes[1].matrix[12] = 3.0f;
    a->nodes[2].name = cook_strdup("tip");
    a->nodes[2].parent = 1;
    a->nodes[2].rotation[0] = 0.5f;
    a->nodes[2].scale[2] = -1.0f;
    for (int i = 0; i < 3; i++)
        a->nodes[i].source = 2 - i;
    a->nodes[1].extras = cook_strdup("{\"door\":true}");
    a->scenes = calloc(2, sizeof *a->scenes);
    assert_non_null(a->scenes);
    a->scene_count = 2;
    a->default_scene = 1;
    a->scenes[1].name = cook_strdup("main");
    a->scenes[1].roots = malloc(sizeof *a->scenes[1].roots);
    assert_non_null(a->scenes[1].roots);
    a->scenes[1].roots[0] = 0;
    a->scenes[1].root_count = 1;
    a->scenes[0].roots = malloc(sizeof *a->scenes[0].roots); /* unnamed */
    assert_non_null(a->scenes[0].roots);
    a->scenes[0].roots[0] = 0;
    a->scenes[0].root_count = 1;
    assert_int_equal(
        ir_image_add_file(&a->images, &a->image_count, "textures/albedo.png", "albedo.png"), 0);
    uint8_t *embedded = malloc(16);
    assert_non_null(embedded);
    for (int i = 0; i < 16; i++)
        embedded[i] = (uint8_t)(0xA0 + i);
    assert_int_equal(ir_image_add_bytes(&a->images, &a->image_count, "embedded 0", embedded, 16),
                     1);
    a->images[1].label = cook_strdup("Albedo Map.png");
    /* Cameras, lights and instances (wire version 3). */
    a->cameras = calloc(2, sizeof *a->cameras);
    a->lights = calloc(2, sizeof *a->lights);
    a->instances = calloc(3, sizeof *a->instances);
    assert_true(a->cameras && a->lights && a->instances);
    a->camera_count = 2;
    a->cameras[0] = (ir_camera){.name = cook_strdup("eye"), .yfov = 0.7f, .znear = 0.1f};
    a->cameras[1] = (ir_camera){
        .type = IR_CAMERA_ORTHOGRAPHIC, .xmag = -2.0f, .ymag = 1.5f, .znear = 0.0f, .zfar = 9.0f};
    a->light_count = 2;
    a->lights[0] = (ir_light){.name = cook_strdup("lamp"),
                              .type = IR_LIGHT_SPOT,
                              .color = {1.0f, 0.5f, 0.25f},
                              .intensity = 12.0f,
                              .range = 4.0f,
                              .inner_cone = 0.1f,
                              .outer_cone = 0.7f};
    a->lights[1] = (ir_light){.type = IR_LIGHT_DIRECTIONAL, .color = {1, 1, 1}, .intensity = 2};
    a->instance_count = 3;
    for (int i = 0; i < 3; i++)
        a->instances[i] = (ir_instance){.translation = {(float)i, 2.0f, -1.0f},
                                        .rotation = {0.0f, 0.6f, 0.0f, 0.8f},
                                        .scale = {1.0f, (float)(i + 1), 1.0f}};
    a->nodes[0].camera = 1;
    a->nodes[2].light = 0;
    a->nodes[1].instance_offset = 1;
    a->nodes[1].instance_count = 2;
    /* Animations (wire version 5): a LINEAR rotation, a STEP translation and
     * a CUBICSPLINE scale sharing nothing, and an empty named clip. */
    a->animations = calloc(2, sizeof *a->animations);
    assert_non_null(a->animations);
    a->animation_count = 2;
    ir_animation *clip = &a->animations[0];
    clip->name = cook_strdup("walk");
    clip->dropped = cook_strdup("mMeshChannels[0] mChannels[4](Ghost)");
    clip->samplers = calloc(3, sizeof *clip->samplers);
    clip->channels = calloc(3, sizeof *clip->channels);
    assert_true(clip->samplers && clip->channels);
    clip->sampler_count = clip->channel_count = 3;
    static const ir_interpolation kinds[3] = {IR_INTERP_LINEAR, IR_INTERP_STEP,
                                              IR_INTERP_CUBICSPLINE};
    static const ir_anim_path paths[3] = {IR_ANIM_ROTATION, IR_ANIM_TRANSLATION, IR_ANIM_SCALE};
    for (uint32_t k = 0; k < 3; k++) {
        ir_anim_sampler *sampler = &clip->samplers[k];
        sampler->key_count = 2 + k;
        sampler->components = k == 0 ? 4 : 3;
        sampler->interpolation = kinds[k];
        size_t groups = kinds[k] == IR_INTERP_CUBICSPLINE ? 3 : 1;
        sampler->times = filled(sampler->key_count, 0.25f * (float)k);
        sampler->values = filled(sampler->key_count * sampler->components * groups, 1.0f);
        assert_true(sampler->times && sampler->values);
        if (k == 0)
            for (uint32_t key = 0; key < sampler->key_count; key++) {
                float *q = sampler->values + 4 * key;
                q[0] = q[1] = 0.0f;
                q[2] = key ? 0.6f : 0.0f;
                q[3] = key ? 0.8f : 1.0f;
            }
        clip->channels[k] = (ir_anim_channel){.node = 2 - k, .path = paths[k], .sampler = k};
    }
    a->animations[1].name = cook_strdup("idle");
}

static void round_trip_of_every_field(void **state) {
    (void)state;
    ir_asset asset;
    make_rich_asset(&asset);
    expect_round_trip(&asset, "rich asset");
    ir_asset_free(&asset);
    ir_asset empty = {0};
    expect_round_trip(&empty, "empty asset");
}

static void round_trip_is_exact_on_corpus_models(void **state) {
    (void)state;
    if (test_skip_without_corpus("round_trip_is_exact_on_corpus_models"))
        skip();
    const char *corpus = test_corpus_dir();
    /* The assimp models, then glTF models reaching every other IR field:
     * skins, embedded images, a second UV set and tangents, texture
     * transforms, alpha modes, image files, a node hierarchy. */
    static const struct {
        const char *path;
        cook_import_fn import;
    } models[] = {
        {"ply/assimp/cube.ply", import_assimp},
        {"ply/assimp/cube_binary.ply", import_assimp},
        {"ply/assimp/cube_uv.ply", import_assimp},
        {"ply/assimp/float-color.ply", import_assimp},
        {"gltf/Fox/glTF-Binary/Fox.glb", import_gltf},
        {"gltf/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf", import_gltf},
        {"gltf/MultiUVTest/glTF-Binary/MultiUVTest.glb", import_gltf},
        {"gltf/TextureTransformTest/glTF/TextureTransformTest.gltf", import_gltf},
        {"gltf/AlphaBlendModeTest/glTF-Binary/AlphaBlendModeTest.glb", import_gltf},
        {"gltf/CesiumMilkTruck/glTF/CesiumMilkTruck.gltf", import_gltf},
        {"gltf/VertexColorTest/glTF-Binary/VertexColorTest.glb", import_gltf},
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        test_import r;
        test_import_file(&r, models[i].import, corpus, models[i].path);
        test_import_expect_ok(&r);
        assert_true(r.asset.mesh_count > 0);
        expect_round_trip(&r.asset, models[i].path);
        test_import_free(&r);
    }
}

/* ---------------------------------------------------------------------------
 * Hostile input
 * ------------------------------------------------------------------------- */

static bool read_bytes(const uint8_t *data, size_t size, ir_asset *out, char *reason,
                       size_t reason_size) {
    wire_reader in = {.data = data, .size = size};
    return ir_wire_read(&in, out, reason, reason_size);
}

static void expect_rejected(const uint8_t *data, size_t size, const char *label) {
    ir_asset out;
    char reason[256] = "";
    if (read_bytes(data, size, &out, reason, sizeof reason))
        fail_msg("%s: accepted", label);
    assert_true(reason[0] != '\0');
    assert_int_equal(out.mesh_count + out.material_count + out.node_count + out.image_count, 0);
    assert_null(out.meshes);
}

/* The bytes of the rich asset and of a corpus PLY (when there). */
static size_t sample_streams(bytebuf streams[2]) {
    ir_asset asset;
    make_rich_asset(&asset);
    streams[0] = wire_bytes(&asset);
    ir_asset_free(&asset);
    if (test_corpus_dir() == NULL)
        return 1;
    test_import r;
    test_import_file(&r, import_assimp, test_corpus_dir(), "ply/assimp/cube_uv.ply");
    test_import_expect_ok(&r);
    streams[1] = wire_bytes(&r.asset);
    test_import_free(&r);
    return 2;
}

static void every_truncation_is_rejected(void **state) {
    (void)state;
    bytebuf streams[2];
    size_t count = sample_streams(streams);
    for (size_t s = 0; s < count; s++) {
        for (size_t length = 0; length < streams[s].size; length++) {
            char label[64];
            snprintf(label, sizeof label, "stream %zu cut at %zu", s, length);
            expect_rejected(streams[s].data, length, label);
        }
        bytebuf_free(&streams[s]);
    }
}

static void every_bit_flip_is_survived(void **state) {
    (void)state;
    bytebuf streams[2];
    size_t count = sample_streams(streams);
    for (size_t s = 0; s < count; s++) {
        uint8_t *copy = malloc(streams[s].size);
        assert_non_null(copy);
        size_t accepted = 0, flips = 0;
        for (size_t at = 0; at < streams[s].size; at++) {
            for (int bit = 0; bit < 8; bit++, flips++) {
                memcpy(copy, streams[s].data, streams[s].size);
                copy[at] ^= (uint8_t)(1u << bit);
                ir_asset out;
                char reason[256];
                if (read_bytes(copy, streams[s].size, &out, reason, sizeof reason)) {
                    check_structure(&out);
                    ir_asset_free(&out);
                    accepted++;
                }
            }
        }
        /* Most flips land in float values or names, which stay valid. */
        printf("stream %zu: %zu of %zu flips still decode\n", s, accepted, flips);
        free(copy);
        bytebuf_free(&streams[s]);
    }
}

typedef void (*asset_forgery)(ir_asset *asset);

static void forge_index(ir_asset *a) {
    a->meshes[0].indices[5] = 4;
}
static void forge_overlap(ir_asset *a) {
    a->meshes[0].submeshes[1].index_offset = 0;
}
static void forge_submesh_material(ir_asset *a) {
    a->meshes[0].submeshes[0].material = 2;
}
static void forge_uncovered(ir_asset *a) {
    a->meshes[0].submesh_count = 1;
}
static void forge_parent_after_child(ir_asset *a) {
    a->nodes[1].parent = 2;
}
static void forge_parent_self(ir_asset *a) {
    a->nodes[2].parent = 2;
}
static void forge_node_mesh(ir_asset *a) {
    a->nodes[2].mesh = 1;
}
static void forge_negative_skin(ir_asset *a) {
    a->nodes[2].skin = -2;
}
static void forge_texture_image(ir_asset *a) {
    a->materials[1].textures[IR_SLOT_EMISSIVE].image = 2;
}
static void forge_texcoord(ir_asset *a) {
    a->materials[0].textures[IR_SLOT_BASE_COLOR].texcoord = 2;
}
static void forge_sampler(ir_asset *a) {
    a->materials[0].textures[IR_SLOT_BASE_COLOR].mip_filter = KILN_MIP_FILTER_COUNT_;
}
static void forge_alpha_mode(ir_asset *a) {
    a->materials[0].alpha_mode = (ir_alpha_mode)3;
}
static void forge_nan_position(ir_asset *a) {
    a->meshes[0].positions[7] = NAN;
}
static void forge_infinite_weight(ir_asset *a) {
    a->meshes[0].weights[3] = INFINITY;
}
static void forge_nan_factor(ir_asset *a) {
    a->materials[1].roughness = NAN;
}
static void forge_infinite_matrix(ir_asset *a) {
    a->nodes[0].matrix[5] = -INFINITY;
}
static void set_image_path(ir_asset *a, const char *path) {
    free(a->images[0].path);
    a->images[0].path = cook_strdup(path);
}
static void forge_path_and_bytes(ir_asset *a) {
    a->images[1].path = cook_strdup("embedded.png");
}
static void forge_unnamed_image(ir_asset *a) {
    free(a->images[0].name);
    a->images[0].name = NULL;
}
static void forge_joints_alone(ir_asset *a) {
    free(a->meshes[0].weights);
    a->meshes[0].weights = NULL;
}
static void forge_skin_out_of_range(ir_asset *a) {
    a->nodes[1].skin = 2;
}
static void forge_joint_out_of_range(ir_asset *a) {
    a->skins[1].joints[0] = 3;
}
static void forge_joint_twice(ir_asset *a) {
    a->skins[1].joints[1] = a->skins[1].joints[0];
}
static void forge_skin_without_joints(ir_asset *a) {
    a->skins[0].joint_count = 0;
}
static void forge_nan_inverse_bind(ir_asset *a) {
    a->skins[1].inverse_bind[20] = NAN;
}
static void forge_skeleton(ir_asset *a) {
    a->skins[0].skeleton = 3;
}
static void forge_weights1_alone(ir_asset *a) {
    free(a->meshes[0].joints1);
    a->meshes[0].joints1 = NULL;
}
static void forge_no_positions(ir_asset *a) {
    free(a->meshes[0].positions);
    a->meshes[0].positions = NULL;
}

static void forge_camera_index(ir_asset *a) {
    a->nodes[2].camera = 2;
}
static void forge_light_index(ir_asset *a) {
    a->nodes[0].light = -2;
}
static void forge_instance_range(ir_asset *a) {
    a->nodes[1].instance_count = 3;
}
static void forge_camera_zfar(ir_asset *a) {
    a->cameras[1].zfar = 0.0f;
}
static void forge_camera_yfov(ir_asset *a) {
    a->cameras[0].yfov = -1.0f;
}
static void forge_light_cone(ir_asset *a) {
    a->lights[0].inner_cone = 0.8f;
}
static void forge_light_color(ir_asset *a) {
    a->lights[1].color[2] = NAN;
}
static void forge_instance_rotation(ir_asset *a) {
    a->instances[2].rotation[3] = 2.0f;
}

static void forge_nan_delta(ir_asset *a) {
    a->meshes[0].targets[1].tangents[5] = NAN;
}
static void forge_weight_count(ir_asset *a) {
    a->nodes[1].weight_count = 1; /* its mesh has two targets */
}
static void forge_uneven_targets(ir_asset *a) {
    free(a->meshes[0].targets[1].positions); /* target 0 has positions, 1 not */
    a->meshes[0].targets[1].positions = NULL;
}
static void forge_channel_node(ir_asset *a) {
    a->animations[0].channels[1].node = 3;
}
static void forge_channel_path(ir_asset *a) {
    a->animations[0].channels[1].path = (ir_anim_path)4;
}
static void forge_channel_sampler(ir_asset *a) {
    a->animations[0].channels[2].sampler = 3;
}
static void forge_rotation_components(ir_asset *a) {
    a->animations[0].channels[0].path = IR_ANIM_SCALE; /* 4 components */
}
static void forge_weights_without_targets(ir_asset *a) {
    a->animations[0].channels[1].path = IR_ANIM_WEIGHTS; /* node 1 has no weights */
}
static void forge_times_back(ir_asset *a) {
    a->animations[0].samplers[1].times[1] = a->animations[0].samplers[1].times[0];
}
static void forge_negative_time(ir_asset *a) {
    a->animations[0].samplers[0].times[0] = -1.0f;
}
static void forge_nan_key(ir_asset *a) {
    a->animations[0].samplers[2].values[4] = NAN;
}
static void forge_infinite_time(ir_asset *a) {
    a->animations[0].samplers[2].times[3] = INFINITY;
}
static void forge_rotation_not_unit(ir_asset *a) {
    a->animations[0].samplers[0].values[7] = 0.5f;
}
static void forge_path_twice(ir_asset *a) {
    a->animations[0].channels[2].node = 1; /* scale of node 1: fine */
    a->animations[0].channels[2].path = IR_ANIM_TRANSLATION;
    a->animations[0].channels[2].sampler = 1; /* translation of node 1 again */
}
static void forge_interpolation(ir_asset *a) {
    a->animations[0].samplers[1].interpolation = (ir_interpolation)3;
}
static void forge_no_keys(ir_asset *a) {
    a->animations[0].samplers[1].key_count = 0;
}

static void forged_assets_are_rejected(void **state) {
    (void)state;
    static const struct {
        const char *name;
        asset_forgery forge;
    } forgeries[] = {
        {"index past the vertices", forge_index},
        {"overlapping submeshes", forge_overlap},
        {"submesh material out of range", forge_submesh_material},
        {"indices no submesh covers", forge_uncovered},
        {"parent after its child", forge_parent_after_child},
        {"node its own parent", forge_parent_self},
        {"node mesh out of range", forge_node_mesh},
        {"skin below -1", forge_negative_skin},
        {"texture image out of range", forge_texture_image},
        {"UV set 2", forge_texcoord},
        {"alpha mode 3", forge_alpha_mode},
        {"mip filter out of range", forge_sampler},
        {"NaN position", forge_nan_position},
        {"infinite weight", forge_infinite_weight},
        {"NaN roughness", forge_nan_factor},
        {"infinite matrix", forge_infinite_matrix},
        {"image with a path and bytes", forge_path_and_bytes},
        {"image without a name", forge_unnamed_image},
        {"joints without weights", forge_joints_alone},
        {"vertices without positions", forge_no_positions},
        {"node camera out of range", forge_camera_index},
        {"node light below -1", forge_light_index},
        {"node instances past the table", forge_instance_range},
        {"orthographic camera without zfar", forge_camera_zfar},
        {"negative yfov", forge_camera_yfov},
        {"spot cones out of order", forge_light_cone},
        {"NaN light colour", forge_light_color},
        {"instance rotation not unit", forge_instance_rotation},
        {"node skin out of range", forge_skin_out_of_range},
        {"joint out of range", forge_joint_out_of_range},
        {"joint listed twice", forge_joint_twice},
        {"skin without joints", forge_skin_without_joints},
        {"NaN inverse bind matrix", forge_nan_inverse_bind},
        {"skeleton out of range", forge_skeleton},
        {"weights1 without joints1", forge_weights1_alone},
        {"NaN morph delta", forge_nan_delta},
        {"node weights not one per morph target", forge_weight_count},
        {"channel node out of range", forge_channel_node},
        {"channel path 4", forge_channel_path},
        {"channel sampler out of range", forge_channel_sampler},
        {"scale channel of 4 components", forge_rotation_components},
        {"weights channel on a node without morph targets", forge_weights_without_targets},
        {"key times not increasing", forge_times_back},
        {"negative key time", forge_negative_time},
        {"NaN key value", forge_nan_key},
        {"infinite key time", forge_infinite_time},
        {"rotation key not unit", forge_rotation_not_unit},
        {"a node's path driven twice", forge_path_twice},
        {"interpolation 3", forge_interpolation},
        {"sampler without keys", forge_no_keys},
    };
    for (size_t i = 0; i < sizeof forgeries / sizeof forgeries[0]; i++) {
        ir_asset asset;
        make_rich_asset(&asset);
        forgeries[i].forge(&asset);
        bytebuf bytes = {0};
        assert_true(ir_wire_write(&asset, &bytes));
        expect_rejected(bytes.data, bytes.size, forgeries[i].name);
        bytebuf_free(&bytes);
        ir_asset_free(&asset);
    }
    /* Image paths that are not plain paths below the input root. */
    static const char *const paths[] = {
        "../secret.png",        "/etc/passwd",          "textures/../../s.png", "./albedo.png",
        "textures//albedo.png", "textures\\albedo.png", "C:secret.png",         ""};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        ir_asset asset;
        make_rich_asset(&asset);
        set_image_path(&asset, paths[i]);
        bytebuf bytes = wire_bytes(&asset);
        expect_rejected(bytes.data, bytes.size, paths[i]);
        bytebuf_free(&bytes);
        ir_asset_free(&asset);
    }
}

static void put_u32_at(uint8_t *at, uint32_t value) {
    for (int i = 0; i < 4; i++)
        at[i] = (uint8_t)(value >> (8 * i));
}

/* Forged counts and bytes at known offsets: header (20 bytes), then mesh 0:
 * name "quad" (4 + 4), vertex count at 28, streams at 32. */
static void forged_bytes_are_rejected(void **state) {
    (void)state;
    ir_asset asset;
    make_rich_asset(&asset);
    bytebuf good = wire_bytes(&asset);
    ir_asset_free(&asset);
    assert_memory_equal(good.data + 24, "quad", 4);
    static const struct {
        const char *name;
        size_t offset;
        uint32_t value;
    } patches[] = {
        {"another version", 0, IR_WIRE_VERSION + 1}, {"4 billion meshes", 4, UINT32_MAX},
        {"more materials than bytes", 8, 1000},      {"4 billion nodes", 12, UINT32_MAX - 1},
        {"more images than bytes", 16, 200},         {"name longer than the stream", 20, 1u << 30},
        {"a billion vertices", 28, 1u << 30},        {"one vertex too many", 28, 5},
        {"an unknown stream", 32, 0x1ffu},
    };
    uint8_t *copy = malloc(good.size);
    assert_non_null(copy);
    for (size_t i = 0; i < sizeof patches / sizeof patches[0]; i++) {
        memcpy(copy, good.data, good.size);
        put_u32_at(copy + patches[i].offset, patches[i].value);
        expect_rejected(copy, good.size, patches[i].name);
    }
    memcpy(copy, good.data, good.size);
    copy[26] = '\0'; /* "qu\0d": a NUL inside a string */
    expect_rejected(copy, good.size, "NUL inside a name");
    free(copy);
    bytebuf_free(&good);
}

/* The writer refuses what only process steps build. */
static void writer_refuses_process_output(void **state) {
    (void)state;
    ir_asset asset;
    make_rich_asset(&asset);
    asset.meshes[0].lod_count = 1;
    asset.meshes[0].lods = calloc(2, sizeof(ir_lod));
    bytebuf bytes = {0};
    assert_false(ir_wire_write(&asset, &bytes));
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
    /* Morph targets with different streams break ir.h's invariant. */
    make_rich_asset(&asset);
    forge_uneven_targets(&asset);
    bytes = (bytebuf){0};
    assert_false(ir_wire_write(&asset, &bytes));
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_of_every_field),
        cmocka_unit_test(round_trip_is_exact_on_corpus_models),
        cmocka_unit_test(every_truncation_is_rejected),
        cmocka_unit_test(every_bit_flip_is_survived),
        cmocka_unit_test(forged_assets_are_rejected),
        cmocka_unit_test(forged_bytes_are_rejected),
        cmocka_unit_test(writer_refuses_process_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
