/* test_assimp.c — the assimp importer (import_assimp): hand-written PLY, STL,
 * OFF, COLLADA and SMD files, corrupt input, confinement to the input root,
 * parallel imports, and the corpus's PLY rows through the whole pipeline. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_import.h"
#include "test_support.h"

#include "cook/drivers/drivers.h"

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

/* The importer under test, called as the pipeline calls it. */
static void import_bytes(test_import *r, const char *root, const char *source_path,
                         const void *bytes, size_t size) {
    test_import_bytes(r, import_assimp, root, source_path, bytes, size);
}

static void import_file(test_import *r, const char *root, const char *source_path) {
    test_import_file(r, import_assimp, root, source_path);
}

static void import_text(test_import *r, const char *root, const char *source_path,
                        const char *text) {
    import_bytes(r, root, source_path, text, strlen(text));
}

static void expect_message(const test_import *r, const char *words) {
    if (strstr(test_import_messages(r), words) == NULL)
        fail_msg("expected a message with \"%s\", got:\n%s", words, test_import_messages(r));
}

/* Failed with exactly one error line starting with `prefix`. */
static void expect_error(const test_import *r, const char *prefix) {
    if (r->ok)
        fail_msg("import succeeded, expected \"%s\"\n%s", prefix, test_import_messages(r));
    if (r->diag.errors != 1 || strstr(test_import_messages(r), prefix) == NULL)
        fail_msg("expected one error \"%s\", got:\n%s", prefix, test_import_messages(r));
    assert_int_equal(r->asset.mesh_count, 0);
    assert_null(r->asset.meshes);
}

static void write_text(const char *dir, const char *relative, const char *text) {
    test_write_in(dir, relative, text, strlen(text));
}

static char *fresh_dir(const char *name) {
    char label[96];
    snprintf(label, sizeof label, "assimp_%s", name);
    return test_make_temp_dir(label);
}

static const ir_mesh *only_mesh(const test_import *r) {
    if (r->asset.mesh_count != 1)
        fail_msg("expected one mesh, got %u\n%s", r->asset.mesh_count, test_import_messages(r));
    return &r->asset.meshes[0];
}

/* AABB of the vertices the indices use. */
static void mesh_bounds(const ir_mesh *mesh, float lo[3], float hi[3]) {
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (uint32_t i = 0; i < mesh->index_count; i++) {
        const float *p = mesh->positions + 3 * (size_t)mesh->indices[i];
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], p[k]);
            hi[k] = fmaxf(hi[k], p[k]);
        }
    }
}

static void expect_bounds(const ir_mesh *mesh, float x0, float y0, float z0, float x1, float y1,
                          float z1) {
    float lo[3], hi[3];
    mesh_bounds(mesh, lo, hi);
    const float want_lo[3] = {x0, y0, z0}, want_hi[3] = {x1, y1, z1};
    for (int k = 0; k < 3; k++)
        if (fabsf(lo[k] - want_lo[k]) > 1e-6f || fabsf(hi[k] - want_hi[k]) > 1e-6f)
            fail_msg("bounds (%g %g %g)-(%g %g %g), expected (%g %g %g)-(%g %g %g)", lo[0], lo[1],
                     lo[2], hi[0], hi[1], hi[2], x0, y0, z0, x1, y1, z1);
}

static bool has_dependency(const test_import *r, const char *path) {
    return strlist_contains(&r->dependencies, path);
}

static void expect_no_dependency_containing(const test_import *r, const char *word) {
    for (size_t i = 0; i < r->dependencies.count; i++)
        if (strstr(r->dependencies.items[i], word) != NULL)
            fail_msg("dependency '%s' recorded", r->dependencies.items[i]);
}

/* ---------------------------------------------------------------------------
 * Fixtures
 * ------------------------------------------------------------------------- */

/* The unit cube as 6 quads, corners 0..7 = (x, y, z) bits. */
static const float CUBE_CORNERS[8][3] = {{0, 0, 0}, {0, 0, 1}, {0, 1, 1}, {0, 1, 0},
                                         {1, 0, 0}, {1, 0, 1}, {1, 1, 1}, {1, 1, 0}};
static const int CUBE_QUADS[6][4] = {{0, 1, 2, 3}, {7, 6, 5, 4}, {0, 4, 5, 1},
                                     {1, 5, 6, 2}, {2, 6, 7, 3}, {3, 7, 4, 0}};

static const char CUBE_PLY_ASCII[] = "ply\n"
                                     "format ascii 1.0\n"
                                     "comment written by test_assimp\n"
                                     "element vertex 8\n"
                                     "property float x\n"
                                     "property float y\n"
                                     "property float z\n"
                                     "element face 6\n"
                                     "property list uchar int vertex_indices\n"
                                     "end_header\n"
                                     "0 0 0\n0 0 1\n0 1 1\n0 1 0\n1 0 0\n1 0 1\n1 1 1\n1 1 0\n"
                                     "4 0 1 2 3\n4 7 6 5 4\n4 0 4 5 1\n"
                                     "4 1 5 6 2\n4 2 6 7 3\n4 3 7 4 0\n";

/* The same cube, binary little-endian, with a colour per vertex. */
static size_t cube_ply_binary(uint8_t *out, size_t cap) {
    static const char header[] = "ply\n"
                                 "format binary_little_endian 1.0\n"
                                 "element vertex 8\n"
                                 "property float x\n"
                                 "property float y\n"
                                 "property float z\n"
                                 "property uchar red\n"
                                 "property uchar green\n"
                                 "property uchar blue\n"
                                 "element face 6\n"
                                 "property list uchar int vertex_indices\n"
                                 "end_header\n";
    size_t n = strlen(header);
    assert_true(cap > n + 8 * 15 + 6 * 17);
    memcpy(out, header, n);
    for (int v = 0; v < 8; v++) {
        for (int k = 0; k < 3; k++) {
            float f = CUBE_CORNERS[v][k];
            uint32_t bits;
            memcpy(&bits, &f, 4);
            for (int b = 0; b < 4; b++)
                out[n++] = (uint8_t)(bits >> (8 * b));
        }
        out[n++] = 255;               /* red */
        out[n++] = (uint8_t)(v * 32); /* green */
        out[n++] = 0;                 /* blue */
    }
    for (int f = 0; f < 6; f++) {
        out[n++] = 4;
        for (int c = 0; c < 4; c++) {
            uint32_t index = (uint32_t)CUBE_QUADS[f][c];
            for (int b = 0; b < 4; b++)
                out[n++] = (uint8_t)(index >> (8 * b));
        }
    }
    return n;
}

/* An ASCII STL of the unit cube: 12 facets. */
static char *cube_stl(void) {
    size_t cap = 8192, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    n += (size_t)snprintf(text + n, cap - n, "solid cube\n");
    for (int f = 0; f < 6; f++) {
        static const int split[2][3] = {{0, 1, 2}, {0, 2, 3}};
        for (int t = 0; t < 2; t++) {
            n += (size_t)snprintf(text + n, cap - n, "  facet normal 0 0 0\n    outer loop\n");
            for (int c = 0; c < 3; c++) {
                const float *p = CUBE_CORNERS[CUBE_QUADS[f][split[t][c]]];
                n += (size_t)snprintf(text + n, cap - n, "      vertex %g %g %g\n", p[0], p[1],
                                      p[2]);
            }
            n += (size_t)snprintf(text + n, cap - n, "    endloop\n  endfacet\n");
        }
    }
    n += (size_t)snprintf(text + n, cap - n, "endsolid cube\n");
    assert_true(n < cap);
    return text;
}

/* COLLADA: a quad+2 triangles geometry with two materials placed by two nodes
 * (instancing) under a translated parent, and a triangle with a material
 * whose texture climbs out of the input root. */
