/*
 * cmd_info.c — `kiln info`: what is in the output folder, per file and in total.
 *
 * Every file is inspected once into a file_report; the report is then printed
 * as text or appended to one JSON document. Files that cannot be read are
 * problems: reported on stderr (and in the JSON), the others still listed.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

#define COMMAND "info"

typedef struct info_options {
    const char *output;
    const char *input; /* --quality: where the textures' sources are */
    bool json;
    bool quiet; /* -q: totals (and unreadable files) only */
    bool unreferenced;
    bool quality;
    const char *file; /* `kiln info FILE.kshader`: that file alone */
} info_options;

/* One clip of a .kanim. */
#define INFO_MAX_CLIPS 32 /* listed one by one; the file's totals count them all */
typedef struct clip_summary {
    char name[128];
    uint32_t channels;
    uint64_t keys;
    float start, duration;
    uint32_t interpolations;    /* bit k: kiln_anim_interpolation k used */
    uint64_t bytes;             /* its channel records, times and values */
    char dropped[256];          /* what the source held that was not cooked */
    uint32_t quantized;         /* channels stored quantized */
    bool has_error;             /* the file records its error (version 2) */
    kiln_anim_clip_error error; /* worst error against the source */
} clip_summary;

/* One scene of a .kscene: what its roots reach. */
#define INFO_MAX_SCENES 16 /* listed one by one; the file's totals count them all */
typedef struct scene_summary {
    char name[64];
    bool is_default;
    uint32_t roots, nodes, depth, mesh_nodes, cameras, lights, instances;
    uint32_t skinned; /* nodes whose mesh is skinned */
} scene_summary;

/* One skeleton (skin) of a .kscene: its joints' names, NUL-separated, as
 * many as fit. */
#define INFO_MAX_SKINS 16
typedef struct skin_summary {
    char name[64];
    int32_t source;
    uint32_t joints, root_joint;
    uint32_t names_listed; /* joint names in `names` */
    char names[1024];
} skin_summary;

/* One file of the output folder, as inspected. */
typedef struct file_report {
    const char *path; /* relative to the output folder */
    kiln_pack_kind kind;
    uint64_t bytes;
    bool readable;
    char problem[KILN_ERROR_MESSAGE_MAX + 64]; /* when !readable */
    kiln_mesh_desc mesh;                       /* KILN_PACK_MESH */
    kiln_vertex_attribute attributes[KILN_SEMANTIC_COUNT_];
    uint32_t attribute_count;
    char source[512]; /* from the META chunk; "" when absent */
    /* Summed over the submeshes of each topology: triangles, lines and points
     * per level of detail (level 0 first), and the submeshes. */
    uint64_t lod_primitives[KILN_TOPOLOGY_COUNT_][KILN_MESH_MAX_LODS];
    uint32_t topology_submeshes[KILN_TOPOLOGY_COUNT_];
    uint32_t lods_reused; /* levels that could not be reduced */
    uint64_t vertex_bytes, index_bytes, meshlet_bytes, morph_bytes;
    /* Morph target names, NUL-separated ("" for an unnamed target), for the
     * first morph_names_shown targets: as many as fit. */
    char morph_names[1024];
    uint32_t morph_names_shown;
    /* KILN_PACK_MANIFEST: refs per asset kind and per texture colour space. */
    uint32_t refs_per_kind[KILN_ASSET_KIND_COUNT_];
    uint32_t refs_per_color_space[KILN_COLOR_SPACE_COUNT_];
    uint32_t ref_count;
    /* KILN_PACK_MATERIAL: rows, textured slots per slot, alpha modes. */
    uint32_t material_count;
    uint32_t slot_textures[KILN_MATERIAL_SLOT_COUNT];
    uint32_t alpha_modes[KILN_ALPHA_MODE_COUNT_];
    uint32_t double_sided;
    char dropped[512]; /* "KHR_materials_clearcoat (2), ..." from MDRP, "" when none */
    /* KILN_PACK_TEXTURE: the KTX2 header. */
    uint32_t tex_width, tex_height, tex_depth, tex_faces, tex_levels, tex_vk_format,
        tex_supercompression;
    uint64_t tex_uncompressed;                      /* all levels inflated */
    uint32_t tex_content_width, tex_content_height; /* kilnContentSize, else the size */
    uint32_t tex_block_width, tex_block_height;
    bool tex_whole_blocks; /* Direct3D and WebGPU can create it */
    double tex_bits_per_pixel;
    /* --quality, block-compressed textures: modes of level 0's blocks (BC7:
     * 0..7, BC6H: 0..13) and PSNR against the source when it is found. */
    cook_texture_quality tex; /* --quality */
    /* KILN_PACK_SCENE: the file's counts, then per scene of the file. */
    kiln_scene_desc scene;
    uint32_t scene_mesh_nodes; /* nodes that draw a mesh */
    scene_summary scenes[INFO_MAX_SCENES];
    /* A level's scene (it has SLNK): one line per entity, and as JSON.
     * Freed after the file is printed. */
    bytebuf entities_text, entities_json;
    /* KILN_PACK_SHADER: one line (cli_shader_summary). */
    char shader[512];
    skin_summary skins[INFO_MAX_SKINS];
    /* KILN_PACK_ANIM: the file's counts, then per clip. */
    kiln_anim_desc anim;
    clip_summary clips[INFO_MAX_CLIPS];
} file_report;

typedef struct info_totals {
    size_t files;
    uint64_t bytes;
    uint64_t vertices;
    uint64_t primitives[KILN_TOPOLOGY_COUNT_]; /* triangles, lines, points */
    size_t per_kind[KILN_PACK_KIND_COUNT_];
    size_t problems;
    size_t warned_assets, warnings; /* the last build's, from its cache */
} info_totals;

enum { OPTION_JSON = 256, OPTION_QUALITY, OPTION_UNREFERENCED };

static const struct option info_long_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"input", required_argument, NULL, 'i'},
    {"json", no_argument, NULL, OPTION_JSON},
    {"quiet", no_argument, NULL, 'q'},
    {"quality", no_argument, NULL, OPTION_QUALITY},
    {"unreferenced", no_argument, NULL, OPTION_UNREFERENCED},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

void cmd_info_usage(FILE *out) {
    fprintf(out,
            "Usage: kiln info [options] | kiln info [--json] FILE.kshader\n"
            "\n"
            "Lists what the output folder holds: for every cooked mesh its size,\n"
            "vertex count, triangles, lines and points per level of detail,\n"
            "submeshes per topology, material slots, index size, vertex layout,\n"
            "bounds and source; for every material table (.kmat) its\n"
            "rows, textured slots, alpha modes, double-sided count and the source\n"
            "extensions it dropped; for every texture (.ktx2) its size, mips, GPU\n"
            "format with bits per pixel and supercompression; for every scene\n"
            "(.kscene) its nodes, depth, meshes, material tables, cameras, lights,\n"
            "instances and skins, and per scene of the file what its roots reach, and\n"
            "for a level's scene every entity (parent, translation, the scene it\n"
            "places, its components); then the messages the last build printed for\n"
            "each cooked asset (warnings: what its cook dropped or changed; from the\n"
            "folder's build cache, when there is one), totals and counts per kind.\n"
            "\n"
            "With --quality, each block-compressed texture's level 0 is decoded with\n"
            "kiln's own decoders (astcenc for ASTC): BC7 and BC6H textures list how\n"
            "many blocks use each mode, and when the source named in the file's\n"
            "kilnSource key is still under the input folder at the same size, the\n"
            "PSNR of level 0 against it (RGB and alpha in dB; for HDR, RGB after\n"
            "Reinhard tone mapping). Otherwise it says why there is no PSNR (source\n"
            "embedded in a model, moved, or level 0 downscaled by texture.max_size).\n"
            "\n"
            "Options:\n"
            "  -o, --output DIR   folder of cooked files (default: %s)\n"
            "  -i, --input DIR    folder of sources, for --quality (default: %s)\n"
            "      --quality      decode block-compressed textures: modes and PSNR\n"
            "      --json         print one JSON document instead of text\n"
            "  -q, --quiet        print the totals only (and any file that cannot be read)\n"
            "      --unreferenced list the cooked assets nothing reaches from kiln.yml's\n"
            "                     `roots:` and `always:` (without roots: that no other\n"
            "                     asset reads or names), from the build cache\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0, or 1 when the folder is missing or a file cannot be read.\n",
            BUILD_DEFAULT_OUTPUT, BUILD_DEFAULT_INPUT);
}

