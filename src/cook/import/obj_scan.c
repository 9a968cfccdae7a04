/*
 * obj_scan.c — the bottom of the OBJ importer (obj_internal.h): its growable
 * arrays and name tables, its messages, and the cursor over the text (blanks,
 * line continuations, fields, numbers).
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "common/grow.h"
#include "cook/import/obj_internal.h"

/* ---------------------------------------------------------------------------
 * Growable arrays and hash tables
 * ------------------------------------------------------------------------- */

void *obj_vec_grow_push(obj_vec *vec, size_t size, size_t n) {
    size_t need;
    if (!checked_add_size(vec->count, n, &need))
        return NULL;
    if (need > vec->cap) {
        void *data = array_grow(vec->data, &vec->cap, need, size, 16);
        if (data == NULL)
            return NULL;
        vec->data = data;
    }
    void *first = (char *)vec->data + vec->count * size;
    vec->count = need;
    return first;
}

void obj_vec_free(obj_vec *vec) {
    free(vec->data);
    memset(vec, 0, sizeof *vec);
}

uint32_t obj_name_find(const name_table *table, const char *name, size_t length) {
    if (table->cap == 0)
        return OBJ_NONE;
    size_t mask = table->cap - 1;
    for (size_t i = (size_t)kiln_ref_hash_n(name, length) & mask;; i = (i + 1) & mask) {
        const name_entry *entry = &table->slots[i];
        if (entry->name == NULL)
            return OBJ_NONE;
        if (entry->length == length && memcmp(entry->name, name, length) == 0)
            return entry->id;
    }
}

bool obj_name_insert(name_table *table, const char *name, size_t length, uint32_t id) {
    if ((table->count + 1) * 2 > table->cap) {
        size_t cap = table->cap ? table->cap * 2 : 64;
        name_entry *slots = calloc(cap, sizeof *slots);
        if (slots == NULL)
            return false;
        for (size_t i = 0; i < table->cap; i++) {
            if (table->slots[i].name == NULL)
                continue;
            size_t j =
                (size_t)kiln_ref_hash_n(table->slots[i].name, table->slots[i].length) & (cap - 1);
            while (slots[j].name != NULL)
                j = (j + 1) & (cap - 1);
            slots[j] = table->slots[i];
        }
        free(table->slots);
        table->slots = slots;
        table->cap = cap;
    }
    size_t mask = table->cap - 1;
    size_t i = (size_t)kiln_ref_hash_n(name, length) & mask;
    while (table->slots[i].name != NULL)
        i = (i + 1) & mask;
    table->slots[i] = (name_entry){name, length, id};
    table->count++;
    return true;
}

/* ---------------------------------------------------------------------------
 * Diagnostics
 * ------------------------------------------------------------------------- */

