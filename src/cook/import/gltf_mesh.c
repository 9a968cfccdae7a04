/*
 * gltf_mesh.c — glTF meshes into ir_mesh.
 *
 * One ir_mesh per glTF mesh that has at least one imported primitive; every
 * imported primitive becomes one submesh, in order, with its topology
 * (triangles, lines or points). Vertices of primitives are appended and their
 * indices rebased — except that primitives reading exactly the same attribute
 * accessors share one copy of the vertices (a common exporter layout). A glTF
 * mesh without imported primitives produces no ir_mesh; nodes that use it get
 * mesh -1.
 *
 * Primitives
 *   mode 4 (TRIANGLES), 1 (LINES) and 0 (POINTS) as they are; 5
 *   (TRIANGLE_STRIP) and 6 (TRIANGLE_FAN) become triangle lists with the
 *   spec's vertex order (strip triangle i is {v[i], v[i + 1 + i % 2],
 *   v[i + 2 - i % 2]}, fan triangle i is {v[i + 1], v[i + 2], v[0]}), dropping
 *   the degenerate triangles strips use for stitching; 3 (LINE_STRIP) becomes
 *   the line list {v[i], v[i + 1]} and 2 (LINE_LOOP) the same plus the closing
 *   segment {v[n - 1], v[0]}. A TRIANGLES or LINES count that is not a whole
 *   number of primitives cooks the whole ones, with a warning naming what is
 *   left over. Skipped with a warning: a primitive without POSITION, one whose
 *   buffers hold no data (no uri), and one that yields no primitive.
 *   A KHR_draco_mesh_compression primitive is decoded through
 *   draco_decode.h into its accessors (decode_draco), which then read as any
 *   other; its uncompressed fallback is not read.
 *
 * Streams
 *   normals / tangents only when every triangle primitive of the mesh has
 *   them (otherwise none, so the pipeline generates them for the triangles),
 *   or, in a mesh without triangles, when every primitive has them; a line or
 *   point primitive without them in a mesh that has them gets (0, 0, 1) and
 *   (1, 0, 0, 1). texcoords[0..1], colors and joints/weights when any
 *   primitive has them, the others filled with 0 / opaque white / no weight
 *   (a weightless vertex, bound to its skin's root joint with weight 1 once
 *   the skins are read: ir_bind_weightless). Normals
 *   are normalised (a zero normal takes the normal of its faces); tangent xyz
 *   is normalised and w must be ±1. Colours are linear RGBA; float colours
 *   outside [0, 1] are clamped with a warning. Normals and tangents that are
 *   not unit length are normalised with a warning. Weights are normalised to
 *   sum to 1 (with a warning beyond glTF-Validator's tolerance; a negative
 *   weight is an error); with JOINTS_1/WEIGHTS_1 all eight influences stay,
 *   largest first across joints/joints1 (mesh.skin_influences then keeps
 *   four or eight: process_skin_influences). A joint beyond the skin of a node using the mesh is an
 *   error (checked with the nodes, gltf_scene.c).
 *
 * Morph targets
 *   Every target of the mesh (the same count in every primitive) becomes an
 *   ir_morph_target with the POSITION, NORMAL and TANGENT deltas any
 *   primitive's target has (zeros where a primitive's target lacks one),
 *   read through gltf_read_floats (sparse applied, normalised or quantised
 *   formats decoded: deltas in the base attribute's units); other target
 *   attributes are named in a warning. Names from mesh.extras.targetNames
 *   (an array of one string per target, else a warning). Primitives share
 *   vertices only with the same targets too.
 *
 * Validation (errors, with the JSON path): attribute names, index continuity
 * (TEXCOORD_1 needs TEXCOORD_0), accessor formats per semantic (integer
 * formats only with KHR_mesh_quantization), equal counts, indices format,
 * range and no primitive-restart values, morph targets (names, formats,
 * counts, same number in every primitive), a buffer view used for both
 * vertices and indices, and materials reading a TEXCOORD_n the primitive
 * lacks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "cook/core/parallel.h"
#include "cook/import/draco_decode.h"
#include "cook/import/gltf_internal.h"

enum {
    SEM_POSITION,
    SEM_NORMAL,
    SEM_TANGENT,
    SEM_TEXCOORD,
    SEM_COLOR,
    SEM_JOINTS,
    SEM_WEIGHTS,
    SEM_CUSTOM,
    SEM_INVALID,
};

/* The attributes kiln reads, in prim_info.attr. */
enum {
    A_POSITION,
    A_NORMAL,
    A_TANGENT,
    A_TEXCOORD0,
    A_TEXCOORD1,
    A_COLOR0,
    A_JOINTS0,
    A_WEIGHTS0,
    A_JOINTS1,
    A_WEIGHTS1,
    A_COUNT
};

typedef struct prim_info {
    bool imported; /* a primitive with POSITION and readable data */
    uint32_t mode;
    kiln_topology topology;
    int64_t indices;  /* accessor or -1 */
    int64_t material; /* glTF material or -1 */
    int64_t attr[A_COUNT];
    uint32_t vertex_count;
    uint32_t targets;          /* morph targets */
    const json_t *target_list; /* the primitive's "targets" array, or NULL */
    int32_t same_as;           /* earlier primitive with the same vertex data, or -1 */
    uint32_t base;             /* first vertex in the ir mesh */
} prim_info;

static const char *const mode_names[] = {"POINTS",    "LINES",          "LINE_LOOP",   "LINE_STRIP",
                                         "TRIANGLES", "TRIANGLE_STRIP", "TRIANGLE_FAN"};

/* ---------------------------------------------------------------------------
 * Validation
 * ------------------------------------------------------------------------- */

/* Semantic of an attribute name; *set receives the n of "TEXCOORD_n". */
static int parse_semantic(const char *name, uint32_t *set) {
    static const struct {
        const char *name;
        int semantic;
        bool indexed;
    } table[] = {{"POSITION", SEM_POSITION, false}, {"NORMAL", SEM_NORMAL, false},
                 {"TANGENT", SEM_TANGENT, false},   {"TEXCOORD_", SEM_TEXCOORD, true},
                 {"COLOR_", SEM_COLOR, true},       {"JOINTS_", SEM_JOINTS, true},
                 {"WEIGHTS_", SEM_WEIGHTS, true}};
    *set = 0;
    if (name[0] == '_')
        return name[1] != '\0' ? SEM_CUSTOM : SEM_INVALID;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        size_t length = strlen(table[i].name);
        if (strncmp(name, table[i].name, length) != 0)
            continue;
        if (!table[i].indexed)
            return name[length] == '\0' ? table[i].semantic : SEM_INVALID;
        const char *digits = name + length;
        size_t n = strlen(digits);
        if (n == 0 || n > 6 || (digits[0] == '0' && n > 1) || strspn(digits, "0123456789") != n)
            return SEM_INVALID;
        *set = (uint32_t)strtoul(digits, NULL, 10);
        return table[i].semantic;
    }
    return SEM_INVALID;
}

static bool is_type(const gltf_accessor *a, const char *type) {
    return strcmp(a->type, type) == 0;
}

/* Whether accessor `a` may hold `semantic` (glTF 2.0 §3.7.2.1 and
 * KHR_mesh_quantization); `expected` describes the allowed formats. */