static const char *const SCENE_DAE[] = {
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
    " <asset><unit name=\"meter\" meter=\"1\"/><up_axis>Y_UP</up_axis></asset>\n"
    " <library_images>\n"
    "  <image id=\"wood-img\"><init_from>tex/wood.png</init_from></image>\n"
    "  <image id=\"evil-img\"><init_from>../../../../../../../../etc/passwd</init_from></image>\n"
    " </library_images>\n"
    " <library_effects>\n"
    "  <effect id=\"red-fx\"><profile_COMMON><technique sid=\"common\"><phong>\n"
    "   <emission><color>0.5 0.25 0 1</color></emission>\n"
    "   <diffuse><color>1 0 0 1</color></diffuse>\n"
    "   <shininess><float>98</float></shininess>\n"
    "  </phong></technique></profile_COMMON></effect>\n"
    "  <effect id=\"wood-fx\"><profile_COMMON>\n"
    "   <newparam sid=\"wood-surface\"><surface type=\"2D\"><init_from>wood-img</init_from>"
    "</surface></newparam>\n"
    "   <newparam sid=\"wood-sampler\"><sampler2D><source>wood-surface</source></sampler2D>"
    "</newparam>\n"
    "   <technique sid=\"common\"><lambert>\n"
    "    <diffuse><texture texture=\"wood-sampler\" texcoord=\"UVMap\"/></diffuse>\n"
    "   </lambert></technique></profile_COMMON></effect>\n"
    "  <effect id=\"evil-fx\"><profile_COMMON>\n"
    "   <newparam sid=\"evil-surface\"><surface type=\"2D\"><init_from>evil-img</init_from>"
    "</surface></newparam>\n"
    "   <newparam sid=\"evil-sampler\"><sampler2D><source>evil-surface</source></sampler2D>"
    "</newparam>\n"
    "   <technique sid=\"common\"><lambert>\n"
    "    <diffuse><texture texture=\"evil-sampler\" texcoord=\"UVMap\"/></diffuse>\n"
    "   </lambert></technique></profile_COMMON></effect>\n"
    " </library_effects>\n",
    " <library_materials>\n"
    "  <material id=\"red\" name=\"red\"><instance_effect url=\"#red-fx\"/></material>\n"
    "  <material id=\"wood\" name=\"wood\"><instance_effect url=\"#wood-fx\"/></material>\n"
    "  <material id=\"evil\" name=\"evil\"><instance_effect url=\"#evil-fx\"/></material>\n"
    " </library_materials>\n"
    " <library_geometries>\n"
    "  <geometry id=\"quad\" name=\"quad\"><mesh>\n"
    "   <source id=\"quad-pos\"><float_array id=\"quad-pos-a\" count=\"18\">"
    "0 0 0 1 0 0 1 1 0 0 1 0 0 0 1 1 0 1</float_array>\n"
    "    <technique_common><accessor source=\"#quad-pos-a\" count=\"6\" stride=\"3\">"
    "<param name=\"X\" type=\"float\"/><param name=\"Y\" type=\"float\"/>"
    "<param name=\"Z\" type=\"float\"/></accessor></technique_common></source>\n"
    "   <vertices id=\"quad-vtx\"><input semantic=\"POSITION\" source=\"#quad-pos\"/></vertices>\n"
    "   <polylist material=\"red-sym\" count=\"1\"><input semantic=\"VERTEX\" "
    "source=\"#quad-vtx\" offset=\"0\"/><vcount>4</vcount><p>0 1 2 3</p></polylist>\n"
    "   <triangles material=\"wood-sym\" count=\"2\"><input semantic=\"VERTEX\" "
    "source=\"#quad-vtx\" offset=\"0\"/><p>0 1 4 1 5 4</p></triangles>\n"
    "  </mesh></geometry>\n"
    "  <geometry id=\"tri\" name=\"tri\"><mesh>\n"
    "   <source id=\"tri-pos\"><float_array id=\"tri-pos-a\" count=\"9\">"
    "0 0 0 1 0 0 0 1 0</float_array>\n"
    "    <technique_common><accessor source=\"#tri-pos-a\" count=\"3\" stride=\"3\">"
    "<param name=\"X\" type=\"float\"/><param name=\"Y\" type=\"float\"/>"
    "<param name=\"Z\" type=\"float\"/></accessor></technique_common></source>\n"
    "   <vertices id=\"tri-vtx\"><input semantic=\"POSITION\" source=\"#tri-pos\"/></vertices>\n"
    "   <triangles material=\"evil-sym\" count=\"1\"><input semantic=\"VERTEX\" "
    "source=\"#tri-vtx\" offset=\"0\"/><p>0 1 2</p></triangles>\n"
    "  </mesh></geometry>\n"
    " </library_geometries>\n",
    " <library_visual_scenes>\n"
    "  <visual_scene id=\"scene\" name=\"scene\">\n"
    "   <node id=\"parent\" name=\"parent\">\n"
    "    <translate>1 2 3</translate>\n"
    "    <node id=\"quad-node\" name=\"quad-node\">\n"
    "     <scale>2 2 2</scale>\n"
    "     <instance_geometry url=\"#quad\"><bind_material><technique_common>\n"
    "      <instance_material symbol=\"red-sym\" target=\"#red\"/>\n"
    "      <instance_material symbol=\"wood-sym\" target=\"#wood\"/>\n"
    "     </technique_common></bind_material></instance_geometry>\n"
    "    </node>\n"
    "    <node id=\"quad-copy\" name=\"quad-copy\">\n"
    "     <instance_geometry url=\"#quad\"><bind_material><technique_common>\n"
    "      <instance_material symbol=\"red-sym\" target=\"#red\"/>\n"
    "      <instance_material symbol=\"wood-sym\" target=\"#wood\"/>\n"
    "     </technique_common></bind_material></instance_geometry>\n"
    "    </node>\n"
    "   </node>\n"
    "   <node id=\"tri-node\" name=\"tri-node\">\n"
    "    <rotate>0 0 1 90</rotate>\n"
    "    <instance_geometry url=\"#tri\"><bind_material><technique_common>\n"
    "     <instance_material symbol=\"evil-sym\" target=\"#evil\"/>\n"
    "    </technique_common></bind_material></instance_geometry>\n"
    "   </node>\n"
    "  </visual_scene>\n"
    " </library_visual_scenes>\n"
    " <scene><instance_visual_scene url=\"#scene\"/></scene>\n"
    "</COLLADA>\n",
};

static char *scene_dae(void) {
    size_t size = 1;
    for (size_t i = 0; i < sizeof SCENE_DAE / sizeof SCENE_DAE[0]; i++)
        size += strlen(SCENE_DAE[i]);
    char *text = malloc(size);
    assert_non_null(text);
    text[0] = '\0';
    for (size_t i = 0; i < sizeof SCENE_DAE / sizeof SCENE_DAE[0]; i++)
        strcat(text, SCENE_DAE[i]);
    return text;
}

/* Valve SMD: two bones; vertices with one or two weights. */
static const char SKIN_SMD[] = "version 1\n"
                               "nodes\n"
                               "0 \"root\" -1\n"
                               "1 \"arm\" 0\n"
                               "end\n"
                               "skeleton\n"
                               "time 0\n"
                               "0 0 0 0 0 0 0\n"
                               "1 0 1 0 0 0 0\n"
                               "end\n"
                               "triangles\n"
                               "skin.bmp\n"
                               "0  0 0 0  0 0 1  0 0  1 0 1.0\n"
                               "0  1 0 0  0 0 1  1 0  2 0 0.25 1 0.75\n"
                               "0  0 2 0  0 0 1  0 1  1 1 1.0\n"
                               "skin.bmp\n"
                               "0  1 0 0  0 0 1  1 0  2 0 0.25 1 0.75\n"
                               "0  1 2 0  0 0 1  1 1  1 1 1.0\n"
                               "0  0 2 0  0 0 1  0 1  1 1 1.0\n"
                               "end\n";

/* ---------------------------------------------------------------------------
 * Registry
 * ------------------------------------------------------------------------- */

static void registry_sends_other_model_formats_to_assimp(void **state) {
    (void)state;
    static const char *const claimed[] = {"a/b/Hero.FBX", "scene.dae",  "ship.3ds",  "scan.ply",
                                          "part.stl",     "old.x",      "obj.lwo",   "level.blend",
                                          "m.md5mesh",    "m.mesh.xml", "print.3mf", "tri.off"};
    for (size_t i = 0; i < sizeof claimed / sizeof claimed[0]; i++) {
        const cook_importer *importer = cook_registry_match(claimed[i]);
        if (importer == NULL || strcmp(importer->name, "assimp") != 0)
            fail_msg("%s is not claimed by assimp", claimed[i]);
        assert_ptr_equal(importer->import, import_assimp);
        assert_int_equal(importer->kind, COOK_KIND_MODEL);
    }
    /* kiln's own importers keep their formats; generic names stay unclaimed. */
    assert_string_equal(cook_registry_match("crate.obj")->name, "obj");
    static const char *const unclaimed[] = {"notes.txt",    "data.xml", "height.raw", "mocap.bvh",
                                            "walk.md5anim", "plan.dxf", "a.mtl"};
    for (size_t i = 0; i < sizeof unclaimed / sizeof unclaimed[0]; i++)
        if (cook_registry_match(unclaimed[i]) != NULL)
            fail_msg("%s is claimed by %s", unclaimed[i], cook_registry_match(unclaimed[i])->name);
    const cook_importer *gltf = cook_registry_match("a.gltf");
    assert_true(gltf == NULL || strcmp(gltf->name, "assimp") != 0);
}

/* ---------------------------------------------------------------------------
 * Formats
 * ------------------------------------------------------------------------- */

