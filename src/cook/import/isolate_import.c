/*
 * isolate_import.c — importers that run in a child process (isolate.h).
 *
 * Which: the third-party importers of whole files, listed in
 * isolated_importers (assimp; another library importer is one more row);
 * the decoders kiln's own importers call (libspng, libjpeg, stb_image,
 * libdraco) are isolate_decode.c's. import_run sends them to a child unless
 * KILN_ISOLATE=0 (in process, for debugging and profiling); every other
 * importer runs in process.
 *
 * Request (parent to child; the child trusts it, but still reads it with
 * bounds): u32 magic "KIRQ", u32 version, strings importer, input_root,
 * source_path, ref and the test fault (NULL but in tests), a blob of the
 * cook_settings struct (the server is this same program, so its layout
 * matches), then the source as a blob, whose bytes are sent straight from the
 * caller's buffer.
 *
 * Response (child to parent; untrusted, the child ran a library on a hostile
 * file): u32 magic "KIRS", u32 version, u8 has_ir, the IR (ir_wire.c) when
 * has_ir, u8 ok, u32 errors, u32 warnings, a blob of diagnostic lines,
 * u32 count and the dependencies' paths, u32 count and the references' paths,
 * u32 count and the paths it looked for and did not find (ctx->absent).
 * The IR comes first so a child that cannot send it can still say why.
 * The parent checks everything before using any of it: the IR (ir_wire_read),
 * the messages (bounded, whole lines, no NUL), every dependency and reference
 * resolved again as cook_resolve_dependency would (inside the input root
 * after links), every image path among those dependencies, and the absent
 * paths plain paths below the root (the cache only stats them). Then it
 * records them in the order the child did, so metadata and cache keys match
 * an in-process import byte for byte.
 *
 * Limits (import_isolation_limits): the asset's import.timeout of wall-clock
 * time (default 600 s; kiln.yml, its rules, or --import-timeout), or what is
 * left of the asset's whole budget (asset.timeout, core/budget.h) when that
 * is less, and as much
 * CPU time plus one second; address space max(4 GiB, half the RAM)
 * (KILN_ISOLATE_MEMORY_MB overrides, 0 for none); no file writes.
 * import.timeout is a settings key that is not part of the output
 * (cook_setting.not_output): it stays out of metadata and cache keys, so
 * changing it recooks nothing. The environment variable KILN_ISOLATE_TIMEOUT
 * it replaced is no longer read (a build warns when it is set).
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/path.h"
#include "cook/core/budget.h"
#include "cook/import/import.h"
#include "cook/import/isolate.h"

/* Diagnostics a child may send back: far above what an importer writes. */
#define MAX_DIAG_BYTES ((size_t)1 << 20)

typedef struct isolated_importer {
    const char *name; /* the library, in messages: "assimp crashed reading x.ply" */
    import_fn import;
} isolated_importer;

static const isolated_importer isolated_importers[] = {
    {"assimp", import_assimp},
};

#define ISOLATED_COUNT (sizeof isolated_importers / sizeof isolated_importers[0])

static const isolated_importer *find_by_function(import_fn import) {
    for (size_t i = 0; i < ISOLATED_COUNT; i++)
        if (isolated_importers[i].import == import)
            return &isolated_importers[i];
    return NULL;
}

static const isolated_importer *find_by_name(const char *name) {
    for (size_t i = 0; name != NULL && i < ISOLATED_COUNT; i++)
        if (strcmp(isolated_importers[i].name, name) == 0)
            return &isolated_importers[i];
    return NULL;
}

/* ---------------------------------------------------------------------------
 * In the child
 * ------------------------------------------------------------------------- */

static void put_strlist(bytebuf *out, const strlist *list) {
    wire_put_u32(out, (uint32_t)list->count);
    for (size_t i = 0; i < list->count; i++)
        wire_put_string(out, list->items[i]);
}

