/*
 * util.h — the cooker's small containers, strings and files (core/util.c):
 * bytebuf, string tables, strlist, paths, reading whole files. Part of
 * core.h, and one of the few core headers cook.h exports: the build engine
 * and the CLI use them too.
 */
#ifndef KILN_COOK_CORE_UTIL_H
#define KILN_COOK_CORE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------------------
 * Small containers, strings, files (core/util.c)
 * ------------------------------------------------------------------------- */

/* A growable byte buffer. Invariant: data is NULL only while cap == 0. After an
 * allocation failure `failed` is set and further appends are ignored. */
typedef struct bytebuf {
    uint8_t *data;
    size_t size;
    size_t cap;
    bool failed;
} bytebuf;

void bytebuf_append(bytebuf *buf, const void *data, size_t size);
void bytebuf_append_zeros(bytebuf *buf, size_t count);
/* Grows the buffer by `count` bytes left uninitialised, for the caller to
 * fill, and returns where they start; NULL (and failed set) when out of
 * memory. */
uint8_t *bytebuf_extend(bytebuf *buf, size_t count);
void bytebuf_printf(bytebuf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bytebuf_append_json_string(bytebuf *buf, const char *text); /* quoted, escaped */
/* Text for a terminal or a log, as every diagnostic prints a file name:
 * control characters (newline, ESC, the C1 range), DEL and bytes that are
 * not valid UTF-8 become "\xNN"; valid UTF-8 is kept. The text stays
 * NUL-terminated past buf->size, as bytebuf_printf keeps it. NULL is "". */
void bytebuf_append_escaped(bytebuf *buf, const char *text);
/* The same into out[out_size] (always terminated, cut before an escape or a
 * character that does not fit); returns out. */
const char *cook_escape_to(char *out, size_t out_size, const char *text);
/* `text` escaped as a printf argument: every path, ref or name that came from
 * a file or a file name goes through it in text output (JSON keeps them
 * exact), e.g. printf("node '%s'\n", cook_escaped(name)). The buffer is a
 * compound literal: it lives until the end of the enclosing block. A longer
 * text is cut (cook_escape_to). */
#define COOK_ESCAPED_SIZE 4096
#define cook_escaped(text) cook_escape_to((char[COOK_ESCAPED_SIZE]){0}, COOK_ESCAPED_SIZE, (text))
void bytebuf_free(bytebuf *buf);

/* Appends `text` (NULL: the empty string) and its NUL to a string table of a
 * cooked file (.kscene, .kanim, .kman, .kshader): *offset is where it starts,
 * *length its length without the NUL (length may be NULL). False, the table
 * unchanged, when the table would pass 4 GiB, which 32-bit offsets cannot
 * address. */
bool string_table_add(bytebuf *strings, const char *text, uint32_t *offset, uint32_t *length);

/* A list of owned strings. */
typedef struct strlist {
    char **items;
    size_t count;
    size_t cap;
} strlist;

bool strlist_push(strlist *list, const char *text);        /* copies text */
bool strlist_push_all(strlist *list, const strlist *from); /* copies every item */
bool strlist_contains(const strlist *list, const char *text);
void strlist_sort(strlist *list);
void strlist_free(strlist *list);

char *cook_strdup(const char *text); /* NULL on allocation failure */
/* Narrows a text file's bytes [*begin, *end) to its text: skips a UTF-8
 * byte-order mark and drops trailing DOS end-of-file markers (0x1a). */
void cook_text_trim(const unsigned char **begin, const unsigned char **end);

/* "dir/name" without a doubled '/'; a copy of the other when either is empty.
 * NULL on allocation failure. Caller frees. */
char *cook_path_join(const char *dir, const char *name);

/* `relative` resolved against the folder of `source_path` (relative to the
 * input root; "" for the root itself), folding "." and "..": the root-relative
 * path a source's reference names. NULL with a reason when it is empty,
 * absolute or would leave the root. Lexical only: links are checked where the
 * file is opened (cook_resolve_dependency). Caller frees. */
char *cook_path_resolve(const char *source_path, const char *relative, char *reason,
                        size_t reason_size);
/* The path that names `to` from the folder of `from_file` (both relative to
 * the input root, as cook_path_resolve returns them): "../b/c.png" from
 * "a/x.obj" to "b/c.png". NULL on allocation failure. Caller frees. */
char *cook_path_relative(const char *from_file, const char *to);

/* Opens a regular file for reading without ever waiting: a FIFO, socket,
 * device or folder is refused ("a FIFO, not a regular file (not read)") before
 * it is read, and *info (may be NULL) receives its fstat. NULL with a reason
 * on failure. */
struct stat;
FILE *cook_open_regular(const char *path, struct stat *info, char *reason, size_t reason_size);

/* Reads a whole file into a NUL-terminated heap block. On failure returns false
 * and puts the OS reason into `reason`. Files above max_size are refused. */
bool cook_read_file(const char *path, size_t max_size, uint8_t **out, size_t *size, char *reason,
                    size_t reason_size);
/* The same, a large file read in pieces on up to `threads` threads (the
 * copies out of the page cache and the first touches of the block's pages
 * are most of a large read). */
bool cook_read_file_on(unsigned threads, const char *path, size_t max_size, uint8_t **out,
                       size_t *size, char *reason, size_t reason_size);
/* Where an asset's output goes: output_root/<dir of source>/<stem><suffix>,
 * e.g. "models/crate.obj" + ".kmesh" -> "models/crate.kmesh". Caller frees. */
char *cook_output_path(const char *source_path, const char *suffix);

#endif /* KILN_COOK_CORE_UTIL_H */
