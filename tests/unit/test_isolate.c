/* test_isolate.c — third-party importers in a child process (import/isolate*.c).
 *
 * The mechanism through its test job ("isolate-test", built with the tests):
 * responses small and large, a crash, the wall-clock timeout, the CPU, file
 * size and memory limits, exit statuses, a broken frame, concurrent callers,
 * and servers replaced after each failure. Then assimp itself: an isolated
 * import gives exactly the in-process IR, messages and dependencies; the
 * parent's reading of a response refuses truncated, bit-flipped and forged
 * ones (paths out of the root, images it did not read); and import_run's
 * environment (KILN_ISOLATE=0, the timeout, bad values, the fault hook). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/landlock.h>

#include "test_import.h"
#include "test_support.h"

#include "cook/import/isolate.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#else
#define UNDER_ASAN 0
#endif

/* ---------------------------------------------------------------------------
 * The mechanism
 * ------------------------------------------------------------------------- */

static const isolate_limits test_limits = {.timeout_seconds = 60.0};

static double seconds_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void run_test_job(const char *command, const isolate_limits *limits,
                         isolate_outcome *outcome) {
    const isolate_part part = {command, strlen(command)};
    isolate_run("isolate-test", &part, 1, limits, outcome);
}

static void expect_response(const char *command, const char *expected) {
    isolate_outcome outcome;
    run_test_job(command, &test_limits, &outcome);
    if (outcome.status != ISOLATE_DONE)
        fail_msg("%s: status %d (%s)", command, outcome.status, outcome.reason);
    assert_int_equal(outcome.response_size, strlen(expected));
    assert_memory_equal(outcome.response, expected, outcome.response_size);
    free(outcome.response);
}

static void expect_signal(const char *command, const isolate_limits *limits, int signal) {
    isolate_outcome outcome;
    run_test_job(command, limits, &outcome);
    if (outcome.status != ISOLATE_SIGNALED || outcome.signal != signal)
        fail_msg("%s: status %d, signal %d (%s), expected signal %d", command, outcome.status,
                 outcome.signal, outcome.reason, signal);
    assert_null(outcome.response);
}

static void responses_come_back(void **state) {
    (void)state;
    expect_response("echo:hello", "hello");
    expect_response("echo:", "");
    /* Larger than any pipe buffer: the parent reads while the child writes. */
    size_t big = (size_t)24 << 20;
    isolate_outcome outcome;
    run_test_job("big:25165824", &test_limits, &outcome);
    assert_int_equal(outcome.status, ISOLATE_DONE);
    assert_int_equal(outcome.response_size, big);
    uint8_t expected[4096] = {0};
    for (size_t at = 0; at < big; at += sizeof expected)
        assert_memory_equal(outcome.response + at, expected, sizeof expected);
    free(outcome.response);
}

static void a_crash_is_a_signal_and_the_next_job_runs(void **state) {
    (void)state;
    expect_signal("crash", &test_limits, SIGSEGV);
    assert_string_equal(isolate_signal_name(SIGSEGV), "SEGV");
    expect_response("echo:after the crash", "after the crash");
}

static void the_wall_clock_timeout_kills(void **state) {
    (void)state;
    const isolate_limits limits = {.timeout_seconds = 0.5};
    double start = seconds_now();
    isolate_outcome outcome;
    run_test_job("hang", &limits, &outcome);
    double took = seconds_now() - start;
    assert_int_equal(outcome.status, ISOLATE_TIMED_OUT);
    assert_null(outcome.response);
    assert_true(took >= 0.45);
    if (took > 10.0)
        fail_msg("the timeout of 0.5 s took %.1f s", took);
    expect_response("echo:after the timeout", "after the timeout");
}

static void the_cpu_limit_stops_a_spinning_child(void **state) {
    (void)state;
    const isolate_limits limits = {.timeout_seconds = 120.0, .cpu_seconds = 1};
    expect_signal("spin", &limits, SIGXCPU);
}

static void a_child_cannot_write_files(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("isolate_write");
    char command[600];
    snprintf(command, sizeof command, "write:%s/written", dir);
    expect_signal(command, &test_limits, SIGXFSZ);
    free(dir);
}

