/*
 * isolate.h — third-party importers in a child process, and the IR on the
 * wire between the two processes.
 *
 *   isolate.c         the processes: one server per kind of job, reused
 *                     across assets, running each job itself or in a fresh
 *                     child; the limits, the parent's wall-clock timeout
 *   isolate_common.c  what they all share: the limits, KILN_ISOLATE, the
 *                     wording of a failure, the tests' fault hook
 *   isolate_decode.c  the decoders as jobs (libspng, libjpeg, stb_image,
 *                     libdraco) behind image_decode and draco_decode_mesh
 *   isolate_shader.c  glslang as a job, its #includes asked of the parent
 *   (inspect/isolate_spirv.c: SPIRV-Tools and SPIRV-Cross as a job)
 *   isolate_import.c  importers as jobs: which run isolated (assimp), the
 *                     request and response, the per-asset error messages;
 *                     the table of every job
 *   ir_wire.c         ir_asset as bytes (versioned, bounds-checked) and the
 *                     little-endian primitives both directions use
 *
 * A library like assimp that reads a corrupt file out of bounds must cost one
 * asset, not the build: its crash, hang or runaway allocation becomes an
 * error for that asset while the others cook on. import_run (import.h) is
 * the entry point; the rest is here for the tests.
 *
 * Part of the import stage: may use core and common.
 */
#ifndef KILN_COOK_IMPORT_ISOLATE_H
#define KILN_COOK_IMPORT_ISOLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/core.h"
#include "cook/import/draco_decode.h"

/* ---------------------------------------------------------------------------
 * Wire primitives (ir_wire.c): little-endian, no padding. A reader never
 * reads past its end: a short read sets `failed` and yields zeros, so a
 * decoder checks `failed` once per object, and bounds every count by what
 * is left before allocating for it.
 * ------------------------------------------------------------------------- */

typedef struct wire_reader {
    const uint8_t *data;
    size_t size;
    size_t pos;
    bool failed;
} wire_reader;

void wire_put_u8(bytebuf *out, uint8_t value);
void wire_put_u32(bytebuf *out, uint32_t value);
void wire_put_u64(bytebuf *out, uint64_t value);
void wire_put_f32s(bytebuf *out, const float *values, size_t count);
/* A string as its u32 length and bytes; NULL as length UINT32_MAX. */
void wire_put_string(bytebuf *out, const char *text);
/* `size` bytes after their u64 length. */
void wire_put_blob(bytebuf *out, const void *data, size_t size);

uint8_t wire_get_u8(wire_reader *in);
uint32_t wire_get_u32(wire_reader *in);
uint64_t wire_get_u64(wire_reader *in);
void wire_get_f32s(wire_reader *in, float *values, size_t count);
/* A u32 count of items each taking at least `min_item_bytes` (> 0) on the
 * wire: more than the bytes left could hold fails the reader. */
uint32_t wire_get_count(wire_reader *in, size_t min_item_bytes);
/* Sets *text to a NUL-terminated copy, or NULL for a NULL string. False on
 * a short read, an embedded NUL or no memory (*text NULL). */
bool wire_get_string(wire_reader *in, char **text);
/* Points *data into the reader (no copy) for a blob's *size bytes. */
bool wire_get_blob(wire_reader *in, const uint8_t **data, size_t *size);
size_t wire_left(const wire_reader *in);

/* ---------------------------------------------------------------------------
 * The IR on the wire (ir_wire.c)
 * ------------------------------------------------------------------------- */

/* Bump with any change to the layout (ir_wire.c lists it). 2: submesh topology and name, image
 * label; 3: cameras, lights, instances; 4: skins, joints1; 5: morph targets and node
 * morph weights; 6: animations; 7: material specular and texture samplers. */
#define IR_WIRE_VERSION 7u

/* Appends `asset` as an importer produces it. False (nothing useful
 * appended) when it holds what only process steps build (LODs, meshlets), or
 * when out of memory (out->failed). */
bool ir_wire_write(const ir_asset *asset, bytebuf *out);
/* Reads one asset written by ir_wire_write from untrusted bytes. Everything
 * is checked before it is used: counts against the bytes left, indices
 * against vertex counts, submeshes tiling the index buffer, material, mesh,
 * image and parent references, finite floats, image paths relative to the
 * input root. On failure returns false with a reason and *out empty. */
bool ir_wire_read(wire_reader *in, ir_asset *out, char *reason, size_t reason_size);

