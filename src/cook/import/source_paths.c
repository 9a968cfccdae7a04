/*
 * source_paths.c — the paths a source names, with the bytes that spell them
 * (cook.h, cook_source_paths): what `kiln mv` rewrites when a file moves.
 *
 * Each scanner reads its format as the importer does, but only as far as
 * finding the paths: OBJ's mtllib (obj_parse.c, parse_mtllib: names may hold
 * spaces, a name runs to a word ending in ".mtl"), MTL's texture statements
 * (mtl.c, read_texture: options, then the file name, spaces included), a
 * shader's #include "..." (resolved next to the including file first,
 * import/shader_compile.c). glTF is source_paths_gltf.c, levels and
 * standalone materials source_paths_yaml.c. A line continued with a backslash is found but
 * marked fixed: its path may span the break.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ascii.h"
#include "cook/core/named_paths.h"
#include "cook/import/source_paths.h"

static const char *const shader_extensions[] = {
    ".glsl", ".hlsl", ".hlsli", ".vert",  ".frag",  ".comp",  ".geom",  ".tesc", ".tese", ".mesh",
    ".task", ".rgen", ".rint",  ".rahit", ".rchit", ".rmiss", ".rcall", ".vs",   ".ps",   ".cs",
};

static bool is_shader_text(const char *relative) {
    for (size_t i = 0; i < sizeof shader_extensions / sizeof *shader_extensions; i++)
        if (ascii_ends_with_ci(relative, shader_extensions[i]))
            return true;
    return false;
}

bool cook_names_paths(const char *relative) {
    return ascii_ends_with_ci(relative, ".level") || ascii_ends_with_ci(relative, ".mat") ||
           ascii_ends_with_ci(relative, ".obj") || ascii_ends_with_ci(relative, ".mtl") ||
           ascii_ends_with_ci(relative, ".gltf") || ascii_ends_with_ci(relative, ".glb") ||
           is_shader_text(relative);
}

/* ---------------------------------------------------------------------------
 * Line-based formats: OBJ, MTL, shaders
 * ------------------------------------------------------------------------- */

typedef struct text_line {
    size_t start, end; /* without the line break and trailing blanks */
    uint32_t number;
    bool continued; /* ends in a backslash that joins the next line */
} text_line;

