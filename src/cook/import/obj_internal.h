/*
 * obj_internal.h — the parser state the files of the Wavefront OBJ importer
 * share (import_obj, import.h; obj.c documents the format as kiln reads it).
 *
 *   obj.c        the entry: the statement loop, the documentation
 *   obj_ranges.c a large file parsed in byte ranges on the thread pool
 *   obj_parse.c  statements: v, vt, vn, usemtl, mtllib, o, g, unknown ones
 *   obj_face.c   f, l and p: corners, the unique-vertex table, runs
 *   obj_build.c  the parsed file into the IR: submeshes, materials, streams
 *   obj_scan.c   growable arrays, name tables, messages, the text cursor
 *
 * Calls go down this list only (scripts/check_cycles.sh). Numbers are read
 * by import_scan_number (scan_number.c, shared with MTL), and MTL libraries
 * by import_mtl (mtl.c), which calls nothing here.
 */
#ifndef KILN_COOK_IMPORT_OBJ_INTERNAL_H
#define KILN_COOK_IMPORT_OBJ_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/import/import.h"

#define OBJ_NONE UINT32_MAX
#define OBJ_MAX_ELEMENTS (UINT32_MAX - 1u) /* per attribute kind, and unique vertices */
#define OBJ_MAX_INDICES UINT32_MAX         /* a multiple of 3 */
#define OBJ_MAX_FACE_CORNERS 65536u
#define OBJ_MAX_UNKNOWN_REPORTED 16u
#define OBJ_ERROR_CONTEXT 4096 /* bytes scanned around an error for binary content */

typedef struct obj_vec {
    void *data;
    size_t count; /* elements */
    size_t cap;
} obj_vec;

typedef struct name_entry {
    const char *name; /* NULL: empty slot; owned elsewhere */
    size_t length;
    uint32_t id;
} name_entry;

/* Open addressing, linear probing, at most half full. */
typedef struct name_table {
    name_entry *slots;
    size_t cap;
    size_t count;
} name_table;

/* ---- the parser --------------------------------------------------------- */

typedef struct obj_usage {
    char *name; /* NULL for the default usage 0 */
    uint32_t line;
    uint32_t slot; /* material slot, OBJ_NONE until a face needs it */
} obj_usage;

/* Indices from `first` on draw `topology` with `usage`, up to the next run. */
typedef struct obj_run {
    uint32_t usage;
    uint32_t first;
    kiln_topology topology;
    uint32_t part; /* the g / o name in force: 1 + index into part_names, 0 none */
} obj_run;

enum { ATTR_POSITION, ATTR_TEXCOORD, ATTR_NORMAL };

/* A slot of the unique-vertex table: 8 bytes, so a range's table stays in
 * the core's cache (a new vertex probes a slot at random). The key itself is
 * in the keys array at `id`, read only when the tags match. */
typedef struct corner_slot {
    uint32_t tag; /* obj_corner_tag of the key's hash */
    uint32_t id;  /* OBJ_NONE: empty */
} corner_slot;

typedef struct obj_parser {
    cook_context *ctx;
    const char *path;
    const unsigned char *begin;
    const unsigned char *p;
    const unsigned char *end;
    uint32_t line;
    bool binary; /* "not a text OBJ file" was reported */
    bool quiet;  /* a range of obj_ranges.c: nothing is reported, a warning fails */

    obj_vec positions; /* float[3] */
    obj_vec colors;    /* float[4], empty until the first coloured v */
    obj_vec bad;       /* uint8 per position: non-finite; empty until the first */
    obj_vec texcoords; /* float[2] */
    obj_vec normals;   /* float[3] */

    obj_vec corners;    /* uint32[3] (v, vt, vn) of the face being read */
    obj_vec corner_xyz; /* float[3] */
    obj_vec corner_tri; /* uint32[3] */
    obj_vec corner_id;  /* uint32 */
    obj_vec scratch;    /* char: a name read from the line */

    obj_vec keys;       /* uint32[3] per unique vertex */
    corner_slot *table; /* unique vertices by key, at most half full */
    size_t table_cap;
    obj_vec indices; /* uint32 */
    obj_vec runs;    /* obj_run */

    obj_vec usages; /* obj_usage; 0 is "no usemtl" */
    name_table usage_names;
    uint32_t usage;

    /* Submesh names: the last g (or, without one since the last o, the o). */
    strlist part_names;
    name_table part_table;
    uint32_t part, object_part; /* 1 + index into part_names, 0 none */

    ir_material *library;
    uint32_t library_count;
    ir_image *images; /* the libraries' texture files; moved to the asset */
    uint32_t image_count;
    strlist mtllibs; /* names already read */
    bool mtllib_failed;
    bool mtllibs_capped; /* OBJ_MAX_MTLLIBS reached (warned once) */

    char *mesh_name;
    const char *element;      /* "face", "line" or "point": the statement being read */
    uint32_t faces, elements; /* f statements, and p and l ones that added something */
    uint32_t dropped_faces, dropped_line;
    uint32_t dropped_elements, dropped_element_line; /* points and segments */
    bool warned_bad_position, warned_bad_texcoord;
    bool warned_missing[3];
    strlist unknown;
} obj_parser;