static void ascii_ply_cube(void **state) {
    (void)state;
    char *dir = fresh_dir("ply_ascii");
    test_import r;
    import_text(&r, dir, "models/cube.ply", CUBE_PLY_ASCII);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->index_count, 3 * 12);
    assert_int_equal(mesh->vertex_count, 8);
    expect_bounds(mesh, 0, 0, 0, 1, 1, 1);
    assert_int_equal(mesh->submesh_count, 1);
    assert_int_equal(r.asset.material_count, 1);
    assert_null(mesh->normals); /* none in the file: the pipeline generates them */
    assert_null(mesh->texcoords[0]);
    assert_null(mesh->colors);
    assert_null(mesh->joints);
    /* A root node places the mesh. */
    assert_true(r.asset.node_count >= 1);
    uint32_t placed = 0;
    for (uint32_t i = 0; i < r.asset.node_count; i++)
        placed += r.asset.nodes[i].mesh == 0;
    assert_int_equal(placed, 1);
    /* Non-PBR default material through the MTL conversion: not metallic. */
    assert_true(r.asset.materials[0].metallic == 0.0f);
    assert_int_equal(r.dependencies.count, 0);
    test_import_free(&r);
    free(dir);
}

static void binary_ply_cube_matches_ascii(void **state) {
    (void)state;
    char *dir = fresh_dir("ply_binary");
    uint8_t bytes[1024];
    size_t size = cube_ply_binary(bytes, sizeof bytes);
    test_import binary, ascii;
    import_bytes(&binary, dir, "cube_binary.ply", bytes, size);
    import_text(&ascii, dir, "cube.ply", CUBE_PLY_ASCII);
    test_import_expect_ok(&binary);
    test_import_expect_ok(&ascii);
    test_check_asset(&binary.asset);
    const ir_mesh *b = only_mesh(&binary), *a = only_mesh(&ascii);
    assert_int_equal(b->index_count, a->index_count);
    assert_int_equal(b->vertex_count, a->vertex_count);
    for (uint32_t i = 0; i < a->index_count; i++)
        assert_memory_equal(b->positions + 3 * (size_t)b->indices[i],
                            a->positions + 3 * (size_t)a->indices[i], 3 * sizeof(float));
    /* Colours: uchar / 255, alpha 1. */
    assert_non_null(b->colors);
    for (uint32_t v = 0; v < b->vertex_count; v++) {
        assert_true(fabsf(b->colors[4 * v + 0] - 1.0f) < 1e-6f);
        assert_true(b->colors[4 * v + 2] == 0.0f);
        assert_true(fabsf(b->colors[4 * v + 3] - 1.0f) < 1e-6f);
    }
    test_import_free(&binary);
    test_import_free(&ascii);
    free(dir);
}

static void ascii_stl_cube(void **state) {
    (void)state;
    char *dir = fresh_dir("stl");
    char *stl = cube_stl();
    test_import r;
    import_text(&r, dir, "part.stl", stl);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->index_count, 3 * 12);
    assert_true(mesh->vertex_count >= 8 && mesh->vertex_count <= 36);
    expect_bounds(mesh, 0, 0, 0, 1, 1, 1);
    assert_int_equal(mesh->submesh_count, 1);
    assert_int_equal(r.asset.material_count, 1);
    test_import_free(&r);
    free(stl);
    free(dir);
}

static void off_pyramid_is_triangulated(void **state) {
    (void)state;
    char *dir = fresh_dir("off");
    test_import r;
    import_text(&r, dir, "pyramid.off",
                "OFF\n# a square pyramid\n5 5 0\n"
                "-1 0 -1\n1 0 -1\n1 0 1\n-1 0 1\n0 2 0\n"
                "4 0 1 2 3\n3 0 4 1\n3 1 4 2\n3 2 4 3\n3 3 4 0\n");
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->index_count, 3 * 6); /* the quad is 2 triangles */
    assert_int_equal(mesh->vertex_count, 5);
    expect_bounds(mesh, -1, 0, -1, 1, 2, 1);
    test_import_free(&r);
    free(dir);
}

static void dae_nodes_submeshes_materials_and_textures(void **state) {
    (void)state;
    char *dir = fresh_dir("dae");
    write_text(dir, "models/tex/wood.png", "not really a png");
    char *dae = scene_dae();
    test_import r;
    import_text(&r, dir, "models/scene.dae", dae);
    free(dae);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);

    /* Nodes: root, parent, quad-node, quad-copy, tri-node; parents first. */
    assert_int_equal(r.asset.node_count, 5);
    const ir_node *nodes = r.asset.nodes;
    assert_string_equal(nodes[1].name, "parent");
    assert_int_equal(nodes[1].parent, 0);
    assert_true(nodes[1].translation[0] == 1.0f && nodes[1].translation[1] == 2.0f &&
                nodes[1].translation[2] == 3.0f);
    /* Column-major: the translation is in elements 12..14. */
    assert_true(nodes[1].matrix[12] == 1.0f && nodes[1].matrix[13] == 2.0f &&
                nodes[1].matrix[14] == 3.0f && nodes[1].matrix[3] == 0.0f);
    assert_string_equal(nodes[2].name, "quad-node");
    assert_int_equal(nodes[2].parent, 1);
    assert_true(nodes[2].scale[0] == 2.0f && nodes[2].scale[1] == 2.0f &&
                nodes[2].scale[2] == 2.0f);
    assert_string_equal(nodes[3].name, "quad-copy");
    assert_string_equal(nodes[4].name, "tri-node");
    assert_int_equal(nodes[4].parent, 0);
    /* rotate 90 degrees about z: quaternion (0, 0, sin 45, cos 45). */
    assert_true(fabsf(nodes[4].rotation[2] - (float)M_SQRT1_2) < 1e-6f);
    assert_true(fabsf(nodes[4].rotation[3] - (float)M_SQRT1_2) < 1e-6f);
    assert_true(fabsf(nodes[4].matrix[1] - 1.0f) < 1e-6f); /* x axis -> +y */

    /* Two nodes place the same geometry: one mesh, shared. */
    assert_int_equal(r.asset.mesh_count, 2);
    assert_int_equal(nodes[0].mesh, -1);
    assert_int_equal(nodes[1].mesh, -1);
    assert_int_equal(nodes[2].mesh, 0);
    assert_int_equal(nodes[3].mesh, 0);
    assert_int_equal(nodes[4].mesh, 1);
    const ir_mesh *quad = &r.asset.meshes[0];
    assert_int_equal(quad->index_count, 3 * 4);
    assert_int_equal(quad->submesh_count, 2); /* one per material */
    assert_int_equal(quad->submeshes[0].index_count, 6);
    assert_int_equal(quad->submeshes[1].index_count, 6);
    expect_bounds(quad, 0, 0, 0, 1, 1, 1);

    /* Materials: dense, in order of first use. */
    assert_int_equal(r.asset.material_count, 3);
    const ir_material *red = &r.asset.materials[quad->submeshes[0].material];
    const ir_material *wood = &r.asset.materials[quad->submeshes[1].material];
    const ir_material *evil = &r.asset.materials[r.asset.meshes[1].submeshes[0].material];
    assert_string_equal(red->name, "red");
    assert_string_equal(wood->name, "wood");
    assert_string_equal(evil->name, "evil");
    /* Phong → metallic-roughness with the MTL rules. */
    assert_true(red->base_color[0] == 1.0f && red->base_color[1] == 0.0f &&
                red->base_color[3] == 1.0f);
    assert_true(red->metallic == 0.0f);
    assert_true(fabsf(red->roughness - sqrtf(2.0f / 100.0f)) < 1e-6f); /* Ns 98 */
    assert_true(red->emissive[0] == 0.5f && red->emissive[1] == 0.25f);
    assert_int_equal(red->alpha_mode, IR_ALPHA_OPAQUE);
    assert_true(wood->roughness == 1.0f); /* lambert: no specular lobe */
    /* The texture resolved inside the input root and recorded. */
    assert_true(wood->textures[IR_SLOT_BASE_COLOR].image >= 0);
    assert_string_equal(r.asset.images[wood->textures[IR_SLOT_BASE_COLOR].image].path,
                        "models/tex/wood.png");
    assert_true(has_dependency(&r, "models/tex/wood.png"));
    /* The one climbing out: refused, a warning, never recorded. */
    assert_int_equal(evil->textures[IR_SLOT_BASE_COLOR].image, -1);
    expect_message(&r, "models/scene.dae: warning: texture '../../../../../../../../etc/passwd' "
                       "of material 'evil' cannot be used");
    expect_no_dependency_containing(&r, "passwd");
    test_import_free(&r);
    free(dir);
}

/* DCC tools write the artist's absolute paths; the file of that name next to
 * the source is used (never the absolute path itself). */
