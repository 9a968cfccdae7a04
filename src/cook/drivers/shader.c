/*
 * shader.c — the shader driver: GLSL / HLSL stages → SPIR-V (import/shader.h)
 * → validation and reflection (process/spirv.h) → one .kshader per program
 * and variant (write/kshader.h).
 *
 * A program is a lone stage file (`blur.comp`, `lit.ps.hlsl`) or a
 * `*.shader/` folder whose files are named after their stage, whatever the
 * extension (`vertex.vert`, `fragment.glsl`, `compute.hlsl`, precompiled
 * `vertex.spv` ...; the other files in the folder are headers). Each variant
 * of shader.variants (a set of defines) is one program, compiled stage by
 * stage (a .spv stage is checked, not compiled), validated with the target
 * environment, reflected, and its stages checked against each other: an
 * output the next stage does not read is a warning, one it reads as another
 * type an error.
 * Two variants with equal SPIR-V share one file; each keeps its ref.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/core/shader_defines.h"
#include "cook/drivers/drivers.h"
#include "cook/import/shader.h"
#include "cook/inspect/isolate_spirv.h"
#include "cook/process/spirv.h"
#include "cook/write/kshader.h"

#define SHADER_MAX_VARIANTS 64

/* File extensions of GLSL stages (glslang's), by stage. */
static const struct {
    const char *extension;
    kiln_shader_stage stage;
} glsl_extensions[] = {
    {"vert", KILN_SHADER_STAGE_VERTEX},
    {"tesc", KILN_SHADER_STAGE_TESS_CONTROL},
    {"tese", KILN_SHADER_STAGE_TESS_EVALUATION},
    {"geom", KILN_SHADER_STAGE_GEOMETRY},
    {"frag", KILN_SHADER_STAGE_FRAGMENT},
    {"comp", KILN_SHADER_STAGE_COMPUTE},
    {"task", KILN_SHADER_STAGE_TASK},
    {"mesh", KILN_SHADER_STAGE_MESH},
    {"rgen", KILN_SHADER_STAGE_RAYGEN},
    {"rahit", KILN_SHADER_STAGE_ANY_HIT},
    {"rchit", KILN_SHADER_STAGE_CLOSEST_HIT},
    {"rmiss", KILN_SHADER_STAGE_MISS},
    {"rint", KILN_SHADER_STAGE_INTERSECTION},
    {"rcall", KILN_SHADER_STAGE_CALLABLE},
};

/* HLSL stage names in a file name (`lit.ps.hlsl`), by stage. */
static const struct {
    const char *name;
    kiln_shader_stage stage;
} hlsl_stages[] = {
    {"vs", KILN_SHADER_STAGE_VERTEX},
    {"hs", KILN_SHADER_STAGE_TESS_CONTROL},
    {"ds", KILN_SHADER_STAGE_TESS_EVALUATION},
    {"gs", KILN_SHADER_STAGE_GEOMETRY},
    {"ps", KILN_SHADER_STAGE_FRAGMENT},
    {"fs", KILN_SHADER_STAGE_FRAGMENT},
    {"cs", KILN_SHADER_STAGE_COMPUTE},
    {"as", KILN_SHADER_STAGE_TASK},
    {"ts", KILN_SHADER_STAGE_TASK},
    {"ms", KILN_SHADER_STAGE_MESH},
};