static void the_memory_limit_refuses_large_allocations(void **state) {
    (void)state;
    if (UNDER_ASAN) {
        /* RLIMIT_AS is not set under ASan (its shadow memory needs terabytes
         * of address space); the release build checks this path. */
        printf("the_memory_limit_refuses_large_allocations: skipped under AddressSanitizer\n");
        skip();
    }
    const isolate_limits limits = {.timeout_seconds = 60.0, .memory_bytes = (uint64_t)512 << 20};
    isolate_outcome outcome;
    run_test_job("alloc:1024", &limits, &outcome);
    assert_int_equal(outcome.status, ISOLATE_DONE);
    assert_memory_equal(outcome.response, "refused", 7);
    free(outcome.response);
    run_test_job("alloc:16", &limits, &outcome);
    assert_int_equal(outcome.status, ISOLATE_DONE);
    assert_memory_equal(outcome.response, "allocated", 9);
    free(outcome.response);
}

static void exit_statuses_and_broken_frames(void **state) {
    (void)state;
    isolate_outcome outcome;
    run_test_job("exit:7", &test_limits, &outcome);
    assert_int_equal(outcome.status, ISOLATE_EXITED);
    assert_int_equal(outcome.exit_code, 7);
    /* Exits 0 having sent 8 of the 100 bytes it announced. */
    run_test_job("short", &test_limits, &outcome);
    assert_int_equal(outcome.status, ISOLATE_FAILED);
    assert_non_null(strstr(outcome.reason, "whole response"));
    /* A response over the limit is refused before it is read. */
    const isolate_limits small = {.timeout_seconds = 60.0, .max_response_bytes = 1000};
    run_test_job("big:1001", &small, &outcome);
    assert_int_equal(outcome.status, ISOLATE_FAILED);
    assert_non_null(strstr(outcome.reason, "over the limit"));
    assert_null(outcome.response);
    /* A job the child does not know, and a command the test job does not. */
    const isolate_part part = {"x", 1};
    isolate_run("no-such-job", &part, 1, &test_limits, &outcome);
    assert_int_equal(outcome.status, ISOLATE_EXITED);
    run_test_job("no-such-command", &test_limits, &outcome);
    assert_int_equal(outcome.status, ISOLATE_DONE);
    free(outcome.response);
    expect_response("echo:still serving", "still serving");
}

#define CALLERS 6
#define JOBS_EACH 8

static void *echo_many(void *arg) {
    int caller = *(int *)arg;
    for (int j = 0; j < JOBS_EACH; j++) {
        char command[80], expected[64];
        snprintf(expected, sizeof expected, "caller %d job %d", caller, j);
        snprintf(command, sizeof command, "echo:%s", expected);
        isolate_outcome outcome;
        run_test_job(command, &test_limits, &outcome);
        bool same = outcome.status == ISOLATE_DONE && outcome.response_size == strlen(expected) &&
                    memcmp(outcome.response, expected, outcome.response_size) == 0;
        free(outcome.response);
        if (!same)
            return (void *)1;
    }
    return NULL;
}

static void concurrent_callers_get_their_own_children(void **state) {
    (void)state;
    pthread_t threads[CALLERS];
    int ids[CALLERS];
    for (int t = 0; t < CALLERS; t++) {
        ids[t] = t;
        assert_int_equal(pthread_create(&threads[t], NULL, echo_many, &ids[t]), 0);
    }
    int failures = 0;
    for (int t = 0; t < CALLERS; t++) {
        void *result;
        pthread_join(threads[t], &result);
        failures += result != NULL;
    }
    assert_int_equal(failures, 0);
}

/* Whether the kernel has Landlock (which the reused servers use). */
static bool landlock_available(void) {
    return syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) > 0;
}

/* The same job run by its server itself ("isolate-test-reused"): one
 * process serves job after job until one kills it, then a new one serves. */
static isolate_outcome run_reused(const char *command, const isolate_limits *limits) {
    const isolate_part part = {command, strlen(command)};
    isolate_outcome outcome;
    isolate_run("isolate-test-reused", &part, 1, limits, &outcome);
    return outcome;
}

static long reused_pid(void) {
    isolate_outcome outcome = run_reused("pid", &test_limits);
    assert_int_equal(outcome.status, ISOLATE_DONE);
    char text[32] = {0};
    assert_true(outcome.response_size < sizeof text);
    memcpy(text, outcome.response, outcome.response_size);
    free(outcome.response);
    return atol(text);
}