static void absolute_texture_paths_fall_back_to_the_source_folder(void **state) {
    (void)state;
    char *dir = fresh_dir("dae_absolute");
    write_text(dir, "models/wood.png", "not really a png");
    char *dae = scene_dae();
    const char *from = "<init_from>tex/wood.png</init_from>";
    const char *to = "<init_from>file:///C:/Users/artist/My%20Project/wood.png</init_from>";
    char *at = strstr(dae, from);
    assert_non_null(at);
    size_t size = strlen(dae) - strlen(from) + strlen(to) + 1;
    char *edited = malloc(size);
    assert_non_null(edited);
    snprintf(edited, size, "%.*s%s%s", (int)(at - dae), dae, to, at + strlen(from));
    test_import r;
    import_text(&r, dir, "models/scene.dae", edited);
    test_import_expect_ok(&r);
    const ir_mesh *quad = &r.asset.meshes[0];
    const ir_material *wood = &r.asset.materials[quad->submeshes[1].material];
    assert_string_equal(wood->name, "wood");
    assert_true(wood->textures[IR_SLOT_BASE_COLOR].image >= 0);
    assert_string_equal(r.asset.images[wood->textures[IR_SLOT_BASE_COLOR].image].path,
                        "models/wood.png");
    assert_true(has_dependency(&r, "models/wood.png"));
    test_import_free(&r);
    free(edited);
    free(dae);
    free(dir);
}

static void smd_skin_has_joints_and_weights(void **state) {
    (void)state;
    char *dir = fresh_dir("smd");
    test_import r;
    import_text(&r, dir, "skin.smd", SKIN_SMD);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->index_count, 6);
    assert_non_null(mesh->joints);
    assert_non_null(mesh->weights);
    int32_t root = -1, arm = -1;
    for (uint32_t i = 0; i < r.asset.node_count; i++) {
        if (r.asset.nodes[i].name && strcmp(r.asset.nodes[i].name, "root") == 0)
            root = (int32_t)i;
        if (r.asset.nodes[i].name && strcmp(r.asset.nodes[i].name, "arm") == 0)
            arm = (int32_t)i;
    }
    assert_true(root >= 0 && arm > root);
    assert_int_equal(r.asset.nodes[arm].parent, root);
    /* Joint indices name the joints of the mesh's skin, whose joints are the
     * bones' nodes; the shared vertex (1 0 0) is 1/4 root, 3/4 arm; the
     * others belong to one bone. */
    assert_int_equal(r.asset.skin_count, 1);
    const ir_skin *skin = &r.asset.skins[0];
    bool found_shared = false;
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        const float *p = mesh->positions + 3 * v;
        const uint16_t *j = mesh->joints + 4 * v;
        const float *w = mesh->weights + 4 * v;
        float root_weight = 0.0f, arm_weight = 0.0f;
        for (int k = 0; k < 4; k++) {
            int32_t node = j[k] < skin->joint_count ? (int32_t)skin->joints[j[k]] : -1;
            if (w[k] > 0.0f && node == root)
                root_weight += w[k];
            else if (w[k] > 0.0f && node == arm)
                arm_weight += w[k];
            else
                assert_true(w[k] == 0.0f);
        }
        if (p[0] == 1.0f && p[1] == 0.0f) {
            found_shared = true;
            assert_true(fabsf(root_weight - 0.25f) < 1e-6f && fabsf(arm_weight - 0.75f) < 1e-6f);
        } else if (p[1] == 0.0f) {
            assert_true(root_weight == 1.0f);
        } else {
            assert_true(arm_weight == 1.0f);
        }
    }
    assert_true(found_shared);
    /* Its texture is not there: a warning, not an error. */
    expect_message(&r, "texture 'skin.bmp' of material");
    test_import_free(&r);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * Problems
 * ------------------------------------------------------------------------- */

static void unreadable_files_are_clear_errors(void **state) {
    (void)state;
    char *dir = fresh_dir("corrupt");
    test_import r;
    import_text(&r, dir, "models/bad.ply", "this is not a ply file\n");
    expect_error(&r, "models/bad.ply: error: assimp could not read this file: ");
    test_import_free(&r);

    /* Binary PLY cut short in the middle of the vertices. */
    uint8_t bytes[1024];
    size_t size = cube_ply_binary(bytes, sizeof bytes);
    import_bytes(&r, dir, "cut.ply", bytes, size - 150);
    expect_error(&r, "cut.ply:3: error: bad PLY header: element 'vertex' declares 8 elements");
    test_import_free(&r);

    static const uint8_t noise[] = {0x4b, 0x61, 0x79, 0x64, 0x61, 0x72, 0x61, 0x00, 0xff, 0xfe,
                                    0x13, 0x37, 0x00, 0x00, 0x01, 0x02, 0x80, 0x81, 0x82, 0x83};
    import_bytes(&r, dir, "hero.fbx", noise, sizeof noise);
    expect_error(&r, "hero.fbx: error: assimp could not read this file: ");
    test_import_free(&r);

    /* A face using a vertex that does not exist fails validation. */
    import_text(&r, dir, "range.ply",
                "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                "property float z\nelement face 1\nproperty list uchar int vertex_indices\n"
                "end_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n");
    expect_error(&r, "range.ply: error: assimp could not read this file: Validation failed");
    test_import_free(&r);
    free(dir);
}

/* assimp sizes PLY/OFF arrays from header counts before reading data: a tiny
 * file claiming billions of elements must fail before that allocation. */