static bool format_allowed(const gltf *g, int semantic, bool morph, const gltf_accessor *a,
                           const char **expected) {
    uint32_t ct = a->component_type;
    bool q = g->ext_quantization, n = a->normalized;
    bool is_float = ct == GLTF_FLOAT;
    bool small_signed = ct == GLTF_BYTE || ct == GLTF_SHORT;
    bool small_unsigned = ct == GLTF_UNSIGNED_BYTE || ct == GLTF_UNSIGNED_SHORT;
    switch (semantic) {
    case SEM_POSITION:
        *expected =
            q ? "VEC3 FLOAT, or (KHR_mesh_quantization) VEC3 of 8/16-bit integers" : "VEC3 FLOAT";
        return is_type(a, "VEC3") &&
               (is_float || (q && (small_signed || (!morph && small_unsigned))));
    case SEM_NORMAL:
        *expected =
            q ? "VEC3 FLOAT, or (KHR_mesh_quantization) normalized VEC3 BYTE/SHORT" : "VEC3 FLOAT";
        return is_type(a, "VEC3") && (is_float || (q && small_signed && n));
    case SEM_TANGENT:
        *expected = morph ? (q ? "VEC3 FLOAT or normalized VEC3 BYTE/SHORT" : "VEC3 FLOAT")
                          : (q ? "VEC4 FLOAT, or (KHR_mesh_quantization) normalized VEC4 "
                                 "BYTE/SHORT"
                               : "VEC4 FLOAT");
        return is_type(a, morph ? "VEC3" : "VEC4") && (is_float || (q && small_signed && n));
    case SEM_TEXCOORD:
        *expected = q ? "VEC2 FLOAT, or (KHR_mesh_quantization) VEC2 of 8/16-bit integers"
                      : "VEC2 FLOAT, or normalized VEC2 UNSIGNED_BYTE/UNSIGNED_SHORT";
        return is_type(a, "VEC2") &&
               (is_float || (small_unsigned && n) || (q && (small_signed || small_unsigned)) ||
                (morph && small_signed && n));
    case SEM_COLOR:
        *expected = "VEC3/VEC4 FLOAT, or normalized VEC3/VEC4 UNSIGNED_BYTE/UNSIGNED_SHORT";
        return (is_type(a, "VEC3") || is_type(a, "VEC4")) &&
               (is_float || (small_unsigned && n) || (morph && small_signed && n));
    case SEM_JOINTS:
        *expected = "VEC4 UNSIGNED_BYTE/UNSIGNED_SHORT (not normalized)";
        return !morph && is_type(a, "VEC4") && small_unsigned && !n;
    case SEM_WEIGHTS:
        *expected = "VEC4 FLOAT, or normalized VEC4 UNSIGNED_BYTE/UNSIGNED_SHORT";
        return is_type(a, "VEC4") &&
               (is_float || (small_unsigned && n) || (morph && small_signed && n));
    default:
        *expected = "of a component type other than UNSIGNED_INT";
        return ct != GLTF_UNSIGNED_INT;
    }
}

/* Indexed semantics must count up from 0 without gaps. */
typedef struct set_tracker {
    uint32_t count[SEM_CUSTOM];
    uint32_t max[SEM_CUSTOM];
} set_tracker;

static bool check_continuity(gltf *g, const set_tracker *sets, const char *jpath) {
    static const char *const names[SEM_CUSTOM] = {"",      "",       "",       "TEXCOORD",
                                                  "COLOR", "JOINTS", "WEIGHTS"};
    for (int s = SEM_TEXCOORD; s <= SEM_WEIGHTS; s++) {
        if (sets->count[s] > 0 && sets->count[s] != sets->max[s] + 1) {
            gltf_error(g, "%s: %s_%u is given but not every %s_n below it", jpath, names[s],
                       sets->max[s], names[s]);
            return false;
        }
    }
    return true;
}

/* Checks one attribute map (primitive attributes, or a morph target when
 * `base` is given) and fills info->attr for the base. */
static bool check_attributes(gltf *g, const json_t *map, const char *jpath, prim_info *info,
                             const json_t *base, uint32_t *count) {
    const char *name;
    const json_t *value;
    set_tracker sets;
    memset(&sets, 0, sizeof sets);
    bool ok = true, have_count = false;
    const char *first = NULL;
    json_object_foreach((json_t *)map, name, value) {
        char path[GLTF_PATH_SIZE];
        gltf_pathf(path, "%s.%.64s", jpath, name);
        uint32_t set;
        int semantic = parse_semantic(name, &set);
        if (semantic == SEM_INVALID) {
            gltf_error(g, "%s: invalid attribute name", path);
            ok = false;
            continue;
        }
        if (base != NULL && json_object_get(base, name) == NULL) {
            gltf_error(g, "%s: the morph target has an attribute the primitive lacks", path);
            ok = false;
            continue;
        }
        int64_t accessor;
        if (!gltf_index_value(g, value, path, "accessor", g->n_accessors, &accessor) ||
            !gltf_accessor_valid(g, (uint32_t)accessor)) {
            ok = false;
            continue;
        }
        const gltf_accessor *a = &g->accessors[accessor];
        const char *expected;
        if (!format_allowed(g, semantic, base != NULL, a, &expected)) {
            gltf_error(g, "%s: accessor %lld is %s %s%s; it must be %s", path, (long long)accessor,
                       a->type, a->normalized ? "normalized " : "",
                       gltf_component_name(a->component_type), expected);
            ok = false;
            continue;
        }
        if (base != NULL && a->count != *count) {
            gltf_error(g, "%s: accessor %lld has count %u, the primitive has %u vertices", path,
                       (long long)accessor, a->count, *count);
            ok = false;
            continue;
        }
        if (base == NULL && have_count && a->count != *count) {
            gltf_error(g, "%s: accessor %lld has count %u, but %s has %u", path,
                       (long long)accessor, a->count, first, *count);
            ok = false;
            continue;
        }
        if (base == NULL && !have_count) {
            have_count = true;
            *count = a->count;
            first = name;
        }
        if (!gltf_use_accessor_view(g, (uint32_t)accessor, GLTF_USE_VERTEX, path)) {
            ok = false;
            continue;
        }
        if (semantic < SEM_CUSTOM) {
            sets.count[semantic]++;
            if (set > sets.max[semantic])
                sets.max[semantic] = set;
        }
        if (base != NULL)
            continue;
        int slot = -1;
        switch (semantic) {
        case SEM_POSITION:
            slot = A_POSITION;
            break;
        case SEM_NORMAL:
            slot = A_NORMAL;
            break;
        case SEM_TANGENT:
            slot = A_TANGENT;
            break;
        case SEM_TEXCOORD:
            slot = set < 2 ? A_TEXCOORD0 + (int)set : -1;
            break;
        case SEM_COLOR:
            slot = set == 0 ? A_COLOR0 : -1;
            break;
        case SEM_JOINTS:
            slot = set < 2 ? (set == 0 ? A_JOINTS0 : A_JOINTS1) : -1;
            break;
        case SEM_WEIGHTS:
            slot = set < 2 ? (set == 0 ? A_WEIGHTS0 : A_WEIGHTS1) : -1;
            break;
        default:
            break;
        }
        if (slot >= 0)
            info->attr[slot] = accessor;
    }
    return ok && check_continuity(g, &sets, jpath);
}

/* ---------------------------------------------------------------------------
 * KHR_draco_mesh_compression
 * ------------------------------------------------------------------------- */

/* The decoded faces as the indices accessor's own component type. */
static uint8_t *draco_indices(gltf *g, const draco_mesh *mesh, const gltf_accessor *a,
                              const char *path) {
    uint32_t max = a->component_size == 1 ? 0xffu : (a->component_size == 2 ? 0xffffu : UINT32_MAX);
    uint8_t *bytes = malloc((size_t)a->count * a->component_size);
    if (bytes == NULL) {
        gltf_out_of_memory(g);
        return NULL;
    }
    for (uint32_t i = 0; i < a->count; i++) {
        uint32_t v = mesh->indices[i];
        if (v > max) {
            gltf_error(g, "%s: decoded index %u (element %u) does not fit its %s accessor", path, v,
                       i, gltf_component_name(a->component_type));
            free(bytes);
            return NULL;
        }
        for (uint32_t k = 0; k < a->component_size; k++)
            bytes[(size_t)i * a->component_size + k] = (uint8_t)(v >> (8 * k));
    }
    return bytes;
}

/* Decodes a primitive's Draco data and binds it to the accessors the
 * extension's "attributes" name and to the indices accessor: from then on
 * they read as any accessor (per their componentType, normalized, sparse),
 * in place of their bufferViews. Those bufferViews are the uncompressed
 * fallback; with the extension in extensionsRequired there is none, and when
 * it is only in extensionsUsed Draco is preferred anyway: it is the data the
 * exporter compressed, and one path reads every Draco file the same way. */
