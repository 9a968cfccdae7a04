/*
 * obj_ranges.c — a large OBJ file parsed in line-aligned byte ranges on the
 * thread pool, giving the IR and the messages the one-pass parser (obj.c)
 * gives.
 *
 *   1. Each range reads its v, vt and vn statements into arrays of its own
 *      and counts its lines (in parallel). The arrays are joined in order:
 *      the attribute pools, and each range's counts before it.
 *   2. Each range reads its faces with the parser of obj_face.c, its pools
 *      standing at what the file defined before each face (relative indices
 *      and range checks as in one pass), against a unique-vertex table of its
 *      own: its corners in its own order of first use (in parallel). Every
 *      other statement (usemtl, o, g, s, mtllib, ...) is noted with its
 *      place among the faces.
 *   3. In file order (one thread): each range's noted statements are run by
 *      obj_parse_statement between its runs of faces, whose corners get the
 *      numbers one pass gives them (the ranges' corners in file order are
 *      the file's order of first use; obj_keys.c finds them on the threads
 *      first); their indices follow.
 *
 * Whatever one pass would warn or fail about in a v, vt, vn or face (a
 * malformed number or corner, an index out of range, a non-finite position,
 * vertex colours, l and p statements, out of memory...) stops this and the
 * file is parsed again in one pass, which reports it as it always does: the
 * ranges are quiet (obj_parser.quiet). Ranges end after a newline that no
 * backslash continues, so each starts a statement, as in one pass.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cook/core/parallel.h"
#include "cook/import/obj_internal.h"

/* A statement of a range run in step 3, and where it falls among the faces. */
typedef struct obj_event {
    const unsigned char *start; /* its keyword */
    uint32_t line;
    size_t indices, keys, faces; /* the range's counts before it */
} obj_event;

typedef struct obj_range {
    obj_parser ps;    /* quiet; its pools, table and indices are the range's */
    size_t counts[3]; /* v, vt, vn statements */
    size_t before[3]; /* the same in the ranges before it */
    uint32_t lines;   /* newlines passed */
    /* Step 2's part of the range: from the first statement that is not a v,
     * vt or vn to the end of the last one (NULL: none), and the lines and
     * attributes before it. */
    const unsigned char *step2_begin, *step2_end;
    uint32_t step2_line;
    size_t step2_counts[3];
    obj_vec events; /* obj_event */
    bool failed;    /* one pass must do it */
} obj_range;

typedef struct ranges_job {
    obj_parser *file;
    obj_range *ranges;
    uint32_t count;
    atomic_bool failed;
} ranges_job;

/* The end of the range that should end near `target`: just past the first
 * newline at or after it that no backslash continues, or `end`. */
static const unsigned char *range_end(const unsigned char *start, const unsigned char *target,
                                      const unsigned char *end) {
    for (const unsigned char *p = target; p < end; p++) {
        if (*p != '\n')
            continue;
        const unsigned char *q = p;
        if (q > start && q[-1] == '\r')
            q--;
        if (q > start && q[-1] == '\\')
            continue;
        return p + 1;
    }
    return end;
}

enum statement { STATEMENT_V, STATEMENT_VT, STATEMENT_VN, STATEMENT_F, STATEMENT_OTHER };

/* The keyword at ps->p, read as obj_parse_statement reads it; false on a byte
 * no text has, or on l and p (their indices are not resolved here). */
static bool read_keyword(obj_parser *ps, enum statement *kind) {
    const unsigned char *keyword = ps->p;
    while (ps->p<ps->end && * ps->p> ' ' && *ps->p < 0x7f)
        ps->p++;
    size_t length = (size_t)(ps->p - keyword);
    if (ps->p < ps->end && (*ps->p >= 0x7f || obj_is_binary(*ps->p)))
        return false;
    *kind = STATEMENT_OTHER;
    if (length == 1 && keyword[0] == 'v')
        *kind = STATEMENT_V;
    else if (length == 2 && keyword[0] == 'v' && keyword[1] == 't')
        *kind = STATEMENT_VT;
    else if (length == 2 && keyword[0] == 'v' && keyword[1] == 'n')
        *kind = STATEMENT_VN;
    else if ((length == 1 && keyword[0] == 'f') ||
             (length == 2 && keyword[0] == 'f' && keyword[1] == 'o'))
        *kind = STATEMENT_F;
    else if (length == 1 && (keyword[0] == 'l' || keyword[0] == 'p'))
        return false;
    return true;
}

