/*
 * obj.c — Wavefront OBJ importer: one indexed mesh, one submesh per topology,
 * material and group (g / o name). This file holds the entry (import_obj)
 * and documents the format as kiln reads it; obj_internal.h lists the files
 * that do the work.
 *
 * One pass over the bytes with a cursor. Nothing is allocated per line: the
 * attribute pools, the unique-vertex table and the index buffer grow
 * geometrically and the per-face scratch buffers are reused. No count read
 * from the file sizes an allocation. A large file on several threads is
 * parsed in byte ranges instead (obj_ranges.c), with the same result.
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
#include <stdlib.h>
#include <string.h>

#include "cook/import/obj_internal.h"

static void parser_free(obj_parser *ps) {
    obj_vec *vecs[] = {&ps->positions, &ps->colors,  &ps->bad,        &ps->texcoords,
                       &ps->normals,   &ps->corners, &ps->corner_xyz, &ps->corner_tri,
                       &ps->corner_id, &ps->scratch, &ps->keys,       &ps->indices,
                       &ps->runs};
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
        obj_vec_free(vecs[i]);
    for (size_t i = 0; i < ps->usages.count; i++)
        free(((obj_usage *)ps->usages.data)[i].name);
    obj_vec_free(&ps->usages);
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

static bool parser_init(obj_parser *ps, cook_context *ctx) {
    memset(ps, 0, sizeof *ps);
    ps->ctx = ctx;
    ps->path = ctx->source_path;
    ps->begin = ps->p = ctx->source ? ctx->source : (const uint8_t *)"";
    ps->end = ps->p + (ctx->source ? ctx->source_size : 0);
    ps->line = 1;
    cook_text_trim(&ps->p, &ps->end);
    obj_usage *none = obj_vec_push(&ps->usages, sizeof(obj_usage), 1);
    if (none == NULL)
        return obj_out_of_memory(ps);
    *none = (obj_usage){NULL, 0, OBJ_NONE};
    return true;
}

/* The statement loop: every statement from the cursor on, in one pass. */
static bool parse_in_one_pass(obj_parser *ps) {
    bool ok = true;
    while (ok && ps->p < ps->end) {
        obj_skip_blanks(ps);
        if (ps->p >= ps->end)
            break;
        unsigned char c = *ps->p;
        if (c == '\n') {
            ps->p++;
            ps->line++;
        } else if (c == '#') {
            ok = obj_skip_line(ps, false);
        } else {
            ok = obj_parse_statement(ps);
        }
    }
    return ok;
}

bool import_obj_ranges(cook_context *ctx, ir_asset *out, size_t range_bytes, bool *in_ranges) {
    memset(out, 0, sizeof *out);
    obj_parser ps;
    bool ok = parser_init(&ps, ctx);
    obj_ranges_result ranges = OBJ_RANGES_DECLINED;
    if (ok && range_bytes > 0) {
        unsigned threads = ctx->settings ? ctx->settings->threads : 1;
        ranges = obj_parse_ranges(&ps, range_bytes, threads);
        if (ranges == OBJ_RANGES_DECLINED) {
            parser_free(&ps);
            ok = parser_init(&ps, ctx);
        }
    }
    if (in_ranges != NULL)
        *in_ranges = ranges != OBJ_RANGES_DECLINED;
    if (ok && ranges == OBJ_RANGES_DECLINED)
        ok = parse_in_one_pass(&ps);
    else
        ok = ok && ranges == OBJ_RANGES_DONE;
    if (ok)
        ok = obj_finish(&ps, out);
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

bool import_obj(cook_context *ctx, ir_asset *out) {
    /* Ranges pay for a large file on several threads; below that, or on
     * one thread, one pass costs less. */
    bool ranges = ctx->source_size >= OBJ_RANGES_MIN_BYTES && ctx->settings != NULL &&
                  ctx->settings->threads > 1;
    return import_obj_ranges(ctx, out, ranges ? OBJ_RANGE_BYTES : 0, NULL);
}