static bool decode_draco(gltf *g, const json_t *ext, const json_t *attributes, const char *jpath,
                         prim_info *info) {
    char path[GLTF_PATH_SIZE], apath[GLTF_PATH_SIZE];
    gltf_pathf(path, "%s.extensions.KHR_draco_mesh_compression", jpath);
    int64_t view;
    const json_t *map;
    if (!gltf_get_index(g, ext, path, "bufferView", true, "bufferView", g->n_views, &view) ||
        !gltf_get_object(g, ext, path, "attributes", true, &map) ||
        !gltf_view_valid(g, (uint32_t)view))
        return false;
    if (info->mode != 4 || info->indices < 0) {
        gltf_error(g, "%s: Draco data decodes to indexed triangles; the primitive must be %s", path,
                   info->mode != 4 ? "TRIANGLES" : "indexed ('indices')");
        return false;
    }
    size_t count = json_object_size(map);
    draco_request *requests = calloc(count + 1, sizeof *requests);
    uint32_t *bound = calloc(count + 1, sizeof *bound); /* accessor per request */
    if (requests == NULL || bound == NULL) {
        free(requests);
        free(bound);
        return gltf_out_of_memory(g);
    }
    gltf_accessor *ia = &g->accessors[info->indices];
    uint64_t bytes = (uint64_t)ia->count * sizeof(uint32_t);
    bool ok = true, done = ia->decoded != NULL && ia->decoded_view == (uint32_t)view;
    size_t n = 0;
    const char *name;
    const json_t *value;
    json_object_foreach((json_t *)map, name, value) {
        gltf_pathf(apath, "%s.attributes.%.64s", path, name);
        int64_t id, accessor;
        const json_t *plain = json_object_get(attributes, name);
        if (plain == NULL) {
            gltf_error(g, "%s: the primitive has no attribute %.64s", apath, name);
            ok = false;
            break;
        }
        if (!gltf_index_value(g, value, apath, "Draco attribute id", (size_t)UINT32_MAX + 1, &id) ||
            !gltf_index_value(g, plain, apath, "accessor", g->n_accessors, &accessor)) {
            ok = false;
            break;
        }
        gltf_accessor *a = &g->accessors[accessor]; /* validated by check_attributes */
        if (a->columns != 1) {
            gltf_error(g, "%s: accessor %lld is a matrix; Draco attributes are scalars or vectors",
                       apath, (long long)accessor);
            ok = false;
            break;
        }
        done &= a->decoded != NULL && a->decoded_view == (uint32_t)view;
        requests[n] = (draco_request){(uint32_t)id, a->component_type, a->components};
        bound[n++] = (uint32_t)accessor;
        bytes += (uint64_t)a->count * a->element_size;
    }
    /* Primitives sharing one Draco view and its accessors decode it once. */
    ok = ok && (done || gltf_charge(g, bytes, path));
    const uint8_t *data = NULL;
    draco_mesh mesh = {0};
    char reason[300];
    if (ok && !done && gltf_view_bytes(g, (uint32_t)view, &data)) {
        g->views[view].usage |= GLTF_USE_OTHER;
        if (!draco_decode_mesh(data, (size_t)g->views[view].length, requests, n, bytes + g->budget,
                               g->ctx->source_path, g->ctx->settings->import_timeout, &mesh, reason,
                               sizeof reason)) {
            gltf_error(g, "%s: bufferViews[%lld]: %s", path, (long long)view, reason);
            ok = false;
        }
    } else if (ok && !done) {
        ok = false; /* gltf_view_bytes reported it */
    }
    for (size_t r = 0; ok && !done && r < n; r++) {
        gltf_accessor *a = &g->accessors[bound[r]];
        if (a->count != mesh.point_count) {
            gltf_error(g, "%s: accessor %u has count %u; the Draco data decodes %u points", path,
                       bound[r], a->count, mesh.point_count);
            ok = false;
        } else if (a->decoded != NULL) {
            gltf_error(g, "%s: accessor %u is decoded from another Draco bufferView too", path,
                       bound[r]);
            ok = false;
        }
    }
    if (ok && !done && (uint64_t)mesh.face_count * 3 != ia->count) {
        gltf_error(g,
                   "%s: the indices accessor %lld has count %u; the Draco data decodes %u "
                   "triangles (%llu indices)",
                   path, (long long)info->indices, ia->count, mesh.face_count,
                   (unsigned long long)mesh.face_count * 3);
        ok = false;
    }
    if (ok && !done) {
        gltf_pathf(apath, "%s.indices", jpath);
        free(ia->decoded);
        ia->decoded = draco_indices(g, &mesh, ia, apath);
        ia->decoded_view = (uint32_t)view;
        ok = ia->decoded != NULL;
        for (size_t r = 0; ok && r < n; r++) {
            g->accessors[bound[r]].decoded = mesh.values[r];
            g->accessors[bound[r]].decoded_view = (uint32_t)view;
            mesh.values[r] = NULL; /* owned by the accessor now */
        }
    }
    draco_mesh_free(&mesh);
    free(requests);
    free(bound);
    return ok;
}

