/*
 * gltf_scene.c — glTF nodes into ir_node, scenes into ir_scene and skins into
 * ir_skin; animations validated (gltf_anim.c imports them). Cameras, lights
 * and instances: gltf_camera.c.
 *
 * Nodes
 *   Every node is imported, whether or not a scene lists it. A node has at
 *   most one parent (a second parent is an error) and no node is its own
 *   ancestor (a loop is an error). ir_asset.nodes lists parents before
 *   children: the order is the glTF order whenever the file already has that
 *   property, otherwise the smallest ready index goes first. A node's matrix
 *   is kept as given and decomposed into TRS (best effort: scale from the
 *   column lengths, negative when the determinant is); TRS nodes get the
 *   composed matrix T * R * S. node.mesh is the ir mesh index (-1 for a mesh
 *   with nothing to cook); node.skin is the glTF skin index, which is also
 *   its ir_asset.skins index (every skin is imported, or the file refused).
 *
 * Skins
 *   Every skin, in order: joints as IR node indices, inverse bind matrices
 *   (identity without an accessor), skeleton. Errors as glTF-Validator's: no
 *   joints, a joint out of range or listed twice, joints without a common
 *   root, a skeleton that is not an ancestor of every joint, matrices not
 *   MAT4 FLOAT, fewer than the joints, strided, not finite or not affine.
 *   An accessor with more matrices than joints is a warning (the spec allows
 *   it; the rest are unused).
 *
 * Checks that read data stay cheap: skin inverse bind matrices (last row
 * 0 0 0 1), animation inputs (non-negative, increasing) and rotation outputs
 * (unit quaternions), each accessor once.
 *
 * Sources and scenes
 *   node.source is the glTF node index and node.extras the node's extras as
 *   compact JSON; gltf_import_scenes lists every scene's roots in
 *   ir_asset.scenes, the default one being the file's `scene`, else 0.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/import/gltf_internal.h"

/* ---------------------------------------------------------------------------
 * Transforms
 * ------------------------------------------------------------------------- */

/* T * R * S with the rotation normalised, composed as the runtime does. */
static void compose_trs(ir_node *node) {
    kiln_scene_transform t;
    memcpy(t.translation, node->translation, sizeof t.translation);
    memcpy(t.scale, node->scale, sizeof t.scale);
    const float *q = node->rotation;
    float length = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++)
        t.rotation[k] = length > 1e-12f ? q[k] / length : (k == 3 ? 1.0f : 0.0f);
    kiln_scene_compose(&t, node->matrix);
}

static void decompose_matrix(ir_node *node) {
    const float *m = node->matrix;
    node->translation[0] = m[12];
    node->translation[1] = m[13];
    node->translation[2] = m[14];
    float s[3];
    for (int c = 0; c < 3; c++)
        s[c] =
            sqrtf(m[4 * c] * m[4 * c] + m[4 * c + 1] * m[4 * c + 1] + m[4 * c + 2] * m[4 * c + 2]);
    float det = m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
                m[8] * (m[1] * m[6] - m[5] * m[2]);
    if (det < 0)
        s[0] = -s[0];
    memcpy(node->scale, s, sizeof s);
    node->rotation[0] = node->rotation[1] = node->rotation[2] = 0.0f;
    node->rotation[3] = 1.0f;
    if (fabsf(s[0]) < 1e-12f || fabsf(s[1]) < 1e-12f || fabsf(s[2]) < 1e-12f)
        return;
    float r[3][3]; /* r[row][col] */
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++)
            r[row][c] = m[4 * c + row] / s[c];
    float trace = r[0][0] + r[1][1] + r[2][2];
    float q[4];
    if (trace > 0) {
        float t = sqrtf(trace + 1.0f) * 2;
        q[3] = 0.25f * t;
        q[0] = (r[2][1] - r[1][2]) / t;
        q[1] = (r[0][2] - r[2][0]) / t;
        q[2] = (r[1][0] - r[0][1]) / t;
    } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
        float t = sqrtf(1.0f + r[0][0] - r[1][1] - r[2][2]) * 2;
        q[3] = (r[2][1] - r[1][2]) / t;
        q[0] = 0.25f * t;
        q[1] = (r[0][1] + r[1][0]) / t;
        q[2] = (r[0][2] + r[2][0]) / t;
    } else if (r[1][1] > r[2][2]) {
        float t = sqrtf(1.0f + r[1][1] - r[0][0] - r[2][2]) * 2;
        q[3] = (r[0][2] - r[2][0]) / t;
        q[0] = (r[0][1] + r[1][0]) / t;
        q[1] = 0.25f * t;
        q[2] = (r[1][2] + r[2][1]) / t;
    } else {
        float t = sqrtf(1.0f + r[2][2] - r[0][0] - r[1][1]) * 2;
        q[3] = (r[1][0] - r[0][1]) / t;
        q[0] = (r[0][2] + r[2][0]) / t;
        q[1] = (r[1][2] + r[2][1]) / t;
        q[2] = 0.25f * t;
    }
    float length = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(length > 1e-12f) || !isfinite(length))
        return;
    for (int k = 0; k < 4; k++)
        node->rotation[k] = q[k] / length;
}