static bool run_import_job(const uint8_t *request, size_t size, bytebuf *response) {
    wire_reader in = {.data = request, .size = size};
    /* importer, input_root, source_path, ref, the test fault (or NULL) */
    char *names[5] = {NULL, NULL, NULL, NULL, NULL};
    const uint8_t *settings_bytes = NULL, *source = NULL;
    size_t settings_size = 0, source_size = 0;
    bool ok = wire_get_u32(&in) == IMPORT_REQUEST_MAGIC && wire_get_u32(&in) == IMPORT_WIRE_VERSION;
    for (int i = 0; ok && i < 5; i++)
        ok = wire_get_string(&in, &names[i]) && (names[i] != NULL || i == 4);
    ok = ok && wire_get_blob(&in, &settings_bytes, &settings_size) &&
         settings_size == sizeof(cook_settings) && wire_get_blob(&in, &source, &source_size) &&
         wire_left(&in) == 0; /* so the source ends where the server's NUL is */
    const isolated_importer *importer = ok ? find_by_name(names[0]) : NULL;
    if (importer == NULL) {
        for (int i = 0; i < 5; i++)
            free(names[i]);
        return false;
    }
#ifdef KILN_TEST_HOOKS
    char fault = isolate_test_fault(names[4], names[2]);
#endif
    cook_settings settings;
    memcpy(&settings, settings_bytes, sizeof settings);
    settings.threads = 1; /* one asset per process: no pool */
    cook_diag diag = {0};
    cook_context ctx = {.input_root = names[1],
                        .source_path = names[2],
                        .ref = names[3],
                        .source = source,
                        .source_size = source_size,
                        .settings = &settings,
                        .diag = &diag};
    ir_asset asset = {0};
    ok = importer->import(&ctx, &asset);

    wire_put_u32(response, IMPORT_RESPONSE_MAGIC);
    wire_put_u32(response, IMPORT_WIRE_VERSION);
    size_t has_ir_at = response->size;
    wire_put_u8(response, ok);
    if (ok && !ir_wire_write(&asset, response) && !response->failed) {
        response->size = has_ir_at; /* take the partial IR back out */
        wire_put_u8(response, 0);
        diag_error(&diag, names[2], 0, "%s produced what cannot be sent back (LODs, meshlets)",
                   importer->name);
        ok = false;
    }
    wire_put_u8(response, ok);
    wire_put_u32(response, diag.errors);
    wire_put_u32(response, diag.warnings);
    wire_put_blob(response, diag.text.data, diag.text.size);
    put_strlist(response, &ctx.dependencies);
    put_strlist(response, &ctx.references);
    put_strlist(response, &ctx.absent);
#ifdef KILN_TEST_HOOKS
    if (fault == 'g' && response->size > 3)
        response->size -= 3;
#endif
    ir_asset_free(&asset);
    diag_free(&diag);
    strlist_free(&ctx.dependencies);
    strlist_free(&ctx.references);
    strlist_free(&ctx.absent);
    for (int i = 0; i < 5; i++)
        free(names[i]);
    return true;
}

/* assimp: a fresh child per asset. Its imports take milliseconds to
 * seconds, so the fork is cheap beside them, and assimp is the library seen
 * to crash and corrupt its heap here (Fuzzing in docs/reliability.md): no
 * asset may inherit another's damage. */
static const isolate_job import_jobs[] = {{"import", run_import_job, false}};

/* Before isolate.c's server constructor (which has no priority, so runs
 * after every constructor that has one). */
__attribute__((constructor(ISOLATE_REGISTER_PRIORITY))) static void register_jobs(void) {
    isolate_register_jobs(import_jobs, sizeof import_jobs / sizeof import_jobs[0]);
}

/* ---------------------------------------------------------------------------
 * In the parent: the response, as untrusted input
 * ------------------------------------------------------------------------- */

typedef struct import_response {
    ir_asset asset;
    bool has_ir, ok;
    uint32_t errors, warnings;
    const uint8_t *text;
    size_t text_size;
    strlist dependencies, references, absent;
} import_response;

static void response_free(import_response *r) {
    ir_asset_free(&r->asset);
    strlist_free(&r->dependencies);
    strlist_free(&r->references);
    strlist_free(&r->absent);
}

static bool get_strlist(wire_reader *in, strlist *list) {
    uint32_t count = wire_get_count(in, 4);
    for (uint32_t i = 0; !in->failed && i < count; i++) {
        char *text = NULL;
        bool ok = wire_get_string(in, &text) && text != NULL && strlist_push(list, text);
        free(text);
        if (!ok)
            return false;
    }
    return !in->failed;
}