static bool check_primitive(gltf *g, const json_t *prim, const char *jpath, prim_info *info) {
    for (int k = 0; k < A_COUNT; k++)
        info->attr[k] = -1;
    info->same_as = -1;
    uint64_t mode = 4;
    const json_t *attributes, *targets;
    if (!gltf_get_object(g, prim, jpath, "attributes", true, &attributes) ||
        !gltf_get_index(g, prim, jpath, "indices", false, "accessor", g->n_accessors,
                        &info->indices) ||
        !gltf_get_index(g, prim, jpath, "material", false, "material", g->n_materials,
                        &info->material) ||
        !gltf_get_uint(g, prim, jpath, "mode", false, 0, 6, &mode) ||
        !gltf_get_array(g, prim, jpath, "targets", false, &targets))
        return false;
    info->mode = (uint32_t)mode;
    char path[GLTF_PATH_SIZE];
    gltf_pathf(path, "%s.attributes", jpath);
    uint32_t count = 0;
    if (!check_attributes(g, attributes, path, info, NULL, &count))
        return false;
    info->vertex_count = count;
    if (info->indices >= 0) {
        if (!gltf_accessor_valid(g, (uint32_t)info->indices))
            return false;
        const gltf_accessor *a = &g->accessors[info->indices];
        gltf_pathf(path, "%s.indices", jpath);
        if (!is_type(a, "SCALAR") || a->normalized || a->component_type == GLTF_FLOAT ||
            a->component_type == GLTF_BYTE || a->component_type == GLTF_SHORT) {
            gltf_error(g,
                       "%s: accessor %lld is %s %s; indices must be SCALAR UNSIGNED_BYTE, "
                       "UNSIGNED_SHORT or UNSIGNED_INT",
                       path, (long long)info->indices, a->type,
                       gltf_component_name(a->component_type));
            return false;
        }
        if (a->view >= 0 && g->views[a->view].stride != 0) {
            gltf_error(g,
                       "%s: accessor %lld is in bufferViews[%lld], which has a byteStride; "
                       "index data must be tightly packed",
                       path, (long long)info->indices, (long long)a->view);
            return false;
        }
        if (!gltf_use_accessor_view(g, (uint32_t)info->indices, GLTF_USE_INDEX, path))
            return false;
    }
    for (size_t t = 0; targets != NULL && t < json_array_size(targets); t++) {
        const json_t *target = json_array_get(targets, t);
        gltf_pathf(path, "%s.targets[%zu]", jpath, t);
        if (!json_is_object(target)) {
            gltf_error(g, "%s: expected an object, found %s", path, gltf_json_type_name(target));
            return false;
        }
        if (!check_attributes(g, target, path, info, attributes, &count))
            return false;
    }
    info->targets = targets ? (uint32_t)json_array_size(targets) : 0;
    info->target_list = targets;
    if (info->material >= 0) {
        uint32_t sets = g->material_uv_sets[info->material];
        for (uint32_t k = 0; k < 32; k++) {
            char name[16];
            snprintf(name, sizeof name, "TEXCOORD_%u", k);
            if ((sets >> k & 1u) && json_object_get(attributes, name) == NULL) {
                gltf_error(g, "%s.material: materials[%lld] reads %s, which the primitive lacks",
                           jpath, (long long)info->material, name);
                return false;
            }
        }
    }
    info->topology = info->mode >= 4   ? KILN_TOPOLOGY_TRIANGLES
                     : info->mode >= 1 ? KILN_TOPOLOGY_LINES
                                       : KILN_TOPOLOGY_POINTS;
    info->imported = true;
    if (info->attr[A_POSITION] < 0) {
        gltf_warning(g, "%s: no POSITION attribute; skipped", jpath);
        info->imported = false;
    } else {
        const gltf_accessor *position = &g->accessors[info->attr[A_POSITION]];
        if (!position->has_min || !position->has_max) /* glTF-Validator: an error */
            gltf_warning(g,
                         "%s.attributes.POSITION: accessors[%lld] has no %s (glTF requires min "
                         "and max on positions); kiln computes the bounds from the vertices",
                         jpath, (long long)info->attr[A_POSITION],
                         !position->has_min && !position->has_max ? "min and max"
                         : position->has_min                      ? "max"
                                                                  : "min");
    }
    if (info->imported && (info->attr[A_JOINTS0] >= 0) != (info->attr[A_WEIGHTS0] >= 0))
        gltf_warning(g, "%s: %s without %s; the skinning data is ignored", jpath,
                     info->attr[A_JOINTS0] >= 0 ? "JOINTS_0" : "WEIGHTS_0",
                     info->attr[A_JOINTS0] >= 0 ? "WEIGHTS_0" : "JOINTS_0");
    const json_t *draco = gltf_extension(prim, "KHR_draco_mesh_compression");
    if (info->imported && draco != NULL && g->ext_draco &&
        !decode_draco(g, draco, attributes, jpath, info))
        return false;
    if (info->imported && draco != NULL && !g->ext_draco &&
        !gltf_accessor_stored(g, (uint32_t)info->attr[A_POSITION])) {
        gltf_warning(g,
                     "%s: Draco-compressed, but KHR_draco_mesh_compression is not in "
                     "extensionsUsed, and there is no uncompressed fallback; skipped",
                     jpath);
        info->imported = false;
    }
    bool readable = info->indices < 0 || gltf_accessor_readable(g, (uint32_t)info->indices);
    for (int k = 0; k < A_COUNT; k++)
        readable &= info->attr[k] < 0 || gltf_accessor_readable(g, (uint32_t)info->attr[k]);
    for (size_t t = 0; t < info->targets; t++) { /* validated above: accessor indices */
        const char *name;
        const json_t *value;
        json_object_foreach((json_t *)json_array_get(targets, t), name, value) readable &=
            gltf_accessor_readable(g, (uint32_t)json_integer_value(value));
    }
    if (info->imported && !readable) {
        gltf_warning(g, "%s: its data is in a buffer without data (no uri%s); skipped", jpath,
                     g->glb ? " and no GLB BIN chunk" : "");
        info->imported = false;
    }
    return true;
}

/* ---------------------------------------------------------------------------
 * Conversion
 * ------------------------------------------------------------------------- */

typedef struct mesh_streams {
    bool normals, tangents, texcoords[2], colors, skin, skin8;
} mesh_streams;

static void *alloc_stream(gltf *g, uint32_t vertices, size_t element, const char *jpath) {
    uint64_t bytes = (uint64_t)vertices * element;
    if (!gltf_charge(g, bytes, jpath))
        return NULL;
    void *data = calloc(vertices, element);
    if (data == NULL)
        gltf_out_of_memory(g);
    return data;
}

/* Reads attribute `slot` of a primitive as floats, or NULL when absent. */
static bool read_attr(gltf *g, const prim_info *info, int slot, const char *jpath, const char *name,
                      float **out) {
    *out = NULL;
    if (info->attr[slot] < 0)
        return true;
    char path[GLTF_PATH_SIZE];
    gltf_pathf(path, "%s.attributes.%s", jpath, name);
    return gltf_read_floats(g, (uint32_t)info->attr[slot], path, out);
}

static float clamp01(float v) {
    return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}

/* Keeps the `keep` (4 or 8) largest of `n` influences, largest first,
 * normalised to sum to 1 (all 0 without weight). */
static void pack_influences(const uint32_t *joints, const float *weights, int n, int keep,
                            uint16_t out_joints[8], float out_weights[8]) {
    int order[8];
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = 1; i < n; i++) /* stable insertion sort, largest first */
        for (int j = i; j > 0 && weights[order[j]] > weights[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    float sum = 0.0f;
    for (int k = 0; k < keep; k++) {
        float w = k < n ? weights[order[k]] : 0.0f;
        out_weights[k] = w > 0.0f ? w : 0.0f;
        out_joints[k] = k < n && out_weights[k] > 0.0f ? (uint16_t)joints[order[k]] : 0;
        sum += out_weights[k];
    }
    for (int k = 0; k < keep; k++) /* weightless (all 0): bound to the skin's root later */
        out_weights[k] = sum > 0.0f && isfinite(sum) ? out_weights[k] / sum : 0.0f;
}

/* glTF-Validator's tolerance for a sum of weights: exact for 1-2 influences,
 * one 8-bit step more per further pair (ACCESSOR_WEIGHTS_NON_NORMALIZED). */
static float weight_sum_tolerance(int influences) {
    int pairs = (influences + 1) >> 1;
    return (pairs > 1 ? (float)(pairs - 1) / 255.0f : 0.0f) + 1e-5f;
}

static bool read_skin(gltf *g, const prim_info *info, const char *jpath, ir_mesh *mesh,
                      gltf_joint_use *joints_used) {
    uint32_t base = info->base, n = info->vertex_count;
    if (info->attr[A_JOINTS0] < 0 || info->attr[A_WEIGHTS0] < 0)
        return true; /* weightless: ir_bind_weightless binds them to the skin's root */
    bool eight = info->attr[A_JOINTS1] >= 0 && info->attr[A_WEIGHTS1] >= 0;
    int sets = eight ? 2 : 1;
    uint32_t *joints[2] = {NULL, NULL};
    float *weights[2] = {NULL, NULL};
    char path[GLTF_PATH_SIZE];
    bool ok = true;
    for (int s = 0; s < sets && ok; s++) {
        gltf_pathf(path, "%s.attributes.JOINTS_%d", jpath, s);
        ok = gltf_read_uints(g, (uint32_t)info->attr[s ? A_JOINTS1 : A_JOINTS0], path, &joints[s]);
        ok = ok && read_attr(g, info, s ? A_WEIGHTS1 : A_WEIGHTS0, jpath,
                             s ? "WEIGHTS_1" : "WEIGHTS_0", &weights[s]);
    }
    /* The largest joint, checked against the skins of the nodes using the
     * mesh once nodes are read (every component, as the validator does). */
    for (int s = 0; s < sets && ok; s++)
        for (size_t k = 0; k < 4 * (size_t)n; k++)
            if (joints[s][k] + 1 > joints_used->max_plus1) {
                joints_used->max_plus1 = joints[s][k] + 1;
                joints_used->set = (uint32_t)s;
                joints_used->element = (uint32_t)(k / 4);
            }
    uint32_t unnormalised = 0, first = 0;
    for (uint32_t v = 0; ok && v < n; v++) {
        uint32_t j[8];
        float w[8], sum = 0.0f;
        int used = 0;
        for (int s = 0; s < sets; s++) {
            memcpy(j + 4 * s, joints[s] + 4 * (size_t)v, 4 * sizeof *j);
            memcpy(w + 4 * s, weights[s] + 4 * (size_t)v, 4 * sizeof *w);
        }
        for (int k = 0; k < 4 * sets; k++) {
            if (w[k] < 0.0f) {
                gltf_error(g, "%s.attributes.WEIGHTS_%d: element %u has the negative weight %g",
                           jpath, k / 4, v, (double)w[k]);
                ok = false;
                break;
            }
            sum += w[k];
            used += w[k] != 0.0f;
        }
        if (ok && fabsf(sum - 1.0f) > weight_sum_tolerance(used) && unnormalised++ == 0)
            first = v;
        size_t dst = 4 * (size_t)(base + v);
        uint16_t packed_joints[8];
        float packed_weights[8];
        int keep = mesh->joints1 != NULL ? 8 : 4;
        pack_influences(j, w, 4 * sets, keep, packed_joints, packed_weights);
        memcpy(mesh->joints + dst, packed_joints, 4 * sizeof *packed_joints);
        memcpy(mesh->weights + dst, packed_weights, 4 * sizeof *packed_weights);
        if (keep == 8) {
            memcpy(mesh->joints1 + dst, packed_joints + 4, 4 * sizeof *packed_joints);
            memcpy(mesh->weights1 + dst, packed_weights + 4, 4 * sizeof *packed_weights);
        }
    }
    if (ok && unnormalised > 0)
        gltf_warning(g,
                     "%s.attributes.WEIGHTS_0: the weights of %u vertices (the first: element "
                     "%u) do not sum to 1; renormalised",
                     jpath, unnormalised, first);
    for (int s = 0; s < 2; s++) {
        free(joints[s]);
        free(weights[s]);
    }
    return ok;
}

/* Reads attribute `slot` of a primitive as floats straight into `out` (the
 * mesh's stream at the primitive's base: components as the stream's, which
 * format_allowed guarantees); absent, `out` keeps its zeros. */
static bool read_attr_into(gltf *g, const prim_info *info, int slot, const char *jpath,
                           const char *name, float *out) {
    if (info->attr[slot] < 0)
        return true;
    char path[GLTF_PATH_SIZE];
    gltf_pathf(path, "%s.attributes.%s", jpath, name);
    return gltf_read_floats_into(g, (uint32_t)info->attr[slot], path, out);
}

/* glTF-Validator's tolerance for a unit vector (ACCESSOR_VECTOR3_NON_UNIT). */
#define UNIT_TOLERANCE 0.00674f

/* Normals normalised in place in blocks on the asset's threads: each
 * vertex's own, the counts summed after. */
#define NORMAL_BLOCK 65536u

typedef struct normals_job {
    float *normals;
    uint32_t count;
    uint8_t *bad;          /* per vertex: 1 for a zero or non-finite normal */
    uint32_t (*counts)[2]; /* per block: bad, not unit length */
} normals_job;

static void normalize_block(void *ctx, uint32_t block) {
    normals_job *job = ctx;
    uint32_t first = block * NORMAL_BLOCK;
    uint32_t end = job->count - first < NORMAL_BLOCK ? job->count : first + NORMAL_BLOCK;
    uint32_t bad = 0, non_unit = 0;
    for (uint32_t v = first; v < end; v++) {
        float *n = job->normals + 3 * (size_t)v;
        float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(length > 1e-12f) || !isfinite(length)) {
            job->bad[v] = 1;
            bad++;
            n[0] = n[1] = n[2] = 0.0f; /* geometry_repair_normals replaces it */
            continue;
        }
        non_unit += fabsf(length - 1.0f) > UNIT_TOLERANCE;
        for (int k = 0; k < 3; k++)
            n[k] /= length;
    }
    job->counts[block][0] = bad;
    job->counts[block][1] = non_unit;
}

