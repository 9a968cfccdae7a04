/* shader_defines.c — the NAME / NAME=VALUE lists of shader.defines and
 * shader.variants (shader_defines.h). */
#include <ctype.h>
#include <string.h>

#include "cook/core/shader_defines.h"

#define SEPARATORS " \t\n"

bool shader_define_next(const char **cursor, shader_define *define) {
    const char *at = *cursor;
    if (at == NULL)
        return false;
    at += strspn(at, SEPARATORS);
    size_t length = strcspn(at, SEPARATORS);
    *cursor = at + length;
    if (length == 0)
        return false;
    const char *equals = memchr(at, '=', length);
    *define = (shader_define){
        .token = at,
        .length = length,
        .name_length = equals ? (size_t)(equals - at) : length,
        .value = equals ? equals + 1 : NULL,
        .value_length = equals ? length - (size_t)(equals - at) - 1 : 0,
    };
    return true;
}

bool shader_is_identifier(const char *name, size_t length) {
    if (length == 0 || !(isalpha((unsigned char)name[0]) || name[0] == '_'))
        return false;
    for (size_t i = 1; i < length; i++)
        if (!(isalnum((unsigned char)name[i]) || name[i] == '_'))
            return false;
    return true;
}

bool shader_defines_valid(const char *defines, shader_define *bad) {
    shader_define define;
    while (shader_define_next(&defines, &define))
        if (!shader_is_identifier(define.token, define.name_length)) {
            *bad = define;
            return false;
        }
    return true;
}
