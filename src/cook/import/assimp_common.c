/*
 * assimp_common.c — the bottom of the assimp conversion (assimp_internal.h):
 * what every part uses: assimp's strings, the node name table, checked
 * arrays, the out-of-memory error.
 */
#include <stdlib.h>
#include <string.h>

#include <assimp/scene.h>

#include "common/checked.h"
#include "cook/import/assimp_internal.h"

bool aimp_out_of_memory(aimp_state *st) {
    diag_error(st->ctx->diag, st->path, 0, "out of memory");
    return false;
}

size_t aimp_string_length(const struct aiString *s) {
    size_t limit = sizeof s->data - 1;
    size_t length = s->length < limit ? s->length : limit;
    const char *nul = memchr(s->data, '\0', length);
    return nul ? (size_t)(nul - s->data) : length;
}

char *aimp_string_dup(const struct aiString *s) {
    size_t length = aimp_string_length(s);
    char *copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, s->data, length);
        copy[length] = '\0';
    }
    return copy;
}

bool aimp_build_name_table(aimp_state *st) {
    size_t cap = 16;
    while (cap < (size_t)st->node_count * 2)
        cap *= 2;
    st->names = calloc(cap, sizeof *st->names);
    if (st->names == NULL)
        return false;
    st->names_cap = cap;
    for (uint32_t i = 0; i < st->node_count; i++) {
        const struct aiString *name = &st->nodes[i].node->mName;
        size_t length = aimp_string_length(name);
        size_t j = (size_t)kiln_ref_hash_n(name->data, length) & (cap - 1);
        bool duplicate = false;
        for (; st->names[j].name != NULL; j = (j + 1) & (cap - 1)) {
            if (st->names[j].length == length &&
                memcmp(st->names[j].name, name->data, length) == 0) {
                duplicate = true; /* the first node of that name wins */
                break;
            }
        }
        if (!duplicate)
            st->names[j] = (name_slot){name->data, length, i};
    }
    return true;
}

uint32_t aimp_find_node(const aimp_state *st, const struct aiString *name) {
    size_t length = aimp_string_length(name);
    size_t mask = st->names_cap - 1;
    for (size_t j = (size_t)kiln_ref_hash_n(name->data, length) & mask; st->names[j].name != NULL;
         j = (j + 1) & mask) {
        if (st->names[j].length == length && memcmp(st->names[j].name, name->data, length) == 0)
            return st->names[j].node;
    }
    return AIMP_NONE;
}

void *aimp_alloc_array(size_t count, size_t size) {
    size_t bytes;
    if (!checked_mul_size(count ? count : 1, size, &bytes))
        return NULL;
    return malloc(bytes);
}

const char *aimp_base_name(const char *path) {
    const char *name = path;
    for (const char *p = path; *p != '\0'; p++)
        if (*p == '/' || *p == '\\')
            name = p + 1;
    return name;
}
