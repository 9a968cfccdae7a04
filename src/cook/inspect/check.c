/*
 * check.c — `kiln check` on one cooked file (inspect.h, inspect_check_file):
 * per kind, the container and its checksum, every data value through the
 * runtime's deep views, what the reader leaves to tools, and the
 * provenance metadata. The checks across files stay with the command.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/ktx2_format.h"
#include "common/path.h"
#include "common/uastc.h"
#include "cook/core/core.h"
#include "cook/inspect/inspect.h"

static const char *file_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/* One cooked file being checked. Checks fill `file` and `mesh` for the next. */
typedef struct checked_file {
    const char *path;
    kiln_file file;
    kiln_mesh_view mesh;
    inspect_problem_fn problem;
    void *user;
    size_t problems;
} checked_file;

/* Returns false when the file is too broken for the following checks. */
typedef bool (*file_check_fn)(checked_file *checked);

/* A problem of the file being checked. */
__attribute__((format(printf, 2, 3))) static void report_problem(checked_file *checked,
                                                                 const char *fmt, ...) {
    char message[2048];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    checked->problems++;
    checked->problem(checked->user, message);
}

static const uint32_t thorough = KILN_OPEN_VERIFY_CHECKSUM | KILN_OPEN_DEEP;

/* Header, chunk table and checksum over every byte. */
static bool check_container(checked_file *checked) {
    kiln_error error;
    if (kiln_file_map_expanded(&checked->file, checked->path, thorough, &error) == KILN_OK)
        return true;
    report_problem(checked, "%s", inspect_error_detail(&error, checked->path));
    return false;
}

/* Descriptor against chunks, and every index against the vertex count. */
static bool check_mesh_data(checked_file *checked) {
    kiln_error error;
    if (kiln_mesh_view_get(&checked->file, thorough, &checked->mesh, &error) == KILN_OK)
        return true;
    report_problem(checked, "%s", inspect_error_detail(&error, checked->path));
    return false;
}

/* Provenance: every cooked file says where it came from. */
static bool check_metadata(checked_file *checked) {
    size_t size = 0;
    const char *meta = kiln_file_metadata(&checked->file, &size);
    if (meta == NULL) {
        report_problem(checked, "no META chunk (provenance metadata is missing)");
        return true; /* the data itself may still be checked */
    }
    json_error_t error;
    json_t *parsed = json_loadb(meta, size, 0, &error);
    if (parsed == NULL)
        report_problem(checked, "the META chunk is not a JSON object: %s (byte %d)", error.text,
                       error.position);
    else if (!json_is_string(json_object_get(parsed, "source")))
        report_problem(checked, "the META chunk does not name a \"source\"");
    json_decref(parsed);
    return true;
}

/* The XTRA chunk's table (container.md X1-X3), and each text a JSON object. */
static bool check_extras(checked_file *checked) {
    kiln_error error;
    if (kiln_file_extras_check(&checked->file, &error) != KILN_OK) {
        report_problem(checked, "%s", inspect_error_detail(&error, checked->path));
        return true;
    }
    kiln_extras_object object;
    uint32_t index;
    size_t length;
    const char *text;
    for (uint32_t i = 0;
         (text = kiln_file_extras_entry(&checked->file, i, &object, &index, &length)) != NULL;
         i++) {
        json_error_t bad;
        json_t *parsed = json_loadb(text, length, 0, &bad);
        if (!json_is_object(parsed)) {
            char label[64];
            inspect_extras_label(object, index, label, sizeof label);
            report_problem(checked, "the extras of %s are not a JSON object: %s", label,
                           parsed == NULL ? bad.text : "another JSON value");
        }
        json_decref(parsed);
    }
    return true;
}

