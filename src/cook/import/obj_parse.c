/*
 * obj_parse.c — the OBJ importer's statements (obj_internal.h): v, vt and vn
 * into the attribute pools, usemtl and mtllib (through import_mtl), o and g
 * names, unknown keywords; one statement at a time (obj_parse_statement).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/import/obj_internal.h"

static bool parse_position(obj_parser *ps) {
    double v[6];
    int n = 0;
    if (!obj_read_numbers(ps, "v", v, 6, &n))
        return false;
    if (n != 3 && n != 4 && n != 6)
        return obj_syntax_error(ps, "'v' needs x y z, x y z w or x y z r g b; found %d value%s", n,
                                n == 1 ? "" : "s");
    if (ps->positions.count >= OBJ_MAX_ELEMENTS)
        return obj_syntax_error(ps, "more than %u vertex positions", OBJ_MAX_ELEMENTS);
    float *position = obj_vec_push(&ps->positions, 3 * sizeof(float), 1);
    if (position == NULL)
        return obj_out_of_memory(ps);
    bool finite = true;
    for (int k = 0; k < 3; k++) {
        position[k] = obj_to_float(v[k]);
        finite &= isfinite(position[k]) != 0;
    }
    if (!finite || ps->bad.count > 0) {
        size_t earlier = ps->positions.count - 1;
        if (ps->bad.count == 0 && earlier > 0) {
            uint8_t *flags = obj_vec_push(&ps->bad, 1, earlier);
            if (flags == NULL)
                return obj_out_of_memory(ps);
            memset(flags, 0, earlier);
        }
        uint8_t *flag = obj_vec_push(&ps->bad, 1, 1);
        if (flag == NULL)
            return obj_out_of_memory(ps);
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
            float *white = obj_vec_push(&ps->colors, 4 * sizeof(float), earlier);
            if (white == NULL)
                return obj_out_of_memory(ps);
            for (size_t i = 0; i < 4 * earlier; i++)
                white[i] = 1.0f;
        }
        float *color = obj_vec_push(&ps->colors, 4 * sizeof(float), 1);
        if (color == NULL)
            return obj_out_of_memory(ps);
        for (int k = 0; k < 4; k++)
            color[k] = 1.0f;
        for (int k = 0; n == 6 && k < 3; k++) {
            float c = obj_to_float(v[3 + k]);
            color[k] = isfinite(c) ? c : 0.0f;
        }
    }
    return true;
}

static bool parse_texcoord(obj_parser *ps) {
    double v[3] = {0.0, 0.0, 0.0};
    int n = 0;
    if (!obj_read_numbers(ps, "vt", v, 3, &n))
        return false;
    if (n == 0)
        return obj_syntax_error(ps, "'vt' needs at least one value");
    if (ps->texcoords.count >= OBJ_MAX_ELEMENTS)
        return obj_syntax_error(ps, "more than %u texture coordinates", OBJ_MAX_ELEMENTS);
    float *uv = obj_vec_push(&ps->texcoords, 2 * sizeof(float), 1);
    if (uv == NULL)
        return obj_out_of_memory(ps);
    for (int k = 0; k < 2; k++) {
        uv[k] = obj_to_float(v[k]);
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
    if (!obj_read_numbers(ps, "vn", v, 3, &n))
        return false;
    if (n != 3)
        return obj_syntax_error(ps, "'vn' needs x y z; found %d value%s", n, n == 1 ? "" : "s");
    if (ps->normals.count >= OBJ_MAX_ELEMENTS)
        return obj_syntax_error(ps, "more than %u normals", OBJ_MAX_ELEMENTS);
    float *normal = obj_vec_push(&ps->normals, 3 * sizeof(float), 1);
    if (normal == NULL)
        return obj_out_of_memory(ps);
    for (int k = 0; k < 3; k++)
        normal[k] = obj_to_float(v[k]); /* non-finite ones are caught where used */
    return true;
}

