/*
 * obj_face.c — the OBJ importer's elements (obj_internal.h): corners of f, l
 * and p (v, v/vt, v//vn, v/vt/vn, negative indices), the table welding
 * corners into unique vertices, triangulation of faces, and the runs of
 * indices that become submeshes.
 */
#include <stdlib.h>
#include <string.h>

#include "cook/import/obj_internal.h"

/* An index of a face corner: optional sign and digits; false when none. */
static bool scan_index(obj_parser *ps, int64_t *out) {
    const unsigned char *p = ps->p, *end = ps->end;
    bool negative = false;
    if (p < end && (*p == '-' || *p == '+')) {
        negative = *p == '-';
        p++;
    }
    if (p >= end || !(*p >= '0' && *p <= '9'))
        return false;
    uint32_t digits;
    unsigned n = end - p >= 8 ? import_leading_digits(p, &digits) : 8;
    if (n < 8) { /* the usual index, fewer than 8 digits, read at once */
        ps->p = p + n;
        *out = negative ? -(int64_t)digits : (int64_t)digits;
        return true;
    }
    int64_t value = 0;
    for (; p < end && (*p >= '0' && *p <= '9'); p++)
        if (value < 100000000000000ll) /* far beyond any count; keeps the text */
            value = value * 10 + (*p - '0');
    ps->p = p;
    *out = negative ? -value : value;
    return true;
}

static const obj_vec *attribute_pool(const obj_parser *ps, int kind) {
    return kind == ATTR_POSITION   ? &ps->positions
           : kind == ATTR_TEXCOORD ? &ps->texcoords
                                   : &ps->normals;
}

/* An index as resolve_index reads it, all cases and messages. */
static bool resolve_any_index(obj_parser *ps, int64_t raw, int kind, uint32_t *out) {
    static const char *const singular[3] = {"vertex", "texture coordinate", "normal"};
    static const char *const plural[3] = {"vertices", "texture coordinates", "normals"};
    static const char *const consequence[3] = {"", "0,0 used", "normals are generated"};
    size_t count = attribute_pool(ps, kind)->count;
    if (raw == 0)
        return obj_syntax_error(ps, "%s index 0 is invalid: OBJ indices start at 1",
                                singular[kind]);
    if (raw > 0 && (uint64_t)raw <= count) {
        *out = (uint32_t)(raw - 1);
        return true;
    }
    if (raw < 0 && (uint64_t)-raw <= count) {
        *out = (uint32_t)((int64_t)count + raw);
        return true;
    }
    if (raw < 0)
        return obj_syntax_error(ps,
                                "relative %s index %lld points before the first one (%zu defined "
                                "so far)",
                                singular[kind], (long long)raw, count);
    if (kind == ATTR_POSITION)
        return obj_syntax_error(ps, "%s uses vertex %lld, but only %zu %s are defined before it",
                                ps->element, (long long)raw, count, plural[kind]);
    if (ps->quiet)
        return false; /* a warning: one pass reports it */
    if (!ps->warned_missing[kind])
        diag_warning(ps->ctx->diag, ps->path, ps->line,
                     "%s uses %s %lld, but only %zu %s are defined before it; ignored (%s)",
                     ps->element, singular[kind], (long long)raw, count, plural[kind],
                     consequence[kind]);
    ps->warned_missing[kind] = true;
    *out = OBJ_NONE;
    return true;
}

/* A corner's index of attribute `kind` resolved to a 0-based one; the usual
 * case (a positive index of an element defined before) inline. */
static inline bool resolve_index(obj_parser *ps, int64_t raw, int kind, uint32_t *out) {
    if (raw > 0 && (uint64_t)raw <= attribute_pool(ps, kind)->count) {
        *out = (uint32_t)(raw - 1);
        return true;
    }
    return resolve_any_index(ps, raw, kind, out);
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
        if (obj_at_token_end(ps) || *ps->p == '/')
            continue; /* empty field */
        if (!scan_index(ps, &raw))
            goto malformed;
        if (!resolve_index(ps, raw, kind, &corner[kind]))
            return false;
    }
    if (obj_at_token_end(ps))
        return true;
malformed:
    ps->p = start;
    return obj_syntax_error(ps, "malformed %s corner '%.*s' (expected v, v/vt, v//vn or v/vt/vn)",
                            ps->element, obj_token_length(start, ps->end), (const char *)start);
}

bool obj_vertex_id(obj_parser *ps, const uint32_t key[3], uint32_t *id) {
    if ((ps->keys.count + 1) * 2 > ps->table_cap) {
        size_t cap = ps->table_cap ? ps->table_cap * 2 : 1024;
        corner_slot *table = cap <= SIZE_MAX / sizeof *table ? malloc(cap * sizeof *table) : NULL;
        if (table == NULL)
            return obj_out_of_memory(ps);
        for (size_t i = 0; i < cap; i++)
            table[i].id = OBJ_NONE;
        const uint32_t *keys = ps->keys.data;
        for (size_t i = 0; i < ps->table_cap; i++) {
            if (ps->table[i].id == OBJ_NONE)
                continue;
            size_t j = (size_t)obj_hash_corner(keys + 3 * (size_t)ps->table[i].id) & (cap - 1);
            while (table[j].id != OBJ_NONE)
                j = (j + 1) & (cap - 1);
            table[j] = ps->table[i];
        }
        free(ps->table);
        ps->table = table;
        ps->table_cap = cap;
    }
    size_t mask = ps->table_cap - 1;
    uint64_t hash = obj_hash_corner(key);
    uint32_t tag = obj_corner_tag(hash);
    const uint32_t *keys = ps->keys.data;
    size_t i = (size_t)hash & mask;
    for (; ps->table[i].id != OBJ_NONE; i = (i + 1) & mask) {
        if (ps->table[i].tag != tag)
            continue;
        const uint32_t *k = keys + 3 * (size_t)ps->table[i].id;
        if (k[0] == key[0] && k[1] == key[1] && k[2] == key[2]) {
            *id = ps->table[i].id;
            return true;
        }
    }
    if (ps->keys.count >= OBJ_MAX_ELEMENTS)
        return obj_syntax_error(ps, "more than %u distinct vertices", OBJ_MAX_ELEMENTS);
    uint32_t *slot = obj_vec_push(&ps->keys, 3 * sizeof(uint32_t), 1);
    if (slot == NULL)
        return obj_out_of_memory(ps);
    memcpy(slot, key, 3 * sizeof *slot);
    *id = (uint32_t)(ps->keys.count - 1);
    ps->table[i] = (corner_slot){tag, *id};
    return true;
}

