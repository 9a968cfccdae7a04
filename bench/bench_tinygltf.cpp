// bench_tinygltf.cpp — bench_tinygltf.h's C entry point, in C++ because
// tinygltf is a C++ library. Links Debian's libtinygltf (TinyGLTF::TinyGLTF),
// which already holds the implementation: no TINYGLTF_IMPLEMENTATION here,
// and so no need for the nlohmann-json or stb headers it is built from.
#include "bench_tinygltf.h"

#include <tiny_gltf.h>

#include <cstdio>
#include <string>

namespace {

// Indexed triangle primitives only: enough to show the model was read, and
// comparable with the triangle counts kiln and assimp report.
uint64_t count_triangles(const tinygltf::Model &model) {
    uint64_t triangles = 0;
    for (const tinygltf::Mesh &mesh : model.meshes) {
        for (const tinygltf::Primitive &primitive : mesh.primitives) {
            bool is_triangles = primitive.mode == TINYGLTF_MODE_TRIANGLES || primitive.mode == -1;
            if (is_triangles && primitive.indices >= 0 &&
                static_cast<size_t>(primitive.indices) < model.accessors.size())
                triangles += model.accessors[static_cast<size_t>(primitive.indices)].count / 3;
        }
    }
    return triangles;
}

} // namespace

extern "C" bool bench_tinygltf_load_glb(const char *path, uint64_t *triangles, char *error,
                                        size_t error_size) {
    tinygltf::TinyGLTF loader;
    tinygltf::Model model;
    std::string err, warn;
    bool ok = loader.LoadBinaryFromFile(&model, &err, &warn, path);
    if (!ok) {
        std::snprintf(error, error_size, "%s", err.empty() ? "unknown error" : err.c_str());
        return false;
    }
    *triangles = count_triangles(model);
    return true;
}
