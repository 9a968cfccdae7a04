/*
 * cmd_check.c — `kiln check`: validate every cooked file; a CI gate.
 *
 * Every file is checked on its own by the inspection room (cook/inspect,
 * inspect_check_file), then across files here: the manifest names every
 * file, refs resolve, levels form no cycle, <output>.kpak holds the same
 * files. Problems are printed
 * compiler-style, `path: error: message`, one per line.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "common/components.h"
#include "common/grow.h"
#include "common/path.h"

#define COMMAND "check"

typedef struct check_options {
    const char *output;
    bool quiet; /* -q: no summary line */
    bool json;  /* --json: the summary and every problem as JSON on stdout */
} check_options;

/* Every problem of a run goes through check_problem: printed compiler-style
 * on stderr and, with --json, kept for the JSON report. */
typedef struct check_report {
    size_t problems;
    json_t *items; /* with --json: {"path", "message"} per problem */
} check_report;

static void check_problem(check_report *report, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void check_problem(check_report *report, const char *path, const char *fmt, ...) {
    char message[2048];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    /* Escaped on the terminal (names come from files), exact in the JSON. */
    fprintf(stderr, "%s: error: %s\n", cook_escaped(path), cook_escaped(message));
    if (report->items != NULL) {
        json_t *item = json_object();
        json_object_set_new(item, "path", cli_json_string(path));
        json_object_set_new(item, "message", cli_json_string(message));
        json_array_append_new(report->items, item);
    }
    report->problems++;
}

static const struct option check_long_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"quiet", no_argument, NULL, 'q'},
    {"json", no_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

void cmd_check_usage(FILE *out) {
    fprintf(out,
            "Usage: kiln check [options]\n"
            "\n"
            "Validates every cooked file in the output folder: container structure,\n"
            "checksum, every data value (index ranges, each submesh's topology and\n"
            "whole triangles, lines or points in every level, bounds) and the\n"
            "provenance metadata; for scenes, node indices in range and the hierarchy\n"
            "acyclic and in depth-first order; for clips (.kanim), channel targets in range\n"
            "and key times increasing; then across files: every manifest entry's\n"
            "file exists, every material's texture and every mesh and material table\n"
            "a scene names, and every scene and component ref a level's nodes\n"
            "name, resolve through the manifest to an existing file, each clip\n"
            "file's scene resolves with the node count its channels target, and\n"
            "every mesh's material slots match the rows of its .kmat.\n"
            "Each problem is printed as 'path: error: message'.\n"
            "\n"
            "Options:\n"
            "  -o, --output DIR   folder of cooked files (default: %s)\n"
            "  -q, --quiet        print problems only, no summary line\n"
            "      --json         print the summary and every problem as one JSON\n"
            "                     document on stdout (problems still go to stderr)\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0 when every file is valid, 1 on any problem or when the\n"
            "output folder does not exist, 2 for a command-line mistake.\n",
            BUILD_DEFAULT_OUTPUT);
}

static int parse_check_options(int argc, char **argv, check_options *options) {
    *options = (check_options){0};
    cli_getopt_reset();
    int option;
    while ((option = getopt_long(argc, argv, CLI_GETOPT_PREFIX "o:qh", check_long_options, NULL)) !=
           -1) {
        switch (option) {
        case 'o':
            options->output = optarg;
            break;
        case 'q':
            options->quiet = true;
            break;
        case 'j':
            options->json = true;
            break;
        case 'h':
            cmd_check_usage(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_option_error(COMMAND, argv, check_long_options, option);
        }
    }
    return cli_reject_operands(COMMAND, argc, argv) ? -1 : CLI_EXIT_USAGE;
}

/* ---------------------------------------------------------------------------
 * Checks
 * ------------------------------------------------------------------------- */

/* Every problem of one file, from inspect_check_file. */
typedef struct file_problems {
    check_report *report;
    const char *path;
} file_problems;

static void report_file_problem(void *user, const char *message) {
    file_problems *file = user;
    check_problem(file->report, file->path, "%s", message);
}

/* Runs the checks of `kind` on one file; returns the number of problems. */
static size_t check_file(check_report *report, const char *full_path, kiln_pack_kind kind) {
    file_problems file = {report, full_path};
    return inspect_check_file(full_path, kind, report_file_problem, &file);
}

/* ---------------------------------------------------------------------------
 * The command
 * ------------------------------------------------------------------------- */

/* Cross-file: the output has a manifest, and it names every cooked file. */
static size_t check_manifest_covers(check_report *report, const char *output,
                                    const strlist *files) {
    char *path = cook_path_join(output, KILN_MANIFEST_FILE_NAME);
    kiln_file file;
    kiln_error error;
    kiln_manifest_view view;
    size_t problems = 0;
    if (path == NULL || kiln_file_map_expanded(&file, path, 0, &error) != KILN_OK) {
        check_problem(report, path ? path : output, "no readable manifest (%s)",
                      path ? cli_kiln_error_detail(&error, path) : "out of memory");
        free(path);
        return 1;
    }
    if (kiln_manifest_view_get(&file, &view, &error) == KILN_OK) {
        strlist named = {0};
        for (uint32_t i = 0; i < view.entry_count; i++)
            strlist_push(&named, kiln_manifest_path(&view, &view.entries[i]));
        strlist_sort(&named);
        for (size_t i = 0; i < files->count; i++) {
            kiln_pack_kind kind = kiln_pack_kind_of(files->items[i]);
            if (kind == KILN_PACK_OTHER || kind == KILN_PACK_MANIFEST)
                continue;
            const char *item = files->items[i];
            if (bsearch(&item, named.items, named.count, sizeof *named.items,
                        cli_compare_strings) == NULL) {
                char where[4096];
                snprintf(where, sizeof where, "%s/%s", output, item);
                check_problem(report, where, "not named by %s", KILN_MANIFEST_FILE_NAME);
                problems++;
            }
        }
        strlist_free(&named);
    }
    kiln_file_close(&file);
    free(path);
    return problems;
}

/* ---------------------------------------------------------------------------
 * Cross-file: materials, their textures and the meshes that use them
 * ------------------------------------------------------------------------- */

/* A readable .kmat of the output and its row count; sorted by path. */
typedef struct material_table {
    const char *path; /* relative, from the file list */
    uint32_t rows;
} material_table;

static int compare_table_path(const void *key, const void *element) {
    return strcmp((const char *)key, ((const material_table *)element)->path);
}

/* The .kmat a mesh's slots index, by the naming convention of kmat.md:
 * "<stem>.kmesh" or "<stem>.mesh<N>.kmesh" -> "<stem>.kmat". */
static void material_table_path(const char *mesh_path, char *out, size_t size) {
    size_t length = strlen(mesh_path);
    if (length >= 6 && strcmp(mesh_path + length - 6, ".kmesh") == 0)
        length -= 6;
    size_t digits = length;
    while (digits > 0 && mesh_path[digits - 1] >= '0' && mesh_path[digits - 1] <= '9')
        digits--;
    if (digits < length && digits >= 5 && strncmp(mesh_path + digits - 5, ".mesh", 5) == 0)
        length = digits - 5;
    snprintf(out, size, "%.*s.kmat", (int)length, mesh_path);
}

/* A component's ref may name any kind of asset. */
#define LINK_ANY_KIND ((kiln_asset_kind)0)

/* Whether `hash` is in the manifest as a `kind` whose file exists under
 * `output`; otherwise a problem at `where` naming `label` ("material 2 normal
 * texture"). */
static bool ref_resolves(check_report *report, const char *output, const char *where,
                         const kiln_manifest_view *manifest, uint64_t hash, kiln_asset_kind kind,
                         const char *label) {
    const kiln_manifest_entry *entry = kiln_manifest_find(manifest, hash);
    if (entry == NULL || (kind != LINK_ANY_KIND && entry->kind != kind)) {
        check_problem(report, where, "%s 0x%016llx is %s%s in %s", label, (unsigned long long)hash,
                      entry == NULL ? "not" : "not a ",
                      entry == NULL ? "" : kiln_asset_kind_str(kind), KILN_MANIFEST_FILE_NAME);
        return false;
    }
    const char *path = kiln_manifest_path(manifest, entry);
    char *full = cook_path_join(output, path);
    struct stat st;
    bool exists =
        full != NULL && path_is_plain_relative(path) && stat(full, &st) == 0 && S_ISREG(st.st_mode);
    if (!exists)
        check_problem(report, where, "%s '%s' (%s) does not exist", label,
                      kiln_manifest_ref(manifest, entry), path);
    free(full);
    return exists;
}

/* Each non-zero texture ref of one table resolves through the manifest to a
 * texture whose file exists, each standalone material ref (MSRC) to a
 * material. */
static size_t check_table_textures(check_report *report, const char *output, const char *relative,
                                   const kiln_material_view *materials,
                                   const kiln_manifest_view *manifest) {
    size_t problems = 0;
    char where[4096], label[128];
    snprintf(where, sizeof where, "%s/%s", output, relative);
    for (uint32_t i = 0; i < materials->material_count; i++) {
        for (int t = 0; t < KILN_MATERIAL_SLOT_COUNT; t++) {
            uint64_t hash = materials->materials[i].textures[t].texture;
            if (hash == 0)
                continue;
            snprintf(label, sizeof label, "material %u %s texture", i,
                     kiln_material_slot_str((kiln_material_slot)t));
            problems +=
                !ref_resolves(report, output, where, manifest, hash, KILN_ASSET_TEXTURE, label);
        }
        /* A row material.replace took from a standalone material names it. */
        uint64_t source = kiln_material_source(materials, i);
        if (source != 0) {
            snprintf(label, sizeof label, "material %u standalone material", i);
            problems +=
                !ref_resolves(report, output, where, manifest, source, KILN_ASSET_MATERIAL, label);
        }
    }
    return problems;
}

static size_t check_materials_cross(check_report *report, const char *output,
                                    const strlist *files) {
    char *manifest_path = cook_path_join(output, KILN_MANIFEST_FILE_NAME);
    kiln_file manifest_file = {0};
    kiln_manifest_view manifest = {0};
    kiln_error error;
    bool have_manifest =
        manifest_path != NULL &&
        kiln_file_map_expanded(&manifest_file, manifest_path, 0, &error) == KILN_OK &&
        kiln_manifest_view_get(&manifest_file, &manifest, &error) == KILN_OK;
    material_table *tables = calloc(files->count ? files->count : 1, sizeof *tables);
    size_t table_count = 0, problems = 0;
    if (tables == NULL) {
        cli_error("out of memory");
        kiln_file_close(&manifest_file);
        free(manifest_path);
        return 1;
    }
    /* Tables first (the file list is sorted, so `tables` is too). */
    for (size_t i = 0; i < files->count; i++) {
        if (kiln_pack_kind_of(files->items[i]) != KILN_PACK_MATERIAL)
            continue;
        char *full = cook_path_join(output, files->items[i]);
        kiln_file file;
        kiln_material_view view;
        if (full != NULL && kiln_file_map_expanded(&file, full, 0, &error) == KILN_OK) {
            if (kiln_material_view_get(&file, 0, &view, &error) == KILN_OK) {
                tables[table_count++] = (material_table){files->items[i], view.material_count};
                if (have_manifest)
                    problems +=
                        check_table_textures(report, output, files->items[i], &view, &manifest);
            }
            kiln_file_close(&file);
        }
        free(full);
    }
    /* Every mesh's slots are its table's rows. */
    for (size_t i = 0; i < files->count; i++) {
        if (kiln_pack_kind_of(files->items[i]) != KILN_PACK_MESH)
            continue;
        char *full = cook_path_join(output, files->items[i]);
        kiln_file file;
        kiln_mesh_view mesh;
        if (full != NULL && kiln_file_map_expanded(&file, full, 0, &error) == KILN_OK) {
            if (kiln_mesh_view_get(&file, 0, &mesh, &error) == KILN_OK &&
                mesh.desc->material_count > 0) {
                char table_path[4096], where[4096];
                material_table_path(files->items[i], table_path, sizeof table_path);
                snprintf(where, sizeof where, "%s/%s", output, files->items[i]);
                const material_table *table =
                    bsearch(table_path, tables, table_count, sizeof *tables, compare_table_path);
                if (table == NULL) {
                    check_problem(report, where, "%u material slot%s but no readable %s",
                                  mesh.desc->material_count, cli_plural(mesh.desc->material_count),
                                  table_path);
                    problems++;
                } else if (table->rows != mesh.desc->material_count) {
                    check_problem(report, where, "%u material slot%s but %s has %u row%s",
                                  mesh.desc->material_count, cli_plural(mesh.desc->material_count),
                                  table_path, table->rows, cli_plural(table->rows));
                    problems++;
                } else {
                    for (uint32_t s = 0; s < mesh.desc->submesh_count; s++)
                        if (mesh.submeshes[s].material_slot >= table->rows) {
                            check_problem(report, where, "submesh %u uses slot %u; %s has %u rows",
                                          s, mesh.submeshes[s].material_slot, table_path,
                                          table->rows);
                            problems++;
                        }
                }
            }
            kiln_file_close(&file);
        }
        free(full);
    }
    /* Every material ref names a row of a table. */
    for (uint32_t e = 0; have_manifest && e < manifest.entry_count; e++) {
        const kiln_manifest_entry *entry = &manifest.entries[e];
        if (entry->kind != KILN_ASSET_MATERIAL)
            continue;
        const char *path = kiln_manifest_path(&manifest, entry);
        const material_table *table =
            bsearch(path, tables, table_count, sizeof *tables, compare_table_path);
        if (table == NULL || entry->index >= table->rows) {
            check_problem(report, manifest_path, "entry '%s': row %u of '%s' does not exist",
                          kiln_manifest_ref(&manifest, entry), entry->index, path);
            problems++;
        }
    }
    free(tables);
    kiln_file_close(&manifest_file);
    free(manifest_path);
    return problems;
}

/* ---------------------------------------------------------------------------
 * Cross-file: every mesh and material table a scene names is in the manifest
 * ------------------------------------------------------------------------- */

/* A component ref's hash, resolved as check_node_links goes. */
typedef struct component_check {
    check_report *report;
    const char *output, *where, *label;
    const kiln_manifest_view *manifest;
    size_t problems;
} component_check;

static bool check_component_ref(void *user, const char *ref, size_t ref_length, uint64_t hash) {
    (void)ref;
    (void)ref_length;
    component_check *c = user;
    c->problems +=
        !ref_resolves(c->report, c->output, c->where, c->manifest, hash, LINK_ANY_KIND, c->label);
    return true;
}

/* A level's node (kscene.md SLNK): the scene it places and the hash of every
 * ref of its components (common/components.h, as the runtime's manager reads
 * them) resolve through the manifest; the components are a JSON object. */
static size_t check_node_links(check_report *report, const char *output, const char *where,
                               const kiln_manifest_view *manifest, const kiln_scene_view *view,
                               uint32_t node) {
    char label[512];
    size_t problems = 0;
    const char *name = kiln_scene_node_name(view, node);
    const char *ref = NULL;
    uint64_t scene = kiln_scene_node_link(view, node, &ref);
    if (scene != 0) {
        snprintf(label, sizeof label, "node '%.200s' places scene '%.200s', whose hash", name, ref);
        problems += !ref_resolves(report, output, where, manifest, scene, KILN_ASSET_SCENE, label);
    }
    size_t length = 0;
    const char *json = kiln_scene_node_components(view, node, &length);
    if (json == NULL)
        return problems;
    snprintf(label, sizeof label, "node '%.200s' component ref hash", name);
    component_check c = {report, output, where, label, manifest, 0};
    const char *why;
    size_t at;
    if (components_scan(json, length, check_component_ref, &c, &why, &at) != COMPONENTS_OK) {
        check_problem(report, where, "node '%.200s' components: %s (byte %zu)", name, why, at);
        problems++;
    }
    return problems + c.problems;
}

/* The largest joint index a mesh's vertices name (JOINTS0 and JOINTS1) and
 * the first vertex naming it; -1 when the mesh has no joints or cannot be
 * read (an unresolved ref is reported on its own). */
typedef struct mesh_joints {
    int64_t max_joint;
    uint32_t vertex;
} mesh_joints;

static mesh_joints read_mesh_joints(const char *output, const kiln_manifest_view *manifest,
                                    uint64_t mesh_ref) {
    mesh_joints found = {-1, 0};
    const kiln_manifest_entry *entry = kiln_manifest_find(manifest, mesh_ref);
    if (entry == NULL || entry->kind != KILN_ASSET_MESH)
        return found;
    const char *path = kiln_manifest_path(manifest, entry);
    if (!path_is_plain_relative(path))
        return found;
    char *full = cook_path_join(output, path);
    kiln_file file;
    kiln_mesh_view mesh;
    kiln_error error;
    if (full != NULL && kiln_file_map_expanded(&file, full, 0, &error) == KILN_OK) {
        if (kiln_mesh_view_get(&file, 0, &mesh, &error) == KILN_OK) {
            const kiln_vertex_semantic sets[2] = {KILN_SEMANTIC_JOINTS0, KILN_SEMANTIC_JOINTS1};
            for (int s = 0; s < 2; s++) {
                const kiln_vertex_attribute *a = kiln_mesh_find_attribute(&mesh, sets[s]);
                if (a == NULL || a->format != KILN_VFORMAT_U16X4)
                    continue;
                uint32_t stride = 0;
                const uint8_t *base = kiln_mesh_attribute_data(&mesh, a, &stride, NULL);
                for (uint32_t v = 0; base != NULL && v < mesh.desc->vertex_count; v++) {
                    uint16_t joints[4];
                    memcpy(joints, base + (size_t)v * stride, sizeof joints);
                    for (int k = 0; k < 4; k++)
                        if ((int64_t)joints[k] > found.max_joint ||
                            ((int64_t)joints[k] == found.max_joint && v < found.vertex)) {
                            found.max_joint = joints[k];
                            found.vertex = v;
                        }
                }
            }
        }
        kiln_file_close(&file);
    }
    free(full);
    return found;
}

/* Every skinned node's mesh names only joints its skin has. Each mesh is
 * read once however many nodes draw it with a skin. */
static size_t check_skinned_meshes(check_report *report, const char *output, const char *where,
                                   const kiln_manifest_view *manifest,
                                   const kiln_scene_view *view) {
    uint32_t mesh_count = view->desc->mesh_count;
    mesh_joints *meshes = mesh_count ? calloc(mesh_count, sizeof *meshes) : NULL;
    bool *read = mesh_count ? calloc(mesh_count, sizeof *read) : NULL;
    size_t problems = 0;
    if (mesh_count > 0 && (meshes == NULL || read == NULL)) {
        check_problem(report, where, "out of memory checking skinned meshes");
        problems++;
        mesh_count = 0;
    }
    for (uint32_t n = 0; n < view->node_count && mesh_count > 0; n++) {
        int32_t mesh = view->nodes[n].mesh, skin = view->nodes[n].skin;
        if (skin < 0 || mesh < 0 || (uint32_t)mesh >= mesh_count)
            continue;
        if (!read[mesh]) {
            meshes[mesh] = read_mesh_joints(output, manifest, view->meshes[mesh]);
            read[mesh] = true;
        }
        uint32_t joint_count = view->skins[skin].joint_count;
        if (meshes[mesh].max_joint >= (int64_t)joint_count) {
            const kiln_manifest_entry *entry = kiln_manifest_find(manifest, view->meshes[mesh]);
            check_problem(report, where,
                          "node %u: vertex %u of %s names joint %lld, but skin %d "
                          "has %u joints",
                          n, meshes[mesh].vertex, kiln_manifest_path(manifest, entry),
                          (long long)meshes[mesh].max_joint, skin, joint_count);
            problems++;
        }
    }
    free(meshes);
    free(read);
    return problems;
}

static size_t check_scene_refs(check_report *report, const char *output, const char *relative,
                               const kiln_manifest_view *manifest) {
    char *full = cook_path_join(output, relative);
    char where[4096], label[64];
    snprintf(where, sizeof where, "%s/%s", output, relative);
    kiln_file file;
    kiln_scene_view view;
    kiln_error error;
    size_t problems = 0;
    if (full != NULL && kiln_file_map_expanded(&file, full, 0, &error) == KILN_OK) {
        if (kiln_scene_view_get(&file, 0, &view, &error) == KILN_OK) {
            for (uint32_t m = 0; m < view.desc->mesh_count; m++) {
                snprintf(label, sizeof label, "mesh ref %u", m);
                problems += !ref_resolves(report, output, where, manifest, view.meshes[m],
                                          KILN_ASSET_MESH, label);
            }
            for (uint32_t m = 0; m < view.desc->material_count; m++) {
                snprintf(label, sizeof label, "material table ref %u", m);
                problems += !ref_resolves(report, output, where, manifest, view.materials[m],
                                          KILN_ASSET_MATERIAL, label);
            }
            for (uint32_t n = 0; n < view.node_count; n++)
                problems += check_node_links(report, output, where, manifest, &view, n);
            problems += check_skinned_meshes(report, output, where, manifest, &view);
        }
        kiln_file_close(&file);
    }
    free(full);
    return problems;
}

/* The clips' scene resolves through the manifest to a .kscene with the node
 * count the channels were made for. */
static size_t check_anim_refs(check_report *report, const char *output, const char *relative,
                              const kiln_manifest_view *manifest) {
    char *full = cook_path_join(output, relative);
    char where[4096];
    snprintf(where, sizeof where, "%s/%s", output, relative);
    kiln_file file;
    kiln_anim_view view;
    kiln_error error;
    size_t problems = 0;
    if (full != NULL && kiln_file_map_expanded(&file, full, 0, &error) == KILN_OK) {
        if (kiln_anim_view_get(&file, 0, &view, &error) == KILN_OK) {
            if (!ref_resolves(report, output, where, manifest, view.desc->scene, KILN_ASSET_SCENE,
                              "scene ref")) {
                problems++;
            } else {
                const kiln_manifest_entry *entry = kiln_manifest_find(manifest, view.desc->scene);
                char *scene_path = cook_path_join(output, kiln_manifest_path(manifest, entry));
                kiln_file scene_file;
                kiln_scene_view scene;
                if (scene_path != NULL &&
                    kiln_file_map_expanded(&scene_file, scene_path, 0, &error) == KILN_OK) {
                    if (kiln_scene_view_get(&scene_file, 0, &scene, &error) == KILN_OK &&
                        scene.node_count != view.node_count) {
                        check_problem(
                            report, where, "the clips target %u nodes but the scene '%s' has %u",
                            view.node_count, kiln_manifest_path(manifest, entry), scene.node_count);
                        problems++;
                    }
                    kiln_file_close(&scene_file);
                }
                free(scene_path);
            }
        }
        kiln_file_close(&file);
    }
    free(full);
    return problems;
}

/* ---------------------------------------------------------------------------
 * Cross-file: levels naming levels form no cycle (the runtime's manager holds
 * what a level places and names, and refuses a level that would hold itself)
 * ------------------------------------------------------------------------- */

typedef struct level_vertex {
    uint64_t hash;   /* its scene's ref hash */
    const char *ref; /* in the manifest */
    char *where;     /* its file, for the message */
    uint64_t *names; /* the hashes it places and its components name */
    size_t name_count, name_cap;
    size_t next; /* DFS: the next name to follow */
    int color;   /* 0 unvisited, 1 on the path, 2 done */
} level_vertex;

static bool push_name(level_vertex *v, uint64_t hash) {
    uint64_t *grown = array_grow(v->names, &v->name_cap, v->name_count + 1, sizeof *grown, 8);
    if (grown == NULL)
        return false;
    v->names = grown;
    v->names[v->name_count++] = hash;
    return true;
}

static bool push_component(void *user, const char *ref, size_t ref_length, uint64_t hash) {
    (void)ref;
    (void)ref_length;
    return push_name(user, hash);
}

/* What a level places and its components name (malformed components are
 * reported by check_node_links; what was read of them counts). */
static bool collect_level_names(level_vertex *v, const kiln_scene_view *view) {
    for (uint32_t n = 0; n < view->node_count; n++) {
        uint64_t scene = kiln_scene_node_link(view, n, NULL);
        if (scene != 0 && !push_name(v, scene))
            return false;
        size_t length = 0;
        const char *json = kiln_scene_node_components(view, n, &length);
        const char *why;
        size_t at;
        if (json != NULL &&
            components_scan(json, length, push_component, v, &why, &at) == COMPONENTS_STOPPED)
            return false;
    }
    return true;
}

static size_t level_find(const level_vertex *levels, size_t count, uint64_t hash) {
    for (size_t i = 0; i < count; i++)
        if (levels[i].hash == hash)
            return i;
    return SIZE_MAX;
}

static size_t check_level_cycles(check_report *report, const char *output, const strlist *files,
                                 const kiln_manifest_view *manifest) {
    level_vertex *levels = NULL;
    size_t count = 0, level_cap = 0, problems = 0;
    bool ok = true;
    for (size_t f = 0; ok && f < files->count; f++) {
        if (kiln_pack_kind_of(files->items[f]) != KILN_PACK_SCENE)
            continue;
        const kiln_manifest_entry *entry = NULL;
        for (uint32_t e = 0; e < manifest->entry_count && entry == NULL; e++)
            if (manifest->entries[e].kind == KILN_ASSET_SCENE &&
                strcmp(kiln_manifest_path(manifest, &manifest->entries[e]), files->items[f]) == 0)
                entry = &manifest->entries[e];
        if (entry == NULL)
            continue; /* check_manifest_covers reports it */
        char *full = cook_path_join(output, files->items[f]);
        kiln_file file;
        kiln_scene_view view;
        kiln_error error;
        if (full != NULL && kiln_file_map_expanded(&file, full, 0, &error) == KILN_OK) {
            if (kiln_scene_view_get(&file, 0, &view, &error) == KILN_OK && view.links != NULL) {
                level_vertex *grown = array_grow(levels, &level_cap, count + 1, sizeof *grown, 8);
                ok = grown != NULL;
                if (ok) {
                    levels = grown;
                    level_vertex *v = &levels[count++];
                    memset(v, 0, sizeof *v);
                    v->hash = entry->hash;
                    v->ref = kiln_manifest_ref(manifest, entry);
                    v->where = full;
                    full = NULL;
                    ok = collect_level_names(v, &view);
                }
            }
            kiln_file_close(&file);
        }
        free(full);
    }
    if (!ok) {
        check_problem(report, output, "out of memory checking the levels for cycles");
        problems++;
    }
    /* Depth first, iteratively (a chain of levels may be long): a name
     * leading back to a level on the path closes a cycle. */
    size_t *path = count ? malloc(count * sizeof *path) : NULL;
    for (size_t root = 0; ok && path != NULL && root < count; root++) {
        if (levels[root].color != 0)
            continue;
        size_t depth = 0;
        path[depth++] = root;
        levels[root].color = 1;
        while (depth > 0) {
            level_vertex *v = &levels[path[depth - 1]];
            if (v->next == v->name_count) {
                v->color = 2;
                depth--;
                continue;
            }
            size_t to = level_find(levels, count, v->names[v->next++]);
            if (to == SIZE_MAX || levels[to].color == 2)
                continue;
            if (levels[to].color == 0) {
                levels[to].color = 1;
                path[depth++] = to;
                continue;
            }
            bytebuf cycle = {0};
            size_t start = depth;
            while (start > 0 && path[start - 1] != to)
                start--;
            for (size_t k = start - 1; k < depth; k++)
                bytebuf_printf(&cycle, "%s -> ", levels[path[k]].ref);
            bytebuf_printf(&cycle, "%s", levels[to].ref);
            bytebuf_append_zeros(&cycle, 1);
            check_problem(report, levels[to].where,
                          "levels form a dependency cycle: %s (a level holds what it places and "
                          "names; the runtime's manager refuses to load these)",
                          cycle.failed ? levels[to].ref : (const char *)cycle.data);
            bytebuf_free(&cycle);
            problems++;
        }
    }
    free(path);
    for (size_t i = 0; i < count; i++) {
        free(levels[i].names);
        free(levels[i].where);
    }
    free(levels);
    return problems;
}

static size_t check_scenes_cross(check_report *report, const char *output, const strlist *files) {
    char *manifest_path = cook_path_join(output, KILN_MANIFEST_FILE_NAME);
    kiln_file manifest_file = {0};
    kiln_manifest_view manifest;
    kiln_error error;
    size_t problems = 0;
    /* Without a readable manifest check_manifest_covers has said so already. */
    if (manifest_path != NULL &&
        kiln_file_map_expanded(&manifest_file, manifest_path, 0, &error) == KILN_OK &&
        kiln_manifest_view_get(&manifest_file, &manifest, &error) == KILN_OK) {
        for (size_t i = 0; i < files->count; i++)
            if (kiln_pack_kind_of(files->items[i]) == KILN_PACK_SCENE)
                problems += check_scene_refs(report, output, files->items[i], &manifest);
            else if (kiln_pack_kind_of(files->items[i]) == KILN_PACK_ANIM)
                problems += check_anim_refs(report, output, files->items[i], &manifest);
        problems += check_level_cycles(report, output, files, &manifest);
    }
    kiln_file_close(&manifest_file);
    free(manifest_path);
    return problems;
}

static bool is_pack_name(const char *path) {
    size_t length = strlen(path);
    return length >= 5 && strcmp(path + length - 5, ".kpak") == 0;
}

/* <output>.kpak, when there is one: it opens (header, table of contents,
 * bounds), and it holds exactly the output folder's files (packs aside) with
 * the same bytes, so that every entry is as checked as its twin in the
 * folder. A pack a later build without --pack left behind, or one damaged
 * since, is a problem. */
static size_t check_pack(check_report *report, const char *output, const strlist *files) {
    char *pack_path = build_pack_path(output);
    struct stat info;
    if (pack_path == NULL || stat(pack_path, &info) != 0) {
        free(pack_path);
        return 0;
    }
    kiln_pack pack;
    kiln_error error;
    if (kiln_pack_open(&pack, pack_path, &error) != KILN_OK) {
        check_problem(report, pack_path, "cannot be read as a pack: %s", error.message);
        free(pack_path);
        return 1;
    }
    size_t problems = 0;
    for (uint32_t i = 0; i < pack.entry_count; i++) {
        kiln_pack_item item;
        if (kiln_pack_entry(&pack, i, &item) != KILN_OK)
            continue; /* kiln_pack_open validated every entry */
        char *full_path = cook_path_join(output, item.path);
        uint8_t *bytes = NULL;
        size_t size = 0;
        char reason[256];
        bool present = full_path != NULL && stat(full_path, &info) == 0;
        bool same =
            present && (uint64_t)info.st_size == item.size &&
            cook_read_file(full_path, (size_t)item.size, &bytes, &size, reason, sizeof reason) &&
            size == item.size && memcmp(bytes, item.data, size) == 0;
        if (!present)
            check_problem(report, pack_path,
                          "holds '%s', which the output folder does not (a stale pack: run "
                          "kiln build --pack)",
                          item.path);
        else if (!same)
            check_problem(report, pack_path,
                          "its '%s' differs from the output folder's (a stale or damaged pack: "
                          "run kiln build --pack)",
                          item.path);
        problems += !same;
        free(bytes);
        free(full_path);
    }
    for (size_t i = 0; i < files->count; i++) {
        kiln_pack_item item;
        if (is_pack_name(files->items[i]) ||
            kiln_pack_find(&pack, files->items[i], &item) == KILN_OK)
            continue;
        check_problem(report, pack_path,
                      "lacks '%s' of the output folder (a stale pack: run kiln build --pack)",
                      files->items[i]);
        problems++;
    }
    kiln_pack_close(&pack);
    free(pack_path);
    return problems;
}

static int check(const check_options *options) {
    strlist files = {0};
    if (!cli_list_output(options->output, &files)) {
        strlist_free(&files);
        return CLI_EXIT_FAILURE;
    }
    check_report report = {.items = options->json ? json_array() : NULL};
    size_t checked_count = 0, problems = 0;
    for (size_t i = 0; i < files.count; i++) {
        kiln_pack_kind kind = kiln_pack_kind_of(files.items[i]);
        if (kind == KILN_PACK_OTHER)
            continue; /* not ours to judge */
        char *full_path = cook_path_join(options->output, files.items[i]);
        if (full_path == NULL) {
            cli_error("out of memory");
            problems++;
            break;
        }
        problems += check_file(&report, full_path, kind);
        checked_count++;
        free(full_path);
    }
    if (checked_count > 0) {
        problems += check_manifest_covers(&report, options->output, &files);
        problems += check_materials_cross(&report, options->output, &files);
        problems += check_scenes_cross(&report, options->output, &files);
    }
    problems += check_pack(&report, options->output, &files);
    if (options->json) {
        json_t *document = json_object();
        json_object_set_new(document, "output", cli_json_string(options->output));
        json_object_set_new(document, "ok", json_boolean(problems == 0));
        json_object_set_new(document, "files", json_integer((json_int_t)checked_count));
        json_object_set_new(document, "problem_count", json_integer((json_int_t)problems));
        json_object_set(document, "problems", report.items);
        if (!cli_json_print_line(stdout, document))
            problems++;
        json_decref(document);
    } else if (!options->quiet) {
        printf("kiln check: %zu file%s, %zu problem%s\n", checked_count, cli_plural(checked_count),
               problems, cli_plural(problems));
    }
    fflush(stdout);
    json_decref(report.items);
    strlist_free(&files);
    return problems > 0 ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

int cmd_check(int argc, char **argv) {
    check_options options;
    int status = parse_check_options(argc, argv, &options);
    if (status >= 0)
        return status;
    build_setup setup;
    status = cli_load_folders(NULL, options.output, &setup);
    if (status < 0) {
        options.output = setup.output;
        status = check(&options);
    }
    config_free(&setup.config);
    return status;
}