bool obj_start_run(obj_parser *ps, kiln_topology topology) {
    const obj_run *last =
        ps->runs.count ? (const obj_run *)ps->runs.data + ps->runs.count - 1 : NULL;
    if (last != NULL && last->usage == ps->usage && last->topology == topology &&
        last->part == ps->part)
        return true;
    obj_run *run = obj_vec_push(&ps->runs, sizeof(obj_run), 1);
    if (run == NULL)
        return obj_out_of_memory(ps);
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
        return obj_syntax_error(ps, "more than %u indices", OBJ_MAX_INDICES);

    static const uint32_t single[3] = {0, 1, 2};
    const uint32_t *triangles = single;
    if (n > 3) {
        ps->corner_xyz.count = 0;
        ps->corner_tri.count = 0;
        float *xyz = obj_vec_push(&ps->corner_xyz, 3 * sizeof(float), n);
        uint32_t *tri = obj_vec_push(&ps->corner_tri, 3 * sizeof(uint32_t), triangle_count);
        if (xyz == NULL || tri == NULL)
            return obj_out_of_memory(ps);
        const float *positions = ps->positions.data;
        for (uint32_t i = 0; i < n; i++)
            memcpy(xyz + 3 * i, positions + 3 * (size_t)corners[3 * i], 3 * sizeof(float));
        geometry_triangulate_polygon(xyz, n, tri);
        triangles = tri;
    }
    ps->corner_id.count = 0;
    uint32_t *ids = obj_vec_push(&ps->corner_id, sizeof(uint32_t), n);
    if (ids == NULL)
        return obj_out_of_memory(ps);
    for (uint32_t i = 0; i < n; i++)
        if (!obj_vertex_id(ps, corners + 3 * i, &ids[i]))
            return false;

    if (!obj_start_run(ps, KILN_TOPOLOGY_TRIANGLES))
        return false;
    uint32_t *out = obj_vec_push(&ps->indices, sizeof(uint32_t), 3 * (size_t)triangle_count);
    if (out == NULL)
        return obj_out_of_memory(ps);
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
    while (obj_next_field(ps)) {
        if (ps->corners.count == OBJ_MAX_FACE_CORNERS)
            return obj_syntax_error(ps, "%s has more than %u corners", element,
                                    OBJ_MAX_FACE_CORNERS);
        uint32_t *corner = obj_vec_push(&ps->corners, 3 * sizeof(uint32_t), 1);
        if (corner == NULL)
            return obj_out_of_memory(ps);
        if (!parse_corner(ps, corner))
            return false;
    }
    return !ps->binary;
}

bool obj_parse_face(obj_parser *ps) {
    uint32_t face_line = ps->line;
    if (!read_corners(ps, "face"))
        return false;
    if (ps->corners.count < 3)
        return obj_syntax_error(ps, "face has %zu corner%s; a face needs at least 3",
                                ps->corners.count, ps->corners.count == 1 ? "" : "s");
    return emit_face(ps, face_line);
}

bool obj_parse_points_or_lines(obj_parser *ps, kiln_topology topology) {
    uint32_t line = ps->line;
    const char *keyword = topology == KILN_TOPOLOGY_LINES ? "l" : "p";
    if (!read_corners(ps, topology == KILN_TOPOLOGY_LINES ? "line" : "point"))
        return false;
    uint32_t n = (uint32_t)ps->corners.count, need = topology == KILN_TOPOLOGY_LINES ? 2 : 1;
    if (n < need)
        return obj_syntax_error(ps, "'%s' has %u vertices; it needs at least %u", keyword, n, need);
    ps->corner_id.count = 0;
    uint32_t *ids = obj_vec_push(&ps->corner_id, sizeof(uint32_t), n);
    if (ids == NULL)
        return obj_out_of_memory(ps);
    const uint32_t *corners = ps->corners.data;
    const uint8_t *bad = ps->bad.count > 0 ? ps->bad.data : NULL;
    for (uint32_t i = 0; i < n; i++)
        ids[i] = bad != NULL && bad[corners[3 * i]] ? OBJ_NONE : 0;
    for (uint32_t i = 0; i < n; i++)
        if (ids[i] != OBJ_NONE && !obj_vertex_id(ps, corners + 3 * i, &ids[i]))
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
        return obj_syntax_error(ps, "more than %u indices", OBJ_MAX_INDICES);
    if (!obj_start_run(ps, topology))
        return false;
    uint32_t *out = obj_vec_push(&ps->indices, sizeof(uint32_t), (size_t)added);
    if (out == NULL)
        return obj_out_of_memory(ps);
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