static bool is_blank(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* The line at *at; false at the end of the bytes. */
static bool next_line(const uint8_t *bytes, size_t size, size_t *at, uint32_t *number,
                      text_line *line) {
    if (*at >= size)
        return false;
    size_t start = *at, end = start;
    while (end < size && bytes[end] != '\n')
        end++;
    *at = end + 1;
    line->number = ++*number;
    while (end > start && is_blank(bytes[end - 1]))
        end--;
    line->continued = end > start && bytes[end - 1] == '\\';
    while (start < end && is_blank(bytes[start]))
        start++;
    line->start = start;
    line->end = end;
    return true;
}

/* The blank-separated words of [start, end) into words[], at most `max`. */
typedef struct word {
    size_t start, end;
} word;

static size_t split_words(const uint8_t *bytes, size_t start, size_t end, word *words, size_t max) {
    size_t count = 0;
    for (size_t i = start; i < end && count < max;) {
        while (i < end && is_blank(bytes[i]))
            i++;
        if (i == end)
            break;
        words[count].start = i;
        while (i < end && !is_blank(bytes[i]))
            i++;
        words[count++].end = i;
    }
    return count;
}

static bool word_is(const uint8_t *bytes, const word *w, const char *name) {
    return ascii_is_word_ci((const char *)bytes + w->start, w->end - w->start, name);
}

#define MAX_WORDS 256u

static bool add_text_path(cook_named_paths *out, const uint8_t *bytes, size_t start, size_t end,
                          const text_line *line, const char *what) {
    if (!cook_named_paths_add(out, (const char *)bytes + start, end - start, start, end,
                              line->number, COOK_PATH_TEXT, what))
        return false;
    out->items[out->count - 1].fixed = line->continued;
    return true;
}

/* mtllib a.mtl b c.mtl: "a.mtl" and "b c.mtl". */
static bool obj_line(const uint8_t *bytes, const text_line *line, word *words,
                     cook_named_paths *out) {
    size_t count = split_words(bytes, line->start, line->end, words, MAX_WORDS);
    if (count < 2 || !word_is(bytes, &words[0], "mtllib"))
        return true;
    size_t first = 0;
    for (size_t i = 1; i < count; i++) {
        if (first == 0)
            first = i;
        size_t length = words[i].end - words[i].start;
        bool ends_mtl =
            length >= 4 && ascii_is_word_ci((const char *)bytes + words[i].end - 4, 4, ".mtl");
        if ((ends_mtl || i + 1 == count) &&
            !add_text_path(out, bytes, words[first].start, words[i].end, line, "mtllib"))
            return false;
        if (ends_mtl || i + 1 == count)
            first = 0;
    }
    return true;
}

/* The MTL statements that name an image: every map_*, and the bare names. */
static bool mtl_names_image(const uint8_t *bytes, const word *keyword) {
    static const char *const bare[] = {"bump", "norm", "disp", "decal", "refl"};
    if (keyword->end - keyword->start > 4 &&
        ascii_equal_n_ci((const char *)bytes + keyword->start, "map_", 4))
        return true;
    for (size_t i = 0; i < sizeof bare / sizeof *bare; i++)
        if (word_is(bytes, keyword, bare[i]))
            return true;
    return false;
}

/* mtl.c's texture options and how many words follow each (negative: up to
 * that many numbers). */
static int mtl_option_values(const uint8_t *bytes, const word *w) {
    static const struct {
        const char *name;
        int values;
    } options[] = {
        {"-blendu", 1},  {"-blendv", 1}, {"-boost", 1}, {"-cc", 1}, {"-clamp", 1},
        {"-imfchan", 1}, {"-texres", 1}, {"-type", 1},  {"-bm", 1}, {"-mm", 2},
        {"-o", -3},      {"-s", -3},     {"-t", -3},
    };
    for (size_t i = 0; i < sizeof options / sizeof *options; i++)
        if (word_is(bytes, w, options[i].name))
            return options[i].values;
    return 0;
}

static bool is_number(const uint8_t *bytes, const word *w) {
    char text[64];
    size_t length = w->end - w->start;
    if (length == 0 || length >= sizeof text)
        return false;
    memcpy(text, bytes + w->start, length);
    text[length] = '\0';
    char *end = NULL;
    strtod(text, &end);
    return end == text + length;
}

/* map_Kd -s 1 1 1 textures/crate base.png: "textures/crate base.png". */
static bool mtl_line(const uint8_t *bytes, const text_line *line, word *words,
                     cook_named_paths *out) {
    size_t count = split_words(bytes, line->start, line->end, words, MAX_WORDS);
    if (count < 2 || !mtl_names_image(bytes, &words[0]))
        return true;
    size_t first = 0, last = 0;
    for (size_t i = 1; i < count;) {
        int values = bytes[words[i].start] == '-' ? mtl_option_values(bytes, &words[i]) : 0;
        bool option = values != 0;
        if (!option && bytes[words[i].start] == '-' && words[i].end - words[i].start > 1 &&
            first == 0) {
            i++; /* an unknown option, which mtl.c skips */
            continue;
        }
        if (!option) {
            if (first == 0)
                first = i;
            if (first != 0 && (last == 0 || last + 1 == i))
                last = i;
            i++;
            continue;
        }
        i++;
        for (int k = 0; k < (values > 0 ? values : -values) && i < count; k++) {
            if (values < 0 && !is_number(bytes, &words[i]))
                break;
            i++;
        }
        if (first != 0)
            break; /* the name is done */
    }
    if (first == 0)
        return true;
    char what[64];
    snprintf(what, sizeof what, "%.*s", (int)(words[0].end - words[0].start),
             (const char *)bytes + words[0].start);
    return add_text_path(out, bytes, words[first].start, words[last].end, line, what);
}

/* #include "common/lighting.glsl" */
static bool shader_line(const uint8_t *bytes, const text_line *line, cook_named_paths *out) {
    size_t i = line->start;
    if (i >= line->end || bytes[i] != '#')
        return true;
    for (i++; i < line->end && is_blank(bytes[i]); i++)
        ;
    if (line->end - i < 7 || memcmp(bytes + i, "include", 7) != 0)
        return true;
    for (i += 7; i < line->end && is_blank(bytes[i]); i++)
        ;
    if (i >= line->end || bytes[i] != '"')
        return true;
    size_t start = ++i;
    while (i < line->end && bytes[i] != '"')
        i++;
    if (i >= line->end || i == start)
        return true;
    return add_text_path(out, bytes, start, i, line, "#include");
}

static bool scan_lines(const char *relative, const uint8_t *bytes, size_t size,
                       cook_named_paths *out) {
    bool obj = ascii_ends_with_ci(relative, ".obj"), mtl = ascii_ends_with_ci(relative, ".mtl");
    word *words = malloc(MAX_WORDS * sizeof *words);
    if (words == NULL)
        return false;
    bool ok = true;
    size_t at = 0;
    uint32_t number = 0;
    text_line line;
    while (ok && next_line(bytes, size, &at, &number, &line))
        ok = obj   ? obj_line(bytes, &line, words, out)
             : mtl ? mtl_line(bytes, &line, words, out)
                   : shader_line(bytes, &line, out);
    free(words);
    return ok;
}

/* ---------------------------------------------------------------------------
 * Entry points
 * ------------------------------------------------------------------------- */

bool cook_source_paths(const char *relative, const uint8_t *bytes, size_t size,
                       cook_named_paths *out, char *reason, size_t reason_size) {
    *out = (cook_named_paths){0};
    bool ok;
    if (ascii_ends_with_ci(relative, ".level"))
        return source_paths_level(relative, bytes, size, out, reason, reason_size);
    if (ascii_ends_with_ci(relative, ".mat"))
        return source_paths_mat(relative, bytes, size, out, reason, reason_size);
    if (ascii_ends_with_ci(relative, ".gltf") || ascii_ends_with_ci(relative, ".glb"))
        return source_paths_gltf(relative, bytes, size, out, reason, reason_size);
    ok = cook_names_paths(relative) ? scan_lines(relative, bytes, size, out) : true;
    if (!ok) {
        snprintf(reason, reason_size, "out of memory");
        cook_named_paths_free(out);
    }
    return ok;
}