/* Unit length for normals[0..count) (as read), marking the unusable ones in
 * bad[] for geometry_repair_normals; adds to *bad_count and *non_unit. */
static bool normalize_normals(gltf *g, float *normals, uint32_t count, uint8_t *bad,
                              uint32_t *bad_count, uint32_t *non_unit) {
    uint32_t blocks = (uint32_t)(((uint64_t)count + NORMAL_BLOCK - 1) / NORMAL_BLOCK);
    uint32_t(*counts)[2] = malloc((blocks ? blocks : 1) * sizeof *counts);
    if (counts == NULL)
        return gltf_out_of_memory(g);
    normals_job job = {normals, count, bad, counts};
    parallel_for(gltf_threads(g), blocks, normalize_block, &job);
    for (uint32_t b = 0; b < blocks; b++) {
        *bad_count += counts[b][0];
        *non_unit += counts[b][1];
    }
    free(counts);
    return true;
}

/* Reads the vertex streams of one primitive into the mesh at info->base. */
static bool read_vertices(gltf *g, const prim_info *info, const char *jpath,
                          const mesh_streams *streams, ir_mesh *mesh, uint8_t *bad_normals,
                          uint32_t *bad_count, gltf_joint_use *joints_used) {
    uint32_t base = info->base, n = info->vertex_count;
    float *data = NULL;
    if (!read_attr_into(g, info, A_POSITION, jpath, "POSITION", mesh->positions + 3 * (size_t)base))
        return false;

    if (streams->normals) {
        uint32_t non_unit = 0;
        float *normals = mesh->normals + 3 * (size_t)base;
        if (info->attr[A_NORMAL] < 0) {
            for (uint32_t v = 0; v < n; v++) /* lines or points without */
                normals[3 * (size_t)v + 2] = 1.0f;
        } else if (!read_attr_into(g, info, A_NORMAL, jpath, "NORMAL", normals) ||
                   !normalize_normals(g, normals, n, bad_normals + base, bad_count, &non_unit)) {
            return false;
        }
        if (non_unit > 0)
            gltf_warning(g, "%s.attributes.NORMAL: %u normals are not unit length; normalised",
                         jpath, non_unit);
    }
    if (streams->tangents) {
        uint32_t non_unit = 0, no_sign = 0, first_no_sign = 0;
        if (!read_attr(g, info, A_TANGENT, jpath, "TANGENT", &data))
            return false;
        for (uint32_t v = 0; data == NULL && v < n; v++) {
            mesh->tangents[4 * (size_t)(base + v)] = 1.0f;
            mesh->tangents[4 * (size_t)(base + v) + 3] = 1.0f;
        }
        for (uint32_t v = 0; data != NULL && v < n; v++) {
            float *dst = mesh->tangents + 4 * (size_t)(base + v);
            const float *src = data + 4 * (size_t)v;
            if (src[3] == 0.0f) { /* no handedness: repaired as +1, one warning below */
                first_no_sign = no_sign++ == 0 ? v : first_no_sign;
            } else if (fabsf(fabsf(src[3]) - 1.0f) > 1e-3f) {
                gltf_error(g,
                           "%s.attributes.TANGENT: element %u has w = %g; w must be 1 or -1 "
                           "(the bitangent's sign)",
                           jpath, v, (double)src[3]);
                free(data);
                return false;
            }
            float length = sqrtf(src[0] * src[0] + src[1] * src[1] + src[2] * src[2]);
            non_unit += !(fabsf(length - 1.0f) <= UNIT_TOLERANCE);
            if (length > 1e-12f && isfinite(length)) {
                for (int k = 0; k < 3; k++)
                    dst[k] = src[k] / length;
            } else {
                dst[0] = 1.0f; /* any unit vector; normal maps will not rely on it */
            }
            dst[3] = src[3] < 0.0f ? -1.0f : 1.0f;
        }
        if (no_sign > 0) /* glTF-Validator: ACCESSOR_INVALID_SIGN, an error */
            gltf_warning(g,
                         "%s.attributes.TANGENT: %u element%s (the first: %u) ha%s w = 0, not 1 "
                         "or -1 (the bitangent's sign); repaired as 1",
                         jpath, no_sign, no_sign == 1 ? "" : "s", first_no_sign,
                         no_sign == 1 ? "s" : "ve");
        free(data);
        if (non_unit > 0)
            gltf_warning(g,
                         "%s.attributes.TANGENT: %u tangents are not unit length; normalised "
                         "(zero ones replaced)",
                         jpath, non_unit);
    }
    for (int t = 0; t < 2; t++) {
        if (!streams->texcoords[t])
            continue;
        if (!read_attr_into(g, info, A_TEXCOORD0 + t, jpath, t ? "TEXCOORD_1" : "TEXCOORD_0",
                            mesh->texcoords[t] + 2 * (size_t)base))
            return false;
    }
    if (streams->colors) {
        if (!read_attr(g, info, A_COLOR0, jpath, "COLOR_0", &data))
            return false;
        uint32_t components = data ? g->accessors[info->attr[A_COLOR0]].components : 0;
        bool clamped = false;
        for (uint32_t v = 0; v < n; v++) {
            float *dst = mesh->colors + 4 * (size_t)(base + v);
            dst[0] = dst[1] = dst[2] = dst[3] = 1.0f;
            for (uint32_t k = 0; k < components; k++) {
                float c = data[(size_t)v * components + k];
                clamped |= c < 0.0f || c > 1.0f;
                dst[k] = clamp01(c);
            }
        }
        if (clamped)
            gltf_warning(g, "%s.attributes.COLOR_0: colours outside [0, 1] were clamped", jpath);
        free(data);
    }
    if (streams->skin && !read_skin(g, info, jpath, mesh, joints_used))
        return false;
    return true;
}