static bool parse_usemtl(obj_parser *ps) {
    uint32_t line = ps->line;
    const char *name;
    size_t length;
    if (!obj_read_rest(ps, &name, &length))
        return false;
    if (length == 0) {
        ps->usage = 0;
        return true;
    }
    uint32_t id = obj_name_find(&ps->usage_names, name, length);
    if (id == OBJ_NONE) {
        if (ps->usages.count >= OBJ_MAX_ELEMENTS)
            return obj_syntax_error(ps, "too many material names");
        obj_usage *usage = obj_vec_push(&ps->usages, sizeof(obj_usage), 1);
        if (usage == NULL)
            return obj_out_of_memory(ps);
        *usage = (obj_usage){cook_strdup(name), line, OBJ_NONE};
        id = (uint32_t)(ps->usages.count - 1);
        if (usage->name == NULL || !obj_name_insert(&ps->usage_names, usage->name, length, id))
            return obj_out_of_memory(ps);
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
        return obj_out_of_memory(ps);
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
    if (!obj_read_rest(ps, &text, &length))
        return false;
    if (length == 0) {
        diag_warning(ps->ctx->diag, ps->path, line, "'mtllib' without a file name");
        return true;
    }
    char *names = cook_strdup(text); /* ps->scratch is reused while loading */
    if (names == NULL)
        return obj_out_of_memory(ps);
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
    uint32_t found = obj_name_find(&ps->part_table, name, length);
    if (found == OBJ_NONE) {
        if (!strlist_push(&ps->part_names, name))
            return obj_out_of_memory(ps);
        found = (uint32_t)ps->part_names.count;
        if (!obj_name_insert(&ps->part_table, ps->part_names.items[found - 1], length, found))
            return obj_out_of_memory(ps);
    }
    *id = found;
    return true;
}

/* o name: the first names the mesh; each names the submeshes that follow
 * until a g does. */
static bool parse_object_name(obj_parser *ps) {
    const char *name;
    size_t length;
    if (!obj_read_rest(ps, &name, &length))
        return false;
    if (length > 0 && ps->mesh_name == NULL && (ps->mesh_name = cook_strdup(name)) == NULL)
        return obj_out_of_memory(ps);
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
    if (!obj_read_rest(ps, &name, &length))
        return false;
    ps->part = ps->object_part;
    return length == 0 || intern_part(ps, name, length, &ps->part);
}

static bool skip_unknown(obj_parser *ps, const unsigned char *keyword, size_t length) {
    char name[48];
    snprintf(name, sizeof name, "%.*s", (int)(length < 40 ? length : 40), (const char *)keyword);
    if (ps->unknown.count < OBJ_MAX_UNKNOWN_REPORTED && !strlist_contains(&ps->unknown, name)) {
        if (!strlist_push(&ps->unknown, name))
            return obj_out_of_memory(ps);
        diag_warning(ps->ctx->diag, ps->path, ps->line, "unsupported statement '%s' ignored%s",
                     name,
                     ps->unknown.count == OBJ_MAX_UNKNOWN_REPORTED
                         ? " (further unsupported statements are not reported)"
                         : "");
    }
    return obj_skip_line(ps, true);
}

static bool keyword_is(const unsigned char *keyword, size_t length, const char *word) {
    return strlen(word) == length && memcmp(keyword, word, length) == 0;
}

bool obj_parse_statement(obj_parser *ps) {
    const unsigned char *keyword = ps->p;
    while (ps->p<ps->end && * ps->p> ' ' && *ps->p < 0x7f)
        ps->p++;
    size_t length = (size_t)(ps->p - keyword);
    if (ps->p < ps->end && (*ps->p >= 0x7f || obj_is_binary(*ps->p)))
        return obj_binary_error(ps, *ps->p);

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
            return obj_parse_face(ps);
        break;
    case 'g':
        if (length == 1)
            return parse_group_name(ps);
        break;
    case 's':
        if (length == 1)
            return obj_skip_line(ps, true);
        break;
    case 'm':
        if (keyword_is(keyword, length, "mtllib"))
            return parse_mtllib(ps);
        if (keyword_is(keyword, length, "mg"))
            return obj_skip_line(ps, true);
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
            return obj_parse_points_or_lines(ps, keyword[0] == 'l' ? KILN_TOPOLOGY_LINES
                                                                   : KILN_TOPOLOGY_POINTS);
        break;
    default:
        break;
    }
    return skip_unknown(ps, keyword, length);
}