/* Whole lines, no NUL, and no more errors and warnings than lines. */
static bool plausible_messages(const import_response *r) {
    if (r->text_size > MAX_DIAG_BYTES || memchr(r->text, '\0', r->text_size) != NULL ||
        (r->text_size > 0 && r->text[r->text_size - 1] != '\n'))
        return false;
    size_t lines = 0;
    for (size_t i = 0; i < r->text_size; i++)
        lines += r->text[i] == '\n';
    return (uint64_t)r->errors + r->warnings <= lines;
}

static bool decode_response(const uint8_t *data, size_t size, import_response *r, char *reason,
                            size_t reason_size) {
    wire_reader in = {.data = data, .size = size};
    if (wire_get_u32(&in) != IMPORT_RESPONSE_MAGIC || wire_get_u32(&in) != IMPORT_WIRE_VERSION) {
        snprintf(reason, reason_size, "not a response of this version");
        return false;
    }
    uint8_t has_ir = wire_get_u8(&in);
    if (has_ir == 1 && !ir_wire_read(&in, &r->asset, reason, reason_size))
        return false;
    uint8_t ok = wire_get_u8(&in);
    r->errors = wire_get_u32(&in);
    r->warnings = wire_get_u32(&in);
    bool read = wire_get_blob(&in, &r->text, &r->text_size) && get_strlist(&in, &r->dependencies) &&
                get_strlist(&in, &r->references) && get_strlist(&in, &r->absent);
    if (!read || wire_left(&in) != 0 || has_ir > 1 || ok > 1 || (ok && !has_ir)) {
        snprintf(reason, reason_size, "truncated or inconsistent (%zu bytes)", size);
        return false;
    }
    r->has_ir = has_ir != 0;
    r->ok = ok != 0;
    if (!plausible_messages(r)) {
        snprintf(reason, reason_size, "its messages are not lines of text");
        return false;
    }
    return true;
}

/* Resolves the child's dependencies and references again here, into
 * `checked` (a copy of ctx with empty lists), and checks that every image
 * file of the IR is one of them. */
static bool check_paths(cook_context *checked, const import_response *r, char *reason,
                        size_t reason_size) {
    for (size_t i = 0; i < r->dependencies.count; i++)
        if (!cook_record_dependency(checked, r->dependencies.items[i], reason, reason_size))
            return false;
    for (size_t i = 0; i < r->references.count; i++)
        if (!cook_record_reference(checked, r->references.items[i], reason, reason_size))
            return false;
    for (uint32_t i = 0; i < r->asset.image_count; i++) {
        const char *path = r->asset.images[i].path;
        if (path != NULL && !strlist_contains(&checked->dependencies, path)) {
            snprintf(reason, reason_size, "image '%s' is not a file it read", path);
            return false;
        }
    }
    for (size_t i = 0; i < r->absent.count; i++) {
        if (!path_is_plain_relative(r->absent.items[i])) {
            snprintf(reason, reason_size, "'%s' is not a path relative to the input folder",
                     r->absent.items[i]);
            return false;
        }
    }
    return true;
}

/* Appends what `from` has and `to` has not yet, in order. */
static bool append_new(strlist *to, const strlist *from) {
    for (size_t i = 0; i < from->count; i++)
        if (!strlist_contains(to, from->items[i]) && !strlist_push(to, from->items[i]))
            return false;
    return true;
}

bool import_response_read(cook_context *ctx, const char *library, const uint8_t *data, size_t size,
                          ir_asset *out) {
    memset(out, 0, sizeof *out);
    const char *path = ctx->source_path;
    import_response r = {0};
    char reason[512];
    cook_context checked = *ctx; /* with lists of its own: resolving may add to each */
    checked.dependencies = (strlist){0};
    checked.references = (strlist){0};
    checked.absent = (strlist){0};
    bool valid = decode_response(data, size, &r, reason, sizeof reason) &&
                 check_paths(&checked, &r, reason, sizeof reason);
    if (valid && (!append_new(&ctx->dependencies, &checked.dependencies) ||
                  !append_new(&ctx->references, &checked.references) ||
                  !append_new(&ctx->absent, &r.absent))) {
        snprintf(reason, sizeof reason, "out of memory");
        valid = false;
    }
    strlist_free(&checked.dependencies);
    strlist_free(&checked.references);
    strlist_free(&checked.absent);
    if (!valid) {
        diag_error(ctx->diag, path, 0, "%s sent an invalid result for %s: %s", library,
                   isolate_file_name(path), reason);
        response_free(&r);
        return false;
    }
    /* As text, so the diagnostics stay NUL-terminated like diag_* keeps them. */
    bytebuf_printf(&ctx->diag->text, "%.*s", (int)r.text_size, (const char *)r.text);
    ctx->diag->errors += r.errors;
    ctx->diag->warnings += r.warnings;
    if (!r.ok && r.errors == 0)
        diag_error(ctx->diag, path, 0, "%s failed reading %s without saying why", library,
                   isolate_file_name(path));
    if (r.ok) {
        *out = r.asset;
        memset(&r.asset, 0, sizeof r.asset);
    }
    response_free(&r);
    return r.ok;
}

