/* shader_glslang.h — the C face of shader_glslang.cpp: one stage through
 * glslang (GLSL or HLSL front end) to SPIR-V. Used by shader_compile.c. */
#ifndef KILN_COOK_IMPORT_SHADER_GLSLANG_H
#define KILN_COOK_IMPORT_SHADER_GLSLANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct shader_glslang_job {
    const char *path; /* the file's name in messages and for relative includes */
    const char *text;
    size_t size;
    int stage; /* kiln_shader_stage */
    bool hlsl;
    const char *entry;
    const char *preamble; /* "#define NAME VALUE\n" lines */
    int target;           /* kiln_shader_target */
    int optimize;         /* cook_shader_optimize: 0 performance, 1 size, 2 none */
    bool debug;
    bool warnings_as_errors;
    /* Resolves an #include: on success *path (root-relative) and *content
     * (malloc'd, *length bytes) and true; false when it cannot be read (the
     * reason is the callback's to report). */
    void *user;
    bool (*include)(void *user, const char *requested, bool relative, const char *includer,
                    size_t depth, char **path, char **content, size_t *length);
    /* Out: the module (malloc'd), and glslang's log (malloc'd, may be NULL). */
    uint32_t *words;
    size_t word_count;
    char *log;
    /* Out of shader_glslang_compile_isolated: why glslang's process failed
     * ("glslang crashed compiling x.frag (signal 11, SIGSEGV)"), or "". */
    char failure[320];
} shader_glslang_job;

/* Compiles in this process. */
bool shader_glslang_compile(shader_glslang_job *job);
/* The same in a reused child process (import/isolate_shader.c; KILN_ISOLATE=0:
 * here) within `timeout_seconds` (import.timeout; 0: its default) or what is
 * left of the asset's budget. `include` is called here, on this thread, for
 * each #include the child meets. */
bool shader_glslang_compile_isolated(shader_glslang_job *job, double timeout_seconds);

#ifdef __cplusplus
}
#endif

#endif /* KILN_COOK_IMPORT_SHADER_GLSLANG_H */