/* ---------------------------------------------------------------------------
 * Nodes
 * ------------------------------------------------------------------------- */

/* Validates node i and fills `node` (mesh and parent set later). */
static bool parse_node(gltf *g, size_t i, ir_node *node, int64_t *mesh) {
    ir_node_init(node);
    const json_t *obj = gltf_element(g, g->j_nodes, "nodes", i);
    if (obj == NULL)
        return false;
    char jpath[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "nodes[%zu]", i);
    int64_t skin, camera;
    const json_t *children, *weights;
    if (!gltf_get_index(g, obj, jpath, "mesh", false, "mesh", g->n_meshes, mesh) ||
        !gltf_get_index(g, obj, jpath, "skin", false, "skin", g->n_skins, &skin) ||
        !gltf_get_index(g, obj, jpath, "camera", false, "camera", g->n_cameras, &camera) ||
        !gltf_get_array(g, obj, jpath, "children", false, &children) ||
        !gltf_get_array(g, obj, jpath, "weights", false, &weights) ||
        !gltf_get_floats(g, obj, jpath, "matrix", 16, -FLT_MAX, FLT_MAX, node->matrix) ||
        !gltf_get_floats(g, obj, jpath, "translation", 3, -FLT_MAX, FLT_MAX, node->translation) ||
        !gltf_get_floats(g, obj, jpath, "rotation", 4, -1.0, 1.0, node->rotation) ||
        !gltf_get_floats(g, obj, jpath, "scale", 3, -FLT_MAX, FLT_MAX, node->scale))
        return false;
    if (skin >= 0 && *mesh < 0) {
        gltf_error(g, "%s.skin: a node with a skin needs a mesh", jpath);
        return false;
    }
    if (weights != NULL) {
        if (*mesh < 0) {
            gltf_error(g, "%s.weights: a node with morph weights needs a mesh", jpath);
            return false;
        }
        for (size_t k = 0; k < json_array_size(weights); k++) {
            if (!json_is_number(json_array_get(weights, k))) {
                gltf_error(g, "%s.weights[%zu]: expected a number", jpath, k);
                return false;
            }
        }
        if (json_array_size(weights) != g->mesh_targets[*mesh]) {
            gltf_error(g, "%s.weights: %zu weights, but meshes[%lld] has %u morph targets", jpath,
                       json_array_size(weights), (long long)*mesh, g->mesh_targets[*mesh]);
            return false;
        }
    }
    bool has_trs = json_object_get(obj, "translation") || json_object_get(obj, "rotation") ||
                   json_object_get(obj, "scale");
    if (json_object_get(obj, "matrix") != NULL) {
        if (has_trs) {
            gltf_error(g,
                       "%s.matrix: a node has either a matrix or translation/rotation/scale, "
                       "not both",
                       jpath);
            return false;
        }
        decompose_matrix(node);
    } else {
        compose_trs(node);
    }
    node->skin = (int32_t)skin;
    node->source = (int32_t)i;
    node->name = gltf_name(g, obj, "node", i);
    if (node->name == NULL)
        return false;
    const json_t *extras = json_object_get(obj, "extras");
    if (extras != NULL &&
        (node->extras = json_dumps(extras, JSON_COMPACT | JSON_ENCODE_ANY)) == NULL)
        return gltf_out_of_memory(g);
    for (size_t k = 0; children != NULL && k < json_array_size(children); k++) {
        char cpath[GLTF_PATH_SIZE];
        gltf_pathf(cpath, "%s.children[%zu]", jpath, k);
        int64_t child;
        if (!gltf_index_value(g, json_array_get(children, k), cpath, "node", g->n_nodes, &child))
            return false;
        if ((size_t)child == i) {
            gltf_error(g, "%s: node %zu lists itself as a child (a node loop)", cpath, i);
            return false;
        }
        if (g->node_parent[child] >= 0) {
            gltf_error(g,
                       "%s: node %lld already has the parent node %d; a node has at most one "
                       "parent",
                       cpath, (long long)child, g->node_parent[child]);
            return false;
        }
        g->node_parent[child] = (int32_t)i;
    }
    return true;
}

/* The joints a node's mesh names must exist in the node's skin
 * (ACCESSOR_JOINTS_INDEX_OOB); a skin whose joints are not an array or are
 * empty is reported by gltf_import_skins. */