void import_request_write(const cook_context *ctx, const char *importer, bytebuf *out) {
    wire_put_u32(out, IMPORT_REQUEST_MAGIC);
    wire_put_u32(out, IMPORT_WIRE_VERSION);
    wire_put_string(out, importer);
    wire_put_string(out, ctx->input_root);
    wire_put_string(out, ctx->source_path);
    wire_put_string(out, ctx->ref);
    wire_put_string(out, isolate_test_fault_hook());
    wire_put_blob(out, ctx->settings, sizeof *ctx->settings);
    wire_put_u64(out, ctx->source_size); /* the source blob's length; its bytes follow */
}

/* An abort (std::bad_alloc) or SIGKILL (the kernel's OOM killer) is often
 * the importer running out of memory. */
static void note_memory_limit(cook_context *ctx, const isolate_limits *limits, int signal) {
    if (limits->memory_bytes == 0 || (signal != SIGABRT && signal != SIGKILL))
        return;
    diag_note(ctx->diag, ctx->source_path, 0,
              "the import process may use %llu MiB of memory (%s raises it)",
              (unsigned long long)(limits->memory_bytes >> 20), ISOLATE_MEMORY_ENV);
}

bool import_isolated(cook_context *ctx, import_fn import, ir_asset *out) {
    memset(out, 0, sizeof *out);
    const char *path = ctx->source_path, *file = isolate_file_name(path);
    const isolated_importer *importer = find_by_function(import);
    isolate_limits limits;
    char reason[256];
    if (importer == NULL) {
        diag_error(ctx->diag, path, 0, "this importer cannot run in a child process");
        return false;
    }
    if (!import_isolation_limits(ctx->settings, &limits, reason, sizeof reason)) {
        diag_error(ctx->diag, path, 0, "%s", reason);
        return false;
    }
    /* One budget: the child gets what is left of the asset's (asset.timeout)
     * when that is less than import.timeout; running out is then the
     * budget's error, in stage import. */
    double left = cook_budget_left();
    bool budget_binds = left >= 0.0 && left < limits.timeout_seconds;
    if (budget_binds) {
        if (!cook_budget_check(ctx) || left <= 0.0)
            return false;
        limits.timeout_seconds = left;
        limits.cpu_seconds = (uint32_t)ceil(left) + 1;
    }
    bytebuf head = {0};
    import_request_write(ctx, importer->name, &head);
    if (head.failed) {
        bytebuf_free(&head);
        diag_error(ctx->diag, path, 0, "out of memory");
        return false;
    }
    const isolate_part parts[] = {{head.data, head.size}, {ctx->source, ctx->source_size}};
    isolate_outcome outcome;
    isolate_run("import", parts, 2, &limits, &outcome);
    bytebuf_free(&head);

    bool ok = false;
    const char *library = importer->name;
    if (outcome.status == ISOLATE_DONE) {
        ok = import_response_read(ctx, library, outcome.response, outcome.response_size, out);
    } else if (!(outcome.status == ISOLATE_TIMED_OUT && budget_binds && !cook_budget_check(ctx))) {
        /* (a budget that ran out has reported its own error) */
        char text[512];
        isolate_failure_text(&outcome, &limits, library, "reading", file, text, sizeof text);
        diag_error(ctx->diag, path, 0, "%s", text);
        if (outcome.status == ISOLATE_SIGNALED && outcome.signal != SIGXCPU)
            note_memory_limit(ctx, &limits, outcome.signal);
    }
    free(outcome.response);
    return ok;
}

bool import_run(cook_context *ctx, import_fn import, ir_asset *out) {
    if (find_by_function(import) == NULL || !isolate_enabled(true))
        return import(ctx, out);
    return import_isolated(ctx, import, out);
}