/* Every entry's hash is its ref's, and its file exists next to the manifest. */
static bool check_manifest_data(checked_file *checked) {
    kiln_error error;
    kiln_manifest_view view;
    if (kiln_manifest_view_get(&checked->file, &view, &error) != KILN_OK) {
        report_problem(checked, "%s", inspect_error_detail(&error, checked->path));
        return false;
    }
    const char *slash = strrchr(checked->path, '/');
    int root_length = slash ? (int)(slash - checked->path) : 1;
    const char *root = slash ? checked->path : ".";
    for (uint32_t i = 0; i < view.entry_count; i++) {
        const kiln_manifest_entry *entry = &view.entries[i];
        const char *ref = kiln_manifest_ref(&view, entry);
        const char *path = kiln_manifest_path(&view, entry);
        if (kiln_ref_hash(ref) != entry->hash)
            report_problem(checked, "entry '%s': hash 0x%016llx is not the ref's (0x%016llx)", ref,
                           (unsigned long long)entry->hash, (unsigned long long)kiln_ref_hash(ref));
        char full[4096];
        struct stat st;
        snprintf(full, sizeof full, "%.*s/%s", root_length, root, path);
        if (!path_is_plain_relative(path) || stat(full, &st) != 0 || !S_ISREG(st.st_mode))
            report_problem(checked, "entry '%s': file '%s' does not exist", ref, path);
    }
    return true;
}

/* Every row and slot value (kmat.md R1-R9). */
static bool check_materials_data(checked_file *checked) {
    kiln_error error;
    kiln_material_view view;
    if (kiln_material_view_get(&checked->file, thorough, &view, &error) == KILN_OK)
        return true;
    report_problem(checked, "%s", inspect_error_detail(&error, checked->path));
    return false;
}

/* Lines about joints named twice, per skin; past it, a count. */
#define CHECK_MAX_DUPLICATE_LINES 16u

/* A skin's joints are distinct nodes: one line per node named more than once
 * (its first two joints, and how many more), at most
 * CHECK_MAX_DUPLICATE_LINES a skin, then how many more nodes. Linear in
 * nodes and joints, with a table per node: comparing every pair of joints
 * took 16 s for 200,000 of them, and printed a line per pair. */
static bool check_distinct_joints(checked_file *checked, const kiln_scene_view *view) {
    if (view->skin_count == 0)
        return true;
    /* Per node, within the skin being checked: its first two joints, and
     * how many of its joints name it (0: none yet). Joint nodes are below
     * node_count (kiln_scene_view_get checked them). */
    size_t slots = view->node_count ? view->node_count : 1;
    uint32_t *uses = calloc(slots, sizeof *uses);
    uint32_t *first_joint = malloc(slots * sizeof *first_joint);
    uint32_t *second_joint = malloc(slots * sizeof *second_joint);
    if (uses == NULL || first_joint == NULL || second_joint == NULL) {
        free(uses);
        free(first_joint);
        free(second_joint);
        report_problem(checked, "out of memory checking the skins' joints");
        return false;
    }
    bool ok = true;
    for (uint32_t s = 0; s < view->skin_count; s++) {
        uint32_t count;
        const kiln_scene_joint *joints = kiln_scene_skin_joints(view, s, &count);
        for (uint32_t j = 0; j < count; j++) {
            uint32_t node = joints[j].node;
            if (uses[node] == 0)
                first_joint[node] = j;
            else if (uses[node] == 1)
                second_joint[node] = j;
            uses[node]++;
        }
        /* In the order of their second joint, as the pairs came before. */
        uint32_t reported = 0, unreported = 0;
        for (uint32_t j = 0; j < count; j++) {
            uint32_t node = joints[j].node;
            if (uses[node] < 2 || second_joint[node] != j)
                continue;
            ok = false;
            if (reported == CHECK_MAX_DUPLICATE_LINES) {
                unreported++;
                continue;
            }
            reported++;
            if (uses[node] == 2)
                report_problem(checked, "skin %u: joints %u and %u are both node %u", s,
                               first_joint[node], j, node);
            else
                report_problem(checked, "skin %u: joints %u, %u and %u more are all node %u", s,
                               first_joint[node], j, uses[node] - 2, node);
        }
        if (unreported > 0)
            report_problem(checked, "skin %u: %u more nodes are more than one of its joints", s,
                           unreported);
        for (uint32_t j = 0; j < count; j++) /* clean for the next skin */
            uses[joints[j].node] = 0;
    }
    free(uses);
    free(first_joint);
    free(second_joint);
    return ok;
}

