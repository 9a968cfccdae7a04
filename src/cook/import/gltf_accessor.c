/*
 * gltf_accessor.c — buffer views and accessors of the glTF importer.
 *
 * Structure first, data later: gltf_view_valid / gltf_accessor_valid check a
 * view or accessor against the byte ranges that back them (64-bit
 * overflow-checked arithmetic) on its first use, so the readers below can
 * index without further checks. What nothing uses is checked last, by
 * gltf_check_unused, and its problems are warnings: kiln never reads it. The readers decode on
 * demand into float or uint32 arrays; each decode is charged to the file's budget (gltf_charge),
 * but for the _into readers' arrays, which the caller allocated (and charged: a mesh's streams).
 *
 * Layout rules (glTF 2.0 §3.6): an element is `components` values of
 * `component_size` bytes; matrix columns start on 4-byte boundaries; elements
 * are `byteStride` apart (or tightly packed). Normalised integers convert as
 * max(c / 127, -1), c / 255, max(c / 32767, -1), c / 65535.
 *
 * EXT_meshopt_compression: a view with the extension is decoded with
 * meshoptimizer into view->length bytes the first time it is read, then
 * filtered (octahedral, quaternion, exponential).
 */
#include <math.h>
#include <meshoptimizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "cook/core/parallel.h"
#include "cook/import/gltf_internal.h"

#define GLTF_MAX_OFFSET ((uint64_t)1 << 53) /* JSON numbers are exact below this */
#define MESHOPT_MAX_RATIO 64u               /* no meshopt stream expands more */

const char *gltf_component_name(uint32_t component_type) {
    switch (component_type) {
    case GLTF_BYTE:
        return "BYTE";
    case GLTF_UNSIGNED_BYTE:
        return "UNSIGNED_BYTE";
    case GLTF_SHORT:
        return "SHORT";
    case GLTF_UNSIGNED_SHORT:
        return "UNSIGNED_SHORT";
    case GLTF_UNSIGNED_INT:
        return "UNSIGNED_INT";
    case GLTF_FLOAT:
        return "FLOAT";
    }
    return "?";
}

/* ---------------------------------------------------------------------------
 * Buffer views
 * ------------------------------------------------------------------------- */

static int enum_index(const char *value, const char *const *names, int count) {
    for (int i = 0; i < count; i++)
        if (strcmp(value, names[i]) == 0)
            return i;
    return -1;
}