/* Returns -1 to go on, otherwise the exit status. */
static int parse_info_options(int argc, char **argv, info_options *options) {
    *options = (info_options){0};
    cli_getopt_reset();
    int option;
    while ((option = getopt_long(argc, argv, CLI_GETOPT_PREFIX "o:i:qh", info_long_options,
                                 NULL)) != -1) {
        switch (option) {
        case 'o':
            options->output = optarg;
            break;
        case 'i':
            options->input = optarg;
            break;
        case OPTION_JSON:
            options->json = true;
            break;
        case 'q':
            options->quiet = true;
            break;
        case OPTION_UNREFERENCED:
            options->unreferenced = true;
            break;
        case OPTION_QUALITY:
            options->quality = true;
            break;
        case 'h':
            cmd_info_usage(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_option_error(COMMAND, argv, info_long_options, option);
        }
    }
    if (optind + 1 == argc && ascii_ends_with_ci(argv[optind], ".kshader")) {
        options->file = argv[optind++];
        return -1;
    }
    return cli_reject_operands(COMMAND, argc, argv) ? -1 : CLI_EXIT_USAGE;
}

/* ---------------------------------------------------------------------------
 * Inspecting
 * ------------------------------------------------------------------------- */

/* Copies the string value of the first top-level-looking "key": "value" pair.
 * Enough to show provenance; anything unexpected leaves `out` empty. */
static void find_json_string(const char *json, size_t size, const char *key, char *out,
                             size_t capacity) {
    out[0] = '\0';
    char quoted[64];
    int quoted_length = snprintf(quoted, sizeof quoted, "\"%s\"", key);
    if (quoted_length <= 0 || (size_t)quoted_length >= sizeof quoted || capacity == 0)
        return;
    const char *end = json + size;
    for (const char *at = json; (size_t)(end - at) >= (size_t)quoted_length; at++) {
        if (memcmp(at, quoted, (size_t)quoted_length) != 0)
            continue;
        const char *p = at + quoted_length;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
            p++;
        if (p >= end || *p != ':')
            continue;
        p++;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
            p++;
        if (p >= end || *p != '"')
            return;
        size_t length = 0;
        for (p++; p < end && *p != '"' && length + 1 < capacity; p++) {
            if (*p == '\\' && p + 1 < end)
                p++; /* keep the escaped character itself; good enough for display */
            out[length++] = *p;
        }
        out[length] = '\0';
        return;
    }
}

static void summarize_mesh(const kiln_mesh_view *view, file_report *report) {
    const kiln_mesh_desc *desc = view->desc;
    for (uint32_t s = 0; s < desc->submesh_count; s++) {
        /* A valid view has known topologies only. */
        kiln_topology topology = (kiln_topology)view->submeshes[s].topology;
        uint32_t size = kiln_topology_index_count(topology);
        report->topology_submeshes[topology]++;
        for (uint32_t level = 0; level < desc->lod_count; level++) {
            const kiln_lod *lod = kiln_mesh_lod(view, s, level);
            report->lod_primitives[topology][level] += lod->index_count / size;
            report->lods_reused += (lod->flags & KILN_LOD_FLAG_REUSED) != 0;
        }
    }
    report->vertex_bytes = view->vertex_bytes;
    report->index_bytes = view->index_bytes;
    uint32_t per_target = 0;
    for (uint32_t bit = 1; bit <= KILN_MORPH_TANGENT; bit <<= 1)
        per_target += (desc->morph_attributes & bit) != 0;
    report->morph_bytes = (uint64_t)desc->morph_target_count * per_target * desc->vertex_count * 12;
    size_t at = 0;
    report->morph_names_shown = 0;
    for (uint32_t t = 0; t < desc->morph_target_count; t++) {
        const char *name = kiln_mesh_morph_target_name(view, t);
        size_t length = name != NULL ? strlen(name) : 0;
        if (at + length + 1 > sizeof report->morph_names)
            break;
        memcpy(report->morph_names + at, name != NULL ? name : "", length);
        report->morph_names[at + length] = '\0';
        at += length + 1;
        report->morph_names_shown++;
    }
    report->meshlet_bytes = (uint64_t)desc->meshlet_count * sizeof(kiln_meshlet) +
                            (uint64_t)desc->meshlet_vertex_count * sizeof(uint32_t) +
                            (uint64_t)desc->meshlet_triangle_count * 3;
}

/* The "source" a cooked file's metadata names, into report->source. */
static void read_source(const kiln_file *file, file_report *report) {
    size_t meta_size = 0;
    const char *meta = kiln_file_metadata(file, &meta_size);
    if (meta != NULL)
        find_json_string(meta, meta_size, "source", report->source, sizeof report->source);
}

static void inspect_mesh(const char *full_path, file_report *report) {
    kiln_file file;
    kiln_error error;
    kiln_result result = kiln_file_map(&file, full_path, 0, &error);
    if (result == KILN_OK) {
        kiln_mesh_view view;
        result = kiln_mesh_view_get(&file, 0, &view, &error);
        if (result == KILN_OK) {
            report->readable = true;
            report->mesh = *view.desc;
            report->attribute_count = view.desc->attribute_count;
            if (report->attribute_count > KILN_SEMANTIC_COUNT_)
                report->attribute_count = KILN_SEMANTIC_COUNT_; /* semantics never repeat */
            memcpy(report->attributes, view.attributes,
                   report->attribute_count * sizeof report->attributes[0]);
            summarize_mesh(&view, report);
            read_source(&file, report);
        }
        kiln_file_close(&file);
    }
    if (result != KILN_OK)
        snprintf(report->problem, sizeof report->problem, "%s",
                 cli_kiln_error_detail(&error, full_path));
}

static void inspect_manifest(const char *full_path, file_report *report) {
    kiln_file file;
    kiln_error error;
    kiln_manifest_view view;
    kiln_result result = kiln_file_map(&file, full_path, 0, &error);
    if (result == KILN_OK) {
        result = kiln_manifest_view_get(&file, &view, &error);
        if (result == KILN_OK) {
            report->readable = true;
            report->ref_count = view.entry_count;
            for (uint32_t i = 0; i < view.entry_count; i++) {
                report->refs_per_kind[view.entries[i].kind]++;
                report->refs_per_color_space[view.entries[i].color_space]++;
            }
        }
        kiln_file_close(&file);
    }
    if (result != KILN_OK)
        snprintf(report->problem, sizeof report->problem, "%s",
                 cli_kiln_error_detail(&error, full_path));
}

/* MDRP lines "<row> <extension>\n" summed per extension: "name (rows)". */
static void summarize_dropped(const kiln_file *file, file_report *report) {
    kiln_chunk chunk;
    if (kiln_file_find_chunk(file, KILN_CHUNK_MATERIAL_DROPPED, &chunk) != KILN_OK)
        return;
    const char *text = chunk.data, *end = text + chunk.size;
    char names[16][80];
    uint32_t counts[16];
    size_t distinct = 0;
    while (text < end) {
        const char *line_end = memchr(text, '\n', (size_t)(end - text));
        if (line_end == NULL)
            line_end = end;
        const char *space = memchr(text, ' ', (size_t)(line_end - text));
        if (space != NULL && line_end - space > 1) {
            int length = (int)(line_end - space - 1);
            char name[80];
            snprintf(name, sizeof name, "%.*s", length, space + 1);
            size_t k = 0;
            while (k < distinct && strcmp(names[k], name) != 0)
                k++;
            if (k == distinct && distinct < 16) {
                memcpy(names[distinct], name, sizeof name);
                counts[distinct++] = 0;
            }
            if (k < distinct)
                counts[k]++;
        }
        text = line_end + 1;
    }
    size_t used = 0;
    for (size_t k = 0; k < distinct && used < sizeof report->dropped; k++) {
        int n = snprintf(report->dropped + used, sizeof report->dropped - used,
                         "%s%s (%" PRIu32 " material%s)", k ? ", " : "", names[k], counts[k],
                         cli_plural(counts[k]));
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static void inspect_materials(const char *full_path, file_report *report) {
    kiln_file file;
    kiln_error error;
    kiln_material_view view;
    kiln_result result = kiln_file_map(&file, full_path, 0, &error);
    if (result == KILN_OK) {
        result = kiln_material_view_get(&file, 0, &view, &error);
        if (result == KILN_OK) {
            report->readable = true;
            report->material_count = view.material_count;
            for (uint32_t i = 0; i < view.material_count; i++) {
                const kiln_material *m = &view.materials[i];
                report->alpha_modes[m->alpha_mode]++;
                report->double_sided += (m->flags & KILN_MATERIAL_FLAG_DOUBLE_SIDED) != 0;
                for (int t = 0; t < KILN_MATERIAL_SLOT_COUNT; t++)
                    report->slot_textures[t] += m->textures[t].texture != 0;
            }
            summarize_dropped(&file, report);
            read_source(&file, report);
        }
        kiln_file_close(&file);
    }
    if (result != KILN_OK)
        snprintf(report->problem, sizeof report->problem, "%s",
                 cli_kiln_error_detail(&error, full_path));
}

/* What scene `s`'s roots reach (`reached`: one byte per node, scratch):
 * parents come first, so one forward pass marks every subtree. */
static void summarize_scene(const kiln_scene_view *view, uint32_t s, uint8_t *reached,
                            scene_summary *out) {
    const kiln_scene_entry *entry = &view->scenes[s];
    snprintf(out->name, sizeof out->name, "%s", kiln_scene_name(view, s));
    out->is_default = (int32_t)s == view->desc->default_scene;
    out->roots = entry->root_count;
    memset(reached, 0, view->node_count);
    for (uint32_t r = 0; r < entry->root_count; r++)
        reached[view->roots[entry->root_offset + r]] = 1;
    for (uint32_t i = 0; i < view->node_count; i++) {
        int32_t parent = view->hierarchy[i].parent;
        if (parent >= 0 && reached[parent])
            reached[i] = 1;
        if (!reached[i])
            continue;
        const kiln_scene_node *node = &view->nodes[i];
        out->nodes++;
        if (view->hierarchy[i].depth + 1 > out->depth)
            out->depth = view->hierarchy[i].depth + 1;
        out->mesh_nodes += node->mesh >= 0;
        out->cameras += node->camera >= 0;
        out->lights += node->light >= 0;
        out->instances += view->instance_ranges != NULL ? view->instance_ranges[i].count : 0;
        out->skinned += node->skin >= 0 || (node->flags & KILN_SCENE_NODE_FLAG_SKINNED) != 0;
    }
}

/* A level's entities (kscene.md SLNK): name, parent, translation, the scene
 * it places and its components. */
static void describe_entities(const kiln_scene_view *view, file_report *report) {
    bytebuf *text = &report->entities_text, *json = &report->entities_json;
    bytebuf_printf(json, ",\"entities\":[");
    for (uint32_t n = 0; n < view->node_count; n++) {
        const char *name = kiln_scene_node_name(view, n);
        int32_t parent = view->hierarchy[n].parent;
        const float *t = view->transforms[n].translation;
        const char *ref = NULL;
        kiln_scene_node_link(view, n, &ref);
        size_t length = 0;
        const char *components = kiln_scene_node_components(view, n, &length);
        bytebuf_printf(text, "  entity '%s'", name);
        if (parent >= 0)
            bytebuf_printf(text, " (parent '%s')", kiln_scene_node_name(view, (uint32_t)parent));
        bytebuf_printf(text, " at %g %g %g", (double)t[0], (double)t[1], (double)t[2]);
        if (ref != NULL)
            bytebuf_printf(text, " places %s", ref);
        if (components != NULL)
            bytebuf_printf(text, "; components %s", components);
        bytebuf_printf(text, "\n");
        bytebuf_printf(json, "%s{\"name\":", n ? "," : "");
        bytebuf_append_json_string(json, name);
        bytebuf_printf(json, ",\"parent\":");
        if (parent >= 0)
            bytebuf_append_json_string(json, kiln_scene_node_name(view, (uint32_t)parent));
        else
            bytebuf_printf(json, "null");
        bytebuf_printf(json, ",\"translation\":[%.9g,%.9g,%.9g],\"places\":", (double)t[0],
                       (double)t[1], (double)t[2]);
        if (ref != NULL)
            bytebuf_append_json_string(json, ref);
        else
            bytebuf_printf(json, "null");
        /* The components are JSON already (the cooker wrote them). */
        bytebuf_printf(json, ",\"components\":%s}", components != NULL ? components : "null");
    }
    bytebuf_printf(json, "]");
}

static void summarize_skin(const kiln_scene_view *view, uint32_t s, skin_summary *out) {
    const kiln_scene_skin *skin = &view->skins[s];
    snprintf(out->name, sizeof out->name, "%.*s", (int)skin->name_length,
             view->strings + skin->name_offset);
    out->source = skin->source;
    out->joints = skin->joint_count;
    out->root_joint = skin->root_joint;
    size_t used = 0;
    uint32_t count;
    const kiln_scene_joint *joints = kiln_scene_skin_joints(view, s, &count);
    for (uint32_t j = 0; j < count; j++) {
        const char *name = kiln_scene_node_name(view, joints[j].node);
        size_t length = strlen(name);
        if (used + length + 1 > sizeof out->names)
            break;
        memcpy(out->names + used, name, length + 1);
        used += length + 1;
        out->names_listed++;
    }
}

static void inspect_scene(const char *full_path, file_report *report) {
    kiln_file file;
    kiln_error error;
    kiln_scene_view view;
    kiln_result result = kiln_file_map(&file, full_path, 0, &error);
    if (result == KILN_OK) {
        result = kiln_scene_view_get(&file, 0, &view, &error);
        uint8_t *reached = result == KILN_OK ? malloc(view.node_count + 1) : NULL;
        if (result == KILN_OK && reached == NULL) {
            result = KILN_ERR_OUT_OF_MEMORY;
            snprintf(error.message, sizeof error.message, "out of memory");
        }
        if (result == KILN_OK) {
            report->readable = true;
            report->scene = *view.desc;
            uint32_t cursor = 0, node;
            while (kiln_scene_next_mesh_node(&view, &cursor, &node))
                report->scene_mesh_nodes++;
            for (uint32_t s = 0; s < view.scene_count && s < INFO_MAX_SCENES; s++)
                summarize_scene(&view, s, reached, &report->scenes[s]);
            if (view.links != NULL)
                describe_entities(&view, report);
            for (uint32_t s = 0; s < view.skin_count && s < INFO_MAX_SKINS; s++)
                summarize_skin(&view, s, &report->skins[s]);
            read_source(&file, report);
        }
        free(reached);
        kiln_file_close(&file);
    }
    if (result != KILN_OK)
        snprintf(report->problem, sizeof report->problem, "%s",
                 cli_kiln_error_detail(&error, full_path));
}

static void inspect_anim(const char *full_path, file_report *report) {
    kiln_file file;
    kiln_error error;
    kiln_anim_view view;
    kiln_result result = kiln_file_map(&file, full_path, 0, &error);
    if (result == KILN_OK) {
        result = kiln_anim_view_get(&file, 0, &view, &error);
        if (result == KILN_OK) {
            report->readable = true;
            report->anim = *view.desc;
            for (uint32_t c = 0; c < view.clip_count && c < INFO_MAX_CLIPS; c++) {
                const kiln_anim_clip *clip = &view.clips[c];
                clip_summary *out = &report->clips[c];
                snprintf(out->name, sizeof out->name, "%s", kiln_anim_clip_name(&view, c));
                snprintf(out->dropped, sizeof out->dropped, "%s", kiln_anim_clip_dropped(&view, c));
                out->channels = clip->channel_count;
                out->start = clip->start;
                out->duration = clip->duration;
                /* A time range shared with an earlier channel lies before the
                 * farthest range seen (the writer appends each new one). */
                uint64_t times_end = 0;
                for (uint32_t k = 0; k < clip->channel_count; k++) {
                    const kiln_anim_channel *ch = &view.channels[clip->first_channel + k];
                    bool quantized = ch->encoding == KILN_ANIM_QUANTIZED;
                    uint64_t values =
                        quantized ? 0
                                  : (uint64_t)ch->key_count * ch->components *
                                        (ch->interpolation == KILN_ANIM_CUBICSPLINE ? 3u : 1u);
                    uint64_t end = (uint64_t)ch->time_offset + ch->key_count;
                    out->keys += ch->key_count;
                    out->interpolations |= 1u << ch->interpolation;
                    out->quantized += quantized;
                    out->bytes += sizeof *ch + 4u * values;
                    if (quantized)
                        out->bytes +=
                            6u * ch->key_count + (ch->path != KILN_ANIM_ROTATION ? 24 : 0);
                    if (end > times_end) {
                        out->bytes += 4u * ch->key_count;
                        times_end = end;
                    }
                }
                if (view.errors != NULL) {
                    out->has_error = true;
                    out->error = view.errors[c];
                }
            }
            read_source(&file, report);
        }
        kiln_file_close(&file);
    }
    if (result != KILN_OK)
        snprintf(report->problem, sizeof report->problem, "%s",
                 cli_kiln_error_detail(&error, full_path));
}

/* "linear+step" style list of a clip's interpolation kinds. */
static void interpolation_list(uint32_t bits, char *out, size_t size) {
    out[0] = '\0';
    for (int k = 0; k < KILN_ANIM_INTERPOLATION_COUNT_; k++)
        if (bits & (1u << k))
            snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? "+" : "",
                     kiln_anim_interpolation_str((kiln_anim_interpolation)k));
}

/* A .ktx2: header facts through the runtime reader (level 0 is inflated only
 * with --quality). */
static void inspect_texture(const char *full_path, const info_options *options,
                            file_report *report) {
    uint8_t *data = NULL;
    size_t size = 0;
    char reason[256];
    if (!cook_read_file(full_path, (size_t)4 << 30, &data, &size, reason, sizeof reason)) {
        snprintf(report->problem, sizeof report->problem, "%s", reason);
        return;
    }
    kiln_ktx2_view view;
    kiln_error error;
    if (kiln_ktx2_view_get(&view, data, size, cli_file_name(full_path), &error) == KILN_OK) {
        report->readable = true;
        report->tex_width = view.width;
        report->tex_height = view.height;
        report->tex_depth = view.depth;
        report->tex_faces = view.faces;
        report->tex_levels = view.levels;
        report->tex_vk_format = view.vk_format;
        report->tex_supercompression = view.supercompression;
        report->tex_bits_per_pixel =
            view.block_bytes * 8.0 / ((double)view.block_width * view.block_height);
        for (uint32_t level = 0; level < view.levels; level++)
            report->tex_uncompressed += kiln_ktx2_level_size(&view, level);
        report->tex_block_width = view.block_width;
        report->tex_block_height = view.block_height;
        report->tex_whole_blocks =
            view.width % view.block_width == 0 && view.height % view.block_height == 0;
        report->tex_content_width = view.width;
        report->tex_content_height = view.height;
        const char *content = kiln_ktx2_find_value(&view, "kilnContentSize", NULL);
        unsigned cw, ch;
        if (content != NULL && sscanf(content, "%u %u", &cw, &ch) == 2 && cw <= view.width &&
            ch <= view.height) {
            report->tex_content_width = cw;
            report->tex_content_height = ch;
        }
        if (options->quality)
            cook_texture_quality_measure(&view, options->input, &report->tex);
    } else {
        snprintf(report->problem, sizeof report->problem, "%s",
                 cli_kiln_error_detail(&error, full_path));
    }
    free(data);
}

static void inspect_file(const info_options *options, const char *relative, file_report *report) {
    const char *output = options->output;
    memset(report, 0, sizeof *report);
    report->path = relative;
    report->kind = kiln_pack_kind_of(relative);
    char *full_path = cook_path_join(output, relative);
    if (full_path == NULL) {
        snprintf(report->problem, sizeof report->problem, "out of memory");
        return;
    }
    struct stat info;
    if (stat(full_path, &info) == 0)
        report->bytes = (uint64_t)info.st_size;
    if (report->kind == KILN_PACK_MESH)
        inspect_mesh(full_path, report);
    else if (report->kind == KILN_PACK_MANIFEST)
        inspect_manifest(full_path, report);
    else if (report->kind == KILN_PACK_MATERIAL)
        inspect_materials(full_path, report);
    else if (report->kind == KILN_PACK_TEXTURE)
        inspect_texture(full_path, options, report);
    else if (report->kind == KILN_PACK_SCENE)
        inspect_scene(full_path, report);
    else if (report->kind == KILN_PACK_SHADER)
        report->readable = cli_shader_summary(full_path, report->shader, sizeof report->shader,
                                              report->problem, sizeof report->problem);
    else if (report->kind == KILN_PACK_ANIM)
        inspect_anim(full_path, report);
    else
        report->readable = true; /* never opened */
    if (!report->readable)
        fprintf(stderr, "%s: error: %s\n", full_path, report->problem);
    free(full_path);
}

static void add_to_totals(info_totals *totals, const file_report *report) {
    totals->files++;
    totals->bytes += report->bytes;
    if (!report->readable) {
        totals->problems++;
        return;
    }
    totals->per_kind[report->kind]++;
    if (report->kind == KILN_PACK_MESH) {
        totals->vertices += report->mesh.vertex_count;
        for (int t = 0; t < KILN_TOPOLOGY_COUNT_; t++)
            totals->primitives[t] += report->lod_primitives[t][0];
    }
}

/* ---------------------------------------------------------------------------
 * Text
 * ------------------------------------------------------------------------- */

/* The topologies a mesh has submeshes of; triangles for a mesh without any. */
static bool shows_topology(const file_report *report, int topology) {
    return report->topology_submeshes[topology] > 0 ||
           (topology == KILN_TOPOLOGY_TRIANGLES && report->mesh.submesh_count == 0);
}

static void print_mesh_text(const file_report *report) {
    const kiln_mesh_desc *mesh = &report->mesh;
    printf("  mesh: %" PRIu64 " bytes, %" PRIu32 " vertices, ", report->bytes, mesh->vertex_count);
    for (int t = 0; t < KILN_TOPOLOGY_COUNT_; t++)
        if (shows_topology(report, t))
            printf("%" PRIu64 " %s, ", report->lod_primitives[t][0],
                   kiln_topology_str((kiln_topology)t));
    printf("%" PRIu32 " submesh%s, %" PRIu32 " material slot%s, %" PRIu32 "-bit indices\n",
           mesh->submesh_count, mesh->submesh_count == 1 ? "" : "es", mesh->material_count,
           cli_plural(mesh->material_count), mesh->index_size * 8);
    printf("  topology:");
    for (int t = 0; t < KILN_TOPOLOGY_COUNT_; t++)
        printf("%s %s %" PRIu32, t ? "," : "", kiln_topology_str((kiln_topology)t),
               report->topology_submeshes[t]);
    printf(" (submeshes)\n  lods:");
    bool first = true;
    for (int t = 0; t < KILN_TOPOLOGY_COUNT_; t++) {
        if (!shows_topology(report, t))
            continue;
        printf("%s", first ? "" : ";");
        first = false;
        for (uint32_t level = 0; level < mesh->lod_count; level++)
            printf("%s %" PRIu64, level ? " /" : "", report->lod_primitives[t][level]);
        printf(" %s", kiln_topology_str((kiln_topology)t));
    }
    if (report->lods_reused > 0)
        printf(" (%" PRIu32 " submesh level%s not reducible, reused)", report->lods_reused,
               cli_plural(report->lods_reused));
    printf("\n  meshlets: %" PRIu32 " (up to %" PRIu32 " vertices, %" PRIu32 " triangles)\n",
           mesh->meshlet_count, mesh->meshlet_max_vertices, mesh->meshlet_max_triangles);
    printf("  bytes: vertices %" PRIu64 ", indices %" PRIu64 ", meshlets %" PRIu64 "\n",
           report->vertex_bytes, report->index_bytes, report->meshlet_bytes);
    printf("  vertex: %" PRIu32 " bytes:", mesh->vertex_stride);
    for (uint32_t i = 0; i < report->attribute_count; i++)
        printf(" %s:%s",
               kiln_vertex_semantic_str((kiln_vertex_semantic)report->attributes[i].semantic),
               kiln_vertex_format_str((kiln_vertex_format)report->attributes[i].format));
    printf("\n  aabb: min (%g, %g, %g) max (%g, %g, %g)\n", (double)mesh->aabb_min[0],
           (double)mesh->aabb_min[1], (double)mesh->aabb_min[2], (double)mesh->aabb_max[0],
           (double)mesh->aabb_max[1], (double)mesh->aabb_max[2]);
    if (mesh->morph_target_count > 0) {
        printf("  morph targets: %" PRIu32 " (deltas f32x3:%s%s%s, %" PRIu64 " bytes):",
               mesh->morph_target_count,
               (mesh->morph_attributes & KILN_MORPH_POSITION) ? " position" : "",
               (mesh->morph_attributes & KILN_MORPH_NORMAL) ? " normal" : "",
               (mesh->morph_attributes & KILN_MORPH_TANGENT) ? " tangent" : "",
               report->morph_bytes);
        const char *name = report->morph_names;
        for (uint32_t t = 0; t < report->morph_names_shown; t++, name += strlen(name) + 1)
            printf("%s %s", t ? "," : "", name[0] ? name : "(unnamed)");
        if (report->morph_names_shown < mesh->morph_target_count)
            printf(", ...");
        printf("\n");
    }
    if (report->source[0] != '\0')
        printf("  source: %s\n", report->source);
}

static void print_manifest_text(const file_report *report) {
    printf("  manifest: %" PRIu64 " bytes, %" PRIu32 " ref%s:", report->bytes, report->ref_count,
           cli_plural(report->ref_count));
    for (int kind = 1; kind < KILN_ASSET_KIND_COUNT_; kind++)
        if (report->refs_per_kind[kind] > 0)
            printf(" %s %" PRIu32, kiln_asset_kind_str((kiln_asset_kind)kind),
                   report->refs_per_kind[kind]);
    for (int space = 1; space < KILN_COLOR_SPACE_COUNT_; space++)
        if (report->refs_per_color_space[space] > 0)
            printf(", %s textures %" PRIu32, kiln_color_space_str((kiln_color_space)space),
                   report->refs_per_color_space[space]);
    printf("\n");
}

static void print_materials_text(const file_report *report) {
    printf("  materials: %" PRIu64 " bytes, %" PRIu32 " row%s; alpha: opaque %" PRIu32
           ", mask %" PRIu32 ", blend %" PRIu32 "; double-sided %" PRIu32 "\n",
           report->bytes, report->material_count, cli_plural(report->material_count),
           report->alpha_modes[KILN_ALPHA_OPAQUE], report->alpha_modes[KILN_ALPHA_MASK],
           report->alpha_modes[KILN_ALPHA_BLEND], report->double_sided);
    printf("  textured slots:");
    for (int t = 0; t < KILN_MATERIAL_SLOT_COUNT; t++)
        printf("%s %s %" PRIu32, t ? "," : "", kiln_material_slot_str((kiln_material_slot)t),
               report->slot_textures[t]);
    printf("\n");
    if (report->dropped[0] != '\0')
        printf("  dropped extensions: %s\n", report->dropped);
    if (report->source[0] != '\0')
        printf("  source: %s\n", report->source);
}

static void print_texture_text(const file_report *r) {
    printf("  texture: %ux%u%s%s, %u mips, %s (%.3g bpp), supercompression %s, %" PRIu64
           " bytes (%" PRIu64 " inflated)\n",
           r->tex_width, r->tex_height, r->tex_depth ? " 3D" : "",
           r->tex_faces == 6 ? " cubemap" : "", r->tex_levels,
           kiln_ktx2_format_str(r->tex_vk_format), r->tex_bits_per_pixel,
           kiln_ktx2_supercompression_str(r->tex_supercompression), r->bytes, r->tex_uncompressed);
    if (r->tex_content_width != r->tex_width || r->tex_content_height != r->tex_height)
        printf("  padded to whole blocks: the image is the top-left %ux%u (clamped sampling: "
               "scale UVs by %u/%u, %u/%u)\n",
               r->tex_content_width, r->tex_content_height, r->tex_content_width, r->tex_width,
               r->tex_content_height, r->tex_height);
    if (!r->tex_whole_blocks)
        printf("  not a whole number of %ux%u blocks: Direct3D and WebGPU cannot create it "
               "(texture.block_align: none)\n",
               r->tex_block_width, r->tex_block_height);
    if (!r->tex.measured)
        return;
    if (r->tex.psnr_rgb >= 0.0) {
        printf("  quality: level 0 PSNR %s %.2f dB", r->tex.psnr_channels, r->tex.psnr_rgb);
        if (r->tex.psnr_alpha >= 0.0)
            printf(", alpha %.2f dB", r->tex.psnr_alpha);
        printf(" against %s\n", r->tex.source);
    } else {
        printf("  quality: no PSNR: %s\n", r->tex.note);
    }
    if (r->tex.mode_count > 0) {
        printf("  modes:");
        for (uint32_t m = 0; m < r->tex.mode_count; m++)
            if (r->tex.modes[m] > 0)
                printf(" %u:%u", m, r->tex.modes[m]);
        printf(" (blocks per mode, level 0)\n");
    }
}

static void print_scene_text(const file_report *report) {
    const kiln_scene_desc *d = &report->scene;
    printf("  scene: %" PRIu64 " bytes, %" PRIu32 " node%s, depth %" PRIu32 ", %" PRIu32
           " mesh%s (drawn by %" PRIu32 " node%s), %" PRIu32 " material table%s, %" PRIu32
           " camera%s, %" PRIu32 " light%s, %" PRIu32 " instance%s, %" PRIu32 " skin%s\n",
           report->bytes, d->node_count, cli_plural(d->node_count), d->level_count, d->mesh_count,
           d->mesh_count == 1 ? "" : "es", report->scene_mesh_nodes,
           cli_plural(report->scene_mesh_nodes), d->material_count, cli_plural(d->material_count),
           d->camera_count, cli_plural(d->camera_count), d->light_count, cli_plural(d->light_count),
           d->instance_count, cli_plural(d->instance_count), d->skin_count,
           cli_plural(d->skin_count));
    for (uint32_t s = 0; s < d->scene_count && s < INFO_MAX_SCENES; s++) {
        const scene_summary *scene = &report->scenes[s];
        printf("  scene %" PRIu32 " '%s'%s: %" PRIu32 " root%s, %" PRIu32 " node%s, depth %" PRIu32
               ", %" PRIu32 " drawing a mesh, %" PRIu32 " camera%s, %" PRIu32 " light%s, %" PRIu32
               " instance%s, %" PRIu32 " skinned\n",
               s, scene->name, scene->is_default ? " (default)" : "", scene->roots,
               cli_plural(scene->roots), scene->nodes, cli_plural(scene->nodes), scene->depth,
               scene->mesh_nodes, scene->cameras, cli_plural(scene->cameras), scene->lights,
               cli_plural(scene->lights), scene->instances, cli_plural(scene->instances),
               scene->skinned);
    }
    if (d->scene_count > INFO_MAX_SCENES)
        printf("  ... and %" PRIu32 " more scenes\n", d->scene_count - INFO_MAX_SCENES);
    if (report->entities_text.size > 0)
        fwrite(report->entities_text.data, 1, report->entities_text.size, stdout);
    for (uint32_t s = 0; s < d->skin_count && s < INFO_MAX_SKINS; s++) {
        const skin_summary *skin = &report->skins[s];
        printf("  skeleton %" PRIu32 " '%s' (source %" PRId32 "): %" PRIu32 " joint%s:", s,
               skin->name, skin->source, skin->joints, cli_plural(skin->joints));
        const char *name = skin->names;
        for (uint32_t j = 0; j < skin->names_listed; j++, name += strlen(name) + 1)
            printf("%s %s%s", j ? "," : "", name, j == skin->root_joint ? " (root)" : "");
        if (skin->names_listed < skin->joints)
            printf(", ... and %" PRIu32 " more", skin->joints - skin->names_listed);
        printf("\n");
    }
    if (d->skin_count > INFO_MAX_SKINS)
        printf("  ... and %" PRIu32 " more skeletons\n", d->skin_count - INFO_MAX_SKINS);
    if (report->source[0] != '\0')
        printf("  source: %s\n", report->source);
}

static void print_anim_text(const file_report *report) {
    const kiln_anim_desc *d = &report->anim;
    printf("  anim: %" PRIu64 " bytes, %" PRIu32 " clip%s, %" PRIu32 " channel%s, %" PRIu32
           " key%s, %" PRIu32 " morph node%s\n",
           report->bytes, d->clip_count, cli_plural(d->clip_count), d->channel_count,
           cli_plural(d->channel_count), d->time_count, cli_plural(d->time_count), d->morph_count,
           cli_plural(d->morph_count));
    for (uint32_t c = 0; c < d->clip_count && c < INFO_MAX_CLIPS; c++) {
        const clip_summary *clip = &report->clips[c];
        char kinds[64];
        interpolation_list(clip->interpolations, kinds, sizeof kinds);
        printf("  clip %" PRIu32 " '%s': %" PRIu32 " channel%s, %" PRIu64
               " key%s, %g .. %g s, %s, %" PRIu64 " bytes\n",
               c, clip->name, clip->channels, cli_plural(clip->channels), clip->keys,
               cli_plural(clip->keys), (double)clip->start, (double)clip->duration,
               kinds[0] ? kinds : "no channels", clip->bytes);
        if (clip->has_error &&
            (clip->quantized > 0 || clip->error.translation > 0 || clip->error.rotation > 0 ||
             clip->error.scale > 0 || clip->error.weights > 0))
            printf("    %" PRIu32 " quantized channel%s; worst error: translation %.9g, rotation "
                   "%.9g rad (%.4g deg), scale %.9g, weights %.9g\n",
                   clip->quantized, cli_plural(clip->quantized), (double)clip->error.translation,
                   (double)clip->error.rotation, (double)clip->error.rotation * 57.29577951308232,
                   (double)clip->error.scale, (double)clip->error.weights);
        if (clip->dropped[0] != '\0')
            printf("    dropped (not cooked): %s\n", clip->dropped);
    }
    if (d->clip_count > INFO_MAX_CLIPS)
        printf("  ... and %" PRIu32 " more clips\n", d->clip_count - INFO_MAX_CLIPS);
}

static void print_file_text(const file_report *report) {
    printf("%s\n", report->path);
    if (!report->readable)
        printf("  unreadable: %s\n", report->problem);
    else if (report->kind == KILN_PACK_MESH)
        print_mesh_text(report);
    else if (report->kind == KILN_PACK_MANIFEST)
        print_manifest_text(report);
    else if (report->kind == KILN_PACK_MATERIAL)
        print_materials_text(report);
    else if (report->kind == KILN_PACK_TEXTURE)
        print_texture_text(report);
    else if (report->kind == KILN_PACK_SCENE)
        print_scene_text(report);
    else if (report->kind == KILN_PACK_SHADER)
        printf("  shader: %" PRIu64 " bytes, %s\n", report->bytes, report->shader);
    else if (report->kind == KILN_PACK_ANIM)
        print_anim_text(report);
    else
        printf("  other: %" PRIu64 " bytes\n", report->bytes);
}

static void print_totals_text(const info_totals *totals, bool quiet) {
    printf("\ntotal: %zu file%s, %" PRIu64 " bytes, %" PRIu64 " vertices, %" PRIu64 " triangles",
           totals->files, cli_plural(totals->files), totals->bytes, totals->vertices,
           totals->primitives[KILN_TOPOLOGY_TRIANGLES]);
    for (int t = KILN_TOPOLOGY_LINES; t < KILN_TOPOLOGY_COUNT_; t++)
        if (totals->primitives[t] > 0)
            printf(", %" PRIu64 " %s", totals->primitives[t], kiln_topology_str((kiln_topology)t));
    printf("\n");
    printf("kinds:");
    for (int k = 0; k < KILN_PACK_KIND_COUNT_; k++)
        printf("%s %s %zu", k ? "," : "", kiln_pack_kind_str((kiln_pack_kind)k),
               totals->per_kind[k]);
    printf("\n");
    if (totals->problems > 0)
        printf("problems: %zu unreadable file%s\n", totals->problems, cli_plural(totals->problems));
    if (totals->warnings > 0)
        printf("warnings: %zu in %zu asset%s at the last build (%s)\n", totals->warnings,
               totals->warned_assets, cli_plural(totals->warned_assets),
               quiet ? "kiln info without -q lists them" : "listed above");
}

/* ---------------------------------------------------------------------------
 * JSON
 * ------------------------------------------------------------------------- */

/* Appends literal JSON text (punctuation, keys known to need no escaping). */
static void json_text(bytebuf *json, const char *text) {
    bytebuf_append(json, text, strlen(text));
}

static void append_texture_quality_json(bytebuf *json, const file_report *r) {
    json_text(json, ",\"quality\":{\"source\":");
    bytebuf_append_json_string(json, r->tex.source);
    if (r->tex.psnr_rgb >= 0.0)
        bytebuf_printf(json, ",\"psnr_rgb\":%.3f,\"psnr_channels\":\"%s\"", r->tex.psnr_rgb,
                       r->tex.psnr_channels);
    if (r->tex.psnr_alpha >= 0.0)
        bytebuf_printf(json, ",\"psnr_alpha\":%.3f", r->tex.psnr_alpha);
    if (r->tex.note[0]) {
        json_text(json, ",\"note\":");
        bytebuf_append_json_string(json, r->tex.note);
    }
    if (r->tex.mode_count > 0) {
        json_text(json, ",\"modes\":[");
        for (uint32_t m = 0; m < r->tex.mode_count; m++)
            bytebuf_printf(json, "%s%u", m ? "," : "", r->tex.modes[m]);
        json_text(json, "]");
    }
    json_text(json, "}");
}

static void json_key(bytebuf *json, const char *key) {
    bytebuf_append_json_string(json, key);
    json_text(json, ":");
}

static void json_vector3(bytebuf *json, const float v[3]) {
    json_text(json, "[");
    for (int i = 0; i < 3; i++) {
        if (i > 0)
            json_text(json, ",");
        cli_json_float(json, v[i]);
    }
    json_text(json, "]");
}

static void append_mesh_json(bytebuf *json, const file_report *report) {
    const kiln_mesh_desc *mesh = &report->mesh;
    bytebuf_printf(json,
                   ",\"vertices\":%" PRIu32 ",\"triangles\":%" PRIu64 ",\"lines\":%" PRIu64
                   ",\"points\":%" PRIu64 ",\"submeshes\":%" PRIu32 ",\"material_slots\":%" PRIu32
                   ",\"index_size\":%" PRIu32 ",\"vertex_stride\":%" PRIu32 ",\"meshlets\":%" PRIu32
                   ",\"bytes_vertices\":%" PRIu64 ",\"bytes_indices\":%" PRIu64
                   ",\"bytes_meshlets\":%" PRIu64 ",\"lod_triangles\":[",
                   mesh->vertex_count, report->lod_primitives[KILN_TOPOLOGY_TRIANGLES][0],
                   report->lod_primitives[KILN_TOPOLOGY_LINES][0],
                   report->lod_primitives[KILN_TOPOLOGY_POINTS][0], mesh->submesh_count,
                   mesh->material_count, mesh->index_size, mesh->vertex_stride, mesh->meshlet_count,
                   report->vertex_bytes, report->index_bytes, report->meshlet_bytes);
    for (uint32_t level = 0; level < mesh->lod_count; level++)
        bytebuf_printf(json, "%s%" PRIu64, level ? "," : "",
                       report->lod_primitives[KILN_TOPOLOGY_TRIANGLES][level]);
    for (int t = KILN_TOPOLOGY_LINES; t < KILN_TOPOLOGY_COUNT_; t++) {
        bytebuf_printf(json, "],\"lod_%s\":[", kiln_topology_str((kiln_topology)t));
        for (uint32_t level = 0; level < mesh->lod_count; level++)
            bytebuf_printf(json, "%s%" PRIu64, level ? "," : "", report->lod_primitives[t][level]);
    }
    bytebuf_printf(json, "],\"topology\":{");
    for (int t = 0; t < KILN_TOPOLOGY_COUNT_; t++)
        bytebuf_printf(json, "%s\"%s\":%" PRIu32, t ? "," : "", kiln_topology_str((kiln_topology)t),
                       report->topology_submeshes[t]);
    bytebuf_printf(json, "},\"lods_reused\":%" PRIu32 ",\"attributes\":[", report->lods_reused);
    for (uint32_t i = 0; i < report->attribute_count; i++) {
        const kiln_vertex_attribute *attribute = &report->attributes[i];
        json_text(json, i > 0 ? ",{" : "{");
        json_key(json, "semantic");
        bytebuf_append_json_string(
            json, kiln_vertex_semantic_str((kiln_vertex_semantic)attribute->semantic));
        json_text(json, ",");
        json_key(json, "format");
        bytebuf_append_json_string(json,
                                   kiln_vertex_format_str((kiln_vertex_format)attribute->format));
        bytebuf_printf(json, ",\"offset\":%u}", (unsigned)attribute->offset);
    }
    json_text(json, "],\"aabb\":{\"min\":");
    json_vector3(json, mesh->aabb_min);
    json_text(json, ",\"max\":");
    json_vector3(json, mesh->aabb_max);
    json_text(json, "}");
    bytebuf_printf(json, ",\"morph_targets\":%" PRIu32 ",\"morph_attributes\":[",
                   mesh->morph_target_count);
    const char *const morph_attributes[3] = {"position", "normal", "tangent"};
    bool first = true;
    for (int k = 0; k < 3; k++)
        if (mesh->morph_attributes >> k & 1u) {
            bytebuf_printf(json, "%s\"%s\"", first ? "" : ",", morph_attributes[k]);
            first = false;
        }
    bytebuf_printf(json, "],\"morph_bytes\":%" PRIu64 ",\"morph_target_names\":[",
                   report->morph_bytes);
    const char *name = report->morph_names;
    for (uint32_t t = 0; t < report->morph_names_shown; t++, name += strlen(name) + 1) {
        json_text(json, t ? "," : "");
        if (name[0] != '\0')
            bytebuf_append_json_string(json, name);
        else
            json_text(json, "null");
    }
    json_text(json, "]");
    if (report->source[0] != '\0') {
        json_text(json, ",");
        json_key(json, "source");
        bytebuf_append_json_string(json, report->source);
    }
}

static void append_materials_json(bytebuf *json, const file_report *report) {
    bytebuf_printf(json,
                   ",\"materials\":%" PRIu32 ",\"alpha_modes\":{\"opaque\":%" PRIu32
                   ",\"mask\":%" PRIu32 ",\"blend\":%" PRIu32 "},\"double_sided\":%" PRIu32
                   ",\"textured_slots\":{",
                   report->material_count, report->alpha_modes[KILN_ALPHA_OPAQUE],
                   report->alpha_modes[KILN_ALPHA_MASK], report->alpha_modes[KILN_ALPHA_BLEND],
                   report->double_sided);
    for (int t = 0; t < KILN_MATERIAL_SLOT_COUNT; t++)
        bytebuf_printf(json, "%s\"%s\":%" PRIu32, t ? "," : "",
                       kiln_material_slot_str((kiln_material_slot)t), report->slot_textures[t]);
    json_text(json, "},");
    json_key(json, "dropped_extensions");
    bytebuf_append_json_string(json, report->dropped);
    if (report->source[0] != '\0') {
        json_text(json, ",");
        json_key(json, "source");
        bytebuf_append_json_string(json, report->source);
    }
}

static void append_scene_json(bytebuf *json, const file_report *report) {
    const kiln_scene_desc *d = &report->scene;
    bytebuf_printf(json,
                   ",\"nodes\":%" PRIu32 ",\"depth\":%" PRIu32 ",\"meshes\":%" PRIu32
                   ",\"mesh_nodes\":%" PRIu32 ",\"material_tables\":%" PRIu32
                   ",\"cameras\":%" PRIu32 ",\"lights\":%" PRIu32 ",\"instances\":%" PRIu32
                   ",\"skins\":%" PRIu32 ",\"scene_count\":%" PRIu32 ",\"scenes\":[",
                   d->node_count, d->level_count, d->mesh_count, report->scene_mesh_nodes,
                   d->material_count, d->camera_count, d->light_count, d->instance_count,
                   d->skin_count, d->scene_count);
    for (uint32_t s = 0; s < d->scene_count && s < INFO_MAX_SCENES; s++) {
        const scene_summary *scene = &report->scenes[s];
        json_text(json, s ? ",{" : "{");
        json_key(json, "name");
        bytebuf_append_json_string(json, scene->name);
        bytebuf_printf(json,
                       ",\"default\":%s,\"roots\":%" PRIu32 ",\"nodes\":%" PRIu32
                       ",\"depth\":%" PRIu32 ",\"mesh_nodes\":%" PRIu32 ",\"cameras\":%" PRIu32
                       ",\"lights\":%" PRIu32 ",\"instances\":%" PRIu32 ",\"skinned\":%" PRIu32 "}",
                       scene->is_default ? "true" : "false", scene->roots, scene->nodes,
                       scene->depth, scene->mesh_nodes, scene->cameras, scene->lights,
                       scene->instances, scene->skinned);
    }
    json_text(json, "],\"skeletons\":[");
    for (uint32_t s = 0; s < d->skin_count && s < INFO_MAX_SKINS; s++) {
        const skin_summary *skin = &report->skins[s];
        json_text(json, s ? ",{" : "{");
        json_key(json, "name");
        bytebuf_append_json_string(json, skin->name);
        bytebuf_printf(json,
                       ",\"source\":%" PRId32 ",\"joint_count\":%" PRIu32 ",\"root_joint\":%" PRIu32
                       ",\"joints\":[",
                       skin->source, skin->joints, skin->root_joint);
        const char *name = skin->names;
        for (uint32_t j = 0; j < skin->names_listed; j++, name += strlen(name) + 1) {
            if (j > 0)
                json_text(json, ",");
            bytebuf_append_json_string(json, name);
        }
        json_text(json, "]}");
    }
    json_text(json, "]");
    if (report->entities_json.size > 0 && !report->entities_json.failed)
        bytebuf_append(json, report->entities_json.data, report->entities_json.size);
    if (report->source[0] != '\0') {
        json_text(json, ",");
        json_key(json, "source");
        bytebuf_append_json_string(json, report->source);
    }
}

static void append_file_json(bytebuf *json, const file_report *report, bool first) {
    json_text(json, first ? "\n    {" : ",\n    {");
    json_key(json, "path");
    bytebuf_append_json_string(json, report->path);
    json_text(json, ",");
    json_key(json, "kind");
    bytebuf_append_json_string(json, kiln_pack_kind_str(report->kind));
    bytebuf_printf(json, ",\"bytes\":%" PRIu64, report->bytes);
    if (!report->readable) {
        json_text(json, ",");
        json_key(json, "problem");
        bytebuf_append_json_string(json, report->problem);
    } else if (report->kind == KILN_PACK_MESH) {
        append_mesh_json(json, report);
    } else if (report->kind == KILN_PACK_MATERIAL) {
        append_materials_json(json, report);
    } else if (report->kind == KILN_PACK_SCENE) {
        append_scene_json(json, report);
    } else if (report->kind == KILN_PACK_SHADER) {
        json_text(json, ",");
        json_key(json, "shader");
        bytebuf_append_json_string(json, report->shader);
    } else if (report->kind == KILN_PACK_ANIM) {
        const kiln_anim_desc *d = &report->anim;
        bytebuf_printf(json,
                       ",\"clip_count\":%" PRIu32 ",\"channels\":%" PRIu32 ",\"keys\":%" PRIu32
                       ",\"morph_nodes\":%" PRIu32 ",\"clips\":[",
                       d->clip_count, d->channel_count, d->time_count, d->morph_count);
        for (uint32_t c = 0; c < d->clip_count && c < INFO_MAX_CLIPS; c++) {
            const clip_summary *clip = &report->clips[c];
            char kinds[64];
            interpolation_list(clip->interpolations, kinds, sizeof kinds);
            json_text(json, c ? ",{\"name\":" : "{\"name\":");
            bytebuf_append_json_string(json, clip->name);
            bytebuf_printf(json, ",\"channels\":%" PRIu32 ",\"keys\":%" PRIu64 ",\"start\":",
                           clip->channels, clip->keys);
            cli_json_float(json, clip->start);
            json_text(json, ",\"duration\":");
            cli_json_float(json, clip->duration);
            json_text(json, ",\"interpolations\":");
            bytebuf_append_json_string(json, kinds);
            bytebuf_printf(json, ",\"bytes\":%" PRIu64 ",\"quantized_channels\":%" PRIu32,
                           clip->bytes, clip->quantized);
            if (clip->has_error)
                bytebuf_printf(json,
                               ",\"error\":{\"translation\":%.9g,\"rotation\":%.9g,\"scale\":%.9g,"
                               "\"weights\":%.9g}",
                               (double)clip->error.translation, (double)clip->error.rotation,
                               (double)clip->error.scale, (double)clip->error.weights);
            bytebuf_printf(json, ",\"dropped\":");
            bytebuf_append_json_string(json, clip->dropped);
            json_text(json, "}");
        }
        json_text(json, "]");
    } else if (report->kind == KILN_PACK_TEXTURE) {
        bytebuf_printf(
            json,
            ",\"width\":%u,\"height\":%u,\"depth\":%u,\"faces\":%u,\"mips\":%u,"
            "\"format\":\"%s\",\"vk_format\":%u,\"supercompression\":\"%s\","
            "\"inflated_bytes\":%" PRIu64,
            report->tex_width, report->tex_height, report->tex_depth, report->tex_faces,
            report->tex_levels, kiln_ktx2_format_str(report->tex_vk_format), report->tex_vk_format,
            kiln_ktx2_supercompression_str(report->tex_supercompression), report->tex_uncompressed);
        bytebuf_printf(json, ",\"bits_per_pixel\":%.4g", report->tex_bits_per_pixel);
        bytebuf_printf(json, ",\"content_width\":%u,\"content_height\":%u,\"whole_blocks\":%s",
                       report->tex_content_width, report->tex_content_height,
                       report->tex_whole_blocks ? "true" : "false");
        if (report->tex.measured)
            append_texture_quality_json(json, report);
    } else if (report->kind == KILN_PACK_MANIFEST) {
        bytebuf_printf(json, ",\"refs\":%" PRIu32 ",\"refs_per_kind\":{", report->ref_count);
        for (int kind = 1; kind < KILN_ASSET_KIND_COUNT_; kind++)
            bytebuf_printf(json, "%s\"%s\":%" PRIu32, kind > 1 ? "," : "",
                           kiln_asset_kind_str((kiln_asset_kind)kind), report->refs_per_kind[kind]);
        json_text(json, "},\"textures_per_color_space\":{");
        for (int space = 1; space < KILN_COLOR_SPACE_COUNT_; space++)
            bytebuf_printf(json, "%s\"%s\":%" PRIu32, space > 1 ? "," : "",
                           kiln_color_space_str((kiln_color_space)space),
                           report->refs_per_color_space[space]);
        json_text(json, "}");
    }
    json_text(json, "}");
}

static void append_totals_json(bytebuf *json, const info_totals *totals) {
    bytebuf_printf(
        json,
        ",\n  \"totals\":{\"files\":%zu,\"bytes\":%" PRIu64 ",\"vertices\":%" PRIu64
        ",\"triangles\":%" PRIu64 ",\"lines\":%" PRIu64 ",\"points\":%" PRIu64
        ",\"problems\":%zu,\"warnings\":%zu,\"warned_assets\":%zu,\"kinds\":{",
        totals->files, totals->bytes, totals->vertices, totals->primitives[KILN_TOPOLOGY_TRIANGLES],
        totals->primitives[KILN_TOPOLOGY_LINES], totals->primitives[KILN_TOPOLOGY_POINTS],
        totals->problems, totals->warnings, totals->warned_assets);
    for (int k = 0; k < KILN_PACK_KIND_COUNT_; k++)
        bytebuf_printf(json, "%s\"%s\":%zu", k ? "," : "", kiln_pack_kind_str((kiln_pack_kind)k),
                       totals->per_kind[k]);
    bytebuf_printf(json, "}}\n}\n");
}

/* ---------------------------------------------------------------------------
 * The last build's warnings (from the build cache)
 *
 * What a source held that its cook dropped or changed is named in a warning
 * when it cooks; the cache keeps each cooked asset's messages (a no-op build
 * prints them again), so `kiln info` lists them too: whoever reads the output
 * folder later sees them without building again.
 * ------------------------------------------------------------------------- */

#define INFO_MAX_DIAG_LINES 20u /* per asset; the rest counted */

/* The output folder's build cache into *cache; false without one (no build
 * yet, or kiln clean), and with a note on stderr when it cannot be read. */
static bool read_build_cache(const char *output, kiln_cache *cache) {
    char *path = NULL;
    char reason[256];
    cache_read_status status = cache_read_folder(output, cache, &path, reason, sizeof reason);
    if (status == CACHE_READ_BAD) {
        char shown[512];
        fprintf(stderr,
                "%s: note: cannot read the build cache (%s): the last build's warnings are not "
                "listed\n",
                cook_escape_to(shown, sizeof shown, path ? path : CACHE_FILE_NAME), reason);
    }
    free(path);
    return status == CACHE_READ_OK;
}

/* The lines of a record's diagnostics (each ends in a newline). */
static size_t count_lines(const bytebuf *text) {
    size_t lines = 0;
    for (size_t i = 0; i < text->size; i++)
        lines += text->data[i] == '\n';
    return lines;
}

static bool is_warning_line(const char *line, size_t length) {
    static const char tag[] = ": warning: ";
    for (size_t i = 0; i + sizeof tag - 1 <= length; i++)
        if (memcmp(line + i, tag, sizeof tag - 1) == 0)
            return true;
    return false;
}

/* The diagnostics of every cooked asset that has some, as text or JSON
 * (then `json` gets ,"last_build":[...]). The lines were escaped when
 * written; they are escaped again, since the cache is a file anyone may
 * edit. */
static void list_build_diagnostics(const kiln_cache *cache, bool quiet, bytebuf *json,
                                   info_totals *totals) {
    bool first = true;
    if (json != NULL)
        json_text(json, ",\n  \"last_build\":[");
    for (size_t i = 0; i < cache->count; i++) {
        const cache_record *record = &cache->records[i];
        if (record->diagnostics.size == 0)
            continue;
        const char *text = (const char *)record->diagnostics.data;
        size_t lines = count_lines(&record->diagnostics), shown = 0, warnings = 0;
        if (json != NULL) {
            json_text(json, first ? "\n    {" : ",\n    {");
            json_key(json, "source");
            bytebuf_append_json_string(json, record->source);
            json_text(json, ",\"lines\":[");
        } else if (!quiet) {
            if (first)
                printf("\nlast build's messages (%s):\n", CACHE_FILE_NAME);
            bytebuf escaped = {0};
            bytebuf_append_escaped(&escaped, record->source);
            printf("%s\n", escaped.data != NULL ? (const char *)escaped.data : "");
            bytebuf_free(&escaped);
        }
        first = false;
        for (size_t at = 0; at < record->diagnostics.size;) {
            const char *start = text + at;
            const char *end = memchr(start, '\n', record->diagnostics.size - at);
            size_t length = end != NULL ? (size_t)(end - start) : record->diagnostics.size - at;
            at += length + 1;
            warnings += is_warning_line(start, length);
            char *line = malloc(length + 1);
            if (line == NULL)
                continue;
            memcpy(line, start, length);
            line[length] = '\0';
            if (json != NULL) {
                json_text(json, shown == 0 ? "" : ",");
                bytebuf_append_json_string(json, line);
            } else if (!quiet && shown < INFO_MAX_DIAG_LINES) {
                bytebuf escaped = {0};
                bytebuf_append_escaped(&escaped, line);
                printf("  %s\n", escaped.data != NULL ? (const char *)escaped.data : "");
                bytebuf_free(&escaped);
            }
            shown++;
            free(line);
        }
        if (json != NULL)
            json_text(json, "]}");
        else if (!quiet && lines > INFO_MAX_DIAG_LINES)
            printf("  ... %zu more line%s (kiln build prints them all)\n",
                   lines - INFO_MAX_DIAG_LINES, cli_plural(lines - INFO_MAX_DIAG_LINES));
        totals->warnings += warnings;
        totals->warned_assets += warnings > 0;
    }
    if (json != NULL)
        json_text(json, first ? "]" : "\n  ]");
}

/* ---------------------------------------------------------------------------
 * The command
 * ------------------------------------------------------------------------- */

static int info(const info_options *options) {
    strlist files = {0};
    if (!cli_list_output(options->output, &files)) {
        strlist_free(&files);
        return CLI_EXIT_FAILURE;
    }
    file_report *report = malloc(sizeof *report);
    bytebuf json = {0};
    if (report == NULL) {
        cli_error("out of memory");
        strlist_free(&files);
        return CLI_EXIT_FAILURE;
    }
    if (options->json) {
        json_text(&json, "{\n  ");
        json_key(&json, "output");
        bytebuf_append_json_string(&json, options->output);
        json_text(&json, ",\n  \"files\":[");
    } else if (!options->quiet) {
        printf("output: %s\n", options->output);
    }

    info_totals totals = {0};
    for (size_t i = 0; i < files.count; i++) {
        inspect_file(options, files.items[i], report);
        add_to_totals(&totals, report);
        if (options->json)
            append_file_json(&json, report, i == 0);
        else if (!options->quiet || report->problem[0] != '\0')
            print_file_text(report);
        bytebuf_free(&report->entities_text);
        bytebuf_free(&report->entities_json);
    }

    kiln_cache cache = {0};
    if (options->json)
        json_text(&json, "\n  ]");
    if (read_build_cache(options->output, &cache))
        list_build_diagnostics(&cache, options->quiet, options->json ? &json : NULL, &totals);
    cache_free(&cache);

    int status = totals.problems > 0 ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
    if (options->json) {
        append_totals_json(&json, &totals);
        if (json.failed) {
            cli_error("out of memory");
            status = CLI_EXIT_FAILURE;
        } else {
            fwrite(json.data, 1, json.size, stdout);
        }
    } else {
        print_totals_text(&totals, options->quiet);
    }
    fflush(stdout);
    bytebuf_free(&json);
    free(report);
    strlist_free(&files);
    return status;
}

/* ---------------------------------------------------------------------------
 * --unreferenced: the cooked assets nothing reaches (build_mark_referenced)
 * ------------------------------------------------------------------------- */

static void print_unreferenced(const kiln_cache *cache, const bool *marks, bool have_roots) {
    size_t listed = 0;
    for (size_t i = 0; i < cache->count; i++) {
        if (marks[i])
            continue;
        const cache_record *record = &cache->records[i];
        printf("%s:", record->source);
        for (size_t o = 0; o < record->outputs.count; o++)
            printf(" %s", record->outputs.items[o]);
        putchar('\n');
        listed++;
    }
    printf("kiln: %zu of %zu cooked asset%s %s\n", listed, cache->count, cli_plural(cache->count),
           have_roots ? "not reached from the roots or always:"
                      : "referenced by no other asset (no roots: in " BUILD_CONFIG_FILE ")");
}

static int list_unreferenced(const char *output, const kiln_config *config) {
    kiln_cache cache = {0};
    char *cache_path = NULL;
    char reason[256];
    int status = CLI_EXIT_FAILURE;
    if (!cli_require_folder(output, "output")) {
        /* reported */
    } else if (cache_read_folder(output, &cache, &cache_path, reason, sizeof reason) !=
               CACHE_READ_OK) {
        fprintf(stderr, "%s: error: cannot read the build cache (%s); run kiln build first\n",
                cache_path ? cache_path : CACHE_FILE_NAME, reason);
    } else {
        bool *marks = calloc(cache.count ? cache.count : 1, sizeof *marks);
        if (marks != NULL) {
            build_mark_referenced(&cache, config, marks);
            print_unreferenced(&cache, marks, config->roots.count > 0);
            status = CLI_EXIT_OK;
        } else {
            cli_error("out of memory");
        }
        free(marks);
    }
    free(cache_path);
    cache_free(&cache);
    return status;
}

static int run_info(info_options *options, const build_setup *setup) {
    options->output = setup->output;
    options->input = setup->input;
    if (options->unreferenced)
        return list_unreferenced(options->output, &setup->config);
    return info(options);
}

int cmd_info(int argc, char **argv) {
    info_options options;
    int status = parse_info_options(argc, argv, &options);
    if (status >= 0)
        return status;
    if (options.unreferenced && options.json)
        return cli_usage_error(COMMAND, "--json and --unreferenced cannot be combined");
    if (options.file != NULL)
        return cli_shader_info(options.file, options.json);
    build_setup setup;
    status = cli_load_folders(options.input, options.output, &setup);
    if (status < 0)
        status = run_info(&options, &setup);
    config_free(&setup.config);
    return status;
}