/* Node indices in range, the hierarchy acyclic and in depth-first order, every
 * string in its table, a level's links (kscene.md R1-R18); then what the reader leaves to
 * tools: a skin's joints are distinct nodes, a node with a skin draws a mesh. */
static bool check_scene_data(checked_file *checked) {
    kiln_error error;
    kiln_scene_view view;
    if (kiln_scene_view_get(&checked->file, thorough, &view, &error) != KILN_OK) {
        report_problem(checked, "%s", inspect_error_detail(&error, checked->path));
        return false;
    }
    bool ok = check_distinct_joints(checked, &view);
    for (uint32_t n = 0; n < view.node_count; n++)
        if (view.nodes[n].skin >= 0 && view.nodes[n].mesh < 0) {
            report_problem(checked, "node %u has skin %d but draws no mesh", n, view.nodes[n].skin);
            ok = false;
        }
    return ok;
}

/* Channel targets in range, key times finite and increasing, values finite,
 * morph records and strings (kanim.md R1-R12). */
static bool check_anim_data(checked_file *checked) {
    kiln_error error;
    kiln_anim_view view;
    if (kiln_anim_view_get(&checked->file, thorough, &view, &error) == KILN_OK)
        return true;
    report_problem(checked, "%s", inspect_error_detail(&error, checked->path));
    return false;
}

/* UASTC: every block of every level unpacks (no reserved mode, pattern,
 * trit/quint group or weight out of range, zero padding), which the reader
 * leaves to the decoder. One problem per bad level: the first bad block and
 * how many there are. */
static void check_uastc_blocks(checked_file *checked, const kiln_ktx2_view *view) {
    for (uint32_t level = 0; level < view->levels; level++) {
        uint64_t size = kiln_ktx2_level_size(view, level);
        uint8_t *blocks = size > 0 && size <= SIZE_MAX ? malloc((size_t)size) : NULL;
        kiln_error error;
        if (blocks == NULL) {
            report_problem(checked, "level %u: out of memory for %llu bytes of UASTC blocks", level,
                           (unsigned long long)size);
            return;
        }
        if (kiln_ktx2_read_level(view, level, blocks, (size_t)size, &error) != KILN_OK) {
            free(blocks); /* inspect_ktx2_bytes reported it */
            return;
        }
        uint32_t width, height, depth;
        kiln_ktx2_level_extent(view, level, &width, &height, &depth);
        size_t count = (size_t)size / UASTC_BLOCK_BYTES, bad = 0, first = 0;
        uastc_status first_status = UASTC_OK;
        for (size_t b = 0; b < count; b++) {
            uastc_logical logical;
            uastc_status status = uastc_unpack(blocks + b * UASTC_BLOCK_BYTES, &logical);
            if (status != UASTC_OK && bad++ == 0) {
                first = b;
                first_status = status;
            }
        }
        free(blocks);
        if (bad > 0) {
            size_t row = (width + 3) / 4, per_image = row * ((height + 3) / 4);
            size_t in_image = first % per_image;
            report_problem(checked,
                           "level %u: UASTC block %zu (image %zu, block x %zu, y %zu) is "
                           "invalid: %s (%zu of %zu blocks invalid)",
                           level, first, first / per_image, in_image % row, in_image / row,
                           uastc_status_text(first_status), bad, count);
        }
    }
}