/* The morph deltas kiln cooks, as named in a target. */
static const char *const morph_attribute_names[3] = {"POSITION", "NORMAL", "TANGENT"};

/* Reads one primitive's morph target deltas into the mesh's targets at
 * info->base (the streams the mesh has; absent ones stay 0). Sparse
 * accessors are applied and normalised or quantised formats decoded by
 * gltf_read_floats: the deltas are in the units of the base attribute. */
static bool read_targets(gltf *g, const prim_info *info, const char *jpath, ir_mesh *mesh) {
    for (uint32_t t = 0; t < mesh->target_count && t < info->targets; t++) {
        const json_t *target = json_array_get(info->target_list, t);
        for (int k = 0; k < 3; k++) {
            float *stream = *ir_morph_stream(&mesh->targets[t], k);
            const json_t *value = json_object_get(target, morph_attribute_names[k]);
            if (stream == NULL || value == NULL)
                continue;
            char path[GLTF_PATH_SIZE];
            gltf_pathf(path, "%s.targets[%u].%s", jpath, t, morph_attribute_names[k]);
            float *data;
            if (!gltf_read_floats(g, (uint32_t)json_integer_value(value), path, &data))
                return false;
            if (data != NULL)
                memcpy(stream + 3 * (size_t)info->base, data,
                       3 * sizeof(float) * info->vertex_count);
            free(data);
        }
    }
    return true;
}

/* The morph targets of a mesh: which delta streams (any primitive's target
 * with POSITION, NORMAL, TANGENT), allocated zeroed, and their names
 * (mesh.extras.targetNames). Other target attributes (TEXCOORD_n, COLOR_n,
 * custom) are named in a warning: not cooked. */
static bool alloc_targets(gltf *g, const json_t *obj, const char *jpath, const prim_info *prims,
                          size_t count, uint32_t target_count, ir_mesh *mesh) {
    if (target_count == 0)
        return true;
    bool has[3] = {false, false, false};
    const char *dropped = NULL;
    size_t dropped_prim = 0, dropped_target = 0;
    for (size_t p = 0; p < count; p++) {
        if (!prims[p].imported)
            continue;
        for (size_t t = 0; t < prims[p].targets; t++) {
            const char *name;
            const json_t *value;
            json_object_foreach((json_t *)json_array_get(prims[p].target_list, t), name, value) {
                int k = 0;
                while (k < 3 && strcmp(name, morph_attribute_names[k]) != 0)
                    k++;
                if (k < 3)
                    has[k] = true;
                else if (dropped == NULL) {
                    dropped = name;
                    dropped_prim = p;
                    dropped_target = t;
                }
            }
        }
    }
    if (dropped != NULL)
        gltf_warning(g,
                     "%s.primitives[%zu].targets[%zu].%.64s: morph deltas of attributes other "
                     "than POSITION, NORMAL and TANGENT are not cooked; dropped",
                     jpath, dropped_prim, dropped_target, dropped);
    mesh->targets = calloc(target_count, sizeof *mesh->targets);
    if (mesh->targets == NULL)
        return gltf_out_of_memory(g);
    mesh->target_count = target_count;
    for (uint32_t t = 0; t < target_count; t++)
        for (int k = 0; k < 3; k++)
            if (has[k] && (*ir_morph_stream(&mesh->targets[t], k) = alloc_stream(
                               g, mesh->vertex_count, 3 * sizeof(float), jpath)) == NULL)
                return false;
    const json_t *extras = json_object_get(obj, "extras");
    const json_t *names = json_is_object(extras) ? json_object_get(extras, "targetNames") : NULL;
    if (names == NULL)
        return true;
    bool valid = json_is_array(names) && json_array_size(names) == target_count;
    for (size_t t = 0; valid && t < target_count; t++)
        valid = json_is_string(json_array_get(names, t));
    if (!valid) {
        gltf_warning(g,
                     "%s.extras.targetNames: not an array of %u strings (one per morph target); "
                     "the targets are cooked without names",
                     jpath, target_count);
        return true;
    }
    for (uint32_t t = 0; t < target_count; t++) {
        const char *name = json_string_value(json_array_get(names, t));
        if (name[0] != '\0' && (mesh->targets[t].name = cook_strdup(name)) == NULL)
            return gltf_out_of_memory(g);
    }
    return true;
}

/* Indices a primitive of `n` vertices (or indices) of `mode` can yield as a
 * list: a bound for the index buffer. */
static uint64_t list_bound(uint32_t mode, uint64_t n) {
    switch (mode) {
    case 2: /* LINE_LOOP: n segments with the closing one */
        return n >= 2 ? 2 * n : 0;
    case 3: /* LINE_STRIP */
        return n >= 2 ? 2 * (n - 1) : 0;
    case 5: /* TRIANGLE_STRIP */
    case 6: /* TRIANGLE_FAN */
        return n >= 3 ? 3 * (n - 2) : 0;
    default: /* POINTS, LINES, TRIANGLES: as they are */
        return n;
    }
}

/* Indices per item of check_indices. */
#define INDEX_BLOCK 262144u

typedef struct index_job {
    uint32_t *indices;
    uint32_t count, vertex_count, restart, base;
    uint32_t *first_bad; /* per block: its first bad element, or UINT32_MAX */
} index_job;

static void index_block(void *ctx, uint32_t block) {
    index_job *job = ctx;
    uint32_t first = block * INDEX_BLOCK;
    uint32_t end = job->count - first < INDEX_BLOCK ? job->count : first + INDEX_BLOCK;
    job->first_bad[block] = UINT32_MAX;
    for (uint32_t i = first; i < end; i++) {
        uint32_t index = job->indices[i];
        if (index >= job->vertex_count || index == job->restart) {
            job->first_bad[block] = i;
            return;
        }
        job->indices[i] = job->base + index;
    }
}

/* Checks indices[0..n) of the primitive's index accessor (read at `path`)
 * against its vertex count and the primitive-restart value, in blocks on
 * the asset's threads, adding `base` to each; the first bad one is the
 * error. */
static bool check_indices(gltf *g, const prim_info *info, const char *path, uint32_t *indices,
                          uint32_t n, uint32_t base) {
    const gltf_accessor *a = &g->accessors[info->indices];
    uint32_t blocks = (uint32_t)(((uint64_t)n + INDEX_BLOCK - 1) / INDEX_BLOCK);
    uint32_t *first_bad = malloc((blocks ? blocks : 1) * sizeof *first_bad);
    if (first_bad == NULL)
        return gltf_out_of_memory(g);
    uint32_t restart =
        a->component_size == 1 ? 0xffu : (a->component_size == 2 ? 0xffffu : 0xffffffffu);
    index_job job = {indices, n, info->vertex_count, restart, base, first_bad};
    parallel_for(gltf_threads(g), blocks, index_block, &job);
    uint32_t bad = UINT32_MAX;
    for (uint32_t b = 0; b < blocks && bad == UINT32_MAX; b++)
        bad = first_bad[b];
    free(first_bad);
    if (bad == UINT32_MAX)
        return true;
    uint32_t index = indices[bad]; /* its block stopped before rebasing it */
    if (index >= info->vertex_count)
        gltf_error(g, "%s: index %u (element %u) is out of range: the primitive has %u vertices",
                   path, index, bad, info->vertex_count);
    else
        gltf_error(g, "%s: element %u is the primitive-restart value %u, which glTF does not allow",
                   path, bad, restart);
    return false;
}