static bool check_joints(gltf *g, size_t node, int64_t mesh, int32_t skin) {
    if (mesh < 0 || skin < 0 || g->mesh_joints == NULL)
        return true;
    const gltf_joint_use *used = &g->mesh_joints[mesh];
    const json_t *joints = json_object_get(json_array_get(g->j_skins, (size_t)skin), "joints");
    if (used->max_plus1 == 0 || !json_is_array(joints) || json_array_size(joints) == 0 ||
        used->max_plus1 <= json_array_size(joints))
        return true;
    gltf_error(g,
               "meshes[%lld].primitives[%u].attributes.JOINTS_%u: element %u names joint %u, "
               "but skins[%d] (of nodes[%zu]) has %zu joints",
               (long long)mesh, used->primitive, used->set, used->element, used->max_plus1 - 1,
               skin, node, json_array_size(joints));
    return false;
}

/* Reports nodes that are their own ancestor. */
static bool check_loops(gltf *g) {
    size_t n = g->n_nodes;
    uint32_t *stamp = calloc(n, sizeof *stamp); /* 0 new, i+1 on walk i, UINT32_MAX done */
    if (stamp == NULL)
        return gltf_out_of_memory(g);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        size_t v = i;
        while (stamp[v] == 0) {
            stamp[v] = (uint32_t)i + 1;
            if (g->node_parent[v] < 0)
                break;
            v = (size_t)g->node_parent[v];
        }
        if (stamp[v] == (uint32_t)i + 1 && g->node_parent[v] >= 0 &&
            stamp[g->node_parent[v]] == (uint32_t)i + 1) {
            gltf_error(g, "nodes[%zu]: node loop: the node is its own ancestor", v);
            ok = false;
        }
        for (v = i; stamp[v] == (uint32_t)i + 1; v = (size_t)g->node_parent[v]) {
            stamp[v] = UINT32_MAX;
            if (g->node_parent[v] < 0)
                break;
        }
    }
    free(stamp);
    return ok;
}

/* Min-heap of node indices. */
static void heap_push(int32_t *heap, size_t *size, int32_t value) {
    size_t i = (*size)++;
    heap[i] = value;
    while (i > 0 && heap[(i - 1) / 2] > heap[i]) {
        int32_t t = heap[i];
        heap[i] = heap[(i - 1) / 2];
        heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static int32_t heap_pop(int32_t *heap, size_t *size) {
    int32_t top = heap[0];
    heap[0] = heap[--*size];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *size && heap[l] < heap[m])
            m = l;
        if (r < *size && heap[r] < heap[m])
            m = r;
        if (m == i)
            break;
        int32_t t = heap[i];
        heap[i] = heap[m];
        heap[m] = t;
        i = m;
    }
    return top;
}

uint32_t gltf_next_mark(gltf *g) {
    return ++g->mark;
}