/* A .ktx2 (KTX 2.0, not a container): the reader's rules (ktx2.md K1-K8),
 * then every level inflated to its declared size, and UASTC's blocks. */
static bool check_texture(checked_file *checked) {
    uint8_t *data = NULL;
    size_t size = 0;
    char reason[256];
    if (!cook_read_file(checked->path, (size_t)4 << 30, &data, &size, reason, sizeof reason)) {
        report_problem(checked, "%s", reason);
        return false;
    }
    kiln_error error;
    bool ok = inspect_ktx2_bytes(data, size, file_name(checked->path), &error);
    kiln_ktx2_view view;
    if (!ok)
        report_problem(checked, "%s", inspect_error_detail(&error, checked->path));
    else if (kiln_ktx2_view_get(&view, data, size, file_name(checked->path), &error) == KILN_OK &&
             view.vk_format == KTX2_VK_FORMAT_UNDEFINED &&
             view.dfd_color_model == KTX2_DF_MODEL_UASTC)
        check_uastc_blocks(checked, &view);
    free(data);
    return ok;
}

/* Ranges and tables (kshader.md R1-R12), then every stage's SPIR-V through
 * SPIRV-Tools' validator with the file's target and its reflection again. */
static bool check_shader_data(checked_file *checked) {
    kiln_error error;
    kiln_shader_view view;
    if (kiln_shader_view_get(&checked->file, thorough, &view, &error) != KILN_OK) {
        report_problem(checked, "%s", inspect_error_detail(&error, checked->path));
        return false;
    }
    char reason[1024];
    if (!inspect_shader(&view, checked->path, reason, sizeof reason))
        report_problem(checked, "%s", reason);
    return true;
}

static const file_check_fn texture_checks[] = {check_texture};
static const file_check_fn shader_checks[] = {check_container, check_shader_data, check_metadata};
static const file_check_fn mesh_checks[] = {check_container, check_mesh_data, check_metadata,
                                            check_extras};
static const file_check_fn materials_checks[] = {check_container, check_materials_data,
                                                 check_metadata, check_extras};
static const file_check_fn manifest_checks[] = {check_container, check_manifest_data};
static const file_check_fn scene_checks[] = {check_container, check_scene_data, check_metadata,
                                             check_extras};
static const file_check_fn anim_checks[] = {check_container, check_anim_data, check_metadata};

static const struct {
    kiln_pack_kind kind;
    const file_check_fn *checks;
    size_t check_count;
} checks_per_kind[] = {
    {KILN_PACK_MESH, mesh_checks, sizeof mesh_checks / sizeof mesh_checks[0]},
    {KILN_PACK_MANIFEST, manifest_checks, sizeof manifest_checks / sizeof manifest_checks[0]},
    {KILN_PACK_MATERIAL, materials_checks, sizeof materials_checks / sizeof materials_checks[0]},
    {KILN_PACK_TEXTURE, texture_checks, sizeof texture_checks / sizeof texture_checks[0]},
    {KILN_PACK_SCENE, scene_checks, sizeof scene_checks / sizeof scene_checks[0]},
    {KILN_PACK_SHADER, shader_checks, sizeof shader_checks / sizeof shader_checks[0]},
    {KILN_PACK_ANIM, anim_checks, sizeof anim_checks / sizeof anim_checks[0]},
};

size_t inspect_check_file(const char *full_path, kiln_pack_kind kind, inspect_problem_fn problem,
                          void *user) {
    checked_file checked = {.path = full_path, .problem = problem, .user = user};
    for (size_t k = 0; k < sizeof checks_per_kind / sizeof checks_per_kind[0]; k++) {
        if (checks_per_kind[k].kind != kind)
            continue;
        for (size_t c = 0; c < checks_per_kind[k].check_count; c++) {
            if (!checks_per_kind[k].checks[c](&checked))
                break;
        }
    }
    kiln_file_close(&checked.file);
    return checked.problems;
}
