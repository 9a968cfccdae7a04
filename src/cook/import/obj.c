/*
 * obj.c — Wavefront OBJ importer: one indexed mesh, one submesh per topology,
 * material and group (g / o name).
 *
 * One pass over the bytes with a cursor. Nothing is allocated per line: the
 * attribute pools, the unique-vertex table and the index buffer grow
 * geometrically and the per-face scratch buffers are reused. No count read
 * from the file sizes an allocation.
 *
 * Statements
 *   v x y z [w] | v x y z r g b   positions (w ignored), optional vertex colour
 *   vt u [v [w]]                  texture coordinates (w ignored)
 *   vn x y z                      normals
 *   f / fo  v  v/vt  v//vn  v/vt/vn, >= 3 corners, forms may mix, negative
 *                                 indices count back from the last element
 *   usemtl name, mtllib a.mtl [b.mtl ...]   (names may contain spaces)
 *   o name                        the first one names the mesh; each names the
 *                                 submeshes that follow (until a g)
 *   g name [name ...]             names the submeshes that follow (the whole
 *                                 line); a bare g goes back to the o's name
 *   l  v  v/vt ...                a polyline, >= 2 vertices: a line list of its
 *                                 segments (v1 v2, v2 v3, ...)
 *   p  v ...                      points, >= 1 vertex: a point list
 *                                 (corners of l and p take the forms of f's)
 *   s, mg                         accepted and ignored
 *   anything else                 one warning per keyword, skipped
 *   # comments, blank lines, CRLF, a backslash at the end of a line joins the
 *   next one, a UTF-8 byte-order mark and trailing DOS end-of-file bytes.
 *
 * Output
 *   Corners are welded by their (v, vt, vn) triple through an open-addressing
 *   hash table; vertices come out in order of first use. Every polygon is
 *   triangulated with geometry_triangulate_polygon (concave faces included).
 *   Texture coordinates are flipped to the IR's (glTF's) convention, origin at
 *   the top left: v' = 1 - v. Normals are normalised. A stream is present only
 *   when the file provides it: texcoords when any used corner has a vt (others
 *   get 0,0); normals only when every face corner has a usable vn (every
 *   corner, in a file without faces), otherwise none at all so the pipeline
 *   generates them for the faces; a line or point vertex without a vn gets
 *   (0, 0, 1) in a mesh that has normals; colours when any v carries r g b
 *   (others white, alpha 1). A file with vertices and no f, l or p is a point
 *   cloud of its vertices, in file order (a note says so).
 *   Materials: faces, lines and points are grouped into one submesh per
 *   topology and material: triangles first, then lines, then points, each by
 *   material slot; slots (ir_asset.materials) in order of first use by any of
 *   them; MTL materials nothing uses are dropped. Elements before any usemtl,
 *   and those whose usemtl name no loaded library defines (one warning per
 *   name), share a material named "default" (white, not metallic, rough).
 *
 * Problems
 *   Errors (the import fails, with the line): index 0, a vertex index out of
 *   range, a relative index of any kind pointing before the first element, a
 *   face with fewer than 3 corners, an l with fewer than 2 or a p with no
 *   vertex, a malformed number or corner, a v with a wrong number of values, a
 *   byte that cannot be in a text file ("not a text OBJ file"), more than
 *   UINT32_MAX vertices or indices, and a file with no geometry at all.
 *   Warnings (the import goes on): a missing .mtl; a usemtl name no library
 *   defines; a vt/vn index beyond the ones defined so far (that attribute is
 *   dropped for the corner: real files reference normals they never define);
 *   a nan/inf position (faces, points and line segments using that vertex are
 *   dropped; if that leaves nothing it is an error); a nan/inf texture
 *   coordinate (set to 0); a zero or nan/inf normal (replaced by the normal of
 *   the faces around the vertex); unknown statements.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "cook/import/import.h"

#define OBJ_NONE UINT32_MAX
#define OBJ_MAX_ELEMENTS (UINT32_MAX - 1u) /* per attribute kind, and unique vertices */
#define OBJ_MAX_INDICES UINT32_MAX         /* a multiple of 3 */
#define OBJ_MAX_FACE_CORNERS 65536u
#define OBJ_MAX_UNKNOWN_REPORTED 16u
#define OBJ_ERROR_CONTEXT 4096 /* bytes scanned around an error for binary content */

/* ---------------------------------------------------------------------------
 * Growable arrays and hash tables
 * ------------------------------------------------------------------------- */

typedef struct obj_vec {
    void *data;
    size_t count; /* elements */
    size_t cap;
} obj_vec;

/* Appends `n` elements of `size` bytes; returns the first, or NULL when out of
 * memory (the vector is then unchanged). */
static void *vec_push(obj_vec *vec, size_t size, size_t n) {
    size_t need;
    if (!checked_add_size(vec->count, n, &need))
        return NULL;
    if (need > vec->cap) {
        size_t cap = vec->cap ? vec->cap : 16;
        while (cap < need) {
            if (cap > SIZE_MAX / 2)
                return NULL;
            cap *= 2;
        }
        size_t bytes;
        if (!checked_mul_size(cap, size, &bytes))
            return NULL;
        void *data = realloc(vec->data, bytes);
        if (data == NULL)
            return NULL;
        vec->data = data;
        vec->cap = cap;
    }
    void *first = (char *)vec->data + vec->count * size;
    vec->count = need;
    return first;
}

static void vec_free(obj_vec *vec) {
    free(vec->data);
    memset(vec, 0, sizeof *vec);
}

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

static uint32_t name_find(const name_table *table, const char *name, size_t length) {
    if (table->cap == 0)
        return OBJ_NONE;
    size_t mask = table->cap - 1;
    for (size_t i = (size_t)kiln_ref_hash_n(name, length) & mask;; i = (i + 1) & mask) {
        const name_entry *entry = &table->slots[i];
        if (entry->name == NULL)
            return OBJ_NONE;
        if (entry->length == length && memcmp(entry->name, name, length) == 0)
            return entry->id;
    }
}

static bool name_insert(name_table *table, const char *name, size_t length, uint32_t id) {
    if ((table->count + 1) * 2 > table->cap) {
        size_t cap = table->cap ? table->cap * 2 : 64;
        name_entry *slots = calloc(cap, sizeof *slots);
        if (slots == NULL)
            return false;
        for (size_t i = 0; i < table->cap; i++) {
            if (table->slots[i].name == NULL)
                continue;
            size_t j =
                (size_t)kiln_ref_hash_n(table->slots[i].name, table->slots[i].length) & (cap - 1);
            while (slots[j].name != NULL)
                j = (j + 1) & (cap - 1);
            slots[j] = table->slots[i];
        }
        free(table->slots);
        table->slots = slots;
        table->cap = cap;
    }
    size_t mask = table->cap - 1;
    size_t i = (size_t)kiln_ref_hash_n(name, length) & mask;
    while (table->slots[i].name != NULL)
        i = (i + 1) & mask;
    table->slots[i] = (name_entry){name, length, id};
    table->count++;
    return true;
}

static uint64_t hash_corner(const uint32_t key[3]) {
    uint64_t h = (uint64_t)key[0] * 0x9e3779b97f4a7c15ull;
    h ^= (((uint64_t)key[1] << 32) | key[2]) * 0xc2b2ae3d27d4eb4full;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return h;
}

/* ---------------------------------------------------------------------------
 * Numbers
 * ------------------------------------------------------------------------- */

static bool is_digit(unsigned char c) {
    return c >= '0' && c <= '9';
}