bool gltf_import_nodes(gltf *g, ir_asset *out) {
    size_t n = g->n_nodes;
    if (n == 0)
        return true;
    if (n > INT32_MAX) {
        gltf_error(g, "nodes: too many nodes");
        return false;
    }
    g->node_parent = malloc(n * sizeof *g->node_parent);
    g->node_mark = calloc(n, sizeof *g->node_mark);
    g->node_root = malloc(n * sizeof *g->node_root);
    g->node_pre = malloc(n * sizeof *g->node_pre);
    g->node_post = malloc(n * sizeof *g->node_post);
    ir_node *nodes = calloc(n, sizeof *nodes);
    int64_t *meshes = malloc(n * sizeof *meshes);
    int32_t *heap = malloc(n * sizeof *heap);
    uint32_t *first_child = calloc(n + 1, sizeof *first_child);
    int32_t *children = malloc(n * sizeof *children);
    int32_t *map = malloc(n * sizeof *map);
    bool ok = g->node_parent && g->node_mark && g->node_root && g->node_pre && g->node_post &&
              nodes && meshes && heap && first_child && children && map;
    if (!ok)
        gltf_out_of_memory(g);
    for (size_t i = 0; ok && i < n; i++)
        g->node_parent[i] = -1;
    for (size_t i = 0; ok && i < n && !g->stopped; i++)
        ok = parse_node(g, i, &nodes[i], &meshes[i]) && ok;
    ok = ok && !g->stopped && check_loops(g);
    for (size_t i = 0; ok && i < n; i++)
        ok = check_joints(g, i, meshes[i], nodes[i].skin);
    if (ok) {
        /* children grouped by parent (counting sort keeps glTF index order) */
        for (size_t i = 0; i < n; i++)
            if (g->node_parent[i] >= 0)
                first_child[g->node_parent[i] + 1]++;
        for (size_t i = 0; i < n; i++)
            first_child[i + 1] += first_child[i];
        uint32_t *fill = calloc(n, sizeof *fill);
        if (fill == NULL)
            ok = gltf_out_of_memory(g);
        for (size_t i = 0; ok && i < n; i++) {
            int32_t p = g->node_parent[i];
            if (p >= 0)
                children[first_child[p] + fill[p]++] = (int32_t)i;
        }
        free(fill);
    }
    if (ok) {
        /* depth-first numbering, with heap as the stack and map as the cursors */
        uint32_t counter = 0;
        for (size_t r = 0; r < n; r++) {
            if (g->node_parent[r] >= 0)
                continue;
            size_t depth = 0;
            heap[depth++] = (int32_t)r;
            map[r] = (int32_t)first_child[r];
            g->node_pre[r] = counter++;
            g->node_root[r] = (int32_t)r;
            while (depth > 0) {
                int32_t v = heap[depth - 1];
                if ((uint32_t)map[v] < first_child[v + 1]) {
                    int32_t c = children[map[v]++];
                    map[c] = (int32_t)first_child[c];
                    g->node_pre[c] = counter++;
                    g->node_root[c] = (int32_t)r;
                    heap[depth++] = c;
                } else {
                    g->node_post[v] = counter++;
                    depth--;
                }
            }
        }
    }
    if (ok) {
        out->nodes = calloc(n, sizeof *out->nodes);
        if (out->nodes == NULL)
            ok = gltf_out_of_memory(g);
    }
    if (ok) {
        size_t size = 0, emitted = 0;
        for (size_t i = 0; i < n; i++)
            if (g->node_parent[i] < 0)
                heap_push(heap, &size, (int32_t)i);
        while (size > 0) {
            int32_t i = heap_pop(heap, &size);
            map[i] = (int32_t)emitted;
            ir_node *node = &out->nodes[emitted++];
            *node = nodes[i];
            nodes[i].name = NULL; /* moved */
            nodes[i].extras = NULL;
            node->parent = g->node_parent[i] >= 0 ? map[g->node_parent[i]] : -1;
            node->mesh = meshes[i] >= 0 ? g->mesh_map[meshes[i]] : -1;
            for (uint32_t c = first_child[i]; c < first_child[i + 1]; c++)
                heap_push(heap, &size, children[c]);
        }
        out->node_count = (uint32_t)emitted; /* == n: loops were rejected */
    }
    for (size_t i = 0; nodes != NULL && i < n; i++) {
        free(nodes[i].name);
        free(nodes[i].extras);
    }
    free(nodes);
    free(meshes);
    free(heap);
    free(first_child);
    free(children);
    free(map);
    return ok && !g->stopped;
}

bool gltf_check_scenes(gltf *g) {
    bool ok = true;
    for (size_t s = 0; s < g->n_scenes && !g->stopped; s++) {
        const json_t *obj = gltf_element(g, g->j_scenes, "scenes", s);
        char jpath[GLTF_PATH_SIZE];
        gltf_pathf(jpath, "scenes[%zu]", s);
        const json_t *nodes;
        if (obj == NULL || !gltf_get_array(g, obj, jpath, "nodes", false, &nodes)) {
            ok = false;
            continue;
        }
        uint32_t mark = gltf_next_mark(g);
        for (size_t k = 0; nodes != NULL && k < json_array_size(nodes); k++) {
            char path[GLTF_PATH_SIZE];
            gltf_pathf(path, "%s.nodes[%zu]", jpath, k);
            int64_t node;
            if (!gltf_index_value(g, json_array_get(nodes, k), path, "node", g->n_nodes, &node)) {
                ok = false;
                break;
            }
            if (g->node_parent[node] >= 0) {
                gltf_error(g, "%s: node %lld is not a root (its parent is node %d)", path,
                           (long long)node, g->node_parent[node]);
                ok = false;
                break;
            }
            if (g->node_mark[node] == mark) {
                gltf_error(g, "%s: node %lld is listed twice", path, (long long)node);
                ok = false;
                break;
            }
            g->node_mark[node] = mark;
        }
    }
    return ok && !g->stopped;
}

/* After gltf_check_scenes: each scene's name and roots (as IR node indices,
 * found through ir_node.source), and the default scene (`scene`, else 0). */
