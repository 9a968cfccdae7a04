/*
 * draco_decode.cpp — KHR_draco_mesh_compression's decoder: Debian's libdraco
 * (C++) behind the C function of draco_decode.h. C++ only because Draco is.
 *
 * Draco parses untrusted bytes, so this file trusts nothing it returns either:
 * every face index is checked against the point count, every attribute value
 * index against the attribute's size, every conversion's result; output sizes
 * are computed in 64 bits and bounded by the caller's limit before anything
 * is allocated; every exception (std::bad_alloc included) becomes an error.
 * Values are written little-endian byte by byte, as glTF stores them.
 *
 * This is kiln's one call into libdraco (draco_decode_mesh): when importers
 * move into an isolated child process, this call can go there as it is.
 */
#include <draco/compression/decode.h>
#include <draco/core/decoder_buffer.h>
#include <draco/mesh/mesh.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <type_traits>

extern "C" {
#include "cook/import/draco_decode.h"
#include "cook/import/gltf_component.h"
}

namespace {

bool fail(char *error, size_t error_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

bool fail(char *error, size_t error_size, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(error, error_size, fmt, args);
    va_end(args);
    return false;
}

/* Writes `value` little-endian at out. */
template <typename T> void store_le(uint8_t *out, T value) {
    using bits_t = typename std::conditional<
        sizeof(T) == 1, uint8_t,
        typename std::conditional<sizeof(T) == 2, uint16_t, uint32_t>::type>::type;
    bits_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    for (size_t k = 0; k < sizeof bits; k++)
        out[k] = static_cast<uint8_t>(bits >> (8 * k));
}

/* Every point's value of `attribute`, converted to T, into out. */
template <typename T>
bool extract(const draco::Mesh &mesh, const draco::PointAttribute &attribute, uint32_t components,
             uint8_t *out, char *error, size_t error_size) {
    T value[16];
    for (uint32_t p = 0; p < mesh.num_points(); p++) {
        draco::AttributeValueIndex index = attribute.mapped_index(draco::PointIndex(p));
        if (index.value() >= attribute.size())
            return fail(error, error_size, "point %u maps to value %u of %zu", p, index.value(),
                        attribute.size());
        if (!attribute.ConvertValue<T>(index, static_cast<int8_t>(components), value))
            return fail(error, error_size, "the value of point %u does not convert", p);
        for (uint32_t c = 0; c < components; c++)
            store_le(out + (static_cast<size_t>(p) * components + c) * sizeof(T), value[c]);
    }
    return true;
}

bool extract_as(uint32_t type, const draco::Mesh &mesh, const draco::PointAttribute &attribute,
                uint32_t components, uint8_t *out, char *error, size_t error_size) {
    switch (type) {
    case GLTF_BYTE:
        return extract<int8_t>(mesh, attribute, components, out, error, error_size);
    case GLTF_UNSIGNED_BYTE:
        return extract<uint8_t>(mesh, attribute, components, out, error, error_size);
    case GLTF_SHORT:
        return extract<int16_t>(mesh, attribute, components, out, error, error_size);
    case GLTF_UNSIGNED_SHORT:
        return extract<uint16_t>(mesh, attribute, components, out, error, error_size);
    case GLTF_UNSIGNED_INT:
        return extract<uint32_t>(mesh, attribute, components, out, error, error_size);
    default:
        return extract<float>(mesh, attribute, components, out, error, error_size);
    }
}

bool decode(const uint8_t *data, size_t size, const draco_request *requests, size_t request_count,
            uint64_t max_bytes, draco_mesh *out, char *error, size_t error_size) {
    for (size_t r = 0; r < request_count; r++)
        if (gltf_component_size(requests[r].component_type) == 0 || requests[r].components == 0 ||
            requests[r].components > 16)
            return fail(error, error_size, "request %zu: bad component type or count", r);
    draco::DecoderBuffer buffer;
    buffer.Init(reinterpret_cast<const char *>(data), size);
    draco::Decoder decoder;
    auto decoded = decoder.DecodeMeshFromBuffer(&buffer);
    if (!decoded.ok())
        return fail(error, error_size, "corrupt or unsupported Draco data (%s)",
                    decoded.status().error_msg());
    std::unique_ptr<draco::Mesh> mesh = std::move(decoded).value();
    if (mesh == nullptr)
        return fail(error, error_size, "the Draco data is not a triangle mesh");

    uint64_t points = mesh->num_points(), faces = mesh->num_faces();
    uint64_t total = faces * 3 * sizeof(uint32_t);
    for (size_t r = 0; r < request_count; r++)
        total += points * requests[r].components * gltf_component_size(requests[r].component_type);
    if (total > max_bytes)
        return fail(error, error_size, "the decoded mesh (%llu bytes) exceeds the limit of %llu",
                    static_cast<unsigned long long>(total),
                    static_cast<unsigned long long>(max_bytes));

    out->point_count = static_cast<uint32_t>(points);
    out->face_count = static_cast<uint32_t>(faces);
    out->indices = static_cast<uint32_t *>(std::malloc(faces ? faces * 3 * sizeof(uint32_t) : 1));
    out->values = static_cast<uint8_t **>(
        std::calloc(request_count ? request_count : 1, sizeof *out->values));
    if (out->indices == nullptr || out->values == nullptr)
        return fail(error, error_size, "out of memory");
    out->value_count = request_count;
    for (uint32_t f = 0; f < faces; f++) {
        const draco::Mesh::Face &face = mesh->face(draco::FaceIndex(f));
        for (int k = 0; k < 3; k++) {
            uint32_t index = face[k].value();
            if (index >= points)
                return fail(error, error_size, "face %u names point %u of %llu", f, index,
                            static_cast<unsigned long long>(points));
            out->indices[3 * static_cast<size_t>(f) + k] = index;
        }
    }
    for (size_t r = 0; r < request_count; r++) {
        const draco_request &request = requests[r];
        const draco::PointAttribute *attribute = mesh->GetAttributeByUniqueId(request.unique_id);
        if (attribute == nullptr)
            return fail(error, error_size, "no Draco attribute has the id %u", request.unique_id);
        if (attribute->num_components() != request.components)
            return fail(error, error_size,
                        "Draco attribute %u has %d components per point; the accessor %u",
                        request.unique_id, attribute->num_components(), request.components);
        size_t bytes = points * request.components * gltf_component_size(request.component_type);
        out->values[r] = static_cast<uint8_t *>(std::malloc(bytes ? bytes : 1));
        if (out->values[r] == nullptr)
            return fail(error, error_size, "out of memory");
        char reason[160] = "";
        if (!extract_as(request.component_type, *mesh, *attribute, request.components,
                        out->values[r], reason, sizeof reason))
            return fail(error, error_size, "Draco attribute %u: %s", request.unique_id, reason);
    }
    return true;
}

} // namespace

extern "C" bool draco_decode_mesh_in_process(const uint8_t *data, size_t size,
                                             const draco_request *requests, size_t request_count,
                                             uint64_t max_bytes, draco_mesh *out, char *error,
                                             size_t error_size) {
    std::memset(out, 0, sizeof *out);
    bool ok;
    try {
        ok = decode(data, size, requests, request_count, max_bytes, out, error, error_size);
    } catch (const std::exception &e) {
        ok = fail(error, error_size, "the Draco decoder failed (%s)", e.what());
    } catch (...) {
        ok = fail(error, error_size, "the Draco decoder failed");
    }
    if (!ok)
        draco_mesh_free(out);
    return ok;
}

extern "C" void draco_mesh_free(draco_mesh *mesh) {
    for (size_t r = 0; mesh->values != nullptr && r < mesh->value_count; r++)
        std::free(mesh->values[r]);
    std::free(mesh->values);
    std::free(mesh->indices);
    std::memset(mesh, 0, sizeof *mesh);
}