/* The primitives of one primitive as a list appended to `indices`
 * (rebased); returns false on an error. *written receives the number of
 * indices added. */
static bool build_primitives(gltf *g, const prim_info *info, const char *jpath, uint32_t *indices,
                             uint32_t *written) {
    *written = 0;
    uint32_t *source = NULL;
    uint32_t n = info->vertex_count;
    /* An indexed list is read straight into `indices` (the room its bound
     * reserves, list_bound) and rebased there; other primitives' indices are
     * read apart and rearranged below. */
    bool list = info->mode == 0 || info->mode == 1 || info->mode == 4;
    bool in_place = info->indices >= 0 && list;
    if (info->indices >= 0) {
        char path[GLTF_PATH_SIZE];
        gltf_pathf(path, "%s.indices", jpath);
        n = g->accessors[info->indices].count;
        bool ok = in_place ? gltf_read_uints_into(g, (uint32_t)info->indices, path, indices)
                           : gltf_read_uints(g, (uint32_t)info->indices, path, &source);
        if (!ok || !check_indices(g, info, path, in_place ? indices : source, n,
                                  in_place ? info->base : 0)) {
            free(source);
            return false;
        }
    }
#define VERTEX(i) (source ? source[i] : (i))
    uint32_t out = 0;
    if (list) {
        /* Lists: the whole primitives, and a warning for a partial last one. */
        uint32_t size = kiln_topology_index_count(info->topology);
        uint32_t whole = n / size * size;
        if (whole != n)
            gltf_warning(g, "%s: %u %s left over (%s with %u %s: whole %s only); ignored", jpath,
                         n - whole, info->indices >= 0 ? "index(es)" : "vertex(es)",
                         mode_names[info->mode], n, info->indices >= 0 ? "indices" : "vertices",
                         kiln_topology_str(info->topology));
        for (uint32_t i = 0; !in_place && i < whole; i++)
            indices[out++] = info->base + VERTEX(i);
        out = whole;
    } else if (info->mode == 2 || info->mode == 3) {
        /* Strips and loops: a segment per pair of neighbours. */
        for (uint32_t i = 0; n >= 2 && i + 1 < n; i++) {
            indices[out++] = info->base + VERTEX(i);
            indices[out++] = info->base + VERTEX(i + 1);
        }
        if (info->mode == 2 && n >= 2) {
            indices[out++] = info->base + VERTEX(n - 1);
            indices[out++] = info->base + VERTEX(0);
        }
    } else {
        for (uint32_t i = 0; n >= 3 && i < n - 2; i++) {
            uint32_t a, b, c;
            if (info->mode == 5) {
                a = VERTEX(i);
                b = VERTEX(i + 1 + i % 2);
                c = VERTEX(i + 2 - i % 2);
            } else {
                a = VERTEX(i + 1);
                b = VERTEX(i + 2);
                c = VERTEX(0);
            }
            if (a == b || b == c || a == c)
                continue;
            indices[out++] = info->base + a;
            indices[out++] = info->base + b;
            indices[out++] = info->base + c;
        }
    }
#undef VERTEX
    free(source);
    *written = out;
    return true;
}

/* Sorting primitives by their attribute accessors finds the ones sharing
 * vertex data in O(n log n). */
typedef struct prim_key {
    int64_t attr[A_COUNT];
    size_t index;
} prim_key;