static void header_counts_beyond_the_file_are_refused(void **state) {
    (void)state;
    char *dir = fresh_dir("counts");
    test_import r;
    import_text(&r, dir, "huge.ply",
                "ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\n"
                "property float x\nproperty float y\nproperty float z\nend_header\n");
    expect_error(&r, "huge.ply:3: error: bad PLY header: its elements number more than");
    test_import_free(&r);
    import_text(&r, dir, "huge.off", "OFF\n3 4000000000 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
    expect_error(&r, "huge.off:2: error: bad OFF header: it declares 4000000000 elements");
    test_import_free(&r);
    /* Only the counts are checked, not the coordinates after them. */
    import_text(&r, dir, "big.off", "OFF\n3 1 0\n5000 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
    test_import_expect_ok(&r);
    expect_bounds(only_mesh(&r), 0, 0, 0, 5000, 1, 0);
    test_import_free(&r);
    free(dir);
}

/* A PLY of vertices alone is a point cloud: assimp's validation refuses its
 * faceless mesh, so it is read again and its vertices cooked as points. */
static void ply_of_vertices_alone_is_a_point_cloud(void **state) {
    (void)state;
    char *dir = fresh_dir("points");
    test_import r;
    import_text(&r, dir, "points.ply",
                "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
                "property float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\n"
                "end_header\n0 0 0 255 0 0\n1 0 0 0 255 0\n0 1 0 0 0 255\n0 0 nan 9 9 9\n");
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->submesh_count, 1);
    assert_int_equal(mesh->submeshes[0].topology, KILN_TOPOLOGY_POINTS);
    assert_int_equal(mesh->index_count, 3); /* the non-finite vertex is dropped */
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(mesh->indices[i], i);
    assert_non_null(mesh->colors);
    assert_true(mesh->colors[4 * 1 + 1] == 1.0f);
    assert_null(mesh->normals);
    expect_message(&r, "points.ply: note: a mesh without faces is cooked as a point cloud");
    expect_message(&r, "1 points dropped");
    test_import_free(&r);

    /* A scene with a node and nothing in it. */
    import_text(&r, dir, "empty.dae",
                "<?xml version=\"1.0\"?>\n"
                "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" "
                "version=\"1.4.1\">\n"
                " <library_visual_scenes><visual_scene id=\"s\"><node id=\"n\" name=\"n\"/>"
                "</visual_scene></library_visual_scenes>\n"
                " <scene><instance_visual_scene url=\"#s\"/></scene>\n"
                "</COLLADA>\n");
    test_import_expect_ok(&r);
    assert_int_equal(r.asset.mesh_count, 0);
    expect_message(&r, "empty.dae: warning: nothing to cook");
    test_import_free(&r);
    free(dir);
}

/* Textures kiln's material has no slot for (specular, height beside a normal
 * map, displacement, ambient) are named in a warning each; a height map alone
 * is the normal map and says nothing. A camera alone is not "nothing to cook". */
static void unused_textures_are_named_and_cameras_are_content(void **state) {
    (void)state;
    char *dir = fresh_dir("unused_textures");
    write_text(dir, "m.mtl",
               "newmtl shiny\nKd 1 1 1\nmap_Ks spec.png\nnorm n.png\nmap_bump h.png\n"
               "disp d.png\nmap_Ka a.png\n"
               "newmtl bumpy\nKd 1 1 1\nmap_bump only_height.png\n");
    test_import r;
    import_text(&r, dir, "m.obj",
                "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl shiny\nf 1 2 3\n"
                "o second\nusemtl bumpy\nf 1 2 3\n");
    test_import_expect_ok(&r);
    expect_message(&r, "material 'shiny': specular map 'spec.png' is not cooked");
    expect_message(&r, "material 'shiny': displacement map 'd.png' is not cooked");
    expect_message(&r, "material 'shiny': ambient map 'a.png' is not cooked");
    assert_null(strstr(test_import_messages(&r), "only_height.png' is not cooked"));
    test_import_free(&r);

    import_text(&r, dir, "camera.dae",
                "<?xml version=\"1.0\"?>\n"
                "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" "
                "version=\"1.4.1\">\n"
                " <library_cameras><camera id=\"c\" name=\"c\"><optics><technique_common>"
                "<perspective><yfov>40</yfov><aspect_ratio>1.5</aspect_ratio><znear>0.1</znear>"
                "<zfar>100</zfar></perspective></technique_common></optics></camera>"
                "</library_cameras>\n"
                " <library_visual_scenes><visual_scene id=\"s\"><node id=\"n\" name=\"n\">"
                "<instance_camera url=\"#c\"/></node></visual_scene></library_visual_scenes>\n"
                " <scene><instance_visual_scene url=\"#s\"/></scene>\n"
                "</COLLADA>\n");
    test_import_expect_ok(&r);
    assert_int_equal(r.asset.mesh_count, 0);
    assert_int_equal(r.asset.camera_count, 1);
    assert_null(strstr(test_import_messages(&r), "the scene has no meshes"));
    test_import_free(&r);
    free(dir);
}

/* assimp's line and point faces (its OBJ reader makes segments of an l and
 * one-corner faces of a p; SortByPType puts each kind in its own aiMesh):
 * one submesh per topology, normals kept for the triangles. */
static void line_and_point_faces_are_cooked(void **state) {
    (void)state;
    char *dir = fresh_dir("lines");
    test_import r;
    import_text(&r, dir, "mixed.obj",
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 5 5 5\nvn 0 0 1\n"
                "f 1//1 2//1 3//1\nl 1 2 4\np 4 3\n");
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    const ir_mesh *mesh = only_mesh(&r);
    uint32_t seen[KILN_TOPOLOGY_COUNT_] = {0, 0, 0};
    for (uint32_t s = 0; s < mesh->submesh_count; s++)
        seen[mesh->submeshes[s].topology] += mesh->submeshes[s].index_count;
    assert_int_equal(seen[KILN_TOPOLOGY_TRIANGLES], 3);
    assert_int_equal(seen[KILN_TOPOLOGY_LINES], 4); /* 1-2, 2-4 */
    assert_int_equal(seen[KILN_TOPOLOGY_POINTS], 2);
    assert_non_null(mesh->normals); /* the triangle's; the others get +Z */
    for (uint32_t v = 0; v < mesh->vertex_count; v++)
        assert_true(mesh->normals[3 * v + 2] == 1.0f);
    test_import_free(&r);

    /* Lines alone: no normals are made up. */
    import_text(&r, dir, "lines.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nl 1 2 3\n");
    test_import_expect_ok(&r);
    mesh = only_mesh(&r);
    assert_int_equal(mesh->submesh_count, 1);
    assert_int_equal(mesh->submeshes[0].topology, KILN_TOPOLOGY_LINES);
    assert_int_equal(mesh->index_count, 4);
    assert_null(mesh->normals);
    test_import_free(&r);
    free(dir);
}

/* Everything assimp opens goes through the input root: a side file outside
 * it (by a climbing path, an absolute path or a symlink) is never read nor
 * recorded, one inside is read and recorded. OBJ is used here because
 * assimp's OBJ reader opens its .mtl libraries itself. */
static void assimp_reads_only_inside_the_input_root(void **state) {
    (void)state;
    char *base = fresh_dir("confined");
    char *root = test_path_join(base, "root");
    mkdir(root, 0755);
    /* Outside the root: a library that would turn 'evil' red. */
    write_text(base, "outside.mtl", "newmtl evil\nKd 1 0 0\n");
    char *outside = test_path_join(base, "outside.mtl");
    char *link = test_path_join(root, "m/link.mtl");
    write_text(root, "m/good.mtl", "newmtl good\nKd 0 1 0\nmap_Kd ../../outside.mtl\n");
    assert_int_equal(symlink(outside, link), 0);
    char obj[2048];
    snprintf(obj, sizeof obj,
             "mtllib ../../outside.mtl\n"
             "mtllib %s\n"
             "mtllib link.mtl\n"
             "mtllib good.mtl\n"
             "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n"
             "usemtl evil\nf 1 2 3\n"
             "usemtl good\nf 2 4 3\n",
             outside);
    test_import r;
    import_text(&r, root, "m/model.obj", obj);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    assert_true(has_dependency(&r, "m/good.mtl"));
    expect_no_dependency_containing(&r, "outside");
    expect_no_dependency_containing(&r, "link");
    for (uint32_t m = 0; m < r.asset.material_count; m++) {
        const ir_material *material = &r.asset.materials[m];
        if (strcmp(material->name, "evil") == 0)
            assert_false(material->base_color[0] == 1.0f && material->base_color[1] == 0.0f);
        if (strcmp(material->name, "good") == 0) {
            assert_true(material->base_color[1] == 1.0f);
            assert_int_equal(material->textures[IR_SLOT_BASE_COLOR].image, -1); /* climbs out */
        }
    }
    test_import_free(&r);

    /* When the import fails, the refused names are listed as notes. */
    import_text(&r, root, "m/broken.obj", "mtllib ../../outside.mtl\nv 0 0 0\nv 1 0 0\nf 1 2 9\n");
    assert_false(r.ok);
    expect_message(&r, "m/broken.obj: error: assimp could not read this file: ");
    expect_message(&r, "m/broken.obj: note: assimp asked for ");
    expect_message(&r, "leaves the input folder");
    expect_no_dependency_containing(&r, "outside");
    test_import_free(&r);
    free(link);
    free(outside);
    free(root);
    free(base);
}

/* ---------------------------------------------------------------------------
 * Threads
 * ------------------------------------------------------------------------- */

typedef struct thread_job {
    const char *dir;
    int failures;
} thread_job;

static void *import_many(void *arg) {
    thread_job *job = arg;
    for (int i = 0; i < 12; i++) {
        test_import r;
        import_text(&r, job->dir, "cube.ply", CUBE_PLY_ASCII);
        if (!r.ok || r.asset.mesh_count != 1 || r.asset.meshes[0].index_count != 36)
            job->failures++;
        test_import_free(&r);
        /* assimp's own error (kiln's pre-check passes the file on): the
         * text must be this import's own, not another thread's. */
        import_text(&r, job->dir, "bad.ply", "not a ply file\n");
        if (r.ok || strstr(test_import_messages(&r),
                           "bad.ply: error: assimp could not read this file: ") == NULL)
            job->failures++;
        test_import_free(&r);
    }
    return NULL;
}

static void imports_run_in_parallel(void **state) {
    (void)state;
    char *dir = fresh_dir("threads");
    enum { THREADS = 6 };
    pthread_t threads[THREADS];
    thread_job jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (thread_job){dir, 0};
        assert_int_equal(pthread_create(&threads[t], NULL, import_many, &jobs[t]), 0);
    }
    int failures = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        failures += jobs[t].failures;
    }
    assert_int_equal(failures, 0);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * Pre-checks (assimp_precheck): what assimp 5.2 loops, crashes or allocates on
 * ------------------------------------------------------------------------- */

/* assimp_precheck on `bytes`; the messages in *d (freed by the caller). */
static bool precheck(cook_diag *d, const char *path, const void *bytes, size_t size) {
    *d = (cook_diag){0};
    uint8_t *rewritten = NULL;
    bool ok = assimp_precheck(bytes, size, path, d, &rewritten);
    free(rewritten);
    return ok;
}

static const char *messages_of(const cook_diag *d) {
    return d->text.data != NULL ? (const char *)d->text.data : "";
}

/* Refused with one error that starts with `prefix` ("path:line: error: ..."). */
static void expect_refused(const char *path, const void *bytes, size_t size, const char *prefix) {
    cook_diag d;
    bool ok = precheck(&d, path, bytes, size);
    if (ok || d.errors != 1 || strncmp(messages_of(&d), prefix, strlen(prefix)) != 0)
        fail_msg("%s: expected \"%s\", got %s:\n%s", path, prefix, ok ? "ok" : "refused",
                 messages_of(&d));
    diag_free(&d);
}

static void expect_passes(const char *path, const void *bytes, size_t size) {
    cook_diag d;
    if (!precheck(&d, path, bytes, size) || d.errors != 0)
        fail_msg("%s: expected it to pass, got:\n%s", path, messages_of(&d));
    diag_free(&d);
}

static void expect_text_refused(const char *path, const char *text, const char *prefix) {
    expect_refused(path, text, strlen(text), prefix);
}