/* ---- obj_scan.c ------------------------------------------------------------ */

/* obj_vec_push when the vector must grow. */
void *obj_vec_grow_push(obj_vec *vec, size_t size, size_t n);
/* Appends `n` elements of `size` bytes; returns the first, or NULL when out of
 * memory (the vector is then unchanged). Inline: faces push per corner. */
static inline void *obj_vec_push(obj_vec *vec, size_t size, size_t n) {
    if (vec->count > vec->cap || n > vec->cap - vec->count)
        return obj_vec_grow_push(vec, size, n);
    void *first = (char *)vec->data + vec->count * size;
    vec->count += n;
    return first;
}
void obj_vec_free(obj_vec *vec);
/* The id stored for `name`, or OBJ_NONE. */
uint32_t obj_name_find(const name_table *table, const char *name, size_t length);
/* Adds `name` (not copied: it must outlive the table) with `id`; false when
 * out of memory. */
bool obj_name_insert(name_table *table, const char *name, size_t length, uint32_t id);
/* The hash of a (v, vt, vn) key in the unique-vertex table (inline: every
 * face corner is hashed). */
static inline uint64_t obj_hash_corner(const uint32_t key[3]) {
    uint64_t h = (uint64_t)key[0] * 0x9e3779b97f4a7c15ull;
    h ^= (((uint64_t)key[1] << 32) | key[2]) * 0xc2b2ae3d27d4eb4full;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return h;
}
/* The bits of a corner's hash kept in its table slot: the high ones (the
 * slot's index comes from the low ones). */
static inline uint32_t obj_corner_tag(uint64_t hash) {
    return (uint32_t)(hash >> 32);
}
/* A double as a float; beyond the float range, an infinity of its sign. */
float obj_to_float(double value);
/* A byte no text file has: NUL and the other control characters. */
bool obj_is_binary(unsigned char c);
/* Each reports an error at the current line and returns false. */
bool obj_out_of_memory(obj_parser *ps);
bool obj_binary_error(obj_parser *ps, unsigned char byte);
/* Reports a malformed statement, or "not a text OBJ file" when the line
 * around the cursor holds bytes no text has (then the message would be noise). */
