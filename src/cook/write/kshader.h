/* kshader.h — serialises a shader program as a .kshader file
 * (docs/formats/kshader.md), write/kshader.c. */
#ifndef KILN_COOK_WRITE_KSHADER_H
#define KILN_COOK_WRITE_KSHADER_H

#include <stdbool.h>

#include "cook/core/shader_ir.h"
#include "cook/write/write.h"

/* The whole file (SHDS, META, SSTG, SPRV, SVIO, SBND, SPSH, SSPC, SHST) into
 * `out`; the bindings must be sorted (shader_ir_sort_bindings). */
bool write_kshader(const cook_context *ctx, const shader_program_ir *program, const char *importer,
                   bytebuf *out);

#endif /* KILN_COOK_WRITE_KSHADER_H */