/* A v, vt or vn as obj_parse.c reads it, into the range's pool; false where
 * one pass would warn or fail. */
static bool read_attribute(obj_parser *ps, enum statement kind) {
    static const char *const keywords[3] = {"v", "vt", "vn"};
    double v[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    int n = 0;
    if (!obj_read_numbers(ps, keywords[kind], v, kind == STATEMENT_V ? 6 : 3, &n))
        return false;
    if (kind == STATEMENT_V && n != 3 && n != 4)
        return false; /* colours, or an error */
    if ((kind == STATEMENT_VT && n == 0) || (kind == STATEMENT_VN && n != 3))
        return false;
    obj_vec *pool = kind == STATEMENT_V    ? &ps->positions
                    : kind == STATEMENT_VT ? &ps->texcoords
                                           : &ps->normals;
    int width = kind == STATEMENT_VT ? 2 : 3;
    float *out = obj_vec_push(pool, (size_t)width * sizeof(float), 1);
    if (out == NULL)
        return false;
    for (int k = 0; k < width; k++) {
        out[k] = obj_to_float(v[k]);
        /* Normals are checked where used; the others warn when not finite. */
        if (kind != STATEMENT_VN && !isfinite(out[k]))
            return false;
    }
    return true;
}

static bool note_event(obj_range *range, const unsigned char *start, uint32_t line) {
    obj_event *event = obj_vec_push(&range->events, sizeof(obj_event), 1);
    if (event == NULL)
        return false;
    *event =
        (obj_event){start, line, range->ps.indices.count, range->ps.keys.count, range->ps.faces};
    return true;
}

/* Past the rest of the line (logical: backslash continuations joined) with
 * no check of its bytes, for a statement that another step reads in full;
 * counts lines as obj_skip_line does. */
static void skip_unchecked(obj_parser *ps, bool logical) {
    for (;;) {
        const unsigned char *newline = memchr(ps->p, '\n', (size_t)(ps->end - ps->p));
        if (newline == NULL) {
            ps->p = ps->end;
            return;
        }
        const unsigned char *q = newline;
        if (q > ps->p && q[-1] == '\r')
            q--;
        if (!logical || q == ps->p || q[-1] != '\\') {
            ps->p = newline;
            return;
        }
        ps->line++; /* a continuation */
        ps->p = newline + 1;
    }
}

/* One pass over a range, as import_obj's loop: step 1 reads attributes and
 * checks comments, step 2 counts attributes, reads faces and notes the rest
 * (step 3 reads them); what a step does not read it skips unchecked. */
static bool scan_range(obj_range *range, int step) {
    obj_parser *ps = &range->ps;
    while (ps->p < ps->end) {
        obj_skip_blanks(ps);
        if (ps->p >= ps->end)
            break;
        if (*ps->p == '\n') {
            ps->p++;
            ps->line++;
            continue;
        }
        if (*ps->p == '#') {
            if (step == 2)
                skip_unchecked(ps, false);
            else if (!obj_skip_line(ps, false))
                return false;
            continue;
        }
        const unsigned char *start = ps->p;
        uint32_t line = ps->line;
        enum statement kind;
        if (!read_keyword(ps, &kind))
            return false;
        bool ok = true;
        if (kind <= STATEMENT_VN && step == 1) {
            ok = read_attribute(ps, kind);
        } else if (kind <= STATEMENT_VN) {
            obj_vec *pools[3] = {&ps->positions, &ps->texcoords, &ps->normals};
            pools[kind]->count++; /* read in step 1: defined from here on */
            skip_unchecked(ps, true);
        } else if (kind == STATEMENT_F && step == 2) {
            ok = obj_parse_face(ps);
        } else {
            ok = step == 1 || note_event(range, start, line);
            skip_unchecked(ps, true);
            if (step == 1 && range->step2_begin == NULL) {
                range->step2_begin = start;
                range->step2_line = line;
                range->step2_counts[0] = ps->positions.count;
                range->step2_counts[1] = ps->texcoords.count;
                range->step2_counts[2] = ps->normals.count;
            }
            if (step == 1)
                range->step2_end = ps->p;
        }
        if (!ok || ps->binary)
            return false;
    }
    return true;
}

static void step1_item(void *job_, uint32_t index) {
    ranges_job *job = job_;
    obj_range *range = &job->ranges[index];
    range->ps.line = 0;
    if (!scan_range(range, 1)) {
        range->failed = true;
        atomic_store(&job->failed, true);
        return;
    }
    range->lines = range->ps.line;
    range->counts[0] = range->ps.positions.count;
    range->counts[1] = range->ps.texcoords.count;
    range->counts[2] = range->ps.normals.count;
}

static void step2_item(void *job_, uint32_t index) {
    ranges_job *job = job_;
    obj_range *range = &job->ranges[index];
    if (atomic_load(&job->failed) || range->step2_begin == NULL)
        return; /* one pass will do it all; or only attributes, read in step 1 */
    /* What is before and after its part, step 1 has read and counted. */
    obj_parser *ps = &range->ps;
    ps->p = range->step2_begin;
    ps->end = range->step2_end;
    ps->line += range->step2_line;
    ps->positions.count += range->step2_counts[0];
    ps->texcoords.count += range->step2_counts[1];
    ps->normals.count += range->step2_counts[2];
    if (!scan_range(range, 2) || range->ps.dropped_faces > 0)
        atomic_store(&job->failed, true);
    /* Step 3 numbers the range's corners from its keys, not its table (nor
     * does one pass, if it comes to that): freed now, its pages serve step 3
     * instead of fresh ones (about 10 MB for a 1M-triangle file). */
    free(ps->table);
    ps->table = NULL;
    ps->table_cap = 0;
}

static const size_t attribute_widths[3] = {3, 2, 3};

/* One range's attributes copied into the file's pools at its place. */
static void copy_attributes(void *job_, uint32_t index) {
    ranges_job *job = job_;
    obj_parser *file = job->file, *ps = &job->ranges[index].ps;
    obj_vec *pools[3] = {&file->positions, &file->texcoords, &file->normals};
    obj_vec *own[3] = {&ps->positions, &ps->texcoords, &ps->normals};
    for (int k = 0; k < 3; k++) {
        size_t bytes = job->ranges[index].counts[k] * attribute_widths[k] * sizeof(float);
        if (bytes > 0)
            memcpy((float *)pools[k]->data + job->ranges[index].before[k] * attribute_widths[k],
                   own[k]->data, bytes);
    }
}

/* Joins the ranges' attributes into the file's pools (step 1's end; the
 * copies on the threads) and points each range's pools at them, standing at
 * the range's start. */
static bool join_attributes(ranges_job *job, unsigned threads) {
    obj_parser *file = job->file;
    obj_vec *pools[3] = {&file->positions, &file->texcoords, &file->normals};
    size_t total[3] = {0, 0, 0};
    for (uint32_t r = 0; r < job->count; r++)
        for (int k = 0; k < 3; k++) {
            job->ranges[r].before[k] = total[k];
            total[k] += job->ranges[r].counts[k];
        }
    for (int k = 0; k < 3; k++) {
        if (total[k] > OBJ_MAX_ELEMENTS)
            return false;
        if (total[k] > 0 &&
            obj_vec_push(pools[k], attribute_widths[k] * sizeof(float), total[k]) == NULL)
            return false;
    }
    parallel_for(threads, job->count, copy_attributes, job);
    uint32_t line = file->line;
    for (uint32_t r = 0; r < job->count; r++) {
        obj_parser *ps = &job->ranges[r].ps;
        obj_vec *own[3] = {&ps->positions, &ps->texcoords, &ps->normals};
        for (int k = 0; k < 3; k++) {
            obj_vec_free(own[k]);
            /* Borrowed, read-only: count says what is defined so far. */
            *own[k] = (obj_vec){pools[k]->data, job->ranges[r].before[k], 0};
        }
        ps->line = line;
        line += job->ranges[r].lines;
    }
    return true;
}

/* Faces [from, to) of a range (event marks) into the file: their new corners
 * looked up in the file's table and their indices renumbered; or, when the
 * corners are `numbered` already, only their place among the file's indices
 * taken (fill_indices writes them). */
static bool merge_faces(obj_parser *file, const obj_parser *ps, const obj_event *from,
                        const obj_event *to, uint32_t *ids, bool numbered) {
    if (to->faces == from->faces)
        return true;
    const uint32_t *keys = ps->keys.data;
    for (size_t k = from->keys; !numbered && k < to->keys; k++)
        if (!obj_vertex_id(file, keys + 3 * k, &ids[k]))
            return false;
    if ((uint64_t)file->indices.count + (to->indices - from->indices) > OBJ_MAX_INDICES)
        return obj_syntax_error(file, "more than %u indices", OBJ_MAX_INDICES);
    if (!obj_start_run(file, KILN_TOPOLOGY_TRIANGLES))
        return false;
    uint32_t *out = obj_vec_push(&file->indices, sizeof(uint32_t), to->indices - from->indices);
    if (out == NULL)
        return obj_out_of_memory(file);
    const uint32_t *local = ps->indices.data;
    for (size_t i = from->indices; !numbered && i < to->indices; i++)
        *out++ = ids[local[i]];
    file->faces += (uint32_t)(to->faces - from->faces);
    return true;
}

typedef struct fill_job {
    const ranges_job *ranges;
    const uint32_t *numbered; /* obj_number_range_keys' ids */
    const size_t *first;      /* per range: its first id in numbered */
    const size_t *at;         /* per range: its first index in the file's */
    uint32_t *indices;        /* the file's */
} fill_job;

/* A range's indices, renumbered, at their place in the file's: only faces
 * add indices in a range's part of the file, so they are one block. */
static void fill_indices(void *job_, uint32_t r) {
    const fill_job *job = job_;
    const obj_parser *ps = &job->ranges->ranges[r].ps;
    if (ps->indices.count == 0)
        return; /* then the file's may be none (NULL) */
    const uint32_t *local = ps->indices.data, *ids = job->numbered + job->first[r];
    uint32_t *out = job->indices + job->at[r];
    for (size_t i = 0; i < ps->indices.count; i++)
        out[i] = ids[local[i]];
}

/* The file's unique-vertex table sized at once for every range's corners
 * (a vertex in several ranges counted in each), so it is never regrown. */
static bool reserve_table(obj_parser *file, const ranges_job *job) {
    size_t keys = 0;
    for (uint32_t r = 0; r < job->count; r++)
        keys += job->ranges[r].ps.keys.count;
    size_t cap = 1024;
    while (cap < 2 * (keys + 1) && cap <= SIZE_MAX / 4 / sizeof *file->table)
        cap *= 2;
    if (file->table != NULL || cap < 2 * (keys + 1))
        return true; /* obj_vertex_id grows it */
    file->table = malloc(cap * sizeof *file->table);
    if (file->table == NULL)
        return obj_out_of_memory(file);
    for (size_t i = 0; i < cap; i++)
        file->table[i].id = OBJ_NONE;
    file->table_cap = cap;
    return true;
}

/* Step 3: every range's faces and noted statements in file order. The
 * ranges' corners are numbered on the threads first (obj_keys.c); without
 * that (out of memory), one by one through the file's table. */
static bool merge_ranges(ranges_job *job, unsigned threads) {
    obj_parser *file = job->file;
    const obj_vec **range_keys = malloc(job->count * sizeof *range_keys);
    size_t *first = malloc((job->count + 1) * sizeof *first);
    for (uint32_t r = 0; range_keys != NULL && r < job->count; r++)
        range_keys[r] = &job->ranges[r].ps.keys;
    uint32_t *numbered = range_keys != NULL && first != NULL
                             ? obj_number_range_keys(file, range_keys, job->count, threads, first)
                             : NULL;
    free(range_keys);
    bool ok = numbered != NULL || reserve_table(file, job);
    size_t *at = numbered != NULL ? malloc(job->count * sizeof *at) : NULL;
    ok = ok && (numbered == NULL || at != NULL || obj_out_of_memory(file));
    for (uint32_t r = 0; ok && r < job->count; r++) {
        if (at != NULL)
            at[r] = file->indices.count;
        const obj_range *range = &job->ranges[r];
        const obj_parser *ps = &range->ps;
        uint32_t *ids = numbered != NULL
                            ? numbered + first[r]
                            : malloc((ps->keys.count ? ps->keys.count : 1) * sizeof *ids);
        if (ids == NULL) {
            ok = obj_out_of_memory(file);
            break;
        }
        obj_event mark = {0};
        const obj_event *events = range->events.data;
        for (size_t e = 0; ok && e <= range->events.count; e++) {
            obj_event next = e < range->events.count ? events[e]
                                                     : (obj_event){NULL, 0, ps->indices.count,
                                                                   ps->keys.count, ps->faces};
            ok = merge_faces(file, ps, &mark, &next, ids, numbered != NULL);
            if (ok && next.start != NULL) {
                file->p = next.start;
                file->line = next.line;
                ok = obj_parse_statement(file);
            }
            mark = next;
        }
        if (numbered == NULL)
            free(ids);
    }
    if (ok && numbered != NULL) {
        fill_job fill = {job, numbered, first, at, file->indices.data};
        parallel_for(threads, job->count, fill_indices, &fill);
    }
    free(at);
    free(numbered);
    free(first);
    return ok;
}

static void free_range(obj_range *range) {
    obj_parser *ps = &range->ps;
    obj_vec *owned[] = {&ps->corners,   &ps->corner_xyz, &ps->corner_tri, &ps->corner_id,
                        &ps->scratch,   &ps->keys,       &ps->indices,    &ps->runs,
                        &range->events, &ps->usages};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
        obj_vec_free(owned[i]);
    obj_vec *pools[3] = {&ps->positions, &ps->texcoords, &ps->normals};
    for (int k = 0; k < 3; k++)
        if (pools[k]->cap > 0) /* its own, not yet joined (else borrowed) */
            obj_vec_free(pools[k]);
    free(ps->table);
}

obj_ranges_result obj_parse_ranges(obj_parser *file, size_t range_bytes, unsigned threads) {
    size_t size = (size_t)(file->end - file->p);
    if (range_bytes == 0)
        range_bytes = 1;
    size_t most = size / range_bytes + 1;
    if (most > UINT32_MAX / 2)
        return OBJ_RANGES_DECLINED;
    obj_range *ranges = calloc(most, sizeof *ranges);
    if (ranges == NULL)
        return OBJ_RANGES_DECLINED;
    ranges_job job = {.file = file, .ranges = ranges};
    atomic_init(&job.failed, false);
    for (const unsigned char *p = file->p; p < file->end; job.count++) {
        size_t left = (size_t)(file->end - p);
        const unsigned char *end =
            range_end(p, p + (left < range_bytes ? left : range_bytes), file->end);
        obj_parser *ps = &ranges[job.count].ps;
        *ps = (obj_parser){
            .ctx = file->ctx, .path = file->path, .begin = p, .p = p, .end = end, .quiet = true};
        p = end;
    }
    parallel_for(threads, job.count, step1_item, &job);
    bool ok = !atomic_load(&job.failed) && join_attributes(&job, threads);
    if (ok) {
        parallel_for(threads, job.count, step2_item, &job);
        ok = !atomic_load(&job.failed);
    }
    obj_ranges_result result = OBJ_RANGES_DECLINED;
    if (ok) /* from here on, messages are the file's own, as in one pass */
        result = merge_ranges(&job, threads) ? OBJ_RANGES_DONE : OBJ_RANGES_FAILED;
    for (uint32_t r = 0; r < job.count; r++)
        free_range(&ranges[r]);
    free(ranges);
    return result;
}
