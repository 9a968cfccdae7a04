/*
 * isolate_shader.c — glslang (shader_glslang.cpp) as a job of a reused child
 * process (isolate.h): shader source is untrusted text, and glslang a large
 * parser kiln does not fuzz.
 *
 * The child compiles; every #include it meets is asked of the parent
 * (isolate_ask), which answers with the job's own include callback
 * (shader_compile.c's resolve_include): the file is found, read, bounded and
 * recorded as a dependency here, exactly as in process, so messages,
 * dependencies and SPIR-V are the same bytes either way, and the child reads
 * no file. A crash, hang or corrupt reply is the job's `failure`, naming
 * glslang and the file.
 *
 * Request: u32 "KGLQ", u32 version, strings path and test fault, a blob of the
 * text, u32 stage, u8 hlsl, strings entry and preamble, u32 target, u32
 * optimize, u8 debug, u8 warnings_as_errors. Question (child to parent):
 * string requested, u8 relative, string includer, u64 depth; answer: u8
 * found, string path, blob content. Response: u32 "KGLS", u32 version, u8 ok,
 * a blob of SPIR-V words, a string log (or NULL).
 *
 * Part of the import stage: may use core and common.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/import/isolate.h"
#include "cook/import/shader_glslang.h"

#define GLSLANG_REQUEST_MAGIC 0x514c474bu  /* "KGLQ" */
#define GLSLANG_RESPONSE_MAGIC 0x534c474bu /* "KGLS" */
#define GLSLANG_WIRE_VERSION 1u
#define LOG_MAX_BYTES ((size_t)1 << 20)
#define MODULE_MAX_BYTES ((size_t)1 << 30)

/* ---------------------------------------------------------------------------
 * In the child
 * ------------------------------------------------------------------------- */

static bool ask_include(void *user, const char *requested, bool relative, const char *includer,
                        size_t depth, char **path, char **content, size_t *length) {
    (void)user;
    bytebuf question = {0}, answer = {0};
    wire_put_string(&question, requested);
    wire_put_u8(&question, relative);
    wire_put_string(&question, includer);
    wire_put_u64(&question, depth);
    bool found = !question.failed && isolate_ask(question.data, question.size, &answer);
    wire_reader in = {.data = answer.data, .size = answer.size};
    const uint8_t *bytes = NULL;
    size_t size = 0;
    *path = NULL;
    found = found && wire_get_u8(&in) == 1 && wire_get_string(&in, path) && *path != NULL &&
            wire_get_blob(&in, &bytes, &size);
    *content = found ? malloc(size > 0 ? size : 1) : NULL;
    found = found && *content != NULL;
    if (found) {
        memcpy(*content, bytes, size);
        *length = size;
    } else {
        free(*path);
        *path = NULL;
    }
    bytebuf_free(&question);
    bytebuf_free(&answer);
    return found;
}

static bool run_glslang_job(const uint8_t *request, size_t size, bytebuf *response) {
    wire_reader in = {.data = request, .size = size};
    char *path = NULL, *fault = NULL, *entry = NULL, *preamble = NULL;
    const uint8_t *text = NULL;
    size_t text_size = 0;
    bool ok = wire_get_u32(&in) == GLSLANG_REQUEST_MAGIC &&
              wire_get_u32(&in) == GLSLANG_WIRE_VERSION && wire_get_string(&in, &path) &&
              path != NULL && wire_get_string(&in, &fault) && wire_get_blob(&in, &text, &text_size);
    shader_glslang_job job = {.path = path, .text = (const char *)text, .size = text_size};
    job.stage = (int)wire_get_u32(&in);
    job.hlsl = wire_get_u8(&in) != 0;
    ok = ok && wire_get_string(&in, &entry) && wire_get_string(&in, &preamble);
    job.entry = entry;
    job.preamble = preamble;
    job.target = (int)wire_get_u32(&in);
    job.optimize = (int)wire_get_u32(&in);
    job.debug = wire_get_u8(&in) != 0;
    job.warnings_as_errors = wire_get_u8(&in) != 0;
    job.include = ask_include;
    if (ok && !in.failed && wire_left(&in) == 0) {
#ifdef KILN_TEST_HOOKS
        char injected = isolate_test_fault(fault, path);
#endif
        ok = shader_glslang_compile(&job);
        wire_put_u32(response, GLSLANG_RESPONSE_MAGIC);
        wire_put_u32(response, GLSLANG_WIRE_VERSION);
        wire_put_u8(response, ok);
        wire_put_blob(response, job.words, job.word_count * sizeof(uint32_t));
        wire_put_string(response, job.log);
#ifdef KILN_TEST_HOOKS
        if (injected == 'g' && response->size > 3)
            response->size -= 3;
#endif
        ok = true;
    } else {
        ok = false;
    }
    free(job.words);
    free(job.log);
    free(path);
    free(fault);
    free(entry);
    free(preamble);
    return ok;
}

