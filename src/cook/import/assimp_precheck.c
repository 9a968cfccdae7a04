/*
 * assimp_precheck.c — cheap checks of a model's bytes before assimp reads
 * them (assimp_precheck, import.h), for the inputs on which Debian 12's
 * assimp 5.2.5 loops forever, crashes or allocates from a header count. The
 * isolated importer's time and memory limits stay the backstop; these checks
 * make the known cases fail at once, with the line and the problem, instead
 * of after import.timeout. Each refuses only what is malformed by its
 * format's own rules. docs/reliability.md lists the inputs behind each.
 *
 * PLY (the first bytes "ply", any case, as assimp's magic test)
 *   The header is the lines up to a well-formed `end_header` line (blanks
 *   around the word allowed, then a line end or the end of the file), within
 *   its first PLY_MAX_HEADER bytes. assimp's header parser loops forever on
 *   a header that never reaches such a line (it re-reads the last line at the
 *   end of its buffer): a file cut before `end_header`, `end_header` followed
 *   by another byte, a mangled `end_header`. A header is text: a control byte
 *   other than a tab (or the CR of a CRLF) is refused, since assimp ends its
 *   lines at NUL, CR and form feed too and then skips to the next LF, so it
 *   would not see the lines kiln sees. `format` must be one of the three
 *   formats; `element NAME COUNT` must have its count. Every other line
 *   starts with `comment`, `obj_info`, `property` or `end_header` (or is
 *   blank): assimp skips a line with another keyword, so a mangled
 *   `property` line silently drops its property and the data is misread
 *   (assimp's triangulation then aborts on the faces).
 *   Counts: the elements together are at most the file's size (assimp
 *   allocates from them before reading data); in ASCII every value of an
 *   element needs at least a byte after the header; in binary every property
 *   type must be one of PLY's (an unknown type has no size: assimp's
 *   triangulation then aborts on the faces it misreads), and the data after
 *   the header is walked element by element (lists by their counts) and must
 *   hold every element the header declares (assimp's binary reader reads
 *   past the end of a cut file). Bytes after the last element are allowed.
 *
 * OFF ([ST][C][N][4][n]OFF)
 *   The vertex, face and edge counts are each at most the file's size.
 *
 * AC3D (the first bytes "AC3D")
 *   Lines and keywords are found as assimp finds them (ac3d_keyword: lines
 *   end at LF, CR, form feed or NUL; a number may follow on the next line;
 *   `data` text is read for keywords too, as assimp reads it).
 *   `numvert`, `numsurf`, `refs` and `kids` counts are at most the bytes left
 *   after their number (each item is at least a line): assimp reserves arrays
 *   from them (`kids 300000000` asks for 64 GB) or loops once per count over
 *   the end of the file (`numsurf 300000000`: minutes).
 *   `subdiv N` makes assimp subdivide the object's faces N times
 *   (Catmull-Clark: a face of n corners becomes n quads, then each level
 *   quadruples them), so an object of C face corners becomes C * 4^(N-1)
 *   faces; a reference is a corner of a polygon, 2 of a line's segments, 3 of
 *   a triangle strip's triangles. The file's objects together may become at
 *   most AC3D_MAX_SUBDIVIDED_FACES faces: an object that would pass it is
 *   subdivided fewer times, with a warning, its `subdiv` numbers rewritten
 *   in a copy of the bytes that assimp reads instead. Why 2^16: assimp's
 *   subdivision and the cook of its result take about 13-15 us and 1 KiB a
 *   face in a release build (assimp's own sample_subdiv.ac, 144 corners:
 *   subdiv 4, 5, 6 = 9 k, 37 k, 147 k faces took 0.17, 0.47, 2.2 s and 16,
 *   39, 130 MB for the whole `kiln build`), so 65,536 faces is about a
 *   second and 70 MB whatever the file's size; a bigger smooth mesh is
 *   subdivided in the modeller and saved as faces.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "cook/import/import.h"

#define PLY_MAX_HEADER ((size_t)64 << 10)
#define PLY_MAX_PROPERTIES 4096u
#define AC3D_MAX_SUBDIVIDED_FACES ((uint64_t)1 << 16)

/* ---------------------------------------------------------------------------
 * Lines and words
 * ------------------------------------------------------------------------- */