static void forked_pid(long *pid) {
    isolate_outcome outcome;
    run_test_job("pid", &test_limits, &outcome);
    assert_int_equal(outcome.status, ISOLATE_DONE);
    char text[32] = {0};
    memcpy(text, outcome.response, outcome.response_size < 31 ? outcome.response_size : 31);
    free(outcome.response);
    *pid = atol(text);
}

static void reused_servers_serve_until_a_job_kills_them(void **state) {
    (void)state;
    long first = reused_pid();
    assert_int_equal(reused_pid(), first); /* the same process, not a fork per job */
    long a, b;
    forked_pid(&a);
    forked_pid(&b);
    assert_true(a != b && a != first); /* the forked kind: a fresh child each time */

    isolate_outcome outcome = run_reused("crash", &test_limits);
    assert_int_equal(outcome.status, ISOLATE_SIGNALED);
    assert_int_equal(outcome.signal, SIGSEGV);
    long second = reused_pid();
    assert_true(second != first); /* restarted for the next job */

    const isolate_limits short_wait = {.timeout_seconds = 0.5};
    outcome = run_reused("hang", &short_wait);
    assert_int_equal(outcome.status, ISOLATE_TIMED_OUT);
    long third = reused_pid();
    assert_true(third != second);

    const isolate_limits one_cpu_second = {.timeout_seconds = 120.0, .cpu_seconds = 1};
    outcome = run_reused("spin", &one_cpu_second);
    assert_int_equal(outcome.status, ISOLATE_SIGNALED);
    assert_int_equal(outcome.signal, SIGXCPU);

    /* Files: the reused server may neither write (RLIMIT_FSIZE, or Landlock
     * first) nor, where the kernel has Landlock, read; a forked child may
     * read (assimp reads a model's other files). */
    char *dir = test_make_temp_dir("isolate_reused_files");
    char command[600];
    snprintf(command, sizeof command, "write:%s/written", dir);
    outcome = run_reused(command, &test_limits);
    if (landlock_available()) {
        assert_int_equal(outcome.status, ISOLATE_DONE);
        assert_memory_equal(outcome.response, "refused", 7);
        free(outcome.response);
    } else {
        assert_int_equal(outcome.status, ISOLATE_SIGNALED);
        assert_int_equal(outcome.signal, SIGXFSZ);
    }
    outcome = run_reused("read:/proc/self/status", &test_limits);
    assert_int_equal(outcome.status, ISOLATE_DONE);
    const char *expected = landlock_available() ? "refused" : "read";
    assert_int_equal(outcome.response_size, strlen(expected));
    assert_memory_equal(outcome.response, expected, outcome.response_size);
    free(outcome.response);
    expect_response("read:/proc/self/status", "read");
    free(dir);

    outcome = run_reused("exit:7", &test_limits);
    assert_int_equal(outcome.status, ISOLATE_EXITED);
    assert_int_equal(outcome.exit_code, 7);
    outcome = run_reused("short", &test_limits);
    assert_int_equal(outcome.status, ISOLATE_FAILED);
    assert_non_null(strstr(outcome.reason, "whole response"));

    /* After all that, a new server serves job after job again. */
    long fourth = reused_pid();
    for (int i = 0; i < 3; i++)
        assert_int_equal(reused_pid(), fourth);
}

static bool answer_reversed(void *user, const uint8_t *question, size_t size, bytebuf *answer) {
    (*(int *)user)++;
    for (size_t i = size; i-- > 0;)
        bytebuf_append(answer, &question[i], 1);
    return true;
}

static void a_reused_job_asks_the_parent(void **state) {
    (void)state;
    int asked = 0;
    const isolate_asker asker = {answer_reversed, &asked};
    const char command[] = "ask:include me";
    const isolate_part part = {command, strlen(command)};
    isolate_outcome outcome;
    isolate_run_asking("isolate-test-reused", &part, 1, &test_limits, &asker, &outcome);
    assert_int_equal(outcome.status, ISOLATE_DONE);
    assert_int_equal(asked, 2);
    assert_int_equal(outcome.response_size, strlen("em edulcni|em edulcni"));
    assert_memory_equal(outcome.response, "em edulcni|em edulcni", outcome.response_size);
    free(outcome.response);
    /* Nobody to ask: the job fails and its server is replaced. */
    long before = reused_pid();
    isolate_run("isolate-test-reused", &part, 1, &test_limits, &outcome);
    assert_int_equal(outcome.status, ISOLATE_FAILED);
    assert_non_null(strstr(outcome.reason, "no answer"));
    assert_true(reused_pid() != before);
}