/* ---------------------------------------------------------------------------
 * The processes (isolate.c)
 * ------------------------------------------------------------------------- */

/* What a child runs: a request's bytes in (followed by a NUL byte not
 * counted in `size`), a response's bytes out. Returns false when the
 * request made no sense; the response is sent either way. */
typedef bool (*isolate_job_fn)(const uint8_t *request, size_t size, bytebuf *response);

typedef struct isolate_job {
    const char *name;
    isolate_job_fn run;
    /* true: the server runs the job itself and serves the next asset of
     * this kind (restarted after a crash or a limit); false: it forks a
     * fresh child per job (isolate.c says why each). */
    bool reused;
} isolate_job;

/* Tells the process layer (isolate.c) the jobs a child can run: the server
 * is a fresh copy of this program, so a job is named, never passed by
 * address. The server looks a job up from a constructor, before main, so
 * each file of jobs (isolate_import.c: assimp; isolate_decode.c: the
 * decoders) registers its table from a constructor of higher priority
 * (ISOLATE_REGISTER_PRIORITY), which runs first. A program holds a file's
 * jobs exactly when it calls that file's entry points, so its servers know
 * every job it can ask for. At most ISOLATE_MAX_TABLES tables. */
#define ISOLATE_REGISTER_PRIORITY 200
#define ISOLATE_MAX_TABLES 8
void isolate_register_jobs(const isolate_job *jobs, size_t count);
/* The registered job of that name (and the test jobs in test builds), or NULL. */
const isolate_job *isolate_find_job(const char *name);

/* Limits of one child. The child may not write files (RLIMIT_FSIZE 0) and
 * dumps no core, whatever these say. */
typedef struct isolate_limits {
    double timeout_seconds;      /* wall clock, the parent kills at it; 0: none */
    uint32_t cpu_seconds;        /* RLIMIT_CPU (SIGXCPU); 0: none */
    uint64_t memory_bytes;       /* RLIMIT_AS; 0: none (always none under ASan) */
    uint64_t max_response_bytes; /* a larger response is refused; 0: no limit */
} isolate_limits;

typedef enum isolate_status {
    ISOLATE_DONE,      /* exited 0 with a whole response */
    ISOLATE_SIGNALED,  /* killed by `signal` (a crash, SIGXCPU, the OOM killer) */
    ISOLATE_EXITED,    /* exited with `exit_code` != 0 (a sanitizer report) */
    ISOLATE_TIMED_OUT, /* still running at the timeout; killed */
    ISOLATE_FAILED,    /* could not run, or broke the protocol: `reason` */
} isolate_status;

typedef struct isolate_outcome {
    isolate_status status;
    int signal;
    int exit_code;
    char reason[256];
    uint8_t *response; /* ISOLATE_DONE: the response (owned), else NULL */
    size_t response_size;
} isolate_outcome;

/* One piece of a request, sent in order without being copied together. */
typedef struct isolate_part {
    const void *data;
    size_t size;
} isolate_part;

/* Runs job `job` in a child process (an idle server of its kind, else a new
 * one) on the concatenated parts and waits for it within
 * limits->timeout_seconds. Thread-safe: each caller gets a server of its own
 * for the job. Free outcome->response with free(). */
void isolate_run(const char *job, const isolate_part *parts, size_t part_count,
                 const isolate_limits *limits, isolate_outcome *outcome);

/* A reused job may ask the parent questions while it runs (glslang asks
 * for each #include: the files are read, checked and recorded in the
 * parent, as in process). The parent's answer is appended to `answer`;
 * false (no memory) fails the job. */
typedef bool (*isolate_answer_fn)(void *user, const uint8_t *question, size_t size,
                                  bytebuf *answer);
typedef struct isolate_asker {
    isolate_answer_fn answer;
    void *user;
} isolate_asker;

/* isolate_run for a job that may ask: `asker` answers, on the calling thread,
 * within the same timeout. A question without an asker fails the job. */
void isolate_run_asking(const char *job, const isolate_part *parts, size_t part_count,
                        const isolate_limits *limits, const isolate_asker *asker,
                        isolate_outcome *outcome);

/* In a reused job (isolate_job.reused): asks the parent and appends its
 * answer to `answer`. False when the parent is gone or answers nothing
 * (the job should then fail). At most 1 MiB of question. */
bool isolate_ask(const void *question, size_t size, bytebuf *answer);

/* "SEGV" for 11 (without "SIG"): for messages. */
const char *isolate_signal_name(int signal);