static bool is_blank(char c) {
    return c == ' ' || c == '\t';
}

static const char *line_end(const char *p, const char *end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl : end;
}

/* The next word of [*p, stop): its start and length; *p past it. */
static size_t next_word(const char **p, const char *stop, const char **word) {
    const char *q = *p;
    while (q < stop && (is_blank(*q) || *q == '\r'))
        q++;
    *word = q;
    while (q < stop && !is_blank(*q) && *q != '\r')
        q++;
    *p = q;
    return (size_t)(q - *word);
}

static bool word_is(const char *word, size_t length, const char *text) {
    return length == strlen(text) && memcmp(word, text, length) == 0;
}

/* An unsigned decimal word; saturates at UINT64_MAX. false when the word is
 * not all digits. */
static bool word_count(const char *word, size_t length, uint64_t *out) {
    if (length == 0)
        return false;
    uint64_t value = 0;
    for (size_t i = 0; i < length; i++) {
        if (word[i] < '0' || word[i] > '9')
            return false;
        value = value > (UINT64_MAX - 9) / 10 ? UINT64_MAX : value * 10 + (uint64_t)(word[i] - '0');
    }
    *out = value;
    return true;
}

static uint64_t add_sat(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t mul_sat(uint64_t a, uint64_t b) {
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* A word for a message: at most 32 bytes, printable. */
static void quote_word(char *out, size_t cap, const char *word, size_t length) {
    size_t n = 0;
    for (size_t i = 0; i < length && n + 5 < cap && i < 32; i++) {
        unsigned char c = (unsigned char)word[i];
        if (c < 0x20 || c >= 0x7f)
            n += (size_t)snprintf(out + n, cap - n, "\\x%02x", c);
        else
            out[n++] = (char)c;
    }
    if (length > 32 && n + 4 < cap) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
}

/* ---------------------------------------------------------------------------
 * PLY
 * ------------------------------------------------------------------------- */

enum { PLY_ASCII, PLY_BINARY_LE, PLY_BINARY_BE };

typedef struct ply_property {
    uint8_t size;       /* of the value, or of a list's items */
    uint8_t count_size; /* a list's count; 0: not a list */
    bool count_signed;
} ply_property;

typedef struct ply_element {
    char name[160];
    uint64_t count;
    uint32_t line;
    uint32_t first, properties; /* into ply_check.props */
    bool has_list;
} ply_element;

typedef struct ply_check {
    const char *path;
    cook_diag *diag;
    ply_element *elements;
    uint32_t element_count;
    size_t element_cap;
    ply_property props[PLY_MAX_PROPERTIES];
    uint32_t prop_count;
} ply_check;

/* PLY's types (and their sized names): the size in bytes, 0 when unknown. */
static uint8_t ply_type_size(const char *word, size_t length, bool *is_integer, bool *is_signed) {
    static const struct {
        const char *name;
        uint8_t size;
        bool integer, is_signed;
    } types[] = {
        {"char", 1, true, true},     {"int8", 1, true, true},     {"uchar", 1, true, false},
        {"uint8", 1, true, false},   {"short", 2, true, true},    {"int16", 2, true, true},
        {"ushort", 2, true, false},  {"uint16", 2, true, false},  {"int", 4, true, true},
        {"int32", 4, true, true},    {"uint", 4, true, false},    {"uint32", 4, true, false},
        {"float", 4, false, true},   {"float32", 4, false, true}, {"double", 8, false, true},
        {"float64", 8, false, true},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (word_is(word, length, types[i].name)) {
            *is_integer = types[i].integer;
            *is_signed = types[i].is_signed;
            return types[i].size;
        }
    return 0;
}

static bool ply_fail(ply_check *c, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool ply_fail(ply_check *c, uint32_t line, const char *fmt, ...) {
    char text[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    diag_error(c->diag, c->path, line, "bad PLY header: %s", text);
    return false;
}

/* A property line (after the word "property"); the element it belongs to is
 * the last one. Types are checked only for binary files. */
static bool ply_property_line(ply_check *c, const char *p, const char *stop, uint32_t line,
                              int format) {
    const char *word;
    size_t length = next_word(&p, stop, &word);
    if (c->element_count == 0)
        return ply_fail(c, line, "a property before any element");
    if (format == PLY_ASCII) { /* counted (each value takes a byte), not sized */
        c->elements[c->element_count - 1].properties++;
        return true;
    }
    ply_property prop = {0};
    bool integer, is_signed;
    char shown[160];
    if (word_is(word, length, "list")) {
        length = next_word(&p, stop, &word);
        prop.count_size = ply_type_size(word, length, &integer, &is_signed);
        prop.count_signed = is_signed;
        if (prop.count_size == 0 || !integer) {
            quote_word(shown, sizeof shown, word, length);
            return ply_fail(c, line, "a list's count type '%s' is not one of PLY's integer types",
                            shown);
        }
        length = next_word(&p, stop, &word);
    }
    prop.size = ply_type_size(word, length, &integer, &is_signed);
    if (prop.size == 0) {
        quote_word(shown, sizeof shown, word, length);
        return ply_fail(c, line,
                        "property type '%s' is not one of PLY's (char uchar short ushort int uint "
                        "float double, or int8 ... float64), so the binary data's layout is "
                        "unknown",
                        shown);
    }
    if (c->prop_count == PLY_MAX_PROPERTIES)
        return ply_fail(c, line, "more than %u properties", PLY_MAX_PROPERTIES);
    c->props[c->prop_count++] = prop;
    ply_element *e = &c->elements[c->element_count - 1];
    e->properties++;
    e->has_list |= prop.count_size != 0;
    return true;
}

static bool ply_element_line(ply_check *c, const char *p, const char *stop, uint32_t line) {
    const char *name, *count_word;
    size_t name_length = next_word(&p, stop, &name);
    size_t count_length = next_word(&p, stop, &count_word);
    uint64_t count;
    char shown[160];
    quote_word(shown, sizeof shown, name, name_length);
    if (name_length == 0)
        return ply_fail(c, line, "an element without a name or count");
    if (!word_count(count_word, count_length, &count))
        return ply_fail(c, line, "element '%s' has no count", shown);
    if (c->element_count == c->element_cap) {
        ply_element *grown = array_grow(c->elements, &c->element_cap, (size_t)c->element_count + 1,
                                        sizeof *grown, 8);
        if (grown == NULL) {
            diag_error(c->diag, c->path, line, "out of memory");
            return false;
        }
        c->elements = grown;
    }
    ply_element *e = &c->elements[c->element_count++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", shown);
    e->count = count;
    e->line = line;
    e->first = c->prop_count;
    return true;
}

static uint64_t read_count(const uint8_t *at, const ply_property *prop, bool big_endian,
                           bool *negative) {
    uint64_t value = 0;
    for (uint8_t i = 0; i < prop->count_size; i++)
        value |= (uint64_t)at[big_endian ? i : prop->count_size - 1 - i]
                 << (8 * (prop->count_size - 1 - i));
    *negative = false;
    if (prop->count_signed && (value >> (8 * prop->count_size - 1)) != 0)
        *negative = true;
    return value;
}

/* Walks the binary data [data, data + size) element by element. */
static bool ply_walk_binary(ply_check *c, const uint8_t *data, uint64_t size, bool big_endian) {
    uint64_t pos = 0;
    for (uint32_t k = 0; k < c->element_count; k++) {
        const ply_element *e = &c->elements[k];
        const ply_property *props = &c->props[e->first];
        if (!e->has_list) {
            uint64_t each = 0;
            for (uint32_t j = 0; j < e->properties; j++)
                each += props[j].size;
            uint64_t need = mul_sat(e->count, each);
            if (need > size - pos)
                return ply_fail(c, e->line,
                                "element '%s' declares %llu elements of %llu bytes, but %llu "
                                "bytes of binary data are left for them (the file is cut short "
                                "or the counts are wrong)",
                                e->name, (unsigned long long)e->count, (unsigned long long)each,
                                (unsigned long long)(size - pos));
            pos += need;
            continue;
        }
        for (uint64_t i = 0; i < e->count; i++) {
            for (uint32_t j = 0; j < e->properties; j++) {
                const ply_property *prop = &props[j];
                uint64_t need = prop->count_size ? prop->count_size : prop->size;
                if (need <= size - pos && prop->count_size != 0) {
                    bool negative;
                    uint64_t n = read_count(data + pos, prop, big_endian, &negative);
                    if (negative)
                        return ply_fail(c, e->line,
                                        "element '%s' %llu has a list of a negative length",
                                        e->name, (unsigned long long)i);
                    need = add_sat(need, mul_sat(n, prop->size));
                }
                if (need > size - pos)
                    return ply_fail(c, e->line,
                                    "the binary data ends inside element '%s' %llu of the %llu "
                                    "declared (the file is cut short or the counts are wrong)",
                                    e->name, (unsigned long long)i, (unsigned long long)e->count);
                pos += need;
            }
        }
    }
    return true;
}

static bool check_ply(const uint8_t *bytes, size_t size, const char *path, cook_diag *diag) {
    const char *begin = (const char *)bytes, *end = begin + size;
    const char *limit = size > PLY_MAX_HEADER ? begin + PLY_MAX_HEADER : end;
    ply_check *c = calloc(1, sizeof *c);
    if (c == NULL) {
        diag_error(diag, path, 0, "out of memory");
        return false;
    }
    c->path = path;
    c->diag = diag;
    int format = -1;
    uint32_t line = 0;
    const char *data = NULL;
    bool ok = true;
    for (const char *p = begin; ok && data == NULL && p < end;) {
        line++;
        const char *stop = line_end(p, end), *next = stop < end ? stop + 1 : end;
        if (size > PLY_MAX_HEADER && stop >= limit) {
            ok = ply_fail(c, line,
                          "no 'end_header' line in its first %zu KiB (a PLY header is a few "
                          "lines of text)",
                          PLY_MAX_HEADER >> 10);
            break;
        }
        const char *text_end = stop > p && stop < end && stop[-1] == '\r' ? stop - 1 : stop;
        for (const char *q = p; q < text_end; q++) {
            unsigned char b = (unsigned char)*q;
            if ((b < 0x20 && b != '\t') || b == 0x7f) {
                ok = ply_fail(c, line,
                              "byte 0x%02x in the header, which is text (before any "
                              "'end_header' line)",
                              b);
                break;
            }
        }
        if (!ok)
            break;
        const char *cursor = p, *word;
        size_t length = next_word(&cursor, text_end, &word);
        if (line == 1) {
            if (length != 3)
                ok = ply_fail(c, line, "the first line is not 'ply'");
        } else if (word_is(word, length, "end_header")) {
            const char *rest;
            if (next_word(&cursor, text_end, &rest) != 0)
                ok = ply_fail(c, line, "text after 'end_header' on its line");
            data = next;
        } else if (length > 10 && memcmp(word, "end_header", 10) == 0) {
            char shown[160];
            quote_word(shown, sizeof shown, word, length);
            ok = ply_fail(c, line, "'%s' is not an 'end_header' line", shown);
        } else if (word_is(word, length, "format") && format < 0) {
            length = next_word(&cursor, text_end, &word);
            if (word_is(word, length, "ascii")) {
                format = PLY_ASCII;
            } else if (word_is(word, length, "binary_little_endian")) {
                format = PLY_BINARY_LE;
            } else if (word_is(word, length, "binary_big_endian")) {
                format = PLY_BINARY_BE;
            } else {
                char shown[160];
                quote_word(shown, sizeof shown, word, length);
                ok = ply_fail(c, line,
                              "format '%s' is not ascii, binary_little_endian or "
                              "binary_big_endian",
                              shown);
            }
        } else if (word_is(word, length, "element")) {
            ok = format >= 0 ? ply_element_line(c, cursor, text_end, line)
                             : ply_fail(c, line, "an element before the 'format' line");
        } else if (word_is(word, length, "property")) {
            ok = ply_property_line(c, cursor, text_end, line, format);
        } else if (length > 0 && !word_is(word, length, "format") &&
                   !word_is(word, length, "comment") && !word_is(word, length, "obj_info")) {
            /* assimp skips such a line: a mangled `property` loses its
             * property, and the data is then misread. */
            char shown[160];
            quote_word(shown, sizeof shown, word, length);
            ok = ply_fail(c, line,
                          "'%s' is not a header keyword (format, element, property, comment, "
                          "obj_info or end_header)",
                          shown);
        }
        p = next;
    }
    if (ok && data == NULL)
        ok = ply_fail(c, line,
                      "the file ends before an 'end_header' line (a PLY header must end with "
                      "one)");
    if (ok && format < 0)
        ok = ply_fail(c, line, "no 'format' line before 'end_header'");
    uint64_t left = ok ? (uint64_t)(end - data) : 0, total = 0, values = 0;
    for (uint32_t k = 0; ok && k < c->element_count; k++) {
        const ply_element *e = &c->elements[k];
        total = add_sat(total, e->count);
        if (total > size)
            ok = ply_fail(c, e->line,
                          "its elements number more than the file has bytes (%zu): assimp would "
                          "allocate them before reading any",
                          size);
        values = add_sat(values, mul_sat(e->count, e->properties));
    }
    if (ok && format == PLY_ASCII && values > left)
        ok = ply_fail(c, line,
                      "its elements hold %llu values, but %llu bytes follow the header (every "
                      "value takes at least one)",
                      (unsigned long long)values, (unsigned long long)left);
    if (ok && format != PLY_ASCII)
        ok = ply_walk_binary(c, (const uint8_t *)data, left, format == PLY_BINARY_BE);
    free(c->elements);
    free(c);
    return ok;
}

/* ---------------------------------------------------------------------------
 * OFF
 * ------------------------------------------------------------------------- */

static bool check_off(const uint8_t *bytes, size_t size, const char *path, cook_diag *diag) {
    const char *begin = (const char *)bytes, *end = begin + size;
    const char *p = begin;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    const char *word = p;
    while (p<end && * p> ' ')
        p++;
    if (p - word < 3 || memcmp(p - 3, "OFF", 3) != 0 || (size_t)(p - word) > 8)
        return true;
    int counts = (p - word >= 4 && p[-4] == 'n') ? 4 : 3; /* nOFF: the dimension first */
    uint32_t line = 1;
    for (const char *q = begin; q < p; q++)
        line += *q == '\n';
    for (int found = 0; found < counts && p < end;) {
        if (*p == '#') {
            p = line_end(p, end);
        } else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
            line += *p == '\n';
            p++;
        } else {
            const char *start = p;
            while (p < end && *p >= '0' && *p <= '9')
                p++;
            uint64_t count;
            if (!word_count(start, (size_t)(p - start), &count))
                break;
            found++;
            if (count > size) {
                diag_error(diag, path, line,
                           "bad OFF header: it declares %llu elements in a file of %zu bytes "
                           "(assimp would allocate them before reading any)",
                           (unsigned long long)count, size);
                return false;
            }
        }
    }
    return true;
}

/* ---------------------------------------------------------------------------
 * AC3D
 * ------------------------------------------------------------------------- */

/* How assimp 5.2's AC3D reader sees the text (its ParsingUtils): a line ends
 * at LF, CR, form feed or NUL; its first word follows spaces and tabs; a
 * keyword matches when the byte after it is a space, a tab, a line end or
 * the end of the file, and its number starts after exactly that byte and any
 * spaces and tabs (so "subdiv\n6" is 6, read from the next line), as decimal
 * digits up to the first other byte. `data N` means nothing to assimp: its
 * text is lines like any other, read for keywords. */
static bool ac3d_line_end(char c) {
    return c == '\n' || c == '\r' || c == '\f' || c == '\0';
}

static bool ac3d_keyword(const char *p, const char *end, const char *keyword) {
    size_t length = strlen(keyword);
    if ((size_t)(end - p) < length || memcmp(p, keyword, length) != 0)
        return false;
    return p + length == end || is_blank(p[length]) || ac3d_line_end(p[length]);
}

/* A keyword's number: where its digits are, how many, their value
 * (saturating; 0 without digits, as assimp reads it). */
typedef struct ac3d_number {
    size_t at, digits;
    uint64_t value;
} ac3d_number;

static ac3d_number ac3d_read_number(const char *begin, const char *p, const char *end) {
    ac3d_number n = {0, 0, 0};
    if (p < end)
        p++; /* the byte after the keyword */
    while (p < end && is_blank(*p))
        p++;
    n.at = (size_t)(p - begin);
    while (p < end && *p >= '0' && *p <= '9') {
        n.value =
            n.value > (UINT64_MAX - 9) / 10 ? UINT64_MAX : n.value * 10 + (uint64_t)(*p - '0');
        n.digits++;
        p++;
    }
    return n;
}

/* A SURF line's type (flags & 0xF; hex with 0x, octal with 0, else decimal,
 * as assimp's strtoul_cppstyle) as the corners its faces give the
 * subdivision per reference: a polygon of n references is one face of n
 * corners, a line n segments of 2, a triangle strip n - 2 triangles of 3. */
static uint64_t ac3d_surface_corners(const char *p, const char *end) {
    p += 4; /* "SURF" */
    if (p < end)
        p++;
    while (p < end && is_blank(*p))
        p++;
    unsigned base = 10;
    if (p < end && *p == '0') {
        base = 8;
        p++;
        if (p < end && (*p | 0x20) == 'x') {
            base = 16;
            p++;
        }
    }
    uint64_t flags = 0;
    for (; p < end; p++) {
        unsigned digit;
        char c = (char)(*p | 0x20);
        if (*p >= '0' && *p <= '9')
            digit = (unsigned)(*p - '0');
        else if (c >= 'a' && c <= 'f')
            digit = (unsigned)(c - 'a') + 10;
        else
            break;
        if (digit >= base)
            break;
        flags = (flags * base + digit) & 0xffffffffu;
    }
    switch (flags & 0xf) {
    case 1: /* closed line */
    case 2: /* open line */
        return 2;
    case 4: /* triangle strip */
        return 3;
    default: /* a polygon; assimp reads an unknown type as one */
        return 1;
    }
}

/* Faces `corners` surface corners make subdivided `levels` times (0: not
 * subdivided, none counted), saturating just past `limit`. */
static uint64_t ac3d_faces(uint64_t corners, uint64_t levels, uint64_t limit) {
    if (levels == 0 || corners == 0)
        return 0;
    uint64_t faces = corners;
    for (uint64_t l = 1; l < levels && faces <= limit; l++)
        faces = mul_sat(faces, 4);
    return faces;
}

/* One object's subdivision so far: its corners, the `subdiv` numbers it
 * holds (assimp keeps the last of an object's, but one after its `kids`
 * line belongs to no object for assimp: every one is bounded), and the line
 * of the largest. */
typedef struct ac3d_object {
    uint64_t corners, corners_per_ref;
    uint64_t levels;
    uint32_t line;
    ac3d_number *subdivs;
    size_t subdiv_count, subdiv_cap;
} ac3d_object;

typedef struct ac3d_scan {
    const char *path;
    cook_diag *diag;
    const uint8_t *bytes;
    size_t size;
    uint8_t *rewritten; /* a copy with lowered subdiv numbers; NULL: none */
    uint64_t faces;     /* subdivided faces of the objects so far */
    uint32_t lowered;   /* objects whose subdivision was lowered */
    bool out_of_memory;
} ac3d_scan;

#define AC3D_MAX_LOWERED_WARNINGS 8u

/* Ends an object: its subdivision within what the file has left of
 * AC3D_MAX_SUBDIVIDED_FACES, lowered (its subdiv numbers rewritten in a copy
 * of the bytes, with a warning) to the most levels that fit. */
static void ac3d_end_object(ac3d_scan *scan, ac3d_object *o) {
    const uint64_t limit = AC3D_MAX_SUBDIVIDED_FACES;
    uint64_t left = limit - scan->faces;
    /* what the file asks for, for the message (past 10^18: "more than") */
    const uint64_t huge = 1000000000000000000ull;
    uint64_t wanted = ac3d_faces(o->corners, o->levels, huge);
    uint64_t levels = o->levels;
    while (levels > 0 && ac3d_faces(o->corners, levels, limit) > left)
        levels = levels > 64 ? 64 : levels - 1;
    uint64_t faces = ac3d_faces(o->corners, levels, limit);
    scan->faces += faces;
    if (levels < o->levels) {
        if (scan->rewritten == NULL) {
            scan->rewritten = malloc(scan->size ? scan->size : 1);
            if (scan->rewritten == NULL) {
                scan->out_of_memory = true;
                return;
            }
            memcpy(scan->rewritten, scan->bytes, scan->size);
        }
        for (size_t i = 0; i < o->subdiv_count; i++) {
            ac3d_number *n = &o->subdivs[i];
            if (n->value <= levels)
                continue;
            char digits[24];
            int length = snprintf(digits, sizeof digits, "%llu", (unsigned long long)levels);
            /* fewer digits than the number had: pad with spaces, which end it */
            memset(scan->rewritten + n->at, ' ', n->digits);
            memcpy(scan->rewritten + n->at, digits, (size_t)length);
        }
        if (scan->lowered++ < AC3D_MAX_LOWERED_WARNINGS) {
            char before[96] = "";
            if (scan->faces != faces)
                snprintf(before, sizeof before, " (%llu with the objects before it)",
                         (unsigned long long)add_sat(scan->faces - faces, wanted));
            diag_warning(scan->diag, scan->path, o->line,
                         "AC3D subdiv %llu: the object's %llu surface corners subdivided %llu "
                         "times would make %s%llu faces%s, over the limit of %llu for a file; "
                         "subdivided %llu time%s instead (%llu faces)",
                         (unsigned long long)o->levels, (unsigned long long)o->corners,
                         (unsigned long long)o->levels, wanted > huge ? "more than " : "",
                         (unsigned long long)(wanted > huge ? huge : wanted), before,
                         (unsigned long long)limit, (unsigned long long)levels,
                         levels == 1 ? "" : "s", (unsigned long long)faces);
        }
    }
    o->corners = 0;
    o->corners_per_ref = 3; /* no SURF line yet: the most a reference can give */
    o->levels = 0;
    o->line = 0;
    o->subdiv_count = 0;
}

static bool ac3d_note_subdiv(ac3d_scan *scan, ac3d_object *o, ac3d_number n, uint32_t line) {
    if (o->subdiv_count == o->subdiv_cap) {
        ac3d_number *grown =
            array_grow(o->subdivs, &o->subdiv_cap, o->subdiv_count + 1, sizeof *grown, 4);
        if (grown == NULL) {
            scan->out_of_memory = true;
            return false;
        }
        o->subdivs = grown;
    }
    o->subdivs[o->subdiv_count++] = n;
    if (n.value > o->levels || o->line == 0) {
        o->levels = n.value > o->levels ? n.value : o->levels;
        o->line = line;
    }
    return true;
}

static bool check_ac3d(const uint8_t *bytes, size_t size, const char *path, cook_diag *diag,
                       uint8_t **rewritten) {
    const char *begin = (const char *)bytes, *end = begin + size;
    ac3d_scan scan = {.path = path, .diag = diag, .bytes = bytes, .size = size};
    ac3d_object object = {.corners_per_ref = 3};
    bool in_object = false, ok = true;
    uint32_t line = 1;
    for (const char *p = begin; ok && p < end;) {
        const char *q = p;
        while (q < end && is_blank(*q))
            q++;
        if (ac3d_keyword(q, end, "OBJECT")) {
            if (in_object)
                ac3d_end_object(&scan, &object);
            in_object = true;
        } else if (ac3d_keyword(q, end, "SURF")) {
            object.corners_per_ref = ac3d_surface_corners(q, end);
        } else {
            static const char *const counted[] = {"subdiv", "numvert", "numsurf", "refs", "kids"};
            for (size_t k = 0; k < sizeof counted / sizeof counted[0]; k++) {
                if (!ac3d_keyword(q, end, counted[k]))
                    continue;
                ac3d_number n = ac3d_read_number(begin, q + strlen(counted[k]), end);
                uint64_t left = size - (n.at + n.digits);
                if (k == 0) {
                    ok = ac3d_note_subdiv(&scan, &object, n, line);
                } else if (n.value > left) {
                    /* assimp reserves that many, or loops once per count */
                    diag_error(diag, path, line,
                               "AC3D %s %llu: more than the %llu bytes left in the file (assimp "
                               "would reserve or read that many before noticing)",
                               counted[k], (unsigned long long)n.value, (unsigned long long)left);
                    ok = false;
                } else if (k == 3) {
                    object.corners =
                        add_sat(object.corners, mul_sat(n.value, object.corners_per_ref));
                }
                break;
            }
        }
        while (q < end && !ac3d_line_end(*q))
            q++;
        if (q < end && *q == '\n')
            line++;
        p = q < end ? q + 1 : end;
    }
    if (ok && in_object)
        ac3d_end_object(&scan, &object);
    free(object.subdivs);
    if (ok && scan.lowered > AC3D_MAX_LOWERED_WARNINGS)
        diag_warning(diag, path, 0, "AC3D: the subdivision of %u more objects was lowered likewise",
                     scan.lowered - AC3D_MAX_LOWERED_WARNINGS);
    if (ok && scan.out_of_memory) {
        diag_error(diag, path, 0, "out of memory");
        ok = false;
    }
    if (!ok) {
        free(scan.rewritten);
        scan.rewritten = NULL;
    }
    *rewritten = scan.rewritten;
    return ok;
}

/* ---------------------------------------------------------------------------
 * Entry point
 * ------------------------------------------------------------------------- */

static bool has_extension(const char *path, const char *ext) {
    const char *dot = strrchr(path, '.');
    if (dot == NULL || strchr(dot, '/') != NULL || strlen(dot + 1) != strlen(ext))
        return false;
    for (size_t i = 0; ext[i] != '\0'; i++)
        if ((dot[1 + i] | 0x20) != ext[i])
            return false;
    return true;
}

bool assimp_precheck(const uint8_t *bytes, size_t size, const char *path, cook_diag *diag,
                     uint8_t **rewritten) {
    *rewritten = NULL;
    /* assimp reads a file as PLY when its first bytes are "ply" in any case
     * (the PLY reader's magic test) and the reader is chosen by the content:
     * an extension no reader claims (or several claim and none takes), or
     * .ply. Whatever follows the letters: "ply\xd0" with no end_header hung
     * it (fifth run's PLY hangs, tenth run). Only a binary STL can start with
     * the letters in its free 80-byte header, and .stl has its own reader. */
    if (size >= 3 && (bytes[0] | 0x20) == 'p' && (bytes[1] | 0x20) == 'l' &&
        (bytes[2] | 0x20) == 'y' && !has_extension(path, "stl"))
        return check_ply(bytes, size, path, diag);
    if (size >= 4 && memcmp(bytes, "AC3D", 4) == 0)
        return check_ac3d(bytes, size, path, diag, rewritten);
    return check_off(bytes, size, path, diag);
}