static const isolate_job glslang_jobs[] = {{"glslang", run_glslang_job, true}};

__attribute__((constructor(ISOLATE_REGISTER_PRIORITY))) static void register_jobs(void) {
    isolate_register_jobs(glslang_jobs, sizeof glslang_jobs / sizeof glslang_jobs[0]);
}

/* ---------------------------------------------------------------------------
 * In the parent
 * ------------------------------------------------------------------------- */

/* An #include the child met: answered by the job's own callback. */
static bool answer_include(void *user, const uint8_t *question, size_t size, bytebuf *answer) {
    shader_glslang_job *job = user;
    wire_reader in = {.data = question, .size = size};
    char *requested = NULL, *includer = NULL;
    bool valid = wire_get_string(&in, &requested) && requested != NULL;
    uint8_t relative = wire_get_u8(&in);
    valid = valid && wire_get_string(&in, &includer) && includer != NULL;
    uint64_t depth = wire_get_u64(&in);
    valid = valid && !in.failed && wire_left(&in) == 0 && relative <= 1;
    char *path = NULL, *content = NULL;
    size_t length = 0;
    bool found = valid && job->include(job->user, requested, relative != 0, includer, (size_t)depth,
                                       &path, &content, &length);
    wire_put_u8(answer, found);
    wire_put_string(answer, found ? path : "");
    wire_put_blob(answer, found ? content : "", found ? length : 0);
    free(path);
    free(content);
    free(requested);
    free(includer);
    return valid;
}

static bool read_reply(const uint8_t *data, size_t size, shader_glslang_job *job) {
    wire_reader in = {.data = data, .size = size};
    const uint8_t *words = NULL;
    size_t word_bytes = 0;
    char *log = NULL;
    bool valid =
        wire_get_u32(&in) == GLSLANG_RESPONSE_MAGIC && wire_get_u32(&in) == GLSLANG_WIRE_VERSION;
    uint8_t ok = wire_get_u8(&in);
    valid = valid && ok <= 1 && wire_get_blob(&in, &words, &word_bytes) &&
            word_bytes % sizeof(uint32_t) == 0 && word_bytes <= MODULE_MAX_BYTES &&
            (ok || word_bytes == 0) && wire_get_string(&in, &log) && wire_left(&in) == 0 &&
            (log == NULL || strlen(log) <= LOG_MAX_BYTES);
    if (valid && word_bytes > 0) {
        job->words = malloc(word_bytes);
        valid = job->words != NULL;
        if (valid)
            memcpy(job->words, words, word_bytes);
        job->word_count = word_bytes / sizeof(uint32_t);
    }
    if (!valid) {
        free(log);
        free(job->words);
        job->words = NULL;
        job->word_count = 0;
        snprintf(job->failure, sizeof job->failure, "glslang sent an invalid result for %s",
                 isolate_file_name(job->path));
        return false;
    }
    job->log = log;
    return ok != 0;
}

bool shader_glslang_compile_isolated(shader_glslang_job *job, double timeout_seconds) {
    job->words = NULL;
    job->word_count = 0;
    job->log = NULL;
    job->failure[0] = '\0';
    if (!isolate_enabled(true))
        return shader_glslang_compile(job);
    isolate_limits limits;
    if (!isolate_library_limits(timeout_seconds, &limits, job->failure, sizeof job->failure))
        return false;
    bytebuf head = {0};
    wire_put_u32(&head, GLSLANG_REQUEST_MAGIC);
    wire_put_u32(&head, GLSLANG_WIRE_VERSION);
    wire_put_string(&head, job->path);
    wire_put_string(&head, isolate_test_fault_hook());
    wire_put_blob(&head, job->text, job->size);
    wire_put_u32(&head, (uint32_t)job->stage);
    wire_put_u8(&head, job->hlsl);
    wire_put_string(&head, job->entry);
    wire_put_string(&head, job->preamble);
    wire_put_u32(&head, (uint32_t)job->target);
    wire_put_u32(&head, (uint32_t)job->optimize);
    wire_put_u8(&head, job->debug);
    wire_put_u8(&head, job->warnings_as_errors);
    if (head.failed) {
        bytebuf_free(&head);
        snprintf(job->failure, sizeof job->failure, "out of memory");
        return false;
    }
    const isolate_part part = {head.data, head.size};
    const isolate_asker asker = {answer_include, job};
    isolate_outcome outcome;
    isolate_run_asking("glslang", &part, 1, &limits, &asker, &outcome);
    bytebuf_free(&head);
    bool ok = false;
    if (outcome.status != ISOLATE_DONE)
        isolate_failure_text(&outcome, &limits, "glslang", "compiling",
                             isolate_file_name(job->path), job->failure, sizeof job->failure);
    else
        ok = read_reply(outcome.response, outcome.response_size, job);
    free(outcome.response);
    return ok;
}