static void reused_servers_lift_a_jobs_memory_limit_after_it(void **state) {
    (void)state;
    if (UNDER_ASAN) {
        printf("reused_servers_lift_a_jobs_memory_limit_after_it: skipped under "
               "AddressSanitizer (no RLIMIT_AS)\n");
        skip();
    }
    const isolate_limits limited = {.timeout_seconds = 60.0, .memory_bytes = (uint64_t)512 << 20};
    isolate_outcome outcome = run_reused("alloc:1024", &limited);
    assert_int_equal(outcome.status, ISOLATE_DONE);
    assert_memory_equal(outcome.response, "refused", 7);
    free(outcome.response);
    outcome = run_reused("alloc:1024", &test_limits);
    assert_int_equal(outcome.status, ISOLATE_DONE);
    assert_memory_equal(outcome.response, "allocated", 9);
    free(outcome.response);
}

/* ---------------------------------------------------------------------------
 * Importers
 * ------------------------------------------------------------------------- */

static bool assimp_isolated(cook_context *ctx, ir_asset *out) {
    return import_isolated(ctx, import_assimp, out);
}

static bool assimp_through_import_run(cook_context *ctx, ir_asset *out) {
    return import_run(ctx, import_assimp, out);
}

static void expect_same_strlist(const strlist *a, const strlist *b) {
    assert_int_equal(a->count, b->count);
    for (size_t i = 0; i < a->count; i++)
        assert_string_equal(a->items[i], b->items[i]);
}

static bytebuf wire_of(const ir_asset *asset) {
    bytebuf bytes = {0};
    assert_true(ir_wire_write(asset, &bytes));
    return bytes;
}

/* In process and isolated: the same result, messages, dependencies and IR. */
static void expect_same_import(const char *root, const char *path) {
    test_import here, there;
    test_import_file(&here, import_assimp, root, path);
    test_import_file(&there, assimp_isolated, root, path);
    if (here.ok != there.ok || strcmp(test_import_messages(&here), test_import_messages(&there)))
        fail_msg("%s: in process %d:\n%s\nisolated %d:\n%s", path, here.ok,
                 test_import_messages(&here), there.ok, test_import_messages(&there));
    assert_int_equal(here.diag.errors, there.diag.errors);
    assert_int_equal(here.diag.warnings, there.diag.warnings);
    expect_same_strlist(&here.dependencies, &there.dependencies);
    expect_same_strlist(&here.absent, &there.absent);
    bytebuf a = wire_of(&here.asset), b = wire_of(&there.asset);
    assert_int_equal(a.size, b.size);
    assert_memory_equal(a.data, b.data, a.size);
    bytebuf_free(&a);
    bytebuf_free(&b);
    test_import_free(&here);
    test_import_free(&there);
}

static void write_text(const char *dir, const char *relative, const char *text) {
    test_write_in(dir, relative, text, strlen(text));
}

#define PLY_HEADER "ply\nformat ascii 1.0\n"

/* A textured triangle (assimp reads PLY's TextureFile comment), its texture,
 * a file assimp cannot parse, one with a non-finite normal (a warning) and
 * one without faces. */
static char *model_folder(void) {
    char *dir = test_make_temp_dir("isolate_models");
    write_text(dir, "models/tri.ply",
               PLY_HEADER "comment TextureFile ../textures/tex.png\n"
                          "element vertex 3\nproperty float x\nproperty float y\n"
                          "property float z\nproperty float s\nproperty float t\n"
                          "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
                          "0 0 0 0 0\n1 0 0 1 0\n0 1 0 0 1\n3 0 1 2\n");
    write_text(dir, "textures/tex.png", "not decoded by an import");
    write_text(dir, "models/broken.ply",
               PLY_HEADER "element vertex 3\nproperty float x\n"
                          "end_header\nnot numbers at all\n");
    write_text(dir, "models/nan.ply",
               PLY_HEADER "element vertex 3\nproperty float x\nproperty float y\n"
                          "property float z\nproperty float nx\nproperty float ny\n"
                          "property float nz\nelement face 1\n"
                          "property list uchar int vertex_indices\nend_header\n"
                          "0 0 0 0 0 1\n1 0 0 nan 0 1\n0 1 0 0 0 1\n3 0 1 2\n");
    write_text(dir, "models/points.ply",
               PLY_HEADER "element vertex 2\nproperty float x\n"
                          "property float y\nproperty float z\n"
                          "end_header\n0 0 0\n1 1 1\n");
    return dir;
}