static void expect_text_passes(const char *path, const char *text) {
    expect_passes(path, text, strlen(text));
}

/* The headers assimp loops forever on (tests/fuzz/regressions/assimp-hangs/)
 * and well-formed variants it reads. */
static void precheck_refuses_ply_headers_without_end_header(void **state) {
    (void)state;
    const char *header = "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n";
    expect_text_refused("cut.ply", header,
                        "cut.ply:4: error: bad PLY header: the file ends before an 'end_header'");
    expect_text_refused("c.ply", "ply\nformat ascii 1.0\ncomment",
                        "c.ply:3: error: bad PLY header: the file ends before");
    expect_text_refused("e.ply", "ply\nformat ascii 1.0\nelement",
                        "e.ply:3: error: bad PLY header: an element without a name");
    char text[512];
    snprintf(text, sizeof text, "%send_headerX\n0\n", header);
    expect_text_refused("x.ply", text,
                        "x.ply:5: error: bad PLY header: 'end_headerX' is not an 'end_header'");
    snprintf(text, sizeof text, "%sEND_HEADER\n0\n", header);
    expect_text_refused("upper.ply", text,
                        "upper.ply:5: error: bad PLY header: 'END_HEADER' is not a header keyword");
    /* assimp skips a line of no keyword it knows: a mangled property is lost
     * and the data misread (tests/fuzz/regressions/assimp-crashes/). */
    snprintf(text, sizeof text, "%spropert<y float y\nend_header\n0 0\n", header);
    expect_text_refused(
        "mangled.ply", text,
        "mangled.ply:5: error: bad PLY header: 'propert<y' is not a header keyword");
    snprintf(text, sizeof text, "%scomment end_header\n0\n", header);
    expect_text_refused("comment.ply", text,
                        "comment.ply:6: error: bad PLY header: '0' is not a header keyword");
    snprintf(text, sizeof text, "%send_header junk\n0\n", header);
    expect_text_refused("junk.ply", text,
                        "junk.ply:5: error: bad PLY header: text after 'end_header'");
    /* A lone CR, NUL or form feed ends a line for assimp, not for kiln. */
    snprintf(text, sizeof text, "%send_header\r0\n", header);
    expect_text_refused("cr.ply", text, "cr.ply:5: error: bad PLY header: byte 0x0d");
    static const char nul[] = "ply\nformat ascii 1.0\ncomment a\0b\nend_header\n";
    expect_refused("nul.ply", nul, sizeof nul - 1, "nul.ply:3: error: bad PLY header: byte 0x00");
    expect_text_refused("f.ply", "ply\nformat ascii 2.0 \f\nend_header\n",
                        "f.ply:2: error: bad PLY header: byte 0x0c");
    expect_text_refused("fmt.ply", "ply\nformat nonsense 9\nend_header\n",
                        "fmt.ply:2: error: bad PLY header: format 'nonsense' is not");
    expect_text_refused("nofmt.ply", "ply\nelement vertex 0\nend_header\n",
                        "nofmt.ply:2: error: bad PLY header: an element before the 'format'");
    expect_text_refused("count.ply", "ply\nformat ascii 1.0\nelement vertex\nend_header\n",
                        "count.ply:3: error: bad PLY header: element 'vertex' has no count");
    /* A header past 64 KiB: the line where the limit passed. */
    size_t big = (64u << 10) + 100, n = 0;
    char *long_header = malloc(big + 64);
    assert_non_null(long_header);
    n += (size_t)snprintf(long_header, big, "ply\nformat ascii 1.0\n");
    uint32_t lines = 2;
    while (n + 40 < big) {
        memcpy(long_header + n, "comment 0123456789012345678901234567\n", 37);
        n += 37;
        lines++;
    }
    memcpy(long_header + n, "end_header\n", 11);
    n += 11;
    char prefix[96];
    /* The line that ends past 64 KiB: the first whose end is at 65536 or later. */
    uint32_t expected = 2 + (uint32_t)(((64u << 10) - 21) / 37) + 1;
    snprintf(prefix, sizeof prefix, "long.ply:%u: error: bad PLY header: no 'end_header' line in",
             expected);
    expect_refused("long.ply", long_header, n, prefix);
    free(long_header);
    (void)lines;

    /* What is well formed passes: blanks around end_header, CRLF, comments,
     * unknown keywords, no data for no elements, end of file after it. */
    snprintf(text, sizeof text, "%s  end_header \t\n0\n", header);
    expect_text_passes("blanks.ply", text);
    expect_text_passes("crlf.ply", "ply\r\nformat ascii 1.0\r\ncomment x\r\nobj_info y\r\n"
                                   "element vertex 1\r\nproperty float x\r\nend_header\r\n7\r\n");
    expect_text_passes("empty.ply", "PLY\nformat ascii 1.0\nend_header");
    expect_text_passes("cube.ply", CUBE_PLY_ASCII);
    /* Any name, when it starts "ply" and a line end, as assimp sniffs it. */
    expect_text_refused("model.bin", "ply\nformat ascii 1.0\n",
                        "model.bin:2: error: bad PLY header: the file ends before");
    /* No other format assimp reads starts with the letters but a binary STL
     * (its free header, below); another name with them is checked as PLY,
     * since assimp may choose its reader by content. */
    expect_text_refused("plywood.dae", "plywood",
                        "plywood.dae:1: error: bad PLY header: the first line is not 'ply'");
}

/* Counts: in ASCII each value takes a byte; binary data is walked. */
static void precheck_checks_ply_counts_against_the_data(void **state) {
    (void)state;
    expect_text_refused("huge.ply",
                        "ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\n"
                        "property float x\nend_header\n",
                        "huge.ply:3: error: bad PLY header: its elements number more than");
    /* 2 vertices of 3 values need 6 bytes: 5 are there, then 6. */
    expect_text_refused("ascii.ply",
                        "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\n"
                        "property float y\nproperty float z\nend_header\n1 2 3",
                        "ascii.ply:7: error: bad PLY header: its elements hold 6 values, but 5");
    expect_text_passes("ascii.ply", "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\n"
                                    "property float y\nproperty float z\nend_header\n1 2 3 ");

    /* Every truncation of the binary cube is refused, the whole file and the
     * file with bytes after it pass. */
    uint8_t bytes[1024];
    size_t size = cube_ply_binary(bytes, sizeof bytes);
    size_t header =
        (size_t)((const uint8_t *)strstr((const char *)bytes, "end_header\n") + 11 - bytes);
    assert_int_equal(size - header, 8 * 15 + 6 * 17);
    for (size_t cut = header; cut < size; cut++) {
        cook_diag d;
        assert_false(precheck(&d, "cut.ply", bytes, cut));
        const char *text = messages_of(&d);
        /* The vertices (line 3) while they are short, then the faces (line 10). */
        const char *line = cut < header + 8 * 15 ? "cut.ply:3: error: " : "cut.ply:10: error: ";
        if (strncmp(text, line, strlen(line)) != 0 || d.errors != 1)
            fail_msg("cut at %zu: %s", cut, text);
        diag_free(&d);
    }
    expect_passes("cube.ply", bytes, size);
    memcpy(bytes + size, "tail", 4);
    expect_passes("tail.ply", bytes, size + 4);

    /* A list's count is read in the file's byte order: 00 03 is 3 in big
     * endian (3 indices of 4 bytes follow), 768 in little endian. */
    static const char be_header[] = "ply\nformat binary_big_endian 1.0\nelement face 1\n"
                                    "property list ushort uint vertex_indices\nend_header\n";
    uint8_t face[sizeof be_header + 14];
    memcpy(face, be_header, sizeof be_header - 1);
    uint8_t *data = face + sizeof be_header - 1;
    static const uint8_t list[14] = {0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2};
    memcpy(data, list, sizeof list);
    expect_passes("be.ply", face, sizeof face);
    static const char le[] = "binary_little_endian";
    char le_header[sizeof be_header + 8];
    snprintf(le_header, sizeof le_header,
             "ply\nformat %s 1.0\nelement face 1\n"
             "property list ushort uint vertex_indices\nend_header\n",
             le);
    uint8_t le_face[sizeof le_header + 14];
    size_t le_size = strlen(le_header);
    memcpy(le_face, le_header, le_size);
    memcpy(le_face + le_size, list, sizeof list);
    expect_refused("le.ply", le_face, le_size + sizeof list,
                   "le.ply:3: error: bad PLY header: the binary data ends inside element 'face' 0");
    /* A negative list length, an unknown type, a float count type. */
    static const uint8_t negative[] = "ply\nformat binary_big_endian 1.0\nelement face 1\n"
                                      "property list short uint i\nend_header\n\xff\xff";
    expect_refused("neg.ply", negative, sizeof negative - 1,
                   "neg.ply:3: error: bad PLY header: element 'face' 0 has a list of a negative");
    expect_text_refused("type.ply",
                        "ply\nformat binary_little_endian 1.0\nelement vertex 1\n"
                        "property floax x\nend_header\n\0\0\0\0",
                        "type.ply:4: error: bad PLY header: property type 'floax' is not one");
    expect_text_refused("count.ply",
                        "ply\nformat binary_little_endian 1.0\nelement face 1\n"
                        "property list float int i\nend_header\n",
                        "count.ply:4: error: bad PLY header: a list's count type 'float'");
    /* assimp's PLY reader takes any file starting with "ply" when it picks
     * the reader by content (a name no reader claims): "ply" then a byte
     * and no end_header looped in it. A binary STL's free 80-byte header
     * may start with the letters: .stl has its own reader. */
    expect_text_refused("fuzz.model", "ply\xd0\nformat ascii 1.0\nelement vertex 1\n",
                        "fuzz.model:1: error: bad PLY header: the first line is not 'ply'");
    expect_text_refused("fuzz.model", "PLYX\nformat ascii 1.0\n",
                        "fuzz.model:1: error: bad PLY header: the first line is not 'ply'");
    uint8_t stl[84 + 50] = "ply exporter 1.0";
    stl[80] = 1; /* one triangle, little-endian */
    expect_passes("part.stl", stl, sizeof stl);
    /* In ASCII an unknown type is assimp's to read (it skips the value). */
    expect_text_passes("type.ply", "ply\nformat ascii 1.0\nelement vertex 1\n"
                                   "property floax x\nend_header\n1\n");
}

