/*
 * bench_tinygltf.h — a C entry point into tinygltf (a C++ library), so the
 * benchmarks stay C. Implemented in bench_tinygltf.cpp against Debian's
 * libtinygltf (the header plus its shared library; no copy of its source).
 */
#ifndef KILN_BENCH_TINYGLTF_H
#define KILN_BENCH_TINYGLTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* tinygltf::TinyGLTF::LoadBinaryFromFile on `path` with default options, then
 * the model is destroyed: what a game loading .glb at run time with tinygltf
 * pays to get buffers it can read. *triangles receives the triangle count of
 * the model's indexed triangle primitives (proof the load did the work). On
 * failure returns false with tinygltf's message in `error`. */
bool bench_tinygltf_load_glb(const char *path, uint64_t *triangles, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* KILN_BENCH_TINYGLTF_H */