static void isolated_imports_match_in_process_ones(void **state) {
    (void)state;
    char *dir = model_folder();
    static const char *const files[] = {"models/tri.ply", "models/broken.ply", "models/nan.ply",
                                        "models/points.ply"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        expect_same_import(dir, files[i]);
    test_import r;
    test_import_file(&r, assimp_isolated, dir, "models/tri.ply");
    test_import_expect_ok(&r);
    assert_int_equal(r.dependencies.count, 1);
    assert_string_equal(r.dependencies.items[0], "textures/tex.png");
    assert_int_equal(r.asset.image_count, 1);
    assert_string_equal(r.asset.images[0].path, "textures/tex.png");
    test_import_free(&r);
    free(dir);
    if (test_corpus_dir() == NULL)
        return;
    static const char *const corpus[] = {"ply/assimp/cube.ply", "ply/assimp/cube_binary.ply",
                                         "ply/assimp/cube_uv.ply", "ply/assimp/float-color.ply"};
    for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++)
        expect_same_import(test_corpus_dir(), corpus[i]);
}

/* The response the child would send for `path`, made in this process by
 * the job itself. */
static bytebuf child_response(const char *root, const char *path, cook_settings *settings) {
    char *full = test_path_join(root, path);
    size_t size;
    uint8_t *source = test_read_file(full, &size);
    cook_context ctx = {.input_root = root,
                        .source_path = path,
                        .ref = "test",
                        .source = source,
                        .source_size = size,
                        .settings = settings};
    bytebuf request = {0};
    import_request_write(&ctx, "assimp", &request);
    bytebuf_append(&request, source, size + 1); /* and the NUL after it, as the server has */
    const isolate_job *job = isolate_find_job("import");
    assert_non_null(job);
    isolate_job_fn run = job->run;
    bytebuf response = {0};
    assert_true(run(request.data, request.size - 1, &response));
    assert_false(response.failed);
    bytebuf_free(&request);
    free(source);
    free(full);
    return response;
}

typedef struct applied {
    bool ok;
    cook_diag diag;
    ir_asset asset;
    strlist dependencies, absent;
} applied;

static void apply_response(const char *root, const uint8_t *data, size_t size,
                           const cook_settings *settings, applied *out) {
    memset(out, 0, sizeof *out);
    cook_context ctx = {.input_root = root,
                        .source_path = "models/tri.ply",
                        .ref = "test",
                        .settings = settings,
                        .diag = &out->diag};
    out->ok = import_response_read(&ctx, "assimp", data, size, &out->asset);
    out->dependencies = ctx.dependencies;
    out->absent = ctx.absent;
    strlist_free(&ctx.references);
}

static void applied_free(applied *a) {
    diag_free(&a->diag);
    ir_asset_free(&a->asset);
    strlist_free(&a->dependencies);
    strlist_free(&a->absent);
}

static void expect_invalid(const applied *a, const char *label) {
    const char *text = a->diag.text.data ? (const char *)a->diag.text.data : "";
    if (a->ok || a->diag.errors != 1 || strstr(text, "assimp sent an invalid result") == NULL)
        fail_msg("%s: ok %d, messages:\n%s", label, a->ok, text);
    assert_int_equal(a->dependencies.count + a->absent.count, 0);
    assert_int_equal(a->asset.mesh_count, 0);
}