bool obj_syntax_error(obj_parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Length of the token at p (up to a blank or the line end), for messages. */
int obj_token_length(const unsigned char *p, const unsigned char *end);
/* All of obj_skip_blanks: any blanks and continuations from the cursor. */
void obj_skip_other_blanks(obj_parser *ps);
/* Skips blanks and line continuations, not the newline. Inline: the spaces
 * between numbers and corners; the rest in obj_skip_other_blanks. */
static inline void obj_skip_blanks(obj_parser *ps) {
    const unsigned char *p = ps->p, *end = ps->end;
    while (p < end && *p == ' ')
        p++;
    ps->p = p;
    /* \t \v \f \r (9, 11, 12, 13) or a backslash: maybe more to skip */
    if (p < end && ((*p >= '\t' && *p <= '\r' && *p != '\n') || *p == '\\'))
        obj_skip_other_blanks(ps);
}
/* Whether the backslash at p continues the line (the newline follows, after
 * an optional CR, or the file ends). */
bool obj_is_continuation(const unsigned char *p, const unsigned char *end);
/* True when the token just scanned ends here. */
static inline bool obj_at_token_end(const obj_parser *ps) {
    if (ps->p >= ps->end || *ps->p <= ' ')
        return true;
    return *ps->p == '\\' && obj_is_continuation(ps->p, ps->end);
}
/* Skips to the end of the physical line (comments) or the logical line
 * (statements being ignored, which may continue), checking it is text. */
bool obj_skip_line(obj_parser *ps, bool logical);
/* Moves to the next field of the statement; false at its end (a '#' that
 * starts a field begins a comment) or when the comment is not text (then
 * ps->binary is set). */
static inline bool obj_next_field(obj_parser *ps) {
    obj_skip_blanks(ps);
    if (ps->p < ps->end && *ps->p == '#' && !obj_skip_line(ps, false))
        return false;
    return ps->p < ps->end && *ps->p != '\n';
}
/* The rest of the logical line, continuations folded to one space, trimmed,
 * NUL-terminated in ps->scratch. */
bool obj_read_rest(obj_parser *ps, const char **text, size_t *length);
/* Reads up to `max` numbers to the end of the statement. */
bool obj_read_numbers(obj_parser *ps, const char *keyword, double *values, int max, int *count);

/* ---- obj_face.c ------------------------------------------------------------ */

/* Index of the unique vertex for a corner, inserting it if new. */
bool obj_vertex_id(obj_parser *ps, const uint32_t key[3], uint32_t *id);
/* Makes the indices that follow a run of the current material and `topology`. */
bool obj_start_run(obj_parser *ps, kiln_topology topology);
/* `f v1 v2 v3 ...`: a polygon of >= 3 corners, triangulated. */
bool obj_parse_face(obj_parser *ps);
/* `p v1 v2 ...`: one point per corner; `l v1 v2 ...`: a polyline, one line
 * segment per pair of neighbours. A point, or a segment, on a vertex whose
 * position is not finite is dropped, as faces are. */
bool obj_parse_points_or_lines(obj_parser *ps, kiln_topology topology);

/* ---- obj_parse.c ----------------------------------------------------------- */

/* One statement at the cursor (not a comment or blank line), through its end. */
bool obj_parse_statement(obj_parser *ps);

/* ---- obj_ranges.c ---------------------------------------------------------- */

typedef enum obj_ranges_result {
    OBJ_RANGES_DONE,     /* every statement parsed, as one pass would */
    OBJ_RANGES_FAILED,   /* a statement run in file order failed (reported) */
    OBJ_RANGES_DECLINED, /* nothing reported: parse the file again in one pass */
} obj_ranges_result;

/* Parses `file` from its cursor to its end in ranges of about `range_bytes`
 * on `threads` threads (obj_ranges.c documents how). After DECLINED the
 * parser holds partial state: start a new one. */
obj_ranges_result obj_parse_ranges(obj_parser *file, size_t range_bytes, unsigned threads);
/* The file-wide numbers of the ranges' unique corners (obj_keys.c): range r's
 * key k gets ids[first[r] + k], as obj_vertex_id would give them looked up in
 * range order, and the distinct keys are appended to file->keys (empty
 * before). `first` holds range_count + 1 entries. NULL (file->keys left
 * empty) when out of memory or past 2^32 - 2 keys: then look them up. */
uint32_t *obj_number_range_keys(obj_parser *file, const obj_vec *const *range_keys,
                                uint32_t range_count, unsigned threads, size_t *first);

/* ---- obj_streams.c --------------------------------------------------------- */

/* The mesh's vertex streams from ps->keys (its submeshes and indices made
 * already), with the warnings about normals; false after an error. */
bool obj_build_streams(obj_parser *ps, ir_mesh *mesh);

/* ---- obj_build.c ----------------------------------------------------------- */

/* After the last statement: the parsed file into `out` (one mesh), with the
 * warnings about what was dropped; false after an error. */
bool obj_finish(obj_parser *ps, ir_asset *out);

#endif /* KILN_COOK_IMPORT_OBJ_INTERNAL_H */