static bool parse_meshopt(gltf *g, gltf_view *view, const json_t *ext, const char *jpath) {
    static const char *const modes[] = {"ATTRIBUTES", "TRIANGLES", "INDICES"};
    static const char *const filters[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"};
    char path[GLTF_PATH_SIZE];
    gltf_pathf(path, "%s.extensions.EXT_meshopt_compression", jpath);
    int64_t buffer;
    uint64_t offset = 0, length = 0, stride = 0, count = 0;
    const char *mode = NULL, *filter = NULL;
    if (!gltf_get_index(g, ext, path, "buffer", true, "buffer", g->n_buffers, &buffer) ||
        !gltf_get_uint(g, ext, path, "byteOffset", false, 0, GLTF_MAX_OFFSET, &offset) ||
        !gltf_get_uint(g, ext, path, "byteLength", true, 1, GLTF_MAX_OFFSET, &length) ||
        !gltf_get_uint(g, ext, path, "byteStride", true, 1, 256, &stride) ||
        !gltf_get_uint(g, ext, path, "count", true, 1, UINT32_MAX, &count) ||
        !gltf_get_string(g, ext, path, "mode", true, &mode) ||
        !gltf_get_string(g, ext, path, "filter", false, &filter))
        return false;
    int mode_index = enum_index(mode, modes, 3);
    int filter_index = filter ? enum_index(filter, filters, 4) : MESHOPT_NONE;
    if (mode_index < 0) {
        gltf_error(g, "%s.mode: '%.64s' is not ATTRIBUTES, TRIANGLES or INDICES", path, mode);
        return false;
    }
    if (filter_index < 0) {
        gltf_error(g, "%s.filter: '%.64s' is not NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL", path,
                   filter);
        return false;
    }
    const char *problem = NULL;
    if (view->stride != 0 && view->stride != stride)
        problem = "byteStride differs from the bufferView's byteStride";
    else if (mode_index == MESHOPT_ATTRIBUTES && stride % 4 != 0)
        problem = "ATTRIBUTES needs a byteStride that is a multiple of 4";
    else if (mode_index != MESHOPT_ATTRIBUTES && stride != 2 && stride != 4)
        problem = "TRIANGLES and INDICES need a byteStride of 2 or 4";
    else if (mode_index == MESHOPT_TRIANGLES && count % 3 != 0)
        problem = "TRIANGLES needs a count that is a multiple of 3";
    else if (mode_index != MESHOPT_ATTRIBUTES && filter_index != MESHOPT_NONE)
        problem = "filters apply to ATTRIBUTES only";
    else if (filter_index == MESHOPT_OCTAHEDRAL && stride != 4 && stride != 8)
        problem = "OCTAHEDRAL needs a byteStride of 4 or 8";
    else if (filter_index == MESHOPT_QUATERNION && stride != 8)
        problem = "QUATERNION needs a byteStride of 8";
    else if (filter_index == MESHOPT_EXPONENTIAL && stride % 4 != 0)
        problem = "EXPONENTIAL needs a byteStride that is a multiple of 4";
    else if (count * stride != view->length)
        problem = "count * byteStride differs from the bufferView's byteLength";
    if (problem != NULL) {
        gltf_error(g, "%s: %s", path, problem);
        return false;
    }
    const gltf_buffer *source = &g->buffers[buffer];
    if (!range_inside(offset, length, source->length)) {
        gltf_error(g, "%s: byteOffset %llu + byteLength %llu exceeds buffers[%lld].byteLength %llu",
                   path, (unsigned long long)offset, (unsigned long long)length, (long long)buffer,
                   (unsigned long long)source->length);
        return false;
    }
    if (view->length / MESHOPT_MAX_RATIO > length + 64) {
        gltf_error(g, "%s: %llu compressed bytes cannot hold %llu decoded bytes", path,
                   (unsigned long long)length, (unsigned long long)view->length);
        return false;
    }
    view->meshopt = true;
    view->mo_buffer = (uint32_t)buffer;
    view->mo_offset = offset;
    view->mo_length = length;
    view->mo_stride = (uint32_t)stride;
    view->mo_count = (uint32_t)count;
    view->mo_mode = mode_index;
    view->mo_filter = filter_index;
    return true;
}

static bool parse_view(gltf *g, size_t i) {
    const json_t *obj = gltf_element(g, g->j_views, "bufferViews", i);
    if (obj == NULL)
        return false;
    char jpath[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "bufferViews[%zu]", i);
    gltf_view *view = &g->views[i];
    int64_t buffer;
    uint64_t offset = 0, length = 0, stride = 0, target = 0;
    if (!gltf_get_index(g, obj, jpath, "buffer", true, "buffer", g->n_buffers, &buffer) ||
        !gltf_get_uint(g, obj, jpath, "byteOffset", false, 0, GLTF_MAX_OFFSET, &offset) ||
        !gltf_get_uint(g, obj, jpath, "byteLength", true, 1, GLTF_MAX_OFFSET, &length) ||
        !gltf_get_uint(g, obj, jpath, "byteStride", false, 4, 252, &stride) ||
        !gltf_get_uint(g, obj, jpath, "target", false, 0, UINT32_MAX, &target))
        return false;
    if (stride % 4 != 0) {
        gltf_error(g, "%s.byteStride: %llu is not a multiple of 4", jpath,
                   (unsigned long long)stride);
        return false;
    }
    if (target != 0 && target != GLTF_ARRAY_BUFFER && target != GLTF_ELEMENT_ARRAY_BUFFER) {
        /* glTF-Validator: VALUE_NOT_IN_LIST, a warning; the target is only a hint */
        gltf_warning(g,
                     "%s.target: %llu is neither ARRAY_BUFFER (34962) nor "
                     "ELEMENT_ARRAY_BUFFER (34963); ignored",
                     jpath, (unsigned long long)target);
        target = 0;
    }
    if (stride != 0 && target == GLTF_ELEMENT_ARRAY_BUFFER) {
        gltf_error(g,
                   "%s.byteStride: only views of vertex data may have a byteStride "
                   "(target is ELEMENT_ARRAY_BUFFER)",
                   jpath);
        return false;
    }
    const gltf_buffer *buf = &g->buffers[buffer];
    if (!range_inside(offset, length, buf->length)) {
        gltf_error(g,
                   "%s: byteOffset %llu + byteLength %llu exceeds buffers[%lld].byteLength "
                   "%llu",
                   jpath, (unsigned long long)offset, (unsigned long long)length, (long long)buffer,
                   (unsigned long long)buf->length);
        return false;
    }
    view->buffer = (uint32_t)buffer;
    view->offset = offset;
    view->length = length;
    view->stride = (uint32_t)stride;
    view->target = (uint32_t)target;
    const json_t *ext = gltf_extension(obj, "EXT_meshopt_compression");
    return ext == NULL || !g->ext_meshopt || parse_meshopt(g, view, ext, jpath);
}

bool gltf_view_valid(gltf *g, uint32_t index) {
    gltf_view *view = &g->views[index];
    if (view->state == GLTF_UNCHECKED)
        view->state = parse_view(g, index) ? GLTF_VALID : GLTF_INVALID;
    return view->state == GLTF_VALID;
}

static bool decode_meshopt(gltf *g, uint32_t index) {
    gltf_view *view = &g->views[index];
    const gltf_buffer *source = &g->buffers[view->mo_buffer];
    char jpath[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "bufferViews[%u].extensions.EXT_meshopt_compression", index);
    if (source->data == NULL) {
        gltf_error(g, "%s: buffers[%u] has no data", jpath, view->mo_buffer);
        return false;
    }
    if (!gltf_charge(g, view->length, jpath))
        return false;
    uint8_t *out = malloc((size_t)view->length);
    if (out == NULL)
        return gltf_out_of_memory(g);
    const uint8_t *in = source->data + view->mo_offset;
    size_t in_size = (size_t)view->mo_length;
    int rc;
    switch (view->mo_mode) {
    case MESHOPT_ATTRIBUTES:
        rc = meshopt_decodeVertexBuffer(out, view->mo_count, view->mo_stride, in, in_size);
        break;
    case MESHOPT_TRIANGLES:
        rc = meshopt_decodeIndexBuffer(out, view->mo_count, view->mo_stride, in, in_size);
        break;
    default:
        rc = meshopt_decodeIndexSequence(out, view->mo_count, view->mo_stride, in, in_size);
        break;
    }
    if (rc != 0) {
        free(out);
        gltf_error(g,
                   "%s: the compressed data is corrupt or of an unsupported version "
                   "(meshoptimizer error %d)",
                   jpath, rc);
        return false;
    }
    switch (view->mo_filter) {
    case MESHOPT_OCTAHEDRAL:
        meshopt_decodeFilterOct(out, view->mo_count, view->mo_stride);
        break;
    case MESHOPT_QUATERNION:
        meshopt_decodeFilterQuat(out, view->mo_count, view->mo_stride);
        break;
    case MESHOPT_EXPONENTIAL:
        meshopt_decodeFilterExp(out, view->mo_count, view->mo_stride);
        break;
    default:
        break;
    }
    view->decoded = out;
    return true;
}

bool gltf_view_bytes(gltf *g, uint32_t index, const uint8_t **data) {
    gltf_view *view = &g->views[index];
    *data = NULL;
    if (view->decode_failed)
        return false;
    if (view->meshopt) {
        if (view->decoded == NULL && !decode_meshopt(g, index)) {
            view->decode_failed = true;
            return false;
        }
        *data = view->decoded;
        return true;
    }
    const gltf_buffer *buffer = &g->buffers[view->buffer];
    if (buffer->data == NULL) {
        gltf_error(g, "bufferViews[%u]: buffers[%u] has no data (no uri%s)", index, view->buffer,
                   g->glb ? ", and not the GLB binary chunk" : "");
        view->decode_failed = true;
        return false;
    }
    *data = buffer->data + view->offset;
    return true;
}

static bool view_readable(const gltf *g, uint32_t index) {
    const gltf_view *view = &g->views[index];
    return g->buffers[view->meshopt ? view->mo_buffer : view->buffer].data != NULL;
}

bool gltf_accessor_readable(const gltf *g, uint32_t accessor) {
    const gltf_accessor *a = &g->accessors[accessor];
    if (a->decoded == NULL && a->view >= 0 && !view_readable(g, (uint32_t)a->view))
        return false;
    return a->sparse_count == 0 ||
           (view_readable(g, a->sparse_index_view) && view_readable(g, a->sparse_value_view));
}

bool gltf_accessor_stored(const gltf *g, uint32_t accessor) {
    const gltf_accessor *a = &g->accessors[accessor];
    return a->decoded != NULL || a->view >= 0 || a->sparse_count > 0;
}

bool gltf_use_accessor_view(gltf *g, uint32_t accessor, uint8_t use, const char *jpath) {
    int64_t v = g->accessors[accessor].view;
    if (v < 0)
        return true;
    gltf_view *view = &g->views[v];
    const char *problem = NULL;
    if (use == GLTF_USE_VERTEX && view->target == GLTF_ELEMENT_ARRAY_BUFFER)
        problem = "vertex data in a view whose target is ELEMENT_ARRAY_BUFFER";
    else if (use == GLTF_USE_INDEX && view->target == GLTF_ARRAY_BUFFER)
        problem = "indices in a view whose target is ARRAY_BUFFER";
    else if (use == GLTF_USE_INDEX && (view->usage & GLTF_USE_VERTEX))
        problem = "indices in a view already used for vertex data";
    else if (use == GLTF_USE_VERTEX && (view->usage & GLTF_USE_INDEX))
        problem = "vertex data in a view already used for indices";
    if (problem != NULL) {
        gltf_error(g, "%s: accessor %u puts %s (bufferViews[%lld])", jpath, accessor, problem,
                   (long long)v);
        return false;
    }
    view->usage |= use;
    return true;
}

/* ---------------------------------------------------------------------------
 * Accessors
 * ------------------------------------------------------------------------- */

static bool parse_sparse(gltf *g, gltf_accessor *a, const json_t *sparse, const char *jpath) {
    char path[GLTF_PATH_SIZE], ipath[GLTF_PATH_SIZE], vpath[GLTF_PATH_SIZE];
    gltf_pathf(path, "%s.sparse", jpath);
    gltf_pathf(ipath, "%s.sparse.indices", jpath);
    gltf_pathf(vpath, "%s.sparse.values", jpath);
    uint64_t count = 0, index_offset = 0, index_type = 0, value_offset = 0;
    int64_t index_view, value_view;
    const json_t *indices, *values;
    if (!gltf_get_uint(g, sparse, path, "count", true, 1, UINT32_MAX, &count) ||
        !gltf_get_object(g, sparse, path, "indices", true, &indices) ||
        !gltf_get_object(g, sparse, path, "values", true, &values) ||
        !gltf_get_index(g, indices, ipath, "bufferView", true, "bufferView", g->n_views,
                        &index_view) ||
        !gltf_get_uint(g, indices, ipath, "byteOffset", false, 0, GLTF_MAX_OFFSET, &index_offset) ||
        !gltf_get_uint(g, indices, ipath, "componentType", true, 0, UINT32_MAX, &index_type) ||
        !gltf_get_index(g, values, vpath, "bufferView", true, "bufferView", g->n_views,
                        &value_view) ||
        !gltf_get_uint(g, values, vpath, "byteOffset", false, 0, GLTF_MAX_OFFSET, &value_offset))
        return false;
    if (count > a->count) {
        gltf_error(g, "%s.count: %llu sparse elements exceed the accessor's count %u", path,
                   (unsigned long long)count, a->count);
        return false;
    }
    if (index_type != GLTF_UNSIGNED_BYTE && index_type != GLTF_UNSIGNED_SHORT &&
        index_type != GLTF_UNSIGNED_INT) {
        gltf_error(g,
                   "%s.componentType: %llu is not UNSIGNED_BYTE, UNSIGNED_SHORT or "
                   "UNSIGNED_INT",
                   ipath, (unsigned long long)index_type);
        return false;
    }
    if (!gltf_view_valid(g, (uint32_t)index_view) || !gltf_view_valid(g, (uint32_t)value_view))
        return false;
    const gltf_view *iv = &g->views[index_view], *vv = &g->views[value_view];
    if (iv->stride != 0 || vv->stride != 0) {
        gltf_error(g, "%s.bufferView: views of sparse data must not have a byteStride",
                   iv->stride != 0 ? ipath : vpath);
        return false;
    }
    uint64_t index_bytes = count * gltf_component_size((uint32_t)index_type);
    uint64_t value_bytes = count * a->element_size;
    if (!range_inside(index_offset, index_bytes, iv->length)) {
        gltf_error(g,
                   "%s: byteOffset %llu + count %llu * %u bytes exceeds "
                   "bufferViews[%lld].byteLength %llu",
                   ipath, (unsigned long long)index_offset, (unsigned long long)count,
                   gltf_component_size((uint32_t)index_type), (long long)index_view,
                   (unsigned long long)iv->length);
        return false;
    }
    if (!range_inside(value_offset, value_bytes, vv->length)) {
        gltf_error(g,
                   "%s: byteOffset %llu + count %llu * element size %u exceeds "
                   "bufferViews[%lld].byteLength %llu",
                   vpath, (unsigned long long)value_offset, (unsigned long long)count,
                   a->element_size, (long long)value_view, (unsigned long long)vv->length);
        return false;
    }
    a->sparse_count = (uint32_t)count;
    a->sparse_index_view = (uint32_t)index_view;
    a->sparse_index_offset = index_offset;
    a->sparse_index_type = (uint32_t)index_type;
    a->sparse_value_view = (uint32_t)value_view;
    a->sparse_value_offset = value_offset;
    return true;
}

static bool parse_accessor(gltf *g, size_t i) {
    const json_t *obj = gltf_element(g, g->j_accessors, "accessors", i);
    if (obj == NULL)
        return false;
    char jpath[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "accessors[%zu]", i);
    gltf_accessor *a = &g->accessors[i];
    int64_t view;
    uint64_t offset = 0, type_code = 0, count = 0;
    const char *type = NULL;
    bool normalized = false;
    if (!gltf_get_index(g, obj, jpath, "bufferView", false, "bufferView", g->n_views, &view) ||
        !gltf_get_uint(g, obj, jpath, "byteOffset", false, 0, GLTF_MAX_OFFSET, &offset) ||
        !gltf_get_uint(g, obj, jpath, "componentType", true, 0, UINT32_MAX, &type_code) ||
        !gltf_get_bool(g, obj, jpath, "normalized", &normalized) ||
        !gltf_get_uint(g, obj, jpath, "count", true, 1, UINT32_MAX, &count) ||
        !gltf_get_string(g, obj, jpath, "type", true, &type))
        return false;
    uint32_t size = gltf_component_size((uint32_t)type_code);
    if (size == 0) {
        gltf_error(g, "%s.componentType: %llu is not a glTF component type", jpath,
                   (unsigned long long)type_code);
        return false;
    }
    if (normalized && (type_code == GLTF_FLOAT || type_code == GLTF_UNSIGNED_INT)) {
        gltf_error(g, "%s.normalized: %s components cannot be normalized", jpath,
                   gltf_component_name((uint32_t)type_code));
        return false;
    }
    static const struct {
        const char *name;
        uint32_t columns, rows;
    } types[] = {{"SCALAR", 1, 1}, {"VEC2", 1, 2}, {"VEC3", 1, 3}, {"VEC4", 1, 4},
                 {"MAT2", 2, 2},   {"MAT3", 3, 3}, {"MAT4", 4, 4}};
    int t = -1;
    for (int k = 0; k < 7; k++)
        if (strcmp(type, types[k].name) == 0)
            t = k;
    if (t < 0) {
        gltf_error(g, "%s.type: '%.32s' is not SCALAR, VEC2, VEC3, VEC4, MAT2, MAT3 or MAT4", jpath,
                   type);
        return false;
    }
    a->type = types[t].name;
    a->component_type = (uint32_t)type_code;
    a->component_size = size;
    a->columns = types[t].columns;
    a->rows = types[t].rows;
    a->components = a->columns * a->rows;
    a->column_stride = a->rows * size;
    if (a->columns > 1)
        a->column_stride = (uint32_t)align_up_u64(a->column_stride, 4);
    a->element_size = a->columns * a->column_stride;
    a->count = (uint32_t)count;
    a->normalized = normalized;
    a->view = view;
    a->offset = offset;
    a->stride = a->element_size;

    static const char *const bounds[2] = {"min", "max"};
    for (int b = 0; b < 2; b++) {
        const json_t *value = json_object_get(obj, bounds[b]);
        if (value == NULL)
            continue;
        if (!json_is_array(value) || json_array_size(value) != a->components) {
            gltf_error(g, "%s.%s: expected an array of %u numbers for a %s accessor", jpath,
                       bounds[b], a->components, a->type);
            return false;
        }
        for (size_t k = 0; k < a->components; k++) {
            if (!json_is_number(json_array_get(value, k))) {
                gltf_error(g, "%s.%s[%zu]: expected a number, found %s", jpath, bounds[b], k,
                           gltf_json_type_name(json_array_get(value, k)));
                return false;
            }
        }
        if (b == 0)
            a->has_min = true;
        else
            a->has_max = true;
    }

    if (view < 0) {
        if (json_object_get(obj, "byteOffset") != NULL) {
            gltf_error(g, "%s.byteOffset: given without a bufferView", jpath);
            return false;
        }
    } else {
        if (!gltf_view_valid(g, (uint32_t)view))
            return false;
        const gltf_view *v = &g->views[view];
        if (offset % size != 0) {
            gltf_error(g, "%s.byteOffset: %llu is not a multiple of the component size %u", jpath,
                       (unsigned long long)offset, size);
            return false;
        }
        if ((v->offset + offset) % size != 0) {
            gltf_error(g,
                       "%s: the total byte offset %llu (bufferViews[%lld].byteOffset + "
                       "byteOffset) is not a multiple of the component size %u",
                       jpath, (unsigned long long)(v->offset + offset), (long long)view, size);
            return false;
        }
        if (v->stride != 0) {
            if (v->stride < a->element_size) {
                gltf_error(g,
                           "%s: bufferViews[%lld].byteStride %u is smaller than the "
                           "element size %u of a %s %s accessor",
                           jpath, (long long)view, v->stride, a->element_size, a->type,
                           gltf_component_name(a->component_type));
                return false;
            }
            if (v->stride % size != 0) {
                gltf_error(g,
                           "%s: bufferViews[%lld].byteStride %u is not a multiple of the "
                           "component size %u",
                           jpath, (long long)view, v->stride, size);
                return false;
            }
            a->stride = v->stride;
        }
        /* offset + (count - 1) * stride + element size <= view length */
        uint64_t span, end;
        if (!checked_mul_u64(count - 1, a->stride, &span) ||
            !checked_add_u64(span, a->element_size, &span) ||
            !checked_add_u64(span, offset, &end) || end > v->length) {
            gltf_error(g,
                       "%s: byteOffset %llu + (count %llu - 1) * stride %u + element size %u "
                       "exceeds bufferViews[%lld].byteLength %llu",
                       jpath, (unsigned long long)offset, (unsigned long long)count, a->stride,
                       a->element_size, (long long)view, (unsigned long long)v->length);
            return false;
        }
    }
    const json_t *sparse;
    if (!gltf_get_object(g, obj, jpath, "sparse", false, &sparse))
        return false;
    if (sparse != NULL && !parse_sparse(g, a, sparse, jpath))
        return false;
    return true;
}

bool gltf_accessor_valid(gltf *g, uint32_t index) {
    gltf_accessor *a = &g->accessors[index];
    if (a->state == GLTF_UNCHECKED) {
        a->state = GLTF_INVALID; /* until parsed: also what a failed parse leaves */
        if (parse_accessor(g, index))
            a->state = GLTF_VALID;
    }
    return a->state == GLTF_VALID;
}

bool gltf_prepare_accessors(gltf *g) {
    g->views = calloc(g->n_views ? g->n_views : 1, sizeof *g->views);
    g->accessors = calloc(g->n_accessors ? g->n_accessors : 1, sizeof *g->accessors);
    if (g->views == NULL || g->accessors == NULL)
        return gltf_out_of_memory(g);
    for (size_t i = 0; i < g->n_accessors; i++)
        g->accessors[i].view = -1;
    return true;
}

void gltf_check_unused(gltf *g) {
    g->unused = true;
    for (size_t i = 0; i < g->n_views; i++)
        gltf_view_valid(g, (uint32_t)i);
    for (size_t i = 0; i < g->n_accessors; i++)
        gltf_accessor_valid(g, (uint32_t)i);
    g->unused = false;
}

/* ---------------------------------------------------------------------------
 * Decoding
 * ------------------------------------------------------------------------- */

static uint32_t load_le(const uint8_t *p, uint32_t size) {
    switch (size) {
    case 1:
        return p[0];
    case 2:
        return (uint32_t)p[0] | (uint32_t)p[1] << 8;
    default:
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    }
}

static float component_to_float(const uint8_t *p, uint32_t type, bool normalized) {
    uint32_t bits;
    switch (type) {
    case GLTF_BYTE: {
        float c = (float)(int8_t)p[0];
        return normalized ? fmaxf(c / 127.0f, -1.0f) : c;
    }
    case GLTF_UNSIGNED_BYTE:
        return normalized ? (float)p[0] / 255.0f : (float)p[0];
    case GLTF_SHORT: {
        float c = (float)(int16_t)load_le(p, 2);
        return normalized ? fmaxf(c / 32767.0f, -1.0f) : c;
    }
    case GLTF_UNSIGNED_SHORT: {
        float c = (float)load_le(p, 2);
        return normalized ? c / 65535.0f : c;
    }
    case GLTF_UNSIGNED_INT:
        return (float)load_le(p, 4);
    default: {
        bits = load_le(p, 4);
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    }
}

/* Reads the sparse indices after checking they increase and stay in range. */
static bool read_sparse_indices(gltf *g, uint32_t index, const uint8_t **values, uint32_t **out) {
    const gltf_accessor *a = &g->accessors[index];
    const uint8_t *idata, *vdata;
    *out = NULL;
    if (!gltf_view_bytes(g, a->sparse_index_view, &idata) ||
        !gltf_view_bytes(g, a->sparse_value_view, &vdata))
        return false;
    uint32_t *indices = malloc((size_t)a->sparse_count * sizeof *indices);
    if (indices == NULL)
        return gltf_out_of_memory(g);
    uint32_t size = gltf_component_size(a->sparse_index_type);
    const uint8_t *p = idata + a->sparse_index_offset;
    for (uint32_t k = 0; k < a->sparse_count; k++) {
        uint32_t value = load_le(p + (size_t)k * size, size);
        if (value >= a->count) {
            gltf_error(g,
                       "accessors[%u].sparse.indices: index %u (element %u) is out of range "
                       "(count %u)",
                       index, value, k, a->count);
            free(indices);
            return false;
        }
        if (k > 0 && value <= indices[k - 1]) {
            gltf_error(g,
                       "accessors[%u].sparse.indices: index %u (element %u) does not "
                       "increase",
                       index, value, k);
            free(indices);
            return false;
        }
        indices[k] = value;
    }
    *values = vdata + a->sparse_value_offset;
    *out = indices;
    return true;
}

/* Decodes elements of `a` from `base` (stride apart) into out[e * components]. */
static void decode_floats(const gltf_accessor *a, const uint8_t *base, size_t stride,
                          const uint32_t *elements, uint32_t count, float *out) {
    for (uint32_t k = 0; k < count; k++) {
        uint32_t e = elements ? elements[k] : k;
        const uint8_t *element = base + (size_t)k * stride;
        float *dst = out + (size_t)e * a->components;
        for (uint32_t col = 0; col < a->columns; col++)
            for (uint32_t row = 0; row < a->rows; row++)
                dst[col * a->rows + row] =
                    component_to_float(element + col * a->column_stride + row * a->component_size,
                                       a->component_type, a->normalized);
    }
}

static void decode_uints(const gltf_accessor *a, const uint8_t *base, size_t stride,
                         const uint32_t *elements, uint32_t count, uint32_t *out) {
    for (uint32_t k = 0; k < count; k++) {
        uint32_t e = elements ? elements[k] : k;
        const uint8_t *element = base + (size_t)k * stride;
        uint32_t *dst = out + (size_t)e * a->components;
        for (uint32_t col = 0; col < a->columns; col++)
            for (uint32_t row = 0; row < a->rows; row++)
                dst[col * a->rows + row] = load_le(
                    element + col * a->column_stride + row * a->component_size, a->component_size);
    }
}

unsigned gltf_threads(const gltf *g) {
    return g->ctx != NULL && g->ctx->settings != NULL ? g->ctx->settings->threads : 1;
}

/* A dense accessor of many elements is decoded in blocks on the asset's
 * threads: each element's values depend on its own bytes alone. */
#define DECODE_BLOCK 65536u

typedef struct decode_job {
    const gltf_accessor *a;
    const uint8_t *base;
    size_t stride;
    void *out;
    bool floats;       /* decode_floats, else decode_uints */
    size_t *first_bad; /* floats: per block, its first non-finite value or SIZE_MAX */
} decode_job;

/* Whether an element's values are its bytes as they lie, little-endian
 * 4-byte components without column padding: FLOAT data read as floats
 * (normalized means nothing for FLOAT) and UNSIGNED_INT data read as
 * integers, the common case of positions, normals, texcoords and 32-bit
 * indices. decode_copied then copies them instead of converting each value. */
static bool decodes_as_copy(const gltf_accessor *a, bool floats) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return a->component_type == (floats ? GLTF_FLOAT : GLTF_UNSIGNED_INT) &&
           a->element_size == a->components * 4u;
#else
    (void)a;
    (void)floats;
    return false;
#endif
}

/* decode_floats or decode_uints of `count` dense elements whose layout
 * decodes_as_copy accepts: one copy when they are packed, one per element
 * when interleaved with others (stride wider than the element). */
static void decode_copied(const gltf_accessor *a, const uint8_t *base, size_t stride,
                          uint32_t count, void *out) {
    size_t element = a->element_size;
    if (stride == element) {
        memcpy(out, base, (size_t)count * element);
        return;
    }
    uint8_t *dst = out;
    for (uint32_t k = 0; k < count; k++)
        memcpy(dst + (size_t)k * element, base + (size_t)k * stride, element);
}

static void decode_block(void *ctx, uint32_t block) {
    decode_job *job = ctx;
    const gltf_accessor *a = job->a;
    uint32_t first = block * DECODE_BLOCK;
    uint32_t count = a->count - first < DECODE_BLOCK ? a->count - first : DECODE_BLOCK;
    const uint8_t *base = job->base + (size_t)first * job->stride;
    size_t at = (size_t)first * a->components;
    bool copied = decodes_as_copy(a, job->floats);
    if (!job->floats) {
        if (copied)
            decode_copied(a, base, job->stride, count, (uint32_t *)job->out + at);
        else
            decode_uints(a, base, job->stride, NULL, count, (uint32_t *)job->out + at);
        return;
    }
    float *values = (float *)job->out + at;
    if (copied)
        decode_copied(a, base, job->stride, count, values);
    else
        decode_floats(a, base, job->stride, NULL, count, values);
    job->first_bad[block] = SIZE_MAX;
    size_t n = (size_t)count * a->components;
    for (size_t k = 0; a->component_type == GLTF_FLOAT && k < n; k++)
        if (!isfinite(values[k])) {
            job->first_bad[block] = at + k;
            break;
        }
}

/* decode_floats or decode_uints of every element of a dense accessor, on
 * the asset's threads. For floats, returns the first non-finite FLOAT value
 * (its index among the values), or SIZE_MAX; SIZE_MAX - 1 when out of memory
 * (nothing decoded). */
static size_t decode_dense(const gltf *g, const gltf_accessor *a, const uint8_t *base,
                           size_t stride, bool floats, void *out) {
    uint32_t blocks = (uint32_t)(((uint64_t)a->count + DECODE_BLOCK - 1) / DECODE_BLOCK);
    decode_job job = {a, base, stride, out, floats, NULL};
    if (floats && (job.first_bad = malloc(blocks * sizeof *job.first_bad)) == NULL)
        return SIZE_MAX - 1;
    parallel_for(gltf_threads(g), blocks, decode_block, &job);
    size_t bad = SIZE_MAX;
    for (uint32_t b = 0; floats && b < blocks && bad == SIZE_MAX; b++)
        bad = job.first_bad[b];
    free(job.first_bad);
    return bad;
}

/* Allocates count * components values of `value_size` bytes, not zeroed:
 * gltf_read_floats_into and gltf_read_uints_into write every one (zeros
 * for an accessor without a view). */
static void *alloc_values(gltf *g, const gltf_accessor *a, size_t value_size, const char *jpath) {
    uint64_t bytes = (uint64_t)a->count * a->components * value_size;
    if (a->count == 0 || !gltf_charge(g, bytes, jpath))
        return NULL;
    void *out = malloc((size_t)a->count * a->components * value_size);
    if (out == NULL)
        gltf_out_of_memory(g);
    return out;
}

bool gltf_read_floats_into(gltf *g, uint32_t index, const char *jpath, float *values) {
    const gltf_accessor *a = &g->accessors[index];
    const uint8_t *data = NULL;
    if (a->view >= 0 && a->decoded == NULL && !gltf_view_bytes(g, (uint32_t)a->view, &data))
        return false;
    /* The first non-finite value, found while decoding when nothing sparse
     * replaces values afterwards (else checked below, after the sparse). */
    size_t bad = SIZE_MAX;
    if (a->decoded != NULL || data != NULL) {
        bad = a->decoded != NULL ? decode_dense(g, a, a->decoded, a->element_size, true, values)
                                 : decode_dense(g, a, data + a->offset, a->stride, true, values);
        if (bad == SIZE_MAX - 1)
            return gltf_out_of_memory(g);
    } else {
        memset(values, 0, (size_t)a->count * a->components * sizeof *values);
    }
    if (a->sparse_count > 0) {
        uint32_t *elements;
        if (!read_sparse_indices(g, index, &data, &elements))
            return false;
        decode_floats(a, data, a->element_size, elements, a->sparse_count, values);
        free(elements);
    }
    if (a->component_type == GLTF_FLOAT) {
        size_t n = (size_t)a->count * a->components;
        if (a->sparse_count > 0)
            bad = SIZE_MAX; /* the sparse values may have replaced it */
        for (size_t k = 0; a->sparse_count > 0 && k < n; k++)
            if (!isfinite(values[k])) {
                bad = k;
                break;
            }
        if (bad != SIZE_MAX) {
            gltf_error(g, "%s: accessors[%u] element %zu holds a non-finite number", jpath, index,
                       bad / a->components);
            return false;
        }
    }
    return true;
}

bool gltf_read_floats(gltf *g, uint32_t index, const char *jpath, float **out) {
    *out = alloc_values(g, &g->accessors[index], sizeof(float), jpath);
    if (*out != NULL && !gltf_read_floats_into(g, index, jpath, *out)) {
        free(*out);
        *out = NULL;
    }
    return *out != NULL;
}

bool gltf_read_uints_into(gltf *g, uint32_t index, const char *jpath, uint32_t *values) {
    const gltf_accessor *a = &g->accessors[index];
    if (a->component_type == GLTF_FLOAT) {
        gltf_error(g, "%s: accessors[%u] holds FLOAT components where integers are needed", jpath,
                   index);
        return false;
    }
    const uint8_t *data;
    if (a->decoded != NULL) {
        decode_dense(g, a, a->decoded, a->element_size, false, values);
    } else if (a->view >= 0) {
        if (!gltf_view_bytes(g, (uint32_t)a->view, &data))
            return false;
        decode_dense(g, a, data + a->offset, a->stride, false, values);
    } else {
        memset(values, 0, (size_t)a->count * a->components * sizeof *values);
    }
    if (a->sparse_count > 0) {
        uint32_t *elements;
        if (!read_sparse_indices(g, index, &data, &elements))
            return false;
        decode_uints(a, data, a->element_size, elements, a->sparse_count, values);
        free(elements);
    }
    return true;
}

bool gltf_read_uints(gltf *g, uint32_t index, const char *jpath, uint32_t **out) {
    *out = NULL;
    if (g->accessors[index].component_type == GLTF_FLOAT)
        return gltf_read_uints_into(g, index, jpath, NULL); /* the error */
    *out = alloc_values(g, &g->accessors[index], sizeof(uint32_t), jpath);
    if (*out != NULL && !gltf_read_uints_into(g, index, jpath, *out)) {
        free(*out);
        *out = NULL;
    }
    return *out != NULL;
}

/* Elements per item of data_range. */
#define RANGE_BLOCK 65536u

typedef struct range_job {
    const gltf_accessor *a;
    const uint8_t *base;
    double (*bounds)[2][16]; /* per block: lo, hi per component */
} range_job;

static void range_block(void *ctx, uint32_t block) {
    const range_job *job = ctx;
    const gltf_accessor *a = job->a;
    double *lo = job->bounds[block][0], *hi = job->bounds[block][1];
    for (uint32_t k = 0; k < a->components; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    uint32_t first = block * RANGE_BLOCK;
    uint32_t end = a->count - first < RANGE_BLOCK ? a->count : first + RANGE_BLOCK;
    for (uint32_t e = first; e < end; e++) {
        const uint8_t *element = job->base + (size_t)e * a->stride;
        for (uint32_t col = 0; col < a->columns; col++)
            for (uint32_t row = 0; row < a->rows; row++) {
                uint32_t k = col * a->rows + row;
                const uint8_t *p = element + col * a->column_stride + row * a->component_size;
                double v = a->component_type == GLTF_UNSIGNED_INT
                               ? (double)load_le(p, 4)
                               : (double)component_to_float(p, a->component_type, false);
                if (v == v) {
                    lo[k] = v < lo[k] ? v : lo[k];
                    hi[k] = v > hi[k] ? v : hi[k];
                }
            }
    }
}

/* The data's smallest and largest raw value per component of accessor `a`
 * (NaN skipped), in blocks on the asset's threads joined in order with the
 * same comparisons (the values one pass finds); false when it has no
 * bufferView (all zeros, which the Khronos validator does not compare
 * either), the view cannot be read or memory runs out (an error). */
static bool data_range(gltf *g, const gltf_accessor *a, double *lo, double *hi) {
    const uint8_t *base = NULL;
    if (a->view < 0 || !gltf_view_bytes(g, (uint32_t)a->view, &base))
        return false;
    uint32_t blocks = (uint32_t)(((uint64_t)a->count + RANGE_BLOCK - 1) / RANGE_BLOCK);
    range_job job = {a, base + a->offset, malloc((blocks ? blocks : 1) * sizeof *job.bounds)};
    if (job.bounds == NULL)
        return gltf_out_of_memory(g);
    parallel_for(gltf_threads(g), blocks, range_block, &job);
    for (uint32_t k = 0; k < a->components; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
        for (uint32_t b = 0; b < blocks; b++) {
            double block_lo = job.bounds[b][0][k], block_hi = job.bounds[b][1][k];
            lo[k] = block_lo < lo[k] ? block_lo : lo[k];
            hi[k] = block_hi > hi[k] ? block_hi : hi[k];
        }
    }
    free(job.bounds);
    return true;
}

/* A declared bound as the component type holds it (floats as binary32). */
static double declared(const gltf_accessor *a, const json_t *bounds, uint32_t k) {
    double value = json_number_value(json_array_get(bounds, k));
    return a->component_type == GLTF_FLOAT ? (double)(float)value : value;
}

void gltf_check_accessor_bounds(gltf *g) {
    for (size_t i = 0; i < g->n_accessors && !g->stopped; i++) {
        const gltf_accessor *a = &g->accessors[i];
        /* Draco's decoded values carry its quantisation, not the source's bounds. */
        if (a->state != GLTF_VALID || (!a->has_min && !a->has_max) || a->sparse_count > 0 ||
            a->decoded != NULL || a->count == 0 || !gltf_accessor_readable(g, (uint32_t)i))
            continue;
        double lo[16], hi[16];
        if (!data_range(g, a, lo, hi))
            continue;
        const json_t *obj = json_array_get(g->j_accessors, i);
        for (int b = 0; b < 2; b++) {
            if (!(b == 0 ? a->has_min : a->has_max))
                continue;
            const json_t *bounds = json_object_get(obj, b == 0 ? "min" : "max");
            for (uint32_t k = 0; k < a->components; k++) {
                double bound = declared(a, bounds, k), data = b == 0 ? lo[k] : hi[k];
                if (!isfinite(data) || data == bound)
                    continue;
                bool passed = b == 0 ? data < bound : data > bound;
                gltf_warning(
                    g,
                    "accessors[%zu].%s[%u]: %.9g, but the %s element value is %.9g "
                    "(%s); kiln uses the data",
                    i, b == 0 ? "min" : "max", k, bound, b == 0 ? "smallest" : "largest", data,
                    passed ? "an element lies outside the bound" : "the bound must equal it");
                break; /* one warning per bound */
            }
        }
    }
}