static void responses_are_checked_before_use(void **state) {
    (void)state;
    char *dir = model_folder();
    cook_settings settings;
    cook_settings_default(&settings);
    bytebuf good = child_response(dir, "models/tri.ply", &settings);
    applied a;
    apply_response(dir, good.data, good.size, &settings, &a);
    assert_true(a.ok);
    assert_int_equal(a.dependencies.count, 1);
    applied_free(&a);

    for (size_t length = 0; length < good.size; length++) {
        char label[64];
        snprintf(label, sizeof label, "cut at %zu of %zu", length, good.size);
        apply_response(dir, good.data, length, &settings, &a);
        expect_invalid(&a, label);
        applied_free(&a);
    }
    uint8_t *copy = malloc(good.size + 1);
    assert_non_null(copy);
    memcpy(copy, good.data, good.size);
    copy[good.size] = 0;
    apply_response(dir, copy, good.size + 1, &settings, &a);
    expect_invalid(&a, "a byte too many");
    applied_free(&a);
    for (size_t at = 0; at < good.size; at++) {
        for (int bit = 0; bit < 8; bit++) {
            memcpy(copy, good.data, good.size);
            copy[at] ^= (uint8_t)(1u << bit);
            apply_response(dir, copy, good.size, &settings, &a);
            /* Whatever is accepted is whole: images among the files read. */
            for (uint32_t i = 0; a.ok && i < a.asset.image_count; i++)
                if (a.asset.images[i].path != NULL)
                    assert_true(strlist_contains(&a.dependencies, a.asset.images[i].path));
            applied_free(&a);
        }
    }
    free(copy);
    bytebuf_free(&good);
    free(dir);
}

/* A response as the layout in isolate_import.c says, with what a corrupted
 * child might claim. */
typedef struct forged {
    const char *text;
    uint32_t errors;
    const char *dependency; /* NULL: none */
    const char *image_path; /* the asset's one image, NULL: no image */
    bool with_ir, ok;
    const char *absent; /* a path it looked for, NULL: none */
} forged;

static bytebuf forge_response(const forged *f) {
    bytebuf out = {0};
    wire_put_u32(&out, IMPORT_RESPONSE_MAGIC);
    wire_put_u32(&out, IMPORT_WIRE_VERSION);
    wire_put_u8(&out, f->with_ir);
    if (f->with_ir) {
        ir_asset asset = {0};
        if (f->image_path != NULL)
            assert_int_equal(
                ir_image_add_file(&asset.images, &asset.image_count, f->image_path, "image"), 0);
        assert_true(ir_wire_write(&asset, &out));
        ir_asset_free(&asset);
    }
    wire_put_u8(&out, f->ok);
    wire_put_u32(&out, f->errors);
    wire_put_u32(&out, 0);
    wire_put_blob(&out, f->text, strlen(f->text));
    wire_put_u32(&out, f->dependency != NULL);
    if (f->dependency != NULL)
        wire_put_string(&out, f->dependency);
    wire_put_u32(&out, 0);
    wire_put_u32(&out, f->absent != NULL);
    if (f->absent != NULL)
        wire_put_string(&out, f->absent);
    return out;
}