bool gltf_import_scenes(gltf *g, ir_asset *out) {
    if (g->n_scenes == 0)
        return true;
    int32_t *ir_index = malloc((g->n_nodes ? g->n_nodes : 1) * sizeof *ir_index);
    out->scenes = calloc(g->n_scenes, sizeof *out->scenes);
    if (ir_index == NULL || out->scenes == NULL) {
        free(ir_index);
        return gltf_out_of_memory(g);
    }
    out->scene_count = (uint32_t)g->n_scenes;
    for (uint32_t k = 0; k < out->node_count; k++)
        ir_index[out->nodes[k].source] = (int32_t)k;
    bool ok = true;
    for (size_t s = 0; s < g->n_scenes && ok; s++) {
        const json_t *obj = json_array_get(g->j_scenes, s);
        const json_t *nodes = json_object_get(obj, "nodes");
        ir_scene *scene = &out->scenes[s];
        size_t count = json_array_size(nodes);
        scene->name = gltf_name(g, obj, "scene", s);
        scene->roots = malloc((count ? count : 1) * sizeof *scene->roots);
        ok = scene->name != NULL && scene->roots != NULL &&
             gltf_extras_text(g, obj, NULL, &scene->extras);
        for (size_t k = 0; ok && k < count; k++) {
            /* Whatever gltf_check_scenes let through is used; the rest was reported. */
            json_int_t node = json_integer_value(json_array_get(nodes, k));
            if (node >= 0 && (size_t)node < g->n_nodes && g->node_parent[node] < 0)
                scene->roots[scene->root_count++] = (uint32_t)ir_index[node];
        }
    }
    free(ir_index);
    const json_t *scene = json_object_get(g->root, "scene");
    if (json_is_integer(scene) && json_integer_value(scene) >= 0 &&
        (size_t)json_integer_value(scene) < g->n_scenes)
        out->default_scene = (uint32_t)json_integer_value(scene);
    return ok || gltf_out_of_memory(g);
}

/* ---------------------------------------------------------------------------
 * Skins
 * ------------------------------------------------------------------------- */

static int32_t root_of(const gltf *g, int32_t node) {
    return g->node_root[node];
}

static bool is_ancestor_or_self(const gltf *g, int32_t ancestor, int32_t node) {
    return g->node_pre[ancestor] <= g->node_pre[node] &&
           g->node_post[node] <= g->node_post[ancestor];
}

/* Validates skins[s] as glTF-Validator does and fills `skin`: joints as IR
 * node indices (ir_index maps glTF nodes to them), inverse bind matrices
 * (identity when absent), the skeleton. */
static bool import_skin(gltf *g, size_t s, const int32_t *ir_index, ir_skin *skin) {
    const json_t *obj = gltf_element(g, g->j_skins, "skins", s);
    if (obj == NULL)
        return false;
    char jpath[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "skins[%zu]", s);
    const json_t *joints;
    int64_t skeleton, ibm;
    if (!gltf_get_array(g, obj, jpath, "joints", true, &joints) ||
        !gltf_get_index(g, obj, jpath, "skeleton", false, "node", g->n_nodes, &skeleton) ||
        !gltf_get_index(g, obj, jpath, "inverseBindMatrices", false, "accessor", g->n_accessors,
                        &ibm))
        return false;
    size_t count = json_array_size(joints);
    uint32_t mark = gltf_next_mark(g);
    int32_t common_root = -1;
    bool ok = true;
    skin->source = (int32_t)s;
    skin->skeleton = skeleton >= 0 ? ir_index[skeleton] : -1;
    skin->joints = malloc(count * sizeof *skin->joints);
    skin->inverse_bind = malloc(count * 16 * sizeof *skin->inverse_bind);
    const char *name = json_string_value(json_object_get(obj, "name"));
    if (name != NULL)
        skin->name = cook_strdup(name);
    if (skin->joints == NULL || skin->inverse_bind == NULL || (name != NULL && skin->name == NULL))
        return gltf_out_of_memory(g);
    for (size_t k = 0; k < count && ok; k++) {
        char path[GLTF_PATH_SIZE];
        gltf_pathf(path, "%s.joints[%zu]", jpath, k);
        int64_t joint;
        if (!gltf_index_value(g, json_array_get(joints, k), path, "node", g->n_nodes, &joint)) {
            ok = false;
            break;
        }
        if (g->node_mark[joint] == mark) {
            gltf_error(g, "%s: node %lld is listed twice", path, (long long)joint);
            ok = false;
            break;
        }
        g->node_mark[joint] = mark;
        skin->joints[skin->joint_count++] = (uint32_t)ir_index[joint];
        int32_t root = root_of(g, (int32_t)joint);
        if (k == 0)
            common_root = root;
        else if (root != common_root) {
            gltf_error(g,
                       "%s.joints: the joints do not have a common root (node %lld is in "
                       "another tree)",
                       jpath, (long long)joint);
            ok = false;
        }
        if (ok && skeleton >= 0 && !is_ancestor_or_self(g, (int32_t)skeleton, (int32_t)joint)) {
            gltf_error(g,
                       "%s.skeleton: node %lld is not a common root of the joints (not an "
                       "ancestor of joint node %lld)",
                       jpath, (long long)skeleton, (long long)joint);
            ok = false;
        }
    }
    for (size_t k = 0; k < count; k++) /* identity until read */
        for (int e = 0; e < 16; e++)
            skin->inverse_bind[16 * k + (size_t)e] = e % 5 == 0 ? 1.0f : 0.0f;
    if (!ok || ibm < 0)
        return ok;
    if (!gltf_accessor_valid(g, (uint32_t)ibm))
        return false;
    const gltf_accessor *a = &g->accessors[ibm];
    char ipath[GLTF_PATH_SIZE];
    gltf_pathf(ipath, "%s.inverseBindMatrices", jpath);
    if (strcmp(a->type, "MAT4") != 0 || a->component_type != GLTF_FLOAT) {
        gltf_error(g, "%s: accessor %lld is %s %s; it must be MAT4 FLOAT", ipath, (long long)ibm,
                   a->type, gltf_component_name(a->component_type));
        return false;
    }
    if (a->count < count) {
        gltf_error(g, "%s: accessor %lld has %u matrices for %zu joints", ipath, (long long)ibm,
                   a->count, count);
        return false;
    }
    if (a->view >= 0 && g->views[a->view].stride != 0) {
        gltf_error(g, "%s: accessor %lld is in a bufferView with a byteStride", ipath,
                   (long long)ibm);
        return false;
    }
    if (!gltf_accessor_stored(g, (uint32_t)ibm) || !gltf_accessor_readable(g, (uint32_t)ibm)) {
        gltf_warning(g,
                     "%s: accessor %lld holds no data; the joints' inverse bind matrices are "
                     "the identity",
                     ipath, (long long)ibm);
        return true;
    }
    if (a->count > count)
        gltf_warning(g, "%s: accessor %lld has %u matrices for %zu joints; the last %zu are unused",
                     ipath, (long long)ibm, a->count, count, (size_t)a->count - count);
    float *matrices; /* non-finite values are refused by the read */
    if (!gltf_read_floats(g, (uint32_t)ibm, ipath, &matrices))
        return false;
    for (uint32_t k = 0; k < a->count && ok; k++) {
        const float *m = matrices + 16 * (size_t)k;
        if (fabsf(m[3]) > 1e-3f || fabsf(m[7]) > 1e-3f || fabsf(m[11]) > 1e-3f ||
            fabsf(m[15] - 1.0f) > 1e-3f) {
            gltf_error(g,
                       "%s: matrix %u is not an affine transform (its last row is not "
                       "0 0 0 1)",
                       ipath, k);
            ok = false;
        }
    }
    if (ok)
        memcpy(skin->inverse_bind, matrices, count * 16 * sizeof *matrices);
    free(matrices);
    return ok;
}