/* Length of `word` (lower case) at p, case-insensitively, or 0. */
static size_t match_word(const unsigned char *p, const unsigned char *end, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (ascii_lower((char)p[i]) != word[i])
            return 0;
    return n;
}

bool import_scan_number(const char **cursor, const char *end, double *out) {
    static const double powers[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const unsigned char *p = (const unsigned char *)*cursor;
    const unsigned char *e = (const unsigned char *)end;
    bool negative = false;
    if (p < e && (*p == '-' || *p == '+')) {
        negative = *p == '-';
        p++;
    }
    const unsigned char *start = p; /* the unsigned number */
    uint64_t mantissa = 0;
    long exponent = 0;
    bool digits = false, inexact = false;
    /* Up to 18 significant digits are kept exactly; later ones only scale. */
    for (; p < e && is_digit(*p); p++) {
        digits = true;
        if (mantissa < 100000000000000000ull) {
            mantissa = mantissa * 10 + (uint64_t)(*p - '0');
        } else {
            exponent += exponent < 1000000;
            inexact |= *p != '0';
        }
    }
    if (p < e && *p == '.') {
        p++;
        for (; p < e && is_digit(*p); p++) {
            digits = true;
            if (mantissa < 100000000000000000ull) {
                mantissa = mantissa * 10 + (uint64_t)(*p - '0');
                exponent--;
            } else {
                inexact |= *p != '0';
            }
        }
    }
    if (!digits) {
        size_t n;
        double special;
        if ((n = match_word(p, e, "infinity")) || (n = match_word(p, e, "inf")))
            special = INFINITY;
        else if ((n = match_word(p, e, "nan")))
            special = NAN;
        else
            return false;
        *out = negative ? -special : special;
        *cursor = (const char *)(p + n);
        return true;
    }
    if (p < e && *p == '#') {
        /* MSVC's printf spellings: 1.#INF, -1.#IND, 1.#QNAN, 1.#SNAN (+ digits). */
        const unsigned char *q = p + 1;
        double special = 0.0;
        size_t n;
        if ((n = match_word(q, e, "inf")))
            special = INFINITY;
        else if ((n = match_word(q, e, "ind")) || (n = match_word(q, e, "qnan")) ||
                 (n = match_word(q, e, "snan")))
            special = NAN;
        if (n > 0) {
            q += n;
            while (q < e && is_digit(*q))
                q++;
            *out = negative ? -special : special;
            *cursor = (const char *)q;
            return true;
        }
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        const unsigned char *q = p + 1;
        bool exponent_negative = false;
        if (q < e && (*q == '-' || *q == '+')) {
            exponent_negative = *q == '-';
            q++;
        }
        if (q < e && is_digit(*q)) {
            long value = 0;
            for (; q < e && is_digit(*q); q++)
                if (value < 1000000)
                    value = value * 10 + (*q - '0');
            exponent += exponent_negative ? -value : value;
            p = q;
        }
    }

    double value;
    if (mantissa == 0) {
        value = 0.0;
    } else if (!inexact && mantissa <= (1ull << 53) && exponent >= -22 && exponent <= 22) {
        /* Both operands exact, one rounding: correctly rounded (Clinger). */
        value = exponent < 0 ? (double)mantissa / powers[-exponent]
                             : (double)mantissa * powers[exponent];
    } else {
        char text[96];
        size_t length = (size_t)(p - start);
        bool parsed = false;
        if (length < sizeof text) {
            char *stop = NULL;
            memcpy(text, start, length);
            text[length] = '\0';
            value = strtod(text, &stop);
            parsed = stop == text + length;
        }
        /* Too long for the buffer (text + length would point past it: the
         * fuzzer found that), or a locale with another decimal point. */
        if (!parsed)
            value = (double)mantissa * pow(10.0, (double)exponent);
    }
    *out = negative ? -value : value;
    *cursor = (const char *)p;
    return true;
}

static float to_float(double value) {
    if (value > FLT_MAX)
        return INFINITY;
    if (value < -FLT_MAX)
        return -INFINITY;
    return (float)value;
}

/* ---------------------------------------------------------------------------
 * Parser state
 * ------------------------------------------------------------------------- */

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

/* A slot of the unique-vertex table; the key is kept inline so a lookup
 * touches one cache line (faces reference vertices all over the file). */
typedef struct corner_slot {
    uint32_t key[3];
    uint32_t id; /* OBJ_NONE: empty */
} corner_slot;

typedef struct obj_parser {
    cook_context *ctx;
    const char *path;
    const unsigned char *begin;
    const unsigned char *p;
    const unsigned char *end;
    uint32_t line;
    bool binary; /* "not a text OBJ file" was reported */

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

/* ---------------------------------------------------------------------------
 * Diagnostics
 * ------------------------------------------------------------------------- */

static bool is_blank(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* A byte no text file has: NUL and the other control characters. */
static bool is_binary(unsigned char c) {
    return c < 0x20 && c != '\n' && !is_blank(c);
}

static bool out_of_memory(obj_parser *ps) {
    diag_error(ps->ctx->diag, ps->path, ps->line, "out of memory");
    return false;
}

static bool binary_error(obj_parser *ps, unsigned char byte) {
    ps->binary = true;
    diag_error(ps->ctx->diag, ps->path, ps->line,
               "not a text OBJ file (byte 0x%02x where text was expected)", byte);
    return false;
}

/* Reports a malformed statement, or "not a text OBJ file" when the line
 * around the cursor holds bytes no text has (then the message would be noise). */
static bool syntax_error(obj_parser *ps, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool syntax_error(obj_parser *ps, const char *fmt, ...) {
    const unsigned char *begin = ps->p, *stop = ps->p;
    for (int n = 0; begin > ps->begin && begin[-1] != '\n' && n < OBJ_ERROR_CONTEXT; n++)
        begin--;
    for (int n = 0; stop < ps->end && *stop != '\n' && n < OBJ_ERROR_CONTEXT; n++)
        stop++;
    for (const unsigned char *q = begin; q < stop; q++)
        if (is_binary(*q) || *q == 0x7f)
            return binary_error(ps, *q);
    char message[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    diag_error(ps->ctx->diag, ps->path, ps->line, "%s", message);
    return false;
}

/* Length of the token at p (up to a blank or the line end), for messages. */
static int token_length(const unsigned char *p, const unsigned char *end) {
    int n = 0;
    while (p + n < end && p[n] > ' ' && n < 40)
        n++;
    return n;
}

/* ---------------------------------------------------------------------------
 * Scanning
 * ------------------------------------------------------------------------- */

/* A backslash ending the line joins the next one: returns the byte after the
 * newline, or NULL when the backslash at p is not a continuation. */
static const unsigned char *continuation(const unsigned char *p, const unsigned char *end) {
    const unsigned char *q = p + 1;
    if (q < end && *q == '\r')
        q++;
    if (q >= end)
        return q;
    return *q == '\n' ? q + 1 : NULL;
}

static void skip_blanks(obj_parser *ps) {
    const unsigned char *p = ps->p, *end = ps->end;
    for (;;) {
        while (p < end && is_blank(*p))
            p++;
        const unsigned char *next;
        if (p < end && *p == '\\' && (next = continuation(p, end)) != NULL) {
            if (next[-1] == '\n')
                ps->line++;
            p = next;
            continue;
        }
        break;
    }
    ps->p = p;
}

static bool at_line_end(const obj_parser *ps) {
    return ps->p >= ps->end || *ps->p == '\n';
}

/* True when the token just scanned ends here. */
static bool at_token_end(const obj_parser *ps) {
    if (ps->p >= ps->end || *ps->p <= ' ')
        return true;
    return *ps->p == '\\' && continuation(ps->p, ps->end) != NULL;
}

/* Skips to the end of the physical line (comments) or the logical line
 * (statements being ignored, which may continue), checking it is text. */
static bool skip_line(obj_parser *ps, bool logical) {
    const unsigned char *p = ps->p, *end = ps->end;
    while (p < end && *p != '\n') {
        const unsigned char *next;
        if (logical && *p == '\\' && (next = continuation(p, end)) != NULL) {
            if (next[-1] == '\n')
                ps->line++;
            p = next;
            continue;
        }
        if (is_binary(*p)) {
            ps->p = p;
            return binary_error(ps, *p);
        }
        p++;
    }
    ps->p = p;
    return true;
}

/* Moves to the next field of the statement; false at its end (a '#' that
 * starts a field begins a comment) or when the comment is not text (then
 * ps->binary is set). */
static bool next_field(obj_parser *ps) {
    skip_blanks(ps);
    if (ps->p < ps->end && *ps->p == '#' && !skip_line(ps, false))
        return false;
    return !at_line_end(ps);
}

/* The rest of the logical line, continuations folded to one space, trimmed,
 * NUL-terminated in ps->scratch. */
static bool read_rest(obj_parser *ps, const char **text, size_t *length) {
    ps->scratch.count = 0;
    skip_blanks(ps);
    const unsigned char *p = ps->p, *end = ps->end;
    while (p < end && *p != '\n') {
        unsigned char c = *p;
        const unsigned char *next;
        if (c == '\\' && (next = continuation(p, end)) != NULL) {
            if (next[-1] == '\n')
                ps->line++;
            p = next;
            c = ' ';
        } else if (is_binary(c)) {
            ps->p = p;
            return binary_error(ps, c);
        } else {
            p++;
        }
        char *slot = vec_push(&ps->scratch, 1, 1);
        if (slot == NULL)
            return out_of_memory(ps);
        *slot = is_blank(c) ? ' ' : (char)c;
    }
    ps->p = p;
    char *data = ps->scratch.data;
    size_t n = ps->scratch.count;
    while (n > 0 && data[n - 1] == ' ')
        n--;
    ps->scratch.count = n;
    char *terminator = vec_push(&ps->scratch, 1, 1);
    if (terminator == NULL)
        return out_of_memory(ps);
    *terminator = '\0';
    *text = ps->scratch.data;
    *length = n;
    return true;
}

/* Reads up to `max` numbers to the end of the statement. */
static bool read_numbers(obj_parser *ps, const char *keyword, double *values, int max, int *count) {
    int n = 0;
    while (next_field(ps)) {
        if (n == max)
            return syntax_error(ps, "'%s' has more than %d values", keyword, max);
        const unsigned char *start = ps->p;
        const char *cursor = (const char *)start;
        if (import_scan_number(&cursor, (const char *)ps->end, &values[n])) {
            ps->p = (const unsigned char *)cursor;
            if (at_token_end(ps)) {
                n++;
                continue;
            }
            ps->p = start;
        }
        return syntax_error(ps, "'%s': '%.*s' is not a number", keyword,
                            token_length(start, ps->end), (const char *)start);
    }
    *count = n;
    return !ps->binary;
}

/* ---------------------------------------------------------------------------
 * Statements
 * ------------------------------------------------------------------------- */

static bool parse_position(obj_parser *ps) {
    double v[6];
    int n = 0;
    if (!read_numbers(ps, "v", v, 6, &n))
        return false;
    if (n != 3 && n != 4 && n != 6)
        return syntax_error(ps, "'v' needs x y z, x y z w or x y z r g b; found %d value%s", n,
                            n == 1 ? "" : "s");
    if (ps->positions.count >= OBJ_MAX_ELEMENTS)
        return syntax_error(ps, "more than %u vertex positions", OBJ_MAX_ELEMENTS);
    float *position = vec_push(&ps->positions, 3 * sizeof(float), 1);
    if (position == NULL)
        return out_of_memory(ps);
    bool finite = true;
    for (int k = 0; k < 3; k++) {
        position[k] = to_float(v[k]);
        finite &= isfinite(position[k]) != 0;
    }
    if (!finite || ps->bad.count > 0) {
        size_t earlier = ps->positions.count - 1;
        if (ps->bad.count == 0 && earlier > 0) {
            uint8_t *flags = vec_push(&ps->bad, 1, earlier);
            if (flags == NULL)
                return out_of_memory(ps);
            memset(flags, 0, earlier);
        }
        uint8_t *flag = vec_push(&ps->bad, 1, 1);
        if (flag == NULL)
            return out_of_memory(ps);
        *flag = !finite;
        if (!finite && !ps->warned_bad_position) {
            ps->warned_bad_position = true;
            diag_warning(ps->ctx->diag, ps->path, ps->line,
                         "vertex position is not a finite number; faces using such vertices "
                         "are dropped");
        }
    }
    if (n == 6 || ps->colors.count > 0) {
        size_t earlier = ps->positions.count - 1;
        if (ps->colors.count == 0 && earlier > 0) {
            float *white = vec_push(&ps->colors, 4 * sizeof(float), earlier);
            if (white == NULL)
                return out_of_memory(ps);
            for (size_t i = 0; i < 4 * earlier; i++)
                white[i] = 1.0f;
        }
        float *color = vec_push(&ps->colors, 4 * sizeof(float), 1);
        if (color == NULL)
            return out_of_memory(ps);
        for (int k = 0; k < 4; k++)
            color[k] = 1.0f;
        for (int k = 0; n == 6 && k < 3; k++) {
            float c = to_float(v[3 + k]);
            color[k] = isfinite(c) ? c : 0.0f;
        }
    }
    return true;
}

static bool parse_texcoord(obj_parser *ps) {
    double v[3] = {0.0, 0.0, 0.0};
    int n = 0;
    if (!read_numbers(ps, "vt", v, 3, &n))
        return false;
    if (n == 0)
        return syntax_error(ps, "'vt' needs at least one value");
    if (ps->texcoords.count >= OBJ_MAX_ELEMENTS)
        return syntax_error(ps, "more than %u texture coordinates", OBJ_MAX_ELEMENTS);
    float *uv = vec_push(&ps->texcoords, 2 * sizeof(float), 1);
    if (uv == NULL)
        return out_of_memory(ps);
    for (int k = 0; k < 2; k++) {
        uv[k] = to_float(v[k]);
        if (!isfinite(uv[k])) {
            uv[k] = 0.0f;
            if (!ps->warned_bad_texcoord)
                diag_warning(ps->ctx->diag, ps->path, ps->line,
                             "texture coordinate is not a finite number; 0 used");
            ps->warned_bad_texcoord = true;
        }
    }
    return true;
}

static bool parse_normal(obj_parser *ps) {
    double v[3];
    int n = 0;
    if (!read_numbers(ps, "vn", v, 3, &n))
        return false;
    if (n != 3)
        return syntax_error(ps, "'vn' needs x y z; found %d value%s", n, n == 1 ? "" : "s");
    if (ps->normals.count >= OBJ_MAX_ELEMENTS)
        return syntax_error(ps, "more than %u normals", OBJ_MAX_ELEMENTS);
    float *normal = vec_push(&ps->normals, 3 * sizeof(float), 1);
    if (normal == NULL)
        return out_of_memory(ps);
    for (int k = 0; k < 3; k++)
        normal[k] = to_float(v[k]); /* non-finite ones are caught where used */
    return true;
}

/* An index of a face corner: optional sign and digits; false when none. */
static bool scan_index(obj_parser *ps, int64_t *out) {
    const unsigned char *p = ps->p, *end = ps->end;
    bool negative = false;
    if (p < end && (*p == '-' || *p == '+')) {
        negative = *p == '-';
        p++;
    }
    if (p >= end || !is_digit(*p))
        return false;
    int64_t value = 0;
    for (; p < end && is_digit(*p); p++)
        if (value < 100000000000000ll) /* far beyond any count; keeps the text */
            value = value * 10 + (*p - '0');
    ps->p = p;
    *out = negative ? -value : value;
    return true;
}

static bool resolve_index(obj_parser *ps, int64_t raw, int kind, uint32_t *out) {
    static const char *const singular[3] = {"vertex", "texture coordinate", "normal"};
    static const char *const plural[3] = {"vertices", "texture coordinates", "normals"};
    static const char *const consequence[3] = {"", "0,0 used", "normals are generated"};
    const obj_vec *pool = kind == ATTR_POSITION   ? &ps->positions
                          : kind == ATTR_TEXCOORD ? &ps->texcoords
                                                  : &ps->normals;
    size_t count = pool->count;
    if (raw == 0)
        return syntax_error(ps, "%s index 0 is invalid: OBJ indices start at 1", singular[kind]);
    if (raw > 0 && (uint64_t)raw <= count) {
        *out = (uint32_t)(raw - 1);
        return true;
    }
    if (raw < 0 && (uint64_t)-raw <= count) {
        *out = (uint32_t)((int64_t)count + raw);
        return true;
    }
    if (raw < 0)
        return syntax_error(ps,
                            "relative %s index %lld points before the first one (%zu defined "
                            "so far)",
                            singular[kind], (long long)raw, count);
    if (kind == ATTR_POSITION)
        return syntax_error(ps, "%s uses vertex %lld, but only %zu %s are defined before it",
                            ps->element, (long long)raw, count, plural[kind]);
    if (!ps->warned_missing[kind])
        diag_warning(ps->ctx->diag, ps->path, ps->line,
                     "%s uses %s %lld, but only %zu %s are defined before it; ignored (%s)",
                     ps->element, singular[kind], (long long)raw, count, plural[kind],
                     consequence[kind]);
    ps->warned_missing[kind] = true;
    *out = OBJ_NONE;
    return true;
}

/* One corner: v, v/vt, v//vn, v/vt/vn (empty optional fields allowed). */
static bool parse_corner(obj_parser *ps, uint32_t corner[3]) {
    const unsigned char *start = ps->p;
    int64_t raw;
    corner[1] = corner[2] = OBJ_NONE;
    if (!scan_index(ps, &raw))
        goto malformed;
    if (!resolve_index(ps, raw, ATTR_POSITION, &corner[0]))
        return false;
    for (int kind = ATTR_TEXCOORD; kind <= ATTR_NORMAL; kind++) {
        if (ps->p >= ps->end || *ps->p != '/')
            break;
        ps->p++;
        if (at_token_end(ps) || *ps->p == '/')
            continue; /* empty field */
        if (!scan_index(ps, &raw))
            goto malformed;
        if (!resolve_index(ps, raw, kind, &corner[kind]))
            return false;
    }
    if (at_token_end(ps))
        return true;
malformed:
    ps->p = start;
    return syntax_error(ps, "malformed %s corner '%.*s' (expected v, v/vt, v//vn or v/vt/vn)",
                        ps->element, token_length(start, ps->end), (const char *)start);
}

/* Index of the unique vertex for a corner, inserting it if new. */
static bool vertex_id(obj_parser *ps, const uint32_t key[3], uint32_t *id) {
    if ((ps->keys.count + 1) * 2 > ps->table_cap) {
        size_t cap = ps->table_cap ? ps->table_cap * 2 : 1024;
        corner_slot *table = cap <= SIZE_MAX / sizeof *table ? malloc(cap * sizeof *table) : NULL;
        if (table == NULL)
            return out_of_memory(ps);
        for (size_t i = 0; i < cap; i++)
            table[i].id = OBJ_NONE;
        for (size_t i = 0; i < ps->table_cap; i++) {
            if (ps->table[i].id == OBJ_NONE)
                continue;
            size_t j = (size_t)hash_corner(ps->table[i].key) & (cap - 1);
            while (table[j].id != OBJ_NONE)
                j = (j + 1) & (cap - 1);
            table[j] = ps->table[i];
        }
        free(ps->table);
        ps->table = table;
        ps->table_cap = cap;
    }
    size_t mask = ps->table_cap - 1;
    size_t i = (size_t)hash_corner(key) & mask;
    for (; ps->table[i].id != OBJ_NONE; i = (i + 1) & mask) {
        const uint32_t *k = ps->table[i].key;
        if (k[0] == key[0] && k[1] == key[1] && k[2] == key[2]) {
            *id = ps->table[i].id;
            return true;
        }
    }
    if (ps->keys.count >= OBJ_MAX_ELEMENTS)
        return syntax_error(ps, "more than %u distinct vertices", OBJ_MAX_ELEMENTS);
    uint32_t *slot = vec_push(&ps->keys, 3 * sizeof(uint32_t), 1);
    if (slot == NULL)
        return out_of_memory(ps);
    memcpy(slot, key, 3 * sizeof *slot);
    *id = (uint32_t)(ps->keys.count - 1);
    ps->table[i] = (corner_slot){{key[0], key[1], key[2]}, *id};
    return true;
}

/* Makes the indices that follow a run of the current material and `topology`. */
static bool start_run(obj_parser *ps, kiln_topology topology) {
    const obj_run *last =
        ps->runs.count ? (const obj_run *)ps->runs.data + ps->runs.count - 1 : NULL;
    if (last != NULL && last->usage == ps->usage && last->topology == topology &&
        last->part == ps->part)
        return true;
    obj_run *run = vec_push(&ps->runs, sizeof(obj_run), 1);
    if (run == NULL)
        return out_of_memory(ps);
    *run = (obj_run){.usage = ps->usage,
                     .first = (uint32_t)ps->indices.count,
                     .topology = topology,
                     .part = ps->part};
    return true;
}

static bool emit_face(obj_parser *ps, uint32_t face_line) {
    uint32_t n = (uint32_t)ps->corners.count;
    const uint32_t *corners = ps->corners.data;
    if (ps->bad.count > 0) {
        const uint8_t *bad = ps->bad.data;
        for (uint32_t i = 0; i < n; i++) {
            if (bad[corners[3 * i]]) {
                if (ps->dropped_faces++ == 0)
                    ps->dropped_line = face_line;
                return true;
            }
        }
    }
    uint32_t triangle_count = n - 2;
    if ((uint64_t)ps->indices.count + 3ull * triangle_count > OBJ_MAX_INDICES)
        return syntax_error(ps, "more than %u indices", OBJ_MAX_INDICES);

    static const uint32_t single[3] = {0, 1, 2};
    const uint32_t *triangles = single;
    if (n > 3) {
        ps->corner_xyz.count = 0;
        ps->corner_tri.count = 0;
        float *xyz = vec_push(&ps->corner_xyz, 3 * sizeof(float), n);
        uint32_t *tri = vec_push(&ps->corner_tri, 3 * sizeof(uint32_t), triangle_count);
        if (xyz == NULL || tri == NULL)
            return out_of_memory(ps);
        const float *positions = ps->positions.data;
        for (uint32_t i = 0; i < n; i++)
            memcpy(xyz + 3 * i, positions + 3 * (size_t)corners[3 * i], 3 * sizeof(float));
        geometry_triangulate_polygon(xyz, n, tri);
        triangles = tri;
    }
    ps->corner_id.count = 0;
    uint32_t *ids = vec_push(&ps->corner_id, sizeof(uint32_t), n);
    if (ids == NULL)
        return out_of_memory(ps);
    for (uint32_t i = 0; i < n; i++)
        if (!vertex_id(ps, corners + 3 * i, &ids[i]))
            return false;

    if (!start_run(ps, KILN_TOPOLOGY_TRIANGLES))
        return false;
    uint32_t *out = vec_push(&ps->indices, sizeof(uint32_t), 3 * (size_t)triangle_count);
    if (out == NULL)
        return out_of_memory(ps);
    for (size_t i = 0; i < 3 * (size_t)triangle_count; i++)
        out[i] = ids[triangles[i]];
    ps->faces++;
    return true;
}

/* The corners of an f, l or p statement into ps->corners; `element` names it
 * in messages. */
static bool read_corners(obj_parser *ps, const char *element) {
    ps->element = element;
    ps->corners.count = 0;
    while (next_field(ps)) {
        if (ps->corners.count == OBJ_MAX_FACE_CORNERS)
            return syntax_error(ps, "%s has more than %u corners", element, OBJ_MAX_FACE_CORNERS);
        uint32_t *corner = vec_push(&ps->corners, 3 * sizeof(uint32_t), 1);
        if (corner == NULL)
            return out_of_memory(ps);
        if (!parse_corner(ps, corner))
            return false;
    }
    return !ps->binary;
}

static bool parse_face(obj_parser *ps) {
    uint32_t face_line = ps->line;
    if (!read_corners(ps, "face"))
        return false;
    if (ps->corners.count < 3)
        return syntax_error(ps, "face has %zu corner%s; a face needs at least 3", ps->corners.count,
                            ps->corners.count == 1 ? "" : "s");
    return emit_face(ps, face_line);
}

/* `p v1 v2 ...`: one point per corner; `l v1 v2 ...`: a polyline, one line
 * segment per pair of neighbours. A point, or a segment, on a vertex whose
 * position is not finite is dropped, as faces are. */
static bool parse_points_or_lines(obj_parser *ps, kiln_topology topology) {
    uint32_t line = ps->line;
    const char *keyword = topology == KILN_TOPOLOGY_LINES ? "l" : "p";
    if (!read_corners(ps, topology == KILN_TOPOLOGY_LINES ? "line" : "point"))
        return false;
    uint32_t n = (uint32_t)ps->corners.count, need = topology == KILN_TOPOLOGY_LINES ? 2 : 1;
    if (n < need)
        return syntax_error(ps, "'%s' has %u vertices; it needs at least %u", keyword, n, need);
    ps->corner_id.count = 0;
    uint32_t *ids = vec_push(&ps->corner_id, sizeof(uint32_t), n);
    if (ids == NULL)
        return out_of_memory(ps);
    const uint32_t *corners = ps->corners.data;
    const uint8_t *bad = ps->bad.count > 0 ? ps->bad.data : NULL;
    for (uint32_t i = 0; i < n; i++)
        ids[i] = bad != NULL && bad[corners[3 * i]] ? OBJ_NONE : 0;
    for (uint32_t i = 0; i < n; i++)
        if (ids[i] != OBJ_NONE && !vertex_id(ps, corners + 3 * i, &ids[i]))
            return false;
    /* Points, or segments, whose vertices are all finite. */
    uint32_t kept = 0, total = topology == KILN_TOPOLOGY_LINES ? n - 1 : n;
    for (uint32_t i = 0; i < total; i++)
        kept += ids[i] != OBJ_NONE && (topology == KILN_TOPOLOGY_POINTS || ids[i + 1] != OBJ_NONE);
    if (kept < total && ps->dropped_elements == 0)
        ps->dropped_element_line = line;
    ps->dropped_elements += total - kept;
    if (kept == 0)
        return true;
    uint64_t added = (uint64_t)kept * need;
    if ((uint64_t)ps->indices.count + added > OBJ_MAX_INDICES)
        return syntax_error(ps, "more than %u indices", OBJ_MAX_INDICES);
    if (!start_run(ps, topology))
        return false;
    uint32_t *out = vec_push(&ps->indices, sizeof(uint32_t), (size_t)added);
    if (out == NULL)
        return out_of_memory(ps);
    for (uint32_t i = 0; i < total; i++) {
        if (ids[i] == OBJ_NONE || (topology == KILN_TOPOLOGY_LINES && ids[i + 1] == OBJ_NONE))
            continue;
        *out++ = ids[i];
        if (topology == KILN_TOPOLOGY_LINES)
            *out++ = ids[i + 1];
    }
    ps->elements++;
    return true;
}

static bool parse_usemtl(obj_parser *ps) {
    uint32_t line = ps->line;
    const char *name;
    size_t length;
    if (!read_rest(ps, &name, &length))
        return false;
    if (length == 0) {
        ps->usage = 0;
        return true;
    }
    uint32_t id = name_find(&ps->usage_names, name, length);
    if (id == OBJ_NONE) {
        if (ps->usages.count >= OBJ_MAX_ELEMENTS)
            return syntax_error(ps, "too many material names");
        obj_usage *usage = vec_push(&ps->usages, sizeof(obj_usage), 1);
        if (usage == NULL)
            return out_of_memory(ps);
        *usage = (obj_usage){cook_strdup(name), line, OBJ_NONE};
        id = (uint32_t)(ps->usages.count - 1);
        if (usage->name == NULL || !name_insert(&ps->usage_names, usage->name, length, id))
            return out_of_memory(ps);
    }
    ps->usage = id;
    return true;
}

static bool ends_with_mtl(const char *text, size_t length) {
    return length >= 4 && text[length - 4] == '.' && ascii_lower(text[length - 3]) == 'm' &&
           ascii_lower(text[length - 2]) == 't' && ascii_lower(text[length - 1]) == 'l';
}

/* Real files name one or a few libraries; the cap keeps a hostile file's
 * millions of names from costing a lookup and a file probe each. */
#define OBJ_MAX_MTLLIBS 256

static bool load_mtllib(obj_parser *ps, const char *name, uint32_t line) {
    if (strlist_contains(&ps->mtllibs, name))
        return true;
    if (ps->mtllibs.count >= OBJ_MAX_MTLLIBS) {
        if (!ps->mtllibs_capped)
            diag_warning(ps->ctx->diag, ps->path, line,
                         "more than %d material libraries; '%s' and later ones are ignored",
                         OBJ_MAX_MTLLIBS, name);
        ps->mtllibs_capped = true;
        ps->mtllib_failed = true;
        return true;
    }
    if (!strlist_push(&ps->mtllibs, name))
        return out_of_memory(ps);
    char reason[512];
    char *mtl_path = NULL;
    uint8_t *data = NULL;
    size_t size = 0;
    if (!cook_resolve_dependency(ps->ctx, name, &mtl_path, reason, sizeof reason) ||
        !cook_read_dependency(ps->ctx, name, &data, &size, reason, sizeof reason)) {
        diag_warning(ps->ctx->diag, ps->path, line,
                     "cannot read material library '%s': %s; its materials are replaced by "
                     "the default material",
                     name, reason);
        ps->mtllib_failed = true;
        free(mtl_path);
        return true;
    }
    bool ok = import_mtl(ps->ctx, mtl_path, (const char *)data, size, &ps->library,
                         &ps->library_count, &ps->images, &ps->image_count);
    free(data);
    free(mtl_path);
    return ok;
}

/* mtllib a.mtl b.mtl: names may hold spaces, so a name runs up to a word that
 * ends in ".mtl" (or to the end of the line). */
static bool parse_mtllib(obj_parser *ps) {
    uint32_t line = ps->line;
    const char *text;
    size_t length;
    if (!read_rest(ps, &text, &length))
        return false;
    if (length == 0) {
        diag_warning(ps->ctx->diag, ps->path, line, "'mtllib' without a file name");
        return true;
    }
    char *names = cook_strdup(text); /* ps->scratch is reused while loading */
    if (names == NULL)
        return out_of_memory(ps);
    bool ok = true;
    size_t start = SIZE_MAX, i = 0;
    while (ok && i < length) {
        while (i < length && names[i] == ' ')
            i++;
        size_t word = i;
        while (i < length && names[i] != ' ')
            i++;
        if (i == word)
            break;
        if (start == SIZE_MAX)
            start = word;
        if (ends_with_mtl(names + word, i - word) || i == length) {
            char saved = names[i];
            names[i] = '\0';
            ok = load_mtllib(ps, names + start, line);
            names[i] = saved;
            start = SIZE_MAX;
        }
    }
    free(names);
    return ok;
}

/* The id (1 + index into part_names) of submesh name `name`, added once. */
static bool intern_part(obj_parser *ps, const char *name, size_t length, uint32_t *id) {
    uint32_t found = name_find(&ps->part_table, name, length);
    if (found == OBJ_NONE) {
        if (!strlist_push(&ps->part_names, name))
            return out_of_memory(ps);
        found = (uint32_t)ps->part_names.count;
        if (!name_insert(&ps->part_table, ps->part_names.items[found - 1], length, found))
            return out_of_memory(ps);
    }
    *id = found;
    return true;
}

/* o name: the first names the mesh; each names the submeshes that follow
 * until a g does. */
static bool parse_object_name(obj_parser *ps) {
    const char *name;
    size_t length;
    if (!read_rest(ps, &name, &length))
        return false;
    if (length > 0 && ps->mesh_name == NULL && (ps->mesh_name = cook_strdup(name)) == NULL)
        return out_of_memory(ps);
    ps->object_part = 0;
    if (length > 0 && !intern_part(ps, name, length, &ps->object_part))
        return false;
    ps->part = ps->object_part;
    return true;
}

/* g name [name ...]: the whole line names the submeshes that follow; a bare
 * g goes back to the object's name. */
static bool parse_group_name(obj_parser *ps) {
    const char *name;
    size_t length;
    if (!read_rest(ps, &name, &length))
        return false;
    ps->part = ps->object_part;
    return length == 0 || intern_part(ps, name, length, &ps->part);
}

static bool skip_unknown(obj_parser *ps, const unsigned char *keyword, size_t length) {
    char name[48];
    snprintf(name, sizeof name, "%.*s", (int)(length < 40 ? length : 40), (const char *)keyword);
    if (ps->unknown.count < OBJ_MAX_UNKNOWN_REPORTED && !strlist_contains(&ps->unknown, name)) {
        if (!strlist_push(&ps->unknown, name))
            return out_of_memory(ps);
        diag_warning(ps->ctx->diag, ps->path, ps->line, "unsupported statement '%s' ignored%s",
                     name,
                     ps->unknown.count == OBJ_MAX_UNKNOWN_REPORTED
                         ? " (further unsupported statements are not reported)"
                         : "");
    }
    return skip_line(ps, true);
}

static bool keyword_is(const unsigned char *keyword, size_t length, const char *word) {
    return strlen(word) == length && memcmp(keyword, word, length) == 0;
}

static bool parse_statement(obj_parser *ps) {
    const unsigned char *keyword = ps->p;
    while (ps->p<ps->end && * ps->p> ' ' && *ps->p < 0x7f)
        ps->p++;
    size_t length = (size_t)(ps->p - keyword);
    if (ps->p < ps->end && (*ps->p >= 0x7f || is_binary(*ps->p)))
        return binary_error(ps, *ps->p);

    switch (keyword[0]) {
    case 'v':
        if (length == 1)
            return parse_position(ps);
        if (keyword_is(keyword, length, "vt"))
            return parse_texcoord(ps);
        if (keyword_is(keyword, length, "vn"))
            return parse_normal(ps);
        break;
    case 'f':
        if (length == 1 || keyword_is(keyword, length, "fo"))
            return parse_face(ps);
        break;
    case 'g':
        if (length == 1)
            return parse_group_name(ps);
        break;
    case 's':
        if (length == 1)
            return skip_line(ps, true);
        break;
    case 'm':
        if (keyword_is(keyword, length, "mtllib"))
            return parse_mtllib(ps);
        if (keyword_is(keyword, length, "mg"))
            return skip_line(ps, true);
        break;
    case 'u':
        if (keyword_is(keyword, length, "usemtl"))
            return parse_usemtl(ps);
        break;
    case 'o':
        if (length == 1)
            return parse_object_name(ps);
        break;
    case 'l':
    case 'p':
        if (length == 1)
            return parse_points_or_lines(ps, keyword[0] == 'l' ? KILN_TOPOLOGY_LINES
                                                               : KILN_TOPOLOGY_POINTS);
        break;
    default:
        break;
    }
    return skip_unknown(ps, keyword, length);
}

/* ---------------------------------------------------------------------------
 * Assembling the asset
 * ------------------------------------------------------------------------- */

static bool add_slot(obj_parser *ps, obj_vec *materials, ir_material *material, uint32_t *slot) {
    ir_material *entry = vec_push(materials, sizeof(ir_material), 1);
    if (entry == NULL) {
        ir_material_free(material);
        return out_of_memory(ps);
    }
    *entry = *material;
    *slot = (uint32_t)(materials->count - 1);
    return true;
}

/* A submesh being formed: its key, the order it was first used in, its size
 * and (while indices are copied) where the next of its indices goes. */
typedef struct obj_part {
    uint32_t topology, slot, name, first_use;
    size_t count, offset;
} obj_part;

static int compare_parts(const void *a, const void *b) {
    const obj_part *x = a, *y = b;
    if (x->topology != y->topology)
        return x->topology < y->topology ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return x->first_use < y->first_use ? -1 : x->first_use > y->first_use;
}

/* Material slots in order of first use by a face, line or point; the index
 * buffer sorted by topology (triangles, lines, points), then slot (stable),
 * one submesh per topology and slot used. */
static bool build_materials(obj_parser *ps, ir_asset *out, ir_mesh *mesh) {
    name_table library_names = {0};
    obj_vec materials = {0};
    obj_part *parts = NULL;
    uint32_t *run_part = NULL;
    uint32_t *indices = NULL;
    bool ok = false;
    for (uint32_t i = 0; i < ps->library_count; i++) {
        const char *name = ps->library[i].name;
        if (name != NULL && name_find(&library_names, name, strlen(name)) == OBJ_NONE &&
            !name_insert(&library_names, name, strlen(name), i))
            goto oom;
    }
    obj_usage *usages = ps->usages.data;
    const obj_run *runs = ps->runs.data;
    size_t run_count = ps->runs.count;
    uint32_t default_slot = OBJ_NONE;
    bool warned_no_library = false;
    for (size_t r = 0; r < run_count; r++) {
        obj_usage *usage = &usages[runs[r].usage];
        if (usage->slot != OBJ_NONE)
            continue;
        uint32_t found =
            usage->name ? name_find(&library_names, usage->name, strlen(usage->name)) : OBJ_NONE;
        if (found != OBJ_NONE) {
            ir_material moved = ps->library[found];
            memset(&ps->library[found], 0, sizeof ps->library[found]);
            if (!add_slot(ps, &materials, &moved, &usage->slot))
                goto fail;
            continue;
        }
        if (usage->name != NULL && ps->library_count > 0) {
            diag_warning(ps->ctx->diag, ps->path, usage->line,
                         "material '%s' is not defined in any material library; the default "
                         "material is used",
                         usage->name);
        } else if (usage->name != NULL && !warned_no_library && !ps->mtllib_failed) {
            diag_warning(ps->ctx->diag, ps->path, usage->line,
                         "'usemtl %s' but no material library was loaded; the default material "
                         "is used",
                         usage->name);
            warned_no_library = true;
        }
        if (default_slot == OBJ_NONE) {
            ir_material fallback;
            ir_material_init(&fallback);
            fallback.metallic = 0.0f;
            fallback.name = cook_strdup("default");
            if (fallback.name == NULL)
                goto oom;
            if (!add_slot(ps, &materials, &fallback, &default_slot))
                goto fail;
        }
        usage->slot = default_slot;
    }

    /* Submeshes: one per (topology, slot, name) used, ordered by topology,
     * then slot, then first use; each run's indices go to its submesh. */
    size_t index_count = ps->indices.count;
    parts = calloc(run_count ? run_count : 1, sizeof *parts);
    run_part = malloc((run_count ? run_count : 1) * sizeof *run_part);
    indices = malloc((index_count ? index_count : 1) * sizeof *indices);
    if (parts == NULL || run_part == NULL || indices == NULL)
        goto oom;
    size_t part_count = 0;
    for (size_t r = 0; r < run_count; r++) {
        obj_part key = {
            .topology = runs[r].topology, .slot = usages[runs[r].usage].slot, .name = runs[r].part};
        size_t p = 0; /* runs of one key are few apart: look back from the last */
        for (p = part_count; p-- > 0;)
            if (parts[p].topology == key.topology && parts[p].slot == key.slot &&
                parts[p].name == key.name)
                break;
        if (p == SIZE_MAX) {
            key.first_use = (uint32_t)part_count;
            parts[part_count] = key;
            p = part_count++;
        }
        size_t end = r + 1 < run_count ? runs[r + 1].first : index_count;
        parts[p].count += end - runs[r].first;
        run_part[r] = (uint32_t)p;
    }
    /* Sorting moves the parts: remember where each went. */
    qsort(parts, part_count, sizeof *parts, compare_parts);
    uint32_t *where = malloc((part_count ? part_count : 1) * sizeof *where);
    mesh->submeshes = calloc(part_count ? part_count : 1, sizeof *mesh->submeshes);
    if (where == NULL || mesh->submeshes == NULL) {
        free(where);
        goto oom;
    }
    size_t offset = 0;
    uint32_t submesh_count = 0;
    for (size_t p = 0; p < part_count; p++) {
        where[parts[p].first_use] = (uint32_t)p;
        parts[p].offset = offset;
        ir_submesh *sub = &mesh->submeshes[submesh_count++];
        *sub = (ir_submesh){.index_offset = (uint32_t)offset,
                            .index_count = (uint32_t)parts[p].count,
                            .material = parts[p].slot,
                            .topology = (kiln_topology)parts[p].topology};
        if (parts[p].name != 0 &&
            (sub->name = cook_strdup(ps->part_names.items[parts[p].name - 1])) == NULL) {
            mesh->submesh_count = submesh_count;
            free(where);
            goto oom;
        }
        offset += parts[p].count;
    }
    const uint32_t *source = ps->indices.data;
    for (size_t r = 0; r < run_count; r++) {
        size_t end = r + 1 < run_count ? runs[r + 1].first : index_count;
        size_t n = end - runs[r].first;
        obj_part *part = &parts[where[run_part[r]]];
        memcpy(indices + part->offset, source + runs[r].first, n * sizeof *indices);
        part->offset += n;
    }
    free(where);
    mesh->submesh_count = submesh_count;
    mesh->indices = indices;
    mesh->index_count = (uint32_t)index_count;
    indices = NULL;
    out->materials = materials.data;
    out->material_count = (uint32_t)materials.count;
    materials.data = NULL;
    materials.count = 0;
    ok = true;
    goto fail;
oom:
    out_of_memory(ps);
fail:
    for (size_t i = 0; i < materials.count; i++)
        ir_material_free((ir_material *)materials.data + i);
    vec_free(&materials);
    free(library_names.slots);
    free(parts);
    free(run_part);
    free(indices);
    return ok;
}

static bool build_streams(obj_parser *ps, ir_mesh *mesh) {
    size_t n = ps->keys.count;
    const uint32_t *keys = ps->keys.data;
    mesh->vertex_count = (uint32_t)n;
    mesh->positions = malloc(n * 3 * sizeof(float));
    if (mesh->positions == NULL)
        return out_of_memory(ps);
    /* Normals as the faces have them: the vertices of lines and points (which
     * rarely have a vn) must not cost the faces theirs; without faces, as
     * every vertex has them. */
    uint8_t *on_face = ps->faces > 0 ? calloc(n ? n : 1, 1) : NULL;
    if (ps->faces > 0 && on_face == NULL)
        return out_of_memory(ps);
    for (uint32_t s = 0; on_face != NULL && s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        for (uint32_t i = 0; sub->topology == KILN_TOPOLOGY_TRIANGLES && i < sub->index_count; i++)
            on_face[mesh->indices[sub->index_offset + i]] = 1;
    }
    bool any_uv = false, all_normals = true, any_normal = false;
    for (size_t v = 0; v < n; v++) {
        memcpy(mesh->positions + 3 * v, (const float *)ps->positions.data + 3 * (size_t)keys[3 * v],
               3 * sizeof(float));
        any_uv |= keys[3 * v + 1] != OBJ_NONE;
        bool counts = on_face == NULL || on_face[v];
        all_normals &= keys[3 * v + 2] != OBJ_NONE || !counts;
        any_normal |= keys[3 * v + 2] != OBJ_NONE && counts;
    }
    free(on_face);
    all_normals &= any_normal || n == 0;
    if (any_uv) {
        float *uv = mesh->texcoords[0] = malloc(n * 2 * sizeof(float));
        if (uv == NULL)
            return out_of_memory(ps);
        const float *pool = ps->texcoords.data;
        for (size_t v = 0; v < n; v++) {
            uint32_t t = keys[3 * v + 1];
            uv[2 * v + 0] = t == OBJ_NONE ? 0.0f : pool[2 * (size_t)t];
            uv[2 * v + 1] = t == OBJ_NONE ? 0.0f : 1.0f - pool[2 * (size_t)t + 1];
        }
    }
    if (any_normal && !all_normals)
        diag_warning(ps->ctx->diag, ps->path, 0,
                     "some face corners have no normal; normals are generated for the whole "
                     "mesh");
    if (all_normals) {
        float *normals = mesh->normals = malloc(n * 3 * sizeof(float));
        if (normals == NULL)
            return out_of_memory(ps);
        const float *pool = ps->normals.data;
        uint8_t *bad = NULL;
        size_t unusable = 0;
        for (size_t v = 0; v < n; v++) {
            if (keys[3 * v + 2] == OBJ_NONE) { /* only lines or points use it */
                normals[3 * v] = normals[3 * v + 1] = 0.0f;
                normals[3 * v + 2] = 1.0f;
                continue;
            }
            const float *src = pool + 3 * (size_t)keys[3 * v + 2];
            double length =
                sqrt((double)src[0] * src[0] + (double)src[1] * src[1] + (double)src[2] * src[2]);
            bool usable = length > 0.0 && isfinite(length);
            for (int k = 0; k < 3; k++)
                normals[3 * v + k] = usable ? (float)(src[k] / length) : 0.0f;
            if (!usable && bad == NULL && (bad = calloc(n, 1)) == NULL)
                return out_of_memory(ps);
            if (!usable)
                bad[v] = 1;
            unusable += !usable;
        }
        if (unusable > 0) {
            diag_warning(ps->ctx->diag, ps->path, 0,
                         "%zu vertex normal%s zero or not a finite number; replaced by the "
                         "normal of the faces around them",
                         unusable, unusable == 1 ? " is" : "s are");
            geometry_repair_normals(mesh, bad);
        }
        free(bad);
    }
    if (ps->colors.count > 0) {
        float *colors = mesh->colors = malloc(n * 4 * sizeof(float));
        if (colors == NULL)
            return out_of_memory(ps);
        for (size_t v = 0; v < n; v++)
            memcpy(colors + 4 * v, (const float *)ps->colors.data + 4 * (size_t)keys[3 * v],
                   4 * sizeof(float));
    }
    return true;
}

static char *stem_of(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    size_t length = (dot && dot != name) ? (size_t)(dot - name) : strlen(name);
    char *stem = malloc(length + 1);
    if (stem != NULL) {
        memcpy(stem, name, length);
        stem[length] = '\0';
    }
    return stem;
}

/* A file of vertices alone (a scan's export) is a point cloud: each finite
 * position once, in file order, with the default material. */
static bool vertices_as_points(obj_parser *ps) {
    const uint8_t *bad = ps->bad.count > 0 ? ps->bad.data : NULL;
    ps->usage = 0;
    for (size_t v = 0; v < ps->positions.count; v++) {
        if (bad != NULL && bad[v])
            continue;
        uint32_t key[3] = {(uint32_t)v, OBJ_NONE, OBJ_NONE}, id;
        uint32_t *out;
        if (!vertex_id(ps, key, &id) || !start_run(ps, KILN_TOPOLOGY_POINTS))
            return false;
        if ((out = vec_push(&ps->indices, sizeof(uint32_t), 1)) == NULL)
            return out_of_memory(ps);
        *out = id;
    }
    ps->elements = ps->indices.count > 0;
    if (ps->elements)
        diag_note(ps->ctx->diag, ps->path, 0,
                  "no faces, lines or points: its %zu vertices are cooked as a point cloud",
                  ps->indices.count);
    return true;
}

static bool finish(obj_parser *ps, ir_asset *out) {
    if (ps->faces == 0 && ps->elements == 0) {
        if (ps->dropped_faces > 0 || ps->dropped_elements > 0) {
            diag_error(ps->ctx->diag, ps->path,
                       ps->dropped_faces > 0 ? ps->dropped_line : ps->dropped_element_line,
                       "every face, line and point uses a vertex whose position is not a finite "
                       "number; nothing to cook");
            return false;
        }
        if (!vertices_as_points(ps))
            return false;
        if (ps->elements == 0) {
            diag_error(ps->ctx->diag, ps->path, 0, "%s",
                       ps->positions.count > 0
                           ? "no vertex position is a finite number; nothing to cook"
                           : "no geometry: the file has no vertices and no 'f', 'l' or 'p' "
                             "statements");
            return false;
        }
    }
    if (ps->dropped_faces > 0)
        diag_warning(ps->ctx->diag, ps->path, ps->dropped_line,
                     "%u face%s dropped: they use vertices whose position is not a finite number",
                     ps->dropped_faces, ps->dropped_faces == 1 ? "" : "s");
    if (ps->dropped_elements > 0)
        diag_warning(ps->ctx->diag, ps->path, ps->dropped_element_line,
                     "%u point%s or line segment%s dropped: they use vertices whose position is "
                     "not a finite number",
                     ps->dropped_elements, ps->dropped_elements == 1 ? "" : "s",
                     ps->dropped_elements == 1 ? "" : "s");

    ir_mesh *mesh = calloc(1, sizeof *mesh);
    if (mesh == NULL)
        return out_of_memory(ps);
    out->meshes = mesh;
    out->mesh_count = 1;
    mesh->name = ps->mesh_name ? ps->mesh_name : stem_of(ps->path);
    ps->mesh_name = NULL;
    if (mesh->name == NULL)
        return out_of_memory(ps);
    return build_materials(ps, out, mesh) && build_streams(ps, mesh);
}

static void parser_free(obj_parser *ps) {
    obj_vec *vecs[] = {&ps->positions, &ps->colors,  &ps->bad,        &ps->texcoords,
                       &ps->normals,   &ps->corners, &ps->corner_xyz, &ps->corner_tri,
                       &ps->corner_id, &ps->scratch, &ps->keys,       &ps->indices,
                       &ps->runs};
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
        vec_free(vecs[i]);
    for (size_t i = 0; i < ps->usages.count; i++)
        free(((obj_usage *)ps->usages.data)[i].name);
    vec_free(&ps->usages);
    free(ps->usage_names.slots);
    free(ps->table);
    for (uint32_t i = 0; i < ps->library_count; i++)
        ir_material_free(&ps->library[i]);
    free(ps->library);
    ir_images_free(ps->images, ps->image_count);
    strlist_free(&ps->mtllibs);
    strlist_free(&ps->unknown);
    strlist_free(&ps->part_names);
    free(ps->part_table.slots);
    free(ps->mesh_name);
}

bool import_obj(cook_context *ctx, ir_asset *out) {
    memset(out, 0, sizeof *out);
    obj_parser ps = {0};
    ps.ctx = ctx;
    ps.path = ctx->source_path;
    ps.begin = ps.p = ctx->source ? ctx->source : (const uint8_t *)"";
    ps.end = ps.p + (ctx->source ? ctx->source_size : 0);
    ps.line = 1;
    cook_text_trim(&ps.p, &ps.end);

    obj_usage *none = vec_push(&ps.usages, sizeof(obj_usage), 1);
    bool ok = none != NULL || out_of_memory(&ps);
    if (ok)
        *none = (obj_usage){NULL, 0, OBJ_NONE};
    while (ok && ps.p < ps.end) {
        skip_blanks(&ps);
        if (ps.p >= ps.end)
            break;
        unsigned char c = *ps.p;
        if (c == '\n') {
            ps.p++;
            ps.line++;
        } else if (c == '#') {
            ok = skip_line(&ps, false);
        } else {
            ok = parse_statement(&ps);
        }
    }
    if (ok)
        ok = finish(&ps, out);
    if (ok) {
        out->images = ps.images;
        out->image_count = ps.image_count;
        ps.images = NULL;
        ps.image_count = 0;
    }
    parser_free(&ps);
    if (!ok)
        ir_asset_free(out);
    return ok;
}