static void forged_responses_are_refused(void **state) {
    (void)state;
    char *dir = model_folder();
    char *outside = test_make_temp_dir("isolate_outside");
    write_text(outside, "secret.png", "outside the input root");
    char *link = test_path_join(dir, "models/link.png");
    char *target = test_path_join(outside, "secret.png");
    assert_int_equal(symlink(target, link), 0);
    cook_settings settings;
    cook_settings_default(&settings);
    static const struct {
        const char *name;
        forged f;
    } refused[] = {
        {"a dependency climbing out", {"", 0, "../secret.png", NULL, true, true, NULL}},
        {"an absolute dependency", {"", 0, "/etc/passwd", NULL, true, true, NULL}},
        {"a dependency not in normal form", {"", 0, "models/./tri.ply", NULL, true, true, NULL}},
        {"a dependency that does not exist", {"", 0, "models/missing.png", NULL, true, true, NULL}},
        {"a dependency linking out", {"", 0, "models/link.png", NULL, true, true, NULL}},
        {"an image it did not read", {"", 0, NULL, "textures/tex.png", true, true, NULL}},
        {"an image beside the one it read",
         {"", 0, "textures/tex.png", "models/tri.ply", true, true, NULL}},
        {"success without an IR", {"", 0, NULL, NULL, false, true, NULL}},
        {"a message without its newline", {"x.ply: warning: w", 0, NULL, NULL, true, true, NULL}},
        {"more errors than lines", {"x.ply: error: e\n", 2, NULL, NULL, true, false, NULL}},
        {"an absent path climbing out", {"", 0, NULL, NULL, true, true, "../x.png"}},
        {"an absolute absent path", {"", 0, NULL, NULL, true, true, "/etc/shadow"}},
        {"an absent path not in normal form", {"", 0, NULL, NULL, true, true, "a//x.png"}},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        bytebuf bytes = forge_response(&refused[i].f);
        applied a;
        apply_response(dir, bytes.data, bytes.size, &settings, &a);
        expect_invalid(&a, refused[i].name);
        applied_free(&a);
        bytebuf_free(&bytes);
    }
    /* What a healthy child sends is taken as it is. */
    const forged fine = {"models/tri.ply: warning: w\n",
                         0,
                         "textures/tex.png",
                         "textures/tex.png",
                         true,
                         true,
                         "models/tri.mtl"};
    bytebuf bytes = forge_response(&fine);
    applied a;
    apply_response(dir, bytes.data, bytes.size, &settings, &a);
    assert_true(a.ok);
    assert_int_equal(a.diag.warnings, 0);
    assert_string_equal((const char *)a.diag.text.data, "models/tri.ply: warning: w\n");
    assert_string_equal(a.dependencies.items[0], "textures/tex.png");
    assert_int_equal(a.absent.count, 1);
    assert_string_equal(a.absent.items[0], "models/tri.mtl");
    applied_free(&a);
    bytebuf_free(&bytes);
    /* A failure that gives no reason still fails with a message. */
    const forged silent = {"", 0, NULL, NULL, false, false, NULL};
    bytes = forge_response(&silent);
    apply_response(dir, bytes.data, bytes.size, &settings, &a);
    assert_false(a.ok);
    assert_non_null(strstr((const char *)a.diag.text.data, "without saying why"));
    applied_free(&a);
    bytebuf_free(&bytes);
    free(link);
    free(target);
    free(outside);
    free(dir);
}

static void expect_one_error(const test_import *r, const char *words) {
    if (r->ok || r->diag.errors != 1 || strstr(test_import_messages(r), words) == NULL)
        fail_msg("expected one error with \"%s\", got (ok %d):\n%s", words, r->ok,
                 test_import_messages(r));
    assert_int_equal(r->asset.mesh_count, 0);
}

/* import_run with the asset's import.timeout at 1 s (kiln.yml or
 * --import-timeout set it in a build). */
static bool assimp_with_a_1s_timeout(cook_context *ctx, ir_asset *out) {
    cook_settings settings = *ctx->settings;
    settings.import_timeout = 1;
    const cook_settings *given = ctx->settings;
    ctx->settings = &settings;
    bool ok = import_run(ctx, import_assimp, out);
    ctx->settings = given;
    return ok;
}