/* An AC3D object of `corners` surface corners subdivided `levels` times. */
static void ac3d_object(bytebuf *out, uint32_t levels, uint32_t corners) {
    bytebuf_printf(out, "OBJECT poly\nname \"p\"\nsubdiv %u\nnumvert %u\n", levels, corners);
    for (uint32_t v = 0; v < corners; v++) /* a convex polygon */
        bytebuf_printf(out, "%.6f 0 %.6f\n", cos(6.2831853 * v / corners),
                       sin(6.2831853 * v / corners));
    bytebuf_printf(out, "numsurf 1\nSURF 0x10\nmat 0\nrefs %u\n", corners);
    for (uint32_t v = 0; v < corners; v++)
        bytebuf_printf(out, "%u 0 0\n", v);
    bytebuf_printf(out, "kids 0\n");
}

/* Faces of `corners` polygon corners subdivided `levels` times, counted one
 * level at a time (n quads for an n-gon, then 4 for each quad). */
static uint64_t subdivided_faces(uint64_t corners, uint32_t levels) {
    uint64_t faces = 0;
    for (uint32_t l = 1; l <= levels; l++)
        faces = l == 1 ? corners : faces * 4;
    return faces;
}

/* The pre-check on `text`: passes with `warnings` warnings (the first
 * starting with `warning`, when given) and rewrites it to `expected`
 * (NULL: no rewrite). */
static void expect_ac3d(const char *path, const void *text, size_t size, const char *expected,
                        uint32_t warnings, const char *warning) {
    cook_diag d = {0};
    uint8_t *rewritten = NULL;
    bool ok = assimp_precheck(text, size, path, &d, &rewritten);
    if (!ok || d.errors != 0 || d.warnings != warnings ||
        (warning != NULL && strstr(messages_of(&d), warning) != messages_of(&d)))
        fail_msg("%s: expected %u warnings (\"%s\"), got %s:\n%s", path, warnings,
                 warning ? warning : "", ok ? "ok" : "refused", messages_of(&d));
    if (expected == NULL) {
        assert_null(rewritten);
    } else {
        assert_non_null(rewritten);
        assert_memory_equal(rewritten, expected, size);
    }
    free(rewritten);
    diag_free(&d);
}

/* `text` with every `from` replaced by `to` (of the same length). */
static char *replaced(const char *text, size_t size, const char *from, const char *to) {
    assert_int_equal(strlen(from), strlen(to));
    char *out = malloc(size + 1);
    assert_non_null(out);
    memcpy(out, text, size);
    out[size] = '\0';
    for (char *p = out; (p = strstr(p, from)) != NULL; p += strlen(from))
        memcpy(p, to, strlen(to));
    return out;
}

static void precheck_lowers_ac3d_subdivision_past_the_bound(void **state) {
    (void)state;
    const uint64_t limit = 1u << 16;
    /* The deepest subdivision of a 7-corner polygon within 2^16 faces. */
    uint32_t deepest = 1;
    while (subdivided_faces(7, deepest + 1) <= limit)
        deepest++;
    assert_int_equal(deepest, 7);
    bytebuf file = {0};
    bytebuf_printf(&file, "AC3Db\nOBJECT world\nkids 1\n");
    ac3d_object(&file, deepest, 7);
    expect_ac3d("ok.ac", file.data, file.size, NULL, 0, NULL);
    bytebuf_free(&file);

    /* One level more: lowered to the deepest, the number rewritten. */
    bytebuf_printf(&file, "AC3Db\nOBJECT world\nkids 1\n");
    ac3d_object(&file, deepest + 1, 7);
    char *expected = replaced((char *)file.data, file.size, "subdiv 8\n", "subdiv 7\n");
    char warning[256];
    snprintf(warning, sizeof warning,
             "deep.ac:6: warning: AC3D subdiv 8: the object's 7 surface corners subdivided 8 "
             "times would make %llu faces, over the limit of 65536 for a file; subdivided 7 "
             "times instead (%llu faces)",
             (unsigned long long)subdivided_faces(7, 8),
             (unsigned long long)subdivided_faces(7, 7));
    expect_ac3d("deep.ac", file.data, file.size, expected, 1, warning);
    free(expected);
    bytebuf_free(&file);

    /* Two objects at the deepest level fit; a third gets what is left. */
    bytebuf_printf(&file, "AC3Db\nOBJECT world\nkids 3\n");
    ac3d_object(&file, deepest, 7);
    ac3d_object(&file, deepest, 7);
    size_t two = file.size, lines = 0;
    for (size_t i = 0; i < file.size; i++)
        lines += file.data[i] == '\n';
    ac3d_object(&file, deepest, 7);
    uint64_t left = limit - 2 * subdivided_faces(7, deepest);
    uint32_t third = deepest;
    while (third > 0 && subdivided_faces(7, third) > left)
        third--;
    assert_int_equal(third, 6);
    expected = malloc(file.size);
    memcpy(expected, file.data, file.size);
    char *at = strstr(expected + two, "subdiv 7\n");
    at[7] = '6';
    snprintf(warning, sizeof warning,
             "three.ac:%zu: warning: AC3D subdiv 7: the object's 7 surface corners subdivided 7 "
             "times would make 28672 faces (86016 with the objects before it), over the limit "
             "of 65536 for a file; subdivided 6 times instead (7168 faces)",
             lines + 3);
    expect_ac3d("three.ac", file.data, file.size, expected, 1, warning);
    free(expected);
    bytebuf_free(&file);

    /* A huge number: the digits past the new one become spaces. */
    static const char quad[] = "numvert 4\n0 0 0\n1 0 0\n1 1 0\n0 1 0\nnumsurf 1\nSURF 0x10\n"
                               "mat 0\nrefs 4\n0 0 0\n1 0 0\n2 0 0\n3 0 0\nkids 0\n";
    char text[512];
    snprintf(text, sizeof text, "AC3Db\nOBJECT poly\nsubdiv 99999999999999999999999\n%s", quad);
    expected = replaced(text, strlen(text), "subdiv 99999999999999999999999",
                        "subdiv 8                      ");
    expect_ac3d("huge.ac", text, strlen(text), expected, 1, "huge.ac:3: warning: AC3D subdiv");
    free(expected);

    /* Where assimp reads a number the line scan must too: on the next line
     * after "subdiv" and a line end, after a CR or form feed line end, and
     * inside a `data` block, whose text assimp reads for keywords. */
    static const char *const hidden[][2] = {
        {"subdiv\n9\n", "subdiv\n8\n"},
        {"name \"a\"\rsubdiv 9\n", "name \"a\"\rsubdiv 8\n"},
        {"name \"a\"\fsubdiv 9\n", "name \"a\"\fsubdiv 8\n"},
        {"data 9\nsubdiv 9\n", "data 9\nsubdiv 8\n"},
        {"\t subdiv \t9\n", "\t subdiv \t8\n"},
    };
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++) {
        char want[512];
        snprintf(text, sizeof text, "AC3Db\nOBJECT poly\n%s%s", hidden[i][0], quad);
        snprintf(want, sizeof want, "AC3Db\nOBJECT poly\n%s%s", hidden[i][1], quad);
        expect_ac3d("hidden.ac", text, strlen(text), want, 1, NULL);
    }
    /* "subdivX 9" is no keyword; a later "subdiv 0" in the object does not
     * hide an earlier one (after `kids` assimp ignores it; both are bounded). */
    snprintf(text, sizeof text, "AC3Db\nOBJECT poly\nsubdivX 9\n%s", quad);
    expect_ac3d("word.ac", text, strlen(text), NULL, 0, NULL);
    snprintf(text, sizeof text, "AC3Db\nOBJECT poly\nsubdiv 9\n%ssubdiv 0\n", quad);
    char want[512];
    snprintf(want, sizeof want, "AC3Db\nOBJECT poly\nsubdiv 8\n%ssubdiv 0\n", quad);
    expect_ac3d("late.ac", text, strlen(text), want, 1, NULL);
    /* A closed line's reference is 2 corners: 4 references at subdiv 8 are
     * 8 * 4^7 = 131072 faces, lowered to 7 (a polygon's 4 would fit at 8). */
    snprintf(text, sizeof text, "AC3Db\nOBJECT poly\nsubdiv 8\n%s", quad);
    expect_ac3d("polygon.ac", text, strlen(text), NULL, 0, NULL);
    char *line = replaced(text, strlen(text), "SURF 0x10", "SURF 0x11");
    expected = replaced(line, strlen(line), "subdiv 8", "subdiv 7");
    expect_ac3d("line.ac", line, strlen(line), expected, 1,
                "line.ac:3: warning: AC3D subdiv 8: the object's 8 surface corners");
    free(line);
    free(expected);

    /* Counts beyond the bytes left: what assimp reserves or loops over. */
    static const char *const counts[] = {"numvert", "numsurf", "refs", "kids"};
    for (size_t i = 0; i < 4; i++) {
        char expected_error[160];
        snprintf(text, sizeof text, "AC3Db\nOBJECT world\n%s 300000000\n0 0 0\n", counts[i]);
        snprintf(expected_error, sizeof expected_error,
                 "c.ac:3: error: AC3D %s 300000000: more than the 7 bytes left", counts[i]);
        expect_text_refused("c.ac", text, expected_error);
    }
    /* A count on the next line, after a CR line end, in a data block. */
    expect_text_refused("n.ac", "AC3Db\nOBJECT world\nkids\n300000000\n",
                        "n.ac:3: error: AC3D kids 300000000: more than the 1 bytes left");
    expect_text_refused("r.ac", "AC3Db\nOBJECT world\rkids 300000000\r",
                        "r.ac:2: error: AC3D kids 300000000: more than the 1 bytes left");
    expect_text_refused("data.ac", "AC3Db\nOBJECT world\ndata 19\nnumsurf 300000000\n",
                        "data.ac:4: error: AC3D numsurf 300000000: more than the 1 bytes left");
}