bool gltf_import_skins(gltf *g, ir_asset *out) {
    if (g->n_skins == 0)
        return ir_bind_weightless(out) || gltf_out_of_memory(g);
    int32_t *ir_index = malloc((g->n_nodes ? g->n_nodes : 1) * sizeof *ir_index);
    out->skins = calloc(g->n_skins, sizeof *out->skins);
    if (ir_index == NULL || out->skins == NULL) {
        free(ir_index);
        return gltf_out_of_memory(g);
    }
    for (uint32_t k = 0; k < out->node_count; k++)
        ir_index[out->nodes[k].source] = (int32_t)k;
    out->skin_count = (uint32_t)g->n_skins;
    bool ok = true;
    for (size_t s = 0; s < g->n_skins && !g->stopped; s++)
        ok = import_skin(g, s, ir_index, &out->skins[s]) && ok;
    free(ir_index);
    if (ok && !ir_bind_weightless(out))
        return gltf_out_of_memory(g);
    return ok && !g->stopped;
}

/* ---------------------------------------------------------------------------
 * Animations
 * ------------------------------------------------------------------------- */

enum { PATH_TRANSLATION, PATH_ROTATION, PATH_SCALE, PATH_WEIGHTS, PATH_POINTER };

typedef struct sampler_info {
    int64_t input, output;
    bool cubic;
} sampler_info;

static bool no_stride(gltf *g, int64_t accessor, const char *jpath) {
    int64_t view = g->accessors[accessor].view;
    if (view >= 0 && g->views[view].stride != 0) {
        gltf_error(g,
                   "%s: accessor %lld is in a bufferView with a byteStride, which animation "
                   "data must not have",
                   jpath, (long long)accessor);
        return false;
    }
    return true;
}

static bool check_input_data(gltf *g, int64_t accessor, const char *jpath) {
    gltf_accessor *a = &g->accessors[accessor];
    if (a->data_checked & 1u)
        return true;
    if (!gltf_accessor_stored(g, (uint32_t)accessor) ||
        !gltf_accessor_readable(g, (uint32_t)accessor))
        return true; /* zeros, or no data to check */
    a->data_checked |= 1u;
    float *times;
    if (!gltf_read_floats(g, (uint32_t)accessor, jpath, &times))
        return false;
    bool ok = true;
    for (uint32_t k = 0; k < a->count && ok; k++) {
        if (times[k] < 0.0f) {
            gltf_error(g, "%s: accessors[%lld] time %u is negative (%g)", jpath,
                       (long long)accessor, k, (double)times[k]);
            ok = false;
        } else if (k > 0 && times[k] <= times[k - 1]) {
            gltf_error(g, "%s: accessors[%lld] times do not increase (element %u: %g after %g)",
                       jpath, (long long)accessor, k, (double)times[k], (double)times[k - 1]);
            ok = false;
        }
    }
    free(times);
    return ok;
}