static bool is_blank(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool obj_is_binary(unsigned char c) {
    return c < 0x20 && c != '\n' && !is_blank(c);
}

float obj_to_float(double value) {
    if (value > FLT_MAX)
        return INFINITY;
    if (value < -FLT_MAX)
        return -INFINITY;
    return (float)value;
}

bool obj_out_of_memory(obj_parser *ps) {
    if (!ps->quiet)
        diag_error(ps->ctx->diag, ps->path, ps->line, "out of memory");
    return false;
}

bool obj_binary_error(obj_parser *ps, unsigned char byte) {
    ps->binary = true;
    if (!ps->quiet)
        diag_error(ps->ctx->diag, ps->path, ps->line,
                   "not a text OBJ file (byte 0x%02x where text was expected)", byte);
    return false;
}

/* Reports a malformed statement, or "not a text OBJ file" when the line
 * around the cursor holds bytes no text has (then the message would be noise). */
bool obj_syntax_error(obj_parser *ps, const char *fmt, ...) {
    const unsigned char *begin = ps->p, *stop = ps->p;
    for (int n = 0; begin > ps->begin && begin[-1] != '\n' && n < OBJ_ERROR_CONTEXT; n++)
        begin--;
    for (int n = 0; stop < ps->end && *stop != '\n' && n < OBJ_ERROR_CONTEXT; n++)
        stop++;
    for (const unsigned char *q = begin; q < stop; q++)
        if (obj_is_binary(*q) || *q == 0x7f)
            return obj_binary_error(ps, *q);
    if (ps->quiet)
        return false;
    char message[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    diag_error(ps->ctx->diag, ps->path, ps->line, "%s", message);
    return false;
}

int obj_token_length(const unsigned char *p, const unsigned char *end) {
    int n = 0;
    while (p + n < end && p[n] > ' ' && n < 40)
        n++;
    return n;
}

/* ---------------------------------------------------------------------------
 * Scanning
 * ------------------------------------------------------------------------- */

/* A backslash ending the line joins the next one: returns the byte after the
 * newline, or NULL when the backslash at p is not a continuation. */
static const unsigned char *continuation(const unsigned char *p, const unsigned char *end) {
    const unsigned char *q = p + 1;
    if (q < end && *q == '\r')
        q++;
    if (q >= end)
        return q;
    return *q == '\n' ? q + 1 : NULL;
}

bool obj_is_continuation(const unsigned char *p, const unsigned char *end) {
    return continuation(p, end) != NULL;
}

void obj_skip_other_blanks(obj_parser *ps) {
    const unsigned char *p = ps->p, *end = ps->end;
    for (;;) {
        while (p < end && is_blank(*p))
            p++;
        const unsigned char *next;
        if (p < end && *p == '\\' && (next = continuation(p, end)) != NULL) {
            if (next[-1] == '\n')
                ps->line++;
            p = next;
            continue;
        }
        break;
    }
    ps->p = p;
}

bool obj_skip_line(obj_parser *ps, bool logical) {
    const unsigned char *p = ps->p, *end = ps->end;
    while (p < end && *p != '\n') {
        const unsigned char *next;
        if (logical && *p == '\\' && (next = continuation(p, end)) != NULL) {
            if (next[-1] == '\n')
                ps->line++;
            p = next;
            continue;
        }
        if (obj_is_binary(*p)) {
            ps->p = p;
            return obj_binary_error(ps, *p);
        }
        p++;
    }
    ps->p = p;
    return true;
}

bool obj_read_rest(obj_parser *ps, const char **text, size_t *length) {
    ps->scratch.count = 0;
    obj_skip_blanks(ps);
    const unsigned char *p = ps->p, *end = ps->end;
    while (p < end && *p != '\n') {
        unsigned char c = *p;
        const unsigned char *next;
        if (c == '\\' && (next = continuation(p, end)) != NULL) {
            if (next[-1] == '\n')
                ps->line++;
            p = next;
            c = ' ';
        } else if (obj_is_binary(c)) {
            ps->p = p;
            return obj_binary_error(ps, c);
        } else {
            p++;
        }
        char *slot = obj_vec_push(&ps->scratch, 1, 1);
        if (slot == NULL)
            return obj_out_of_memory(ps);
        *slot = is_blank(c) ? ' ' : (char)c;
    }
    ps->p = p;
    char *data = ps->scratch.data;
    size_t n = ps->scratch.count;
    while (n > 0 && data[n - 1] == ' ')
        n--;
    ps->scratch.count = n;
    char *terminator = obj_vec_push(&ps->scratch, 1, 1);
    if (terminator == NULL)
        return obj_out_of_memory(ps);
    *terminator = '\0';
    *text = ps->scratch.data;
    *length = n;
    return true;
}

bool obj_read_numbers(obj_parser *ps, const char *keyword, double *values, int max, int *count) {
    int n = 0;
    while (obj_next_field(ps)) {
        if (n == max)
            return obj_syntax_error(ps, "'%s' has more than %d values", keyword, max);
        const unsigned char *start = ps->p;
        const char *cursor = (const char *)start;
        if (import_scan_number(&cursor, (const char *)ps->end, &values[n])) {
            ps->p = (const unsigned char *)cursor;
            if (obj_at_token_end(ps)) {
                n++;
                continue;
            }
            ps->p = start;
        }
        return obj_syntax_error(ps, "'%s': '%.*s' is not a number", keyword,
                                obj_token_length(start, ps->end), (const char *)start);
    }
    *count = n;
    return !ps->binary;
}