static int compare_keys(const void *a, const void *b) {
    const prim_key *x = a, *y = b;
    int c = memcmp(x->attr, y->attr, sizeof x->attr);
    return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

/* Sets same_as of every imported primitive whose vertex data an earlier one
 * already has. */
static bool find_shared_vertices(gltf *g, prim_info *prims, size_t count) {
    prim_key *keys = malloc(count * sizeof *keys);
    if (keys == NULL)
        return gltf_out_of_memory(g);
    size_t n = 0;
    for (size_t p = 0; p < count; p++) {
        if (!prims[p].imported)
            continue;
        memcpy(keys[n].attr, prims[p].attr, sizeof keys[n].attr);
        keys[n++].index = p;
    }
    qsort(keys, n, sizeof *keys, compare_keys);
    for (size_t k = 1; k < n; k++) {
        if (memcmp(keys[k].attr, keys[k - 1].attr, sizeof keys[k].attr) == 0) {
            size_t owner = keys[k - 1].index;
            if (prims[owner].same_as >= 0)
                owner = (size_t)prims[owner].same_as;
            /* Shared only with the same morph targets too (both without, or
             * the same accessors): the deltas are vertex data. */
            const json_t *a = prims[owner].target_list, *b = prims[keys[k].index].target_list;
            bool same_targets = (json_array_size(a) == 0 && json_array_size(b) == 0) ||
                                (a != NULL && b != NULL && json_equal((json_t *)a, (json_t *)b));
            if (same_targets)
                prims[keys[k].index].same_as = (int32_t)owner;
        }
    }
    free(keys);
    return true;
}

/* The slot of the default material (appended once) for primitives without
 * one; -1 when out of memory. */
static int64_t default_material(gltf *g, ir_asset *out) {
    if (g->default_material >= 0)
        return g->default_material;
    ir_material *materials =
        realloc(out->materials, ((size_t)out->material_count + 1) * sizeof *materials);
    if (materials == NULL) {
        gltf_out_of_memory(g);
        return -1;
    }
    out->materials = materials;
    ir_material *m = &materials[out->material_count];
    ir_material_init(m);
    m->name = cook_strdup("default");
    if (m->name == NULL) {
        gltf_out_of_memory(g);
        return -1;
    }
    g->default_material = out->material_count++;
    return g->default_material;
}

static bool build_mesh(gltf *g, size_t m, const json_t *obj, prim_info *prims, size_t count,
                       ir_asset *out) {
    char jpath[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "meshes[%zu]", m);
    mesh_streams streams = {true, true, {false, false}, false, false, false};
    /* Normals and tangents as the triangles have them: a debug line without
     * them must not cost a lit surface its own. */
    bool any_triangles = false, all_normals = true, all_tangents = true;
    uint64_t vertices = 0, index_bound = 0;
    size_t used = 0;
    if (!find_shared_vertices(g, prims, count))
        return false;
    for (size_t p = 0; p < count; p++) {
        prim_info *info = &prims[p];
        if (!info->imported)
            continue;
        used++;
        bool triangles = info->topology == KILN_TOPOLOGY_TRIANGLES;
        any_triangles |= triangles;
        streams.normals &= info->attr[A_NORMAL] >= 0 || !triangles;
        streams.tangents &= info->attr[A_TANGENT] >= 0 || !triangles;
        all_normals &= info->attr[A_NORMAL] >= 0;
        all_tangents &= info->attr[A_TANGENT] >= 0;
        streams.texcoords[0] |= info->attr[A_TEXCOORD0] >= 0;
        streams.texcoords[1] |= info->attr[A_TEXCOORD1] >= 0;
        streams.colors |= info->attr[A_COLOR0] >= 0;
        streams.skin |= info->attr[A_JOINTS0] >= 0 && info->attr[A_WEIGHTS0] >= 0;
        streams.skin8 |= info->attr[A_JOINTS0] >= 0 && info->attr[A_WEIGHTS0] >= 0 &&
                         info->attr[A_JOINTS1] >= 0 && info->attr[A_WEIGHTS1] >= 0;
        uint64_t n = info->indices >= 0 ? g->accessors[info->indices].count : info->vertex_count;
        index_bound += list_bound(info->mode, n);
        if (info->same_as >= 0) {
            info->base = prims[info->same_as].base;
        } else {
            info->base = (uint32_t)vertices;
            vertices += info->vertex_count;
            if (vertices > UINT32_MAX) {
                gltf_error(g, "%s: more than %u vertices", jpath, UINT32_MAX);
                return false;
            }
        }
    }
    if (used == 0) {
        g->mesh_map[m] = -1;
        return true;
    }
    if (!any_triangles) {
        streams.normals = all_normals;
        streams.tangents = all_tangents;
    }
    if (index_bound > UINT32_MAX) {
        gltf_error(g, "%s: more than %u indices", jpath, UINT32_MAX);
        return false;
    }
    ir_mesh *mesh = &out->meshes[out->mesh_count];
    memset(mesh, 0, sizeof *mesh);
    g->mesh_map[m] = (int32_t)out->mesh_count++;
    mesh->name = gltf_name(g, obj, "mesh", m);
    if (mesh->name == NULL || !gltf_extras_text(g, obj, NULL, &mesh->extras))
        return false;
    uint32_t nv = (uint32_t)vertices;
    mesh->vertex_count = nv;
    mesh->positions = alloc_stream(g, nv, 3 * sizeof(float), jpath);
    if (mesh->positions == NULL)
        return false;
    if (streams.normals && (mesh->normals = alloc_stream(g, nv, 3 * sizeof(float), jpath)) == NULL)
        return false;
    if (streams.tangents &&
        (mesh->tangents = alloc_stream(g, nv, 4 * sizeof(float), jpath)) == NULL)
        return false;
    for (int t = 0; t < 2; t++)
        if (streams.texcoords[t] &&
            (mesh->texcoords[t] = alloc_stream(g, nv, 2 * sizeof(float), jpath)) == NULL)
            return false;
    if (streams.colors && (mesh->colors = alloc_stream(g, nv, 4 * sizeof(float), jpath)) == NULL)
        return false;
    if (streams.skin &&
        ((mesh->joints = alloc_stream(g, nv, 4 * sizeof(uint16_t), jpath)) == NULL ||
         (mesh->weights = alloc_stream(g, nv, 4 * sizeof(float), jpath)) == NULL))
        return false;
    if (streams.skin8 &&
        ((mesh->joints1 = alloc_stream(g, nv, 4 * sizeof(uint16_t), jpath)) == NULL ||
         (mesh->weights1 = alloc_stream(g, nv, 4 * sizeof(float), jpath)) == NULL))
        return false;
    if (index_bound > 0 &&
        (mesh->indices = alloc_stream(g, (uint32_t)index_bound, sizeof(uint32_t), jpath)) == NULL)
        return false;
    if (!alloc_targets(g, obj, jpath, prims, count, g->mesh_targets[m], mesh))
        return false;
    mesh->submeshes = calloc(used, sizeof *mesh->submeshes);
    uint8_t *bad_normals = streams.normals ? calloc(nv, 1) : NULL;
    if (mesh->submeshes == NULL || (streams.normals && bad_normals == NULL)) {
        free(bad_normals);
        return gltf_out_of_memory(g);
    }
    uint32_t bad_count = 0;
    bool ok = true;
    for (size_t p = 0; p < count && ok; p++) {
        const prim_info *info = &prims[p];
        if (!info->imported)
            continue;
        char ppath[GLTF_PATH_SIZE];
        gltf_pathf(ppath, "%s.primitives[%zu]", jpath, p);
        gltf_joint_use joint_use = {0};
        if (info->same_as < 0)
            ok = read_vertices(g, info, ppath, &streams, mesh, bad_normals, &bad_count,
                               &joint_use) &&
                 read_targets(g, info, ppath, mesh);
        if (joint_use.max_plus1 > g->mesh_joints[m].max_plus1) {
            g->mesh_joints[m] = joint_use;
            g->mesh_joints[m].primitive = (uint32_t)p;
        }
        uint32_t written = 0;
        ok = ok && build_primitives(g, info, ppath, mesh->indices + mesh->index_count, &written);
        if (!ok)
            break;
        if (written == 0) {
            gltf_warning(g, "%s: no %s; skipped", ppath, kiln_topology_str(info->topology));
            continue;
        }
        int64_t material = info->material;
        if (material < 0 && (material = default_material(g, out)) < 0) {
            ok = false;
            break;
        }
        ir_submesh *sub = &mesh->submeshes[mesh->submesh_count++];
        sub->index_offset = mesh->index_count;
        sub->index_count = written;
        sub->material = (uint32_t)material;
        sub->topology = info->topology;
        mesh->index_count += written;
    }
    if (ok && bad_count > 0) {
        geometry_repair_normals(mesh, bad_normals);
        gltf_warning(g, "%s: %u zero or invalid normals replaced by the normal of their faces",
                     jpath, bad_count);
    }
    free(bad_normals);
    if (ok && mesh->index_count == 0) { /* every primitive was degenerate */
        ir_mesh_free(mesh);
        out->mesh_count--;
        g->mesh_map[m] = -1;
    }
    return ok;
}

static bool import_mesh(gltf *g, size_t m, ir_asset *out) {
    g->mesh_map[m] = -1;
    const json_t *obj = gltf_element(g, g->j_meshes, "meshes", m);
    if (obj == NULL)
        return false;
    char jpath[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "meshes[%zu]", m);
    const json_t *primitives, *weights;
    if (!gltf_get_array(g, obj, jpath, "primitives", true, &primitives) ||
        !gltf_get_array(g, obj, jpath, "weights", false, &weights))
        return false;
    size_t count = json_array_size(primitives);
    prim_info *prims = calloc(count, sizeof *prims);
    if (prims == NULL)
        return gltf_out_of_memory(g);
    bool ok = true;
    for (size_t p = 0; p < count && ok; p++) {
        char ppath[GLTF_PATH_SIZE];
        gltf_pathf(ppath, "%s.primitives[%zu]", jpath, p);
        const json_t *prim = json_array_get(primitives, p);
        if (!json_is_object(prim)) {
            gltf_error(g, "%s: expected an object, found %s", ppath, gltf_json_type_name(prim));
            ok = false;
            break;
        }
        ok = gltf_check_object(g, prim, ppath) && check_primitive(g, prim, ppath, &prims[p]);
        if (ok && p > 0 && prims[p].targets != prims[0].targets) {
            gltf_error(g, "%s.targets: %u morph targets, but primitives[0] has %u", ppath,
                       prims[p].targets, prims[0].targets);
            ok = false;
        }
    }
    if (ok) {
        g->mesh_targets[m] = prims[0].targets;
        for (size_t w = 0; weights != NULL && w < json_array_size(weights); w++) {
            if (!json_is_number(json_array_get(weights, w))) {
                gltf_error(g, "%s.weights[%zu]: expected a number", jpath, w);
                ok = false;
                break;
            }
        }
        if (ok && weights != NULL && json_array_size(weights) != prims[0].targets) {
            gltf_error(g, "%s.weights: %zu weights for %u morph targets", jpath,
                       json_array_size(weights), prims[0].targets);
            ok = false;
        }
    }
    if (ok)
        ok = build_mesh(g, m, obj, prims, count, out);
    free(prims);
    return ok;
}

bool gltf_import_meshes(gltf *g, ir_asset *out) {
    if (g->n_meshes == 0)
        return true;
    out->meshes = calloc(g->n_meshes, sizeof *out->meshes);
    g->mesh_map = malloc(g->n_meshes * sizeof *g->mesh_map);
    g->mesh_targets = calloc(g->n_meshes, sizeof *g->mesh_targets);
    g->mesh_joints = calloc(g->n_meshes, sizeof *g->mesh_joints);
    if (out->meshes == NULL || g->mesh_map == NULL || g->mesh_targets == NULL ||
        g->mesh_joints == NULL)
        return gltf_out_of_memory(g);
    bool ok = true;
    for (size_t m = 0; m < g->n_meshes; m++)
        g->mesh_map[m] = -1;
    for (size_t m = 0; m < g->n_meshes && ok && !g->stopped; m++)
        ok = import_mesh(g, m, out);
    return ok && !g->stopped;
}