static bool check_rotation_data(gltf *g, int64_t accessor, const char *jpath) {
    gltf_accessor *a = &g->accessors[accessor];
    if (a->data_checked & 2u)
        return true;
    if (!gltf_accessor_stored(g, (uint32_t)accessor) ||
        !gltf_accessor_readable(g, (uint32_t)accessor))
        return true; /* zeros, or no data to check */
    a->data_checked |= 2u;
    float *q;
    if (!gltf_read_floats(g, (uint32_t)accessor, jpath, &q))
        return false;
    bool ok = true;
    for (uint32_t k = 0; k < a->count && ok; k++) {
        const float *v = q + 4 * (size_t)k;
        float length = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
        if (fabsf(length - 1.0f) > 0.01f) {
            gltf_error(g, "%s: accessors[%lld] rotation %u is not a unit quaternion (length %g)",
                       jpath, (long long)accessor, k, (double)length);
            ok = false;
        }
    }
    free(q);
    return ok;
}

static bool output_format_ok(const gltf_accessor *a, int path) {
    uint32_t ct = a->component_type;
    bool is_float = ct == GLTF_FLOAT;
    bool normalized_int = a->normalized && ct != GLTF_UNSIGNED_INT;
    switch (path) {
    case PATH_TRANSLATION:
    case PATH_SCALE:
        return strcmp(a->type, "VEC3") == 0 && is_float;
    case PATH_ROTATION:
        return strcmp(a->type, "VEC4") == 0 && (is_float || normalized_int);
    case PATH_WEIGHTS:
        return strcmp(a->type, "SCALAR") == 0 && (is_float || normalized_int);
    default:
        return true;
    }
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool check_channels(gltf *g, const json_t *channels, const char *jpath,
                           const sampler_info *samplers, size_t sampler_count) {
    static const char *const paths[] = {"translation", "rotation", "scale", "weights", "pointer"};
    size_t count = json_array_size(channels);
    uint64_t *keys = malloc(count * sizeof *keys); /* node << 32 | path << 24 | channel */
    if (keys == NULL)
        return gltf_out_of_memory(g);
    size_t key_count = 0;
    bool ok = true;
    for (size_t c = 0; c < count && ok; c++) {
        char cpath[GLTF_PATH_SIZE], tpath[GLTF_PATH_SIZE];
        gltf_pathf(cpath, "%s.channels[%zu]", jpath, c);
        gltf_pathf(tpath, "%s.target", cpath);
        const json_t *channel = json_array_get(channels, c), *target;
        int64_t sampler, node;
        const char *path_name;
        if (!json_is_object(channel)) {
            gltf_error(g, "%s: expected an object, found %s", cpath, gltf_json_type_name(channel));
            ok = false;
            break;
        }
        if (!gltf_check_object(g, channel, cpath) ||
            !gltf_get_index(g, channel, cpath, "sampler", true, "sampler", sampler_count,
                            &sampler) ||
            !gltf_get_object(g, channel, cpath, "target", true, &target) ||
            !gltf_get_index(g, target, tpath, "node", false, "node", g->n_nodes, &node) ||
            !gltf_get_string(g, target, tpath, "path", true, &path_name)) {
            ok = false;
            break;
        }
        int path = -1;
        for (int k = 0; k < 5; k++)
            if (strcmp(path_name, paths[k]) == 0)
                path = k;
        if (path < 0) {
            gltf_error(g, "%s.path: '%.32s' is not translation, rotation, scale or weights", tpath,
                       path_name);
            ok = false;
            break;
        }
        if (path == PATH_POINTER)
            continue; /* KHR_animation_pointer: not read */
        const sampler_info *s = &samplers[sampler];
        const gltf_accessor *out = &g->accessors[s->output];
        if (!output_format_ok(out, path)) {
            gltf_error(g, "%s.sampler: the output accessor %lld is %s %s, invalid for '%s'", cpath,
                       (long long)s->output, out->type, gltf_component_name(out->component_type),
                       path_name);
            ok = false;
            break;
        }
        uint64_t per_key = 1;
        if (path == PATH_WEIGHTS && node >= 0) {
            int64_t mesh = -1;
            const json_t *node_obj = json_array_get(g->j_nodes, (size_t)node);
            gltf_get_index(g, node_obj, "", "mesh", false, "mesh", g->n_meshes, &mesh);
            per_key = mesh >= 0 ? g->mesh_targets[mesh] : 0;
            if (per_key == 0) {
                gltf_error(g, "%s: node %lld has no mesh with morph targets to animate weights of",
                           tpath, (long long)node);
                ok = false;
                break;
            }
        }
        if (path != PATH_WEIGHTS || node >= 0) {
            uint64_t expected =
                (uint64_t)g->accessors[s->input].count * per_key * (s->cubic ? 3 : 1);
            if (out->count != expected) {
                gltf_error(g,
                           "%s.sampler: the output accessor %lld has %u elements; %llu "
                           "expected for %u keyframes",
                           cpath, (long long)s->output, out->count, (unsigned long long)expected,
                           g->accessors[s->input].count);
                ok = false;
                break;
            }
        }
        if (path == PATH_ROTATION && !check_rotation_data(g, s->output, cpath)) {
            ok = false;
            break;
        }
        if (node >= 0)
            keys[key_count++] = (uint64_t)node << 32 | (uint64_t)path << 24 | (c & 0xffffffu);
    }
    if (ok && key_count > 1) {
        qsort(keys, key_count, sizeof *keys, compare_u64);
        for (size_t k = 1; k < key_count; k++) {
            if ((keys[k] >> 24) == (keys[k - 1] >> 24)) {
                gltf_error(g, "%s.channels[%llu].target: the same node and path as channel %llu",
                           jpath, (unsigned long long)(keys[k] & 0xffffffu),
                           (unsigned long long)(keys[k - 1] & 0xffffffu));
                ok = false;
                break;
            }
        }
    }
    free(keys);
    return ok;
}

static bool check_animation(gltf *g, size_t i) {
    const json_t *obj = gltf_element(g, g->j_animations, "animations", i);
    if (obj == NULL)
        return false;
    char jpath[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "animations[%zu]", i);
    const json_t *channels, *samplers;
    if (!gltf_get_array(g, obj, jpath, "channels", true, &channels) ||
        !gltf_get_array(g, obj, jpath, "samplers", true, &samplers))
        return false;
    size_t count = json_array_size(samplers);
    sampler_info *info = calloc(count, sizeof *info);
    if (info == NULL)
        return gltf_out_of_memory(g);
    bool ok = true;
    for (size_t s = 0; s < count && ok; s++) {
        char spath[GLTF_PATH_SIZE], ipath[GLTF_PATH_SIZE];
        gltf_pathf(spath, "%s.samplers[%zu]", jpath, s);
        gltf_pathf(ipath, "%s.input", spath);
        const json_t *sampler = json_array_get(samplers, s);
        const char *interpolation = NULL;
        if (!json_is_object(sampler)) {
            gltf_error(g, "%s: expected an object, found %s", spath, gltf_json_type_name(sampler));
            ok = false;
            break;
        }
        if (!gltf_check_object(g, sampler, spath) ||
            !gltf_get_index(g, sampler, spath, "input", true, "accessor", g->n_accessors,
                            &info[s].input) ||
            !gltf_get_index(g, sampler, spath, "output", true, "accessor", g->n_accessors,
                            &info[s].output) ||
            !gltf_accessor_valid(g, (uint32_t)info[s].input) ||
            !gltf_accessor_valid(g, (uint32_t)info[s].output) ||
            !gltf_get_string(g, sampler, spath, "interpolation", false, &interpolation)) {
            ok = false;
            break;
        }
        if (interpolation != NULL && strcmp(interpolation, "LINEAR") != 0 &&
            strcmp(interpolation, "STEP") != 0 && strcmp(interpolation, "CUBICSPLINE") != 0) {
            gltf_error(g, "%s.interpolation: '%.32s' is not LINEAR, STEP or CUBICSPLINE", spath,
                       interpolation);
            ok = false;
            break;
        }
        info[s].cubic = interpolation != NULL && strcmp(interpolation, "CUBICSPLINE") == 0;
        const gltf_accessor *in = &g->accessors[info[s].input];
        if (strcmp(in->type, "SCALAR") != 0 || in->component_type != GLTF_FLOAT) {
            gltf_error(g, "%s: accessor %lld is %s %s; animation inputs must be SCALAR FLOAT",
                       ipath, (long long)info[s].input, in->type,
                       gltf_component_name(in->component_type));
            ok = false;
            break;
        }
        if (!in->has_min || !in->has_max) {
            gltf_error(g, "%s: accessor %lld needs min and max (animation input)", ipath,
                       (long long)info[s].input);
            ok = false;
            break;
        }
        char opath[GLTF_PATH_SIZE];
        gltf_pathf(opath, "%s.output", spath);
        ok = no_stride(g, info[s].input, ipath) && no_stride(g, info[s].output, opath) &&
             check_input_data(g, info[s].input, ipath);
    }
    ok = ok && check_channels(g, channels, jpath, info, count);
    free(info);
    return ok;
}

bool gltf_check_animations(gltf *g) {
    bool ok = true;
    for (size_t i = 0; i < g->n_animations && !g->stopped; i++)
        ok = check_animation(g, i) && ok;
    return ok && !g->stopped;
}