static const char *file_name_of(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool has_extension(const char *name, const char *extension) {
    const char *dot = strrchr(name, '.');
    return dot != NULL && ascii_is_word_ci(dot + 1, strlen(dot + 1), extension);
}

/* A header (*.glsl *.hlsli *.h): never a stage of its own. */
static bool is_header(const char *name) {
    return has_extension(name, "glsl") || has_extension(name, "hlsli") || has_extension(name, "h");
}

/* The stage a lone file's name says, or KILN_SHADER_STAGE_COUNT_. */
static kiln_shader_stage stage_from_name(const char *name) {
    const char *dot = strrchr(name, '.');
    if (dot == NULL)
        return KILN_SHADER_STAGE_COUNT_;
    for (size_t i = 0; i < sizeof glsl_extensions / sizeof glsl_extensions[0]; i++)
        if (ascii_is_word_ci(dot + 1, strlen(dot + 1), glsl_extensions[i].extension))
            return glsl_extensions[i].stage;
    if (ascii_is_word_ci(dot + 1, strlen(dot + 1), "hlsl")) { /* lit.ps.hlsl */
        const char *start = dot;
        while (start > name && start[-1] != '.')
            start--;
        for (size_t i = 0; start > name && i < sizeof hlsl_stages / sizeof hlsl_stages[0]; i++)
            if (ascii_is_word_ci(start, (size_t)(dot - start), hlsl_stages[i].name))
                return hlsl_stages[i].stage;
    }
    return KILN_SHADER_STAGE_COUNT_;
}

/* The stage a file of a *.shader folder is, by its stem ("vertex.vert"). */
static kiln_shader_stage stage_from_stem(const char *name) {
    size_t stem = strcspn(name, ".");
    for (int s = 0; s < KILN_SHADER_STAGE_COUNT_; s++) {
        const char *stage = kiln_shader_stage_str((kiln_shader_stage)s);
        if (ascii_is_word_ci(name, stem, stage))
            return (kiln_shader_stage)s;
    }
    return KILN_SHADER_STAGE_COUNT_;
}

/* One stage of the program being cooked. */
typedef struct stage_source {
    kiln_shader_stage stage;
    char *path; /* relative to the input root, for messages and includes */
    uint8_t *text;
    size_t size;
    bool hlsl;
    bool spirv; /* a precompiled module (vertex.spv): validated, not compiled */
} stage_source;

static bool is_hlsl(const cook_settings *s, const char *name) {
    if (s->shader_language != COOK_SHADER_LANGUAGE_AUTO)
        return s->shader_language == COOK_SHADER_LANGUAGE_HLSL;
    return has_extension(name, "hlsl");
}

/* A lone stage file: its stage from shader.stage or its name. */
static bool lone_stage(cook_context *ctx, stage_source *out) {
    const cook_settings *s = ctx->settings;
    out->stage = s->shader_stage > 0 ? (kiln_shader_stage)(s->shader_stage - 1)
                                     : stage_from_name(file_name_of(ctx->source_path));
    out->hlsl = is_hlsl(s, ctx->source_path);
    if (out->stage == KILN_SHADER_STAGE_COUNT_) {
        diag_error(ctx->diag, ctx->source_path, 0,
                   "unknown shader stage: name the file after its stage (lit.ps.hlsl: vs, ps, "
                   "cs, gs, hs, ds, as, ms) or set shader.stage in a kiln.yml rule");
        return false;
    }
    out->path = cook_strdup(ctx->source_path);
    out->size = ctx->source_size;
    out->text = malloc(ctx->source_size + 1);
    if (out->path == NULL || out->text == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        return false;
    }
    memcpy(out->text, ctx->source, ctx->source_size);
    return true;
}

/* The stages of a *.shader folder, in pipeline order. */
static bool folder_stages(cook_context *ctx, stage_source *stages, uint32_t *count) {
    char *folder_full = cook_path_join(ctx->input_root, ctx->source_path);
    strlist names = {0};
    char reason[512];
    bool ok =
        folder_full != NULL && discover_walk(folder_full, NULL, &names, reason, sizeof reason);
    free(folder_full);
    if (!ok) {
        diag_error(ctx->diag, ctx->source_path, 0, "cannot list the shader folder: %s", reason);
        strlist_free(&names);
        return false;
    }
    const char *folder_name = file_name_of(ctx->source_path);
    stage_source found[KILN_SHADER_STAGE_COUNT_] = {0};
    for (size_t i = 0; ok && i < names.count; i++) { /* sorted: deterministic */
        const char *name = names.items[i];
        if (strchr(name, '/') != NULL)
            continue;
        /* A file named after a stage is that stage whatever its extension
         * (vertex.glsl too); the other headers are read through #include. */
        kiln_shader_stage stage = stage_from_stem(name);
        if (stage == KILN_SHADER_STAGE_COUNT_ && is_header(name))
            continue;
        char *path = cook_path_join(ctx->source_path, name);
        if (stage == KILN_SHADER_STAGE_COUNT_) {
            diag_warning(ctx->diag, path ? path : ctx->source_path, 0,
                         "not a stage of the program (name stage files vertex.*, fragment.*, "
                         "compute.* ...): ignored");
            free(path);
            continue;
        }
        if (found[stage].path != NULL) {
            diag_error(ctx->diag, ctx->source_path, 0, "two files for the %s stage: %s and %s",
                       kiln_shader_stage_str(stage), file_name_of(found[stage].path), name);
            free(path);
            ok = false;
            break;
        }
        char *relative = cook_path_join(folder_name, name);
        found[stage].stage = stage;
        found[stage].path = path;
        found[stage].spirv = has_extension(name, "spv");
        found[stage].hlsl = !found[stage].spirv && is_hlsl(ctx->settings, name);
        if (relative == NULL || path == NULL ||
            !cook_read_dependency(ctx, relative, &found[stage].text, &found[stage].size, reason,
                                  sizeof reason)) {
            diag_error(ctx->diag, path ? path : ctx->source_path, 0, "cannot read: %s",
                       relative && path ? reason : "out of memory");
            ok = false;
        }
        free(relative);
    }
    strlist_free(&names);
    *count = 0;
    for (int s = 0; s < KILN_SHADER_STAGE_COUNT_; s++)
        if (found[s].path != NULL)
            stages[(*count)++] = found[s];
    if (ok && *count == 0) {
        diag_error(ctx->diag, ctx->source_path, 0,
                   "the shader folder holds no stage (vertex.*, fragment.*, compute.* ...)");
        ok = false;
    }
    return ok;
}

/* Every token of `defines` is NAME or NAME=VALUE (shader_defines.h). */
static bool defines_valid(cook_context *ctx, const char *defines, const char *setting) {
    shader_define bad;
    if (shader_defines_valid(defines, &bad))
        return true;
    diag_error(ctx->diag, ctx->source_path, 0,
               "%s: '%.*s' is not NAME or NAME=VALUE (a macro name is a C identifier)", setting,
               (int)bad.length, bad.token);
    return false;
}

/* The graphics stage that reads what `stage` writes, among the program's. */
static int next_graphics_stage(const shader_program_ir *p, uint32_t index) {
    kiln_shader_stage from = (kiln_shader_stage)p->stages[index].stage;
    bool graphics = from <= KILN_SHADER_STAGE_GEOMETRY || from == KILN_SHADER_STAGE_TASK ||
                    from == KILN_SHADER_STAGE_MESH;
    if (!graphics || from == KILN_SHADER_STAGE_TASK) /* a task stage passes a payload */
        return -1;
    for (uint32_t j = index + 1; j < p->stage_count; j++) {
        uint32_t to = p->stages[j].stage;
        if (to <= KILN_SHADER_STAGE_FRAGMENT)
            return (int)j;
    }
    return -1;
}

/* Outputs of each stage against the inputs of the next. */
static bool check_interfaces(cook_context *ctx, const shader_program_ir *p,
                             const stage_source *stages) {
    const kiln_shader_io *io = (const kiln_shader_io *)(const void *)p->io.data;
    bool ok = true;
    for (uint32_t i = 0; i < p->stage_count; i++) {
        int next = next_graphics_stage(p, i);
        if (next < 0)
            continue;
        const kiln_shader_stage_desc *a = &p->stages[i], *b = &p->stages[next];
        const char *a_name = kiln_shader_stage_str((kiln_shader_stage)a->stage);
        const char *b_name = kiln_shader_stage_str((kiln_shader_stage)b->stage);
        for (uint32_t o = 0; o < a->output_count; o++) {
            const kiln_shader_io *out = &io[a->output_offset + o];
            const kiln_shader_io *in = NULL;
            for (uint32_t k = 0; k < b->input_count && in == NULL; k++)
                if (io[b->input_offset + k].location == out->location)
                    in = &io[b->input_offset + k];
            const char *out_name = shader_ir_string_at(p, out->name_offset);
            if (in == NULL) {
                diag_warning(ctx->diag, stages[i].path, 0,
                             "%s output '%s' (location %u) is not read by the %s stage", a_name,
                             out_name, out->location, b_name);
                continue;
            }
            if (in->base_type != out->base_type || in->vecsize != out->vecsize ||
                in->columns != out->columns) {
                char t_out[32], t_in[32];
                inspect_shader_io_type(out, t_out, sizeof t_out);
                inspect_shader_io_type(in, t_in, sizeof t_in);
                diag_error(ctx->diag, stages[next].path, 0,
                           "%s input '%s' (location %u) is %s but the %s stage writes '%s' as %s",
                           b_name, shader_ir_string_at(p, in->name_offset), in->location, t_in,
                           a_name, out_name, t_out);
                ok = false;
            }
        }
    }
    return ok;
}

/* shader.vertex_layout: kmesh. A .kmesh attribute is bound at location
 * semantic - 1 (position 0, normal 1, ... weights1 9) in the format the mesh
 * cooker writes it (encode/vertex.c): what a vertex input there may be. */
static const struct {
    kiln_vertex_semantic semantic;
    kiln_vertex_format format;
    uint8_t components; /* what the format holds; position: 4 (w = 1 when it holds 3) */
    bool integer;       /* read as uint (U16X4), else as float */
} kmesh_locations[] = {
    {KILN_SEMANTIC_POSITION, KILN_VFORMAT_F32X3, 4, false},
    {KILN_SEMANTIC_NORMAL, KILN_VFORMAT_OCT_SNORM16X2, 2, false},
    {KILN_SEMANTIC_TANGENT, KILN_VFORMAT_OCT_SIGNED_SNORM16X2, 2, false},
    {KILN_SEMANTIC_TEXCOORD0, KILN_VFORMAT_F32X2, 2, false},
    {KILN_SEMANTIC_TEXCOORD1, KILN_VFORMAT_F32X2, 2, false},
    {KILN_SEMANTIC_COLOR0, KILN_VFORMAT_UNORM16X4, 4, false},
    {KILN_SEMANTIC_JOINTS0, KILN_VFORMAT_U16X4, 4, true},
    {KILN_SEMANTIC_WEIGHTS0, KILN_VFORMAT_UNORM16X4, 4, false},
    {KILN_SEMANTIC_JOINTS1, KILN_VFORMAT_U16X4, 4, true},
    {KILN_SEMANTIC_WEIGHTS1, KILN_VFORMAT_UNORM16X4, 4, false},
};

/* The vertex stage's inputs against the .kmesh layout: an input at a
 * location no attribute has, or that reads its attribute as another numeric
 * type or with more components than it holds, is an error naming both. */
static bool check_vertex_layout(cook_context *ctx, const shader_program_ir *p,
                                const stage_source *stages) {
    if (ctx->settings->shader_vertex_layout != COOK_SHADER_VERTEX_LAYOUT_KMESH)
        return true;
    const kiln_shader_io *io = (const kiln_shader_io *)(const void *)p->io.data;
    bool ok = true;
    for (uint32_t i = 0; i < p->stage_count; i++) {
        const kiln_shader_stage_desc *s = &p->stages[i];
        if (s->stage != KILN_SHADER_STAGE_VERTEX)
            continue;
        for (uint32_t k = 0; k < s->input_count; k++) {
            const kiln_shader_io *in = &io[s->input_offset + k];
            char type[32];
            inspect_shader_io_type(in, type, sizeof type);
            const char *name = shader_ir_string_at(p, in->name_offset);
            size_t count = sizeof kmesh_locations / sizeof kmesh_locations[0];
            if (in->location >= count) {
                diag_error(ctx->diag, stages[i].path, 0,
                           "vertex input '%s' (location %u, %s) has no .kmesh attribute: "
                           "shader.vertex_layout kmesh binds position 0 ... weights1 %zu",
                           name, in->location, type, count - 1);
                ok = false;
                continue;
            }
            const kiln_shader_base_type b = (kiln_shader_base_type)in->base_type;
            bool is_float = b == KILN_SHADER_TYPE_FLOAT32 || b == KILN_SHADER_TYPE_FLOAT16;
            bool is_uint = b == KILN_SHADER_TYPE_UINT32 || b == KILN_SHADER_TYPE_UINT16;
            bool integer = kmesh_locations[in->location].integer;
            if ((integer ? !is_uint : !is_float) || in->columns > 1 || in->array_size > 0 ||
                in->vecsize > kmesh_locations[in->location].components) {
                kiln_vertex_format format = kmesh_locations[in->location].format;
                diag_error(ctx->diag, stages[i].path, 0,
                           "vertex input '%s' (location %u) is %s but the .kmesh attribute there "
                           "is %s, %s: read as %s%u%s",
                           name, in->location, type,
                           kiln_vertex_semantic_str(kmesh_locations[in->location].semantic),
                           kiln_vertex_format_str(format), integer ? "uint" : "float",
                           format == KILN_VFORMAT_F32X3 ? 3u
                                                        : kmesh_locations[in->location].components,
                           format == KILN_VFORMAT_OCT_SNORM16X2 ||
                                   format == KILN_VFORMAT_OCT_SIGNED_SNORM16X2
                               ? " (octahedral: decode it in the shader)"
                               : "");
                ok = false;
            }
        }
    }
    return ok;
}

#define SPIRV_MAGIC 0x07230203u
#define SPIRV_HEADER_WORDS 5u

static uint32_t byte_swap32(uint32_t value) {
    return (value >> 24) | ((value >> 8) & 0xff00u) | ((value << 8) & 0xff0000u) | (value << 24);
}

/* A precompiled stage's words in host order, checked before SPIRV-Tools sees
 * them: whole words, a full header, the magic number (either byte order, as
 * the SPIR-V spec allows; a module in the other order is swapped). */
static bool load_spirv_stage(cook_context *ctx, const stage_source *stage, uint32_t **words,
                             size_t *word_count) {
    *words = NULL;
    *word_count = 0;
    if (stage->size % 4 != 0 || stage->size < SPIRV_HEADER_WORDS * 4) {
        diag_error(ctx->diag, stage->path, 0, "not a SPIR-V module: %zu bytes (%s)", stage->size,
                   stage->size % 4 != 0 ? "not a whole number of 32-bit words"
                                        : "shorter than the 5-word header");
        return false;
    }
    size_t count = stage->size / 4;
    uint32_t *copy = malloc(stage->size);
    if (copy == NULL) {
        diag_error(ctx->diag, stage->path, 0, "out of memory");
        return false;
    }
    memcpy(copy, stage->text, stage->size);
    if (copy[0] == byte_swap32(SPIRV_MAGIC)) {
        for (size_t i = 0; i < count; i++)
            copy[i] = byte_swap32(copy[i]);
    } else if (copy[0] != SPIRV_MAGIC) {
        diag_error(ctx->diag, stage->path, 0,
                   "not a SPIR-V module: magic number 0x%08x, not 0x%08x", copy[0], SPIRV_MAGIC);
        free(copy);
        return false;
    }
    *words = copy;
    *word_count = count;
    return true;
}

/* Compiles, validates and reflects every stage with one variant's defines. */
static bool build_program(cook_context *ctx, const stage_source *stages, uint32_t count,
                          const char *variant, shader_program_ir *program) {
    const cook_settings *s = ctx->settings;
    program->target = (uint32_t)s->shader_target;
    bool ok = true;
    for (uint32_t i = 0; ok && i < count; i++) {
        const char *entry = s->shader_entry[0] ? s->shader_entry : "main";
        shader_compile_request request = {
            .path = stages[i].path,
            .text = (const char *)stages[i].text,
            .size = stages[i].size,
            .stage = stages[i].stage,
            .hlsl = stages[i].hlsl,
            .entry = entry,
            .defines = s->shader_defines,
            .variant_defines = variant,
        };
        uint32_t *words = NULL;
        size_t word_count = 0;
        char reason[1024];
        ok = stages[i].spirv ? load_spirv_stage(ctx, &stages[i], &words, &word_count)
                             : shader_compile(ctx, &request, &words, &word_count);
        if (ok && !spirv_validate_isolated(words, word_count, program->target, stages[i].path,
                                           s->import_timeout, reason, sizeof reason)) {
            diag_error(ctx->diag, stages[i].path, 0, "%s (target %s)", reason,
                       kiln_shader_target_str((kiln_shader_target)program->target));
            ok = false;
        }
        if (ok && !spirv_reflect_stage_isolated(program, stages[i].stage, entry, words, word_count,
                                                stages[i].path, s->import_timeout, reason,
                                                sizeof reason)) {
            diag_error(ctx->diag, stages[i].path, 0, "%s", reason);
            ok = false;
        }
        free(words);
    }
    if (ok)
        ok = check_interfaces(ctx, program, stages);
    if (ok)
        ok = check_vertex_layout(ctx, program, stages);
    shader_ir_sort_bindings(program);
    return ok;
}

/* "SKINNED=1 FOO" → ref suffix "?SKINNED=1&FOO" and file part "skinned_1.foo". */
static void variant_names(const char *variant, char *ref_suffix, size_t ref_size, char *file_part,
                          size_t file_size) {
    size_t r = 0, f = 0;
    ref_suffix[0] = file_part[0] = '\0';
    shader_define define;
    for (const char *at = variant; shader_define_next(&at, &define);) {
        r += (size_t)snprintf(ref_suffix + r, r < ref_size ? ref_size - r : 0, "%c%.*s",
                              r == 0 ? '?' : '&', (int)define.length, define.token);
        if (f > 0 && f + 1 < file_size)
            file_part[f++] = '.';
        for (size_t k = 0; k < define.length && f + 1 < file_size; k++) {
            char c = define.token[k];
            bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
            file_part[f++] = alnum ? ascii_lower(c) : '_';
        }
        file_part[f] = '\0';
    }
    if (r >= ref_size)
        ref_suffix[ref_size - 1] = '\0';
}

/* What an earlier variant wrote, to share it when the SPIR-V is equal. */
typedef struct written_variant {
    bytebuf code;
    char *path;
} written_variant;

static bool cook_variants(const cook_request *request, cook_context *ctx, cook_asset_result *result,
                          const stage_source *stages, uint32_t count, const char *base_out) {
    /* One line per variant ("" when shader.variants is not set: one program). */
    const char *lines[SHADER_MAX_VARIANTS];
    size_t lengths[SHADER_MAX_VARIANTS];
    uint32_t line_count = 0;
    for (const char *at = ctx->settings->shader_variants;; at++) {
        size_t length = strcspn(at, "\n");
        if (line_count == SHADER_MAX_VARIANTS) {
            diag_error(ctx->diag, ctx->source_path, 0, "shader.variants: more than %d variants",
                       SHADER_MAX_VARIANTS);
            return false;
        }
        lines[line_count] = at;
        lengths[line_count++] = length;
        at += length;
        if (*at == '\0')
            break;
    }
    written_variant written[SHADER_MAX_VARIANTS] = {0};
    uint32_t written_count = 0;
    bool ok = true;
    size_t base_length = strlen(base_out) - strlen(".kshader");
    for (uint32_t v = 0; v < line_count; v++) {
        if (!cook_budget_check(ctx)) { /* each variant compiles its stages again */
            ok = false;
            break;
        }
        char variant[COOK_SHADER_TEXT_MAX];
        snprintf(variant, sizeof variant, "%.*s", (int)lengths[v], lines[v]);
        if (!defines_valid(ctx, variant, "shader.variants")) {
            ok = false;
            continue;
        }
        char suffix[COOK_SHADER_TEXT_MAX + 2], file_part[256];
        variant_names(variant, suffix, sizeof suffix, file_part, sizeof file_part);
        char ref[2048], path[2048];
        snprintf(ref, sizeof ref, "%s%s", ctx->ref, suffix);
        snprintf(path, sizeof path, "%.*s%s%s.kshader", (int)base_length, base_out,
                 file_part[0] ? "." : "", file_part);
        shader_program_ir program = {0};
        if (!build_program(ctx, stages, count, variant, &program)) {
            shader_program_ir_free(&program);
            ok = false;
            continue;
        }
        const written_variant *same = NULL;
        for (uint32_t w = 0; w < written_count && same == NULL; w++)
            if (written[w].code.size == program.code.size &&
                memcmp(written[w].code.data, program.code.data, program.code.size) == 0)
                same = &written[w];
        if (same != NULL) { /* equal SPIR-V: the ref names the earlier file */
            if (!cook_manifest_add(&result->manifest, ref, same->path, KILN_ASSET_SHADER,
                                   KILN_COLOR_SPACE_NONE, 0)) {
                diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
                ok = false;
            }
            shader_program_ir_free(&program);
            continue;
        }
        bytebuf bytes = {0};
        cook_stage_enter(ctx, COOK_STAGE_WRITE);
        if (!write_kshader(ctx, &program, request->importer->name, &bytes)) {
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
            ok = false;
        } else {
            write_output output = {.relative = path,
                                   .name = ctx->source_path,
                                   .kind = KILN_ASSET_SHADER,
                                   .bytes = &bytes,
                                   .ref = ref};
            if (write_emit(ctx, request->output_root, request->verify, &output, result)) {
                written[written_count].path = cook_strdup(path);
                bytebuf_append(&written[written_count].code, program.code.data, program.code.size);
                written_count++;
            } else {
                ok = false;
            }
        }
        bytebuf_free(&bytes);
        shader_program_ir_free(&program);
    }
    for (uint32_t w = 0; w < written_count; w++) {
        bytebuf_free(&written[w].code);
        free(written[w].path);
    }
    return ok;
}

bool cook_shader_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result) {
    cook_stage_enter(ctx, COOK_STAGE_IMPORT);
    double clock = cook_clock();
    stage_source stages[KILN_SHADER_STAGE_COUNT_] = {0};
    uint32_t count = 0;
    bool ok = defines_valid(ctx, ctx->settings->shader_defines, "shader.defines");
    char *out_path = NULL;
    if (ok && request->importer->folder) {
        ok = folder_stages(ctx, stages, &count);
        out_path = cook_output_path(ctx->source_path, ".kshader"); /* lit.shader -> lit.kshader */
    } else if (ok) {
        ok = lone_stage(ctx, &stages[0]);
        count = ok ? 1 : 0;
        /* blur.comp -> blur.comp.kshader; lit.ps.hlsl -> lit.ps.kshader */
        out_path = stages[0].hlsl && has_extension(ctx->source_path, "hlsl")
                       ? cook_output_path(ctx->source_path, ".kshader")
                       : cook_path_join(ctx->source_path, "");
        if (out_path != NULL && !(stages[0].hlsl && has_extension(ctx->source_path, "hlsl"))) {
            char *with = malloc(strlen(out_path) + sizeof ".kshader");
            if (with != NULL)
                sprintf(with, "%s.kshader", out_path);
            free(out_path);
            out_path = with;
        }
    }
    if (ok && out_path == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        ok = false;
    }
    if (ok)
        ok = cook_variants(request, ctx, result, stages, count, out_path);
    for (uint32_t i = 0; i < KILN_SHADER_STAGE_COUNT_; i++) {
        free(stages[i].path);
        free(stages[i].text);
    }
    free(out_path);
    cook_stage_add(result, COOK_STAGE_IMPORT, clock);
    return ok;
}