static void import_run_follows_the_environment(void **state) {
    (void)state;
    char *dir = model_folder();
    test_import r;
    /* The fault hook acts in the child only: in process the file imports. */
    setenv("KILN_TEST_ISOLATE_FAULT", "crash:tri.ply", 1);
    test_import_file(&r, assimp_through_import_run, dir, "models/tri.ply");
    expect_one_error(&r, "assimp crashed reading tri.ply (signal 11, SIGSEGV)");
    test_import_free(&r);
    setenv("KILN_ISOLATE", "0", 1);
    test_import_file(&r, assimp_through_import_run, dir, "models/tri.ply");
    test_import_expect_ok(&r);
    test_import_free(&r);
    unsetenv("KILN_ISOLATE");
    /* Other files are not affected by a fault aimed at tri.ply. */
    test_import_file(&r, assimp_through_import_run, dir, "models/nan.ply");
    assert_true(r.ok);
    test_import_free(&r);

    setenv("KILN_TEST_ISOLATE_FAULT", "hang:tri.ply", 1);
    double start = seconds_now();
    test_import_file(&r, assimp_with_a_1s_timeout, dir, "models/tri.ply");
    expect_one_error(&r, "assimp took longer than 1 s reading tri.ply; stopped (import.timeout");
    assert_true(seconds_now() - start < 10.0);
    test_import_free(&r);

    setenv("KILN_TEST_ISOLATE_FAULT", "garbage:tri.ply", 1);
    test_import_file(&r, assimp_through_import_run, dir, "models/tri.ply");
    expect_one_error(&r, "assimp sent an invalid result for tri.ply");
    test_import_free(&r);
    unsetenv("KILN_TEST_ISOLATE_FAULT");

    static const struct {
        const char *name, *value, *words;
    } bad[] = {
        {"KILN_ISOLATE_MEMORY_MB", "lots", "KILN_ISOLATE_MEMORY_MB='lots' is not a number"},
        {"KILN_ISOLATE_MEMORY_MB", "-1", "KILN_ISOLATE_MEMORY_MB='-1' is not a number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv(bad[i].name, bad[i].value, 1);
        test_import_file(&r, assimp_through_import_run, dir, "models/tri.ply");
        expect_one_error(&r, bad[i].words);
        test_import_free(&r);
        unsetenv(bad[i].name);
    }
    isolate_limits limits;
    char reason[256];
    setenv("KILN_ISOLATE_MEMORY_MB", "0", 1);
    assert_true(import_isolation_limits(NULL, &limits, reason, sizeof reason));
    assert_int_equal(limits.memory_bytes, 0);
    unsetenv("KILN_ISOLATE_MEMORY_MB");
    assert_true(import_isolation_limits(NULL, &limits, reason, sizeof reason));
    assert_true(limits.memory_bytes >= (uint64_t)4 << 30);
    assert_true(limits.timeout_seconds == 600.0);
    assert_true(limits.cpu_seconds > 600);
    /* import.timeout: the default settings' 600 s, or the asset's value; the
     * CPU-time backstop one second above it. */
    cook_settings settings;
    cook_settings_default(&settings);
    assert_true(import_isolation_limits(&settings, &limits, reason, sizeof reason));
    assert_true(limits.timeout_seconds == 600.0);
    settings.import_timeout = 7;
    assert_true(import_isolation_limits(&settings, &limits, reason, sizeof reason));
    assert_true(limits.timeout_seconds == 7.0);
    assert_int_equal(limits.cpu_seconds, 8);

    /* After all that, imports still work. */
    test_import_file(&r, assimp_through_import_run, dir, "models/tri.ply");
    test_import_expect_ok(&r);
    test_import_free(&r);
    free(dir);
}

static bool obj_through_import_run(cook_context *ctx, ir_asset *out) {
    return import_run(ctx, import_obj, out);
}

static bool obj_isolated(cook_context *ctx, ir_asset *out) {
    return import_isolated(ctx, import_obj, out);
}

/* Importers of kiln's own run in process whatever the environment says. */
static void own_importers_stay_in_process(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("isolate_own");
    write_text(dir, "tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    setenv("KILN_TEST_ISOLATE_FAULT", "crash:tri.obj", 1);
    test_import r;
    test_import_file(&r, obj_through_import_run, dir, "tri.obj");
    test_import_expect_ok(&r);
    assert_int_equal(r.asset.mesh_count, 1);
    test_import_free(&r);
    /* import_isolated refuses an importer that is not in its table. */
    test_import_file(&r, obj_isolated, dir, "tri.obj");
    expect_one_error(&r, "cannot run in a child process");
    test_import_free(&r);
    unsetenv("KILN_TEST_ISOLATE_FAULT");
    free(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(responses_come_back),
        cmocka_unit_test(a_crash_is_a_signal_and_the_next_job_runs),
        cmocka_unit_test(the_wall_clock_timeout_kills),
        cmocka_unit_test(the_cpu_limit_stops_a_spinning_child),
        cmocka_unit_test(a_child_cannot_write_files),
        cmocka_unit_test(the_memory_limit_refuses_large_allocations),
        cmocka_unit_test(exit_statuses_and_broken_frames),
        cmocka_unit_test(concurrent_callers_get_their_own_children),
        cmocka_unit_test(reused_servers_serve_until_a_job_kills_them),
        cmocka_unit_test(reused_servers_lift_a_jobs_memory_limit_after_it),
        cmocka_unit_test(a_reused_job_asks_the_parent),
        cmocka_unit_test(isolated_imports_match_in_process_ones),
        cmocka_unit_test(responses_are_checked_before_use),
        cmocka_unit_test(forged_responses_are_refused),
        cmocka_unit_test(import_run_follows_the_environment),
        cmocka_unit_test(own_importers_stay_in_process),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