/* The limits of one library call in a child (a decode, a compile):
 * import_isolation_limits' memory, `timeout_seconds` of wall clock
 * (import.timeout; 0: its default) or what is left of the asset's budget when
 * that is less, and as much CPU time plus a second. */
bool isolate_library_limits(double timeout_seconds, isolate_limits *limits, char *reason,
                            size_t reason_size);

/* The tests' fault hook (KILN_TEST_ISOLATE_FAULT) to send with a request;
 * NULL but in test builds. */
const char *isolate_test_fault_hook(void);

/* The memory limit's variable (MiB, 0: none): import_isolation_limits. */
#define ISOLATE_MEMORY_ENV "KILN_ISOLATE_MEMORY_MB"

/* The file name of `path` (after its last '/'), for messages. */
const char *isolate_file_name(const char *path);

/* Whether a library that runs isolated `by_default` runs in a child: the
 * environment's KILN_ISOLATE=0 runs every library in process (debugging,
 * profiling, fuzzing), KILN_ISOLATE=1 every one in a child. */
bool isolate_enabled(bool by_default);

/* The message for a job that did not finish (outcome->status not
 * ISOLATE_DONE), one wording for every library: "libspng crashed decoding
 * x.png (signal 11, SIGSEGV)", "... took longer than 600 s decoding x.png;
 * stopped (import.timeout, --import-timeout)". */
void isolate_failure_text(const isolate_outcome *outcome, const isolate_limits *limits,
                          const char *library, const char *verb, const char *file, char *text,
                          size_t text_size);

#ifdef KILN_TEST_HOOKS
/* The fault hook of the tests (isolate_import.c), in the child: crashes or
 * hangs when `hook` (KILN_TEST_ISOLATE_FAULT=KIND:NAME) names the file of
 * `path`; returns 'g' for "garbage" (the job then truncates its reply). */
char isolate_test_fault(const char *hook, const char *path);
#endif

/* ---------------------------------------------------------------------------
 * Importers in a child (isolate_import.c)
 * ------------------------------------------------------------------------- */

typedef bool (*import_fn)(cook_context *ctx, ir_asset *out);

/* The job "import" (isolate_import.c lays its request and response out). */
#define IMPORT_REQUEST_MAGIC 0x5152494bu  /* "KIRQ" */
#define IMPORT_RESPONSE_MAGIC 0x5352494bu /* "KIRS" */
#define IMPORT_WIRE_VERSION 1u

/* The limits an import runs with: the settings' import.timeout (seconds; the
 * default when `settings` is NULL or its value 0) and memory, the default or
 * the environment's KILN_ISOLATE_MEMORY_MB (0: no limit). False with a reason
 * when that is not a number. */
bool import_isolation_limits(const cook_settings *settings, isolate_limits *limits, char *reason,
                             size_t reason_size);

/* Runs `import` (a row of the isolated importers, else false with an error)
 * in a child process and takes back its IR, messages, dependencies and
 * references as if it had run here; a crash or timeout is an error naming
 * the library and the file. */
bool import_isolated(cook_context *ctx, import_fn import, ir_asset *out);

/* The two halves of import_isolated, for the tests. The request for
 * `importer` on ctx's source, all but the source's bytes, which follow it. */
void import_request_write(const cook_context *ctx, const char *importer, bytebuf *out);
/* Checks a child's response as untrusted input, then applies it to ctx
 * (messages, dependencies, references) and *out; an invalid one is a single
 * error naming `library`. Returns whether the import succeeded. */
bool import_response_read(cook_context *ctx, const char *library, const uint8_t *data, size_t size,
                          ir_asset *out);

/* The decoders' replies (isolate_decode.c), checked as untrusted input: an
 * image must be the size its fields say within `limits`, a Draco mesh's
 * indices below its point count and its values the sizes `requests` ask.
 * image_reply_read takes `data` (a malloc'd reply) into out->rgba8 when it
 * accepts it; else the caller frees it. Exposed for fuzz_isolate_reply. */
struct image_limits;
bool image_reply_read(uint8_t *data, size_t size, const char *library,
                      const struct image_limits *limits, ir_decoded_image *out, char *reason,
                      size_t reason_size);
bool draco_reply_read(const uint8_t *data, size_t size, const draco_request *requests,
                      size_t request_count, uint64_t max_bytes, draco_mesh *out, char *reason,
                      size_t reason_size);

#endif /* KILN_COOK_IMPORT_ISOLATE_H */