/* A subdivided AC3D surface cooks, as assimp subdivides it; past the bound,
 * subdivided as many times as fit, which shows assimp read the rewrite. */
static void ac3d_subdivision_cooks_within_the_bound(void **state) {
    (void)state;
    char *dir = fresh_dir("ac3d");
    static const char material[] = "AC3Db\nMATERIAL \"m\" rgb 1 1 1  amb 0.2 0.2 0.2  emis 0 0 0  "
                                   "spec 0 0 0  shi 0  trans 0\nOBJECT world\nkids 1\n";
    bytebuf file = {0};
    bytebuf_printf(&file, "%s", material);
    ac3d_object(&file, 2, 4);
    test_import r;
    import_bytes(&r, dir, "quad.ac", file.data, file.size);
    test_import_expect_ok(&r);
    /* A quad subdivided twice: 4 then 16 quads, 32 triangles. */
    assert_int_equal(only_mesh(&r)->index_count, 3 * 2 * subdivided_faces(4, 2));
    test_import_free(&r);
    bytebuf_free(&file);

    /* A pentagon at subdiv 8 would be 81920 quads: cooked at 7. */
    bytebuf_printf(&file, "%s", material);
    ac3d_object(&file, 8, 5);
    assert_true(subdivided_faces(5, 8) > (1u << 16) && subdivided_faces(5, 7) <= (1u << 16));
    import_bytes(&r, dir, "pentagon.ac", file.data, file.size);
    test_import_expect_ok(&r);
    assert_int_equal(only_mesh(&r)->index_count, 3 * 2 * subdivided_faces(5, 7));
    assert_non_null(strstr((const char *)r.diag.text.data, "subdivided 7 times instead"));
    test_import_free(&r);
    bytebuf_free(&file);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * Corpus
 * ------------------------------------------------------------------------- */

static void corpus_ply_rows_cook(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_ply_rows_cook"))
        skip();
    const char *corpus = test_corpus_dir();
    test_corpus_row *index;
    size_t index_rows;
    char *index_text = test_corpus_index(&index, &index_rows);
    char *output = fresh_dir("corpus_out");
    int rows = 0, failures = 0;
    for (size_t row = 0; row < index_rows; row++) {
        const char *fields[4] = {index[row].path, index[row].format, index[row].category,
                                 index[row].expect};
        if (strcmp(fields[1], "ply") != 0)
            continue;
        rows++;
        cook_settings settings;
        cook_settings_default(&settings);
        cook_request request = {
            .input_root = corpus,
            .output_root = output,
            .source_path = fields[0],
            .importer = cook_registry_match(fields[0]),
            .settings = &settings,
            .verify = true,
        };
        assert_non_null(request.importer);
        assert_string_equal(request.importer->name, "assimp");
        cook_asset_result result;
        bool ok = cook_asset(&request, &result);
        bool expect_success = strcmp(fields[3], "ok") == 0;
        const char *text = result.diag.text.data ? (const char *)result.diag.text.data : "";
        if (ok != expect_success || (ok && (result.meshes == 0 || result.triangles == 0))) {
            printf("%s: expected %s, got %s (%u meshes, %u triangles):\n%s", fields[0], fields[3],
                   ok ? "ok" : "error", result.meshes, result.triangles, text);
            failures++;
        }
        cook_asset_result_free(&result);
    }
    free(output);
    free(index);
    free(index_text);
    assert_true(rows >= 4);
    assert_int_equal(failures, 0);
}

static void corpus_ply_models_have_the_expected_counts(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_ply_models_have_the_expected_counts"))
        skip();
    const char *corpus = test_corpus_dir();
    test_import r;
    /* cube.ply and cube_binary.ply: 6 quads on 8 corners of the unit cube. */
    static const char *const cubes[] = {"ply/assimp/cube.ply", "ply/assimp/cube_binary.ply"};
    for (int i = 0; i < 2; i++) {
        import_file(&r, corpus, cubes[i]);
        test_import_expect_ok(&r);
        test_check_asset(&r.asset);
        const ir_mesh *mesh = only_mesh(&r);
        assert_int_equal(mesh->index_count, 3 * 12);
        expect_bounds(mesh, 0, 0, 0, 1, 1, 1);
        test_import_free(&r);
    }
    /* cube_uv.ply carries texture coordinates. */
    import_file(&r, corpus, "ply/assimp/cube_uv.ply");
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    assert_non_null(only_mesh(&r)->texcoords[0]);
    test_import_free(&r);
    /* float-color.ply: float vertex colours. */
    import_file(&r, corpus, "ply/assimp/float-color.ply");
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    assert_non_null(only_mesh(&r)->colors);
    test_import_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_sends_other_model_formats_to_assimp),
        cmocka_unit_test(ascii_ply_cube),
        cmocka_unit_test(binary_ply_cube_matches_ascii),
        cmocka_unit_test(ascii_stl_cube),
        cmocka_unit_test(off_pyramid_is_triangulated),
        cmocka_unit_test(dae_nodes_submeshes_materials_and_textures),
        cmocka_unit_test(absolute_texture_paths_fall_back_to_the_source_folder),
        cmocka_unit_test(smd_skin_has_joints_and_weights),
        cmocka_unit_test(unreadable_files_are_clear_errors),
        cmocka_unit_test(header_counts_beyond_the_file_are_refused),
        cmocka_unit_test(precheck_refuses_ply_headers_without_end_header),
        cmocka_unit_test(precheck_checks_ply_counts_against_the_data),
        cmocka_unit_test(precheck_lowers_ac3d_subdivision_past_the_bound),
        cmocka_unit_test(ac3d_subdivision_cooks_within_the_bound),
        cmocka_unit_test(ply_of_vertices_alone_is_a_point_cloud),
        cmocka_unit_test(line_and_point_faces_are_cooked),
        cmocka_unit_test(unused_textures_are_named_and_cameras_are_content),
        cmocka_unit_test(assimp_reads_only_inside_the_input_root),
        cmocka_unit_test(imports_run_in_parallel),
        cmocka_unit_test(corpus_ply_rows_cook),
        cmocka_unit_test(corpus_ply_models_have_the_expected_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
